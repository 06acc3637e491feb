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
