//! `iomark run` as a user runs it: the real binary on a fresh temporary directory, with tiny
//! sizes and short loops, checked through its JSON, its exit status and what it leaves behind.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{
    entries, iomark, is_root, run_ok, scratch, start_long_run, wait_for_test_file, SmallFs, FAST,
};

/// `iomark run DIR --json - <FAST> <extra>`, which must succeed: its document and its output.
fn run_fast_json(dir: &Path, extra: &[&str]) -> (Value, Output) {
    let mut args = vec!["run", dir.to_str().unwrap(), "--json", "-"];
    args.extend_from_slice(&FAST);
    args.extend_from_slice(extra);
    let output = run_ok(&args);
    let doc = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    (doc, output)
}

/// `iomark run DIR <args> --json -`, which must succeed: its document and its output.
fn run_json(dir: &Path, args: &[&str]) -> (Value, Output) {
    let mut all = vec!["run", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-"]);
    let output = run_ok(&all);
    let doc = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    (doc, output)
}

/// The names of a document's tests, in order.
fn names(doc: &Value) -> Vec<String> {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn standard_tests_produce_a_complete_result_document() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("result.json");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let output = run_ok(
        &[
            &[
                "run",
                work.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
                "--label",
                "tiny test",
            ][..],
            &FAST[..],
        ]
        .concat(),
    );
    let table = String::from_utf8_lossy(&output.stdout);
    for row in [
        "SEQ1M Q8T1",
        "SEQ1M Q1T1",
        "RND4K Q32T1",
        "RND4K Q1T1",
        "MB/s",
        "IOPS",
        "removed",
    ] {
        assert!(table.contains(row), "table lacks {row}:\n{table}");
    }
    assert!(
        entries(&work).is_empty(),
        "left behind: {:?}",
        entries(&work)
    );

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema"], "iomark.result/1");
    assert_eq!(doc["id"].as_str().unwrap().len(), 26);
    assert_eq!(doc["tool"]["name"], "iomark");
    assert_eq!(doc["label"], "tiny test");
    assert!(doc["started_at"].as_str().unwrap().ends_with('Z'));
    assert!(doc["host"]["arch"].is_string());
    assert!(doc["host"]["cpu_cores"].as_u64().unwrap() >= 1);
    assert_eq!(
        doc["target"]["path"],
        std::fs::canonicalize(&work).unwrap().to_str().unwrap()
    );
    assert!(doc["target"]["filesystem"].is_string());
    let settings = &doc["settings"];
    assert_eq!(settings["profile"], "standard");
    assert_eq!(settings["file_size_bytes"], 4 << 20);
    assert_eq!(settings["loops"], 1);
    assert_eq!(settings["duration_s"], 0.15);
    assert_eq!(settings["data"], "random");
    assert!(["io_uring", "psync"].contains(&settings["engine"].as_str().unwrap()));
    assert!(settings["direct"].is_boolean());

    let tests = doc["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "SEQ1M_Q8T1_read",
            "SEQ1M_Q1T1_read",
            "RND4K_Q32T1_read",
            "RND4K_Q1T1_read",
            "SEQ1M_Q8T1_write",
            "SEQ1M_Q1T1_write",
            "RND4K_Q32T1_write",
            "RND4K_Q1T1_write"
        ]
    );
    for test in tests {
        let name = test["name"].as_str().unwrap();
        let block = test["block_size"].as_f64().unwrap();
        let (mb, iops) = (
            test["mb_per_s"].as_f64().unwrap(),
            test["iops"].as_f64().unwrap(),
        );
        assert!(mb > 0.0 && iops > 0.0, "{name}: {mb} MB/s, {iops} IOPS");
        assert!(
            close(mb, iops * block / 1e6),
            "{name}: {mb} MB/s vs {iops} IOPS × {block}"
        );
        let only = &test["loops"][0];
        let (bytes, seconds) = (
            only["bytes"].as_f64().unwrap(),
            only["seconds"].as_f64().unwrap(),
        );
        assert!(
            close(mb, bytes / seconds / 1e6),
            "{name}: MB/s is not bytes / seconds / 10^6"
        );
        assert_eq!(
            only["bytes"].as_u64().unwrap(),
            only["ios"].as_u64().unwrap() * block as u64
        );
        assert!(
            seconds >= 0.15,
            "{name}: loop of {seconds} s, shorter than --duration"
        );
        let lat = &test["latency_us"];
        let ordered: Vec<f64> = ["min", "p50", "p90", "p99", "p99_9", "max"]
            .iter()
            .map(|k| lat[k].as_f64().unwrap())
            .collect();
        assert!(
            ordered.windows(2).all(|w| w[0] <= w[1]),
            "{name}: percentiles out of order {ordered:?}"
        );
        assert!(ordered[0] > 0.0);
        // A test this short is sampled finer than once a second (a tenth to a half), from
        // its start, so that its timeline draws a line rather than a point.
        let starts: Vec<f64> = test["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["t"].as_f64().unwrap())
            .collect();
        assert_eq!(starts.first(), Some(&0.0), "{name}");
        assert!(
            starts
                .windows(2)
                .all(|w| w[1] - w[0] > 0.09 && w[1] - w[0] < 0.51),
            "{name}: samples at {starts:?}"
        );
        assert!(test["cpu"]["user_s"].as_f64().unwrap() >= 0.0);
        assert_eq!(test["threads"], 1);
        let kind = if name.starts_with("SEQ") {
            "seq"
        } else {
            "rand"
        };
        assert_eq!(test["kind"], kind);
        assert_eq!(test["op"], name.rsplit('_').next().unwrap());
    }
    assert!(doc["warnings"].is_array());
    assert!(doc["score"].is_null());
}

#[test]
fn json_to_stdout_moves_the_table_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_fast_json(dir.path(), &["--test", "RND4K_Q1T1_read"]);
    assert_eq!(names(&doc), ["RND4K_Q1T1_read"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("RND4K Q1T1"));
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn test_selection_by_name_and_row() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = run_fast_json(
        dir.path(),
        &["--test", "seq1m_q1t1", "--test", "RND4K_Q32T1_write"],
    );
    assert_eq!(
        names(&doc),
        ["SEQ1M_Q1T1_read", "SEQ1M_Q1T1_write", "RND4K_Q32T1_write"]
    );
}

#[test]
fn threads_from_a_test_name_or_for_the_whole_table() {
    // A name the table does not hold runs as it says: 4 KiB random reads from 3 threads, each
    // with 2 in flight, on every engine, recorded as such.
    for engine in ["psync", "io_uring", "null"] {
        if engine == "io_uring" && iomark::engine::uring::available().is_err() {
            crate::common::skip("io_uring is not available here");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let (doc, output) = run_fast_json(
            dir.path(),
            &["--engine", engine, "--test", "RND4K_Q2T3_read"],
        );
        assert_eq!(names(&doc), ["RND4K_Q2T3_read"]);
        let test = &doc["tests"][0];
        assert_eq!(
            (test["queue_depth"].as_u64(), test["threads"].as_u64()),
            (Some(2), Some(3))
        );
        assert!(test["iops"].as_f64().unwrap() > 0.0, "{engine}");
        let ios: u64 = test["loops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["ios"].as_u64().unwrap())
            .sum();
        assert!(ios > 0);
        assert!(String::from_utf8_lossy(&output.stderr).contains("RND4K Q2T3"));
        assert!(entries(dir.path()).is_empty());
    }
    // --threads: every test of the table, renamed.
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = run_fast_json(
        dir.path(),
        &[
            "--threads",
            "2",
            "--test",
            "SEQ1M_Q1T1_read",
            "--test",
            "RND4K_Q32T1",
        ],
    );
    assert_eq!(
        names(&doc),
        ["SEQ1M_Q1T2_read", "RND4K_Q32T2_read", "RND4K_Q32T2_write"]
    );
    assert!(doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["threads"] == 2));
}

#[test]
fn poll_is_asked_for_recorded_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_fast_json(dir.path(), &["--test", "RND4K_Q1T1_read"]);
    assert!(doc["settings"].get("polled").is_none(), "{doc}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("polled"));
    let (doc, output) = run_fast_json(dir.path(), &["--poll", "--test", "RND4K_Q1T1_read"]);
    assert_eq!(doc["settings"]["polled"], true);
    let table = String::from_utf8_lossy(&output.stderr);
    assert!(table.contains(" (QD1 polled) · direct I/O"), "{table}");
    assert!(doc["tests"][0]["iops"].as_f64().unwrap() > 0.0);
    let imported: iomark::result::ResultDoc = serde_json::from_value(doc).unwrap();
    assert_eq!(imported.identity().class, "standard/direct/random/polled");
}

#[test]
fn every_engine_runs_and_is_recorded() {
    for engine in ["psync", "io_uring", "null"] {
        let dir = tempfile::tempdir().unwrap();
        if engine == "io_uring" && iomark::engine::uring::available().is_err() {
            let output = iomark(scratch())
                .args(["run", dir.path().to_str().unwrap(), "--engine", engine])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.starts_with("Error: --engine io_uring"), "{stderr}");
            eprintln!("io_uring unavailable here: {stderr}");
            continue;
        }
        let (doc, _) = run_fast_json(
            dir.path(),
            &["--engine", engine, "--test", "RND4K_Q32T1_read"],
        );
        assert_eq!(doc["settings"]["engine"], engine);
        assert!(doc["tests"][0]["iops"].as_f64().unwrap() > 0.0);
        assert!(entries(dir.path()).is_empty());
    }
}

#[test]
fn zero_data_and_buffered_io_are_recorded_and_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_fast_json(
        dir.path(),
        &["--data", "zero", "--buffered", "--test", "SEQ1M_Q1T1"],
    );
    assert_eq!(doc["settings"]["data"], "zero");
    assert_eq!(doc["settings"]["direct"], false);
    let kinds: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"direct_io_unavailable"), "{kinds:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("warning: direct I/O is off"));
}

