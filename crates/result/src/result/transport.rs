//! The bus a device sits on, settled once by the probe from the disk's place in the device tree
//! and kept in the document (`target.device.transport`) as one of its words. Every room after
//! the probe matches on the enum, never on the word; a word this version does not know (a
//! newer iomark's, a document from elsewhere) reads as `other`.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Usb,
    /// An SD card or eMMC, on the SD/MMC host.
    Mmc,
    Nvme,
    Sata,
    Scsi,
    Virtio,
    Loop,
    #[serde(other)]
    Other,
}

impl Transport {
    pub const ALL: [Transport; 8] = [
        Transport::Usb,
        Transport::Mmc,
        Transport::Nvme,
        Transport::Sata,
        Transport::Scsi,
        Transport::Virtio,
        Transport::Loop,
        Transport::Other,
    ];

    /// The document's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Usb => "usb",
            Transport::Mmc => "mmc",
            Transport::Nvme => "nvme",
            Transport::Sata => "sata",
            Transport::Scsi => "scsi",
            Transport::Virtio => "virtio",
            Transport::Loop => "loop",
            Transport::Other => "other",
        }
    }

    /// The transport a word names; `other` for a word this version does not know.
    pub fn of(word: &str) -> Transport {
        Transport::ALL
            .into_iter()
            .find(|t| t.as_str() == word)
            .unwrap_or(Transport::Other)
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_word_reads_back_and_an_unknown_one_is_other() {
        for t in Transport::ALL {
            let word = serde_json::to_value(t).unwrap();
            assert_eq!(word, t.as_str());
            assert_eq!(serde_json::from_value::<Transport>(word).unwrap(), t);
            assert_eq!(Transport::of(t.as_str()), t);
        }
        let unknown: Transport = serde_json::from_value("pcie".into()).unwrap();
        assert_eq!(unknown, Transport::Other);
        assert_eq!(Transport::of("USB"), Transport::Other);
    }
}
