//! `iomark verify` for real: on this machine's disk, on loop devices, and on counterfeit cards
//! (a FUSE file that stores an eighth of what it claims, attached with losetup). Raw-device
//! tests need root and skip without it; CI runs them as root.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::devices::{sha256, FakeCard, Flips, Loop, ShmFile};
use crate::common::{iomark, ok, refused, refused_saying};

const MIB: u64 = 1 << 20;
/// mkfs.ext4 options that write everything at once (no background init after the mount).
const NOT_LAZY: &str = "lazy_itable_init=0,lazy_journal_init=0";

fn section(output: &std::process::Output) -> Value {
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a document ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(doc["settings"]["profile"], "verify");
    doc["verify"].clone()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_good_disk_reads_everything_back_and_nothing_is_left() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = ok(iomark(data.path()).args([
        "verify",
        dir.path().to_str().unwrap(),
        "--size",
        "48MiB",
        "--json",
        "-",
    ]));
    let v = section(&output);
    assert_eq!(v["mode"], "files");
    assert_eq!(u(&v["written_bytes"]), 48 * MIB);
    assert_eq!(u(&v["good_bytes"]), 48 * MIB);
    for field in ["bad_bytes", "aliased_bytes", "unreadable_bytes"] {
        assert_eq!(u(&v[field]), 0, "{field}");
    }
    assert_eq!(v["ok"], true);
    assert!(v["first_bad_offset"].is_null());
    assert!(v["write_mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["read_mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["verdict"].as_str().unwrap().contains("read back intact"));
    // Its folder is gone, and the result was saved like any run.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let exported = ok(iomark(data.path()).args(["export", "latest", "--format", "json"]));
    let saved: Value = serde_json::from_slice(&exported.stdout).unwrap();
    assert_eq!(saved["verify"]["good_bytes"], 48 * MIB);
    let shown = crate::common::stdout(&ok(iomark(data.path()).args(["show", "latest"])));
    assert!(
        shown.contains("all 48 MiB written read back intact"),
        "{shown}"
    );
    // The document it wrote is one another store takes (it has no table of tests).
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("verify.json");
    std::fs::write(&file, &output.stdout).unwrap();
    let line = crate::common::stdout(&ok(
        iomark(elsewhere.path()).args(["import", file.to_str().unwrap()])
    ));
    assert!(line.starts_with("imported"), "{line}");
}

#[test]
fn an_interrupted_verify_resumes_where_it_stopped() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("iomark-verify");
    // Two files of 1 GiB and one of 64 MiB; stopped once the first is written whole.
    let mut child = iomark(data.path())
        .args(["verify", dir.path().to_str().unwrap(), "--size", "2112MiB"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let state = std::fs::read_to_string(folder.join("state.json")).unwrap_or_default();
        if state.contains("\"files_done\": 1") {
            break;
        }
        assert!(Instant::now() < deadline, "the first file never finished");
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before it was stopped"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    assert!(folder.join("0001.iomv").is_file());
    // A new run does not start over it.
    refused_saying(
        iomark(data.path()).args(["verify", dir.path().to_str().unwrap()]),
        "--resume",
    );
    // --resume writes the rest and reads all of it.
    let output = ok(iomark(data.path()).args([
        "verify",
        dir.path().to_str().unwrap(),
        "--resume",
        "--no-save",
        "--json",
        "-",
    ]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Resuming: 1 GiB"), "{stderr}");
    let v = section(&output);
    assert_eq!(v["resumed"], true);
    assert_eq!(u(&v["good_bytes"]), 2112 * MIB);
    assert_eq!(v["ok"], true);
    assert!(!folder.exists());
}

#[test]
fn raw_devices_are_refused_unless_asked_for_and_free() {
    let data = tempfile::tempdir().unwrap();
    // Not a block device; no --destructive.
    refused_saying(
        iomark(data.path()).args(["verify", "--device", "/dev/null", "--destructive", "--yes"]),
        "not a block device",
    );
    refused_saying(
        iomark(data.path()).args(["verify", "--device", "/dev/loop0"]),
        "--destructive",
    );
    let image = ShmFile::new(64 * MIB);
    let Some(dev) = Loop::attach(&image.path, false) else {
        return;
    };
    let before = sha256(&dev.dev);
    // Without a terminal to confirm on, and without --yes: nothing written.
    refused_saying(
        iomark(data.path())
            .args(["verify", "--device", dev.path(), "--destructive"])
            .stdin(Stdio::null()),
        "--yes",
    );
    assert_eq!(sha256(&dev.dev), before);
    // Not root.
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("iomark");
    std::fs::copy(env!("CARGO_BIN_EXE_iomark"), &copy).unwrap();
    let output = crate::common::output_of_copy(
        Command::new(&copy)
            .args(["verify", "--device", dev.path(), "--destructive", "--yes"])
            .uid(65534)
            .gid(65534)
            .env("XDG_DATA_HOME", data.path()),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("needs root"), "{stderr}");
    // Mounted: nothing written while it is. Mounted read-only, so that the kernel writes
    // nothing either (iomark refuses a mount whichever its mode): mounted read-write and idle, ext4 still moved the device's bytes between
    // the two hashes once in four CI runs (its journal or superblock, after the sync), and the
    // test blamed iomark. Nothing deferred: ext4's lazy init would write the inode tables.
    assert!(Command::new("mkfs.ext4")
        .args(["-q", "-F", "-E", NOT_LAZY, dev.path()])
        .status()
        .unwrap()
        .success());
    let mnt = tempfile::tempdir().unwrap();
    assert!(Command::new("mount")
        .args(["-o", "ro", dev.path(), mnt.path().to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let mounted = sha256(&dev.dev);
    let line = refused(iomark(data.path()).args([
        "verify",
        "--device",
        dev.path(),
        "--destructive",
        "--yes",
    ]));
    let after = sha256(&dev.dev);
    let _ = Command::new("umount").arg(mnt.path()).status();
    assert!(line.contains("is mounted at"), "{line}");
    assert_eq!(after, mounted, "a refused run wrote to the device");
    assert_ne!(before, mounted);
}

#[test]
fn a_disk_whose_partition_is_mounted_is_refused() {
    if !crate::common::root_for("a partitioned loop device") {
        return;
    }
    crate::common::need("sfdisk", "fdisk");
    crate::common::need("partx", "util-linux");
    crate::common::need("mkfs.ext4", "e2fsprogs");
    let data = tempfile::tempdir().unwrap();
    let image = ShmFile::new(64 * MIB);
    let sfdisk = Command::new("sfdisk")
        .arg("-q")
        .arg(&image.path)
        .stdin(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"label: dos\n,,L\n")?;
            c.wait()
        });
    assert!(
        sfdisk.is_ok_and(|s| s.success()),
        "sfdisk made no partition table"
    );
    let Some(dev) = Loop::attach(&image.path, true) else {
        return;
    };
    // The partition's node: made here from sysfs where no udev makes it (and the partition
    // added with partx where the kernel's scan did not).
    let name = dev.dev.file_name().unwrap().to_string_lossy().to_string();
    let sys = format!("/sys/class/block/{name}p1/dev");
    if !Path::new(&sys).exists() {
        let _ = Command::new("partx").args(["-a", dev.path()]).status();
    }
    for _ in 0..50 {
        if Path::new(&sys).exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Ok(number) = std::fs::read_to_string(&sys) else {
        crate::common::skip(&format!("the kernel made no partition {sys}"));
        return;
    };
    let nodes = tempfile::tempdir().unwrap();
    let part = nodes.path().join(format!("{name}p1"));
    let (major, minor) = number.trim().split_once(':').unwrap();
    assert!(Command::new("mknod")
        .arg(&part)
        .args(["b", major, minor])
        .status()
        .unwrap()
        .success());
    let part = part.to_str().unwrap().to_string();
    assert!(Command::new("mkfs.ext4")
        .args(["-q", "-F", "-E", NOT_LAZY, &part])
        .status()
        .unwrap()
        .success());
    // Read-only, so that the kernel writes nothing while it is mounted (see above).
    let mnt = tempfile::tempdir().unwrap();
    assert!(Command::new("mount")
        .args(["-o", "ro", &part, mnt.path().to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let before = sha256(&dev.dev);
    let line = refused(iomark(data.path()).args([
        "verify",
        "--device",
        dev.path(),
        "--destructive",
        "--yes",
    ]));
    let after = sha256(&dev.dev);
    let _ = Command::new("umount").arg(mnt.path()).status();
    assert!(line.contains("p1 is mounted at"), "{line}");
    assert_eq!(after, before);
}

#[test]
fn a_genuine_loop_device_is_its_claim() {
    let data = tempfile::tempdir().unwrap();
    let image = ShmFile::new(256 * MIB);
    let Some(dev) = Loop::attach(&image.path, false) else {
        return;
    };
    let output = ok(iomark(data.path()).args([
        "verify",
        "--device",
        dev.path(),
        "--destructive",
        "--yes",
        "--no-save",
        "--json",
        "-",
    ]));
    let v = section(&output);
    assert_eq!(v["mode"], "probe");
    assert_eq!(u(&v["real_bytes"]), 256 * MIB);
    assert_eq!(u(&v["claimed_bytes"]), 256 * MIB);
    assert_eq!(v["ok"], true);
}

#[test]
fn a_counterfeit_card_is_found_by_the_probe_and_by_a_full_pass() {
    // Claims 1 GiB, stores 128 MiB: offsets wrap modulo 128 MiB.
    let Some(card) = FakeCard::new(1 << 30, 128 * MIB, None) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let output = ok(iomark(data.path()).args([
        "verify",
        "--device",
        card.dev.path(),
        "--destructive",
        "--yes",
        "--no-save",
        "--json",
        "-",
    ]));
    let v = section(&output);
    assert_eq!(v["ok"], false);
    assert_eq!(u(&v["claimed_bytes"]), 1 << 30);
    let real = u(&v["real_bytes"]);
    assert!(real.abs_diff(128 * MIB) <= 128 * MIB / 100, "real {real}");
    let verdict = v["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("holds 128 MiB, not the 1 GiB"),
        "{verdict}"
    );
    // It wrote a small part of the device, not all of it.
    assert!(u(&v["written_bytes"]) < 100 * MIB);

    let output = ok(iomark(data.path()).args([
        "verify",
        "--device",
        card.dev.path(),
        "--destructive",
        "--full",
        "--yes",
        "--no-save",
        "--json",
        "-",
    ]));
    let v = section(&output);
    assert_eq!(v["mode"], "full");
    assert_eq!(v["ok"], false);
    assert_eq!(u(&v["real_bytes"]), 128 * MIB);
    // Everything but the last 128 MiB written was overwritten by what came after it.
    assert_eq!(u(&v["aliased_bytes"]), (1 << 30) - 128 * MIB);
    assert_eq!(u(&v["good_bytes"]), 128 * MIB);
}

/// verify on the filesystem of a counterfeit card: what the card holds, from where the files
/// lie on it (FIEMAP), within 10% (what was in use plus what read back intact said 64 MiB of
/// 72 on ext4's default layout).
fn counterfeit_filesystem(mkfs: &[&str], holds: u64) -> Value {
    // Claims 512 MiB; `holds` not a power of two, so ext4's superblock backups at 128 MiB
    // and 384 MiB do not land on the superblock itself.
    let Some(card) = FakeCard::new(512 * MIB, holds, None) else {
        return Value::Null;
    };
    crate::common::need(mkfs[0], "e2fsprogs");
    let made = Command::new(mkfs[0])
        .args(&mkfs[1..])
        .arg(card.dev.path())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let mnt = tempfile::tempdir().unwrap();
    assert!(Command::new("mount")
        .args([card.dev.path(), mnt.path().to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let data = tempfile::tempdir().unwrap();
    let output = iomark(data.path())
        .args([
            "verify",
            mnt.path().to_str().unwrap(),
            "--no-save",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(mnt.path()).status();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let v = section(&output);
    assert_eq!(v["ok"], false, "{v}");
    assert!(u(&v["aliased_bytes"]) > 0, "{v}");
    let verdict = v["verdict"].as_str().unwrap();
    assert!(verdict.contains("not the"), "{verdict}");
    assert_eq!(v["real_method"], "extents", "{v}");
    let real = u(&v["real_bytes"]);
    assert!(
        real.abs_diff(holds) <= holds / 10,
        "{} holds {holds}, said {real}: {verdict}",
        mkfs[0]
    );
    v
}

#[test]
fn a_filesystem_on_a_counterfeit_card_reports_aliasing() {
    let v = counterfeit_filesystem(
        &[
            "mkfs.ext4",
            "-q",
            "-F",
            "-E",
            "lazy_itable_init=1,lazy_journal_init=1,nodiscard",
        ],
        72 * MIB,
    );
    if v.is_null() {
        return;
    }
    // Most of what was written is lost: about an eighth fits.
    assert!(u(&v["good_bytes"]) < u(&v["written_bytes"]) / 4, "{v}");
}

/// All the filesystem's metadata at the start, as a sold card's FAT keeps it (this machine's
/// kernel has no FAT; ext4 packs its metadata the same way when asked), and no journal.
#[test]
fn metadata_at_the_start_of_a_counterfeit_card_does_not_hide_what_it_holds() {
    counterfeit_filesystem(
        &[
            "mkfs.ext4",
            "-q",
            "-F",
            "-O",
            "^has_journal,^resize_inode",
            "-E",
            "packed_meta_blocks=1,lazy_itable_init=1,nodiscard",
        ],
        96 * MIB,
    );
}

#[test]
fn flipped_bits_are_reported_at_their_exact_offsets() {
    // A genuine 64 MiB card that flips bit 0 of byte 1000 in 1 block of 10,000, on read.
    let flips = Flips {
        every: 10_000,
        at: 1234,
        byte: 1000,
    };
    let Some(card) = FakeCard::new(64 * MIB, 64 * MIB, Some(flips)) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let output = ok(iomark(data.path()).args([
        "verify",
        "--device",
        card.dev.path(),
        "--destructive",
        "--full",
        "--yes",
        "--no-save",
        "--json",
        "-",
    ]));
    let v = section(&output);
    let expected: Vec<u64> = (0..(64 * MIB / 4096))
        .filter(|b| b % flips.every == flips.at)
        .map(|b| b * 4096 + flips.byte / 512 * 512)
        .collect();
    assert!(expected.len() >= 2);
    let found: Vec<u64> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["kind"], "bad");
            assert_eq!(u(&p["bytes"]), 512);
            u(&p["position"])
        })
        .collect();
    assert_eq!(found, expected);
    assert_eq!(u(&v["bad_bytes"]), 512 * expected.len() as u64);
    assert_eq!(u(&v["first_bad_offset"]), expected[0]);
    assert_eq!(u(&v["real_bytes"]), 64 * MIB);
    assert_eq!(v["ok"], false);
}

#[test]
fn the_size_must_be_typed_back_on_a_terminal() {
    crate::common::need("script", "bsdutils");
    let data = tempfile::tempdir().unwrap();
    let image = ShmFile::new(64 * MIB);
    let Some(dev) = Loop::attach(&image.path, false) else {
        return;
    };
    let before = sha256(&dev.dev);
    // `script` gives iomark a terminal; what is typed comes from our pipe.
    let typed = |answer: &str| {
        use std::io::Write;
        let command = format!(
            "{} verify --device {} --destructive --no-save",
            env!("CARGO_BIN_EXE_iomark"),
            dev.path()
        );
        let mut child = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("XDG_DATA_HOME", data.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{answer}\n").as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).to_string(),
        )
    };
    let (done, text) = typed("yes");
    assert!(!done, "{text}");
    assert!(text.contains("Type its size as shown (64 MiB)"), "{text}");
    assert!(text.contains("the size typed was not 64 MiB"), "{text}");
    assert_eq!(
        sha256(&dev.dev),
        before,
        "written without the size typed back"
    );
    let (done, text) = typed("64 MiB");
    assert!(done, "{text}");
    assert!(text.contains("its 64 MiB are real"), "{text}");
    assert_ne!(sha256(&dev.dev), before);
}

#[test]
fn keep_leaves_the_files_and_a_new_run_refuses_to_start_over_them() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    ok(iomark(data.path()).args([
        "verify",
        dir.path().to_str().unwrap(),
        "--size",
        "8MiB",
        "--keep",
        "--no-save",
    ]));
    let folder = dir.path().join("iomark-verify");
    assert_eq!(
        std::fs::metadata(folder.join("0001.iomv")).unwrap().len(),
        8 * MIB
    );
    assert!(folder.join("state.json").is_file());
    refused_saying(
        iomark(data.path()).args(["verify", dir.path().to_str().unwrap()]),
        "--resume",
    );
}
