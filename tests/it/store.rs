//! The result store through the binary: run → store → export, history, show, compare, import,
//! delete, plot; a damaged store; saves at the same moment. Each scenario runs on SQLite and on
//! a real PostgreSQL server.

use std::path::Path;
use std::process::Command;

use crate::common::{doc, iomark, ok, refused, stdout, write_doc, FAST};
use serde_json::Value;

/// `iomark SUBCOMMAND --db DB ARGS…`
fn cmd(sub: &str, db: &str, home: &Path, args: &[&str]) -> Command {
    let mut command = iomark(home);
    command.arg(sub).args(args).args(["--db", db]);
    command
}

fn history(db: &str, home: &Path) -> Vec<Value> {
    let out = ok(&mut cmd("history", db, home, &["--json"]));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A real run saved to `db`, exported back in every format.
fn round_trip(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let json = home.join("run.json");
    let mut run = iomark(home);
    run.args(["run", home.to_str().unwrap(), "--label", "round | trip <1>"])
        .args(FAST)
        .args(["--json", json.to_str().unwrap(), "--db", db]);
    let out = ok(&mut run);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not saved"));
    let original = std::fs::read_to_string(&json).unwrap();
    let doc: Value = serde_json::from_str(&original).unwrap();
    let id = doc["id"].as_str().unwrap();

    let listed = history(db, home);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], id);
    assert_eq!(listed[0]["label"], "round | trip <1>");
    assert_eq!(
        listed[0]["seq_read_mb_per_s"].as_f64().unwrap(),
        doc["tests"][0]["mb_per_s"].as_f64().unwrap()
    );

    // JSON: byte for byte what `run --json` wrote, from a prefix of the id.
    let exported = ok(&mut cmd(
        "export",
        db,
        home,
        &[&id[..12], "--format", "json"],
    ));
    assert_eq!(stdout(&exported), original);

    // CSV: the header, then one row per test with its figures.
    let csv = stdout(&ok(&mut cmd("export", db, home, &[id, "--format", "csv"])));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    for column in [
        "run_id",
        "test",
        "op",
        "block_size",
        "queue_depth",
        "mb_per_s",
        "iops",
        "lat_p99_us",
        "cv",
    ] {
        assert!(header.iter().any(|h| h == column), "{column} in {header:?}");
    }
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(rows.len(), tests.len());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (row, test) in rows.iter().zip(tests) {
        assert_eq!(&row[col("run_id")], id);
        assert_eq!(&row[col("test")], test["name"].as_str().unwrap());
        assert_eq!(
            row[col("mb_per_s")].parse::<f64>().unwrap(),
            test["mb_per_s"].as_f64().unwrap()
        );
        assert_eq!(
            row[col("iops")].parse::<f64>().unwrap(),
            test["iops"].as_f64().unwrap()
        );
        assert_eq!(
            row[col("lat_p99_us")].parse::<f64>().unwrap(),
            test["latency_us"]["p99"].as_f64().unwrap()
        );
    }

    // Markdown: a table with a row per test pair; the label cannot break it.
    let md = stdout(&ok(&mut cmd("export", db, home, &[id, "--format", "md"])));
    assert!(md.contains("round \\| trip \\<1\\>"), "{md}");
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), 2 + 4, "{md}");
    assert!(table[0].starts_with("| Test | Read MB/s | Write MB/s |"));
    let seq = table[2];
    assert!(seq.starts_with("| SEQ1M Q8T1 | "), "{seq}");
    let cells: Vec<&str> = seq.split('|').map(str::trim).collect();
    let read = tests
        .iter()
        .find(|t| t["name"] == "SEQ1M_Q8T1_read")
        .unwrap();
    assert_eq!(cells[4], format!("{:.0}", read["iops"].as_f64().unwrap()));

    // show: the full report of the saved run.
    let shown = stdout(&ok(&mut cmd("show", db, home, &["latest"])));
    assert!(shown.contains("SEQ1M Q8T1"), "{shown}");
    assert!(shown.contains("standard profile"), "{shown}");
}