#[test]
fn quick_profile_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_ok(&[
        "run",
        dir.path().to_str().unwrap(),
        "--profile",
        "quick",
        "--json",
        "-",
        "--test",
        "RND4K_Q1T1_write",
    ]);
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["settings"]["profile"], "quick");
    assert_eq!(doc["settings"]["file_size_bytes"], 64 << 20);
    assert_eq!(doc["settings"]["loops"], 1);
}

#[test]
fn print_fio_writes_a_job_file_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_ok(&[
        "run",
        dir.path().to_str().unwrap(),
        "--print-fio",
        "--size",
        "256MiB",
        "--engine",
        "psync",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("[global]\nioengine=psync\ndirect=1\n"),
        "{text}"
    );
    assert!(text.contains("size=268435456"));
    assert_eq!(text.matches("stonewall").count(), 8);
    assert!(entries(dir.path()).is_empty());
}

/// A refused run: non-zero exit, one line on stderr that starts with `Error:` and contains
/// `needle`, no panic, nothing left in `dir`.
fn assert_refused(args: &[&str], needle: &str, dir: &Path) {
    let output = iomark(scratch()).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{args:?} succeeded");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {stderr}"
    );
    assert!(stderr.starts_with("Error: "), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: '{needle}' not in {stderr}"
    );
    let left: Vec<String> = entries(dir)
        .into_iter()
        .filter(|n| n.starts_with(".iomark-"))
        .collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let missing = dir.path().join("missing");
    let plain = dir.path().join("plain.txt");
    std::fs::write(&plain, "x").unwrap();
    assert_refused(
        &["run", missing.to_str().unwrap()],
        "no such directory",
        dir.path(),
    );
    assert_refused(
        &["run", plain.to_str().unwrap()],
        "not a directory",
        dir.path(),
    );
    assert_refused(&["run", d, "--size", "12XB"], "--size", dir.path());
    assert_refused(&["run", d, "--size", "lots"], "--size", dir.path());
    assert_refused(
        &["run", d, "--size", "1KiB"],
        "--size: 1 KiB is smaller than one 1 MiB block",
        dir.path(),
    );
    assert_refused(&["run", d, "--size", "0"], "--size", dir.path());
    assert_refused(
        &["run", d, "--size", "1000TiB"],
        "not enough free space",
        dir.path(),
    );
    assert_refused(&["run", d, "--profile", "fastest"], "--profile", dir.path());
    assert_refused(
        &["run", d, "--test", "RND8K_Q1_read"],
        "--test: no test 'RND8K_Q1_read'",
        dir.path(),
    );
    assert_refused(
        &["run", d, "--test", "RND4K_Q32T99_read"],
        "--test RND4K_Q32T99_read: threads must be 1 to 64",
        dir.path(),
    );
    assert_refused(
        &["run", d, "--profile", "pi", "--test", "RND4K_Q1T2_read"],
        "--test: no test 'RND4K_Q1T2_read' in profile pi",
        dir.path(),
    );
    assert_refused(
        &["run", d, "--profile", "sdcard", "--threads", "2"],
        "--threads: the sdcard profile's tests are its method",
        dir.path(),
    );
    assert_refused(&["run", d, "--threads", "0"], "--threads", dir.path());
    assert_refused(&["run", d, "--threads", "65"], "--threads", dir.path());
    assert_refused(&["run", d, "--loops", "0"], "--loops", dir.path());
    assert_refused(&["run", d, "--duration", "soon"], "--duration", dir.path());
    assert_refused(&["run", d, "--engine", "aio"], "--engine", dir.path());
    assert_refused(&["run", d, "--bogus"], "--bogus", dir.path());
    assert_refused(
        &["run", d, "--count", "10"],
        "--count: the standard profile runs its tests for a time",
        dir.path(),
    );
    assert_eq!(entries(dir.path()), ["plain.txt"]);
}

