//! Helpers shared by the integration tests that use the store: the binary with a store of the
//! test's own, constructed result documents, and a private PostgreSQL server.

#![allow(dead_code)]

pub mod cdp;
pub mod devices;
pub mod postgres;
pub mod power;
pub mod proxy;
pub mod site;

pub use postgres::Postgres;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The binary with `--db`-less commands pointed at `data_home` (never the user's own store).
pub fn iomark(data_home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_iomark"));
    command
        .env("XDG_DATA_HOME", data_home)
        .env_remove("IOMARK_DB");
    command
}

/// Runs and requires success; returns the output.
pub fn ok(command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs and requires the exit status `code` (a health check's verdict, say).
pub fn exits(code: i32, command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(code),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs and requires failure with one `Error:` line that says `needle`; returns that line.
pub fn refused_saying(command: &mut Command, needle: &str) -> String {
    let line = refused(command);
    assert!(
        line.contains(needle),
        "{command:?}: expected '{needle}' in: {line}"
    );
    line
}

/// Runs and requires failure with one `Error:` line; returns that line.
pub fn refused(command: &mut Command) -> String {
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(
        !output.status.success(),
        "{command:?} should fail: {stderr}"
    );
    assert!(
        stderr.starts_with("Error: ") && stderr.trim_end().lines().count() == 1,
        "one Error: line expected: {stderr}"
    );
    stderr.trim_end().to_string()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).to_string()
}

/// Fast settings for a real run: a 4 MiB file, one 150 ms loop per test, no warm-up.
pub const FAST: [&str; 8] = [
    "--size",
    "4MiB",
    "--loops",
    "1",
    "--duration",
    "150ms",
    "--warmup",
    "0",
];

/// The tests [`doc`] holds, by name.
pub const STANDARD_TESTS: [&str; 8] = [
    "SEQ1M_Q8T1_read",
    "SEQ1M_Q8T1_write",
    "SEQ1M_Q1T1_read",
    "SEQ1M_Q1T1_write",
    "RND4K_Q32T1_read",
    "RND4K_Q32T1_write",
    "RND4K_Q1T1_read",
    "RND4K_Q1T1_write",
];

/// A constructed result document: the standard profile's tests at `scale` times a base set of
/// figures, with three loops spread by `spread` (so its CV is known), and latencies a run at
/// those rates would have (they hold the site's physics, `intake/physics.rs`).
pub fn doc(id: &str, started_at: &str, scale: &[(&str, f64)], spread: f64) -> Value {
    let rows = [
        ("SEQ1M_Q8T1", "seq", 1 << 20, 8, 2000.0, 1500.0),
        ("SEQ1M_Q1T1", "seq", 1 << 20, 1, 900.0, 800.0),
        ("RND4K_Q32T1", "rand", 4096, 32, 400.0, 300.0),
        ("RND4K_Q1T1", "rand", 4096, 1, 40.0, 60.0),
    ];
    let mut tests = Vec::new();
    for (row, kind, bs, qd, read, write) in rows {
        for (op, base) in [("read", read), ("write", write)] {
            let name = format!("{row}_{op}");
            let factor = scale
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, f)| *f)
                .unwrap_or(1.0);
            let mb: f64 = base * factor;
            // Each loop up to half a percent its own, as a real run's are (a site buries a
            // deleted result's loops by their shape).
            let own = |k: usize| {
                1.0 + ((mixed(&format!("{id} {name} loop {k}")) % 1001) as f64 - 500.0) * 1e-5
            };
            let loops: Vec<Value> = [1.0 - spread, 1.0, 1.0 + spread]
                .iter()
                .enumerate()
                .map(|(k, f)| f * if spread > 0.0 { own(k) } else { 1.0 })
                .map(|f| {
                    json!({"mb_per_s": mb * f, "iops": mb * f * 1e6 / bs as f64,
                           "bytes": (mb * f * 1e6) as u64, "ios": (mb * f * 1e6 / bs as f64) as u64,
                           "seconds": 1.0})
                })
                .collect();
            // Little's law: its queue nearly full all the time, as a real run's is; and
            // latencies that spread afresh each run (by its id), as a real run's do, so no two
            // documents' tests agree in every figure (a site buries a deleted result's tests
            // by their figures).
            let mean = f64::from(qd) * 1e6 / (mb * 1e6 / bs as f64) * 0.9;
            // Each share of the mean moved by 0 to 36% (in steps of 0.01%), by a hash of the
            // id, the test and the share: as far apart as real runs' tails, each test's its
            // own (a site buries a deleted result's shares one by one), and still in order.
            let jitter = |k: u32| 1.0 + (mixed(&format!("{id} {name} {k}")) % 3601) as f64 * 0.0001;
            let at = |f: f64, k: u32| mean * f * jitter(k);
            let (least, p50, p90, p99, p99_9, sd) = (
                at(0.1, 0),
                at(0.9, 1),
                at(1.5, 2),
                at(3.0, 3),
                at(7.0, 4),
                at(0.3, 5),
            );
            let most = at(20.0, 6).min(4.5e6).max(p99_9);
            tests.push(json!({
                "name": name, "kind": kind, "op": op, "block_size": bs, "queue_depth": qd,
                "threads": 1, "mb_per_s": mb, "iops": mb * 1e6 / bs as f64,
                "latency_us": {"min": least, "mean": mean, "p50": p50, "p90": p90,
                               "p99": p99, "p99_9": p99_9, "max": most, "stddev": sd},
                "loops": loops, "cv": spread, "cpu": {"user_s": 0.1, "sys_s": 0.2},
                "timeline": [{"t": 0.0, "mb_per_s": mb}, {"t": 1.0, "mb_per_s": mb}]
            }));
        }
    }
    json!({
        "schema": "iomark.result/1", "id": id,
        "tool": {"name": "iomark", "version": "0.1.0"},
        "started_at": started_at, "finished_at": started_at,
        "label": format!("constructed {id}"), "price_usd": null,
        "host": {"arch": "x86_64"},
        "target": {"path": "/mnt/card", "filesystem": "ext4",
                   "device": {"name": "mmcblk0", "model": "SC64G", "transport": "mmc", "stack": []}},
        "settings": {"profile": "standard", "file_size_bytes": 1073741824u64, "loops": 3,
                     "duration_s": 2.0, "warmup_s": 1.0, "engine": "io_uring", "direct": true,
                     "data": "random"},
        "tests": tests, "warnings": [], "score": null
    })
}

/// FNV-1a of `text`: a stable number from an id.
/// [`fnv`] with its bits mixed (MurmurHash3's finaliser): FNV's low bits of texts that differ
/// in their last characters repeat, and so did the latencies drawn from them (thousands of
/// made-up documents shared a test's shape to four digits).
fn mixed(text: &str) -> u64 {
    let mut h = fnv(text);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Writes a document to `dir/NAME.json`; returns the path.
pub fn write_doc(dir: &Path, doc: &Value) -> PathBuf {
    let path = dir.join(format!("{}.json", doc["id"].as_str().unwrap()));
    std::fs::write(&path, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    path
}

/// A small tmpfs mounted for one test, unmounted when dropped.
pub struct SmallFs {
    _dir: tempfile::TempDir,
    pub path: std::path::PathBuf,
}

impl SmallFs {
    /// A tmpfs of `size`; `None` (the test [`skip`]ped) without root or where mounting fails.
    pub fn mount(size: &str) -> Option<SmallFs> {
        if !root_for("mounting a small filesystem") {
            return None;
        }
        need("mount", "mount");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small");
        std::fs::create_dir(&path).unwrap();
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                path.to_str().unwrap(),
            ])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            skip("mounting a tmpfs failed here, even as root");
            return None;
        }
        Some(SmallFs { _dir: dir, path })
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        // A lazy unmount if anything still holds it busy: a test must not leave mounts behind.
        let unmounted = Command::new("umount")
            .arg(&self.path)
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            let _ = Command::new("umount").arg("-l").arg(&self.path).status();
        }
    }
}

