//! SD cards and eMMC: identity and claimed classes, decoded from the card's registers.
//!
//! The kernel exposes the card under `mmcblk0/device`: the CID split into `manfid`, `oemid`,
//! `name`, `hwrev`, `fwrev`, `date`, and the raw `csd`, `scr` and `ssr` registers as hex
//! (Documentation/mmc/mmc-dev-attrs.rst). Field positions are those of the SD Physical Layer
//! Simplified Specification 9.10: CSD_STRUCTURE [127:126]; SCR's SD_SPEC [59:56], SD_SPEC3 [47],
//! SD_SPEC4 [42], SD_SPECX [41:38]; SD Status's SPEED_CLASS [447:440], UHS_SPEED_GRADE [399:396],
//! VIDEO_SPEED_CLASS [391:384], APP_PERF_CLASS [339:336]. The serial number inside the CID is
//! never reported. The bus timing and clock are in debugfs (`mmc0/ios`), readable by root only.

use std::path::Path;

use super::sysfs::{parse_u64, read_u64, trim};
use iomark_result::result::Sd;

/// SD card manufacturer ids (the SD Association's list is not public; these are the ids
/// published by card vendors and collected by the community for the brands they name).
const SD_MANUFACTURERS: &[(u64, &str)] = &[
    (0x01, "Panasonic"),
    (0x02, "Toshiba/Kioxia"),
    (0x03, "SanDisk"),
    (0x1b, "Samsung"),
    (0x1d, "ADATA"),
    (0x27, "Phison"),
    (0x28, "Lexar"),
    (0x31, "Silicon Power"),
    (0x41, "Kingston"),
    (0x74, "Transcend"),
    (0x76, "Patriot"),
    (0x82, "Sony"),
    (0x9c, "Angelbird/Hoodman"),
];

/// eMMC manufacturer ids (JEDEC).
const MMC_MANUFACTURERS: &[(u64, &str)] = &[
    (0x11, "Toshiba/Kioxia"),
    (0x13, "Micron"),
    (0x15, "Samsung"),
    (0x45, "SanDisk"),
    (0x70, "Kingston"),
    (0x90, "SK Hynix"),
    (0xfe, "Micron"),
];

pub fn probe(root: &Path, node: &Path) -> Option<Sd> {
    let card = node.join("device");
    let ios = host_index(node).and_then(|host| {
        std::fs::read_to_string(root.join(format!("sys/kernel/debug/mmc{host}/ios"))).ok()
    });
    decode(
        &|name| std::fs::read_to_string(card.join(name)).ok(),
        read_u64(&node.join("size")),
        ios.as_deref(),
    )
}

/// The card from its attributes' text (`attr("manfid")`, `None` where missing), the disk's
/// size in 512-byte sectors and debugfs' `ios`: what [`probe`] makes of a real card, of any
/// bytes alike.
pub fn decode(
    attr: &dyn Fn(&str) -> Option<String>,
    size_sectors: Option<u64>,
    ios: Option<&str>,
) -> Option<Sd> {
    let text = |name: &str| attr(name).as_deref().and_then(trim);
    let number = |name: &str| text(name).as_deref().and_then(parse_u64);
    let kind = text("type")?;
    let manfid = number("manfid");
    let table = if kind == "MMC" {
        MMC_MANUFACTURERS
    } else {
        SD_MANUFACTURERS
    };
    let size_bytes = size_sectors.and_then(|s| s.checked_mul(512));
    let mut sd = Sd {
        manufacturer: manfid.and_then(|id| {
            table
                .iter()
                .find(|(k, _)| *k == id)
                .map(|(_, n)| n.to_string())
        }),
        manfid: manfid.map(|id| format!("0x{id:02x}")),
        oemid: number("oemid").map(oem_name),
        product: text("name"),
        revision: number("hwrev")
            .zip(number("fwrev"))
            .map(|(hw, fw)| format!("{hw}.{fw}")),
        date: text("date").and_then(|d| {
            let (month, year) = d.split_once('/')?;
            Some(format!("{year}-{month:0>2}"))
        }),
        ..Sd::default()
    };
    if kind == "SD" {
        sd.capacity_class = text("csd")
            .and_then(|csd| bits(&csd, 128, 127, 126))
            .map(|structure| capacity_class(structure, size_bytes))
            .map(String::from);
        sd.spec_version = text("scr")
            .and_then(|scr| spec_version(&scr))
            .map(String::from);
        sd.claimed_classes = text("ssr")
            .map(|ssr| claimed_classes(&ssr))
            .unwrap_or_default();
    }
    for line in ios.unwrap_or_default().lines() {
        let (key, value) = match line.split_once(':') {
            Some(pair) => pair,
            None => continue,
        };
        match key.trim() {
            "clock" => {
                sd.bus_clock_hz = value.split_whitespace().next().and_then(|v| v.parse().ok())
            }
            "timing spec" => {
                sd.bus_timing = value
                    .split_once('(')
                    .map(|(_, t)| t.trim_end_matches(')').trim().to_string())
            }
            _ => {}
        }
    }
    sd.kind = Some(kind);
    Some(sd)
}

/// The OEM/application id: two ASCII characters (`0x5344` is "SD").
fn oem_name(id: u64) -> String {
    let bytes = [(id >> 8) as u8, id as u8];
    if bytes.iter().all(|b| b.is_ascii_graphic()) {
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        format!("0x{id:04x}")
    }
}

