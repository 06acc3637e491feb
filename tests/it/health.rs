//! Issue 48: `iomark health`, one gentle check of whether a card still keeps what it is given,
//! on real folders, and on a disk of the tests' own (`common::power`) that turns into a card
//! that lies: it acknowledges every write and keeps none.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::power::Disk;
use crate::common::{iomark, ok, refused_saying};

/// One check of `dir` with the store in `home`: its result document, the command's exit
/// status its verdict's (0 healthy, 1 watch, 2 failing or lying).
pub(crate) fn check(home: &Path, dir: &Path, more: &[&str]) -> Value {
    let out = iomark(home)
        .arg("health")
        .arg(dir)
        .args(["--json", "-"])
        .args(more)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no document ({e}), {:?}: {said}", out.status));
    assert_eq!(
        out.status.code(),
        Some(status(&doc["health"]["verdict"])),
        "{said}"
    );
    doc
}

/// The exit status of a check with this verdict.
pub(crate) fn status(verdict: &Value) -> i32 {
    match verdict.as_str() {
        Some("healthy") => 0,
        Some("watch") => 1,
        Some("failing" | "lying") => 2,
        other => panic!("no verdict iomark gives: {other:?}"),
    }
}

pub(crate) fn signal<'a>(doc: &'a Value, name: &str) -> Option<&'a Value> {
    doc["health"]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
}

#[test]
fn a_folder_that_keeps_what_it_is_given_is_healthy_check_after_check() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let first = check(home.path(), dir.path(), &[]);
    let h = &first["health"];
    assert_eq!(h["verdict"], "healthy", "{h:#}");
    assert_eq!(h["checks"], 1);
    assert_eq!(h["canary_bytes"], 1 << 20);
    assert_eq!(h["canary_bad_bytes"], 0);
    assert_eq!(h["fresh_write_kept"], true);
    assert_eq!(h["read_latency_us"]["count"], 32);
    assert_eq!(h["synced_write_ms"]["count"], 8);
    assert_eq!(signal(&first, "canaries").unwrap()["state"], "healthy");
    // The canaries stay for the next check; the state says whose they are.
    let folder = dir.path().join("iomark-health");
    for file in ["canary-0", "canary-3", "fresh", "timed", "state.json"] {
        assert!(folder.join(file).is_file(), "{file}");
    }
    let second = check(home.path(), dir.path(), &[]);
    assert_eq!(second["health"]["verdict"], "healthy");
    assert_eq!(second["health"]["checks"], 2);
    // Both checks are in the history, like runs.
    let listed = ok(iomark(home.path()).args(["history"]));
    let listed = String::from_utf8_lossy(&listed.stdout);
    for check in ["healthy (check 1)", "healthy (check 2)"] {
        assert!(listed.contains(check), "{listed}");
    }
}

#[test]
fn a_canary_changed_behind_its_back_is_a_card_that_lies() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    check(home.path(), dir.path(), &[]);
    let canary = dir.path().join("iomark-health/canary-2");
    let mut bytes = std::fs::read(&canary).unwrap();
    bytes[70_000] ^= 0x10;
    std::fs::write(&canary, bytes).unwrap();
    let doc = check(home.path(), dir.path(), &[]);
    let h = &doc["health"];
    assert_eq!(h["verdict"], "lying", "{h:#}");
    assert_eq!(h["canary_bad_bytes"], 512, "one sector");
    assert!(
        h["sentence"]
            .as_str()
            .unwrap()
            .starts_with("It does not keep what it is given"),
        "{h:#}"
    );
    assert_eq!(signal(&doc, "canaries").unwrap()["state"], "lying");
    // The report says it in words, with the evidence, and a script is told by the status
    // (`iomark health /media/card || notify-send …`).
    let report = iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(2));
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("LYING") && text.contains("came back different"),
        "{text}"
    );
}

#[test]
fn a_folder_of_that_name_not_made_by_iomark_is_never_written_into() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("iomark-health");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), b"mine").unwrap();
    let mut refused = iomark(home.path());
    refused.arg("health").arg(dir.path());
    refused_saying(&mut refused, "is not iomark's");
    // No check could be made: "unknown", as a monitor reads it, never "critical".
    assert_eq!(refused.output().unwrap().status.code(), Some(3));
    assert_eq!(crate::common::entries(&theirs), ["notes.txt"]);
    let bad_flag = iomark(home.path())
        .args(["--color", "never", "health", "--budget", "lots"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(bad_flag.status.code(), Some(3), "{bad_flag:?}");
    // A link at the name is not followed.
    let other = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), other.path().join("iomark-health")).unwrap();
    refused_saying(
        iomark(home.path()).arg("health").arg(other.path()),
        "is not iomark's",
    );
    assert!(crate::common::entries(elsewhere.path()).is_empty());
}

