//! Issue 16, for real: the disk throttled by the kernel to a card's 10 MB/s, for one run.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::entries;

/// A blkio (cgroup v1) or io (v2) group that holds the disk under `dir` to 10 MB/s written and
/// 20 MB/s read; removed when dropped.
struct Throttled {
    path: std::path::PathBuf,
}

impl Throttled {
    fn new(dir: &Path) -> Option<Throttled> {
        use std::os::unix::fs::MetadataExt;
        let dev = std::fs::metadata(dir).ok()?.dev();
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        let sys = format!("/sys/dev/block/{major}:{minor}");
        let disk = if Path::new(&sys).join("partition").exists() {
            std::fs::read_to_string(Path::new(&sys).join("../dev"))
                .ok()?
                .trim()
                .to_string()
        } else {
            format!("{major}:{minor}")
        };
        let name = format!("iomark-test-{}", std::process::id());
        let v1 = Path::new("/sys/fs/cgroup/blkio");
        if v1.join("blkio.throttle.write_bps_device").exists() {
            let path = v1.join(name);
            std::fs::create_dir(&path).ok()?;
            let group = Throttled { path };
            std::fs::write(
                group.path.join("blkio.throttle.write_bps_device"),
                format!("{disk} 10000000"),
            )
            .ok()?;
            std::fs::write(
                group.path.join("blkio.throttle.read_bps_device"),
                format!("{disk} 20000000"),
            )
            .ok()?;
            return Some(group);
        }
        let v2 = Path::new("/sys/fs/cgroup");
        if v2.join("cgroup.controllers").exists() {
            let path = v2.join(name);
            std::fs::create_dir(&path).ok()?;
            let group = Throttled { path };
            std::fs::write(
                group.path.join("io.max"),
                format!("{disk} wbps=10000000 rbps=20000000"),
            )
            .ok()?;
            return Some(group);
        }
        None
    }

    fn tasks(&self) -> std::path::PathBuf {
        let v1 = self.path.join("tasks");
        if v1.exists() {
            v1
        } else {
            self.path.join("cgroup.procs")
        }
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

#[test]
fn issue_16_a_slow_device_gets_a_file_it_fills_in_ten_seconds() {
    if !crate::common::root_for("throttling a disk") {
        return;
    }
    // On the disk itself, not a tmpfs: the throttle holds block I/O.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let Some(group) = Throttled::new(dir.path()) else {
        crate::common::skip("no cgroup blkio or io controller for this disk");
        return;
    };
    let started = std::time::Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "echo $$ > '{}' && exec \"$@\"",
            group.tasks().display()
        ))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_iomark"))
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "--profile",
            "latency",
            "--no-save",
            "--json",
            "-",
        ])
        .env_remove("IOMARK_DB")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let size = doc["settings"]["file_size_bytes"].as_u64().unwrap();
    // 256 MiB at 10 MB/s would take 27 s: the file is what 10 s fill, 95 MiB, give or take.
    assert_eq!(
        doc["settings"]["fill_cut_from_bytes"],
        256u64 << 20,
        "{doc}"
    );
    assert!((64 << 20..=128 << 20).contains(&size), "{size}");
    assert!(stderr.contains("so the test file is"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
    // The reads reached the throttled device: no cache answered them. A cache gives 4 KiB
    // reads at hundreds of MB/s; the group holds reads to 20 MB/s, with a slice of burst. (A
    // floor on the fastest read's latency is no sign: a virtio disk on a busy host's cache
    // answered one in 19.8 us.)
    let read = doc["tests"][0]["mb_per_s"].as_f64().unwrap();
    assert!(read < 40.0, "{read} MB/s: {doc}");
    assert!(entries(dir.path()).is_empty());
}
