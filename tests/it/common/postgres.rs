//! A private PostgreSQL server for the store's tests, and a streaming replica of it: real
//! servers from Debian's `postgresql` package (`tests/run` installs it), on 127.0.0.1, each in
//! a folder of its own that goes when it is dropped.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A PostgreSQL server of the test's own on 127.0.0.1, stopped when dropped. With
/// `IOMARK_TEST_POSTGRES` set to a URL of a server where that user may create databases, that
/// server is used instead.
pub struct Postgres {
    child: std::sync::Mutex<Option<Child>>,
    base: String,
    bin: PathBuf,
    dir: Option<tempfile::TempDir>,
    next: std::sync::atomic::AtomicU32,
    /// How to start the server again after [`Postgres::stop`] (our own server only).
    restart: Option<Command>,
    port: u16,
    /// The user the server runs as (`postgres` when the tests run as root).
    ids: Option<(u32, u32)>,
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

/// A new folder for a server's data, owned by whoever the server runs as.
fn data_dir(ids: Option<(u32, u32)>) -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).unwrap();
    if let Some((uid, gid)) = ids {
        for p in [dir.path(), data.as_path()] {
            std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
        }
    }
    (dir, data)
}

/// `command` as the server's user, with its folder as home.
fn as_owner(command: &mut Command, ids: Option<(u32, u32)>, home: &Path) {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = ids {
        command.uid(uid).gid(gid);
    }
    command.env("HOME", home);
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl Postgres {
    pub fn start() -> Postgres {
        if let Ok(url) = std::env::var("IOMARK_TEST_POSTGRES") {
            return Postgres {
                child: None.into(),
                base: url,
                bin: bin_dir(),
                dir: None,
                next: 0.into(),
                restart: None,
                port: 0,
                ids: None,
            };
        }
        // PostgreSQL refuses to run as root: as root, run it as the `postgres` user Debian's
        // package creates.
        let root = unsafe { libc::geteuid() } == 0;
        let ids = root.then(|| user_ids("postgres").unwrap_or((65534, 65534)));
        let bin = bin_dir();
        let (dir, data) = data_dir(ids);
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
        as_owner(&mut init, ids, dir.path());
        let out = init.output().unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Postgres::launch(bin, dir, ids)
    }

    /// A streaming replica of this server (our own only): a base backup taken now with
    /// `pg_basebackup -R` (which writes the standby's settings), started on a port of its own.
    /// It replays what the primary writes from then on, and refuses writes.
    pub fn replica(&self) -> Postgres {
        assert!(self.dir.is_some(), "a replica is made of our own server");
        let (dir, data) = data_dir(self.ids);
        let mut backup = Command::new(self.bin.join("pg_basebackup"));
        backup
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "iomark",
            ])
            .args([
                "-D",
                data.to_str().unwrap(),
                "-R",
                "-X",
                "stream",
                // A checkpoint at once, not spread over minutes (90 s here without it).
                "--checkpoint=fast",
                "--no-sync",
            ])
            .stdout(Stdio::null());
        as_owner(&mut backup, self.ids, dir.path());
        let out = backup.output().unwrap();
        assert!(
            out.status.success(),
            "pg_basebackup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Postgres::launch(self.bin.clone(), dir, self.ids)
    }

    /// Starts a server on the data in `dir`, on a free port.
    fn launch(bin: PathBuf, dir: tempfile::TempDir, ids: Option<(u32, u32)>) -> Postgres {
        let port = free_port();
        let data = dir.path().join("data");
        let server = || {
            let mut server = Command::new(bin.join("postgres"));
            server
                .args(["-D", data.to_str().unwrap(), "-h", "127.0.0.1"])
                .args(["-p", &port.to_string(), "-k", dir.path().to_str().unwrap()])
                .args(["-F", "-c", "max_connections=100"])
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            as_owner(&mut server, ids, dir.path());
            server
        };
        let child = server().spawn().unwrap();
        let pg = Postgres {
            child: Some(child).into(),
            base: format!("postgres://iomark@127.0.0.1:{port}/postgres"),
            restart: Some(server()),
            bin,
            dir: Some(dir),
            next: 0.into(),
            port,
            ids,
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
        self.psql_on(&self.base, &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        let (server, _) = self.base.rsplit_once('/').unwrap();
        format!("{server}/{name}")
    }

    /// What `sql` prints, run on database `name` (unaligned, tuples only).
    pub fn psql(&self, name: &str, sql: &str) -> String {
        self.psql_on(&self.url(name), sql)
    }

    fn psql_on(&self, url: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args([url, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
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