/// Constructed runs: compare's verdicts, id prefixes, latest, delete, import's checks.
fn constructed(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let a = doc(
        "01AAAA00000000000000000001",
        "2026-01-01T10:00:00Z",
        &[],
        0.01,
    );
    let b = doc(
        "01AAAA00000000000000000002",
        "2026-01-02T10:00:00Z",
        &[
            ("SEQ1M_Q8T1_read", 1.5),
            ("RND4K_Q1T1_write", 0.5),
            ("SEQ1M_Q1T1_read", 1.02),
            ("RND4K_Q32T1_read", 1.04),
        ],
        0.01,
    );
    let c = doc(
        "01BBBB00000000000000000003",
        "2026-01-03T10:00:00Z",
        &[("SEQ1M_Q8T1_read", 1.15)],
        0.10,
    );
    let paths: Vec<_> = [&a, &b, &c].iter().map(|d| write_doc(home, d)).collect();
    let mut import = cmd("import", db, home, &[]);
    import.args(&paths);
    let out = stdout(&ok(&mut import));
    assert_eq!(out.matches("imported ").count(), 3, "{out}");
    // Again: each is already there, and says so.
    let mut again = cmd("import", db, home, &[]);
    again.arg(&paths[0]);
    assert!(stdout(&ok(&mut again)).contains("already in the store"));

    let listed = history(db, home);
    let ids: Vec<&str> = listed.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "01BBBB00000000000000000003",
            "01AAAA00000000000000000002",
            "01AAAA00000000000000000001"
        ]
    );
    let text = stdout(&ok(&mut cmd("history", db, home, &[])));
    // Ids are shortened to the 10 characters that tell them apart, or as many as it takes.
    assert!(
        text.contains("01BBBB0000 ") && !text.contains("01BBBB00000000000000000003"),
        "{text}"
    );
    assert!(text.contains("01AAAA00000000000000000001"), "{text}");

    // compare: verdicts against the baseline, weighed by each run's loops and by how far runs
    // of the device wander (three more earlier runs of it, their levels 1% apart).
    let earlier: Vec<_> = [(4, 1.0), (5, 1.01), (6, 0.99)]
        .iter()
        .map(|&(n, level)| {
            let all: Vec<(&str, f64)> = crate::common::STANDARD_TESTS
                .iter()
                .map(|name| (*name, level))
                .collect();
            let d = doc(
                &format!("01AAAA0000000000000000000{n}"),
                &format!("2025-12-2{n}T10:00:00Z"),
                &all,
                0.01,
            );
            write_doc(home, &d)
        })
        .collect();
    let mut import = cmd("import", db, home, &[]);
    import.args(&earlier);
    ok(&mut import);
    let out = ok(&mut cmd(
        "compare",
        db,
        home,
        &[
            "01AAAA00000000000000000001",
            "01AAAA00000000000000000002",
            "01bbbb",
            "--json",
        ],
    ));
    let comparison: Value = serde_json::from_slice(&out.stdout).unwrap();
    let verdict = |test: &str, run: usize| -> String {
        let row = comparison["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["test"] == test)
            .unwrap();
        row["cells"][run]["verdict"]
            .as_str()
            .unwrap_or("none")
            .to_string()
    };
    assert_eq!(verdict("SEQ1M_Q8T1_read", 1), "faster");
    assert_eq!(verdict("RND4K_Q1T1_write", 1), "slower");
    assert_eq!(
        verdict("SEQ1M_Q1T1_read", 1),
        "within_noise",
        "2%: under the 5% a verdict needs"
    );
    assert_eq!(
        verdict("RND4K_Q32T1_read", 1),
        "within_noise",
        "4%: under the 5% a verdict needs"
    );
    assert_eq!(
        verdict("SEQ1M_Q8T1_read", 2),
        "within_noise",
        "15% inside C's loops, 10% apart"
    );
    // The run-to-run spread came from the three earlier runs, and says so.
    let row = &comparison["rows"][0];
    assert_eq!(row["run_spread_runs"], 3, "{row}");
    assert_eq!(
        verdict("SEQ1M_Q8T1_read", 0),
        "none",
        "the baseline has no verdict"
    );
    let text = stdout(&ok(&mut cmd(
        "compare",
        db,
        home,
        &[
            "01AAAA00000000000000000001",
            "01AAAA00000000000000000002",
            "01bbbb",
        ],
    )));
    assert!(
        text.contains("+50.0% faster") && text.contains("-50.0% slower"),
        "{text}"
    );
    assert!(
        text.contains("Run-to-run spread: ")
            && text.contains("from up to 3 saved runs of this device with this method."),
        "{text}"
    );
    // The earlier runs had their say; the rest of this test counts three runs.
    for n in 4..=6 {
        ok(&mut cmd(
            "delete",
            db,
            home,
            &[&format!("01AAAA0000000000000000000{n}")],
        ));
    }
    // Tests are named as the run table names them, and the columns line up: every figure of a
    // column ends where its letter does.
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("SEQ1M ") || l.starts_with("RND4K "))
        .collect();
    assert!(
        !rows.is_empty() && !text.contains("SEQ1M_Q8T1_read"),
        "{text}"
    );
    let header = text.lines().find(|l| l.starts_with("Test ")).unwrap();
    for letter in ["A", "B"] {
        let end = header.find(&format!(" {letter}")).unwrap() + 2;
        for row in &rows {
            let before = &row[..end];
            assert!(
                before.ends_with(|c: char| c.is_ascii_digit()) && row[end..].starts_with(' '),
                "column {letter} does not end at {end}:\n{header}\n{row}"
            );
        }
    }

    // Prefixes: ambiguous, unknown, and `latest`.
    let line = refused(&mut cmd("show", db, home, &["01aaaa"]));
    assert!(line.contains("more than one run"), "{line}");
    let line = refused(&mut cmd("show", db, home, &["01ZZZZ"]));
    assert!(line.contains("no saved run"), "{line}");
    let latest = ok(&mut cmd(
        "export",
        db,
        home,
        &["latest", "--format", "json"],
    ));
    assert_eq!(
        serde_json::from_slice::<Value>(&latest.stdout).unwrap()["id"],
        "01BBBB00000000000000000003"
    );
    // `latest~N` counts back from the newest, as git does.
    let newest_first: Vec<String> = history(db, home)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    for (back, id) in newest_first.iter().enumerate() {
        let shown = ok(&mut cmd(
            "export",
            db,
            home,
            &[&format!("latest~{back}"), "--format", "json"],
        ));
        assert_eq!(
            serde_json::from_slice::<Value>(&shown.stdout).unwrap()["id"],
            id.as_str()
        );
    }
    let line = refused(&mut cmd(
        "show",
        db,
        home,
        &[&format!("latest~{}", newest_first.len())],
    ));
    assert!(line.contains("no saved run"), "{line}");

    // Import refuses what is not a result document, and adds nothing.
    for (name, text, needle) in [
        ("notjson.json", "{nope", "not JSON"),
        (
            "schema.json",
            r#"{"schema":"other/1"}"#,
            "schema is 'other/1'",
        ),
        (
            "notests.json",
            &{
                let mut d = doc(
                    "01CCCC00000000000000000004",
                    "2026-01-04T10:00:00Z",
                    &[],
                    0.01,
                );
                d["tests"] = Value::Array(vec![]);
                d.to_string()
            },
            "no tests",
        ),
        (
            "badid.json",
            &{
                let mut d = doc("x", "2026-01-04T10:00:00Z", &[], 0.01);
                d["id"] = Value::String("../../etc".into());
                d.to_string()
            },
            "\"id\" must be",
        ),
    ] {
        let path = home.join(name);
        std::fs::write(&path, text).unwrap();
        let mut import = cmd("import", db, home, &[]);
        import.arg(&path);
        let line = refused(&mut import);
        assert!(line.contains(needle), "{name}: {line}");
    }
    // A good file beside a bad one: nothing is added.
    let good = write_doc(
        home,
        &doc(
            "01DDDD00000000000000000005",
            "2026-01-05T10:00:00Z",
            &[],
            0.01,
        ),
    );
    let mut import = cmd("import", db, home, &[]);
    import.arg(&good).arg(home.join("notjson.json"));
    refused(&mut import);
    assert_eq!(history(db, home).len(), 3);

    // delete
    let out = stdout(&ok(&mut cmd("delete", db, home, &["01bbbb"])));
    assert_eq!(out.trim(), "deleted 01BBBB00000000000000000003");
    assert_eq!(history(db, home).len(), 2);
    refused(&mut cmd("delete", db, home, &["01bbbb"]));
}