/// Issue 45: `verify` in a folder it could not write said only "Permission denied (os error
/// 13)" where `run` explained. Every command that writes into a folder says it in one line.
#[test]
fn no_permission_is_refused_in_one_plain_line_by_every_command() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    // A saved run to export and a store to back up, made before the folder is someone else's.
    let data = dir.path().join("data");
    let saved = Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args([
            "run",
            scratch().to_str().unwrap(),
            "--engine",
            "null",
            "--size",
            "4MiB",
        ])
        .args([
            "--test",
            "SEQ1M_Q1T1_read",
            "--loops",
            "1",
            "--duration",
            "100ms",
        ])
        .args(["--warmup", "0s", "--quiet"])
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let in_locked = |name: &str| locked.join(name).to_str().unwrap().to_string();
    let root = is_root();
    if root {
        // Root may write anywhere: run as the unprivileged `nobody` instead, from a copy of the
        // binary in a directory it can reach (temp dirs are created 0700), with its store.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_iomark"), dir.path().join("iomark")).unwrap();
        std::process::Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(&data)
            .status()
            .unwrap();
    }
    for args in [
        vec!["run".to_string(), locked.to_str().unwrap().to_string()],
        vec![
            "verify".into(),
            locked.to_str().unwrap().into(),
            "--size".into(),
            "2MiB".into(),
        ],
        vec![
            "export".into(),
            "latest".into(),
            "--format".into(),
            "json".into(),
            "-o".into(),
            in_locked("r.json"),
        ],
        vec!["store".into(), "backup".into(), in_locked("copy.db")],
    ] {
        let mut command = match root {
            true => {
                let mut command = Command::new(dir.path().join("iomark"));
                command.uid(65534).gid(65534);
                command
            }
            false => Command::new(env!("CARGO_BIN_EXE_iomark")),
        };
        command.args(&args).env("XDG_DATA_HOME", &data);
        let output = crate::common::output_of_copy(&mut command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("Error: ")
                && stderr.contains("permission denied (choose a directory you can write to)")
                && !stderr.contains("os error"),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            entries(&locked).is_empty(),
            "{args:?} left {:?}",
            entries(&locked)
        );
    }
}

