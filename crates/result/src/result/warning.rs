//! Warnings: what a run's figures need said beside them, each with a stable kind.
//!
//! Every kind iomark raises is a [`WarningKind`]; the document stores its name (`kind`) and a
//! message that says what happened and what to do. A document from elsewhere may carry kinds
//! this version does not know; they are kept as they came.

use serde::{Deserialize, Serialize};

use super::Extra;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// A stable machine name: one of [`WarningKind`]'s.
    pub kind: String,
    /// What happened and what to do about it.
    pub message: String,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Warning {
            extra: Default::default(),
            kind: kind.as_str().into(),
            message: message.into(),
        }
    }
}

impl super::ResultDoc {
    /// Whether the run raised a warning of this kind.
    pub fn warned(&self, kind: WarningKind) -> bool {
        self.warnings.iter().any(|w| w.kind == kind.as_str())
    }
}

/// Every kind of warning iomark raises, with the name the document stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarningKind {
    // How the run was measured.
    /// The filesystem refused `O_DIRECT`; buffered I/O with fsync and eviction was used.
    DirectIoUnavailable,
    /// io_uring could not be set up; psync ran instead.
    EngineFallback,

    // What the figures show.
    /// A figure faster than the device or its link can be: a cache answered.
    ProbablyCached,
    /// Loops of one test differed by more than 10% (coefficient of variation).
    HighVariation,
    /// The pi profile ran with another file size: its score is not comparable with
    /// pibenchmarks.com.
    PiScoreNotComparable,
    /// An SD card failed a class it claims (sdcard profile).
    FailsClaimedClass,
    /// A surface scan over a test file: positions are the file's, not the device's.
    SurfaceOverFile,

    // Where the target is (from the probe).
    /// tmpfs or ramfs: RAM, not storage.
    RamFilesystem,
    /// overlayfs: writes go to an upper layer.
    OverlayFilesystem,
    /// NFS, SMB, 9p, virtiofs…: the network and server are measured too.
    NetworkFilesystem,
    /// btrfs, zfs, bcachefs: copy-on-write changes random writes.
    CopyOnWrite,
    /// The filesystem compresses data.
    Compression,
    /// The filesystem sits on an encrypted volume.
    Encryption,

    // What holds the device back (from the probe).
    /// A USB link at USB 2.0 speed or slower.
    Usb2Link,
    /// A USB drive on usb-storage, not UAS.
    NoUas,
    /// An SD bus not in a UHS mode.
    SdBusNotUhs,
    /// An NVMe drive's PCIe link below its maximum.
    PcieLinkDegraded,
    /// A CPU governor other than `performance` on a small board.
    CpuGovernor,
    /// Under-voltage or throttling reported by a Raspberry Pi's firmware.
    Throttled,

    // What a public site did with it.
    /// Timelines merged, or a surface scan's readings thinned, to what a site keeps.
    Thinned,
}

impl WarningKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::DirectIoUnavailable => "direct_io_unavailable",
            WarningKind::EngineFallback => "engine_fallback",
            WarningKind::ProbablyCached => "probably_cached",
            WarningKind::HighVariation => "high_variation",
            WarningKind::PiScoreNotComparable => "pi_score_not_comparable",
            WarningKind::FailsClaimedClass => "fails_claimed_class",
            WarningKind::RamFilesystem => "ram_filesystem",
            WarningKind::OverlayFilesystem => "overlay_filesystem",
            WarningKind::NetworkFilesystem => "network_filesystem",
            WarningKind::CopyOnWrite => "copy_on_write",
            WarningKind::Compression => "compression",
            WarningKind::Encryption => "encryption",
            WarningKind::Usb2Link => "usb2_link",
            WarningKind::NoUas => "no_uas",
            WarningKind::SdBusNotUhs => "sd_bus_not_uhs",
            WarningKind::PcieLinkDegraded => "pcie_link_degraded",
            WarningKind::CpuGovernor => "cpu_governor",
            WarningKind::Throttled => "throttled",
            WarningKind::SurfaceOverFile => "surface_over_file",
            WarningKind::Thinned => "thinned",
        }
    }
}