/// Many processes saving at the same moment, to a store none of them has created yet.
fn concurrent(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let d = doc(
                &format!("01EEEE0000000000000000000{i}"),
                "2026-02-01T10:00:00Z",
                &[],
                0.01,
            );
            let path = write_doc(home, &d);
            let mut import = cmd("import", db, home, &[]);
            import
                .arg(path)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            import.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(history(db, home).len(), 8);
}

fn sqlite(dir: &Path) -> String {
    dir.join("store/results.db").to_str().unwrap().to_string()
}

#[test]
fn sqlite_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    round_trip(&sqlite(dir.path()));
}

#[test]
fn sqlite_constructed_runs() {
    let dir = tempfile::tempdir().unwrap();
    constructed(&sqlite(dir.path()));
}

#[test]
fn sqlite_concurrent_saves_all_land() {
    let dir = tempfile::tempdir().unwrap();
    concurrent(&sqlite(dir.path()));
}

#[test]
fn postgres_does_all_that_sqlite_does() {
    let pg = crate::common::Postgres::start();
    round_trip(&pg.database());
    constructed(&pg.database());
    concurrent(&pg.database());
}

#[test]
fn runs_save_to_the_default_store_unless_told_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let mut run = iomark(home);
    run.args([
        "run",
        work.to_str().unwrap(),
        "--profile",
        "quick",
        "--size",
        "4MiB",
        "--no-save",
    ]);
    ok(&mut run);
    assert!(!home.join("iomark").exists(), "--no-save creates no store");
    // Two runs at the same moment both land in the default store, $XDG_DATA_HOME/iomark.
    let children: Vec<_> = (0..2)
        .map(|_| {
            let mut run = iomark(home);
            run.args(["run", work.to_str().unwrap()])
                .args(FAST)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            run.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("not saved"),
            "{stderr}"
        );
    }
    assert!(home.join("iomark/results.db").is_file());
    let out = ok(iomark(home).args(["history", "--json"]));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        std::fs::read_dir(&work).unwrap().count(),
        0,
        "no test file left behind"
    );
}

