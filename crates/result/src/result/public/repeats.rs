//! What a path hid, hidden wherever the text says it again: a card mounted at
//! `/media/USER/ZR12-AB34` named again as `vol ZR12-AB34` (the fourteenth attack pass: the
//! folder was `[folder]`, its repetition published on the result's page, in the API and the
//! dump).

use super::SHARED;

/// `shown` (the text `text` became) with each word that names a folder `text`'s paths had
/// below a folder anyone names (`/media/USER/`, `/mnt/`, `~/`…) written `[folder]`. Only
/// names that are no everyday word are taken: four characters or more with a digit, a `_` or
/// a `-`, all capitals, or eight characters or more (`/mnt/data` leaves "data" alone).
pub(super) fn hide_repeats(text: &str, shown: &str) -> String {
    let mut named: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        for root in SHARED {
            let Some(at) = word.find(root) else {
                continue;
            };
            let rest = &word[at + root.len()..];
            // Below `/dev/` the kernel's names are shown; the names people gave a disk
            // (`disk/by-label/…`, `mapper/…`) are not.
            if root == "/dev/" && !rest.starts_with("disk/") && !rest.starts_with("mapper/") {
                continue;
            }
            named.extend(
                rest.split(['/', '\\'])
                    .map(|n| n.trim_end_matches(|c: char| ".,;:)]}'\"".contains(c)))
                    .filter(|n| !DEV_FOLDERS.contains(n) && unusual(n)),
            );
        }
    }
    if named.is_empty() {
        return shown.to_string();
    }
    shown
        .split_inclusive(char::is_whitespace)
        .map(|piece| {
            let word = piece.trim_end_matches(char::is_whitespace);
            let core = word.trim_matches(|c: char| "([{\"'.,;:)]}".contains(c));
            match named.contains(&core) {
                true => piece.replacen(core, "[folder]", 1),
                false => piece.to_string(),
            }
        })
        .collect()
}

/// The folders of `/dev/disk/` that name no one.
const DEV_FOLDERS: [&str; 7] = [
    "by-id",
    "by-label",
    "by-uuid",
    "by-partuuid",
    "by-partlabel",
    "by-path",
    "by-diskseq",
];

/// A folder's name that is no everyday word (see [`hide_repeats`]).
fn unusual(name: &str) -> bool {
    let n = name.chars().count();
    let marked = name.contains(|c: char| c.is_ascii_digit() || c == '_' || c == '-');
    let capitals = name.chars().any(char::is_alphabetic)
        && name.chars().all(|c| !c.is_alphabetic() || c.is_uppercase());
    !name.starts_with('[') && n >= 4 && (marked || capitals || n >= 8)
}

#[cfg(test)]
mod tests {
    use crate::result::hide_private_paths as sent;

    #[test]
    fn a_hidden_folder_said_again_is_hidden_again() {
        assert_eq!(
            sent("card /media/alice/ZR12-AB34 vol ZR12-AB34"),
            "card /media/USER/[folder] vol [folder]"
        );
        assert_eq!(
            sent("/mnt/ALICE_SD is slow (ALICE_SD)"),
            "/mnt/[folder] is slow ([folder])"
        );
        // The kernel's names of disks are shown wherever they are; a label people gave is not.
        assert_eq!(
            sent("/dev/nvme0n1 and nvme0n1p2"),
            "/dev/nvme0n1 and nvme0n1p2"
        );
        assert_eq!(
            sent("/dev/disk/by-label/BOB_USB1 is BOB_USB1"),
            "/dev/[folder] is [folder]"
        );
        // Everyday words stay.
        assert_eq!(
            sent("/mnt/data holds random data"),
            "/mnt/[folder] holds random data"
        );
    }
}
