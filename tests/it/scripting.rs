//! iomark in scripts and fleets (issue 15): --quiet, --progress json, --color, NO_COLOR.

use serde_json::Value;

use crate::common::{iomark, scratch};
use crate::common::{ok, FAST};

#[test]
fn quiet_prints_only_the_document_or_only_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        ok(iomark(scratch())
            .args(["run", dir.path().to_str().unwrap(), "--quiet"])
            .args(FAST)
            .args(extra))
    };
    let out = run(&["--json", "-"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["tests"].as_array().unwrap().len(), 8);
    let out = run(&[]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("SEQ1M Q8T1") && !table.contains("Saved as"),
        "{table}"
    );
}

#[test]
fn progress_json_is_one_object_per_line_for_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(iomark(scratch())
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "--no-save",
            "--progress",
            "json",
        ])
        .args([
            "--size",
            "4MiB",
            "--warmup",
            "0",
            "--test",
            "RND4K_Q1T1_read",
        ])
        .args(["--loops", "1", "--duration", "2500ms"]));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    // The fill, then the test: each starts and ends; a 2.5 s test ticks every second.
    assert_eq!(
        kinds.iter().filter(|k| **k == "start").count(),
        2,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "done").count(),
        2,
        "{kinds:?}"
    );
    assert!(
        kinds.iter().filter(|k| **k == "tick").count() >= 2,
        "{kinds:?}"
    );
    let done = events.iter().rfind(|e| e["event"] == "done").unwrap();
    assert_eq!(done["test"], "RND4K_Q1T1_read");
    assert!(done["iops"].as_f64().unwrap() > 0.0);
}

/// The time left is what is known: the pi profile once said 6 hours (its one-hour bound times
/// six steps) before a run of seconds (issue 25); until a rate is measured it says nothing, and
/// each step's end says it with the rate that step measured.
#[test]
fn the_time_left_is_never_a_bound_passed_off_as_an_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(iomark(scratch()).args([
        "run",
        dir.path().to_str().unwrap(),
        "--no-save",
        "--engine",
        "null",
        "--profile",
        "pi",
        "--size",
        "64MiB",
        "--progress",
        "json",
    ]));
    let lefts: Vec<Value> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "done")
        .map(|e| e["run_left_s"].clone())
        .collect();
    assert_eq!(lefts.len(), 7, "{lefts:?}");
    // Each step says at its end what is left, its own rate measured by then (the first
    // included: it was the bound before, for lack of a rate, so it said nothing).
    for left in &lefts {
        // The null engine runs every step in well under a minute.
        assert!(left.as_f64().unwrap() < 60.0, "{lefts:?}");
    }
}

#[test]
fn colour_is_chosen_in_one_place() {
    let dir = tempfile::tempdir().unwrap();
    let table = |color: &str, no_color: Option<&str>| {
        let mut command = iomark(scratch());
        command
            .args(["run", dir.path().to_str().unwrap(), "--no-save", "--quiet"])
            .args(["--color", color])
            .args(FAST);
        match no_color {
            Some(value) => command.env("NO_COLOR", value),
            None => command.env_remove("NO_COLOR"),
        };
        String::from_utf8_lossy(&ok(&mut command).stdout).contains('\u{1b}')
    };
    // Not a terminal: colour only when asked for, whatever NO_COLOR says then.
    assert!(!table("auto", None));
    assert!(table("always", Some("1")));
    assert!(!table("never", None));
    // The Error line follows the same rule (an empty NO_COLOR does not count).
    let out = iomark(scratch())
        .args(["--color", "always", "run", "/no/such/dir"])
        .env("NO_COLOR", "")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("\u{1b}[31mError:"));
}

/// Issue 45: `iomark submit … | head -2` exited 101, a panic on the closed pipe. A reader that
/// goes away ends the output quietly, with the status the command would have had.
#[test]
fn a_closed_pipe_ends_output_quietly() {
    use std::process::Stdio;
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    ok(iomark(home.path())
        .args(["run", dir.path().to_str().unwrap(), "--quiet"])
        .args(FAST));
    for args in [
        vec![
            "submit",
            "latest",
            "--server",
            "http://127.0.0.1:9",
            "--dry-run",
        ],
        vec!["history"],
        vec!["show", "latest"],
        vec!["export", "latest", "--format", "json"],
    ] {
        let mut child = iomark(home.path())
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader is gone before a byte is written.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// Issue 59: `iomark submit … 2>&1 | head -1` panicked (exit 101) when its word about a failed
/// send met the closed pipe on standard error. It fails as a send fails: 1.
#[test]
fn a_closed_standard_error_is_not_a_panic() {
    use std::process::Stdio;
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    ok(iomark(home.path())
        .args(["run", dir.path().to_str().unwrap(), "--quiet"])
        .args(FAST));
    // Nothing listens on port 9: each try is refused, and said so on standard error.
    let mut child = iomark(home.path())
        .args([
            "submit",
            "latest",
            "--server",
            "http://127.0.0.1:9",
            "--yes",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}");
}

/// Issue 45: `run -p quick` answered "to pass '-p' as a value, use '-- -p'".
#[test]
fn p_is_short_for_profile() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(iomark(scratch())
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "-p",
            "quick",
            "--quiet",
            "--json",
            "-",
        ])
        .args(["--engine", "null", "--size", "4MiB", "--no-save"]));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["settings"]["profile"], "quick");
}
