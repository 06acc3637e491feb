//! `probe/` on captured machines: each `tests/fixtures/*.tree` describes a sysfs/procfs tree
//! (files and symlinks), which is built in a temporary directory and probed as a root; the
//! result must equal the reviewed `*.json` beside it. `tests/fixtures/README.md` says where
//! each value comes from.
//!
//! Tree format, one entry a line: `path = value` writes a file (`\n` and `\t` are escapes),
//! `path =hex 00 89 00*4 …` writes bytes (a binary VPD page), `path -> target` makes a symlink (`\0` is a NUL too), `# probe: /some/path` names the path to probe, `#` starts
//! a comment. To rewrite the JSON after a reviewed change: `IOMARK_BLESS=1 cargo test --test
//! probe_fixtures`, then read the diff.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Builds the tree under `root`; returns the path to probe.
fn materialize(tree: &str, root: &Path) -> PathBuf {
    let mut probe = PathBuf::from("/");
    for (number, line) in tree.lines().enumerate() {
        let line = line.trim_end();
        if let Some(path) = line.strip_prefix("# probe:") {
            probe = PathBuf::from(path.trim());
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((path, hex)) = line.split_once(" =hex ") {
            let file = root.join(path.trim());
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, bytes_of(hex)).unwrap();
        } else if let Some((path, target)) = line.split_once(" -> ") {
            let link = root.join(path.trim());
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(target.trim(), &link).unwrap();
        } else if let Some((path, value)) = line.split_once(" = ") {
            let file = root.join(path.trim());
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let value = value
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\0", "\0");
            std::fs::write(file, value).unwrap();
        } else if let Some(path) = line.strip_suffix("/") {
            std::fs::create_dir_all(root.join(path.trim())).unwrap();
        } else {
            panic!("line {}: not a file, link or directory: {line}", number + 1);
        }
    }
    probe
}

/// Bytes written as hex pairs, `NN*COUNT` for a run of one byte (`00*57`).
fn bytes_of(hex: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for item in hex.split_whitespace() {
        let (byte, count) = item.split_once('*').unwrap_or((item, "1"));
        let byte = u8::from_str_radix(byte, 16).expect("a hex byte");
        out.extend(std::iter::repeat_n(byte, count.parse().expect("a count")));
    }
    out
}

fn probe(name: &str) -> Value {
    let tree = std::fs::read_to_string(fixtures().join(format!("{name}.tree"))).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = materialize(&tree, dir.path());
    let mut host = iomark::probe::host::probe(dir.path());
    if !tree.contains("proc/sys/kernel/arch =") {
        // Kernels before 6.1 do not say; the probe then names the binary's own architecture,
        // which depends on the machine running this test.
        assert_eq!(host.arch, std::env::consts::ARCH);
        host.arch = "(this binary's)".into();
    }
    let target = iomark::probe::target(dir.path(), &path, None);
    let warnings: Vec<String> = iomark::probe::bottleneck::warnings(&host, &target)
        .into_iter()
        .map(|w| w.kind)
        .collect();
    json!({ "host": host, "target": target, "warnings": warnings })
}

fn check(name: &str) {
    let actual = probe(name);
    let expected_path = fixtures().join(format!("{name}.json"));
    if std::env::var_os("IOMARK_BLESS").is_some() {
        let mut text = serde_json::to_string_pretty(&actual).unwrap();
        text.push('\n');
        std::fs::write(&expected_path, text).unwrap();
        return;
    }
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
    assert_eq!(
        actual,
        expected,
        "{name}: probe differs from {}:\n{}",
        expected_path.display(),
        serde_json::to_string_pretty(&actual).unwrap()
    );
}

#[test]
fn raspberry_pi_4_with_a_microsd_card() {
    check("pi4-microsd");
}

#[test]
fn raspberry_pi_4_with_a_usb3_ssd_on_uas() {
    check("pi4-usb3-ssd-uas");
}

#[test]
fn raspberry_pi_3_with_a_usb_flash_drive_at_480_mbps() {
    check("pi3-usb2-flash");
}

#[test]
fn nvme_behind_pcie_on_btrfs() {
    check("nvme-btrfs");
}

#[test]
fn luks_volume_on_usb() {
    check("luks-usb");
}

#[test]
fn loop_device() {
    check("loop");
}

#[test]
fn virtio_vm() {
    check("virtio-vm");
}

#[test]
fn a_hard_disk_behind_a_jmicron_bridge_that_names_itself() {
    check("usb-jmicron-hdd");
}

#[test]
fn an_unknown_drive_behind_an_asmedia_bridge_on_usb_storage() {
    check("usb-asmedia-bot");
}

#[test]
fn an_ssd_behind_a_via_bridge_that_passes_its_pages_on() {
    check("usb-via-ssd");
}

#[test]
fn a_sata_ssd_through_libata() {
    check("sata-libata");
}

