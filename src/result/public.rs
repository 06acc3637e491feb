//! A result as it may leave the machine: what `iomark submit` sends.

use std::path::Path;

use super::ResultDoc;

impl ResultDoc {
    /// This document less what could point at a person: paths under their home folder become
    /// `~` (a test file's folder often names its owner). Serial numbers are already only a
    /// salted hash, and iomark records no hostname or user name.
    pub fn for_submission(&self, home: Option<&Path>) -> ResultDoc {
        let mut doc = self.clone();
        let hide = |path: &mut String| {
            if let Some(home) = home.filter(|h| h.as_os_str().len() > 1) {
                if Path::new(path.as_str()).starts_with(home) {
                    *path = "~".into();
                }
            }
        };
        hide(&mut doc.target.path);
        if let Some(device) = doc.target.device.as_mut() {
            if let Some(file) = device.backing_file.as_mut() {
                hide(file);
            }
        }
        doc
    }
}

#[cfg(test)]
mod tests {
    use crate::result::sample;
    use std::path::Path;

    #[test]
    fn paths_under_home_are_not_sent() {
        let mut doc = sample::doc();
        doc.target.path = "/home/alice/bench".into();
        let sent = doc.for_submission(Some(Path::new("/home/alice")));
        assert_eq!(sent.target.path, "~");
        let text = serde_json::to_string(&sent).unwrap();
        assert!(!text.contains("alice"), "{text}");
        // A path elsewhere, or a home that is a prefix of another name, stays.
        doc.target.path = "/home/alicex/bench".into();
        assert_eq!(
            doc.for_submission(Some(Path::new("/home/alice")))
                .target
                .path,
            "/home/alicex/bench"
        );
        doc.target.path = "/mnt/usb".into();
        assert_eq!(
            doc.for_submission(Some(Path::new("/"))).target.path,
            "/mnt/usb"
        );
    }
}
