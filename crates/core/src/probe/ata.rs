//! The drive's own answers, where something stands between it and the kernel's names: a USB
//! bridge reports its own vendor and model (`ASMT` `ASM1153E`) or cuts the drive's model to 16
//! characters, and libata cuts a SATA drive's the same way (`ATA` `Samsung SSD 860`).
//!
//! The kernel keeps two SCSI Vital Product Data pages of the disk in sysfs, readable by anyone,
//! when the device (or the bridge, translating for it) lists them:
//! - `vpd_pg89`, ATA Information (SAT, T10): the drive's whole ATA IDENTIFY DEVICE answer from
//!   byte 60, with its 40-character model (words 27-46) and its nominal media rotation rate
//!   (word 217: 1 for solid state, else revolutions per minute);
//! - `vpd_pgb1`, Block Device Characteristics (SBC): the same rotation rate in bytes 4-5.
//!
//! A disk that lists neither (most USB sticks; bridges on `usb-storage`, whose VPD pages the
//! kernel does not ask for) gives `None`: its `rotational` flag is then only the kernel's
//! default, which is 1.

use std::path::Path;

/// Byte offset of the IDENTIFY DEVICE data in VPD page 0x89.
const IDENTIFY_AT: usize = 60;

/// What the drive says of itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answers {
    /// The drive's model as ATA IDENTIFY gives it (`Samsung SSD 860 EVO 500GB`).
    pub model: Option<String>,
    /// 0 for solid state, else revolutions per minute.
    pub rotation_rpm: Option<u32>,
}

/// The answers the disk's VPD pages under `device_dir` (`…/block/sda/device`) hold.
pub fn probe(device_dir: &Path) -> Answers {
    decode(
        std::fs::read(device_dir.join("vpd_pg89")).ok().as_deref(),
        std::fs::read(device_dir.join("vpd_pgb1")).ok().as_deref(),
    )
}

/// The answers VPD pages 0x89 and 0xB1 hold (`None` where the disk has no such page): what
/// [`probe`] makes of a real disk's pages, of any bytes alike.
pub fn decode(page_89: Option<&[u8]>, page_b1: Option<&[u8]>) -> Answers {
    let from_identify = page_89
        .and_then(identify_of)
        .map(parse_identify)
        .unwrap_or_default();
    let characteristics = page_b1.and_then(rotation_of_characteristics);
    Answers {
        model: from_identify.model,
        rotation_rpm: characteristics.or(from_identify.rotation_rpm),
    }
}

/// The IDENTIFY DEVICE data inside a VPD page 0x89, if the page is one and holds it whole.
fn identify_of(page: &[u8]) -> Option<&[u8]> {
    if page.len() < IDENTIFY_AT + 512 || page[1] != 0x89 {
        return None;
    }
    Some(&page[IDENTIFY_AT..IDENTIFY_AT + 512])
}

/// The model and rotation rate from 512 bytes of IDENTIFY DEVICE data (ATA/ATAPI-8): words
/// are little-endian, and each word of a string holds its first character in its high byte.
pub fn parse_identify(data: &[u8]) -> Answers {
    if data.len() < 512 {
        return Answers::default();
    }
    let word = |n: usize| u16::from_le_bytes([data[2 * n], data[2 * n + 1]]);
    let text: Vec<u8> = (27..47)
        .flat_map(|n| {
            let w = word(n);
            [(w >> 8) as u8, (w & 0xff) as u8]
        })
        .collect();
    let model = std::str::from_utf8(&text)
        .ok()
        .map(|s| s.trim_matches(|c: char| c.is_whitespace() || c == '\0'))
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_graphic() || c == ' '))
        .map(str::to_string);
    Answers {
        model,
        rotation_rpm: rotation(word(217)),
    }
}

/// Word 217 of IDENTIFY, or bytes 4-5 of VPD page 0xB1: 0 is "not reported", 1 "non-rotating
/// medium", 0x0401-0xFFFE revolutions per minute; the rest is reserved.
fn rotation(rate: u16) -> Option<u32> {
    match rate {
        1 => Some(0),
        0x0401..=0xfffe => Some(u32::from(rate)),
        _ => None,
    }
}

