//! What a device is, as a buyer names it: the maker and model of the drive itself (never the
//! USB bridge in front of it), its capacity said once, and its kind (a USB stick is flash
//! whatever the kernel's `rotational` default says).
//!
//! Pure functions of the document's `Device`, used by [`super::identity`].

use super::names::{is_filler, normalise};
use super::{Device, Transport};

/// Who makes a drive, by the first word of its model, and what a buyer calls the maker.
const MAKERS: &[(&str, &str)] = &[
    ("samsung", "Samsung"),
    ("sandisk", "SanDisk"),
    ("kingston", "Kingston"),
    ("crucial", "Crucial"),
    ("micron", "Micron"),
    ("intel", "Intel"),
    ("toshiba", "Toshiba"),
    ("kioxia", "Kioxia"),
    ("seagate", "Seagate"),
    ("wdc", "WD"),
    ("wd", "WD"),
    ("western", "WD"),
    ("hgst", "HGST"),
    ("hitachi", "Hitachi"),
    ("sk", "SK hynix"),
    ("hynix", "SK hynix"),
    ("adata", "ADATA"),
    ("transcend", "Transcend"),
    ("lexar", "Lexar"),
    ("pny", "PNY"),
    ("corsair", "Corsair"),
    ("plextor", "Plextor"),
    ("patriot", "Patriot"),
    ("verbatim", "Verbatim"),
    ("teamgroup", "TeamGroup"),
    ("apple", "Apple"),
    ("lite-on", "Lite-On"),
    ("solidigm", "Solidigm"),
    ("liteon", "Lite-On"),
];

/// The words, in lower case, that name a maker or only its company (`electronics`, `inc`),
/// also as their own countries write them (a hidden Samsung came back as `삼성` and `三星`, the
/// sixth attack pass): no part of which product a device is. Each with the maker a buyer
/// calls it by, where it names one (`western` is WD's; `electronics` names none).
pub fn maker_words() -> impl Iterator<Item = (&'static str, Option<&'static str>)> {
    const COMPANY: [&str; 8] = [
        "electronics",
        "technology",
        "technologies",
        "corp",
        "corporation",
        "inc",
        "ltd",
        "co",
    ];
    #[rustfmt::skip]
    const ABROAD: [(&str, &str); 16] = [
        ("삼성", "Samsung"), ("三星", "Samsung"), ("самсунг", "Samsung"), ("ซัมซุง", "Samsung"),
        ("سامسونج", "Samsung"), ("सैमसंग", "Samsung"), ("金士顿", "Kingston"),
        ("кингстон", "Kingston"), ("闪迪", "SanDisk"), ("西部数据", "WD"), ("东芝", "Toshiba"),
        ("тошиба", "Toshiba"), ("希捷", "Seagate"), ("铠侠", "Kioxia"), ("英睿达", "Crucial"),
        ("美光", "Micron"),
    ];
    MAKERS
        .iter()
        .chain(&ABROAD)
        .map(|(w, m)| (*w, Some(*m)))
        .chain(COMPANY.iter().map(|w| (*w, None)))
}

/// Model numbers that name their maker by a code, not a word (`ST1000LM035` is a Seagate).
const CODES: &[(&str, &str)] = &[("ST", "Seagate"), ("CT", "Crucial"), ("WD", "WD")];

/// Words USB bridge chips and enclosures put where a drive's vendor goes: never the maker.
const BRIDGE_WORDS: &[&str] = &[
    "asmt", "asmedia", "jmicron", "realtek", "via", "vli", "initio", "genesys", "norelsys",
];

/// Makers of USB hard disks, by USB vendor id (USB id database): their products spin unless
/// their name says SSD.
const HDD_VENDORS: &[(&str, &str)] = &[
    ("1058", "Western Digital"),
    ("0bc2", "Seagate"),
    ("0480", "Toshiba"),
    ("059f", "LaCie"),
    ("4971", "HGST / G-Technology"),
];

/// Model words of hard disks: product lines and model-number stems.
const HDD_WORDS: &[&str] = &[
    "hdd",
    "passport",
    "elements",
    "expansion",
    "backup",
    "canvio",
    "barracuda",
    "ironwolf",
];

