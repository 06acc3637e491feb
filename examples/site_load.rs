//! The results site's benchmark tool (driven by `bench/site-load`): fills a store with
//! synthetic results, and loads a running `iomark serve` from many clients on loopback.
//!
//!   site_load generate --db PATH|URL --count N [--seed S] [--devices D] [--defer] [--writers W]
//!   site_load read --url http://127.0.0.1:PORT --clients 64 --seconds 20 [--pid PID] [--rate R]
//!   site_load paths --url http://127.0.0.1:PORT [--count N]   (the read phase's paths, for wrk)
//!   site_load submit --url http://127.0.0.1:PORT --clients 64 --seconds 10 [--pid PID]
//!       [--devices D]
//!
//! `--devices D` spreads the results over D device models (2,000 by default); `--defer` leaves
//! the devices' aggregates to one refresh at the end, as a server does for a busy device;
//! `--writers W` saves W at once (64 by default); `--real` leaves out the synthetic mark (a
//! store for a benchmark of submissions, whose documents are sent unmarked: a device's real
//! results are what its aggregates count).
//!
//! Every synthetic document carries `"synthetic": true`, which a site hides unless it was
//! started with `--show-synthetic`; its device models start with "Synthetic". Each load phase
//! is bounded by its seconds and stops by itself; each prints one JSON line of figures. Without
//! `--rate` every client sends its next request as soon as it has an answer (the most a server
//! can be asked); with it, the clients together send R requests a second, evenly paced.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use iomark::result::ResultDoc;
use iomark::store::{Location, Pooling, Store};
use serde_json::{json, Value};

const KINDS: [(&str, &str, f64, f64); 5] = [
    // transport, model word, SEQ1M read MB/s, RND4K Q1 read IOPS
    ("mmc", "microSD", 90.0, 2500.0),
    ("usb", "Flash", 150.0, 1500.0),
    ("usb", "SSD", 400.0, 5000.0),
    ("nvme", "NVMe", 2500.0, 15000.0),
    ("sata", "SATA", 520.0, 9000.0),
];
const BOARDS: [&str; 6] = [
    "Raspberry Pi 3 Model B Rev 1.2",
    "Raspberry Pi 4 Model B Rev 1.4",
    "Raspberry Pi 5 Model B Rev 1.0",
    "Raspberry Pi Zero 2 W Rev 1.0",
    "Rock 5B",
    "",
];
const MAKERS: [&str; 8] = [
    "SyntheticSan",
    "SyntheticSung",
    "SyntheticKing",
    "SyntheticLex",
    "SyntheticPNY",
    "SyntheticCru",
    "SyntheticWD",
    "SyntheticTeam",
];
/// Devices in the synthetic world: 100,000 results are about 50 per device.
pub const DEVICES: u64 = 2000;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// A small, fast, deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A ULID-shaped id for synthetic result `n` of run `seed`.
fn id(seed: u64, n: u64) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut value = ((seed as u128) << 64) | n as u128;
    let mut out = vec![b'0'; 26];
    for slot in out.iter_mut().rev().take(25) {
        *slot = ALPHABET[(value % 32) as usize];
        value /= 32;
    }
    out[0] = b'0';
    String::from_utf8(out).unwrap()
}

/// Synthetic result `n`: device `n % DEVICES`, figures spread ±15% around its own.
pub fn synthetic(seed: u64, n: u64) -> Value {
    synthetic_of(seed, n, DEVICES)
}

