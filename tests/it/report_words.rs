//! What a person reads says what was measured, and no more (issue 25): the words of each report
//! checked against the run behind them.

use crate::common::{iomark, ok, stdout};

/// Runs `args` with a store in `home`, then exports the newest run as `format`.
fn export(home: &std::path::Path, format: &str) -> String {
    stdout(&ok(
        iomark(home).args(["export", "latest", "--format", format])
    ))
}

#[test]
fn a_pi_report_gives_its_score_in_words_and_says_the_dd_step_was_buffered() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    ok(iomark(home.path()).args([
        "run",
        dir.path().to_str().unwrap(),
        "--engine",
        "null",
        "--profile",
        "pi",
        "--size",
        "64MiB",
        "-q",
    ]));
    let html = export(home.path(), "html");
    let md = export(home.path(), "md");
    for (format, text) in [("html", &html), ("md", &md)] {
        // The score as the terminal says it, with every input; never the raw score document.
        assert!(
            text.contains("PiBenchmarks score: ") && text.contains("dd×1024"),
            "{format}: {text}"
        );
        assert!(
            !text.contains("\"pi\"") && !text.contains("{\n"),
            "{format}: {text}"
        );
        // The dd step is buffered, as dd is: "direct I/O" alone said otherwise.
        assert!(text.contains("dd step buffered"), "{format}: {text}");
        // One pass per step: no loops, and no one-hour bound passed off as a loop's length.
        assert!(
            text.contains("each step once over its file"),
            "{format}: {text}"
        );
        assert!(
            !text.contains("3600 s") && !text.contains("1 of "),
            "{format}: {text}"
        );
    }
}

#[test]
fn a_verify_report_claims_no_loops_and_no_fio_check() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    ok(iomark(home.path()).args(["verify", dir.path().to_str().unwrap(), "--size", "32MiB"]));
    let html = export(home.path(), "html");
    assert!(html.contains("written whole, then read back"), "{html}");
    assert!(
        !html.contains("Loops") && !html.contains("of 0 s"),
        "{html}"
    );
    // fio checks a run's tests; verify has none.
    assert!(!html.contains("checked with fio"), "{html}");
    let md = export(home.path(), "md");
    assert!(
        md.contains("written whole, then read back") && !md.contains("1 loop"),
        "{md}"
    );
}

#[test]
fn csv_leaves_one_loops_spread_empty_as_every_table_shows_it() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    ok(iomark(home.path())
        .args(["run", dir.path().to_str().unwrap(), "-q"])
        .args(crate::common::FAST));
    let csv = export(home.path(), "csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cv = header.iter().position(|h| *h == "cv").unwrap();
    let loops = header.iter().position(|h| *h == "loops").unwrap();
    let mut rows = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[loops], "1", "{line}");
        // "0" said the one loop had no spread; it is unknown.
        assert_eq!(cells[cv], "", "{line}");
        rows += 1;
    }
    assert_eq!(rows, 8);
}

/// The sdcard profile on the null engine in a folder of the build's, with `extra` options: its
/// output, and its document (also left in `home`/card.json).
fn sdcard_run(home: &std::path::Path, extra: &[&str]) -> (std::process::Output, serde_json::Value) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let json = home.join("card.json");
    let run = ok(iomark(home)
        .arg("run")
        .arg(dir.path())
        .args([
            "-p", "sdcard", "--engine", "null", "--size", "64MiB", "--json",
        ])
        .arg(&json)
        .args(extra));
    let doc = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (run, doc)
}

