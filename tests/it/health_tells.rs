//! Issue 48: a health check told where people and monitors look, each for real: a monitor's
//! exit status, node_exporter reading the metrics file, a webhook received by a server of the
//! test's own, the login message shown by pam_motd through pamtester, the journal's priority.
//! A check's verdict is changed as in `health.rs`: a canary altered behind its back is a card
//! that lies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{entries, exits, iomark, is_root, need, ok, refused_saying, skip};

/// `iomark health DIR MORE…` with the store in `home`.
fn health(home: &Path, dir: &Path, more: &[&str]) -> Output {
    iomark(home)
        .arg("health")
        .arg(dir)
        .args(more)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Changes one byte of a canary (the next check says the card lies), or puts it back.
fn flip_canary(dir: &Path) {
    let canary = dir.join("iomark-health/canary-1");
    let mut bytes = std::fs::read(&canary).unwrap();
    bytes[4096] ^= 0x01;
    std::fs::write(&canary, bytes).unwrap();
}

#[test]
fn a_monitor_reads_the_verdict_in_the_exit_status_and_the_first_line() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = health(home.path(), dir.path(), &["--monitor"]);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let first = said.lines().next().unwrap();
    assert!(first.starts_with("HEALTH OK - "), "{said}");
    // Performance data after the bar, as Nagios reads it.
    let perf = first.split_once(" | ").unwrap().1;
    for key in ["canary_bad=0B;;;0", "read_p99=", "synced_write_p99="] {
        assert!(perf.contains(key), "{first}");
    }
    // The report follows as the long output.
    assert!(said.contains("HEALTHY"), "{said}");
    flip_canary(dir.path());
    let out = health(home.path(), dir.path(), &["--monitor"]);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.starts_with("HEALTH CRITICAL - "), "{said}");
    assert!(said.contains("canary_bad=512B"), "{said}");
    // No check made: unknown, 3, with the reason on the status line; bad arguments too.
    let theirs = tempfile::tempdir().unwrap();
    std::fs::create_dir(theirs.path().join("iomark-health")).unwrap();
    let out = health(home.path(), theirs.path(), &["--monitor"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stdout).starts_with("HEALTH UNKNOWN - ")
            && text(&out.stdout).contains("is not iomark's"),
        "{}",
        text(&out.stdout)
    );
    let out = health(home.path(), dir.path(), &["--monitor", "--budget", "lots"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // Without --monitor the status is the verdict's too (`iomark health PATH || notify`).
    let out = health(home.path(), dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
}

/// A watch verdict is 1: ext4 counts an error (its own sysfs trigger, as after a bad block),
/// and the filesystem stays writable.
#[test]
fn a_filesystem_error_is_a_warning_for_a_monitor() {
    let Some(disk) = crate::common::power::Disk::formatted(64 << 20) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let first = health(home.path(), &disk.mount, &["--monitor"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stdout));
    let name = disk.device().rsplit('/').next().unwrap().to_string();
    let trigger = PathBuf::from(format!("/sys/fs/ext4/{name}/trigger_fs_error"));
    if !trigger.exists() {
        skip("this kernel's ext4 has no trigger_fs_error");
        return;
    }
    std::fs::write(&trigger, "iomark test\n").unwrap();
    let out = health(home.path(), &disk.mount, &["--monitor"]);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.starts_with("HEALTH WARNING - "), "{said}");
    assert!(said.contains("ext4 has counted"), "{said}");
}

/// node_exporter itself (Debian's package, on 127.0.0.1) reads the file a check writes, and
/// a later check replaces it whole.
#[test]
fn node_exporter_reads_the_metrics_a_check_writes() {
    need("prometheus-node-exporter", "prometheus-node-exporter");
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let textfiles = tempfile::tempdir().unwrap();
    let file = textfiles.path().join("iomark-health.prom");
    let file_arg = file.to_str().unwrap();
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(["--textfile", file_arg]));
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut exporter = Command::new("prometheus-node-exporter")
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .args(["--collector.disable-defaults", "--collector.textfile"])
        .arg(format!(
            "--collector.textfile.directory={}",
            textfiles.path().display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _stop = Kill(exporter.id());
    let scrape = || -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let got = http_get(port, "/metrics");
            if let Some(body) = got {
                return body;
            }
            assert!(Instant::now() < deadline, "node_exporter did not answer");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let path = dir.path().canonicalize().unwrap();
    let series = |verdict: &str| format!(",path=\"{}\",verdict=\"{verdict}\"}} 1", path.display());
    let metrics = scrape();
    assert!(
        metrics.contains("node_textfile_scrape_error 0"),
        "{metrics}"
    );
    assert!(metrics.contains(&series("healthy")), "{metrics}");
    assert!(metrics.contains("iomark_health_status{"), "{metrics}");
    assert!(
        metrics.contains("iomark_health_read_latency_p99_seconds{"),
        "{metrics}"
    );
    flip_canary(dir.path());
    exits(
        2,
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(["--textfile", file_arg]),
    );
    let metrics = scrape();
    assert!(
        metrics.contains("node_textfile_scrape_error 0"),
        "{metrics}"
    );
    assert!(metrics.contains(&series("lying")), "{metrics}");
    // Only the file itself is in the folder: nothing half-written left beside it.
    assert_eq!(entries(textfiles.path()), ["iomark-health.prom"]);
    let _ = exporter.kill();
    let _ = exporter.wait();
}

#[test]
fn a_metrics_file_that_node_exporter_would_not_read_or_a_link_is_refused_before_checking() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let plain = other.path().join("metrics.txt");
    refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .arg("--textfile")
            .arg(&plain),
        "ending in .prom",
    );
    let link = other.path().join("x.prom");
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .arg("--textfile")
            .arg(&link),
        "symbolic link",
    );
    // Nothing was checked, so nothing was written.
    assert!(entries(dir.path()).is_empty());
}

