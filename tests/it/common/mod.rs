//! Helpers shared by the integration tests that use the store: the binary with a store of the
//! test's own, constructed result documents, and a private PostgreSQL server.

#![allow(dead_code)]

pub mod devices;
pub mod site;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
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

/// A constructed result document: the standard profile's tests at `scale` times a base set of
/// figures, with three loops spread by `spread` (so its CV is known).
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
            let loops: Vec<Value> = [1.0 - spread, 1.0, 1.0 + spread]
                .iter()
                .map(|f| {
                    json!({"mb_per_s": mb * f, "iops": mb * f * 1e6 / bs as f64,
                           "bytes": (mb * f * 1e6) as u64, "ios": (mb * f * 1e6 / bs as f64) as u64,
                           "seconds": 1.0})
                })
                .collect();
            tests.push(json!({
                "name": name, "kind": kind, "op": op, "block_size": bs, "queue_depth": qd,
                "threads": 1, "mb_per_s": mb, "iops": mb * 1e6 / bs as f64,
                "latency_us": {"min": 10.0, "mean": 100.0, "p50": 90.0, "p90": 150.0,
                               "p99": 300.0, "p99_9": 700.0, "max": 2000.0, "stddev": 30.0},
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

/// Writes a document to `dir/NAME.json`; returns the path.
pub fn write_doc(dir: &Path, doc: &Value) -> PathBuf {
    let path = dir.join(format!("{}.json", doc["id"].as_str().unwrap()));
    std::fs::write(&path, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    path
}

/// A PostgreSQL server of the test's own on 127.0.0.1, from Debian's `postgresql` package
/// (`tests/run` installs it), stopped when dropped. With `IOMARK_TEST_POSTGRES` set to a URL of a
/// server where that user may create databases, that server is used instead.
pub struct Postgres {
    child: std::sync::Mutex<Option<Child>>,
    base: String,
    bin: PathBuf,
    _dir: Option<tempfile::TempDir>,
    next: std::sync::atomic::AtomicU32,
    /// How to start the server again after [`Postgres::stop`] (our own server only).
    restart: Option<Command>,
    port: u16,
}

fn bin_dir() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path().join("bin"))
                .filter(|p| p.join("postgres").is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found.pop().expect(
        "PostgreSQL is needed for the store's tests: apt-get install postgresql (tests/run installs it), \
         or set IOMARK_TEST_POSTGRES=postgres://user@host/db",
    )
}

impl Postgres {
    pub fn start() -> Postgres {
        if let Ok(url) = std::env::var("IOMARK_TEST_POSTGRES") {
            return Postgres {
                child: None.into(),
                base: url,
                bin: bin_dir(),
                _dir: None,
                next: 0.into(),
                restart: None,
                port: 0,
            };
        }
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::CommandExt;
        let bin = bin_dir();
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let root = unsafe { libc::geteuid() } == 0;
        // PostgreSQL refuses to run as root: as root, run it as the `postgres` user Debian's
        // package creates.
        let ids = root.then(|| user_ids("postgres").unwrap_or((65534, 65534)));
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).unwrap();
        if let Some((uid, gid)) = ids {
            for p in [dir.path(), data.as_path()] {
                std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
            }
        }
        let as_owner = |command: &mut Command| {
            if let Some((uid, gid)) = ids {
                command.uid(uid).gid(gid);
            }
            command.env("HOME", dir.path());
        };
        let mut init = Command::new(bin.join("initdb"));
        init.args([
            "-D",
            data.to_str().unwrap(),
            "-U",
            "iomark",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ])
        .stdout(Stdio::null());
        as_owner(&mut init);
        let out = init.output().unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let server = || {
            let mut server = Command::new(bin.join("postgres"));
            server
                .args([
                    "-D",
                    data.to_str().unwrap(),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &port.to_string(),
                ])
                .args([
                    "-k",
                    dir.path().to_str().unwrap(),
                    "-F",
                    "-c",
                    "max_connections=100",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            as_owner(&mut server);
            server
        };
        let child = server().spawn().unwrap();
        let pg = Postgres {
            child: Some(child).into(),
            base: format!("postgres://iomark@127.0.0.1:{port}/postgres"),
            restart: Some(server()),
            bin,
            _dir: Some(dir),
            next: 0.into(),
            port,
        };
        pg.wait_ready();
        pg
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-q"])
                .status()
                .unwrap();
            if ready.success() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "PostgreSQL did not start in 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops our own server (fast shutdown: connections are cut); false for a server given by
    /// IOMARK_TEST_POSTGRES, which is not ours to stop.
    pub fn stop(&self) -> bool {
        let mut child = self.child.lock().unwrap();
        let Some(mut running) = child.take() else {
            return false;
        };
        unsafe { libc::kill(running.id() as i32, libc::SIGINT) };
        let _ = running.wait();
        true
    }

    /// Starts our own server again, on the same port and data, after [`Postgres::stop`].
    pub fn start_again(&mut self) {
        let command = self.restart.as_mut().expect("our own server");
        let child = command.spawn().unwrap();
        *self.child.lock().unwrap() = Some(child);
        self.wait_ready();
    }

    /// A new, empty database on the server: its URL.
    pub fn database(&self) -> String {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let name = format!("iomark_test_{}_{n}", std::process::id());
        let status = Command::new(self.bin.join("psql"))
            .args([&self.base, "-q", "-v", "ON_ERROR_STOP=1", "-c"])
            .arg(format!("CREATE DATABASE {name}"))
            .status()
            .unwrap();
        assert!(status.success(), "cannot create database {name}");
        let (server, _) = self.base.rsplit_once('/').unwrap();
        format!("{server}/{name}")
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGINT: PostgreSQL's fast shutdown.
        self.stop();
    }
}

fn user_ids(name: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.first() == Some(&name))
            .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))?
    })
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
