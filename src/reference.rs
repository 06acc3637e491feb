//! Published figures iomark's reports are set beside, each labelled with its source.
//!
//! The 2019 figures (MiB/s) for each language's default program, from the published experiment
//! (`shared/reference/language-io-2019.csv`): a laptop (i7, SATA SSD, ext4) and a Raspberry Pi
//! 3B (class 10 SD card, ext4). 256 MiB, 6 reps, reps 2-6 averaged, page cache warm.

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