/// A command opens the store once (each opening runs the migrations and the backfill): a run
/// saved it and then opened it again for its short id, a comparison once per run (issue 23).
#[test]
fn each_command_opens_the_store_once() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let openings = |command: &mut Command| {
        let output = ok(command.env("IOMARK_LOG", "store"));
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        (stderr.matches("iomark: opening the store").count(), output)
    };
    for _ in 0..2 {
        let (n, output) = openings(
            iomark(home)
                .args(["run", work.to_str().unwrap()])
                .args(FAST),
        );
        assert_eq!(n, 1, "run");
        assert!(String::from_utf8_lossy(&output.stdout).contains("Saved as "));
    }
    let (n, _) = openings(iomark(home).args(["compare", "latest", "latest~1"]));
    assert_eq!(n, 1, "compare");
    let (n, _) = openings(iomark(home).args(["history"]));
    assert_eq!(n, 1, "history");
    // Without the variable, nothing is said.
    let output = ok(iomark(home).args(["history"]));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("opening"));
}

#[test]
fn a_damaged_store_loses_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let store = home.join("iomark");
    std::fs::create_dir_all(&store).unwrap();
    let db = store.join("results.db");
    std::fs::write(&db, vec![0x5a; 64 * 1024]).unwrap();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let json = home.join("run.json");
    let mut run = iomark(home);
    run.current_dir(&work)
        .args([
            "run",
            work.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ])
        .args(FAST);
    let out = ok(&mut run);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the result was not saved"), "{stderr}");
    assert!(
        stderr.contains("damaged") && stderr.contains(&format!("mv {}", db.display())),
        "{stderr}"
    );
    // The document is kept beside the store, and the message names it and how to add it.
    let kept: Vec<_> = std::fs::read_dir(store.join("unsaved"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(kept.len(), 1);
    assert!(
        stderr.contains(&format!("iomark import {}", kept[0].display())),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&kept[0]).unwrap(),
        std::fs::read_to_string(&json).unwrap()
    );
    // The damaged file was not touched.
    assert_eq!(std::fs::read(&db).unwrap(), vec![0x5a; 64 * 1024]);
    // Other commands refuse in one line, with the same advice.
    let line = refused(iomark(home).arg("history"));
    assert!(line.contains("damaged"), "{line}");
    // Following the advice recovers the run.
    std::fs::rename(&db, store.join("results.db.broken")).unwrap();
    ok(iomark(home).arg("import").arg(&kept[0]));
    let out = ok(iomark(home).args(["history", "--json"]));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(listed[0]["id"], doc["id"]);
}

