//! Issue 27: the site as a service. A posted link to a result previews its card (Open Graph, at
//! the site's public address); the systemd unit the package installs is valid and hardened by
//! systemd's own offline audit.

use std::process::Command;

use crate::common::need;
use crate::common::site::{device_doc, get, get_bytes, post, ulid, Site, NO_LIMITS};

#[test]
fn a_posted_link_previews_the_result_card() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--public-url", "https://results.example/"]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let doc = device_doc(
        1,
        "SanDisk",
        "Ultra \"Fit\" <b>",
        0.02,
        "Raspberry Pi 4 Model B",
    );
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc).status,
        201
    );
    let page = get(&format!("{}/results/{}", site.url, ulid(1))).body;
    let head = &page[..page.find("</head>").expect("a head")];
    let image = format!(
        "<meta property=\"og:image\" content=\"https://results.example/results/{}/card.png\">",
        ulid(1)
    );
    assert!(head.contains(&image), "{head}");
    assert!(head.contains(&format!(
        "<meta property=\"og:url\" content=\"https://results.example/results/{}\">",
        ulid(1)
    )));
    assert!(head.contains("summary_large_image"), "{head}");
    // The device's name, escaped inside the attribute; its figures in the description.
    let escaped = [
        "Ultra &#34;Fit&#34; &#60;b&#62;",
        "Ultra &quot;Fit&quot; &lt;b&gt;",
    ];
    assert!(escaped.iter().any(|e| head.contains(e)), "{head}");
    assert!(!head.contains("<b>") && !head.contains("\"Fit\""), "{head}");
    assert!(head.contains("SEQ1M Q8T1 read"), "{head}");
    assert!(head.contains("on a Raspberry Pi 4 Model B"), "{head}");
    // The picture it names is there.
    let (status, kind, _) = get_bytes(&format!("{}/results/{}/card.png", site.url, ulid(1)));
    assert_eq!((status, kind.as_str()), (200, "image/png"));
}

/// The unit in `packaging/debian/`, its binary this build's: valid by `systemd-analyze verify`,
/// and its exposure by `systemd-analyze security --offline` at most 2.0 of 10.
#[test]
fn the_service_unit_is_valid_and_hardened() {
    need("systemd-analyze", "systemd");
    let dir = tempfile::tempdir().unwrap();
    let unit = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/packaging/debian/iomark.service"
    ))
    .unwrap();
    assert!(unit.contains("ExecStart=/usr/bin/iomark serve --listen 127.0.0.1:8080"));
    let local = dir.path().join("iomark.service");
    std::fs::write(
        &local,
        unit.replace("/usr/bin/iomark", env!("CARGO_BIN_EXE_iomark")),
    )
    .unwrap();
    let verify = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&local)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let audit = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--threshold=20"])
        .arg(&local)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&audit.stdout);
    assert!(audit.status.success(), "{said}");
    assert!(
        said.contains("Overall exposure level for iomark.service"),
        "{said}"
    );
}

/// `/metrics`: requests by route, method and status (a submission's 201 and a refusal's 422
/// among them), their times, the cache's hits, the store's connections; paths the site has no
/// route for are one series however many there are; never served from the cache.
#[test]
fn an_operator_reads_the_site_s_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let url = &site.url;
    let doc = device_doc(1, "SanDisk", "Ultra Fit", 0.02, "Raspberry Pi 4 Model B");
    assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 201);
    assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 409);
    let mut bad = doc.clone();
    bad["id"] = serde_json::json!(ulid(2));
    bad["price_usd"] = serde_json::json!(-1);
    assert_eq!(post(&format!("{url}/api/v1/results"), &bad).status, 422);
    let mut other = doc.clone();
    other["id"] = serde_json::json!(ulid(3));
    other["schema"] = serde_json::json!("iomark.result/9");
    for _ in 0..2 {
        assert_eq!(post(&format!("{url}/api/v1/results"), &other).status, 422);
    }
    // A document marked as the load generator's own: read, then refused by what it claims.
    let mut synthetic = doc.clone();
    synthetic["id"] = serde_json::json!(ulid(4));
    synthetic["synthetic"] = serde_json::json!(true);
    assert_eq!(
        post(&format!("{url}/api/v1/results"), &synthetic).status,
        422
    );
    for _ in 0..2 {
        assert_eq!(get(&format!("{url}/")).status, 200);
    }
    for n in 0..50 {
        assert_eq!(get(&format!("{url}/made-up/{n}")).status, 404);
    }
    let first = get(&format!("{url}/metrics"));
    assert_eq!(first.status, 200);
    assert!(first
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/plain; version=0.0.4")));
    let text = first.body;
    for line in [
        "iomark_requests_total{route=\"/api/v1/results\",method=\"POST\",status=\"201\"} 1",
        "iomark_requests_total{route=\"/api/v1/results\",method=\"POST\",status=\"409\"} 1",
        "iomark_requests_total{route=\"/api/v1/results\",method=\"POST\",status=\"422\"} 4",
        "iomark_submissions_refused_total{reason=\"implausible\"} 1",
        "iomark_submissions_saved_total 1",
        "iomark_submissions_refused_total{reason=\"bad_text\"} 1",
        "iomark_submissions_refused_total{reason=\"schema\"} 2",
        "iomark_requests_total{route=\"/\",method=\"GET\",status=\"200\"} 2",
        "iomark_requests_total{route=\"other\",method=\"GET\",status=\"404\"} 50",
        "iomark_cache_total{result=\"hit\"} 1",
        "iomark_request_duration_seconds_count{route=\"/\"} 2",
        // The 201 and the 409, each sent after the other was answered: a commit each.
        "iomark_store_submission_commits_total 2",
    ] {
        assert!(text.contains(line), "{line} in:\n{text}");
    }
    assert!(
        text.contains("iomark_store_connections{state=\"open\"}"),
        "{text}"
    );
    assert!(!text.contains("made-up"), "{text}");
    // Read again: counted anew, not kept.
    let again = get(&format!("{url}/metrics")).body;
    assert!(
        again.contains("iomark_requests_total{route=\"/metrics\",method=\"GET\",status=\"200\"} 1"),
        "{again}"
    );
}