/// Synthetic result `n` over `devices` device models.
pub fn synthetic_of(seed: u64, n: u64, devices: u64) -> Value {
    let mut rng = Rng(seed ^ n.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let device = n % devices.max(1);
    let mut drng = Rng(device);
    let (transport, word, seq, rnd) = KINDS[(drng.next() % KINDS.len() as u64) as usize];
    let maker = MAKERS[(drng.next() % MAKERS.len() as u64) as usize];
    let quality = 0.3 + drng.unit() * 1.2;
    let size_gb = [32u64, 64, 128, 256, 512, 1000][(drng.next() % 6) as usize];
    let price = (size_gb as f64 * (0.05 + drng.unit() * 0.2)).max(4.0);
    let board = BOARDS[(rng.next() % BOARDS.len() as u64) as usize];
    let mut tests = Vec::new();
    for (row, bs, qd, base) in [
        ("SEQ1M_Q8T1", 1u64 << 20, 8, seq),
        ("SEQ1M_Q1T1", 1 << 20, 1, seq * 0.6),
        ("RND4K_Q32T1", 4096, 32, rnd * 4.0 * 4096.0 / 1e6),
        ("RND4K_Q1T1", 4096, 1, rnd * 4096.0 / 1e6),
    ] {
        for (op, factor) in [("read", 1.0), ("write", 0.7)] {
            let mb = base * factor * quality * (0.85 + rng.unit() * 0.3);
            let iops = mb * 1e6 / bs as f64;
            let loops: Vec<Value> = [0.98, 1.0, 1.02]
                .iter()
                .map(|f| {
                    json!({"mb_per_s": mb * f, "iops": iops * f, "bytes": (mb * f * 1e6) as u64,
                           "ios": (iops * f) as u64, "seconds": 1.0})
                })
                .collect();
            tests.push(json!({
                "name": format!("{row}_{op}"), "kind": if bs > 4096 { "seq" } else { "rand" },
                "op": op, "block_size": bs, "queue_depth": qd, "threads": 1,
                "mb_per_s": mb, "iops": iops,
                "latency_us": {"min": 50.0, "mean": 200.0, "p50": 180.0, "p90": 300.0,
                               "p99": 900.0, "p99_9": 2000.0, "max": 5000.0, "stddev": 80.0},
                "loops": loops, "cv": 0.016, "cpu": {"user_s": 0.1, "sys_s": 0.2},
                "timeline": [{"t": 0.0, "mb_per_s": mb}, {"t": 1.0, "mb_per_s": mb},
                             {"t": 2.0, "mb_per_s": mb}]
            }));
        }
    }
    let sd = if transport == "mmc" {
        json!({"manufacturer": maker, "product": format!("{word} Model {device}")})
    } else {
        Value::Null
    };
    let day = 1 + n % 28;
    let started = format!(
        "2026-{:02}-{day:02}T{:02}:{:02}:00Z",
        1 + n % 10,
        n % 24,
        n % 60
    );
    json!({
        "schema": "iomark.result/1", "id": id(seed, n), "synthetic": true,
        "tool": {"name": "iomark", "version": "0.1.0"},
        "started_at": started, "finished_at": started,
        "label": null, "price_usd": if n.is_multiple_of(3) { json!(price) } else { Value::Null },
        "host": {"arch": "aarch64", "board": if board.is_empty() { Value::Null } else { json!(board) }},
        "target": {"path": "/mnt/test", "filesystem": "ext4",
                   "device": {"name": "sda", "model": format!("{word} Model {device}"),
                              "vendor": maker, "transport": transport,
                              "size_bytes": size_gb * 1_000_000_000 - 7_000_000,
                              "rotational": false, "stack": [], "sd": sd}},
        "settings": {"profile": "standard", "file_size_bytes": 1073741824u64, "loops": 3,
                     "duration_s": 2.0, "warmup_s": 1.0, "engine": "io_uring", "direct": true,
                     "data": "random"},
        "tests": tests, "warnings": [], "score": null
    })
}

fn generate(args: &[String]) {
    let db = arg(args, "--db").expect("--db");
    let count: u64 = arg(args, "--count")
        .and_then(|c| c.parse().ok())
        .expect("--count N");
    let seed: u64 = arg(args, "--seed")
        .and_then(|c| c.parse().ok())
        .unwrap_or(1);
    let devices: u64 = arg(args, "--devices")
        .and_then(|c| c.parse().ok())
        .unwrap_or(DEVICES);
    let writers: usize = arg(args, "--writers")
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    let defer = args.iter().any(|a| a == "--defer");
    let real = args.iter().any(|a| a == "--real");
    let location = Location::parse(Some(&db)).expect("a store");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut store = Store::open_with(location, Pooling::SERVER)
            .await
            .expect("open");
        if defer {
            store = store.refreshing_inline_up_to(0);
        }
        let store = Arc::new(store);
        let started = Instant::now();
        let next = Arc::new(AtomicU64::new(0));
        // Many writers at once, as a busy site has, each saving as a submission is saved: on
        // SQLite through the server's committer, so those that wait are committed together
        // (four writers each in a transaction of its own filled 400 a second here, and a store
        // of a million took most of an hour).
        let mut tasks = Vec::new();
        for _ in 0..writers {
            let (store, next) = (store.clone(), next.clone());
            tasks.push(tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= count {
                        break;
                    }
                    let mut doc = synthetic_of(seed, n, devices);
                    if real {
                        if let Some(fields) = doc.as_object_mut() {
                            fields.remove("synthetic");
                        }
                    }
                    let text = doc.to_string();
                    let doc = ResultDoc::from_json(&text).expect("a valid synthetic document");
                    // No deletion token's hash is all zeros.
                    store
                        .submissions()
                        .save(&doc, &"0".repeat(64), &Default::default())
                        .await
                        .expect("saved");
                    if n > 0 && n % 10_000 == 0 {
                        eprintln!("  {n} results, {:.0} s", started.elapsed().as_secs_f64());
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        while !store
            .derivation()
            .refresh_stale()
            .await
            .expect("refreshed")
            .is_empty()
        {}
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{}",
            json!({"generated": count, "seconds": seconds, "per_s": count as f64 / seconds})
        );
    });
}

/// What request `n` is: its kind (for the report), its path, and a body to POST if any.
type Pick = dyn Fn(u64) -> (&'static str, String, Option<String>) + Send + Sync;

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// A field of /proc/PID/status in MiB (`VmHWM`: peak resident; `RssAnon`: the process's own
/// memory now, without mapped files).
fn status_mib(pid: Option<&str>, field: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Samples the server's anonymous memory every 100 ms until `stop`; returns the peak.
fn watch_anon(pid: Option<String>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Option<f64>> {
    std::thread::spawn(move || {
        let mut peak: Option<f64> = None;
        while !stop.load(Ordering::Relaxed) {
            if let Some(now) = status_mib(pid.as_deref(), "RssAnon:") {
                peak = Some(peak.map_or(now, |p| p.max(now)));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        peak
    })
}

/// `clients` threads, each with its own keep-alive connection, for `seconds`: `pick` says
/// what each request is; returns per-kind latencies (ms) and failures.
fn drive(
    url: &str,
    clients: usize,
    seconds: f64,
    rate: Option<f64>,
    pick: Arc<Pick>,
) -> (Vec<(&'static str, Vec<f64>)>, u64, f64) {
    // Each client's pace, when the total rate is set.
    let interval = rate.map(|r| Duration::from_secs_f64(clients as f64 / r.max(0.001)));
    let stop = Arc::new(AtomicBool::new(false));
    let samples: Arc<Mutex<Vec<(&'static str, f64)>>> = Arc::new(Mutex::new(Vec::new()));
    let failures = Arc::new(AtomicU64::new(0));
    let counter = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let (url, stop, samples, failures, counter, pick) = (
                url.to_string(),
                stop.clone(),
                samples.clone(),
                failures.clone(),
                counter.clone(),
                pick.clone(),
            );
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(30)))
                    .build()
                    .into();
                let mut mine = Vec::new();
                let mut due = Instant::now();
                // Bounded in count as well as in time.
                for _ in 0..1_000_000 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Some(interval) = interval {
                        // Latency counts from when the request was due, so a slow answer that
                        // delays the next request is not hidden (no coordinated omission).
                        due += interval;
                        let now = Instant::now();
                        if due > now {
                            std::thread::sleep(due - now);
                        }
                    } else {
                        due = Instant::now();
                    }
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let (kind, path, body) = pick(n);
                    let t = due;
                    let result = match &body {
                        Some(body) => agent
                            .post(format!("{url}{path}"))
                            .header("content-type", "application/json")
                            .send(body.as_str()),
                        None => agent.get(format!("{url}{path}")).call(),
                    };
                    let ok = match result {
                        Ok(mut r) => {
                            let status = r.status().as_u16();
                            let _ = r.body_mut().read_to_vec();
                            status == 200 || status == 201
                        }
                        Err(_) => false,
                    };
                    if ok {
                        mine.push((kind, t.elapsed().as_secs_f64() * 1000.0));
                    } else {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                }
                samples.lock().unwrap().extend(mine);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::SeqCst);
    for t in threads {
        let _ = t.join();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let all = samples.lock().unwrap().clone();
    let mut kinds: Vec<(&'static str, Vec<f64>)> = Vec::new();
    for (kind, ms) in all {
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, v)) => v.push(ms),
            None => kinds.push((kind, vec![ms])),
        }
    }
    for (_, v) in kinds.iter_mut() {
        v.sort_by(f64::total_cmp);
    }
    (kinds, failures.load(Ordering::SeqCst), elapsed)
}

fn report(
    phase: &str,
    kinds: Vec<(&'static str, Vec<f64>)>,
    failures: u64,
    elapsed: f64,
    pid: Option<&str>,
    anon: Option<f64>,
) {
    let mut out = json!({"phase": phase, "seconds": elapsed, "failures": failures,
                         "server_peak_rss_mib": status_mib(pid, "VmHWM:"),
                         "server_peak_anon_mib": anon});
    for (kind, v) in kinds {
        out[kind] = json!({"requests": v.len(), "per_s": v.len() as f64 / elapsed,
                           "p50_ms": percentile(&v, 0.5), "p99_ms": percentile(&v, 0.99),
                           "max_ms": percentile(&v, 1.0)});
    }
    println!("{out}");
}

/// The read phase's requests, the same for every run of a store: request `n` is a leaderboard
/// (even `n`) or a device page, its device keys as the site spells them, from the leaderboard.
fn read_pick(url: &str) -> Arc<Pick> {
    // Device keys as the site spells them, from the leaderboard itself. Its agent goes
    // (and its kept-alive connection with it) before the clients start: one more
    // connection than the site lets one address hold (64) stalled a client per
    // request, 12,254 failures in 20 s.
    let board: Value = ureq::agent()
        .get(format!("{url}/api/v1/leaderboard?limit=500"))
        .call()
        .expect("the site answers")
        .body_mut()
        .read_json()
        .expect("a leaderboard");
    let keys: Vec<String> = board["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .filter_map(|d| d["key"].as_str().map(str::to_string))
        .collect();
    assert!(
        !keys.is_empty(),
        "the store has no ranked devices: generate first"
    );
    let sorts = [
        "seq1m_q8_read",
        "rnd4k_q1_read",
        "seq1m_q8_write",
        "rnd4k_q32_write",
    ];
    Arc::new(move |n: u64| {
        let mut rng = Rng(n);
        if n.is_multiple_of(2) {
            let sort = sorts[(rng.next() % 4) as usize];
            let query = match rng.next() % 4 {
                0 => String::new(),
                1 => "&kind=microSD".into(),
                2 => format!("&q=model+{}", rng.next() % DEVICES),
                _ => "&transport=usb".into(),
            };
            ("leaderboard", format!("/?sort={sort}{query}"), None)
        } else {
            let key = &keys[(rng.next() % keys.len() as u64) as usize];
            ("device", format!("/devices/{key}"), None)
        }
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let clients: usize = arg(&args, "--clients")
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    let seconds: f64 = arg(&args, "--seconds")
        .and_then(|c| c.parse().ok())
        .unwrap_or(20.0);
    let url = arg(&args, "--url").unwrap_or_default();
    let pid = arg(&args, "--pid");
    let rate: Option<f64> = arg(&args, "--rate").and_then(|r| r.parse().ok());
    let watching = Arc::new(AtomicBool::new(false));
    let watcher = watch_anon(pid.clone(), watching.clone());
    let anon = move || {
        watching.store(true, Ordering::SeqCst);
        watcher.join().ok().flatten()
    };
    match args.get(1).map(String::as_str) {
        Some("generate") => generate(&args),
        Some("read") => {
            let pick = read_pick(&url);
            let (kinds, failures, elapsed) = drive(&url, clients, seconds, rate, pick);
            report("read", kinds, failures, elapsed, pid.as_deref(), anon());
        }
        Some("paths") => {
            // The same requests for a load tool of its own (bench/site-load's wrk), a path a
            // line.
            let count: u64 = arg(&args, "--count")
                .and_then(|c| c.parse().ok())
                .unwrap_or(100_000);
            let pick = read_pick(&url);
            let mut out = String::new();
            for n in 0..count {
                out.push_str(&pick(n).1);
                out.push('\n');
            }
            print!("{out}");
        }
        Some("submit") => {
            let seed = std::process::id() as u64 + 1_000;
            let devices: u64 = arg(&args, "--devices")
                .and_then(|c| c.parse().ok())
                .unwrap_or(DEVICES);
            let pick = Arc::new(move |n: u64| {
                // A site refuses the synthetic mark from the network: these are sent as
                // measured results would be.
                let mut doc = synthetic_of(seed, 10_000_000 + n, devices);
                if let Some(fields) = doc.as_object_mut() {
                    fields.remove("synthetic");
                }
                (
                    "submit",
                    "/api/v1/results".to_string(),
                    Some(doc.to_string()),
                )
            });
            let (kinds, failures, elapsed) = drive(&url, clients, seconds, rate, pick);
            report("submit", kinds, failures, elapsed, pid.as_deref(), anon());
        }
        _ => {
            eprintln!(
                "usage: site_load generate|read|submit … (see the top of examples/site_load.rs)"
            );
            std::process::exit(2);
        }
    }
}
