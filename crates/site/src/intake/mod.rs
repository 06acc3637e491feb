//! The one intake (issue 59): every document a stranger sends is made canonical here, once,
//! and nothing after reads what was sent. In order: read and checked as `import` reads a
//! document (`ResultDoc::from_json`); refused where a public site takes no such result
//! ([`rules`]); every field this version does not know dropped; the test's folder cleared, its
//! times written one way (UTC, `Z`), and every text Unicode-normalised (NFC) with the folders
//! that name a person hidden ([`texts`]);
//! every number inside the range its unit allows ([`units`]); the figures held to physics
//! ([`physics`]); long timelines merged to at most 64 kB. The store keeps what comes out, so
//! every page, answer and dump is drawn from it.
//!
//! Kept as a site would not: pages are drawn from what the intake made (their charts are
//! bounded besides, `iomark_export::chart`), the fuzz target `document` drives this same
//! intake.

pub mod physics;
pub mod rules;
pub mod texts;
pub mod units;

use iomark_result::result::ResultDoc;

/// Why a document was refused: a short word for the metrics (`iomark_submissions_refused_total`)
/// and a line for the sender.
#[derive(Debug, PartialEq)]
pub struct Refused {
    pub reason: &'static str,
    pub message: String,
}

impl Refused {
    fn new(reason: &'static str, message: impl Into<String>) -> Refused {
        Refused {
            reason,
            message: message.into(),
        }
    }
}

/// The result in `text` (`POST /api/v1/results`), as this site keeps it; or why it is refused.
pub fn admit(text: &str) -> Result<ResultDoc, Refused> {
    let doc = ResultDoc::from_json(text).map_err(|e| Refused::new(e.reason(), e.to_string()))?;
    // Before the unknown fields go: a synthetic mark is one of them.
    rules::check_public(&doc).map_err(|e| Refused::new("implausible", e))?;
    let mut doc = canonical(doc)?;
    doc.thin_for_site()
        .map_err(|e| Refused::new("too_large", e))?;
    Ok(doc)
}

/// A card's health check in `text` (`POST /api/v1/card-health`, `watched.rs`), as this site
/// reads it; or why it is refused.
pub fn admit_check(text: &str) -> Result<ResultDoc, Refused> {
    let doc = ResultDoc::from_json(text).map_err(|e| Refused::new(e.reason(), e.to_string()))?;
    canonical(doc)
}

/// What every document becomes here, whichever door it came in by.
fn canonical(doc: ResultDoc) -> Result<ResultDoc, Refused> {
    // What `iomark submit` sends, whoever sent this: no folder, name or serial of a person in
    // any text, mount options that say how the filesystem behaves, the kernel's release less
    // its builder's name, a disk and a filesystem in the kernel's words (one function for
    // both sides, `ResultDoc::for_submission`).
    let mut doc = doc.for_submission(None);
    doc.drop_unknown();
    // Where it ran is the submitter's own business, and whose share it was.
    doc.target.path.clear();
    // The layers under the filesystem as a run writes them (`dm-0 (LVM)`, `sda2 (partition)`):
    // kernel names and kinds. Any other text (`/dev/mapper/zorro--laptop--vg-home`, the sixth
    // attack pass) may name a host or a person, and is no layer iomark found.
    if let Some(device) = doc.target.device.as_mut() {
        device.stack.retain(|layer| is_layer(layer));
    }
    // One instant is written one way (`…+00:00`, `….000Z` and `…z` are `…Z`).
    for time in [&mut doc.started_at, &mut doc.finished_at] {
        if let Ok(at) = iomark_result::result::time::rfc3339("time", time) {
            *time = humantime::format_rfc3339_seconds(at).to_string();
        }
    }
    let mut value = serde_json::to_value(&doc)
        .map_err(|e| Refused::new("invalid", format!("the document cannot be kept: {e}")))?;
    texts::canonical(&mut value);
    units::within(&value).map_err(|e| Refused::new("out_of_range", e))?;
    // Read back through text, as the store and every reader read a document.
    let doc = ResultDoc::from_json(&value.to_string())
        .map_err(|e| Refused::new(e.reason(), e.to_string()))?;
    physics::check(&doc).map_err(|e| Refused::new("implausible", e))?;
    Ok(doc)
}

