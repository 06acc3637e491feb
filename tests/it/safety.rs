//! Issue 11, case by case and for real: nothing iomark did not create is damaged, no finished
//! result is lost, nothing is left behind, bad input is refused in one line.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{entries, iomark, scratch, start_long_run, wait_for_test_file};
use crate::common::{ok, refused, FAST};

/// A character device made with mknod in `dir`, the same as /dev/null (1,3) or /dev/full (1,7).
fn device_node(dir: &Path, name: &str, minor: u32) -> std::path::PathBuf {
    let path = dir.join(name);
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mknod on a path in a directory of the test's own.
    let made = unsafe {
        libc::mknod(
            c_path.as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(1, minor),
        )
    };
    assert_eq!(made, 0, "mknod: {}", std::io::Error::last_os_error());
    path
}

fn is_char_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// A home with one saved quick run in it.
fn home_with_a_run() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir(&work).unwrap();
    ok(crate::common::iomark(home.path())
        .args(["run", work.to_str().unwrap()])
        .args(FAST));
    home
}

#[test]
fn issue_11_export_and_plot_never_replace_a_device_node_or_a_link() {
    if !crate::common::root_for("mknod") {
        return;
    }
    let home = home_with_a_run();
    let dir = tempfile::tempdir().unwrap();
    let full = device_node(dir.path(), "full", 7);
    let null = device_node(dir.path(), "null", 3);
    let export = |path: &Path| {
        crate::common::iomark(home.path())
            .args(["export", "latest", "--format", "html", "-o"])
            .arg(path)
            .output()
            .unwrap()
    };
    // Like /dev/full: the write fails, and the node stays a node.
    let out = export(&full);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("the filesystem is full"),
        "{stderr}"
    );
    assert!(is_char_device(&full));
    // Like /dev/null: the write lands in it, and the node stays a node.
    assert!(export(&null).status.success());
    assert!(is_char_device(&null));
    let out = crate::common::iomark(home.path())
        .args(["plot", "latest", "-o"])
        .arg(dir.path().join("chart.png"))
        .output()
        .unwrap();
    assert!(out.status.success());
    // A symbolic link is refused, and what it points to is untouched.
    let target = dir.path().join("target.html");
    std::fs::write(&target, b"mine").unwrap();
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let line = refused(
        crate::common::iomark(home.path())
            .args(["export", "latest", "--format", "md", "-o"])
            .arg(&link),
    );
    assert!(line.contains("symbolic link"), "{line}");
    assert_eq!(std::fs::read(&target).unwrap(), b"mine");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    // Nothing else was left in the folder (no partial files).
    let mut names = entries(dir.path());
    names.sort();
    assert_eq!(
        names,
        ["chart.png", "full", "link.html", "null", "target.html"]
    );
}

#[test]
fn issue_11_destinations_and_stores_are_checked_before_anything_is_measured() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let run = |extra: &[&str]| {
        let mut command = crate::common::iomark(home.path());
        command
            .args(["run", work.to_str().unwrap(), "--size", "1GiB"])
            .args(extra);
        command
    };
    let started = Instant::now();
    for (extra, needle) in [
        (
            vec!["--json", "/nonexistent/dir/x.json"],
            "--json: /nonexistent/dir: no such directory",
        ),
        (vec!["--db", ""], "the store is empty"),
        (vec!["--db", "mysql://a@b/c"], "'mysql://' is not a store"),
    ] {
        let line = refused(&mut run(&extra));
        assert!(
            line.contains(needle) && line.contains("--db") || extra[0] != "--db",
            "{extra:?}: {line}"
        );
        assert!(line.contains(needle), "{extra:?}: {line}");
    }
    let line = refused(run(&[]).env("IOMARK_DB", ""));
    assert!(
        line.contains("'--db <PATH|URL>': the store is empty"),
        "{line}"
    );
    // A 1 GiB standard run takes a minute: these were refused before it began.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(entries(&work).is_empty());
    assert!(!home.path().join("mysql:").exists() && !work.join("mysql:").exists());
    let line = refused(run(&["--duration", "999999999999999h"]).arg("--no-save"));
    assert!(line.contains("7 days"), "{line}");
}

#[test]
fn issue_11_a_run_says_where_its_result_went() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = ok(crate::common::iomark(home.path())
        .args(["run", work.to_str().unwrap(), "--json"])
        .arg(home.path().join("r.json"))
        .args(FAST));
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("r.json")).unwrap())
            .unwrap();
    let id = doc["id"].as_str().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The id as short as the store allows (ten characters of a ULID when no other run shares
    // them), as `history` shows it.
    let short = &id[..10];
    assert!(
        stdout.contains(&format!("Saved as {short}: `iomark show {short}`")),
        "{stdout}"
    );
    // The copy written aside during the save is gone once the store holds the run.
    assert!(
        !home.path().join("iomark/unsaved").exists()
            || entries(&home.path().join("iomark/unsaved")).is_empty()
    );
}