#[test]
fn a_full_run_needs_no_root() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    // Every other test here already runs without root; this one proves it from root.
    if !crate::common::root_for("running as another user") {
        return;
    }
    // As root, prove it by running as `nobody`, from a copy of the binary it can reach.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o777)).unwrap();
    let copy = dir.path().join("iomark");
    std::fs::copy(env!("CARGO_BIN_EXE_iomark"), &copy).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut args = vec!["run", work.to_str().unwrap(), "--json", "-"];
    args.extend_from_slice(&FAST);
    let output = crate::common::output_of_copy(
        Command::new(copy)
            .args(&args)
            .uid(65534)
            .gid(65534)
            .env("XDG_DATA_HOME", &data)
            .env_remove("IOMARK_DB"),
    );
    assert!(
        output.status.success(),
        "as nobody: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(names(&doc).len(), 8);
    assert!(entries(&work).is_empty());
    // And its result was saved, in nobody's own store.
    assert!(data.join("iomark/results.db").is_file());
    assert!(!String::from_utf8_lossy(&output.stderr).contains("not saved"));
}

#[test]
fn read_only_filesystem_is_refused() {
    if !crate::common::root_for("a read-only mount") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    let ro = dir.path().join("ro");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::create_dir_all(&ro).unwrap();
    let mount = |args: &[&str]| {
        Command::new("mount")
            .args(args)
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !mount(&["--bind", source.to_str().unwrap(), ro.to_str().unwrap()]) {
        crate::common::skip("mount --bind failed here, even as root");
        return;
    }
    let remounted = mount(&["-o", "remount,ro,bind", ro.to_str().unwrap()]);
    let output = iomark(scratch())
        .args(["run", ro.to_str().unwrap()])
        .output()
        .unwrap();
    Command::new("umount").arg(&ro).status().unwrap();
    assert!(remounted, "remount read-only failed");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.starts_with("Error: ") && stderr.contains("read-only"),
        "{stderr}"
    );
    assert!(entries(&source).is_empty());
}

