//! A real reverse proxy from Debian (haproxy, which `tests/run` installs) on 127.0.0.1 in front
//! of several `iomark serve`: what README's "Running a public site" configures, with its
//! health checks and its retries, stopped when dropped.

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
    /// haproxy on a free port, balancing `balance` (`roundrobin`, `source`) over `backends`
    /// (`http://127.0.0.1:PORT`), each checked every 200 ms. A request whose connection fails
    /// or whose server closes without answering is tried again on another server (`retry-on`,
    /// `option redispatch`): a submission replayed so is refused 409, never saved twice.
    pub fn start(backends: &[&str], balance: &str) -> Haproxy {
        let dir = tempfile::tempdir().unwrap();
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let servers: String = backends
            .iter()
            .enumerate()
            .map(|(i, url)| {
                let address = url.trim_start_matches("http://").trim_end_matches('/');
                format!("    server site{i} {address} check inter 200ms fall 2 rise 2\n")
            })
            .collect();
        let config = format!(
            "global\n    maxconn 2048\n\
             defaults\n    mode http\n    timeout connect 1s\n    timeout client 30s\n\
             \x20   timeout server 30s\n    retries 3\n    option redispatch 1\n\
             \x20   retry-on conn-failure empty-response response-timeout\n\
             \x20   option forwardfor\n\
             frontend site\n    bind 127.0.0.1:{port}\n    default_backend iomark\n\
             backend iomark\n    balance {balance}\n{servers}"
        );
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

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
