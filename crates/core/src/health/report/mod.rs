//! What a device reports of its own wear and errors (issue 48), where it reports any: an eMMC's
//! life estimates (`emmc.rs`, sysfs, anyone may read them), an NVMe drive's SMART / health log
//! (`nvme.rs`, an admin command, root's), an ATA drive's SMART data through the SCSI/ATA
//! translation (`ata.rs`, SG_IO, root's; libata's disks, and USB bridges that say they translate).
//! An SD card reports nothing. Each file's `decode` is a function of the device's answer alone,
//! tested on answers captured from real controllers (QEMU's, booted in `tests/virtual-pi`).

pub mod ata;
pub mod emmc;
pub mod nvme;

use std::path::Path;

use iomark_result::result::health::{DeviceReport, Signal, State};
use iomark_result::result::Transport;

/// Why a device's report was not read: it has one, but this process may not ask for it.
pub const NEEDS_ROOT: &str = "needs root";

/// The report of the disk whose sysfs node is `disk` (`/sys/devices/…/sda`, a partition's
/// parent), named `name` in `/dev`: none where the device reports nothing iomark can ask for;
/// an error saying why where it has one that could not be read.
pub fn read(root: &Path, disk: &Path, name: &str) -> Option<Result<DeviceReport, String>> {
    let device = disk.join("device");
    if device.join("life_time").exists() || device.join("pre_eol_info").exists() {
        let text = |file: &str| std::fs::read_to_string(device.join(file)).ok();
        return emmc::decode(
            text("life_time").as_deref(),
            text("pre_eol_info").as_deref(),
        )
        .map(Ok);
    }
    let node = root.join("dev").join(name);
    // The bus as the probe settles it, from the disk's place in the device tree.
    let placed = std::fs::canonicalize(disk).unwrap_or_else(|_| disk.to_path_buf());
    let transport = crate::probe::block::transport(&placed);
    if transport == Transport::Nvme {
        return Some(nvme::read(&node));
    }
    // Only where the kernel found the SCSI/ATA translation (libata's "ATA" vendor, or a
    // bridge that gave the ATA Information page): a USB stick is never sent an ATA command.
    let vendor = std::fs::read_to_string(device.join("vendor")).unwrap_or_default();
    let translated = vendor.trim() == "ATA" || device.join("vpd_pg89").exists();
    if matches!(
        transport,
        Transport::Sata | Transport::Usb | Transport::Scsi
    ) && translated
    {
        return ata::read(&node).transpose();
    }
    None
}

/// The report as a signal: healthy, watch or failing as the device says, with its figures.
pub fn signal(report: &DeviceReport) -> Signal {
    let state = match report.says.as_str() {
        "failing" => State::Failing,
        "warning" => State::Watch,
        _ => State::Healthy,
    };
    let mut said = Vec::new();
    if let Some(used) = report.life_used_percent {
        said.push(format!("{used}% of its rated life used"));
    }
    if let Some(pre) = &report.pre_eol {
        said.push(format!("its reserved blocks {pre}"));
    }
    if let (Some(spare), Some(threshold)) = (report.spare_percent, report.spare_threshold_percent) {
        said.push(format!("{spare}% spare (it warns below {threshold}%)"));
    }
    if let Some(bits) = report.critical_warning.filter(|b| *b != 0) {
        said.push(format!("critical warning {bits:#04x}"));
    }
    for (count, what) in [
        (report.media_errors, "media errors"),
        (report.reallocated_sectors, "sectors reallocated"),
        (report.pending_sectors, "sectors waiting to be"),
        (report.uncorrectable_sectors, "sectors unreadable"),
    ] {
        if let Some(n) = count {
            said.push(format!("{n} {what}"));
        }
    }
    if report.threshold_exceeded == Some(true) {
        said.push("an attribute past its threshold (the drive predicts its failure)".into());
    }
    let source = match report.source.as_str() {
        "emmc" => "the eMMC says",
        "nvme" => "the NVMe drive's health log says",
        _ => "the drive's SMART says",
    };
    Signal {
        name: "device_report".into(),
        state,
        evidence: match said.is_empty() {
            true => format!("{source} nothing of its wear"),
            false => format!("{source} {}", said.join(", ")),
        },
    }
}

/// Bytes as lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Little-endian unsigned integer of up to 16 bytes, saturated to u64.
pub(crate) fn le(bytes: &[u8]) -> u64 {
    let value = bytes
        .iter()
        .rev()
        .fold(0u128, |v, b| (v << 8) | u128::from(*b));
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// The bytes a captured answer's hex holds (tests/fixtures/smart/).
#[cfg(test)]
pub(crate) fn unhex(text: &str) -> Vec<u8> {
    let text = text.trim();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}