/// Sends `signal` to a long run and checks the exit status and that nothing is left.
fn interrupt_mid_run(signal: i32, expected_status: i32) {
    let dir = tempfile::tempdir().unwrap();
    let child = start_long_run(dir.path());
    // SAFETY: sending a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(expected_status), "{stderr}");
    assert!(stderr.contains("removed the test file"), "{stderr}");
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

#[test]
fn sigint_mid_run_removes_the_test_file() {
    interrupt_mid_run(libc::SIGINT, 130);
}

#[test]
fn sigterm_mid_run_removes_the_test_file() {
    interrupt_mid_run(libc::SIGTERM, 143);
}

/// A closed terminal or a dropped SSH session (found when a tmux session was killed mid-run).
#[test]
fn sighup_mid_run_removes_the_test_file() {
    interrupt_mid_run(libc::SIGHUP, 129);
}

/// After a hang-up nobody reads stderr any more. Killing a tmux session left iomark hung: the
/// signal thread panicked writing its message and never exited, holding the file registry's
/// lock. With stderr closed before the signal, the run must still remove its file and exit.
#[test]
fn sighup_with_stderr_gone_still_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = start_long_run(dir.path());
    drop(child.stderr.take());
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGHUP) }, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("iomark did not exit within 10 s of SIGHUP with stderr closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(129));
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

#[test]
fn a_closed_stderr_is_no_reason_to_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        dir.path().to_str().unwrap(),
        "--json",
        "-",
        "--test",
        "RND4K_Q1T1_read",
    ];
    args.extend_from_slice(&FAST);
    // The child's stderr is a pipe whose reading end is closed before it starts writing.
    let mut child = iomark(scratch())
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "exit {:?}", output.status);
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(names(&doc), ["RND4K_Q1T1_read"]);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn latency_profile_takes_exactly_count_samples_and_shows_them_live() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_json(
        dir.path(),
        &[
            "--profile",
            "latency",
            "--count",
            "50",
            "--live",
            "--size",
            "4MiB",
        ],
    );
    assert_eq!(doc["settings"]["profile"], "latency");
    assert_eq!(doc["settings"]["count"], 50);
    assert_eq!(names(&doc), ["RND4K_Q1T1_read"]);
    let test = &doc["tests"][0];
    assert_eq!(test["loops"][0]["ios"], 50);
    assert_eq!(test["queue_depth"], 1);
    assert!(test["latency_us"]["stddev"].as_f64().unwrap() >= 0.0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("request"))
        .collect();
    assert_eq!(lines.len(), 50, "{stderr}");
    assert!(
        lines[49].contains("request     50:") && lines[49].ends_with("µs"),
        "{}",
        lines[49]
    );
    assert!(stderr.contains("50 samples: min"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn sweep_profile_covers_every_block_size_and_finds_saturation() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_json(
        dir.path(),
        &[
            "--profile",
            "sweep",
            "--size",
            "16MiB",
            "--duration",
            "100ms",
            "--warmup",
            "0",
        ],
    );
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 14);
    let sizes = [4096u64, 16384, 65536, 262144, 1048576, 4194304, 16777216];
    for op in ["read", "write"] {
        let blocks: Vec<u64> = tests
            .iter()
            .filter(|t| t["op"] == op)
            .map(|t| t["block_size"].as_u64().unwrap())
            .collect();
        assert_eq!(blocks, sizes);
        let entry = &doc["score"]["sweep"][op];
        assert!(
            sizes.contains(&entry["saturated_at_block_size"].as_u64().unwrap()),
            "{entry}"
        );
        let best = tests
            .iter()
            .filter(|t| t["op"] == op)
            .map(|t| t["mb_per_s"].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert_eq!(entry["max_mb_per_s"].as_f64().unwrap(), best);
    }
    assert!(String::from_utf8_lossy(&output.stderr).contains("saturates at"));
}

#[test]
fn sustained_profile_writes_the_size_once_without_a_fill() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_json(dir.path(), &["--profile", "sustained", "--size", "48MiB"]);
    assert_eq!(names(&doc), ["SEQ1M_Q8T1_write"]);
    let sustained = &doc["score"]["sustained"];
    assert_eq!(sustained["written_bytes"], 48 << 20);
    assert_eq!(doc["tests"][0]["loops"][0]["ios"], 48);
    assert!(sustained["before_mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(sustained.get("cliff_at_bytes").is_some() && sustained.get("dips").is_some());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Writing the"),
        "a sustained write must not fill the file first: {stderr}"
    );
    assert!(stderr.contains("Sustained write:"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn sustained_profile_stops_at_its_time_bound() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = run_json(
        dir.path(),
        &[
            "--profile",
            "sustained",
            "--size",
            "2GiB",
            "--duration",
            "300ms",
        ],
    );
    let sustained = &doc["score"]["sustained"];
    let seconds = sustained["seconds"].as_f64().unwrap();
    assert!((0.3..3.0).contains(&seconds), "{seconds} s");
    // Unless this disk writes 2 GiB in 300 ms, the bound ended it early.
    let written = sustained["written_bytes"].as_u64().unwrap();
    assert!(written <= 2 << 30 && written > 0);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn sdcard_profile_judges_every_class() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        dir.path().to_str().unwrap(),
        "--profile",
        "sdcard",
        "--claimed",
        "v30,A1",
        "--json",
        "-",
    ];
    args.extend_from_slice(&FAST);
    let output = run_ok(&args);
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        names(&doc),
        ["SEQ1M_Q8T1_write", "RND4K_Q1T1_read", "RND4K_Q1T1_write"]
    );
    // The sustained write runs once over the whole file, whatever --loops says.
    assert_eq!(doc["tests"][0]["loops"].as_array().unwrap().len(), 1);
    assert_eq!(doc["tests"][0]["loops"][0]["bytes"], 4 << 20);
    let classes = doc["score"]["classes"].as_array().unwrap();
    let named: Vec<&str> = classes
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        named,
        ["C2", "C4", "C6", "C10", "U1", "U3", "V6", "V10", "V30", "V60", "V90", "A1", "A2"]
    );
    // A test folder is on no SD card: every class is measured and shown, none met or missed
    // (issue 45: a virtual disk "passed" V90), and the claims are kept.
    assert!(doc["score"]["not_a_card"].is_string(), "{}", doc["score"]);
    assert_eq!(doc["score"]["claimed"], serde_json::json!(["V30", "A1"]));
    for class in classes {
        assert!(class["pass"].is_null(), "{class}");
        assert!(
            class["measured"]["sequential_write_mb_per_s"].is_f64(),
            "{class}"
        );
        assert!(
            class["required"]["sequential_write_mb_per_s"].is_f64(),
            "{class}"
        );
    }
    assert_eq!(classes[11]["required"]["random_write_iops_4k"], 500.0);
    let table = String::from_utf8_lossy(&output.stderr);
    assert!(
        table.contains("Class  verdict") && table.contains("for reference only"),
        "{table}"
    );
}

