//! Issue 27: the site beyond one process. `iomark serve --read-db` reads from a real PostgreSQL
//! streaming replica (`pg_basebackup -R`, both servers on 127.0.0.1); two `iomark serve`
//! behind a real haproxy (packaging/haproxy.cfg) lose no request when one is killed or the
//! replica stops, and a client that submitted through it sees its result on every page.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::proxy::Haproxy;
use crate::common::site::{device_doc, from_address, get, post, Site, NO_LIMITS};
use crate::common::Postgres;

/// A request as client `from` (the address a trusted proxy would have put last in
/// X-Forwarded-For): its status and body.
fn as_client(method: &str, url: &str, from: &str, body: Option<&str>) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let response = match body {
        Some(body) => agent
            .post(url)
            .header("content-type", "application/json")
            .header("x-forwarded-for", from)
            .send(body.as_bytes()),
        None if method == "GET" => agent.get(url).header("x-forwarded-for", from).call(),
        None => panic!("{method} without a body"),
    };
    let mut response = response.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = response.status().as_u16();
    (status, response.body_mut().read_to_string().unwrap())
}

/// Waits up to `limit` for `what` to hold.
fn within(limit: Duration, what: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if what() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A primary with a database for the site, and a streaming replica of it that has replayed the
/// site's schema: (primary, replica, database name, primary URL, replica URL).
fn primary_and_replica() -> (Postgres, Postgres, String, String, String) {
    let primary = Postgres::start();
    let url = primary.database();
    let name = url.rsplit('/').next().unwrap().to_string();
    let replica = primary.replica();
    let replica_url = replica.url(&name);
    assert_eq!(replica.psql(&name, "SELECT pg_is_in_recovery()"), "t");
    (primary, replica, name, url, replica_url)
}

/// Waits until `replica` has replayed everything `primary` has written, then pauses its replay.
fn caught_up_then_paused(primary: &Postgres, replica: &Postgres, name: &str) {
    let written = primary.psql(name, "SELECT pg_current_wal_lsn()");
    let replayed = format!("SELECT pg_last_wal_replay_lsn() >= '{written}'::pg_lsn");
    assert!(
        within(Duration::from_secs(20), || replica.psql(name, &replayed)
            == "t"),
        "the replica did not replay {written} in 20 s"
    );
    // Replay stops before the next record it would apply.
    replica.psql(name, "SELECT pg_wal_replay_pause()");
}

/// Reads go to the replica, a submitter's own reads to the primary: with the replica's replay
/// paused, the submitter sees its result on the leaderboard at once and another client does
/// not until replay resumes; the result's own page is found by anyone at once (looked for on
/// the primary when the replica has not got it). Then the replica is stopped: every page is
/// served from the primary, without one error.
#[test]
fn a_submitter_reads_the_primary_and_everyone_else_the_replica() {
    let (primary, mut replica, name, url, replica_url) = primary_and_replica();
    let dir = tempfile::tempdir().unwrap();
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--read-db", &replica_url, "--trust-forwarded-for"]);
    args.extend(["--cache-seconds", "0"]);
    let site = Site::start(&url, dir.path(), &args);
    let board = format!("{}/api/v1/leaderboard?q=replicated", site.url);
    // The schema the server made on the primary reaches the replica.
    caught_up_then_paused(&primary, &replica, &name);

    let doc = device_doc(1, "Replicated", "Drive One", 0.2, "Raspberry Pi 5");
    let id = doc["id"].as_str().unwrap().to_string();
    let submitter = "198.51.100.1";
    let (status, body) = as_client(
        "POST",
        &format!("{}/api/v1/results", site.url),
        submitter,
        Some(&doc.to_string()),
    );
    assert_eq!(status, 201, "{body}");
    let listed = |from: &str| {
        let (status, body) = as_client("GET", &board, from, None);
        assert_eq!(status, 200, "{body}");
        body.contains("Drive One")
    };
    assert!(
        listed(submitter),
        "the submitter reads its own write: {}",
        as_client("GET", &board, submitter, None).1
    );
    assert!(
        !listed("198.51.100.2"),
        "another client reads the paused replica, which has not the result yet"
    );
    // The result's page and API answer, by anyone, at once.
    for path in [format!("/results/{id}"), format!("/api/v1/results/{id}")] {
        let (status, _) = as_client("GET", &format!("{}{path}", site.url), "198.51.100.3", None);
        assert_eq!(status, 200, "{path} before the replica has it");
    }
    replica.psql(&name, "SELECT pg_wal_replay_resume()");
    assert!(
        within(Duration::from_secs(10), || listed("198.51.100.2")),
        "the replica never showed the result after replay resumed"
    );

    // The replica stops: pages from the primary, no error.
    assert!(replica.stop());
    for n in 0..20 {
        let from = format!("198.51.100.{}", 10 + n);
        assert!(listed(&from), "request {n} after the replica stopped");
        let (status, _) = as_client("GET", &format!("{}/", site.url), &from, None);
        assert_eq!(status, 200);
    }
    let metrics = get(&format!("{}/metrics", site.url)).body;
    for series in [
        "iomark_store_reads_total{on=\"replica\"}",
        "iomark_store_reads_total{on=\"primary\"}",
        "iomark_replica_failures_total{rested=\"true\"}",
    ] {
        assert!(metrics.contains(series), "{series} in:\n{metrics}");
    }
    // Started again, the replica is back in turn (a probe found it answering): its replay
    // paused, another client's read shows what only the primary has.
    replica.start_again();
    caught_up_then_paused(&primary, &replica, &name);
    let doc = device_doc(2, "Replicated", "Drive Two", 0.2, "Raspberry Pi 5");
    let (status, _) = as_client(
        "POST",
        &format!("{}/api/v1/results", site.url),
        submitter,
        Some(&doc.to_string()),
    );
    assert_eq!(status, 201);
    let two = |from: &str| as_client("GET", &board, from, None).1.contains("Drive Two");
    assert!(two(submitter));
    assert!(
        within(Duration::from_secs(15), || !two("198.51.100.99")),
        "reads never went back to the replica after it started again"
    );
    replica.psql(&name, "SELECT pg_wal_replay_resume()");
}

/// A replica whose replay has stopped takes no reads once it is further behind than
/// `--read-db-max-lag`: everyone then reads the primary, and sees what the replica has not
/// replayed. Caught up again, it is read from again.
#[test]
fn a_replica_too_far_behind_takes_no_reads() {
    let (primary, replica, name, url, replica_url) = primary_and_replica();
    let dir = tempfile::tempdir().unwrap();
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--read-db", &replica_url, "--read-db-max-lag", "2s"]);
    args.extend(["--trust-forwarded-for", "--cache-seconds", "0"]);
    let site = Site::start(&url, dir.path(), &args);
    let board = format!("{}/api/v1/leaderboard?q=lagging", site.url);
    let submit = |n: u32, model: &str| {
        let doc = device_doc(n, "Lagging", model, 0.2, "Raspberry Pi 5");
        let (status, body) = as_client(
            "POST",
            &format!("{}/api/v1/results", site.url),
            "198.51.100.1",
            Some(&doc.to_string()),
        );
        assert_eq!(status, 201, "{body}");
    };
    let seen = |model: &str| {
        as_client("GET", &board, "198.51.100.2", None)
            .1
            .contains(model)
    };
    let lag = || {
        get(&format!("{}/metrics", site.url))
            .body
            .lines()
            .find_map(|l| l.strip_prefix("iomark_replica_lag_seconds{replica=\"0\"} "))
            .and_then(|v| v.parse::<f64>().ok())
    };

    caught_up_then_paused(&primary, &replica, &name);
    submit(1, "Drive One");
    assert!(!seen("Drive One"), "read from the paused replica at first");
    assert!(
        within(Duration::from_secs(15), || seen("Drive One")),
        "reads never left the replica that fell behind"
    );
    assert!(lag().is_some_and(|s| s > 2.0), "{:?}", lag());

    replica.psql(&name, "SELECT pg_wal_replay_resume()");
    assert!(
        within(Duration::from_secs(15), || lag() == Some(0.0)),
        "the replica never caught up: {:?}",
        lag()
    );
    caught_up_then_paused(&primary, &replica, &name);
    submit(2, "Drive Two");
    assert!(
        !seen("Drive Two"),
        "caught up, the replica is read from again (and has not this one)"
    );
    replica.psql(&name, "SELECT pg_wal_replay_resume()");
}

/// `--read-db` takes PostgreSQL only, refused in one line before anything is served.
#[test]
fn a_replica_is_postgres_and_the_store_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let out = crate::common::iomark(dir.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .args(["--read-db", "/tmp/replica.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a read replica is a postgres:// URL"), "{err}");
    let out = crate::common::iomark(dir.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .args(["--read-db", "postgres://iomark@127.0.0.1:1/none"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this store is a SQLite file"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// Load through haproxy over two `iomark serve` on one primary and its replica: one serve
/// process is killed (SIGKILL) under the load, then the replica stopped; not one request fails,
/// both processes served before the kill, and a submission after it is saved.
#[test]
fn two_sites_behind_a_proxy_lose_no_request() {
    let (_primary, replica, _name, url, replica_url) = primary_and_replica();
    let dir = tempfile::tempdir().unwrap();
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--read-db", &replica_url, "--trust-forwarded-for"]);
    let first = Site::start(&url, dir.path(), &args);
    let mut second = Site::start(&url, dir.path(), &args);
    let proxy = Haproxy::start(&[&first.url, &second.url]);
    let base = proxy.url.clone();
    for n in 0..8 {
        let doc = device_doc(
            100 + n,
            "Proxied",
            &format!("Drive {n}"),
            0.2,
            "Raspberry Pi 5",
        );
        // From an address of its own: the proxy sends a client's reads for 10 s after a write
        // to the process that took it, and the load's clients are to be spread.
        let results = format!("{base}/api/v1/results");
        let (status, body) = from_address("POST", &results, "127.0.0.5", Some(&doc.to_string()));
        assert_eq!(status, 201, "{body}");
    }
    let id = device_doc(100, "Proxied", "Drive 0", 0.2, "Raspberry Pi 5")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let pages = Arc::new([
        format!("{base}/"),
        format!("{base}/api/v1/leaderboard?q=proxied"),
        format!("{base}/results/{id}"),
        format!("{base}/api/v1/results?limit=20"),
    ]);
    let served_by = |site: &Site| {
        get(&format!("{}/metrics", site.url))
            .body
            .lines()
            .filter(|l| l.starts_with("iomark_requests_total{") && l.contains("method=\"GET\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum::<u64>()
    };

    let (ok, failures) = Load::start(&pages).finish(Duration::from_secs(3), || {
        assert!(
            served_by(&first) > 0 && served_by(&second) > 0,
            "both serve"
        );
        second.kill();
    });
    assert!(
        failures.is_empty(),
        "requests failed when one process was killed: {failures:?}"
    );
    assert!(ok > 50, "only {ok} requests were answered");

    let (ok, failures) = Load::start(&pages).finish(Duration::from_secs(3), || {
        assert!(replica.stop());
    });
    assert!(
        failures.is_empty(),
        "requests failed when the replica stopped: {failures:?}"
    );
    assert!(ok > 50, "only {ok} requests were answered");

    let doc = device_doc(200, "Proxied", "After", 0.2, "Raspberry Pi 5");
    assert_eq!(post(&format!("{base}/api/v1/results"), &doc).status, 201);
    let after = doc["id"].as_str().unwrap();
    assert_eq!(get(&format!("{base}/api/v1/results/{after}")).status, 200);
}

/// Through the proxy as docs/SITE.md configures it (packaging/haproxy.cfg: each page by its address
/// to one process), two processes reading a replica whose replay is paused: a client that has
/// just submitted sees its result on every page it asks for, whichever process draws that page
/// for everyone else; another client, answered by the other process from its cache and the
/// replica, does not.
#[test]
fn a_writer_behind_the_proxy_sees_its_result_on_every_page() {
    let (primary, replica, name, url, replica_url) = primary_and_replica();
    let dir = tempfile::tempdir().unwrap();
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--read-db", &replica_url, "--trust-forwarded-for"]);
    let first = Site::start(&url, dir.path(), &args);
    let second = Site::start(&url, dir.path(), &args);
    let proxy = Haproxy::start(&[&first.url, &second.url]);
    caught_up_then_paused(&primary, &replica, &name);
    let sorts = [
        "seq1m_q8_read",
        "seq1m_q8_write",
        "rnd4k_q1_read",
        "rnd4k_q32_write",
    ];
    let pages: Vec<String> = sorts
        .iter()
        .flat_map(|sort| {
            [
                format!("{}/api/v1/leaderboard?q=written&sort={sort}", proxy.url),
                format!("{}/?q=written&sort={sort}", proxy.url),
            ]
        })
        .collect();
    let (writer, reader) = ("127.0.0.2", "127.0.0.3");
    let shows = |from: &str, page: &str| {
        let (status, body) = from_address("GET", page, from, None);
        assert_eq!(status, 200, "{page}: {body}");
        body.contains("Written Drive")
    };
    // Every page drawn and cached before the submission, by both processes between them.
    for page in &pages {
        assert!(!shows(reader, page), "{page} before the submission");
    }
    let served = |site: &Site| {
        get(&format!("{}/metrics", site.url))
            .body
            .lines()
            .filter(|l| l.starts_with("iomark_requests_total{"))
            .filter(|l| {
                ["\"/\"", "\"/api/v1/leaderboard\""]
                    .iter()
                    .any(|r| l.contains(r))
            })
            .count()
    };
    assert!(
        served(&first) > 0 && served(&second) > 0,
        "both processes draw pages"
    );

    let doc = device_doc(300, "Written", "Drive", 0.2, "Raspberry Pi 5");
    let results = format!("{}/api/v1/results", proxy.url);
    let (status, body) = from_address("POST", &results, writer, Some(&doc.to_string()));
    assert_eq!(status, 201, "{body}");
    for page in &pages {
        assert!(
            shows(writer, page),
            "the writer reads {page} without its result"
        );
    }
    // The pages the other process draws come from its cache and the paused replica: without
    // the result. (The writer's own process keeps what it drew for the writer, from the
    // primary, in its cache: newer, and right.)
    let unseen = pages.iter().filter(|page| !shows(reader, page)).count();
    assert!(
        unseen > 0,
        "every page has the result for a reader of the paused replica"
    );
    replica.psql(&name, "SELECT pg_wal_replay_resume()");
}

/// Four clients, each asking for one page after another as fast as they are answered.
struct Load {
    stop: Arc<AtomicBool>,
    ok: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<Vec<String>>>,
}

impl Load {
    fn start(pages: &Arc<[String; 4]>) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let ok = Arc::new(AtomicU64::new(0));
        let threads = (0..4)
            .map(|t| {
                let (pages, stop, ok) = (pages.clone(), stop.clone(), ok.clone());
                std::thread::spawn(move || {
                    let mut failures = Vec::new();
                    let mut n = t;
                    while !stop.load(Ordering::Relaxed) {
                        let page = &pages[n % pages.len()];
                        let answer = get(page);
                        if answer.status == 200 {
                            ok.fetch_add(1, Ordering::Relaxed);
                        } else {
                            failures.push(format!("{page}: {}", answer.status));
                        }
                        n += 1;
                    }
                    failures
                })
            })
            .collect();
        Load { stop, ok, threads }
    }

    /// Runs `event` a third into `during`, stops at its end: the pages answered, the failures.
    fn finish(self, during: Duration, event: impl FnOnce()) -> (u64, Vec<String>) {
        std::thread::sleep(during / 3);
        event();
        std::thread::sleep(during * 2 / 3);
        self.stop.store(true, Ordering::Relaxed);
        let failures = self
            .threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        (self.ok.load(Ordering::Relaxed), failures)
    }
}
