//! `iomark langs`: every language's program for real on small files, the harness against
//! programs that lie, a missing toolchain, the command end to end, and Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{iomark, ok};
use iomark::langs::{self, expected_checksum, program, toolchain};
use serde_json::Value;

fn sequence(n: u64) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}

#[test]
fn every_program_writes_the_sequence_and_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // 70,000 bytes: not a multiple of 256, nor of any buffer size.
    let spec = program::Spec {
        bytes: 70_000,
        reps: 2,
        cold: false,
        cpu: None,
    };
    let mut missing = Vec::new();
    for lang in langs::LANGS {
        let ready = match toolchain::prepare(lang, &cache) {
            Ok(ready) => ready,
            Err(reason) => {
                missing.push(format!("{}: {reason}", lang.name));
                continue;
            }
        };
        for (variant, _) in lang.variants {
            let file = dir.path().join(format!("{}-{variant}.bin", lang.name));
            let command = lang.command_for(&ready.command, variant);
            let lines = program::run(&command, lang.name, variant, &file, spec, |_| {})
                .unwrap_or_else(|e| panic!("{}/{variant}: {e}", lang.name));
            assert_eq!(lines.len(), 4);
            if *variant == langs::VARIANT_2019 {
                // 2019's program, as it was: it deletes the file in its timed read.
                assert!(!file.exists(), "{}/2019 left its file", lang.name);
                continue;
            }
            // A read's sum is the program's; a write's bytes are checked in the file.
            for l in &lines {
                let want = if l.op == "read" {
                    expected_checksum(70_000)
                } else {
                    0
                };
                assert_eq!(l.checksum, want, "{}/{variant} {}", lang.name, l.op);
            }
            // The file holds exactly the sequence, byte for byte.
            let written = std::fs::read(&file).unwrap();
            assert!(
                written == sequence(70_000),
                "{}/{variant}: wrong bytes",
                lang.name
            );
        }
    }
    // Every toolchain is expected here: tests/run installs them all.
    assert!(
        missing.is_empty(),
        "toolchains missing (tests/run installs them): {missing:?}"
    );
}

#[test]
fn a_cold_read_waits_for_the_eviction_and_still_checks_out() {
    let dir = tempfile::tempdir().unwrap();
    let lang = langs::lang("c").unwrap();
    let ready = toolchain::prepare(lang, &dir.path().join("cache")).unwrap();
    let spec = program::Spec {
        bytes: 1 << 20,
        reps: 2,
        cold: true,
        cpu: None,
    };
    let file = dir.path().join("cold.bin");
    let lines = program::run(&ready.command, "c", "default", &file, spec, |_| {}).unwrap();
    assert_eq!(lines.len(), 4);
    assert_eq!(std::fs::read(&file).unwrap(), sequence(1 << 20));
}

/// A program that is a shell script: `$2` is the file, `$4` the byte count.
fn fake(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into(), "fake".into()]
}

fn line(rep: u32, op: &str, bytes: u64, checksum: u64) -> String {
    format!(
        r#"echo '{{"lang":"c","variant":"default","rep":{rep},"op":"{op}","bytes":{bytes},"ns":5,"checksum":{checksum}}}'"#
    )
}

#[test]
fn the_harness_believes_no_program_blindly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.bin");
    let spec = program::Spec {
        bytes: 512,
        reps: 1,
        cold: false,
        cpu: None,
    };
    let good = expected_checksum(512);
    // The fakes copy a file that holds the right sequence, or a wrong one.
    let right = dir.path().join("right.bin");
    std::fs::write(&right, sequence(512)).unwrap();
    let write_file = format!("cp {} $2", right.display());
    let cases = [
        (
            format!(
                "{write_file}; {}; {}",
                line(1, "write", 512, 0),
                line(1, "read", 512, good + 1)
            ),
            "checksum",
        ),
        (
            format!("head -c $4 /dev/zero > $2; {}", line(1, "write", 512, 0)),
            "byte 1 of the file is 0, expected 1",
        ),
        (
            format!(
                "head -c 500 {} > $2; {}",
                right.display(),
                line(1, "write", 512, good)
            ),
            "the file holds 500 bytes",
        ),
        (format!("{write_file}; echo hello"), "not a result"),
        (
            format!(
                "{write_file}; {}; echo 'byte 5 is 0, expected 5' >&2; exit 3",
                line(1, "write", 512, good)
            ),
            "byte 5 is 0, expected 5",
        ),
        (
            format!("{write_file}; {}", line(1, "write", 512, good)),
            "gave 1 of 2 results",
        ),
        (
            format!(
                "{write_file}; {}; {}",
                line(1, "write", 512, good),
                line(1, "read", 511, good)
            ),
            "read 511 bytes, not 512",
        ),
    ];
    for (script, needle) in cases {
        let e = program::run(&fake(&script), "c", "default", &file, spec, |_| {}).unwrap_err();
        assert!(e.to_string().contains(needle), "{script}: {e}");
    }
    // A program waits after each write, so the file is checked before the next repetition
    // truncates it: this fake truncates at once after the pause, and passes only if the
    // harness checks in it (it exits at end of input without the harness's line).
    let spec2 = program::Spec { reps: 2, ..spec };
    let rep = |n: u32| {
        format!(
            "{write_file}; {}; read x || exit 8; : > $2; {}",
            line(n, "write", 512, good),
            line(n, "read", 512, good)
        )
    };
    let waits = format!(
        "case \"$*\" in *--wait*) ;; *) exit 9 ;; esac; {}; {}",
        rep(1),
        rep(2)
    );
    let lines = program::run(&fake(&waits), "c", "default", &file, spec2, |_| {}).unwrap();
    assert_eq!(lines.len(), 4);
    // And an honest fake passes.
    let honest = format!(
        "{write_file}; {}; {}",
        line(1, "write", 512, good),
        line(1, "read", 512, good)
    );
    assert_eq!(
        program::run(&fake(&honest), "c", "default", &file, spec, |_| {})
            .unwrap()
            .len(),
        2
    );
}

