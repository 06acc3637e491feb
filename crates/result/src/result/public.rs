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
    // The words option values are made of; any other word may name someone (the sixth attack
    // pass published `uid=zorro`, `compress=hunter2`, `vers=quixhost`).
    #[rustfmt::skip]
    const WORDS: &[&str] = &[
        "ordered", "writeback", "journal", "continue", "remount-ro", "panic", "zlib", "lzo",
        "zstd", "no", "none", "strict", "loose", "fscache", "sys", "krb5", "krb5i", "krb5p",
        "ntlmssp", "ntlmv2", "ntlm", "tcp", "udp", "rdma", "tcp6", "udp6", "utf8", "utf-8",
        "iso8859-1", "iso8859-15", "cp437", "cp850", "ascii", "lower", "win95", "winnt", "mixed",
        "never", "always", "within_size", "advise", "deny", "force", "virtio", "fd", "unix",
        "xen", "v1", "v2", "on", "off", "9p2000", "9p2000.l", "9p2000.u", "adaptive", "lfs",
        "default", "mmap",
    ];
    // Each part of a value (`zstd:3`) a number (`3.1.1`, `0022`, `0x1f`) or such a word.
    let short_word = |v: &str| {
        let number = |p: &str| {
            let digits = p.strip_prefix("0x").unwrap_or(p);
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_hexdigit() || b == b'.')
                && p.bytes().next().is_some_and(|b| b.is_ascii_digit())
        };
        (1..=16).contains(&v.len())
            && v.split(':')
                .all(|p| number(p) || WORDS.contains(&p.to_ascii_lowercase().as_str()))
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
/// desktop's mounts below `/media/USER/` are named by their cards, and stay). Below a home
/// (`~/`) every folder is its owner's; below `/var/lib/` a service's, named as its user may be;
/// below `/dev/` only the kernel's names of devices are shown (`/dev/sda`, `/dev/mmcblk0p2`):
/// `/dev/disk/by-id/` holds serial numbers, `by-label/` and `/dev/mapper/` names people gave
/// (the seventh attack pass published all of these).
const SHARED: [&str; 7] = [
    "/tmp/",
    "/var/tmp/",
    "/mnt/",
    "/opt/",
    "~/",
    "/var/lib/",
    "/dev/",
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
    // Whether the word before was hidden.
    let mut hid = false;
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
                let rest = path.get(root.len()..).unwrap_or_default();
                path.len() > root.len()
                    && path.starts_with(*root)
                    && !rest.starts_with("[folder")
                    && !(**root == "/dev/" && kernel_device(rest))
            })
        });
        // Someone at a machine (`alice@bobpc:~$`), or an address: a name either side.
        let someone = folded.char_indices().any(|(at, c)| {
            c == '@'
                && folded[..at].ends_with(char::is_alphanumeric)
                && folded[at + 1..].starts_with(char::is_alphanumeric)
        });
        // A path a space broke (`/mnt/My Photos/alice`): what follows a hidden one and holds
        // a slash is its rest.
        let rest_of_path = hid && word.contains(slash);
        hid = true;
        match (private || rest_of_path, shared, someone) {
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
        // published `~ Smith/Desktop`) runs to its folder's slash.
        if let Some(slash) = after.find('/') {
            let words = &after[..slash];
            let spaces = words.matches(' ').count();
            if name > 0
                && (1..=2).contains(&spaces)
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