/// Every fixture's device as the site names and files it: the drive a buyer would search
/// for (never the USB bridge), its capacity once, sticks as flash, disks by their answers.
#[test]
fn every_device_is_named_as_a_buyer_searches_for_it() {
    let expected = [
        (
            "pi4-microsd",
            Some("sandisk-sn64g-64gb"),
            "SanDisk SN64G 64 GB",
            "microSD",
        ),
        (
            "pi4-usb3-ssd-uas",
            Some("samsung-ssd-860-evo-500gb"),
            "Samsung SSD 860 EVO 500 GB",
            "USB SSD",
        ),
        (
            "sata-libata",
            Some("samsung-ssd-860-evo-500gb"),
            "Samsung SSD 860 EVO 500 GB",
            "SATA SSD",
        ),
        (
            "pi3-usb2-flash",
            Some("sandisk-cruzer-blade-16gb"),
            "SanDisk Cruzer Blade 16 GB",
            "USB flash",
        ),
        (
            "nvme-btrfs",
            Some("samsung-ssd-970-evo-plus-1000gb"),
            "Samsung SSD 970 EVO Plus 1 TB",
            "NVMe",
        ),
        (
            "luks-usb",
            Some("samsung-ssd-980-500gb"),
            "Samsung SSD 980 500 GB",
            "USB SSD",
        ),
        (
            "usb-jmicron-hdd",
            Some("wdc-wd10jpvx-22jc3t0-1000gb"),
            "WDC WD10JPVX-22JC3T0 1 TB",
            "USB HDD",
        ),
        (
            "usb-asmedia-bot",
            None,
            "a drive behind ASMedia ASM1051E/ASM1053E/ASM1153E (SATA)",
            "other",
        ),
        (
            "usb-via-ssd",
            // Its part number, named as it is sold.
            Some("crucial-mx500-500gb"),
            "Crucial MX500 500 GB",
            "USB SSD",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, key, device_name, kind) in expected {
        let probed = probe(name);
        let mut doc = crate::common::doc(
            "01FFFF00000000000000000001",
            "2026-03-01T10:00:00Z",
            &[],
            0.01,
        );
        doc["target"] = probed["target"].clone();
        let doc: iomark::result::ResultDoc = serde_json::from_value(doc).unwrap();
        let id = doc.identity();
        let got = (id.device_key.as_deref(), id.device_name.as_str(), id.kind);
        if got != (key, device_name, kind) {
            wrong.push(format!(
                "{name}: {got:?}, not {:?}",
                (key, device_name, kind)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_path_without_a_block_device() {
    let dir = tempfile::tempdir().unwrap();
    materialize(
        "proc/self/mountinfo = 22 1 0:26 / /run rw - tmpfs tmpfs rw\\n",
        dir.path(),
    );
    let target = iomark::probe::target(dir.path(), Path::new("/run/x"), None);
    assert_eq!(target.filesystem.as_deref(), Some("tmpfs"));
    assert!(target.device.is_none());
    let host = iomark::probe::host::probe(dir.path());
    let kinds: Vec<String> = iomark::probe::bottleneck::warnings(&host, &target)
        .into_iter()
        .map(|w| w.kind)
        .collect();
    assert_eq!(kinds, ["ram_filesystem"]);
}

#[test]
fn an_empty_tree_is_all_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let target = iomark::probe::target(dir.path(), Path::new("/"), None);
    assert!(target.filesystem.is_none() && target.device.is_none());
}

#[test]
fn md_raid1_over_sata_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let sata = "sys/devices/pci0000:00/0000:00:1f.2";
    let tree = format!(
        "proc/self/mountinfo = 30 1 9:0 / /srv rw,relatime - ext4 /dev/md0 rw\\n
sys/dev/block/9:0 -> ../../devices/virtual/block/md0
sys/devices/virtual/block/md0/md/level = raid1\\n
sys/devices/virtual/block/md0/slaves/sdb1 -> ../../../../pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0/block/sdb/sdb1
sys/devices/virtual/block/md0/slaves/sda1 -> ../../../../pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1
{sata}/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1/partition = 1\\n
{sata}/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/rotational = 1\\n
{sata}/ata1/host0/target0:0:0/0:0:0:0/model = WDC WD40EFRX-68N\\n
{sata}/ata1/host0/target0:0:0/0:0:0:0/block/sda/device -> ../../../0:0:0:0
{sata}/ata2/host1/target1:0:0/1:0:0:0/block/sdb/sdb1/partition = 1\\n
"
    );
    materialize(&tree, dir.path());
    let target = iomark::probe::target(dir.path(), Path::new("/srv/data"), None);
    let device = target.device.expect("a device under md0");
    assert_eq!(device.stack, ["md0 (raid1)", "sda1 (partition)"]);
    assert_eq!(device.name.as_deref(), Some("sda"));
    assert_eq!(device.transport.map(|t| t.as_str()), Some("sata"));
    assert_eq!(device.rotational, Some(true));
    assert_eq!(device.model.as_deref(), Some("WDC WD40EFRX-68N"));
}
