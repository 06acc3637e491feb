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
        // Through text, as every other reader of the document reads it (one reader, not two).
        serde_json::to_string(&value)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| self.clone())
    }
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
    match text.contains("/root") {
        true => replace_home(&text, "/root"),
        false => text,
    }
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
        if name == 0 {
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
    use crate::result::sample;
    use std::path::Path;

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
            "loops of /run/media/USER/USB/.iomark-1.tmp varied; /media/CARD and /media/ too"
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
        assert_eq!(sent.target.path, "/srv/alicex/bench");
        doc.target.path = "/srv/alice/bench".into();
        let sent = doc.for_submission(Some(Path::new("/srv/alice")));
        assert_eq!(sent.target.path, "~/bench");
        doc.target.path = "/mnt/usb".into();
        assert_eq!(
            doc.for_submission(Some(Path::new("/"))).target.path,
            "/mnt/usb"
        );
    }
}
