//! Raspberry Pi's own "SD Card Speed Test" (Raspberry Pi Diagnostics, agnostics): a card passes
//! at 10 MB/s sequential write, 500 IOPS random 4 KiB write and 1,500 IOPS random 4 KiB read
//! (the A1 class's figures). Pi owners know its pass or fail; this says the same of a run, from
//! the run's own figures, and says which it used: agnostics measures with fio at queue depth 4,
//! this from SEQ1M Q1T1 write and RND4K Q1T1 (queue depth 1, lower or equal), so a card that
//! passes here passes there; one that fails here by a little may pass there.

use super::ResultDoc;

/// Each target: what it is, the test it is read from, whether IOPS (else MB/s), the least.
pub const TARGETS: [(&str, &str, bool, f64); 3] = [
    ("sequential write", "SEQ1M_Q1T1_write", false, 10.0),
    ("random write", "RND4K_Q1T1_write", true, 500.0),
    ("random read", "RND4K_Q1T1_read", true, 1500.0),
];

/// Whether the run meets Raspberry Pi's SD Card Speed Test targets, in a sentence; none where
/// the device is no SD card or eMMC, or the run lacks a figure it needs.
pub fn verdict(doc: &ResultDoc) -> Option<(bool, String)> {
    if !matches!(doc.identity().kind, "microSD" | "SD" | "eMMC") {
        return None;
    }
    let mut missed = Vec::new();
    let mut read = Vec::new();
    for (what, test, iops, least) in TARGETS {
        let t = doc.test(test)?;
        let (value, unit) = if iops {
            (t.iops, "IOPS")
        } else {
            (t.mb_per_s, "MB/s")
        };
        read.push(format!("{what} {value:.0} {unit}"));
        if value < least {
            missed.push(format!("{what} under {least:.0} {unit}"));
        }
    }
    let pass = missed.is_empty();
    let sentence = match pass {
        true => format!(
            "Raspberry Pi's SD Card Speed Test: pass ({}; it asks 10 MB/s, 500 and 1,500 IOPS).",
            read.join(", ")
        ),
        false => format!(
            "Raspberry Pi's SD Card Speed Test: fail ({}), measured at queue depth 1, where it \
             measures at 4.",
            missed.join(", ")
        ),
    };
    Some((pass, sentence))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_passes_or_fails_as_the_pis_own_test_says_and_only_a_card() {
        let mut doc = crate::result::sample::doc();
        doc.target.device = Some(crate::result::Device {
            model: Some("SN64G".into()),
            transport: Some(crate::result::Transport::Mmc),
            size_bytes: Some(63_864_569_856),
            sd: Some(Default::default()),
            ..Default::default()
        });
        assert_eq!(doc.identity().kind, "microSD");
        for t in doc.tests.iter_mut() {
            (t.mb_per_s, t.iops) = (20.0, 2000.0);
        }
        let (pass, said) = verdict(&doc).unwrap();
        assert!(pass, "{said}");
        assert!(
            said.starts_with("Raspberry Pi's SD Card Speed Test: pass"),
            "{said}"
        );
        let slow = doc
            .tests
            .iter_mut()
            .find(|t| t.name == "RND4K_Q1T1_read")
            .unwrap();
        slow.iops = 1499.0;
        let (pass, said) = verdict(&doc).unwrap();
        assert!(!pass);
        assert!(said.contains("random read under 1500 IOPS"), "{said}");
        doc.target.device = None;
        assert_eq!(verdict(&doc), None);
    }
}
