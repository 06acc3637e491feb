//! Whether a block device is in use: mounted (itself or any partition of it), a member of a
//! device-mapper or md device (LVM, LUKS, RAID), or swap. Asked before anything reads or writes
//! a raw device; the kernel's own exclusive open (`O_EXCL` on a block device) is the second
//! lock, taken by the caller.

use std::path::Path;

use super::mounts;
use super::sysfs::{read, resolve};

/// Why `major_minor` (`"7:0"`) must not be touched, or `None` if nothing uses it.
pub fn in_use(root: &Path, major_minor: &str) -> Option<String> {
    let node = resolve(&root.join("sys/dev/block").join(major_minor))?;
    // The device and, for a disk, each of its partitions.
    let mut family = vec![node.clone()];
    if let Ok(entries) = std::fs::read_dir(&node) {
        for entry in entries.flatten() {
            if entry.path().join("partition").exists() {
                family.push(entry.path());
            }
        }
    }
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let numbers: Vec<(String, String)> = family
        .iter()
        .filter_map(|p| Some((read(&p.join("dev"))?, name(p))))
        .collect();
    if let Ok(table) = mounts::read(root) {
        for mount in &table {
            let by_number = numbers.iter().find(|(n, _)| *n == mount.device);
            let by_source = numbers
                .iter()
                .find(|(_, dev)| mount.source == format!("/dev/{dev}"));
            if let Some((_, dev)) = by_number.or(by_source) {
                return Some(format!(
                    "/dev/{dev} is mounted at {} (unmount it first)",
                    mount.mount_point.display()
                ));
            }
        }
    }
    for member in &family {
        if let Ok(holders) = std::fs::read_dir(member.join("holders")) {
            if let Some(holder) = holders.flatten().next() {
                return Some(format!(
                    "/dev/{} is in use by {} (device-mapper or RAID: LVM, LUKS, md)",
                    name(member),
                    holder.file_name().to_string_lossy()
                ));
            }
        }
    }
    if let Ok(swaps) = std::fs::read_to_string(root.join("proc/swaps")) {
        for line in swaps.lines().skip(1) {
            let Some(source) = line.split_whitespace().next() else {
                continue;
            };
            if let Some((_, dev)) = numbers
                .iter()
                .find(|(_, dev)| source == format!("/dev/{dev}"))
            {
                return Some(format!("/dev/{dev} is in use as swap"));
            }
        }
    }
    None
}