fn rotation_of_characteristics(page: &[u8]) -> Option<u32> {
    if page.len() < 6 || page[1] != 0xb1 {
        return None;
    }
    rotation(u16::from_be_bytes([page[4], page[5]]))
}

/// A VPD page 0x89 holding an IDENTIFY answer with `model` and `rate`, as the kernel shows it.
#[cfg(test)]
fn page_89(model: &str, rate: u16) -> Vec<u8> {
    let mut page = vec![0u8; IDENTIFY_AT + 512];
    page[1] = 0x89;
    let length = (page.len() - 4) as u16;
    page[2..4].copy_from_slice(&length.to_be_bytes());
    page[8..16].copy_from_slice(b"linux   ");
    page[16..32].copy_from_slice(b"libata          ");
    page[56] = 0xec;
    let mut text = model.as_bytes().to_vec();
    text.resize(40, b' ');
    let identify = &mut page[IDENTIFY_AT..];
    for (n, pair) in text.chunks(2).enumerate() {
        let w = (u16::from(pair[0]) << 8) | u16::from(pair[1]);
        identify[2 * (27 + n)..2 * (27 + n) + 2].copy_from_slice(&w.to_le_bytes());
    }
    identify[2 * 217..2 * 217 + 2].copy_from_slice(&rate.to_le_bytes());
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drive_behind_the_bridge_says_its_name_and_that_it_does_not_spin() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("vpd_pg89"),
            page_89("Samsung SSD 860 EVO 500GB", 1),
        )
        .unwrap();
        // ATA8-ACS: a string's first character is in bits 15:8 of its word, and the words are
        // little-endian, so "Sa" in word 27 is stored as 'a', 'S' (page byte 60 + 54).
        let page = page_89("Samsung SSD 860 EVO 500GB", 1);
        assert_eq!(&page[IDENTIFY_AT + 54..IDENTIFY_AT + 58], b"aSsm");
        let answers = probe(dir.path());
        assert_eq!(answers.model.as_deref(), Some("Samsung SSD 860 EVO 500GB"));
        assert_eq!(answers.rotation_rpm, Some(0));
        // A hard disk at 5400 rpm; page 0xB1 wins where both are present.
        std::fs::write(
            dir.path().join("vpd_pg89"),
            page_89("WDC WD10JPVX-22JC3T0", 5400),
        )
        .unwrap();
        assert_eq!(probe(dir.path()).rotation_rpm, Some(5400));
        std::fs::write(dir.path().join("vpd_pgb1"), [0, 0xb1, 0, 0x3c, 0x1c, 0x20]).unwrap();
        assert_eq!(probe(dir.path()).rotation_rpm, Some(7200));
    }

    #[test]
    fn what_is_not_an_answer_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(probe(dir.path()), Answers::default());
        // A short page, another page's code, "not reported", reserved rates, an empty model.
        std::fs::write(dir.path().join("vpd_pg89"), [0u8, 0x89, 0, 4, 0, 0, 0, 0]).unwrap();
        assert_eq!(probe(dir.path()), Answers::default());
        let mut other = page_89("X", 1);
        other[1] = 0x83;
        std::fs::write(dir.path().join("vpd_pg89"), other).unwrap();
        assert_eq!(probe(dir.path()), Answers::default());
        for rate in [0u16, 2, 0x0400, 0xffff] {
            std::fs::write(dir.path().join("vpd_pg89"), page_89("", rate)).unwrap();
            assert_eq!(probe(dir.path()), Answers::default(), "{rate:#x}");
        }
        // Bytes that are no text are no model.
        let mut bad = page_89("Samsung", 1);
        bad[IDENTIFY_AT + 54] = 0x07;
        std::fs::write(dir.path().join("vpd_pg89"), bad).unwrap();
        assert_eq!(probe(dir.path()).model, None);
    }
}