/// The real python3 (not a version manager's shim, which would need its own PATH).
fn real_python() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 is needed for this test");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn langs_cmd(home: &Path, path_dir: Option<&Path>) -> Command {
    let mut command = iomark(home);
    command.env("XDG_CACHE_HOME", home.join("cache"));
    if let Some(p) = path_dir {
        command.env("PATH", p);
    }
    command
}

#[test]
fn a_missing_toolchain_is_a_note_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let bin = home.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(real_python(), bin.join("python3")).unwrap();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let out = ok(langs_cmd(home, Some(&bin)).args([
        "langs",
        work.to_str().unwrap(),
        "--only",
        "python,ruby",
        "--bytes",
        "64KiB",
        "--reps",
        "1",
        "--json",
        "-",
    ]));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let section = &doc["langs"];
    assert_eq!(section["skipped"][0]["lang"], "ruby");
    assert!(section["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("ruby not found on PATH"));
    let ran: Vec<&str> = section["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["default", "binary", "2019"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ruby     skipped: ruby not found on PATH"),
        "{stderr}"
    );
    // Issue 45: one counted repetition has no spread: "–", never "0.0%".
    let rows: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() > 2
                && words[0] == "python"
                && ["default", "binary", "2019"].contains(&words[1])
        })
        .collect();
    assert_eq!(rows.len(), 3, "{stderr}");
    assert!(
        rows.iter()
            .all(|r| r.contains(" – ") && !r.contains("0.0%")),
        "{stderr}"
    );
    // Its headline names the variant it quotes, the default one (the 2019 question's).
    let history = crate::common::stdout(&ok(iomark(home).args(["history"])));
    assert!(history.contains("python/default "), "{history}");
    assert!(!history.contains("python/binary"), "{history}");
    // Its card draws the languages.
    let png = home.join("langs.png");
    ok(iomark(home)
        .args(["plot", "latest", "--kind", "card", "-o"])
        .arg(&png));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    assert_eq!(
        std::fs::read_dir(&work).unwrap().count(),
        0,
        "nothing left behind"
    );
    // With no toolchain at all there is nothing to measure: one error line.
    let empty = home.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = langs_cmd(home, Some(&empty))
        .args([
            "langs",
            work.to_str().unwrap(),
            "--only",
            "ruby",
            "--reps",
            "1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("Error: no language could be run (ruby: ruby not found"),
        "{stderr}"
    );
}

#[test]
fn langs_end_to_end_is_saved_like_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let out = ok(langs_cmd(home, None).args([
        "langs",
        work.to_str().unwrap(),
        "--only",
        "c",
        "--bytes",
        "1MiB",
        "--reps",
        "3",
        "--cold",
        "--label",
        "c only",
        "--json",
        "-",
    ]));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["settings"]["profile"], "langs");
    let section = &doc["langs"];
    assert_eq!(section["bytes"], 1 << 20);
    assert_eq!(section["cold"], true);
    let results = section["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "c's three variants");
    for r in results {
        for op in ["write", "read"] {
            let f = &r[op];
            assert_eq!(f["reps"], 2, "the first of three is dropped");
            let mb = f["mb_per_s"].as_f64().unwrap();
            let mib = f["mib_per_s"].as_f64().unwrap();
            assert!(mb > 0.0 && (mb * 1e6 / 1048576.0 - mib).abs() < 1e-6);
            assert!((f["ns_per_byte"].as_f64().unwrap() - 1e3 / mb).abs() < 1e-6);
        }
        assert!(r["runtime"].as_str().unwrap().contains("cc"));
        assert!(r["build_flags"].as_str().unwrap().starts_with("cc -O2"));
        // The line progress printed when the program ended says the figures the table does,
        // not its bytes over its whole life (which once said 62.71 MB/s beside 184.1/203.8).
        let said = format!(
            "write {:.1} MB/s, read {:.1} MB/s",
            r["write"]["mb_per_s"].as_f64().unwrap(),
            r["read"]["mb_per_s"].as_f64().unwrap()
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&said), "{said}: {stderr}");
    }
    // The device's own rate, beside them.
    let tests: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tests, ["SEQ1M_Q8T1_read", "SEQ1M_Q8T1_write"]);
    // The table went to stderr with --json -, and names what it measured.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("The device itself") && stderr.contains("c       unlocked"),
        "{stderr}"
    );
    // Saved: history lists it, export gives it back.
    let history: Value =
        serde_json::from_slice(&ok(iomark(home).args(["history", "--json"])).stdout).unwrap();
    assert_eq!(history[0]["profile"], "langs");
    assert_eq!(history[0]["label"], "c only");
    let exported: Value = serde_json::from_slice(
        &ok(iomark(home).args(["export", "latest", "--format", "json"])).stdout,
    )
    .unwrap();
    assert_eq!(exported, doc);
    // CSV: a row per language, variant and operation, with its figures.
    let csv = crate::common::stdout(&ok(
        iomark(home).args(["export", "latest", "--format", "csv"])
    ));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 6, "3 variants × write and read");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(&rows[2][col("variant")], "unlocked");
    assert_eq!(&rows[3][col("op")], "read");
    assert_eq!(
        rows[3][col("mb_per_s")].parse::<f64>().unwrap(),
        results[1]["read"]["mb_per_s"].as_f64().unwrap()
    );
    // show, md and html carry the languages' figures too.
    let shown = crate::common::stdout(&ok(iomark(home).args(["show", "latest"])));
    assert!(shown.contains("c       unlocked"), "{shown}");
    let md = crate::common::stdout(&ok(
        iomark(home).args(["export", "latest", "--format", "md"])
    ));
    assert!(md.contains("| c | unlocked |"), "{md}");
    let html = crate::common::stdout(&ok(
        iomark(home).args(["export", "latest", "--format", "html"])
    ));
    assert!(html.contains("<table id=\"langs\">") && html.contains("<th>c</th><td>bigbuf</td>"));
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
    // The second run reuses the build.
    let cached: Vec<_> = std::fs::read_dir(home.join("cache/iomark/langs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("c-"))
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
}

#[test]
fn ctrl_c_stops_the_program_and_removes_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let mut child = langs_cmd(home, None)
        .args([
            "langs",
            work.to_str().unwrap(),
            "--only",
            "python",
            "--bytes",
            "2GiB",
            "--reps",
            "1",
            "--no-save",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the program is writing its file (the device test's file comes and goes first).
    let deadline = Instant::now() + Duration::from_secs(60);
    let writer = loop {
        let pids = Command::new("pgrep")
            .args(["-f", &format!("main.py --file {}", work.display())])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&pids.stdout).trim().to_string();
        if !text.is_empty() {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "the python program never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_millis(500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("removed the test file"), "{stderr}");
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "no file left");
    // The program itself is gone too.
    std::thread::sleep(Duration::from_millis(200));
    for pid in writer.lines() {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "the program {pid} outlived iomark"
        );
    }
}

#[test]
fn cpu_pins_the_program_and_only_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.bin");
    let right = dir.path().join("right.bin");
    std::fs::write(&right, sequence(512)).unwrap();
    let side = dir.path().join("affinity");
    let good = expected_checksum(512);
    let script = format!(
        "grep Cpus_allowed_list /proc/$$/status > {}; cp {} $2; {}; {}",
        side.display(),
        right.display(),
        line(1, "write", 512, 0),
        line(1, "read", 512, good)
    );
    let spec = program::Spec {
        bytes: 512,
        reps: 1,
        cold: false,
        cpu: Some(0),
    };
    program::run(&fake(&script), "c", "default", &file, spec, |_| {}).unwrap();
    let affinity = std::fs::read_to_string(&side).unwrap();
    assert_eq!(affinity.split_whitespace().last(), Some("0"), "{affinity}");
    // The harness itself is not pinned.
    let own = std::fs::read_to_string("/proc/self/status").unwrap();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus > 1 {
        let line = own
            .lines()
            .find(|l| l.starts_with("Cpus_allowed_list"))
            .unwrap();
        assert_ne!(line.split_whitespace().last(), Some("0"), "{line}");
    }
    // A CPU the machine does not have is refused in one line.
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args([
            "langs",
            dir.path().to_str().unwrap(),
            "--cpu",
            "4096",
            "--no-save",
        ])
        .env("XDG_DATA_HOME", home.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--cpu 4096: this machine's CPUs are 0 to"),
        "{stderr}"
    );
}