/// What a webhook server of the test's own was sent: each request's body, answered with the
/// status the test sets.
struct Hook {
    url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
    status: Arc<Mutex<u16>>,
}

impl Hook {
    fn start() -> Hook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "http://{}/api/webhook/card?token=a%20b",
            listener.local_addr().unwrap()
        );
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let status = Arc::new(Mutex::new(200u16));
        let (log, answer) = (bodies.clone(), status.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let mut length = 0usize;
                let mut first = true;
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    let lower = line.to_ascii_lowercase();
                    if first {
                        assert!(
                            line.starts_with("POST /api/webhook/card?token=a%20b "),
                            "{line}"
                        );
                        first = false;
                    }
                    if let Some(n) = lower.strip_prefix("content-length:") {
                        length = n.trim().parse().unwrap();
                    }
                    line.clear();
                }
                let mut body = vec![0u8; length];
                reader.read_exact(&mut body).unwrap();
                log.lock()
                    .unwrap()
                    .push(serde_json::from_slice(&body).unwrap());
                let code = *answer.lock().unwrap();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {code} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
            }
        });
        Hook {
            url,
            bodies,
            status,
        }
    }

    fn sent(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

#[test]
fn a_webhook_hears_of_a_card_that_lies_and_once_of_its_recovery() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let hook = Hook::start();
    let with_hook = ["--webhook", hook.url.as_str()];
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(with_hook));
    assert!(hook.sent().is_empty(), "a healthy card is no news");
    flip_canary(dir.path());
    exits(
        2,
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(with_hook),
    );
    let sent = hook.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    let told = &sent[0];
    assert_eq!(told["event"], "iomark.health");
    assert_eq!(told["verdict"], "lying");
    assert_eq!(told["previous_verdict"], "healthy");
    assert_eq!(told["checks"], 2);
    let path = dir.path().canonicalize().unwrap();
    assert_eq!(told["path"], path.to_str().unwrap());
    assert!(
        told["title"].as_str().unwrap().starts_with("LYING: "),
        "{told}"
    );
    assert!(
        told["message"]
            .as_str()
            .unwrap()
            .starts_with("It does not keep what it is given"),
        "{told}"
    );
    assert!(told["signals"].as_array().is_some_and(|s| !s.is_empty()));
    // The result it names is in the history.
    let id = told["result_id"].as_str().unwrap();
    ok(iomark(home.path()).args(["show", id]));
    // Put back: one all-clear, then quiet again.
    flip_canary(dir.path());
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(with_hook));
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(with_hook));
    let sent = hook.sent();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[1]["verdict"], "healthy");
    assert_eq!(sent[1]["previous_verdict"], "lying");
    // A server that fails twice: the check is saved all the same, and the command says what
    // was not told.
    *hook.status.lock().unwrap() = 503;
    flip_canary(dir.path());
    let out = health(home.path(), dir.path(), &with_hook);
    assert_eq!(
        out.status.code(),
        Some(2),
        "the verdict's status, the failure said"
    );
    let said = text(&out.stderr);
    assert!(
        said.contains("the check is made (verdict: lying)") && said.contains("answered 503"),
        "{said}"
    );
    assert!(
        !said.contains("token"),
        "the address's secret is not printed: {said}"
    );
    assert_eq!(hook.sent().len(), 4, "sent again once after a 5xx");
    let listed = text(&ok(iomark(home.path()).arg("history")).stdout);
    assert!(listed.contains("lying (check 5)"), "{listed}");
}