/// Runs a command whose program is a copy of the binary made by this test (to run it as
/// another user). Another test thread that forks while the copy is still open for writing hands
/// that descriptor to its child, and exec of the copy fails with ETXTBSY until the child has
/// exec'd in turn: such a failure is retried, for up to 5 s.
pub fn output_of_copy(command: &mut Command) -> Output {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match command.output() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            outcome => return outcome.unwrap(),
        }
    }
}

/// A data folder of this test process's own, for commands whose store does not matter to the
/// test (never the user's).
pub fn scratch() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// `iomark ARGS` on the scratch store, which must succeed.
pub fn run_ok(args: &[&str]) -> Output {
    let output = iomark(scratch()).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "iomark {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The names in `dir`.
pub fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Whether this process runs as root (loop devices, mounts, raw devices).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The file where skipped tests are listed, a line each: `tests/run` empties it before the
/// tests and counts its lines in its closing line.
pub fn skip_list() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped")
}

/// A test that cannot run on this machine, for a reason of the machine's (not root, a kernel or
/// container without loop devices, mounts or a cgroup controller): says why on stderr and
/// lists it in [`skip_list`], so the closing line counts it instead of it passing silently. A
/// missing package is no reason to skip: [`need`] fails naming it.
pub fn skip(why: &str) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    eprintln!("skipped: {why}");
    let line = format!("{test}: {why}\n");
    let mut list = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(skip_list())
        .expect("the list of skipped tests");
    // One write of one line: appends from tests running at once do not interleave.
    list.write_all(line.as_bytes())
        .expect("the list of skipped tests");
}

/// Whether this runs as root; if not, the test is [`skip`]ped, saying `what` needs root.
pub fn root_for(what: &str) -> bool {
    let root = is_root();
    if !root {
        skip(&format!("{what} needs root"));
    }
    root
}

/// Fails the test unless `program` is on PATH, naming the Debian package that has it.
pub fn need(program: &str, package: &str) {
    let found = std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    });
    assert!(
        found,
        "this test needs {program}: apt-get install {package} (tests/run installs it)"
    );
}

/// Starts a long run in `dir` (stderr piped) and returns once its test file exists and it is
/// past the fill, into the timed tests with I/O in flight.
pub fn start_long_run(dir: &Path) -> std::process::Child {
    let child = iomark(scratch())
        .args([
            "run",
            dir.to_str().unwrap(),
            "--size",
            "16MiB",
            "--loops",
            "5",
            "--duration",
            "2s",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_test_file(dir);
    std::thread::sleep(Duration::from_millis(800));
    child
}

/// Waits (up to 20 s) until an iomark test file exists in `dir`.
pub fn wait_for_test_file(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !entries(dir)
        .iter()
        .any(|n| n.starts_with(".iomark-") && n.ends_with(".tmp"))
    {
        assert!(Instant::now() < deadline, "the test file never appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
}