/// The maker and model a buyer would search for, and the capacity on the label.
#[derive(Debug, PartialEq)]
pub struct Named {
    /// `Samsung SSD 860 EVO` (no capacity), or None when nothing names the model.
    pub model: Option<String>,
    pub capacity_gb: Option<u64>,
}

fn clean(text: Option<&String>) -> Option<String> {
    text.map(|s| normalise(s))
        .filter(|s| !s.is_empty() && !is_filler(s))
}

fn first_word(text: &str) -> String {
    text.split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The maker a model names itself by: a maker's word first (`Samsung SSD…`, `WDC WD10…`),
/// or a model-number code (`ST1000…`).
fn maker_in(model: &str) -> Option<&'static str> {
    let word = first_word(model);
    if let Some((_, maker)) = MAKERS.iter().find(|(w, _)| *w == word) {
        return Some(maker);
    }
    CODES.iter().find_map(|(code, maker)| {
        let rest = model.strip_prefix(code)?;
        (rest.starts_with(|c: char| c.is_ascii_digit()) || (*code == "WD" && rest.starts_with('S')))
            .then_some(*maker)
    })
}

fn is_bridge_word(text: &str) -> bool {
    BRIDGE_WORDS.contains(&first_word(text).as_str())
}

/// Whether the SCSI model is the bridge's own (its chip, or the name its USB descriptor gives),
/// not the drive's.
fn is_bridge_model(device: &Device, model: &str) -> bool {
    let Some(usb) = device.usb.as_ref().filter(|u| u.bridge.is_some()) else {
        return false;
    };
    let lower = model.to_ascii_lowercase();
    let chips = usb.bridge.as_deref().unwrap_or("").to_ascii_lowercase();
    device.vendor.as_deref().is_some_and(is_bridge_word)
        || usb
            .product
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case(model))
        || chips
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 4 && w.chars().any(|c| c.is_ascii_digit()))
            .any(|chip| lower.contains(chip))
        || lower == "generic"
}

/// The device as a buyer would name it.
pub fn named(device: &Device) -> Named {
    let capacity_gb = device.size_bytes.and_then(marketing_gb);
    let maker_model = |maker: Option<String>, model: String| {
        let maker = maker.filter(|m| !is_bridge_word(m));
        // A leading word of the model that names no maker (`ATA Fake Card`, as a bridge may
        // prefix it) is no part of the name: the attack pass filed a hidden device anew so.
        let model = match model.split_once(' ') {
            Some((first, rest)) if is_filler(first) && !rest.trim().is_empty() => {
                rest.trim().to_string()
            }
            _ => model,
        };
        let known = maker_in(&model);
        let name = match (maker, known) {
            // The model says who made it: `Samsung SSD 860 EVO`, `WDC WD10JPVX`.
            (_, Some(_)) if MAKERS.iter().any(|(w, _)| *w == first_word(&model)) => model,
            (Some(maker), _) if !model.to_lowercase().starts_with(&maker.to_lowercase()) => {
                format!("{maker} {model}")
            }
            (Some(_), _) => model,
            (None, Some(known)) => format!("{known} {model}"),
            (None, None) => model,
        };
        let name = without_capacity(&name, capacity_gb);
        // A part number as the drive is sold (`CT2000P3PSSD8` is a `Crucial P3 Plus`).
        parts::marketed(&name).unwrap_or(name)
    };
    let model = if let Some(sd) = device.sd.as_ref() {
        let maker = clean(sd.manufacturer.as_ref()).or_else(|| clean(device.vendor.as_ref()));
        clean(sd.product.as_ref())
            .or_else(|| clean(device.model.as_ref()))
            .map(|model| maker_model(maker, model))
    } else if let Some(drive) = clean(device.drive_model.as_ref()) {
        // The drive's own IDENTIFY answer, whole.
        Some(maker_model(None, drive))
    } else {
        let usb = device.usb.as_ref();
        let bridged = usb.is_some_and(|u| u.bridge.is_some());
        let scsi = clean(device.model.as_ref()).filter(|m| !is_bridge_model(device, m));
        let vendor = clean(device.vendor.as_ref()).filter(|v| !is_bridge_word(v));
        match scsi {
            Some(model) => {
                let maker = vendor.or_else(|| {
                    usb.filter(|_| !bridged)
                        .and_then(|u| clean(u.manufacturer.as_ref()))
                });
                Some(maker_model(maker, model))
            }
            None if !bridged => usb.and_then(|u| clean(u.product.as_ref())).map(|product| {
                maker_model(clean(usb.and_then(|u| u.manufacturer.as_ref())), product)
            }),
            None => None,
        }
    };
    Named {
        model: model.filter(|m| !m.is_empty()),
        capacity_gb,
    }
}

