//! Reading sysfs-style files: one value per file, missing or unreadable means `None`.

use std::path::{Path, PathBuf};

/// The file's text, trimmed of whitespace and NULs (device-tree strings end in one); `None`
/// when it is missing, unreadable or empty.
pub fn read(path: &Path) -> Option<String> {
    trim(&std::fs::read_to_string(path).ok()?)
}

/// A value's text as [`read`] gives it: trimmed, `None` when nothing is left.
pub fn trim(text: &str) -> Option<String> {
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!text.is_empty()).then(|| text.to_string())
}

pub fn read_u64(path: &Path) -> Option<u64> {
    parse_u64(&read(path)?)
}

/// A number as sysfs writes one: decimal, or hex after `0x`.
pub fn parse_u64(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// The last component of where a symlink points (a driver's name, say).
pub fn link_name(path: &Path) -> Option<String> {
    let target = std::fs::read_link(path).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// Resolves symlinks within a fixture or the real root alike (the links are relative).
pub fn resolve(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The bracketed choice of a sysfs list such as `none [mq-deadline] kyber`.
pub fn selected(text: &str) -> Option<String> {
    let start = text.find('[')?;
    let end = text[start..].find(']')? + start;
    Some(text[start + 1..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("v");
        std::fs::write(&file, "0x1f\n").unwrap();
        assert_eq!(read_u64(&file), Some(31));
        std::fs::write(&file, " 512 \n").unwrap();
        assert_eq!(read_u64(&file), Some(512));
        std::fs::write(&file, "\n").unwrap();
        assert_eq!(read(&file), None);
        assert_eq!(read(&dir.path().join("missing")), None);
        assert_eq!(
            selected("none [mq-deadline] kyber").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(selected("none"), None);
    }
}
