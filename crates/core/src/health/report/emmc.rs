//! An eMMC's own estimates, from its extended CSD as the kernel shows them in sysfs
//! (Documentation/ABI/testing/sysfs-bus-mmc… `life_time`, `pre_eol_info`; JEDEC JESD84-B51):
//! - `life_time`: two bands, for its two kinds of cells (type A, type B), `0x01` meaning 0-10%
//!   of the rated life used, … `0x0a` 90-100%, `0x0b` past it; `0x00` not defined;
//! - `pre_eol_info`: its reserved blocks, `0x01` normal, `0x02` warning (80% used), `0x03`
//!   urgent (90%).

use iomark_result::result::health::DeviceReport;

/// The report those two files' text make (`"0x01 0x02\n"`, `"0x01\n"`): none where neither
/// says anything defined.
pub fn decode(life_time: Option<&str>, pre_eol: Option<&str>) -> Option<DeviceReport> {
    let byte = |word: &str| {
        let digits = word.trim().strip_prefix("0x").unwrap_or(word.trim());
        u8::from_str_radix(digits, 16).ok()
    };
    let bands: Vec<u8> = life_time
        .map(|t| t.split_whitespace().filter_map(byte).collect())
        .unwrap_or_default();
    let worst = bands
        .iter()
        .copied()
        .filter(|b| (1..=0x0b).contains(b))
        .max();
    let pre = pre_eol.and_then(byte).filter(|p| (1..=3).contains(p));
    if worst.is_none() && pre.is_none() {
        return None;
    }
    let says = match (worst, pre) {
        (Some(0x0b), _) | (_, Some(3)) => "failing",
        (Some(0x0a), _) | (_, Some(2)) => "warning",
        _ => "ok",
    };
    Some(DeviceReport {
        source: "emmc".into(),
        says: says.into(),
        // The band's upper bound: 0x01 is "up to 10%"; past its rating is more than 100%.
        life_used_percent: worst.map(|b| u64::from(b.min(0x0a)) * 10 + u64::from(b == 0x0b)),
        pre_eol: pre.map(|p| ["normal", "warning", "urgent"][usize::from(p) - 1].into()),
        raw_hex: None,
        ..DeviceReport::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_and_reserves_read_as_the_standard_says() {
        let new = decode(Some("0x01 0x01\n"), Some("0x01\n")).unwrap();
        assert_eq!((new.says.as_str(), new.life_used_percent), ("ok", Some(10)));
        assert_eq!(new.pre_eol.as_deref(), Some("normal"));
        // The worse of the two kinds of cells.
        let worn = decode(Some("0x02 0x0a"), Some("0x01")).unwrap();
        assert_eq!(
            (worn.says.as_str(), worn.life_used_percent),
            ("warning", Some(100))
        );
        let past = decode(Some("0x0b 0x03"), None).unwrap();
        assert_eq!(
            (past.says.as_str(), past.life_used_percent),
            ("failing", Some(101))
        );
        let urgent = decode(Some("0x03 0x03"), Some("0x03")).unwrap();
        assert_eq!(urgent.says, "failing");
        assert_eq!(urgent.pre_eol.as_deref(), Some("urgent"));
        // Undefined, missing or garbled: no report.
        assert!(decode(Some("0x00 0x00"), Some("0x00")).is_none());
        assert!(decode(None, None).is_none());
        assert!(decode(Some("zz \u{1b}[2J"), Some("0x9")).is_none());
    }
}