/// The name without a capacity it states again at its end (`… 500G`, `… 1TB`, `… 500 GB`),
/// when that is the label's capacity: the site writes the capacity once, its own way.
fn without_capacity(name: &str, capacity_gb: Option<u64>) -> String {
    let Some(gb) = capacity_gb else {
        return name.to_string();
    };
    let words: Vec<&str> = name.split_whitespace().collect();
    let states = |text: &str| -> bool {
        // `500GB.` and `500GB!` state it too (issue 59's attack pass filed a hidden device's
        // model anew, its capacity doubled in the key, with a trailing dot).
        let lower = text
            .trim_end_matches(|c: char| c.is_ascii_punctuation())
            .to_ascii_lowercase();
        let (number, scale) =
            if let Some(n) = lower.strip_suffix("gb").or_else(|| lower.strip_suffix('g')) {
                (n, 1.0)
            } else if let Some(n) = lower.strip_suffix("tb").or_else(|| lower.strip_suffix('t')) {
                (n, 1000.0)
            } else {
                return false;
            };
        number
            .trim()
            .parse::<f64>()
            .is_ok_and(|n| n > 0.0 && ((n * scale) / gb as f64 - 1.0).abs() < 0.05)
    };
    // A unit alone after a number (`500 GB`): `MX 5 0 0 2TB` is no `… 0` of `2TB` (the
    // sixteenth attack pass keyed it `mx-5-0`, a zero short, a device of its own).
    let unit = |text: &str| {
        let lower = text.trim_end_matches(|c: char| c.is_ascii_punctuation());
        ["g", "gb", "t", "tb"].contains(&lower.to_ascii_lowercase().as_str())
    };
    let keep = match words.as_slice() {
        [rest @ .., number, u]
            if !rest.is_empty() && unit(u) && states(&format!("{number}{u}")) =>
        {
            rest.len()
        }
        [rest @ .., last] if !rest.is_empty() && states(last) => rest.len(),
        _ => words.len(),
    };
    // Written with dashes (`Samsung-SSD-870-EVO-500GB`, issue 59's third attack pass: keyed
    // `…-500gb-500gb`, a device of its own): its last part states it.
    if keep == words.len() {
        if let Some((before, last)) = name.trim_end().rsplit_once(['-', '_']) {
            if !before.trim().is_empty() && states(last) {
                return before.trim().to_string();
            }
        }
        // Glued to the last word (`Samsung SSD 870 EVO264GB`, the fourth attack pass's twin
        // of the `EVO 264GB`): a word of three letters or more, then the capacity (`SN64G` is
        // a model).
        if let [rest @ .., last] = words.as_slice() {
            let digits = last.find(|c: char| c.is_ascii_digit());
            if let Some(at) = digits.filter(|at| *at >= 3) {
                let (head, tail) = last.split_at(at);
                if !rest.is_empty() && head.chars().all(char::is_alphabetic) && states(tail) {
                    return format!("{} {head}", rest.join(" "));
                }
            }
            // Or to a model number (`Crucial MX5002TB`: the sixteenth), where the capacity's
            // figures are no zero a model number pads with (`SU08G`, an SD card's name, is
            // none; nor is `SN64G`: a model needs three characters before it).
            if let Some(head) = glued_to_number(last, states).filter(|_| !rest.is_empty()) {
                return format!("{} {head}", rest.join(" "));
            }
        }
    }
    words[..keep].join(" ")
}

