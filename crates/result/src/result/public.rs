//! A result as it may leave the machine: what `iomark submit` sends.

use std::path::Path;

use super::ResultDoc;

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
        hide(&mut value, home);
        if let Some(options) = value.pointer_mut("/target/mount_options") {
            if let Some(text) = options.as_str() {
                *options = public_mount_options(text).into();
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

fn hide(value: &mut serde_json::Value, home: &str) {
    match value {
        serde_json::Value::String(text) => {
            if !home.is_empty() && text.contains(home) {
                *text = replace_home(text, home);
            }
            *text = hide_private_paths(text);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| hide(v, home)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| hide(v, home)),
        _ => {}
    }
}

/// Mount options as they may be shown: only those that say how the filesystem behaves, each
/// value a short word or number. A share's options name its user, domain and server
/// (`username=alice,domain=CORP,addr=192.168.1.10` on CIFS: the fourth attack pass found them
/// on a result's page), a subvolume its folder, a security context its labels; no option not
/// known here is kept, whatever a filesystem invents next.
pub fn public_mount_options(options: &str) -> String {
    #[rustfmt::skip]
    const KEPT: &[&str] = &[
        "rw", "ro", "sync", "async", "dirsync", "atime", "noatime", "relatime", "strictatime",
        "lazytime", "nodiratime", "diratime", "dev", "nodev", "suid", "nosuid", "exec", "noexec",
        "discard", "nodiscard", "barrier", "nobarrier", "data", "commit", "errors",
        "journal_checksum", "journal_async_commit", "delalloc", "nodelalloc", "inline_data",
        "dax", "compress", "compress-force", "ssd", "nossd", "ssd_spread", "space_cache",
        "autodefrag", "noautodefrag", "datacow", "nodatacow", "datasum", "nodatasum",
        "flushoncommit", "inode64", "logbufs", "logbsize", "allocsize", "largeio", "swalloc",
        "noquota", "flush", "noflush", "iocharset", "codepage", "shortname", "utf8", "fmask",
        "dmask", "umask", "uid", "gid", "mode", "size", "nr_inodes", "huge", "cache", "vers",
        "nfsvers", "proto", "rsize", "wsize", "hard", "soft", "timeo", "retrans", "sec",
        "actimeo", "fsc", "background_gc", "active_logs", "stripe", "sunit", "swidth", "noload",
        "user_xattr", "nouser_xattr", "acl", "noacl", "trans", "msize", "version",
    ];
    let short_word = |v: &str| {
        (1..=16).contains(&v.len())
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'))
    };
    options
        .split(',')
        .filter(|option| match option.split_once('=') {
            Some((key, value)) => KEPT.contains(&key) && short_word(value),
            None => KEPT.contains(option),
        })
        .collect::<Vec<_>>()
        .join(",")
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
    hide_other_paths(&text)
}

/// The folders a path may begin with and be shown: the system's own, and what is hidden
/// already. Any other path is someone's (issue 59's attack pass published `/media/alice`,
/// `/home//bob`, `/HOME/u`, `C:\Users\u`, `~erin`, `/run/user/1000/gvfs/…user=carol`).
const SHOWN: [&str; 16] = [
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
];

/// The folders of [`SHOWN`] anyone makes folders in: shown, and nothing below them (a desktop's
/// mounts below `/media/USER/` are named by their cards, and stay).
const SHARED: [&str; 4] = ["/tmp/", "/var/tmp/", "/mnt/", "/opt/"];

/// `text` with the slashes and tildes written percent-encoded (`%2F`, `%5C`, `%7E`) as they are,
/// however often encoded (`%252F` is `%2F` encoded again: the fourth attack pass published
/// `%252Fhome%252Falice`): each code is taken back as soon as it is whole, the percent sign's
/// own (`%25`) too, so that one pass does what passes until nothing changes would, in time
/// linear in the text (a hostile text of a million `%25`s is no slower than any other).
fn unescaped(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        out.push(c);
        while let Some(decoded) = whole_code(&out) {
            out.truncate(out.len() - 3);
            out.push(decoded);
        }
    }
    out
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
    for piece in text.split_inclusive(char::is_whitespace) {
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
                path.len() > root.len()
                    && path.starts_with(*root)
                    && !path[root.len()..].starts_with("[folder")
            })
        });
        match (private, shared) {
            (true, _) => out.push_str("[folder]"),
            (false, Some(root)) => out.push_str(&format!("{before}{root}[folder]{after}")),
            (false, None) => out.push_str(word),
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
        let name = after
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-')))
            .unwrap_or(after.len());
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
mod tests {
    use super::{hide_private_paths, public_mount_options, unescaped};
    use crate::result::sample;
    use std::path::Path;

    #[test]
    fn a_share_s_options_keep_how_it_behaves_and_not_whose_it_is() {
        assert_eq!(
            public_mount_options(
                "rw,relatime,vers=3.1.1,cache=strict,username=alice,domain=CORP,uid=1000,\
                 addr=192.168.1.10,file_mode=0755,subvol=/home/alice,context=\"x\",rsize=4194304"
            ),
            "rw,relatime,vers=3.1.1,cache=strict,uid=1000,rsize=4194304"
        );
        assert_eq!(
            public_mount_options("compress=zstd:3,ssd"),
            "compress=zstd:3,ssd"
        );
        // A kept key with a value no option has.
        assert_eq!(public_mount_options("errors=/home/bob,ro"), "ro");
        let mut doc = sample::doc();
        doc.target.mount_options = Some("rw,user=carol,noatime".into());
        let sent = doc.for_submission(None);
        assert_eq!(sent.target.mount_options.as_deref(), Some("rw,noatime"));
    }

    #[test]
    fn a_path_encoded_twice_or_more_is_hidden_as_one_encoded_once() {
        for text in [
            "x %252Fhome%252Falice y",
            "x %25252fhome%25252Falice y",
            "x %2Fhome%2Falice y",
        ] {
            let shown = hide_private_paths(text);
            assert!(!shown.contains("alice"), "{text}: {shown}");
        }
        assert_eq!(unescaped("100%25 of %2"), "100% of %2");
        // Each code undoing the last, many deep: taken back whole in one pass.
        let deep = format!("/x%{}2fhome", "25".repeat(10_000));
        assert_eq!(unescaped(&deep), "/x/home");
    }

    /// Issue 59's attack pass: paths that name a person in every spelling it tried.
    #[test]
    fn no_spelling_of_a_persons_folder_is_sent() {
        for (text, shown) in [
            ("on /media/alice", "on [folder]"),
            ("on /media/alice.", "on [folder]"),
            ("/home//bob/x and /home/./u", "[folder] and [folder]"),
            ("/HOME/u", "[folder]"),
            ("C:\\Users\\u", "[folder]"),
            ("\\home\\u", "[folder]"),
            ("\u{ff0f}home\u{ff0f}dave", "[folder]"),
            ("/\u{210d}ome/u", "[folder]"),
            ("~erin", "[folder]"),
            (
                "/run/user/1000/gvfs/smb-share:server=nas,user=carol",
                "[folder]",
            ),
            ("(/home/\u{b4}u)", "[folder]"),
            ("file:///home/u/x", "[folder]"),
        ] {
            let hidden = super::hide_private_paths(text);
            assert_eq!(hidden, shown, "{text}");
        }
        // What is no one's stays: units, the system's folders, what was hidden already.
        for text in [
            "2000 MB/s and 4 I/O a read/write",
            "/dev/sda on /mnt/, /sys/block/sda/queue and /tmp",
            "~/bench and /media/USER/CARD",
            "a ratio of 1/3",
            "<script>alert(1)</script> \"><img src=x onerror=alert(2)>",
        ] {
            assert_eq!(super::hide_private_paths(text), text);
        }
        // Issue 59's third attack pass: a folder made under a shared one names its maker; a
        // path written percent-encoded is a path.
        for (text, shown) in [
            (
                "/dev/sda on /mnt/alice14-photos, and (/tmp/alice12-private)",
                "/dev/sda on /mnt/[folder], and (/tmp/[folder])",
            ),
            ("label %2Fhome%2Falice07%2Fx", "label [folder]"),
            ("from %2fopt%2Fbob", "from /opt/[folder]"),
            // Found by the fuzz target document: hidden once is hidden.
            ("/tmp/x]", "/tmp/[folder]]"),
        ] {
            assert_eq!(super::hide_private_paths(text), shown, "{text}");
            assert_eq!(super::hide_private_paths(shown), shown, "{shown}");
        }
    }

    /// Issue 59: a card mounted by the desktop carries its user's name in its path.
    #[test]
    fn the_owner_of_a_desktop_s_mounts_is_not_sent() {
        let mut doc = sample::doc();
        doc.target.path = "/media/alice/SD CARD".into();
        doc.warnings.push(crate::result::Warning::new(
            crate::result::WarningKind::HighVariation,
            "loops of /run/media/bob/USB/.iomark-1.tmp varied; /media/CARD and /media/ too",
        ));
        let sent = doc.for_submission(None);
        assert_eq!(sent.target.path, "/media/USER/SD CARD");
        assert_eq!(
            sent.warnings.last().unwrap().message,
            // A folder right under /media may be a user's own (`/media/alice`): hidden too.
            "loops of /run/media/USER/USB/.iomark-1.tmp varied; [folder] and [folder] too"
        );
    }

    #[test]
    fn paths_under_home_are_not_sent() {
        let mut doc = sample::doc();
        doc.target.path = "/home/alice/bench".into();
        doc.warnings.push(crate::result::Warning::new(
            crate::result::WarningKind::HighVariation,
            "loops of /home/alice/bench/.iomark-1.tmp varied",
        ));
        let sent = doc.for_submission(Some(Path::new("/home/alice")));
        assert_eq!(sent.target.path, "~/bench");
        assert_eq!(
            sent.warnings.last().unwrap().message,
            "loops of ~/bench/.iomark-1.tmp varied"
        );
        let text = serde_json::to_string(&sent).unwrap();
        assert!(!text.contains("alice"), "{text}");
        // Anyone's home folder names them; a path elsewhere, or a home that is a prefix of
        // another name, stays.
        doc.target.path = "/home/alicex/bench".into();
        let sent = doc.for_submission(Some(Path::new("/home/alice")));
        assert_eq!(sent.target.path, "~/bench");
        doc.target.path = "/srv/alicex/bench".into();
        let sent = doc.for_submission(Some(Path::new("/srv/alice")));
        assert_eq!(
            sent.target.path, "[folder]",
            "another's folder, not the home"
        );
        doc.target.path = "/srv/alice/bench".into();
        let sent = doc.for_submission(Some(Path::new("/srv/alice")));
        assert_eq!(sent.target.path, "~/bench");
        doc.target.path = "/mnt/usb".into();
        assert_eq!(
            doc.for_submission(Some(Path::new("/"))).target.path,
            "/mnt/[folder]"
        );
    }
}
