//! Published figures iomark's reports are set beside, each labelled with its source.
//!
//! The 2019 figures (MiB/s) for each language's default program, from the published experiment
//! (`shared/reference/language-io-2019.csv`): a laptop (i7, SATA SSD, ext4) and a Raspberry Pi
//! 3B (class 10 SD card, ext4). 256 MiB, 6 reps, reps 2-6 averaged, page cache warm.

use serde::Serialize;

pub struct Reference {
    pub lang: &'static str,
    pub machine: &'static str,
    pub runtime: &'static str,
    pub write_mib_s: f64,
    pub read_mib_s: f64,
}

pub const REFERENCE: &[Reference] = &[
    Reference {
        lang: "cpp",
        machine: "laptop",
        runtime: "g++ 7.3.0",
        write_mib_s: 60.38,
        read_mib_s: 120.30,
    },
    Reference {
        lang: "go",
        machine: "laptop",
        runtime: "go 1.11.5",
        write_mib_s: 265.89,
        read_mib_s: 317.29,
    },
    Reference {
        lang: "python",
        machine: "laptop",
        runtime: "python 3.7.2",
        write_mib_s: 6.22,
        read_mib_s: 12.44,
    },
    Reference {
        lang: "ruby",
        machine: "laptop",
        runtime: "ruby 2.5.3",
        write_mib_s: 5.44,
        read_mib_s: 10.33,
    },
    Reference {
        lang: "scala",
        machine: "laptop",
        runtime: "scala 2.12.8 on zulu 8",
        write_mib_s: 328.25,
        read_mib_s: 347.71,
    },
    Reference {
        lang: "cpp",
        machine: "pi3b",
        runtime: "g++ 6.3.0",
        write_mib_s: 5.01,
        read_mib_s: 10.58,
    },
    Reference {
        lang: "go",
        machine: "pi3b",
        runtime: "go 1.11.5",
        write_mib_s: 13.99,
        read_mib_s: 24.35,
    },
    Reference {
        lang: "python",
        machine: "pi3b",
        runtime: "python 3.5",
        write_mib_s: 0.35,
        read_mib_s: 0.49,
    },
    Reference {
        lang: "ruby",
        machine: "pi3b",
        runtime: "ruby 2.5.3",
        write_mib_s: 0.42,
        read_mib_s: 0.81,
    },
    Reference {
        lang: "scala",
        machine: "pi3b",
        runtime: "scala 2.12.7 on openjdk 8",
        write_mib_s: 7.13,
        read_mib_s: 6.67,
    },
];

/// The 2019 figure for a language's default program on that machine (`laptop` or `pi3b`).
pub fn find(lang: &str, machine: &str) -> Option<&'static Reference> {
    REFERENCE
        .iter()
        .find(|r| r.lang == lang && r.machine == machine)
}

/// Published figures for one device, from a benchmark that was not iomark's (so they are shown
/// beside iomark's results, never among them), in the units the source printed.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceFigures {
    pub device: &'static str,
    pub host: &'static str,
    /// The kind, as iomark names kinds.
    pub kind: &'static str,
    /// What was measured, with its figure and unit, as the source gives it.
    pub figures: &'static [(&'static str, f64, &'static str)],
    pub source: &'static str,
}

const CHAMBERS_2019: &str =
    "jamesachambers.com, Raspberry Pi 3B+ MicroSD / SSD Speed Benchmarks (2019): dd and iozone";
const GEERLING_2020: &str =
    "jeffgeerling.com, The fastest USB storage options for Raspberry Pi (2020): hdparm and iozone";

macro_rules! pi3 {
    ($device:expr, $kind:expr, $dd:expr, $rr:expr, $rw:expr) => {
        DeviceFigures {
            device: $device,
            host: "Raspberry Pi 3B+",
            kind: $kind,
            figures: &[
                ("dd sequential write", $dd, "MB/s"),
                ("iozone 4K random read", $rr, "KB/s"),
                ("iozone 4K random write", $rw, "KB/s"),
            ],
            source: CHAMBERS_2019,
        }
    };
}

