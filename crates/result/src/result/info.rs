//! What `iomark info --json` prints: the result document's `host` and `target`, and the
//! warnings found there. The app (`iomark ui`) reads it back as this same type.

use serde::{Deserialize, Serialize};

use super::{Host, Target, Warning};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Info {
    pub host: Host,
    pub target: Target,
    pub warnings: Vec<Warning>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_reads_back_as_written() {
        let mut doc = crate::result::sample::doc();
        doc.target.device = Some(crate::result::Device {
            name: Some("mmcblk0".into()),
            model: Some("SC64G".into()),
            transport: Some(crate::result::Transport::Mmc),
            size_bytes: Some(63_864_569_856),
            ..Default::default()
        });
        let info = Info {
            host: doc.host.clone(),
            target: doc.target.clone(),
            warnings: vec![crate::result::Warning::new(
                crate::result::WarningKind::DirectIoUnavailable,
                "this filesystem refuses direct I/O",
            )],
        };
        let text = serde_json::to_string_pretty(&info).unwrap();
        let back: Info = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text);
    }
}
