//! `iomark serve` under attack (issue 22): each case found by an attack on a real server, kept as
//! a test against a real server (a SQLite file, and a private PostgreSQL where the case is about
//! the store), loopback only, every loop bounded.

use serde_json::{json, Value};

use crate::cli_run::is_root;
use crate::common::SmallFs;
use crate::site::{device_doc, get, post, ulid, Site};

/// A server for load: no rate limit at all.
const NO_LIMITS: [&str; 4] = [
    "--submissions-per-minute",
    "0",
    "--requests-per-minute",
    "0",
];

/// A 201 is durable: on a filesystem that fills up under submissions, every submission
/// answered 201 is there after a restart, the ones that did not fit are answered 503, and
/// once space is freed the same server takes submissions again (issue 22: from the first
/// "disk is full", later POSTs were answered 201 and lost, until a restart).
#[test]
fn a_full_disk_loses_no_submission_answered_201() {
    if !is_root() {
        eprintln!("skipped: mounting a small filesystem needs root");
        return;
    }
    let Some(fs) = SmallFs::mount("6m") else {
        eprintln!("skipped: cannot mount tmpfs here");
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let db = fs.path.join("site.db");
    let db = db.to_str().unwrap();
    // Room to free later: the store fills what is left around it.
    let spare = fs.path.join("spare");
    std::fs::write(&spare, vec![1u8; 2 << 20]).unwrap();
    let mut site = Site::start(db, home.path(), &NO_LIMITS);
    let submit = |n: u32| post(&format!("{}/api/v1/results", site.url), &big_doc(n)).status;
    let mut accepted = Vec::new();
    let mut full = 0;
    let mut n = 0;
    // Until well past the first refusal (bounded: 3 MB holds a few hundred documents).
    while full < 200 && n < 5000 {
        n += 1;
        match submit(n) {
            201 => accepted.push(n),
            503 => full += 1,
            other => panic!("submission {n}: {other}"),
        }
    }
    assert!(full >= 200, "the filesystem never filled: {n} submissions");
    assert!(accepted.len() > 20, "{} accepted", accepted.len());
    let before_freeing = accepted.len();
    // Space comes back: the same server takes submissions again, without a restart.
    std::fs::remove_file(&spare).unwrap();
    let mut again = 0;
    for _ in 0..20 {
        n += 1;
        if submit(n) == 201 {
            accepted.push(n);
            again += 1;
        }
    }
    assert!(again >= 5, "after space was freed, {again} of 20 taken");
    // Every 201 is in the store, as a new process reads it.
    assert!(site.stop().success());
    let site = Site::start(db, home.path(), &NO_LIMITS);
    let lost: Vec<u32> = accepted
        .iter()
        .copied()
        .filter(|n| get(&format!("{}/api/v1/results/{}", site.url, ulid(*n))).status != 200)
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} answered 201 were lost ({before_freeing} before space was freed): {lost:?}",
        lost.len(),
        accepted.len()
    );
}

/// A document of some size: a device result whose tests carry a long timeline.
fn big_doc(n: u32) -> Value {
    let mut d = device_doc(n, "Fill", &format!("Model {}", n % 5), 0.1, "Pi");
    for test in d["tests"].as_array_mut().unwrap() {
        let rate = test["mb_per_s"].as_f64().unwrap();
        test["timeline"] = json!((0..60)
            .map(|t| json!({"t": t as f64, "mb_per_s": rate}))
            .collect::<Vec<_>>());
    }
    d
}
