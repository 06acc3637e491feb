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

#[cfg(test)]
mod tests {
    use super::*;

    /// A root with one disk, `loop0` (7:0), and its partition `loop0p1` (259:0).
    fn tree() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join("sys/devices/virtual/block/loop0");
        std::fs::create_dir_all(disk.join("loop0p1/holders")).unwrap();
        std::fs::create_dir_all(disk.join("holders")).unwrap();
        std::fs::write(disk.join("dev"), "7:0\n").unwrap();
        std::fs::write(disk.join("loop0p1/dev"), "259:0\n").unwrap();
        std::fs::write(disk.join("loop0p1/partition"), "1\n").unwrap();
        std::fs::create_dir_all(root.path().join("sys/dev/block")).unwrap();
        std::os::unix::fs::symlink(&disk, root.path().join("sys/dev/block/7:0")).unwrap();
        std::fs::create_dir_all(root.path().join("proc/self")).unwrap();
        std::fs::write(root.path().join("proc/self/mountinfo"), "").unwrap();
        std::fs::write(
            root.path().join("proc/swaps"),
            "Filename\tType\tSize\tUsed\tPriority\n",
        )
        .unwrap();
        root
    }

    // Swap and device-mapper holders are read from a tree of the kernel's files rather than set
    // up for real: a swap on a RAM-backed loop device can take the machine's pages under
    // memory pressure and hang (it did, once, in CI), and this sandbox has no device-mapper.
    #[test]
    fn a_partition_in_swap_or_held_by_device_mapper_is_in_use() {
        let root = tree();
        assert_eq!(in_use(root.path(), "7:0"), None);
        std::fs::write(
            root.path().join("proc/swaps"),
            "Filename\tType\tSize\tUsed\tPriority\n/dev/loop0p1 partition 65532 0 -2\n",
        )
        .unwrap();
        assert_eq!(
            in_use(root.path(), "7:0").as_deref(),
            Some("/dev/loop0p1 is in use as swap")
        );
        let root = tree();
        let holders = root
            .path()
            .join("sys/devices/virtual/block/loop0/loop0p1/holders");
        std::fs::create_dir(holders.join("dm-0")).unwrap();
        let reason = in_use(root.path(), "7:0").unwrap();
        assert!(
            reason.starts_with("/dev/loop0p1 is in use by dm-0"),
            "{reason}"
        );
        let root = tree();
        std::fs::write(
            root.path().join("proc/self/mountinfo"),
            "36 25 259:0 / /media/card rw,relatime shared:1 - ext4 /dev/loop0p1 rw\n",
        )
        .unwrap();
        assert_eq!(
            in_use(root.path(), "7:0").as_deref(),
            Some("/dev/loop0p1 is mounted at /media/card (unmount it first)")
        );
    }
}
