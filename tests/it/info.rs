//! `iomark info` as a user runs it: this machine, and a loop device made for the test.

use std::process::Command;

use serde_json::Value;

use crate::common::FAST;
use crate::common::{iomark, run_ok, scratch};

#[test]
fn info_describes_this_machine() {
    let output = run_ok(&["info", "--json", "."]);
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(info["host"]["cpu_cores"].as_u64().unwrap() >= 1);
    assert!(info["host"]["kernel"].is_string());
    let target = &info["target"];
    assert_eq!(
        target["path"],
        std::fs::canonicalize(".").unwrap().to_str().unwrap()
    );
    assert!(target["filesystem"].is_string());
    assert!(target["free_bytes"].as_u64().unwrap() > 0);
    // Whatever the disk, a block device has a transport from the closed list.
    if let Some(device) = target["device"].as_object() {
        let transports = [
            "usb", "mmc", "nvme", "sata", "scsi", "virtio", "loop", "other",
        ];
        assert!(
            transports.contains(&device["transport"].as_str().unwrap()),
            "{device:?}"
        );
        assert!(device["size_bytes"].as_u64().unwrap() > 0);
    }
    let text = run_ok(&["info"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("Host") && text.contains("Storage") && text.contains("filesystem"),
        "{text}"
    );
    let missing = iomark(scratch())
        .args(["info", "/no/such/path"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).starts_with("Error: /no/such/path: no such file")
    );
}

#[test]
fn info_and_run_follow_a_loop_device() {
    if !crate::common::root_for("a loop device") {
        return;
    }
    crate::common::need("losetup", "mount");
    crate::common::need("mkfs.ext4", "e2fsprogs");
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    std::fs::File::create(&image)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let losetup = Command::new("losetup")
        .args(["--find", "--show", image.to_str().unwrap()])
        .output()
        .unwrap();
    if !losetup.status.success() {
        crate::common::skip(&format!(
            "losetup failed: {}",
            String::from_utf8_lossy(&losetup.stderr).trim()
        ));
        return;
    }
    let device = String::from_utf8_lossy(&losetup.stdout).trim().to_string();
    let ok = Command::new("mkfs.ext4")
        .args(["-q", "-F", &device])
        .status()
        .unwrap()
        .success()
        && Command::new("mount")
            .args([&device, mnt.to_str().unwrap()])
            .status()
            .unwrap()
            .success();
    let result = ok.then(|| {
        let info = iomark(scratch())
            .args(["info", "--json", mnt.to_str().unwrap()])
            .output()
            .unwrap();
        let mut args = vec![
            "run",
            mnt.to_str().unwrap(),
            "--json",
            "-",
            "--test",
            "RND4K_Q1T1_read",
        ];
        args.extend_from_slice(&FAST);
        let run = iomark(scratch()).args(&args).output().unwrap();
        (info, run)
    });
    let _ = Command::new("umount").arg(&mnt).status();
    let _ = Command::new("losetup").args(["-d", &device]).status();
    let (info, run) = result.expect("mkfs.ext4 or mount failed");
    let info: Value = serde_json::from_slice(&info.stdout).unwrap();
    let found = &info["target"]["device"];
    assert_eq!(found["transport"], "loop");
    assert_eq!(found["name"], device.trim_start_matches("/dev/"));
    assert_eq!(found["backing_file"], image.to_str().unwrap());
    assert_eq!(found["size_bytes"], 64 << 20);
    assert_eq!(info["target"]["filesystem"], "ext4");
    // Every result carries the same host and target.
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["target"]["device"]["transport"], "loop");
    assert_eq!(
        doc["target"]["device"]["backing_file"],
        image.to_str().unwrap()
    );
    assert_eq!(doc["host"]["kernel"], info["host"]["kernel"]);
}