#[test]
fn a_webhook_address_that_is_not_one_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for bad in ["ntfy.sh/topic", "ftp://x/y", "http://", "https:///path"] {
        refused_saying(
            iomark(home.path())
                .arg("health")
                .arg(dir.path())
                .args(["--webhook", bad]),
            "is not a web address",
        );
    }
    assert!(entries(dir.path()).is_empty());
}

/// pamtester opens a session of a PAM service of the test's own, whose only module is
/// pam_motd reading the folder the checks write in: what a person logging in would see.
fn login_sees(motd_dir: &Path) -> String {
    let service = format!("iomark-test-motd-{}", std::process::id());
    let file = Path::new("/etc/pam.d").join(&service);
    std::fs::write(
        &file,
        format!(
            "session optional pam_motd.so motd=/dev/null motd_dir={}\n",
            motd_dir.display()
        ),
    )
    .unwrap();
    let out = Command::new("pamtester")
        .args([service.as_str(), "root", "open_session"])
        .output();
    let _ = std::fs::remove_file(&file);
    let out = out.unwrap();
    text(&out.stdout) + &text(&out.stderr)
}

#[test]
fn the_login_message_is_there_while_the_card_is_not_healthy() {
    if !is_root() {
        skip("pamtester's PAM service is a file in /etc/pam.d, root's");
        return;
    }
    need("pamtester", "pamtester");
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let motd = tempfile::tempdir().unwrap();
    let motd_dir = ["--motd-dir", motd.path().to_str().unwrap()];
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(motd_dir));
    assert!(entries(motd.path()).is_empty(), "healthy: no message");
    flip_canary(dir.path());
    exits(
        2,
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(motd_dir),
    );
    let names = entries(motd.path());
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("iomark-health-"), "{names:?}");
    let seen = login_sees(motd.path());
    assert!(
        seen.contains("iomark health:") && seen.contains("is LYING"),
        "{seen}"
    );
    assert!(seen.contains("copy what matters off it now"), "{seen}");
    // Healthy again: the message goes.
    flip_canary(dir.path());
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(motd_dir));
    assert!(entries(motd.path()).is_empty());
    assert!(!login_sees(motd.path()).contains("iomark health:"));
    // A file of someone else's at that name is refused and kept; a link to /dev/null (how an
    // administrator silences a message) is left as it is.
    let theirs = motd.path().join(&names[0]);
    std::fs::write(&theirs, "their message\n").unwrap();
    flip_canary(dir.path());
    refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(motd_dir),
        "is not iomark's",
    );
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "their message\n");
    std::fs::remove_file(&theirs).unwrap();
    std::os::unix::fs::symlink("/dev/null", &theirs).unwrap();
    exits(
        2,
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(motd_dir),
    );
    assert_eq!(std::fs::read_link(&theirs).unwrap(), Path::new("/dev/null"));
}

/// Under systemd, standard output is the journal's stream (`JOURNAL_STREAM` names it): the
/// verdict's line carries its priority, as systemd reads it. The same file without the
/// variable gets no prefix.
#[test]
fn the_journal_files_the_verdict_under_its_priority() {
    use std::os::unix::fs::MetadataExt;
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let run = |journal: bool, status: i32| -> String {
        let path = out_dir.path().join(format!("out-{journal}"));
        let file = std::fs::File::create(&path).unwrap();
        let meta = file.metadata().unwrap();
        let mut command = iomark(home.path());
        command.arg("health").arg(dir.path()).stdout(file);
        if journal {
            command.env("JOURNAL_STREAM", format!("{}:{}", meta.dev(), meta.ino()));
        } else {
            command.env_remove("JOURNAL_STREAM");
        }
        assert_eq!(command.status().unwrap().code(), Some(status));
        std::fs::read_to_string(&path).unwrap()
    };
    let first = run(true, 0);
    assert!(first.starts_with("<6>iomark health: "), "{first}");
    flip_canary(dir.path());
    let lying = run(true, 2);
    assert!(
        lying.starts_with("<2>iomark health: ") && lying.contains("is LYING"),
        "{lying}"
    );
    let plain = run(false, 2);
    assert!(!plain.starts_with('<'), "{plain}");
}