macro_rules! pi4 {
    ($device:expr, $kind:expr, $seq:expr, $rr:expr, $rw:expr) => {
        DeviceFigures {
            device: $device,
            host: "Raspberry Pi 4",
            kind: $kind,
            figures: &[
                ("hdparm sequential read", $seq, "MB/s"),
                ("iozone 4K random read", $rr, "MB/s"),
                ("iozone 4K random write", $rw, "MB/s"),
            ],
            source: GEERLING_2020,
        }
    };
}

/// From `shared/reference/pi-storage-2019.csv` and `usb-storage-2020.csv`.
pub const DEVICES: &[DeviceFigures] = &[
    pi3!("EMTEC microSD", "microSD", 8.4, 6422.0, 205.0),
    pi3!("Samsung Evo+ microSD", "microSD", 7.3, 4768.0, 761.0),
    pi3!("SanDisk Ultra microSD", "microSD", 13.6, 9247.0, 2686.0),
    pi3!("Samsung Evo microSD", "microSD", 16.6, 10297.0, 3329.0),
    pi3!("Samsung Pro Plus microSD", "microSD", 23.5, 10189.0, 2115.0),
    pi3!(
        "SanDisk Cruzer USB flash drive",
        "USB flash",
        4.7,
        3989.0,
        1116.0
    ),
    pi3!(
        "SanDisk Extreme USB flash drive",
        "USB flash",
        16.1,
        7339.0,
        9077.0
    ),
    pi3!("Hynix mSATA SSD over USB", "USB SSD", 35.5, 9231.0, 11401.0),
    pi3!(
        "Crucial 2.5in SATA SSD over USB",
        "USB SSD",
        35.1,
        10167.0,
        11419.0
    ),
    pi4!(
        "Inland Premium 256GB NVMe 3.0 x4 SSD (USB enclosure)",
        "USB SSD",
        308.46,
        19.41,
        31.80
    ),
    pi4!(
        "SanDisk 128GB Extreme Pro USB 3.1 flash drive",
        "USB flash",
        221.08,
        10.96,
        11.51
    ),
    pi4!(
        "eMMC 5.1 module in USB 3.1 adapter",
        "USB flash",
        113.11,
        8.28,
        4.84
    ),
    pi4!("Netac Z8 250GB SM2258XT", "USB SSD", 299.05, 20.48, 31.47),
    pi4!(
        "Inland Pro 120GB PS3111-S11",
        "USB SSD",
        313.05,
        18.59,
        24.66
    ),
    pi4!("eVtran 128GB ASM1153E", "USB SSD", 334.49, 19.14, 29.40),
];

/// Published figures for devices of the same kind and make as `name` (its first word), the
/// ones that share more of its words first.
pub fn device_figures(name: &str, kind: &str) -> Vec<&'static DeviceFigures> {
    let words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let Some(make) = words.first() else {
        return Vec::new();
    };
    let shared = |d: &DeviceFigures| {
        d.device
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| words.iter().any(|x| x.eq_ignore_ascii_case(w)))
            .count()
    };
    let mut found: Vec<&DeviceFigures> = DEVICES
        .iter()
        .filter(|d| d.kind == kind)
        .filter(|d| {
            d.device
                .split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case(make))
        })
        .collect();
    found.sort_by_key(|d| std::cmp::Reverse(shared(d)));
    found
}

#[cfg(test)]
mod device_tests {
    use super::*;

    #[test]
    fn figures_of_the_same_make_and_kind() {
        let found = device_figures("SanDisk Ultra SC64G 64 GB", "microSD");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].device, "SanDisk Ultra microSD");
        let found = device_figures("SanDisk Extreme 128 GB", "USB flash");
        assert_eq!(found[0].device, "SanDisk Extreme USB flash drive");
        assert_eq!(found.len(), 3);
        assert!(device_figures("Kingston DataTraveler", "USB flash").is_empty());
    }
}