#[test]
fn plots_in_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = sqlite(home);
    let a = write_doc(
        home,
        &doc(
            "01FFFF00000000000000000001",
            "2026-03-01T10:00:00Z",
            &[],
            0.01,
        ),
    );
    let b = write_doc(
        home,
        &doc(
            "01FFFF00000000000000000002",
            "2026-03-02T10:00:00Z",
            &[("SEQ1M_Q8T1_read", 0.5)],
            0.01,
        ),
    );
    ok(cmd("import", &db, home, &[]).arg(&a).arg(&b));
    for kind in ["bars", "timeline", "latency"] {
        let svg = home.join(format!("{kind}.svg"));
        ok(&mut cmd(
            "plot",
            &db,
            home,
            &[
                "01FFFF00000000000000000001",
                "01FFFF00000000000000000002",
                "--kind",
                kind,
                "-o",
                svg.to_str().unwrap(),
            ],
        ));
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
        // Both runs are drawn: the title says so.
        assert!(text.contains("2 runs"), "{kind}");
        // A comparison's lines take a colour per run (A green, B purple), never read's blue
        // or write's orange, which mean read and write only when one run is drawn.
        if kind != "bars" {
            let upper = text.to_uppercase();
            for colour in ["#2F9E44", "#9C36B5"] {
                assert!(upper.contains(colour), "{kind}: no run in {colour}");
            }
            assert!(
                !upper.contains("#2B6CB0") && !upper.contains("#D96C1E"),
                "{kind}: a comparison drew read blue or write orange"
            );
        }
        let png = home.join(format!("{kind}.png"));
        ok(&mut cmd(
            "plot",
            &db,
            home,
            &[
                "01FFFF00000000000000000001",
                "--kind",
                kind,
                "-o",
                png.to_str().unwrap(),
            ],
        ));
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
        let reader = decoder.read_info().unwrap();
        assert!(reader.info().width >= 600 && reader.info().height >= 200);
    }
    // The timeline of one run: reads in blue and writes in orange, a panel per test row, and
    // none of the colours that name runs in a comparison.
    // The latency chart of one run follows the same rule.
    for kind in ["timeline", "latency"] {
        let one = home.join(format!("{kind}-one.svg"));
        ok(&mut cmd(
            "plot",
            &db,
            home,
            &[
                "01FFFF00000000000000000001",
                "--kind",
                kind,
                "-o",
                one.to_str().unwrap(),
            ],
        ));
        let text = std::fs::read_to_string(&one).unwrap().to_uppercase();
        for colour in ["#2B6CB0", "#D96C1E"] {
            assert!(text.contains(colour), "{kind}: no line in {colour}");
        }
        for colour in ["#2F9E44", "#9C36B5", "#C92A2A", "#5C5F66"] {
            assert!(!text.contains(colour), "{kind}: one run drawn in {colour}");
        }
    }
    // The bar chart draws one bar per test and run, the second run's read bar half as long.
    let svg = std::fs::read_to_string(home.join("bars.svg")).unwrap();
    assert!(
        svg.contains("\nA 2000.0\n") && svg.contains("\nB 1000.0\n"),
        "bar labels"
    );
    // The legend below names both runs.
    assert!(svg.contains("constructed 01FFFF00000000000000000001"));
    assert!(svg.contains("constructed 01FFFF00000000000000000002"));
    // What cannot be drawn is refused in one line, leaving no file.
    let out = home.join("h.svg");
    let line = refused(&mut cmd(
        "plot",
        &db,
        home,
        &[
            "01FFFF00000000000000000001",
            "--kind",
            "histogram",
            "-o",
            out.to_str().unwrap(),
        ],
    ));
    assert!(line.contains("--profile latency"), "{line}");
    assert!(!out.exists());
    let line = refused(&mut cmd(
        "plot",
        &db,
        home,
        &[
            "01FFFF00000000000000000001",
            "-o",
            home.join("x.gif").to_str().unwrap(),
        ],
    ));
    assert!(line.contains(".svg or .png"), "{line}");
    let line = refused(&mut cmd(
        "export",
        &db,
        home,
        &[
            "01FFFF00000000000000000001",
            "--format",
            "csv",
            "-o",
            "/nonexistent/x.csv",
        ],
    ));
    assert!(line.contains("no such directory"), "{line}");
}

