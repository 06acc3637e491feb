//! A result as it may leave the machine: what `iomark submit` sends.

use std::path::Path;

use super::ResultDoc;

mod fields;
mod kernel;
mod options;
mod repeats;
mod someone;
pub use fields::each_text;
pub use kernel::{public_device_name, public_filesystem};
pub use options::{public_kernel, public_mount_options};
use someone::{
    names_someone, number_word, owner_at, serial_tag_after, spelt_at, tagged_label, tagged_serial,
    volume_id,
};

impl ResultDoc {
    /// This document less what could point at a person: their home folder becomes `~` in
    /// every text (a test file's folder often names its owner), and the owner's folder of a
    /// desktop's mounts `USER` (`/media/alice/CARD` → `/media/USER/CARD`, as udisks mounts a
    /// card under its user's name; `/run/media/alice/…` likewise). Serial numbers are already
    /// only a salted hash, and iomark records no hostname or user name.
    pub fn for_submission(&self, home: Option<&Path>) -> ResultDoc {
        let home = home
            .and_then(|h| h.to_str())
            .map(|h| h.trim_end_matches('/'))
            .filter(|h| !h.is_empty())
            .unwrap_or("");
        // Every text in the document, not only the test path: a langs run's reasons, a loop
        // device's backing file, fields of a newer version.
        let Ok(mut value) = serde_json::to_value(self) else {
            return self.clone();
        };
        // A field of the kernel's vocabulary holding words of someone's is replaced, and so
        // is what it held wherever a text repeats it (a warning names the filesystem).
        let mut replaced = Vec::new();
        for (at, public) in [
            (
                "/target/device/name",
                public_device_name as fn(&str) -> String,
            ),
            ("/target/filesystem", public_filesystem),
        ] {
            if let Some(field) = value.pointer_mut(at) {
                if let Some(text) = field.as_str().map(str::to_string) {
                    let shown = public(&text);
                    if shown != text {
                        *field = shown.clone().into();
                        replaced.push((text, shown));
                    }
                }
            }
        }
        fields::hash_serial(&mut value);
        replace_everywhere(&mut value, &replaced);
        hide(&mut value, home);
        if let Some(options) = value.pointer_mut("/target/mount_options") {
            if let Some(text) = options.as_str() {
                *options = public_mount_options(text).into();
            }
        }
        // The test's folder is a path whole, spaces and all (`/media/USER/SD CARD`): below a
        // folder anyone names, nothing of it.
        if let Some(path) = value.pointer_mut("/target/path") {
            if let Some(root) = path.as_str().and_then(|p| {
                SHARED
                    .iter()
                    .find(|root| p.len() > root.len() && p.starts_with(*root))
            }) {
                *path = format!("{root}[folder]").into();
            }
        }
        if let Some(kernel) = value.pointer_mut("/host/kernel") {
            if let Some(text) = kernel.as_str() {
                *kernel = public_kernel(text).into();
            }
        }
        // Through text, as every other reader of the document reads it (one reader, not two).
        serde_json::to_string(&value)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| self.clone())
    }
}

/// Each text of `before` that its public copy `after` (`ResultDoc::for_submission`) sends
/// changed, so the sender can be shown what was removed: its place in the document
/// (`target.mount_options`, `tests.0.name`), what it was and what is sent.
pub fn changed_texts(before: &ResultDoc, after: &ResultDoc) -> Vec<(String, String, String)> {
    fn walk(
        a: &serde_json::Value,
        b: &serde_json::Value,
        at: &str,
        out: &mut Vec<(String, String, String)>,
    ) {
        use serde_json::Value;
        let here = |key: &str| match at.is_empty() {
            true => key.to_string(),
            false => format!("{at}.{key}"),
        };
        match (a, b) {
            (Value::String(x), Value::String(y)) if x != y => {
                out.push((at.to_string(), x.clone(), y.clone()))
            }
            (Value::Array(xs), Value::Array(ys)) => {
                for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                    walk(x, y, &here(&i.to_string()), out);
                }
            }
            (Value::Object(xs), Value::Object(ys)) => {
                for (key, x) in xs {
                    if let Some(y) = ys.get(key) {
                        walk(x, y, &here(key), out);
                    }
                }
            }
            _ => {}
        }
    }
    let (Ok(a), Ok(b)) = (serde_json::to_value(before), serde_json::to_value(after)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    walk(&a, &b, "", &mut out);
    out
}

