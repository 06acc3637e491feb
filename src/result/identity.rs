//! What a result is of, for a site that ranks many: the device model it measured (one key per
//! model and capacity, however the document spelt it), the kind of device, the class of results
//! it can be ranked with, and whether its figures are beyond what its link can carry.
//!
//! Everything here is a pure function of the document, so that the site, the store's
//! aggregates and the tests all derive the same facts from the same document.

use super::{ResultDoc, TestResult};

/// The eight standard tests a leaderboard can sort by, with their column names in the store.
pub const RANKED_TESTS: [(&str, &str); 8] = [
    ("SEQ1M_Q8T1_read", "seq1m_q8_read"),
    ("SEQ1M_Q8T1_write", "seq1m_q8_write"),
    ("SEQ1M_Q1T1_read", "seq1m_q1_read"),
    ("SEQ1M_Q1T1_write", "seq1m_q1_write"),
    ("RND4K_Q32T1_read", "rnd4k_q32_read"),
    ("RND4K_Q32T1_write", "rnd4k_q32_write"),
    ("RND4K_Q1T1_read", "rnd4k_q1_read"),
    ("RND4K_Q1T1_write", "rnd4k_q1_write"),
];

/// The kinds of device a leaderboard filters by.
pub const KINDS: [&str; 11] = [
    "microSD",
    "SD",
    "eMMC",
    "USB flash",
    "USB SSD",
    "USB HDD",
    "NVMe",
    "SATA SSD",
    "SATA HDD",
    "virtual",
    "other",
];

/// The facts a site keeps beside each document.
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    /// One key per model and capacity: lower-case words joined by dashes, then the capacity
    /// (`sandisk-extreme-sn64g-64gb`). None when the document names no device model.
    pub device_key: Option<String>,
    /// The model as people write it (`SanDisk Extreme SN64G`), with its capacity.
    pub device_name: String,
    pub kind: &'static str,
    pub transport: Option<String>,
    /// Results are ranked only with results of the same class: the same profile, I/O mode
    /// and data (`standard/direct/random`).
    pub class: String,
    /// Marketing capacity in GB (10^9 bytes), rounded as labels round it.
    pub capacity_gb: Option<u64>,
    /// Why these figures cannot be ranked, if they cannot.
    pub flag: Option<String>,
    /// Marked by the synthetic generator: never shown on a real site.
    pub synthetic: bool,
}

impl ResultDoc {
    pub fn identity(&self) -> Identity {
        let device = self.target.device.as_ref();
        let sd = device.and_then(|d| d.sd.as_ref());
        let usb = device.and_then(|d| d.usb.as_ref());
        let clean = |s: &Option<String>| {
            s.as_deref()
                .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|s| !s.is_empty() && !is_filler(s))
        };
        // The maker: the SD card's registers, the USB descriptor, else the block device's vendor.
        let maker = sd
            .and_then(|s| clean(&s.manufacturer))
            .or_else(|| usb.and_then(|u| clean(&u.manufacturer)))
            .or_else(|| device.and_then(|d| clean(&d.vendor)));
        let model = sd
            .and_then(|s| clean(&s.product))
            .or_else(|| device.and_then(|d| clean(&d.model)))
            .or_else(|| usb.and_then(|u| clean(&u.product)));
        let capacity_gb = device.and_then(|d| d.size_bytes).and_then(marketing_gb);
        let name = match (&maker, &model) {
            (Some(maker), Some(model))
                if !model.to_lowercase().starts_with(&maker.to_lowercase()) =>
            {
                format!("{maker} {model}")
            }
            (_, Some(model)) => model.clone(),
            _ => self.device_label(),
        };
        let device_key = model.as_ref().map(|_| {
            let mut key = slug(&name);
            if let Some(gb) = capacity_gb {
                key.push_str(&format!("-{gb}gb"));
            }
            key
        });
        let device_name = match capacity_gb {
            Some(gb) if model.is_some() => format!("{name} {}", capacity_text(gb)),
            _ => name,
        };
        let s = &self.settings;
        Identity {
            device_key,
            device_name,
            kind: self.kind(),
            transport: device.and_then(|d| d.transport.clone()),
            class: format!(
                "{}/{}/{}",
                s.profile,
                if s.direct { "direct" } else { "buffered" },
                s.data
            ),
            capacity_gb,
            flag: self.rank_flag(),
            synthetic: self.is_synthetic(),
        }
    }

    /// Whether the synthetic generator made this document (`"synthetic": true`).
    pub fn is_synthetic(&self) -> bool {
        self.extra.get("synthetic").and_then(|v| v.as_bool()) == Some(true)
    }

    fn kind(&self) -> &'static str {
        let Some(device) = self.target.device.as_ref() else {
            return "other";
        };
        let rotational = device.rotational == Some(true);
        let named = |word: &str| {
            [&device.model, &device.vendor]
                .into_iter()
                .chain(device.usb.as_ref().map(|u| &u.product))
                .any(|s| {
                    s.as_deref()
                        .is_some_and(|s| s.to_lowercase().contains(word))
                })
        };
        match device.transport.as_deref() {
            Some("mmc") => match device.sd.as_ref().and_then(|s| s.kind.as_deref()) {
                Some(k) if k.eq_ignore_ascii_case("mmc") => "eMMC",
                Some(_) | None if device.sd.is_some() => {
                    let size = device.size_bytes.unwrap_or(0);
                    // SD cards and microSD cards share registers; the microSD is by far the
                    // commoner in the boards that report them.
                    if named("microsd") || size > 0 {
                        "microSD"
                    } else {
                        "SD"
                    }
                }
                _ => "eMMC",
            },
            Some("usb") if rotational => "USB HDD",
            Some("usb") if named("ssd") || named("nvme") => "USB SSD",
            Some("usb") => "USB flash",
            Some("nvme") => "NVMe",
            Some("sata") if rotational => "SATA HDD",
            Some("sata") => "SATA SSD",
            Some("virtio") | Some("loop") => "virtual",
            _ => "other",
        }
    }

    /// Why these figures cannot stand in a ranking: no I/O was done, or a figure is faster
    /// than the device's link can carry (a cache answered, or the document is wrong).
    pub fn rank_flag(&self) -> Option<String> {
        if self.settings.engine.split('+').any(|e| e == "null") {
            return Some("measured with the null engine, which does no I/O".into());
        }
        let usb = self.target.device.as_ref().and_then(|d| d.usb.as_ref())?;
        let mbps = usb.speed_mbps.filter(|s| *s > 0.0)?;
        // The link's raw rate in MB/s (10^6 bytes): 480 Mbit/s is 60 MB/s before any overhead.
        let ceiling = mbps / 8.0;
        let fastest: Option<&TestResult> = self
            .tests
            .iter()
            .filter(|t| t.mb_per_s > ceiling)
            .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s));
        fastest.map(|t| {
            format!(
                "{} at {:.0} MB/s is faster than its USB link ({} Mbit/s carries at most {:.0} MB/s): \
                 a cache answered, or the document is wrong",
                t.name, t.mb_per_s, mbps, ceiling
            )
        })
    }
}