#[test]
fn latency_and_sweep_runs_plot_their_own_charts() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let mut latency = iomark(home);
    latency.args([
        "run",
        work.to_str().unwrap(),
        "--profile",
        "latency",
        "--size",
        "4MiB",
        "--count",
        "200",
    ]);
    ok(&mut latency);
    let mut sweep = iomark(home);
    sweep.args([
        "run",
        work.to_str().unwrap(),
        "--profile",
        "sweep",
        "--size",
        "16MiB",
        "--duration",
        "100ms",
        "--warmup",
        "0",
    ]);
    ok(&mut sweep);
    let listed: Value =
        serde_json::from_slice(&ok(iomark(home).args(["history", "--json"])).stdout).unwrap();
    let id_of = |profile: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["profile"] == profile)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (lat, swp) = (id_of("latency"), id_of("sweep"));
    // The latency run kept a histogram of its 200 samples.
    let doc: Value =
        serde_json::from_slice(&ok(iomark(home).args(["export", &lat, "--format", "json"])).stdout)
            .unwrap();
    let buckets = doc["tests"][0]["latency_us"]["histogram"]
        .as_array()
        .unwrap();
    assert_eq!(
        buckets
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum::<u64>(),
        200
    );
    let svg = home.join("h.svg");
    ok(iomark(home).args([
        "plot",
        &lat,
        "--kind",
        "histogram",
        "-o",
        svg.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("Latency histogram") && text.contains("<rect"));
    let svg = home.join("s.svg");
    ok(iomark(home).args(["plot", &swp, "--kind", "sweep", "-o", svg.to_str().unwrap()]));
    let text = std::fs::read_to_string(&svg).unwrap();
    // Two series (drawn 2 px wide; axes and ticks are 1 px): read as one solid line in read's
    // blue, write dashed (a polyline a dash) in write's orange.
    assert!(text.contains("block size"));
    let lines = |color: &str| {
        text.matches(&format!("stroke=\"{color}\" stroke-width=\"2\" points="))
            .count()
    };
    assert_eq!(lines("#2B6CB0"), 1, "read");
    assert!(lines("#D96C1E") > 2, "write, dashed");
    // The HTML report of each carries its chart.
    let html = stdout(&ok(iomark(home).args(["export", &lat, "--format", "html"])));
    assert!(html.contains("data-kind=\"histogram\""));
    let html = stdout(&ok(iomark(home).args(["export", &swp, "--format", "html"])));
    assert!(html.contains("data-kind=\"sweep\""));
}

#[test]
fn a_locked_store_is_waited_for() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    // Make the store, then hold it exclusively from another connection for two seconds.
    ok(iomark(home).arg("history"));
    let url = format!("sqlite://{}", home.join("iomark/results.db").display());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut holder = runtime
        .block_on(sqlx::SqliteConnection::connect(&url))
        .unwrap();
    runtime
        .block_on(sqlx::query("BEGIN EXCLUSIVE").execute(&mut holder))
        .unwrap();
    let started = std::time::Instant::now();
    let mut run = iomark(home);
    run.args(["run", work.to_str().unwrap()])
        .args(FAST)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = run.spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    runtime
        .block_on(sqlx::query("COMMIT").execute(&mut holder))
        .unwrap();
    runtime.block_on(holder.close()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("not saved"),
        "{stderr}"
    );
    assert!(started.elapsed() >= std::time::Duration::from_secs(2));
    assert_eq!(
        history(&home.join("iomark/results.db").display().to_string(), home).len(),
        1
    );
}