/// `word` less the capacity glued to its model number (`MX5002TB` is `MX500`), where `states`
/// says its end is the capacity: the shortest such end, beginning with a figure other than
/// zero, after three characters or more that end in figures not all zeros.
fn glued_to_number(word: &str, states: impl Fn(&str) -> bool) -> Option<&str> {
    let ends = word
        .char_indices()
        .filter(|&(at, c)| at >= 3 && matches!(c, '1'..='9'));
    let at = ends.map(|(at, _)| at).rev().find(|&at| {
        let head = &word[..at];
        let figures = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let padded = head[head.len() - figures..].bytes().all(|b| b == b'0');
        figures > 0 && !padded && head.contains(char::is_alphabetic) && states(&word[at..])
    })?;
    Some(&word[..at])
}

/// What kind of device it is, for a leaderboard's filter.
pub(super) fn kind(device: &Device) -> &'static str {
    let words = || {
        [&device.drive_model, &device.model, &device.vendor]
            .into_iter()
            .chain(device.usb.as_ref().map(|u| &u.product))
            .flatten()
            .map(|s| s.to_lowercase())
    };
    let named = |word: &str| words().any(|s| s.contains(word));
    let solid = named("ssd") || named("nvme") || named("solid state");
    // The drive's own answer first; the kernel's flag is only its default where it gave none.
    // A SATA or SCSI drive's `rotational` 0 is its own answer (its nominal rotation rate),
    // not the kernel's default: a WD Blue SSD (`WDC WDS500G2B0A`) or an HGST Ultrastar SSD
    // (`HUSMM…`) is no disk by its maker's prefix (the eighth attack pass: held as disks).
    let says_solid = device.rotational == Some(false)
        && matches!(device.transport, Some(Transport::Sata | Transport::Scsi));
    let spins = match device.rotation_rpm {
        Some(rpm) => Some(rpm > 0),
        None if solid || says_solid => Some(false),
        None if hdd_like(device) => Some(true),
        None => None,
    };
    let rotational = spins.or(device.rotational).unwrap_or(false);
    // A bus iomark never writes (`sd`, `pcie`: the eighteenth attack pass ranked a microSD
    // card sent over `sd` at 1.6 GB/s as of no kind) is read from the disk's kernel name, its
    // card registers and its name.
    let card = ["microsd", "sdxc", "sdhc", "sduc", "sd card"]
        .iter()
        .any(|w| named(w));
    let kernel = device.name.as_deref().unwrap_or_default();
    let transport = match device.transport {
        Some(Transport::Other) | None
            if device.sd.is_some() || kernel.starts_with("mmcblk") || card =>
        {
            Some(Transport::Mmc)
        }
        Some(Transport::Other) | None if kernel.starts_with("nvme") => Some(Transport::Nvme),
        known => known,
    };
    match transport {
        Some(Transport::Mmc) => match device.sd.as_ref().and_then(|s| s.kind.as_deref()) {
            Some(k) if k.eq_ignore_ascii_case("mmc") => "eMMC",
            Some(_) | None if device.sd.is_some() => {
                // SD cards and microSD cards share registers; the microSD is by far the
                // commoner in the boards that report them.
                if named("microsd") || device.size_bytes.unwrap_or(0) > 0 {
                    "microSD"
                } else {
                    "SD"
                }
            }
            _ if named("microsd") => "microSD",
            _ if card => "SD",
            _ => "eMMC",
        },
        Some(Transport::Usb) => {
            let bridged = device.usb.as_ref().is_some_and(|u| u.bridge.is_some());
            // The kernel clears `rotational` only on the device's answer; 1 is its default.
            let spins = spins.or((device.rotational == Some(false)).then_some(false));
            match spins {
                Some(true) => "USB HDD",
                Some(false) if bridged || solid => "USB SSD",
                Some(false) => "USB flash",
                // A drive behind a bridge that says nothing of itself: a disk or an SSD, and
                // which is not known.
                None if bridged => "other",
                // No bridge: a stick, whose `rotational` 1 is the kernel's default.
                None => "USB flash",
            }
        }
        Some(Transport::Nvme) => "NVMe",
        Some(Transport::Sata) if rotational => "SATA HDD",
        Some(Transport::Sata) => "SATA SSD",
        Some(Transport::Virtio | Transport::Loop) => "virtual",
        Some(Transport::Scsi | Transport::Other) | None => "other",
    }
}