/// Words that name no maker: what USB bridges and virtual disks put in the vendor field.
fn is_filler(text: &str) -> bool {
    matches!(
        text.to_ascii_lowercase().as_str(),
        "ata" | "generic" | "usb" | "mass storage" | "mass storage device" | "unknown" | "0x0000"
    )
}

/// Lower-case ASCII letters and digits, every other run of characters one dash.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// A device's size as its label says it: the usable bytes of a "64 GB" card are 59-64·10^9,
/// of a "1 TB" drive 0.93-1.0·10^12. The label size nearest to it that it can be.
fn marketing_gb(bytes: u64) -> Option<u64> {
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

fn capacity_text(gb: u64) -> String {
    if gb >= 1000 && gb.is_multiple_of(1000) {
        format!("{} TB", gb / 1000)
    } else {
        format!("{gb} GB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{sample, Device, Sd, Usb};

    fn device() -> Device {
        serde_json::from_value(serde_json::json!({})).unwrap()
    }

    #[test]
    fn one_key_per_model_and_capacity() {
        let mut doc = sample::doc();
        let mut d = device();
        d.transport = Some("mmc".into());
        d.model = Some("SN64G".into());
        d.size_bytes = Some(63_864_569_856);
        let mut sd: Sd = serde_json::from_value(serde_json::json!({})).unwrap();
        sd.manufacturer = Some("SanDisk".into());
        sd.product = Some("SN64G".into());
        d.sd = Some(sd);
        doc.target.device = Some(d.clone());
        let id = doc.identity();
        assert_eq!(id.device_key.as_deref(), Some("sandisk-sn64g-64gb"));
        assert_eq!(id.device_name, "SanDisk SN64G 64 GB");
        assert_eq!(id.kind, "microSD");
        assert_eq!(id.capacity_gb, Some(64));
        // The same card spelt with other spacing and case is the same device.
        d.sd.as_mut().unwrap().manufacturer = Some("  SANDISK ".into());
        d.sd.as_mut().unwrap().product = Some("sn64g".into());
        doc.target.device = Some(d);
        assert_eq!(
            doc.identity().device_key.as_deref(),
            Some("sandisk-sn64g-64gb")
        );
    }

    #[test]
    fn a_usb2_stick_faster_than_its_link_is_flagged() {
        let mut doc = sample::doc();
        let mut d = device();
        d.transport = Some("usb".into());
        d.vendor = Some("Generic".into());
        d.model = Some("Flash Disk".into());
        let mut usb: Usb = serde_json::from_value(serde_json::json!({})).unwrap();
        usb.speed_mbps = Some(480.0);
        d.usb = Some(usb);
        doc.target.device = Some(d);
        let id = doc.identity();
        assert_eq!(id.kind, "USB flash");
        assert_eq!(id.device_name, "Flash Disk");
        let flag = id.flag.expect("flagged");
        assert!(
            flag.contains("480 Mbit/s carries at most 60 MB/s"),
            "{flag}"
        );
        // At 20 Gbit/s the same figures are possible.
        doc.target
            .device
            .as_mut()
            .unwrap()
            .usb
            .as_mut()
            .unwrap()
            .speed_mbps = Some(20000.0);
        let fast = doc.tests.iter().map(|t| t.mb_per_s).fold(0.0, f64::max);
        assert!(fast < 2500.0, "the sample stays under 2500 MB/s: {fast}");
        assert_eq!(doc.identity().flag, None);
    }

    #[test]
    fn marketing_sizes() {
        assert_eq!(marketing_gb(31_914_983_424), Some(32));
        assert_eq!(marketing_gb(1_000_204_886_016), Some(1000));
        assert_eq!(marketing_gb(500_107_862_016), Some(500));
        assert_eq!(marketing_gb(511_801_311_232), Some(512));
        assert_eq!(marketing_gb(59_504_803_840), Some(64));
        assert_eq!(marketing_gb(240_057_409_536), Some(240));
        assert_eq!(marketing_gb(4096), None);
        assert_eq!(
            slug("  Kingston  DataTraveler/3.0 "),
            "kingston-datatraveler-3-0"
        );
    }
}