#[test]
fn a_full_disk_under_the_store_loses_no_result() {
    // Needs a small filesystem to fill: a tmpfs, which takes root to mount.
    let Some(fs) = crate::common::SmallFs::mount("512k") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // Fill it to the last block.
    let mut filler = std::fs::File::create(fs.path.join("filler")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    drop(filler);
    let mut run = iomark(&fs.path);
    run.current_dir(&work)
        .args(["run", work.to_str().unwrap()])
        .args(FAST);
    let out = ok(&mut run);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the result was not saved") && stderr.contains("full"),
        "{stderr}"
    );
    // Neither the store's folder nor its unsaved/ could take it: the current directory did.
    let kept: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].starts_with("iomark-") && kept[0].ends_with(".json"));
    assert!(stderr.contains(&format!("iomark import {}", work.join(&kept[0]).display())));
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(work.join(&kept[0])).unwrap()).unwrap();
    assert_eq!(doc["tests"].as_array().unwrap().len(), 8);
}

/// Ids are shown as git shows commits: the shortest beginning (ten characters at least) that
/// names one run, in import, compare and run output alike, and each is accepted back.
#[test]
fn ids_are_shown_as_short_as_the_store_allows() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let twins = ["01JTWAN0000000000000000001", "01JTWAN0000000000000000002"];
    let lone = "01JZZZZZZZ0000000000000000";
    let files: Vec<_> = twins
        .iter()
        .chain([&lone])
        .map(|id| write_doc(home, &doc(id, "2026-01-02T03:04:05Z", &[], 0.01)))
        .collect();
    let out = stdout(&ok(iomark(home).arg("import").args(&files)));
    // The twins share 25 characters: each needs all 26. The lone one needs ten.
    for id in twins {
        assert!(out.contains(&format!("imported {id} from")), "{out}");
    }
    assert!(out.contains("imported 01JZZZZZZZ from"), "{out}");
    let compared = stdout(&ok(iomark(home).args(["compare", twins[0], "01JZZZZZZZ"])));
    assert!(
        compared.contains(&format!("A {}  ", twins[0])),
        "{compared}"
    );
    assert!(compared.contains("B 01JZZZZZZZ  "), "{compared}");
    ok(iomark(home).args(["show", "01jzzzzzzz"]));
}