#[test]
fn pi_profile_computes_the_published_score_from_its_parts() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, output) = run_json(dir.path(), &["--profile", "pi", "--size", "8MiB"]);
    assert_eq!(
        names(&doc),
        [
            "DD4K_Q1T1_write",
            "FIO4K_Q64T1_write",
            "FIO4K_Q64T1_read",
            "IOZ4K_Q1T1_write",
            "IOZ4K_Q1T1_read",
            "IOZRND4K_Q1T1_read",
            "IOZRND4K_Q1T1_write"
        ]
    );
    // Each step is one pass over its file: dd over all 8 MiB, the rest over min(80 MiB, 8 MiB).
    for test in doc["tests"].as_array().unwrap() {
        assert_eq!(test["loops"][0]["bytes"], 8 << 20, "{}", test["name"]);
    }
    let parts = &doc["score"]["parts"];
    let part = |key: &str| parts[key].as_f64().unwrap();
    let by_hand = ((part("dd_write_mb_per_s") * 1024.0
        + part("fio_randread_4k_iops") * 4.0
        + part("fio_randwrite_4k_iops") * 10.0
        + part("iozone_read_4k_kb_per_s")
        + part("iozone_write_4k_kb_per_s")
        + part("iozone_randread_4k_kb_per_s") * 4.0
        + part("iozone_randwrite_4k_kb_per_s") * 10.0)
        / 100.0)
        .floor();
    assert_eq!(doc["score"]["total"].as_f64().unwrap(), by_hand);
    let dd = &doc["tests"][0];
    assert!((part("dd_write_mb_per_s") - dd["mb_per_s"].as_f64().unwrap()).abs() < 1e-9);
    let kinds: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"pi_score_not_comparable"), "{kinds:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("PiBenchmarks score:"));
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn help_names_the_options() {
    let output = run_ok(&["run", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for option in [
        "--profile",
        "--size",
        "--loops",
        "--duration",
        "--warmup",
        "--test",
        "--engine",
        "--data",
        "--json",
        "--no-save",
        "--label",
        "--print-fio",
    ] {
        assert!(help.contains(option), "--help lacks {option}");
    }
}

#[test]
fn filesystem_filling_up_mid_run_is_survived_and_space_is_checked_first() {
    let Some(fs) = SmallFs::mount("48m") else {
        return;
    };
    // 40 MiB + 16 MiB headroom is more than 48 MiB: refused before anything is written.
    assert_refused(
        &["run", fs.path.to_str().unwrap(), "--size", "40MiB"],
        "not enough free space",
        &fs.path,
    );

    let child = iomark(scratch())
        .args([
            "run",
            fs.path.to_str().unwrap(),
            "--size",
            "16MiB",
            "--loops",
            "2",
            "--duration",
            "700ms",
            "--warmup",
            "0",
            "--json",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_test_file(&fs.path);
    // Someone else fills the filesystem to the last block while the run goes on.
    let filler_path = fs.path.join("filler");
    let mut filler = std::fs::File::create(&filler_path).unwrap();
    let chunk = vec![7u8; 1 << 20];
    let full = loop {
        if let Err(error) = std::io::Write::write_all(&mut filler, &chunk) {
            break error;
        }
    };
    assert_eq!(full.raw_os_error(), Some(libc::ENOSPC), "{full}");
    let output = child.wait_with_output().unwrap();
    drop(filler);
    std::fs::remove_file(&filler_path).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The test file's blocks were reserved up front, so the run completes.
    assert!(output.status.success(), "{stderr}");
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["tests"].as_array().unwrap().len(), 8);
    let kinds: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"ram_filesystem"), "{kinds:?}");
    assert!(
        entries(&fs.path).is_empty(),
        "left behind: {:?}",
        entries(&fs.path)
    );
}