/// Each `(was, is)` of `replaced` written `is` in every text of `value` (a text shorter than
/// three letters is left: it names nobody, and is in many words).
fn replace_everywhere(value: &mut serde_json::Value, replaced: &[(String, String)]) {
    each_text(value, &mut |text| {
        for (was, is) in replaced.iter().filter(|(was, _)| was.len() >= 3) {
            if text.contains(was.as_str()) {
                *text = text.replace(was.as_str(), is);
            }
        }
    })
}

fn hide(value: &mut serde_json::Value, home: &str) {
    each_text(value, &mut |text| {
        if !home.is_empty() && text.contains(home) {
            *text = replace_home(text, home);
        }
        *text = hide_private_paths(text);
    })
}

/// `text` less the folders that name a person, wherever they are: a home folder
/// (`/home/alice/x` → `~/x`, `/Users/alice` and `/root` likewise) and the owner's folder of a
/// desktop's mounts (`/media/alice/CARD` → `/media/USER/CARD`). `iomark submit` sends every
/// text so, and a public site keeps every text so whoever sent it (issue 59).
pub fn hide_private_paths(text: &str) -> String {
    let mut text = match text.contains("/media/") {
        true => hide_mount_owner(text),
        false => text.to_string(),
    };
    for prefix in ["/home/", "/Users/"] {
        if text.contains(prefix) {
            text = hide_homes(&text, prefix);
        }
    }
    let text = match text.contains("/root") {
        true => replace_home(&text, "/root"),
        false => text,
    };
    repeats::hide_repeats(&text, &hide_other_paths(&text))
}

/// The folders a path may begin with and be shown: the system's own, and what is hidden
/// already. Any other path is someone's (issue 59's attack pass published `/media/alice`,
/// `/home//bob`, `/HOME/u`, `C:\Users\u`, `~erin`, `/run/user/1000/gvfs/…user=carol`).
const SHOWN: [&str; 17] = [
    "/dev/",
    "/sys/",
    "/proc/",
    "/usr/",
    "/etc/",
    "/lib",
    "/bin/",
    "/sbin/",
    "/opt/",
    "/var/lib/",
    "/tmp",
    "/mnt/",
    "/boot",
    "/media/USER/",
    "/run/media/USER/",
    "/var/tmp",
    "~/",
];

/// The folders of [`SHOWN`] anyone makes folders in or names: shown, and nothing below them (a
/// desktop's mounts below `/media/USER/` are named by their cards' labels, which their owners
/// gave: `ALICE_WEDDING`, the ninth attack pass). Below a home
/// (`~/`) every folder is its owner's; below `/var/lib/` a service's, named as its user may be;
/// below `/dev/` only the kernel's names of devices are shown (`/dev/sda`, `/dev/mmcblk0p2`):
/// `/dev/disk/by-id/` holds serial numbers, `by-label/` and `/dev/mapper/` names people gave
/// (the seventh attack pass published all of these).
const SHARED: [&str; 9] = [
    "/media/USER/",
    "/run/media/USER/",
    "/tmp/",
    "/var/tmp/",
    "/mnt/",
    "/opt/",
    "~/",
    "/var/lib/",
    "/dev/",
];

/// Folders that, written without their first slash, hold a person's or a device's names.
const RELATIVE_ROOTS: [&str; 8] = [
    "home/",
    "users/",
    "media/",
    "run/media/",
    "root/",
    "dev/disk/",
    "disk/by-",
    "mnt/",
];