/// A first check stopped while it wrote its canaries (Ctrl-C, a power cut) leaves them half
/// made: the next check writes them again rather than judging the card by them.
#[test]
fn canaries_a_stopped_check_left_half_made_are_written_again_not_judged() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    check(home.path(), dir.path(), &[]);
    let folder = dir.path().join("iomark-health");
    let state = folder.join("state.json");
    let mut kept: Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    kept["canaries_whole"] = false.into();
    std::fs::write(&state, serde_json::to_vec(&kept).unwrap()).unwrap();
    std::fs::write(folder.join("canary-3"), b"half").unwrap();
    // Writing them again is a first check's cost, and its budget says so.
    let said = refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(["--budget", "512KiB"]),
        "the first check writes its canaries",
    );
    assert!(said.contains("--budget"), "{said}");
    let doc = check(home.path(), dir.path(), &[]);
    assert_eq!(doc["health"]["verdict"], "healthy", "{:#}", doc["health"]);
    assert_eq!(
        std::fs::metadata(folder.join("canary-3")).unwrap().len(),
        256 << 10
    );
}

/// A full card is no sign of a failing one: a check that has no room says so and writes
/// nothing.
#[test]
fn a_full_filesystem_is_refused_not_judged() {
    let Some(fs) = crate::common::SmallFs::mount("1m") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    std::fs::write(fs.path.join("filler"), vec![0u8; 400 << 10]).unwrap();
    let said = refused_saying(iomark(home.path()).arg("health").arg(&fs.path), "free here");
    assert!(said.contains("nothing was written"), "{said}");
    assert_eq!(crate::common::entries(&fs.path), ["filler"]);
}

#[test]
fn a_budget_below_what_a_check_writes_is_refused_before_writing() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let said = refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(dir.path())
            .args(["--budget", "512KiB"]),
        "--budget",
    );
    assert!(
        said.contains("the first check writes its canaries"),
        "{said}"
    );
    assert!(crate::common::entries(dir.path()).is_empty());
}

/// A card that turns read-only without a word: every write acknowledged, none kept. The check
/// before is healthy; the first check after says it lies. Each check's writes, as the device
/// counted them, stay within its budget.
#[test]
fn a_card_that_stops_keeping_writes_is_caught_at_the_next_check() {
    let Some(disk) = Disk::formatted(64 << 20) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let first = check(home.path(), &disk.mount, &[]);
    let h = &first["health"];
    assert_eq!(h["verdict"], "healthy", "{h:#}");
    assert_eq!(h["direct"], true);
    let written = h["device_written_bytes"]
        .as_u64()
        .expect("the loop device counts");
    assert!(
        written >= 1 << 20 && written <= h["budget_bytes"].as_u64().unwrap(),
        "{written}"
    );
    let second = check(home.path(), &disk.mount, &[]);
    let written = second["health"]["device_written_bytes"].as_u64().unwrap();
    assert!(written <= 1 << 20, "a later check wrote {written} bytes");
    disk.drop_writes();
    let doc = check(home.path(), &disk.mount, &[]);
    let h = &doc["health"];
    assert_eq!(h["verdict"], "lying", "{h:#}");
    assert_eq!(h["fresh_write_kept"], false);
    assert_eq!(signal(&doc, "fresh_write").unwrap()["state"], "lying");
    // What it held before it turned is still there: the canaries read back whole.
    assert_eq!(h["canary_bad_bytes"], 0);
}

/// The kernel remounts a filesystem read-only after errors: a check says it is failing, and
/// writes nothing.
#[test]
fn a_filesystem_gone_read_only_is_failing() {
    let Some(disk) = Disk::formatted(64 << 20) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    check(home.path(), &disk.mount, &[]);
    let remounted = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&disk.mount)
        .status()
        .unwrap();
    assert!(remounted.success());
    let flushes = disk.flushes();
    let doc = check(home.path(), &disk.mount, &[]);
    let h = &doc["health"];
    assert_eq!(h["verdict"], "failing", "{h:#}");
    assert_eq!(signal(&doc, "read_only").unwrap()["state"], "failing");
    // The canaries were still read, and nothing was written.
    assert_eq!(h["canary_bad_bytes"], 0);
    assert_eq!(h["fresh_write_kept"], Value::Null);
    assert_eq!(disk.flushes(), flushes);
}

/// A lone check would count on a site as a result of the card with nothing to rank: a site
/// refuses it, saying why, until it can show what checks mean over time.
#[test]
fn a_site_does_not_take_a_health_check() {
    use crate::common::site::{post, Site, NO_LIMITS};
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let doc = check(home.path(), dir.path(), &[]);
    let db = home.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), home.path(), &NO_LIMITS);
    let answer = post(&format!("{}/api/v1/results", site.url), &doc);
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert!(answer.body.contains("health check"), "{}", answer.body);
}
