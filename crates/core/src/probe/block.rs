//! The block device under a filesystem, followed down to the disk.
//!
//! `mountinfo` gives the filesystem's `major:minor`; `/sys/dev/block/MAJ:MIN` links to its
//! node in the device tree. From there: a partition's disk is its parent directory; a
//! device-mapper volume (LUKS, LVM) and an md array name their members under
//! `/sys/block/NAME/slaves/`; a loop device names its backing file. The path of the disk's node tells the transport (a USB bridge
//! sits above `host0/target0:0:0` in the path; an SD card under `mmc_host`). All of it is
//! documented in the kernel's sysfs ABI (Documentation/ABI/testing/sysfs-block).

use std::path::{Path, PathBuf};

use super::sysfs::{parse_u64, read, resolve, selected, trim};
use iomark_result::result::{serial_hash, Device, Transport};

/// The device behind `major_minor` (`"8:2"`), or `None` where the filesystem has no block device
/// (tmpfs, proc, network filesystems: their major is 0).
pub fn device(root: &Path, major_minor: &str) -> Option<Device> {
    if major_minor.starts_with("0:") {
        return None;
    }
    let node = resolve(&root.join("sys/dev/block").join(major_minor))?;
    Some(from_node(root, node))
}

/// The device named `name` (`sda2`, `mapper/…` is not a kernel name), for filesystems whose
/// mountinfo device number is anonymous (btrfs) but whose source is `/dev/NAME`.
pub fn device_named(root: &Path, name: &str) -> Option<Device> {
    let node = resolve(&root.join("sys/class/block").join(name))?;
    Some(from_node(root, node))
}

fn from_node(root: &Path, mut node: PathBuf) -> Device {
    let mut stack = Vec::new();
    // Walk down at most a few layers: partition → disk, dm → member, md → member.
    for _ in 0..8 {
        let name = file_name(&node);
        if node.join("partition").exists() {
            stack.push(format!("{name} (partition)"));
            match node.parent() {
                Some(parent) => node = parent.to_path_buf(),
                None => break,
            }
        } else if name.starts_with("dm-") {
            stack.push(format!("{name} ({})", dm_kind(&node)));
            match first_member(&node) {
                Some(member) => node = member,
                None => break,
            }
        } else if node.join("md").is_dir() {
            let level = read(&node.join("md/level")).unwrap_or_else(|| "md".into());
            stack.push(format!("{name} ({level})"));
            match first_member(&node) {
                Some(member) => node = member,
                None => break,
            }
        } else {
            break;
        }
    }
    describe(root, &node, stack)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What a device-mapper volume is, from its uuid prefix (`CRYPT-LUKS2-…`, `LVM-…`).
fn dm_kind(node: &Path) -> String {
    let uuid = read(&node.join("dm/uuid")).unwrap_or_default();
    if uuid.starts_with("CRYPT-LUKS") {
        "LUKS".into()
    } else if uuid.starts_with("CRYPT-") {
        "dm-crypt".into()
    } else if uuid.starts_with("LVM-") {
        "LVM".into()
    } else {
        "device-mapper".into()
    }
}

/// The first member a stacked device is built on (sorted, so the answer is stable).
fn first_member(node: &Path) -> Option<PathBuf> {
    let mut members: Vec<PathBuf> = std::fs::read_dir(node.join("slaves"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    members.sort();
    resolve(members.first()?)
}

/// The transport, from the disk's name and its place in the device tree.
pub fn transport(node: &Path) -> Transport {
    let name = file_name(node);
    let path = node.to_string_lossy();
    if name.starts_with("loop") {
        Transport::Loop
    } else if name.starts_with("mmcblk") {
        Transport::Mmc
    } else if name.starts_with("nvme") {
        Transport::Nvme
    } else if path.contains("/usb") {
        Transport::Usb
    } else if path.contains("/virtio") {
        Transport::Virtio
    } else if path.contains("/ata") {
        Transport::Sata
    } else if path.contains("/host") && path.contains("/target") {
        Transport::Scsi
    } else {
        Transport::Other
    }
}

/// The disk named `name` on `transport` from its attributes' text, `attr` giving each by its
/// path under the disk's node (`size`, `queue/rotational`, `device/model`; `None` where
/// missing): what the probe makes of a real disk, of any bytes alike, before it asks the
/// transport's own registers.
pub fn decode(name: &str, transport: Transport, attr: &dyn Fn(&str) -> Option<String>) -> Device {
    let text = |path: &str| attr(path).as_deref().and_then(trim);
    let number = |path: &str| text(path).as_deref().and_then(parse_u64);
    Device {
        extra: Default::default(),
        name: Some(name.to_string()),
        model: text("device/model"),
        vendor: text("device/vendor").filter(|v| !v.starts_with("0x")),
        serial_hash: text("device/serial")
            .or_else(|| text("serial"))
            .map(|s| serial_hash(&s)),
        size_bytes: number("size").and_then(|sectors| sectors.checked_mul(512)),
        transport: Some(transport),
        rotational: number("queue/rotational").map(|r| r == 1),
        logical_block_size: number("queue/logical_block_size"),
        physical_block_size: number("queue/physical_block_size"),
        scheduler: text("queue/scheduler").and_then(|s| selected(&s).or(Some(s))),
        stack: Vec::new(),
        backing_file: text("loop/backing_file"),
        drive_model: None,
        rotation_rpm: None,
        usb: None,
        sd: None,
        nvme: None,
    }
}

fn describe(root: &Path, node: &Path, stack: Vec<String>) -> Device {
    let transport = transport(node);
    let device_dir = node.join("device");
    let mut device = decode(&file_name(node), transport, &|name| {
        std::fs::read_to_string(node.join(name)).ok()
    });
    device.stack = stack;
    if matches!(
        transport,
        Transport::Usb | Transport::Sata | Transport::Scsi
    ) {
        let answers = super::ata::probe(&device_dir);
        device.drive_model = answers.model;
        device.rotation_rpm = answers.rotation_rpm;
    }
    match transport {
        Transport::Usb => {
            let usb = super::usb::probe(node);
            if device.serial_hash.is_none() {
                device.serial_hash = super::usb::serial(node).map(|s| serial_hash(&s));
            }
            device.usb = usb;
        }
        Transport::Mmc => {
            let sd = super::mmc::probe(root, node);
            if let Some(sd) = &sd {
                device.model = device.model.or_else(|| sd.product.clone());
                device.vendor = device.vendor.or_else(|| sd.manufacturer.clone());
            }
            device.sd = sd;
        }
        Transport::Nvme => device.nvme = super::nvme::probe(node),
        _ => {}
    }
    device
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transports_from_paths() {
        let t = |p: &str| transport(Path::new(p)).as_str();
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"),
            "virtio"
        );
        assert_eq!(t("/sys/devices/platform/scb/fd500000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0/usb2/2-2/2-2:1.0/host0/target0:0:0/0:0:0:0/block/sda"), "usb");
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"),
            "sata"
        );
        assert_eq!(
            t("/sys/devices/platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0"),
            "mmc"
        );
        assert_eq!(t("/sys/devices/virtual/block/loop0"), "loop");
        assert_eq!(t("/sys/devices/virtual/block/zram0"), "other");
    }
}
