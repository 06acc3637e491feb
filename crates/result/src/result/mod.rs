//! The result document, schema `iomark.result/1` (docs/ARCHITECTURE.md, "Contracts").
//!
//! Field names are a contract: fields may be added within `/1`, never renamed or dropped.
//! Every run produces one document; `--json` writes it, the store keeps it, `import` reads it
//! back. Units: `mb_per_s` is 10^6 bytes/s, latencies microseconds, sizes bytes, times RFC 3339.

pub mod agnostics;
mod document_error;
pub mod drive;
pub mod health;
mod id;
pub mod identity;
mod info;
pub mod langs;
mod link;
pub mod metric;
mod names;
mod public;
pub mod reason;
mod rows;
#[cfg(any(test, feature = "sample"))]
pub mod sample;
pub mod score;
mod shape;
mod summary;
mod thin;
pub mod time;
mod timeline;
pub mod token;
mod transport;
mod unknown;
pub mod validate;
pub mod verify;
pub mod warning;

use serde::{Deserialize, Serialize};

pub use id::*;
pub use identity::Identity;
pub use info::Info;
pub use names::{fit_text, printable};
pub use public::public_device_name;
pub use public::{
    changed_texts, each_text, hide_private_paths, public_kernel, public_mount_options,
};
pub use reason::Reason;
pub use rows::{rows, test_names, TestRow};
pub use score::Score;
pub use shape::shape;
pub use summary::Summary;
pub use thin::SITE_KEEPS;
pub use timeline::{per_second, sample_lengths};
pub use transport::Transport;
pub use validate::{check_label, check_sold_as, DocumentError};
pub use warning::{Warning, WarningKind};

pub const SCHEMA: &str = "iomark.result/1";