/// Whether `layer` is one `probe::block` writes: a kernel name (`dm-0`, `sda2`, `md127`,
/// `nvme0n1p2`, as the kernel names disks: `public_device_name`) and, in brackets, what it is.
fn is_layer(layer: &str) -> bool {
    #[rustfmt::skip]
    const KINDS: [&str; 13] = [
        "partition", "LUKS", "dm-crypt", "LVM", "device-mapper", "raid0", "raid1", "raid4",
        "raid5", "raid6", "raid10", "linear", "multipath",
    ];
    let Some((name, kind)) = layer.strip_suffix(')').and_then(|l| l.split_once(" (")) else {
        return false;
    };
    let kernel = iomark_result::result::public_device_name(name) == name;
    kernel && (KINDS.contains(&kind) || kind == "md")
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;

    /// The sixth attack pass: a stack entry naming a host's volume group was published.
    #[test]
    fn only_layers_a_run_writes_are_kept() {
        for layer in [
            "dm-0 (LVM)",
            "sda2 (partition)",
            "md127 (raid1)",
            "nvme0n1p2 (partition)",
        ] {
            assert!(is_layer(layer), "{layer}");
        }
        for layer in [
            "dm-1 /dev/mapper/zorro--laptop--vg-home",
            "zorro-vg (LVM)",
            "dm-0 (zorro)",
        ] {
            assert!(!is_layer(layer), "{layer}");
        }
    }

    fn sent(doc: &serde_json::Value) -> Result<ResultDoc, Refused> {
        admit(&doc.to_string())
    }

    /// What comes out is what the intake makes of it again: canonical once is canonical.
    #[test]
    fn what_is_admitted_is_admitted_unchanged() {
        let mut value = serde_json::to_value(sample::doc()).unwrap();
        value["label"] = "Cafe\u{0301} /home/alice/x".into();
        value["target"]["path"] = "/media/alice/CARD".into();
        value["newer"] = serde_json::json!({"a": 1});
        let kept = sent(&value).unwrap();
        let text = serde_json::to_string(&kept).unwrap();
        assert!(!text.contains("alice") && !text.contains("newer"), "{text}");
        assert_eq!(kept.label.as_deref(), Some("Caf\u{e9} ~/[folder]"));
        assert_eq!(serde_json::to_string(&admit(&text).unwrap()).unwrap(), text);
    }

    /// The tenth attack pass: a disk's name and a filesystem's type in someone's words were
    /// published; the intake keeps what `iomark submit` sends (`for_submission`).
    #[test]
    fn a_disk_and_a_filesystem_are_kept_in_the_kernel_s_words() {
        let mut value = serde_json::to_value(sample::ssd_doc()).unwrap();
        value["target"]["device"]["name"] = "zorroqx-disk".into();
        value["target"]["filesystem"] = "fuse.zorroqx-sshfs".into();
        value["label"] = "SerialNo ZQX88AB1234 on zorroqx-disk".into();
        let kept = sent(&value).unwrap();
        let text = serde_json::to_string(&kept).unwrap();
        assert!(
            !text.contains("zorroqx") && !text.contains("ZQX88"),
            "{text}"
        );
        assert_eq!(kept.target.filesystem.as_deref(), Some("fuse"));
        assert_eq!(serde_json::to_string(&admit(&text).unwrap()).unwrap(), text);
    }

    /// A serial sent where its hash belongs was kept (and shown by the API and the dump); an
    /// id of 17 figures in a row stays the id it is, while a label's ids of disks are hidden.
    #[test]
    fn a_serial_is_kept_only_as_a_hash_and_an_id_as_it_came() {
        let mut value = serde_json::to_value(sample::ssd_doc()).unwrap();
        value["id"] = "01JTEST0000000000000000013".into();
        value["target"]["device"]["serial_hash"] = "S4EWNX0R123456".into();
        value["label"] = "pool 12345678901234567 on ntfs 01D9A2B3C4E5F607".into();
        let kept = sent(&value).unwrap();
        let text = serde_json::to_string(&kept).unwrap();
        assert!(
            !text.contains("S4EWNX0R") && !text.contains("1234567890123"),
            "{text}"
        );
        assert_eq!(kept.id, "01JTEST0000000000000000013");
        let hash = kept.target.device.as_ref().unwrap().serial_hash.clone();
        assert_eq!(
            hash,
            Some(iomark_result::result::serial_hash("S4EWNX0R123456"))
        );
        assert_eq!(kept.label.as_deref(), Some("pool [label] on ntfs [label]"));
        assert_eq!(serde_json::to_string(&admit(&text).unwrap()).unwrap(), text);
    }
}
