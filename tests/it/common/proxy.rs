//! A real reverse proxy from Debian (haproxy, which `tests/run` installs) on 127.0.0.1 in front
//! of several `iomark serve`: what docs/SITE.md configures, with its health checks and its
//! retries, stopped when dropped.

#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Haproxy {
    child: Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

/// haproxy's program: under /usr/sbin, which a user's PATH may not hold.
fn program() -> String {
    ["/usr/sbin/haproxy", "/usr/bin/haproxy"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
        .map(str::to_string)
        .unwrap_or_else(|| {
            super::need("haproxy", "haproxy");
            "haproxy".into()
        })
}

impl Haproxy {
    /// haproxy on a free port with packaging/haproxy.cfg, the configuration docs/SITE.md gives,
    /// its addresses replaced: the site's own with the port, the processes' with `backends`
    /// (`http://127.0.0.1:PORT`, one or two).
    pub fn start(backends: &[&str]) -> Haproxy {
        assert!((1..=2).contains(&backends.len()), "one or two processes");
        let dir = tempfile::tempdir().unwrap();
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let mut addresses = vec![format!("127.0.0.1:{port}")];
        addresses.extend(backends.iter().map(|url| {
            url.trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string()
        }));
        let config = replace_addresses(&shipped(), &addresses);
        let file = dir.path().join("haproxy.cfg");
        std::fs::write(&file, config).unwrap();
        let program = program();
        let check = Command::new(&program)
            .args(["-c", "-q", "-f"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "haproxy -c: {}",
            String::from_utf8_lossy(&check.stderr)
        );
        let child = Command::new(&program)
            .args(["-db", "-f"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "haproxy did not listen in 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        Haproxy {
            child,
            url: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        }
    }
}

/// packaging/haproxy.cfg.
fn shipped() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/packaging/haproxy.cfg"
    ))
    .unwrap()
}

/// `config` with its addresses 127.0.0.1:8080, :8081 and :8082 replaced by `addresses` (the
/// site's, then the processes'); the lines of a process not given are dropped.
fn replace_addresses(config: &str, addresses: &[String]) -> String {
    // Marked first, so that an address given cannot itself be replaced.
    let marked = (0..3).fold(config.to_string(), |text, n| {
        text.replace(&format!("127.0.0.1:808{n}"), &format!("\u{1}{n}"))
    });
    marked
        .lines()
        .filter(|line| (addresses.len()..3).all(|n| !line.contains(&format!("\u{1}{n}"))))
        .map(|line| {
            let line = addresses
                .iter()
                .enumerate()
                .fold(line.to_string(), |line, (n, a)| {
                    line.replace(&format!("\u{1}{n}"), a)
                });
            line + "\n"
        })
        .collect()
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