/// A document's fields that this version does not know, at any level: the schema lets a newer
/// iomark add fields within `/1`, and importing its document and exporting it again keeps them.
pub type Extra = serde_json::Map<String, serde_json::Value>;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResultDoc {
    pub schema: String,
    /// A ULID: unique, and sorts by creation time.
    pub id: String,
    pub tool: Tool,
    pub started_at: String,
    pub finished_at: String,
    pub label: Option<String>,
    pub price_usd: Option<f64>,
    /// What the device is sold as, in its owner's words (`iomark submit --model`), e.g.
    /// `SanDisk Extreme 64GB A2`, where the device names itself only by a code (an SD card's
    /// register name): a site finds the device by it, and names the device so once several
    /// results agree (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sold_as: Option<String>,
    pub host: Host,
    pub target: Target,
    pub settings: Settings,
    pub tests: Vec<TestResult>,
    pub warnings: Vec<Warning>,
    /// Profile-specific derived figures (the pi score, SD class verdicts…); null for standard.
    pub score: Option<Score>,
    /// `iomark langs`: each language's byte-at-a-time write and read (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub langs: Option<langs::Section>,
    /// `iomark verify`: whether the device holds what it claims and gives back what it was
    /// given (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<verify::Section>,
    /// `iomark health`: one check of whether the device still keeps what it is given (added
    /// within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<health::Section>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Tool {
    pub fn this() -> Self {
        Tool {
            extra: Default::default(),
            name: "iomark".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Host {
    pub board: Option<String>,
    pub cpu_model: Option<String>,
    pub cpu_cores: Option<u32>,
    pub memory_bytes: Option<u64>,
    pub kernel: Option<String>,
    pub os: Option<String>,
    pub arch: String,
    /// cpufreq governor of CPU 0 (added within /1).
    pub cpu_governor: Option<String>,
    /// The CPU's maximum frequency in MHz (added within /1).
    pub cpu_max_mhz: Option<u64>,
    /// Raspberry Pi firmware's throttling word (`get_throttled`): under-voltage and throttling,
    /// now and since boot (added within /1).
    pub throttled: Option<String>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Target {
    pub path: String,
    pub filesystem: Option<String>,
    pub mount_options: Option<String>,
    pub free_bytes: Option<u64>,
    pub device: Option<Device>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The block device under the target; `null` where there is none (tmpfs, network filesystems).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// The disk's kernel name (`sda`, `mmcblk0`, `nvme0n1`), below any partition, device-mapper
    /// or md layer.
    pub name: Option<String>,
    pub model: Option<String>,
    pub vendor: Option<String>,
    /// A salted SHA-256 of the serial number, so that results from one device can be matched
    /// without the serial itself ever being stored or sent.
    pub serial_hash: Option<String>,
    pub size_bytes: Option<u64>,
    /// usb, mmc, nvme, sata, scsi, virtio, loop or other.
    pub transport: Option<Transport>,
    pub rotational: Option<bool>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    /// The I/O scheduler in use (added within /1).
    pub scheduler: Option<String>,
    /// The layers between the filesystem and the disk, top first, e.g. `["dm-0 (LUKS)",
    /// "sda2 (partition)"]` (added within /1).
    #[serde(default)]
    pub stack: Vec<String>,
    /// For a loop device: the file behind it (added within /1).
    pub backing_file: Option<String>,
    /// The drive's own model from its ATA IDENTIFY answer (VPD page 0x89), where a USB bridge
    /// or libata shortens `model` or puts its own name there (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_model: Option<String>,
    /// The drive's own answer for its rotation: 0 for solid state, else revolutions per minute
    /// (VPD page 0xB1 or ATA IDENTIFY word 217). Absent when it gave none; `rotational` is then
    /// only the kernel's default, 1 for most USB sticks (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation_rpm: Option<u32>,
    pub usb: Option<Usb>,
    pub sd: Option<Sd>,
    /// For an NVMe drive (added within /1).
    pub nvme: Option<Nvme>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Device {
    /// What kind of device it is (`USB flash`, `SATA SSD`…), as a leaderboard files it.
    pub fn kind(&self) -> &'static str {
        drive::kind(self)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usb {
    /// The negotiated link: 1.5, 12, 480 (USB 2.0), 5000, 10000 or 20000 Mbps.
    pub speed_mbps: Option<f64>,
    /// `uas` or `usb-storage`.
    pub driver: Option<String>,
    pub vendor_id: Option<String>,
    pub product_id: Option<String>,
    pub product: Option<String>,
    pub manufacturer: Option<String>,
    /// The USB-to-SATA/NVMe bridge chip, where its ids are known.
    pub bridge: Option<String>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// An SD card or eMMC, decoded from the registers the kernel exposes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sd {
    /// SD or MMC.
    pub kind: Option<String>,
    pub manufacturer: Option<String>,
    pub manfid: Option<String>,
    pub oemid: Option<String>,
    pub product: Option<String>,
    pub revision: Option<String>,
    /// Manufacturing month, `YYYY-MM`.
    pub date: Option<String>,
    /// SDSC, SDHC, SDXC or SDUC, from the CSD and the size.
    pub capacity_class: Option<String>,
    /// Physical layer specification version, from the SCR.
    pub spec_version: Option<String>,
    /// The classes the card claims in its SD Status register: C2…C10, U1/U3, V6…V90, A1/A2.
    #[serde(default)]
    pub claimed_classes: Vec<String>,
    /// Bus timing and clock, from debugfs (root only).
    pub bus_timing: Option<String>,
    pub bus_clock_hz: Option<u64>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Nvme {
    pub model: Option<String>,
    pub firmware: Option<String>,
    /// e.g. `8.0 GT/s PCIe`.
    pub link_speed: Option<String>,
    pub link_width: Option<u32>,
    pub max_link_speed: Option<String>,
    pub max_link_width: Option<u32>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    pub profile: String,
    pub file_size_bytes: u64,
    /// The size planned, where the device wrote too slowly to fill it in 10 s and the file was
    /// cut to `file_size_bytes` (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_cut_from_bytes: Option<u64>,
    /// Loops per test; with `loops_auto`, the most a test could take.
    pub loops: u32,
    /// `--loops auto`: each test added loops until the 95% confidence interval of their mean
    /// was within ±2.5% (added within /1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub loops_auto: bool,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// The backend that ran: io_uring, psync or null.
    pub engine: String,
    /// Whether I/O bypassed the page cache (O_DIRECT).
    pub direct: bool,
    /// random or zero.
    pub data: String,
    /// For profiles that count I/Os instead of timing them (latency): I/Os per loop (added
    /// within /1).
    pub count: Option<u64>,
    /// `--poll`: a single thread at queue depth 1 polled for its I/O rather than sleeping, so
    /// its figures leave out the CPU's wake-up, unlike fio's and CrystalDiskMark's defaults
    /// (added within /1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub polled: bool,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestResult {
    /// e.g. `SEQ1M_Q8T1_read`, `RND4K_Q1T1_write`.
    pub name: String,
    /// seq or rand.
    pub kind: String,
    /// read, write or mixed.
    pub op: String,
    pub block_size: u64,
    pub queue_depth: u32,
    pub threads: u32,
    /// Of the reported loop: the median loop by throughput (the lower one of the middle two
    /// for an even count), so that `mb_per_s == iops * block_size / 10^6` holds exactly.
    pub mb_per_s: f64,
    pub iops: f64,
    /// Over every I/O of every timed loop (warm-up excluded).
    pub latency_us: Latency,
    pub loops: Vec<Loop>,
    /// Coefficient of variation of the loops' MB/s (sample standard deviation / mean).
    pub cv: f64,
    /// With `--loops auto`: the half-width of the 95% confidence interval of the loops' mean
    /// MB/s, in percent of it (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_ci95_pct: Option<f64>,
    /// CPU time of the whole process during the timed loops.
    pub cpu: Cpu,
    /// MB/s per second of the timed loops, loop after loop.
    pub timeline: Vec<TimelineSample>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// The fastest I/O (added within /1; a near-zero minimum betrays a cache).
    #[serde(default)]
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
    /// Standard deviation (added within /1).
    #[serde(default)]
    pub stddev: f64,
    /// How many I/Os took how long, for tests that count their I/Os (the latency profile;
    /// added within /1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histogram: Vec<Bucket>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One bar of a latency histogram: the I/Os slower than the previous bucket's bound and at most
/// this one's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    pub le_us: f64,
    pub count: u64,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loop {
    pub mb_per_s: f64,
    pub iops: f64,
    pub bytes: u64,
    pub ios: u64,
    pub seconds: f64,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    pub user_s: f64,
    pub sys_s: f64,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineSample {
    /// Seconds since the first timed loop began (loops laid end to end). Samples are whole
    /// seconds, or tenths (up to halves) of a second for a test whose timed loops lasted under
    /// 10 s (a site may merge them into longer ones: warning `thinned`); a sample lasts until
    /// the next one's `t`.
    pub t: f64,
    pub mb_per_s: f64,
    /// The drive's temperature (else the hottest thermal zone's) during that second, in °C, for
    /// tests that sample it (sustained writes; added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c: Option<f64>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

impl TestResult {
    /// The timeline's MB/s per whole second (see [`per_second`]).
    pub fn timeline_seconds(&self) -> Vec<f64> {
        per_second(&self.timeline)
            .into_iter()
            .map(|s| s.mb_per_s)
            .collect()
    }

    /// The loop-to-loop spread as a percentage (`2.3%`), or `–` for a single loop, whose
    /// spread is unknown (not zero).
    /// The loop-to-loop variation (the coefficient of variation), known only with two loops or
    /// more: one loop's `cv` of 0 is not a spread of none.
    pub fn loop_spread(&self) -> Option<f64> {
        (self.loops.len() >= 2).then_some(self.cv)
    }

    pub fn spread_text(&self) -> String {
        match self.loop_spread() {
            Some(cv) => format!("{:.1}%", cv * 100.0),
            None => "–".into(),
        }
    }
}

impl ResultDoc {
    /// A new document, with a new id, finished now, for a run measured as `settings` say; the
    /// caller adds its tests, warnings, score and label.
    pub fn new(host: Host, target: Target, started_at: String, settings: Settings) -> Self {
        ResultDoc {
            extra: Default::default(),
            schema: SCHEMA.into(),
            id: new_id(),
            tool: Tool::this(),
            started_at,
            finished_at: now_rfc3339(),
            label: None,
            price_usd: None,
            sold_as: None,
            host,
            target,
            settings,
            tests: Vec::new(),
            warnings: Vec::new(),
            score: None,
            langs: None,
            verify: None,
            health: None,
        }
    }

    /// The test of that name (`SEQ1M_Q8T1_read`), if the run had it.
    pub fn test(&self, name: &str) -> Option<&TestResult> {
        self.tests.iter().find(|t| t.name == name)
    }

    /// The four standard figures of history listings: SEQ1M Q8T1 read and write MB/s, RND4K
    /// Q1T1 read and write IOPS; absent where the profile did not run that test.
    pub fn standard_figures(&self) -> StandardFigures {
        StandardFigures {
            seq_read_mb_per_s: self.test("SEQ1M_Q8T1_read").map(|t| t.mb_per_s),
            seq_write_mb_per_s: self.test("SEQ1M_Q8T1_write").map(|t| t.mb_per_s),
            rnd_read_iops: self.test("RND4K_Q1T1_read").map(|t| t.iops),
            rnd_write_iops: self.test("RND4K_Q1T1_write").map(|t| t.iops),
        }
    }

    /// The score's `total`, for profiles that have one (pi).
    pub fn score_total(&self) -> Option<i64> {
        match self.score.as_ref()? {
            Score::Pi(pi) => pi.total.map(|t| t as i64),
            _ => None,
        }
    }
}

/// See [`ResultDoc::standard_figures`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StandardFigures {
    pub seq_read_mb_per_s: Option<f64>,
    pub seq_write_mb_per_s: Option<f64>,
    pub rnd_read_iops: Option<f64>,
    pub rnd_write_iops: Option<f64>,
}