/// The host controller's index, from `…/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0`.
fn host_index(node: &Path) -> Option<String> {
    let path = node.to_string_lossy();
    let after = path.split("/mmc_host/mmc").nth(1)?;
    Some(after.split('/').next()?.to_string())
}

/// Bits `hi..=lo` of a register of `width` bits given as hex, most significant first.
pub fn bits(hex: &str, width: usize, hi: usize, lo: usize) -> Option<u64> {
    let hex = hex.trim();
    if hex.len() * 4 != width || hi >= width || lo > hi || hi - lo >= 64 {
        return None;
    }
    let digits: Vec<u8> = hex
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<Vec<u8>>>()?;
    let mut value = 0u64;
    for bit in (lo..=hi).rev() {
        // Bit `width-1` is the top bit of the first digit.
        let from_top = width - 1 - bit;
        let digit = digits[from_top / 4];
        let set = (digit >> (3 - from_top % 4)) & 1;
        value = (value << 1) | u64::from(set);
    }
    Some(value)
}

fn capacity_class(csd_structure: u64, size_bytes: Option<u64>) -> &'static str {
    match csd_structure {
        0 => "SDSC",
        1 if size_bytes.is_some_and(|s| s > 32 << 30) => "SDXC",
        1 => "SDHC",
        _ => "SDUC",
    }
}

fn spec_version(scr: &str) -> Option<&'static str> {
    let spec = bits(scr, 64, 59, 56)?;
    let spec3 = bits(scr, 64, 47, 47)?;
    let spec4 = bits(scr, 64, 42, 42)?;
    let specx = bits(scr, 64, 41, 38)?;
    Some(match (spec, spec3, spec4, specx) {
        (0, ..) => "1.0",
        (1, ..) => "1.10",
        (2, 0, ..) => "2.00",
        (2, 1, _, 1) => "5.xx",
        (2, 1, _, 2) => "6.xx",
        (2, 1, _, 3) => "7.xx",
        (2, 1, _, 4) => "8.xx",
        (2, 1, _, 5) => "9.xx",
        (2, 1, 1, _) => "4.xx",
        (2, 1, 0, _) => "3.0x",
        _ => return None,
    })
}

/// The classes the SD Status register claims.
pub fn claimed_classes(ssr: &str) -> Vec<String> {
    let field = |hi, lo| bits(ssr, 512, hi, lo);
    let mut classes = Vec::new();
    match field(447, 440) {
        Some(1) => classes.push("C2".to_string()),
        Some(2) => classes.push("C4".to_string()),
        Some(3) => classes.push("C6".to_string()),
        Some(4) => classes.push("C10".to_string()),
        _ => {}
    }
    match field(399, 396) {
        Some(1) => classes.push("U1".to_string()),
        Some(3) => classes.push("U3".to_string()),
        _ => {}
    }
    if let Some(video @ (6 | 10 | 30 | 60 | 90)) = field(391, 384) {
        classes.push(format!("V{video}"));
    }
    match field(339, 336) {
        Some(1) => classes.push("A1".to_string()),
        Some(2) => classes.push("A2".to_string()),
        _ => {}
    }
    classes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_fields() {
        assert_eq!(bits("80000000", 32, 31, 31), Some(1));
        assert_eq!(bits("80000000", 32, 30, 0), Some(0));
        assert_eq!(bits("0000f000", 32, 15, 12), Some(15));
        assert_eq!(bits("zz", 8, 7, 0), None);
        assert_eq!(bits("00", 16, 7, 0), None);
    }

    #[test]
    fn registers_decode() {
        // CSD version 2.0 (SDHC/SDXC).
        assert_eq!(bits("400e0032", 32, 31, 30), Some(1));
        assert_eq!(capacity_class(1, Some(64_021_856_256)), "SDXC");
        assert_eq!(capacity_class(1, Some(15_931_539_456)), "SDHC");
        assert_eq!(capacity_class(0, None), "SDSC");
        // SCR of an SD 3.0 card: SD_SPEC=2, SD_SPEC3=1.
        assert_eq!(spec_version("0235800300000000"), Some("3.0x"));
        // SD_SPEC4 and SD_SPECX=2: 6.0.
        assert_eq!(spec_version("0235848700000000"), Some("6.xx"));
        assert_eq!(oem_name(0x5344), "SD");
        assert_eq!(oem_name(0x0001), "0x0001");
    }

    #[test]
    fn ssr_classes() {
        // SPEED_CLASS=4 (C10), UHS grade 3, video 30, app class 1, at their bit positions.
        let mut ssr = vec![b'0'; 128];
        let mut set = |hi: usize, width: usize, value: u64| {
            for i in 0..width {
                let bit = hi - i;
                if (value >> (width - 1 - i)) & 1 == 1 {
                    let from_top = 511 - bit;
                    let digit = (ssr[from_top / 4] as char).to_digit(16).unwrap()
                        | (1 << (3 - from_top % 4));
                    ssr[from_top / 4] = char::from_digit(digit, 16).unwrap() as u8;
                }
            }
        };
        set(447, 8, 4);
        set(399, 4, 3);
        set(391, 8, 30);
        set(339, 4, 1);
        let ssr = String::from_utf8(ssr).unwrap();
        assert_eq!(claimed_classes(&ssr), ["C10", "U3", "V30", "A1"]);
        assert!(claimed_classes("00").is_empty());
    }
}