/// A stream reader's GET: the body of a 200, none otherwise.
fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nhost: 127.0.0.1\r\n\r\n").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    (head.split(' ').nth(1) == Some("200")).then(|| body.to_string())
}

/// Kills a process when dropped (a failed assertion leaves no server behind).
struct Kill(u32);

impl Drop for Kill {
    fn drop(&mut self) {
        // SAFETY: kill has no memory preconditions; the pid is our child's.
        unsafe {
            libc::kill(self.0 as i32, libc::SIGKILL);
        }
    }
}

/// `--history`: the checks of one folder from the store, oldest first, in a table, and drawn
/// over time as the rest of iomark's charts are (SVG or PNG); another folder's checks are not
/// among them.
#[test]
fn the_history_of_a_folder_s_checks_is_listed_and_drawn() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        ok(iomark(home.path()).arg("health").arg(dir.path()));
    }
    flip_canary(dir.path());
    exits(2, iomark(home.path()).arg("health").arg(dir.path()));
    ok(iomark(home.path()).arg("health").arg(other.path()));
    let out = ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .arg("--history"));
    let said = text(&out.stdout);
    let rows: Vec<&str> = said.lines().filter(|l| l.contains(" check ")).collect();
    assert_eq!(rows.len(), 4, "{said}");
    assert!(
        rows[0].contains("healthy") && rows[3].contains("lying"),
        "{said}"
    );
    // Drawn: the folder, its checks, the one that was not healthy named.
    let charts = tempfile::tempdir().unwrap();
    let svg = charts.path().join("health.svg");
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .arg("--history")
        .arg("--chart")
        .arg(&svg));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(
        drawn.starts_with("<svg") && drawn.contains("4 checks"),
        "{drawn:.300}"
    );
    assert!(
        drawn.contains(">\nlying\n</text>"),
        "the lying check is named"
    );
    let png = charts.path().join("health.png");
    ok(iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .arg("--history")
        .arg("--chart")
        .arg(&png));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // A folder never checked: said so, with how to check it.
    let never = tempfile::tempdir().unwrap();
    refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(never.path())
            .arg("--history"),
        "no health check of",
    );
    // --chart needs --history, and a picture's name.
    refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(["--history", "--chart"])
            .arg(charts.path().join("x.txt")),
        ".svg or .png",
    );
}

/// `--notify`: a desktop notification through notify-send, received by a real notification
/// daemon (dunst, printing what it is given) in a session of the test's own (a D-Bus session
/// and a virtual X display). A healthy card shows nothing; a card that lies, a critical one.
#[test]
fn a_desktop_notification_is_shown_when_the_card_lies() {
    for (program, package) in [
        ("dunst", "dunst"),
        ("xvfb-run", "xvfb"),
        ("notify-send", "libnotify-bin"),
        ("dbus-run-session", "dbus"),
    ] {
        need(program, package);
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shown = home.path().join("shown.txt");
    let session = |script: &str, status: i32| {
        let out = Command::new("xvfb-run")
            .args(["-a", "dbus-run-session", "--", "sh", "-c"])
            .arg(format!(
                "dunst -print >'{}' 2>/dev/null & daemon=$!; sleep 1; {script}; status=$?; \
                 sleep 1; kill $daemon; exit $status",
                shown.display()
            ))
            .env("XDG_DATA_HOME", home.path())
            .env_remove("IOMARK_DB")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(status), "{}", text(&out.stderr));
        std::fs::read_to_string(&shown).unwrap()
    };
    let check = format!(
        "'{}' health '{}' --notify",
        env!("CARGO_BIN_EXE_iomark"),
        dir.path().display()
    );
    let seen = session(&check, 0);
    assert!(
        !seen.contains("iomark health"),
        "a healthy card is no news: {seen}"
    );
    flip_canary(dir.path());
    let seen = session(&check, 2);
    assert!(seen.contains("summary: 'iomark health: "), "{seen}");
    assert!(seen.contains("is LYING'"), "{seen}");
    assert!(seen.contains("urgency: CRITICAL"), "{seen}");
    assert!(seen.contains("appname: 'iomark'"), "{seen}");
    // No session at all: the check is made and saved, the notification said not shown.
    let out = iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .arg("--notify")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no desktop session now"),
        "{}",
        text(&out.stderr)
    );
}