#[test]
fn issue_11_print_fio_escapes_colons_and_refuses_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let colon = dir.path().join("a:b");
    std::fs::create_dir(&colon).unwrap();
    let out = ok(iomark(scratch()).args(["run", colon.to_str().unwrap(), "--print-fio"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("a\\:b/iomark-fio.test"), "{text}");
    let newline = dir.path().join("x\nexec_prerun=touch y");
    std::fs::create_dir(&newline).unwrap();
    let line = refused(iomark(scratch()).args(["run", newline.to_str().unwrap(), "--print-fio"]));
    assert!(line.contains("control character"), "{line}");
}

#[test]
fn issue_11_sigusr1_and_sigalrm_leave_nothing_behind() {
    for (signal, status) in [(libc::SIGUSR1, 138), (libc::SIGALRM, 142)] {
        let dir = tempfile::tempdir().unwrap();
        let child = start_long_run(dir.path());
        // SAFETY: a signal to our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    }
}

#[test]
fn issue_11_the_file_of_a_killed_run_is_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = start_long_run(dir.path());
    child.kill().unwrap();
    child.wait().unwrap();
    let left = entries(dir.path());
    assert_eq!(left.len(), 1, "SIGKILL cannot be caught: {left:?}");
    let out = iomark(scratch())
        .args(["run", dir.path().to_str().unwrap(), "--no-save"])
        .args(FAST)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "note: removed {}",
            dir.path().join(&left[0]).display()
        )) && stderr.contains("an iomark run that was killed"),
        "{stderr}"
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn issue_11_a_file_put_in_place_of_the_test_file_is_not_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let child = start_long_run(dir.path());
    let name = entries(dir.path()).pop().unwrap();
    let path = dir.path().join(&name);
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, b"another program's file").unwrap();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_eq!(std::fs::read(&path).unwrap(), b"another program's file");
}

#[test]
fn issue_11_space_is_free_as_soon_as_an_interrupted_run_has_exited() {
    let Some(fs) = crate::common::SmallFs::mount("96m") else {
        return;
    };
    // 64 MiB of a 96 MiB filesystem: a second run fits only once the first file's blocks are
    // free, which the kernel did only after the exiting process had closed it.
    let args = [
        "--size",
        "64MiB",
        "--loops",
        "5",
        "--duration",
        "2s",
        "--no-save",
    ];
    for _ in 0..3 {
        let child = iomark(scratch())
            .args(["run", fs.path.to_str().unwrap()])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_test_file(&fs.path);
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130));
        let (free, _) = iomark::space::free_space(&fs.path).unwrap();
        assert!(
            free > 90 << 20,
            "only {free} bytes free right after the exit"
        );
    }
}

#[test]
fn issue_11_a_run_interrupted_while_its_save_waits_keeps_its_result() {
    use sqlx::Connection;
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let db = home.path().join("other.db");
    ok(crate::common::iomark(home.path()).args(["history", "--db", db.to_str().unwrap()]));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut holder = runtime
        .block_on(sqlx::SqliteConnection::connect(&format!(
            "sqlite://{}",
            db.display()
        )))
        .unwrap();
    runtime
        .block_on(sqlx::query("BEGIN EXCLUSIVE").execute(&mut holder))
        .unwrap();
    let mut child = crate::common::iomark(home.path())
        .args(["run", work.to_str().unwrap(), "--db", db.to_str().unwrap()])
        .args(FAST)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It says that it waits, and for what.
    let mut stderr = child.stderr.take().unwrap();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !seen.contains("waiting for the result store") {
        let mut buffer = [0u8; 4096];
        let n = std::io::Read::read(&mut stderr, &mut buffer).unwrap();
        assert!(n > 0 && Instant::now() < deadline, "{seen}");
        seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    runtime
        .block_on(sqlx::query("COMMIT").execute(&mut holder))
        .unwrap();
    runtime.block_on(holder.close()).unwrap();
    // The note names the kept file and the exact command, with this store.
    let kept: Vec<String> = entries(&home.path().join("unsaved"));
    assert_eq!(kept.len(), 1, "{rest}");
    let file = home.path().join("unsaved").join(&kept[0]);
    let command = format!("iomark import {} --db {}", file.display(), db.display());
    assert!(rest.contains(&command), "{rest}");
    // Following it adds the run to that store.
    ok(crate::common::iomark(home.path())
        .args(["import"])
        .arg(&file)
        .args(["--db", db.to_str().unwrap()]));
    let listed = ok(crate::common::iomark(home.path()).args([
        "history",
        "--json",
        "--db",
        db.to_str().unwrap(),
    ]));
    let runs: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1);
}