/// `--workers N`: N threads answer requests (the runtime's own count at `/metrics`, and as many
/// of its threads in /proc at least); left out, one for each CPU the process may run on (here,
/// one CPU: one); 0 is refused in one line.
#[test]
fn the_operator_chooses_how_many_threads_answer() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let db = db.to_str().unwrap();
    let workers = |site: &Site| {
        let text = get(&format!("{}/metrics", site.url)).body;
        let line = text.lines().find(|l| l.starts_with("iomark_workers "));
        line.and_then(|l| l.rsplit(' ').next()?.parse::<u32>().ok())
            .unwrap_or_else(|| panic!("no iomark_workers in:\n{text}"))
    };
    let threads = |site: &Site| {
        std::fs::read_dir(format!("/proc/{}/task", site.pid()))
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .filter(|name| name.trim() == "tokio-rt-worker")
            .count()
    };
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--workers", "3"]);
    let site = Site::start(db, dir.path(), &args);
    assert_eq!(workers(&site), 3);
    assert!(threads(&site) >= 3, "{} threads", threads(&site));
    drop(site);

    let mut command = Site::command(db, dir.path(), &NO_LIMITS);
    // SAFETY: between fork and exec, one system call on a set built before the fork.
    let mut one = unsafe { std::mem::zeroed::<libc::cpu_set_t>() };
    unsafe { libc::CPU_SET(0, &mut one) };
    unsafe {
        command.pre_exec(move || {
            match libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let site = Site::launch(command);
    assert_eq!(workers(&site), 1, "on one CPU");
    drop(site);

    let out = Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "0",
            "--db",
            db,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--workers"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// `--log json`: one JSON line per request on standard error, with its route, status, time and
/// client (behind a trusted proxy, the address the proxy appended), never its query (what
/// someone searched for); `--log quiet` writes none.
#[test]
fn each_request_is_one_json_line_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let log = dir.path().join("serve.log");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--log", "json", "--trust-forwarded-for"]);
    let mut command = Site::command(db.to_str().unwrap(), dir.path(), &args);
    command.stderr(std::fs::File::create(&log).unwrap());
    let mut site = Site::launch(command);
    let url = site.url.clone();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let from = |path: &str| {
        agent
            .get(format!("{url}{path}"))
            .header("x-forwarded-for", "203.0.113.7")
            .call()
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(from("/?q=a+private+search"), 200);
    assert_eq!(from("/devices/none-such"), 404);
    let doc = device_doc(1, "SanDisk", "Ultra Fit", 0.02, "Raspberry Pi 4 Model B");
    assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 201);
    assert!(site.stop().success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("private"), "a query in the log: {text}");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .filter(|l: &serde_json::Value| l["target"] == "iomark::request")
        .collect();
    let seen: Vec<(String, String, u64, String)> = lines
        .iter()
        .map(|l| {
            assert!(l["ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{l}");
            assert!(l["timestamp"].is_string(), "{l}");
            (
                l["method"].as_str().unwrap().to_string(),
                l["route"].as_str().unwrap().to_string(),
                l["status"].as_u64().unwrap(),
                l["client"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("GET", "/", 200, "203.0.113.7"),
        ("GET", "/devices/{key}", 404, "203.0.113.7"),
        ("POST", "/api/v1/results", 201, "127.0.0.1"),
    ];
    let expected: Vec<(String, String, u64, String)> = expected
        .iter()
        .map(|(m, r, s, c)| (m.to_string(), r.to_string(), *s, c.to_string()))
        .collect();
    assert_eq!(seen, expected, "{text}");

    // Quiet: the site's events only.
    let quiet = dir.path().join("quiet.log");
    let mut command = Site::command(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    command.stderr(std::fs::File::create(&quiet).unwrap());
    let mut site = Site::launch(command);
    assert_eq!(get(&format!("{}/", site.url)).status, 200);
    assert!(site.stop().success());
    let text = std::fs::read_to_string(&quiet).unwrap();
    assert!(!text.contains("iomark::request"), "{text}");
}

/// A device with more ranked results than `--refresh-inline-up-to` has its aggregates
/// refreshed in the background: each submission is answered at once, and the leaderboard
/// catches up within seconds. A server killed before its refresh leaves the marks in the
/// store, and the next server refreshes them.
#[test]
fn a_busy_device_is_refreshed_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--refresh-inline-up-to", "2", "--cache-seconds", "0"]);
    let counted = busy_results;
    let wait_for = |url: &str, n: u64| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while counted(url) != Some(n) {
            assert!(
                std::time::Instant::now() < deadline,
                "the leaderboard never counted {n}: {:?}",
                counted(url)
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    let doc = |n: u32| {
        device_doc(
            n,
            "Busy",
            "Drive",
            0.02 + f64::from(n) / 1000.0,
            "Raspberry Pi 5",
        )
    };
    let mut site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    for n in 1..=5 {
        assert_eq!(
            post(&format!("{}/api/v1/results", site.url), &doc(n)).status,
            201
        );
    }
    wait_for(&site.url, 5);
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc(6)).status,
        201
    );
    site.kill();
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    wait_for(&site.url, 6);
}

/// How many results the leaderboard counts for the device searched as "busy".
fn busy_results(url: &str) -> Option<u64> {
    get(&format!("{url}/api/v1/leaderboard?q=busy")).json()["devices"][0]["results"].as_u64()
}

/// The background refresh of a busy device forgets the answers its new figures change (the
/// leaderboards, drawn anew with them) and keeps the other devices' pages in the cache.
#[test]
fn a_background_refresh_keeps_the_other_devices_pages() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--refresh-inline-up-to", "2", "--cache-seconds", "600"]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let url = site.url.clone();
    let submit = |n: u32, make: &str| {
        let doc = device_doc(
            n,
            make,
            "Drive",
            0.02 + f64::from(n) / 1000.0,
            "Raspberry Pi 5",
        );
        assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 201);
    };
    let cached = |path: &str| {
        let answer = get(&format!("{url}{path}"));
        assert_eq!(answer.status, 200, "{path}");
        answer
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("age"))
    };
    let counted = || busy_results(&url);
    let quiet = "/devices/quiet-drive-128gb";
    submit(1, "Quiet");
    submit(2, "Busy");
    submit(3, "Busy");
    assert_eq!(counted(), Some(2));
    cached(quiet);
    assert!(
        cached(quiet),
        "the other device's page is cached once drawn"
    );
    // Past two results the device's figures are left to the background pass (once a second):
    // the leaderboard drawn meanwhile, and cached, still counts two.
    let mut n = 4;
    loop {
        submit(n, "Busy");
        if counted() == Some(u64::from(n) - 2) {
            break;
        }
        assert!(n < 8, "the background pass drew each leaderboard first");
        n += 1;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while counted() != Some(u64::from(n) - 1) {
        assert!(
            std::time::Instant::now() < deadline,
            "the refreshed figures never reached the cached leaderboard: {:?}",
            counted()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The leaderboard counting them was cached before the refresh: the cache has been told.
    let metrics = get(&format!("{url}/metrics")).body;
    assert!(
        metrics.contains("iomark_store_background_refreshes_total"),
        "the figures came from the background pass: {metrics}"
    );
    assert!(cached(quiet), "the other device's page stays in the cache");
}

/// A busy model's standing compares the latest of its results only, and says so.
#[test]
fn a_standing_compares_the_latest_results_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--standing-sample", "5"]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let doc = |n: u32, scale: f64| device_doc(n, "Latest", "Stick", scale, "Raspberry Pi 5");
    for n in 1..=7 {
        let slow = doc(n, 0.01 + f64::from(n) / 1000.0);
        assert_eq!(
            post(&format!("{}/api/v1/results", site.url), &slow).status,
            201
        );
    }
    let answer = post(&format!("{}/api/v1/results", site.url), &doc(8, 0.02));
    assert_eq!(answer.status, 201);
    let standing = &answer.json()["standing"];
    let model = &standing["figures"][0]["model"];
    assert_eq!(model["results"], 5, "{standing}");
    assert_eq!(model["latest"], true, "{standing}");
    let sentence = standing["figures"][0]["sentence"].as_str().unwrap();
    assert!(
        sentence.contains("of the latest 5 other Latest Stick"),
        "{sentence}"
    );
}

/// Issue 45: `serve` on a port in use failed only after it had created the store and a
/// 572 KB write-ahead log. The port is taken first; nothing is made when it cannot be.
#[test]
fn a_port_in_use_is_said_before_anything_is_made() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let output = Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args(["serve", "--listen", &listen, "--db", db.to_str().unwrap()])
        .arg("--dump-dir")
        .arg(dir.path().join("dump"))
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "Error: cannot serve on {listen}: the address is in use (another server listens \
             there: stop it or choose --listen)"
        )
    );
    let made: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(made.is_empty(), "made before the port was tried: {made:?}");
}