/// Issue 45: on a virtual disk the sdcard profile marked V60, V90 and A2 "pass", and the
/// classes claimed were not kept. On a disk that is no card the classes are for reference,
/// none met or missed, in the terminal and in every report; the claims are saved.
#[test]
fn an_sdcard_run_on_a_disk_that_is_no_card_meets_and_misses_no_class() {
    let home = tempfile::tempdir().unwrap();
    let (run, doc) = sdcard_run(home.path(), &["--claimed", "V30,A1"]);
    let terminal = stdout(&run) + &String::from_utf8_lossy(&run.stderr);
    let score = &doc["score"];
    assert!(score["not_a_card"].is_string(), "{score}");
    assert_eq!(score["claimed"], serde_json::json!(["V30", "A1"]));
    assert!(
        score["classes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["pass"].is_null()),
        "{score}"
    );
    let md = export(home.path(), "md");
    let html = export(home.path(), "html");
    for (what, text) in [("terminal", &terminal), ("md", &md), ("html", &html)] {
        assert!(
            text.contains("SD classes, for reference only: this is ")
                && text.contains("not an SD card"),
            "{what}: {text}"
        );
        for class in ["C10", "V30", "V90", "A2"] {
            for verdict in ["pass", "FAIL"] {
                let line = format!("{class:<6} {verdict}");
                assert!(!text.contains(&line), "{what} says `{line}`: {text}");
            }
        }
    }
    // Nor does its history line or the run's card claim a class.
    let history = stdout(&ok(iomark(home.path()).args(["history"])));
    assert!(
        !history.contains("C10") && !history.contains("misses"),
        "{history}"
    );
}

/// Issue 45: `--claimed V30,A1` printed nothing when the claims were met. A met claim is said
/// as plainly as a missed one (a card's document, its verdicts set as a card's would be).
#[test]
fn claims_met_and_missed_are_said_alike() {
    let home = tempfile::tempdir().unwrap();
    let (_, mut doc) = sdcard_run(home.path(), &["--no-save", "-q"]);
    let json = home.path().join("card.json");
    let score = &mut doc["score"];
    score.as_object_mut().unwrap().remove("not_a_card");
    score["claimed"] = serde_json::json!(["C10", "V30"]);
    for class in score["classes"].as_array_mut().unwrap() {
        let met = matches!(class["class"].as_str().unwrap(), "C2" | "C4" | "C6" | "C10");
        class["pass"] = serde_json::json!(met);
    }
    std::fs::write(&json, serde_json::to_string(&doc).unwrap()).unwrap();
    ok(iomark(home.path()).arg("import").arg(&json));
    let shown = stdout(&ok(iomark(home.path()).args(["show", "latest"])));
    let md = export(home.path(), "md");
    for (what, text) in [("show", &shown), ("md", &md)] {
        assert!(
            text.contains("Claimed: C10 V30: meets C10; misses V30"),
            "{what}: {text}"
        );
    }
}

/// Issue 45: a verify's history line said "intact, 63.8 MiB", which reads as the card's size.
#[test]
fn a_verify_history_line_says_what_was_checked() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    ok(iomark(home.path()).args(["verify", dir.path().to_str().unwrap(), "--size", "32MiB"]));
    let history = stdout(&ok(iomark(home.path()).args(["history"])));
    assert!(history.contains("32 MiB checked, all intact"), "{history}");
    assert!(!history.contains("intact, "), "{history}");
    // And its card draws what it wrote and read back.
    let png = home.path().join("card.png");
    ok(iomark(home.path())
        .args(["plot", "latest", "--kind", "card", "-o"])
        .arg(&png));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
}

/// Issue 45: the footnote, the README and the code each said something else about what a
/// verdict means. docs/GUIDE.md quotes the footnote word for word; `--help` says it too.
#[test]
fn the_compare_verdicts_read_the_same_everywhere() {
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/GUIDE.md"),
    )
    .unwrap();
    let quoted: Vec<&str> = guide
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("> "))
        .collect();
    let method = iomark::compare::METHOD;
    assert!(
        quoted.join(" ").contains(method),
        "docs/GUIDE.md does not quote the footnote: {method}"
    );
    let home = tempfile::tempdir().unwrap();
    let help = stdout(&ok(iomark(home.path()).args(["compare", "--help"])));
    assert!(
        help.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(method),
        "{help}"
    );
}