/// A device's name as the kernel gives it under `/dev/` (`sda`, `nvme0n1p1`, `mmcblk0`,
/// `loop3`, `dm-0`): letters, then letters, digits or dashes, one folder deep.
fn kernel_device(rest: &str) -> bool {
    rest.starts_with(|c: char| c.is_ascii_lowercase())
        && rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `text` with the slashes and tildes written percent-encoded (`%2F`, `%5C`, `%7E`) as they are,
/// however often encoded (`%252F` is `%2F` encoded again: the fourth attack pass published
/// `%252Fhome%252Falice`): each code is taken back as soon as it is whole, the percent sign's
/// own (`%25`) too, so that one pass does what passes until nothing changes would, in time
/// linear in the text (a hostile text of a million `%25`s is no slower than any other).
fn unescaped(text: &str) -> String {
    if !text.contains(['%', '&']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        out.push(c);
        while let Some((long, decoded)) = whole_code(&out)
            .map(|c| (3, c))
            .or_else(|| whole_entity(&out))
        {
            out.truncate(out.len() - long);
            out.push(decoded);
        }
    }
    out
}

/// What the HTML character reference `out` ends with stands for, and its length, if it ends
/// with one of a slash, a backslash, a tilde or an ampersand (`&#47;`, `&#x2F;`, `&sol;`: the
/// sixth attack pass published `&#47;home&#47;zorro`).
fn whole_entity(out: &str) -> Option<(usize, char)> {
    if !out.ends_with(';') {
        return None;
    }
    // Within its last eight characters: the work per character stays bounded.
    let (start, _) = out.char_indices().rev().take(8).find(|(_, c)| *c == '&')?;
    let name = out[start + 1..out.len() - 1].to_ascii_lowercase();
    let decoded = match name.as_str() {
        "#47" | "#x2f" | "#x02f" | "#047" | "sol" => '/',
        "#92" | "#x5c" | "#092" | "bsol" => '\\',
        "#126" | "#x7e" => '~',
        "#38" | "#x26" | "amp" => '&',
        // An address written so (`gil&#64;example.com`, the eighth attack pass).
        "#64" | "#x40" | "#064" | "commat" => '@',
        _ => return None,
    };
    Some((out.len() - start, decoded))
}

/// What the percent code `out` ends with stands for, if it ends with one of those
/// [`unescaped`] takes back.
fn whole_code(out: &str) -> Option<char> {
    let tail = out.as_bytes().get(out.len().checked_sub(3)?..)?;
    if tail[0] != b'%' {
        return None;
    }
    match [tail[1], tail[2].to_ascii_lowercase()] {
        [b'2', b'5'] => Some('%'),
        [b'2', b'f'] => Some('/'),
        [b'5', b'c'] => Some('\\'),
        [b'7', b'e'] => Some('~'),
        [b'4', b'0'] => Some('@'),
        _ => None,
    }
}

/// Every word of `text` that holds a path not of [`SHOWN`] written `[folder]`: a word whose
/// path begins at its start or after what opens or names one (`(/x`, `C:\x`, `file:///x`),
/// with `/`, `\` or their full-width and division look-alikes, or `~` and a name; `MB/s`,
/// `I/O` and `</b>` are no paths.
fn hide_other_paths(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let slash = |c: char| {
        matches!(
            c,
            '/' | '\\' | '\u{ff0f}' | '\u{ff3c}' | '\u{2215}' | '\u{2044}'
        )
    };
    let mut out = String::with_capacity(text.len());
    // Whether the word before was hidden; whether it said a serial number follows.
    let mut hid = false;
    let mut serial_next = false;
    let pieces: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
    let lowered: Vec<String> = pieces
        .iter()
        .map(|p| p.trim_end_matches(char::is_whitespace).to_lowercase())
        .collect();
    let spelt = |i: usize| spelt_at(&lowered, i);
    let mut swallowed = 0;
    for (i, piece) in pieces.iter().enumerate() {
        if i < swallowed || spelt(i) {
            continue;
        }
        let word = piece.trim_end_matches(char::is_whitespace);
        let space = &piece[word.len()..];
        // A path written percent-encoded (`%2Fhome%2Falice`, issue 59's third attack pass) is
        // a path.
        let folded: String = unescaped(&word.nfkc().collect::<String>());
        let start = folded.char_indices().find(|&(at, c)| {
            let before = folded[..at].chars().last();
            // At the word's start, or after what opens or names a path (`(`, a quote, `=`,
            // `:`, `[`, `,`): `</script>` and `MB/s` hold no path.
            before.is_none_or(|b| "(\"'=:[,".contains(b)) && (slash(c) || c == '~')
        });
        let path =
            start.map(|(at, _)| folded[at..].trim_end_matches(|c: char| ".,;:)]}'\"".contains(c)));
        // What opens the path and what follows it, kept about `[folder]`.
        let (before, after) = match (start, path) {
            (Some((at, _)), Some(path)) => (&folded[..at], &folded[at + path.len()..]),
            _ => ("", ""),
        };
        let private = path.is_some_and(|path| match path.strip_prefix('~') {
            // `~` and `~/…` are a home hidden already; `~erin` is erin's.
            Some(rest) => rest.starts_with(char::is_alphanumeric),
            None => path != "/" && !SHOWN.iter().any(|shown| path.starts_with(shown)),
        });
        // A folder anyone makes under a shared one (`/mnt/alice-photos`, `/tmp/bob`) may name
        // its maker: the shared folder is shown, what is below it is not.
        let shared = path.and_then(|path| {
            SHARED.iter().find(|root| {
                // `/tmp/[folder]` is hidden already (a second pass leaves it so).
                let rest = path.get(root.len()..).unwrap_or_default();
                path.len() > root.len()
                    && path.starts_with(*root)
                    && !rest.starts_with("[folder")
                    && !(**root == "/dev/" && kernel_device(rest))
            })
        });
        let lower = folded.to_lowercase();
        let someone = names_someone(&folded, &lower)
            || (i > 0 && spelt(i - 1))
            || spelt(i + 1)
            || owner_at(&lowered, i);
        // After its tag, a serial of letters alone too (`PSN ZQzqfkbg`: the eleventh attack
        // pass), not a word that goes on saying one follows.
        let alphanumerics = word.chars().filter(|c| c.is_alphanumeric()).count();
        let serial = (serial_next
            && !number_word(&lower)
            && (word.contains(|c: char| c.is_ascii_digit()) || alphanumerics >= 6))
            || tagged_serial(&lower);
        // What says a serial follows (`serial number: …`, `SerialNo …`, `Seriennummer …`),
        // and the words that go on saying it (`number`, `No.`).
        let prior = i.checked_sub(1).map(|j| lowered[j].as_str());
        serial_next = serial_tag_after(&lower, prior) || (serial_next && number_word(&lower));
        // A path written without its first slash (`home/sybil/…`, `disk/by-id/…`: the
        // eighth): a folder of the system's that only a person's or a device's follows.
        let rootless = RELATIVE_ROOTS.iter().any(|root| {
            lower
                .trim_start_matches(|c: char| "(\"'=:[,".contains(c))
                .starts_with(root)
        });
        // A path a space broke (`/mnt/My Photos/alice`): what follows a hidden one and holds
        // a slash is its rest.
        let rest_of_path = hid && word.contains(slash);
        // And its words before that rest (`/mnt/x of Alice Smith/y`: the ninth), up to three,
        // none ending a sentence.
        if private || shared.is_some() || rootless || rest_of_path {
            // A word that goes on with a slash (`Smith/y`), not one that begins a path.
            let ahead = (i + 1..(i + 4).min(pieces.len())).find(|&j| {
                lowered[j].starts_with(char::is_alphanumeric) && lowered[j].contains(['/', '\\'])
            });
            let told = |j: &usize| lowered[*j].ends_with(['.', ',', ';', ':', '!', '?']);
            if let Some(j) = ahead.filter(|&j| !(i + 1..j).any(|k| told(&k))) {
                swallowed = j;
            }
        }
        hid = true;
        match (private || rest_of_path || rootless, shared, someone) {
            _ if serial => out.push_str("[serial]"),
            _ if tagged_label(&lower) || volume_id(&lower) => out.push_str("[label]"),
            (_, _, true) => out.push_str("[someone]"),
            (true, _, _) => out.push_str("[folder]"),
            (false, Some(root), _) => out.push_str(&format!("{before}{root}[folder]{after}")),
            (false, None, _) => {
                hid = false;
                out.push_str(word)
            }
        }
        out.push_str(space);
    }
    out
}

/// Each `prefix` followed by a name (`/home/alice`) becomes `~`.
fn hide_homes(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let name_char = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '-');
        let mut name = after.find(|c: char| !name_char(c)).unwrap_or(after.len());
        // A name of a few words (`/Users/Alice Smith/Desktop`: the seventh attack pass
        // published `~ Smith/Desktop`; `Jean-Luc de la Fontaine Smith`, the sixteenth) runs
        // to its folder's slash.
        if let Some(slash) = after.find('/') {
            let words = &after[..slash];
            let spaces = words.matches(' ').count();
            if name > 0
                && (1..=4).contains(&spaces)
                && !words.ends_with(' ')
                && words.chars().all(|c| name_char(c) || c == ' ')
            {
                name = slash;
            }
        }
        out.push_str(&rest[..at]);
        if name == 0 || after[..name].bytes().all(|b| b == b'.') {
            // `.` and `..` are no one's name: the path is left whole, for `hide_other_paths`.
            out.push_str(prefix);
        } else {
            out.push('~');
        }
        rest = &after[name..];
    }
    out.push_str(rest);
    out
}

/// The folder after `/media/` (or `/run/media/`) that holds another, a user's name as udisks
/// names it, becomes `USER`: `/media/alice/CARD` → `/media/USER/CARD`; `/media/CARD` stays.
fn hide_mount_owner(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("/media/") {
        let start = at + "/media/".len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest
            .find('/')
            .filter(|&end| end > 0 && rest.len() > end + 1);
        let named = end.is_some_and(|end| !rest[..end].contains(char::is_whitespace));
        if let (Some(end), true) = (end, named) {
            out.push_str("USER");
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// `home` where it is a whole path (followed by `/`, the end, or a character no name has
/// here) becomes `~`: `/home/alice/x` → `~/x`, and `/home/alicex` stays.
fn replace_home(text: &str, home: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(home) {
        let after = &rest[at + home.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-')));
        out.push_str(&rest[..at]);
        out.push_str(if whole { "~" } else { home });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