#[test]
fn issue_11_imports_keep_unknown_fields_and_refuse_an_id_with_other_figures() {
    let home = home_with_a_run();
    let exported =
        ok(crate::common::iomark(home.path()).args(["export", "latest", "--format", "json"]));
    let mut doc: Value = serde_json::from_slice(&exported.stdout).unwrap();
    // The same run again is skipped; the same id with other figures is refused, and nothing of
    // that import is kept.
    let same = home.path().join("same.json");
    std::fs::write(&same, &exported.stdout).unwrap();
    let out = ok(crate::common::iomark(home.path()).arg("import").arg(&same));
    assert!(String::from_utf8_lossy(&out.stdout).contains("already in the store: skipped"));
    doc["tests"][0]["latency_us"]["max"] = serde_json::json!(123456.0);
    let other = home.path().join("other.json");
    std::fs::write(&other, doc.to_string()).unwrap();
    let line = refused(crate::common::iomark(home.path()).arg("import").arg(&other));
    assert!(line.contains("a different run with id"), "{line}");
    // A newer iomark's fields survive import and export.
    let mut newer = doc.clone();
    newer["id"] = serde_json::json!("01KAQZ8X3N7M2P4R6T8V0W2Y4Z");
    newer["from_a_newer_iomark"] = serde_json::json!({"figures": [1, 2, 3]});
    newer["tests"][1]["latency_us"]["p99_99"] = serde_json::json!(4321.0);
    let path = home.path().join("newer.json");
    std::fs::write(&path, newer.to_string()).unwrap();
    ok(crate::common::iomark(home.path()).arg("import").arg(&path));
    let back = ok(crate::common::iomark(home.path()).args([
        "export",
        "01KAQZ8X3N7M2P4R6T8V0W2Y4Z",
        "--format",
        "json",
    ]));
    let back: Value = serde_json::from_slice(&back.stdout).unwrap();
    assert_eq!(back, newer);
}

#[test]
fn issue_11_a_label_that_would_drive_the_terminal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for label in [
        "\u{1b}[2J\u{1b}]0;pwned\u{7}",
        "two\nlines",
        &"x".repeat(201),
    ] {
        let line = refused(
            iomark(scratch())
                .args([
                    "run",
                    dir.path().to_str().unwrap(),
                    "--no-save",
                    "--label",
                    label,
                ])
                .args(FAST),
        );
        assert!(line.contains("--label"), "{line}");
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn issue_11_loops_auto_adds_loops_until_the_mean_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(iomark(scratch()).args([
        "run",
        dir.path().to_str().unwrap(),
        "--no-save",
        "--json",
        "-",
        "--size",
        "8MiB",
        "--duration",
        "100ms",
        "--warmup",
        "0",
        "--loops",
        "auto",
        "--test",
        "SEQ1M_Q1T1",
        "--test",
        "RND4K_Q1T1_read",
    ]));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["settings"]["loops_auto"], true);
    assert_eq!(doc["settings"]["loops"], 20);
    for test in doc["tests"].as_array().unwrap() {
        let loops = test["loops"].as_array().unwrap().len();
        let width = test["mean_ci95_pct"].as_f64().unwrap();
        assert!((3..=20).contains(&loops), "{loops}");
        // Stopped early only once the interval was narrow enough.
        assert!(loops == 20 || width <= 2.5, "{loops} loops, ±{width}%");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--loops auto: each test's mean"),
        "{stderr}"
    );
    let line = refused(iomark(scratch()).args(["run", "--loops", "sometimes"]));
    assert!(line.contains("nor auto"), "{line}");
}

#[test]
fn issue_11_json_on_a_full_disk_leaves_the_old_file_not_an_empty_one() {
    let Some(fs) = crate::common::SmallFs::mount("512k") else {
        return;
    };
    let json = fs.path.join("r.json");
    std::fs::write(&json, b"old").unwrap();
    let mut filler = std::fs::File::create(fs.path.join("filler")).unwrap();
    while std::io::Write::write_all(&mut filler, &[0u8; 4096]).is_ok() {}
    drop(filler);
    let work = tempfile::tempdir().unwrap();
    let out = iomark(scratch())
        .args(["run", work.path().to_str().unwrap(), "--no-save", "--json"])
        .arg(&json)
        .args(FAST)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--json: cannot write"), "{stderr}");
    assert_eq!(std::fs::read(&json).unwrap(), b"old");
    let mut names = entries(&fs.path);
    names.sort();
    assert_eq!(names, ["filler", "r.json"]);
}