/// A hard disk by its maker's USB id or its model's words and numbers.
fn hdd_like(device: &Device) -> bool {
    let usb_maker = device
        .usb
        .as_ref()
        .and_then(|u| u.vendor_id.as_deref())
        .is_some_and(|id| HDD_VENDORS.iter().any(|(v, _)| id.eq_ignore_ascii_case(v)));
    let model = [&device.drive_model, &device.model]
        .into_iter()
        .flatten()
        .chain(device.usb.as_ref().and_then(|u| u.product.as_ref()))
        .map(|s| s.to_lowercase())
        .any(|m| HDD_WORDS.iter().any(|w| m.contains(w)) || disk_number(&m) || disk_line(&m));
    usb_maker || model
}

/// A model number only hard disks carry (`WDC WD40EFRX-68N32N0`, `ST4000DM004`, `TOSHIBA
/// DT01ACA300`, `HGST HUS726040ALE610`), as the drive names itself over ATA or SCSI:
/// whatever the document says of its rotation, such a drive spins. Not a product line's word
/// (`My Passport` and `Elements` are SSDs too) nor a maker's SSD prefix (`WDC WDS…`, `HGST
/// HUSM…`, `TOSHIBA THNS…`). `model` is lower case.
pub(super) fn disk_number(model: &str) -> bool {
    let model = model.trim_start();
    let coded = |prefix: &str, then: fn(char) -> bool| {
        model
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(then))
    };
    let digit = |c: char| c.is_ascii_digit();
    // `wdc wd` then a size's digits (`wd40efrx`, `wd5000aakx`); `wds…` and `wdc pc sn…` are
    // SSDs.
    coded("wdc wd", digit)
        || coded("st", digit)
        || (model.starts_with("hgst h") && !model.starts_with("hgst husm"))
        || model.starts_with("hitachi h")
        || ["dt0", "mq0", "mg0", "md0", "mn0", "hdw", "mk", "al1"]
            .iter()
            .any(|stem| coded(&format!("toshiba {stem}"), |c| c.is_ascii_alphanumeric()))
        || coded("samsung hd", digit)
        // Ultrastar's disks (`WDC WUH721816ALE6L4`; its SSDs are `WUS4…`), Maxtor's (`MAXTOR
        // STM3500418AS`): the sixteenth attack pass.
        || ["wdc wuh72", "wdc wus72", "hgst huh72", "hgst hus72"]
            .iter()
            .any(|stem| model.starts_with(stem))
        || coded("maxtor ", |c| c.is_ascii_alphanumeric())
        || model.starts_with("samsung hn-")
        || disk_word(model)
}

/// A device's size as its label says it: the usable bytes of a "64 GB" card are 59-64·10^9,
/// of a "1 TB" drive 0.93-1.0·10^12. The label size nearest to it that it can be.
pub(super) fn marketing_gb(bytes: u64) -> Option<u64> {
    if bytes < 100_000_000 {
        return None;
    }
    let gb = bytes as f64 / 1e9;
    // Card and stick sizes, and the SSD sizes between them.
    const SIZES: [u64; 26] = [
        1, 2, 4, 8, 16, 32, 64, 120, 128, 240, 250, 256, 480, 500, 512, 960, 1000, 2000, 4000,
        8000, 10000, 12000, 14000, 16000, 20000, 24000,
    ];
    // The label size nearest to the bytes, among those the bytes can be (92-102% of it).
    SIZES
        .iter()
        .filter(|size| gb <= **size as f64 * 1.02 && gb >= **size as f64 * 0.92)
        .min_by(|a, b| {
            let off = |s: u64| (gb / s as f64 - 1.0).abs();
            off(**a).total_cmp(&off(**b))
        })
        .copied()
        // Sizes between the usual ones: the figure itself, rounded.
        .or(Some(gb.round() as u64))
        .filter(|gb| *gb > 0)
}

pub(super) fn capacity_text(gb: u64) -> String {
    if gb >= 1000 && gb.is_multiple_of(1000) {
        format!("{} TB", gb / 1000)
    } else {
        format!("{gb} GB")
    }
}

mod lines;
mod parts;
use lines::disk_word;
pub(super) use lines::{disk_line, sata_only};

#[cfg(test)]
mod tests;
