//! The HTML report as a person sees it: opened from a file in headless Chromium (Debian's
//! `chromium`, which `tests/run` installs), its DOM read back and its screenshot checked for the
//! charts' colours.

use std::path::Path;

use crate::common::cdp::headless;
use crate::common::{iomark, ok, FAST};
use serde_json::Value;

/// Pixels of exactly this colour in an RGB(A) PNG.
fn count_colour(png: &Path, rgb: [u8; 3]) -> (usize, usize) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "an RGB screenshot");
    let pixels = &buf[..info.buffer_size()];
    let mut matching = 0;
    let mut distinct = std::collections::HashSet::new();
    for px in pixels.chunks(channels) {
        if px[..3] == rgb {
            matching += 1;
        }
        distinct.insert([px[0], px[1], px[2]]);
    }
    (matching, distinct.len())
}

#[test]
fn the_html_report_shows_its_charts_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let work = home.join("work");
    std::fs::create_dir(&work).unwrap();
    let json = home.join("run.json");
    let mut run = iomark(home);
    run.args(["run", work.to_str().unwrap(), "--label", "<b>bold</b> card"])
        .args(FAST)
        .args(["--json", json.to_str().unwrap()]);
    ok(&mut run);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let report = home.join("report.html");
    ok(iomark(home).args([
        "export",
        "latest",
        "--format",
        "html",
        "-o",
        report.to_str().unwrap(),
    ]));
    let url = format!("file://{}", report.display());

    // The DOM as Chromium built it: the three charts of a standard run, drawn as SVG, and a
    // table row per test pair with the run's own figures.
    let out = ok(headless(&home.join("profile-dom"))
        .arg("--dump-dom")
        .arg(&url));
    let dom = String::from_utf8_lossy(&out.stdout);
    for kind in ["bars", "timeline", "latency"] {
        let start = dom
            .find(&format!("<figure class=\"chart\" data-kind=\"{kind}\">"))
            .unwrap_or_else(|| panic!("no {kind} chart in the page"));
        let figure = &dom[start..start + dom[start..].find("</figure>").unwrap()];
        assert!(
            figure.contains("<svg") && figure.contains("<rect"),
            "{kind} is drawn"
        );
    }
    assert!(
        !dom.contains("<b>bold</b>"),
        "the label is text, not markup"
    );
    assert!(dom.contains("&lt;b&gt;bold&lt;/b&gt; card"));
    // Every test's row has p90 (the latency chart draws it), and the time reads as a time.
    assert!(
        dom.contains("<th>p50</th><th>p90</th><th>p99</th>"),
        "no p90 column"
    );
    let date = doc["started_at"].as_str().unwrap();
    assert!(
        dom.contains(&format!("{} {} UTC · ", &date[..10], &date[11..16])),
        "the subtitle's time, as people read it"
    );
    let seq_read = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "SEQ1M_Q8T1_read")
        .unwrap();
    let iops = format!("{:.0}", seq_read["iops"].as_f64().unwrap());
    assert!(
        dom.contains(&format!("<td class=\"n\">{iops}</td>")),
        "SEQ1M read IOPS {iops} in the table"
    );

    // The rendered page: not blank, with the read and write bars in their colours.
    let shot = home.join("shot.png");
    ok(headless(&home.join("profile-shot"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1000,2600")
        .arg(&url));
    let (read, distinct) = count_colour(&shot, [0x2b, 0x6c, 0xb0]);
    let (write, _) = count_colour(&shot, [0xd9, 0x6c, 0x1e]);
    assert!(
        distinct > 50,
        "a page with text and charts, not a blank one: {distinct} colours"
    );
    assert!(read > 2000, "read bars drawn: {read} pixels");
    assert!(write > 2000, "write bars drawn: {write} pixels");

    // At 1280 px every column of every table is in view: "Every test" once hid its last
    // columns behind a scroll bar.
    let mut browser = crate::common::cdp::Browser::open(1280, 900, false);
    browser.goto(&url);
    let clipped = browser.eval(
        "Array.from(document.querySelectorAll('table')).filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.id + ' ' + t.scrollWidth + '>' + t.clientWidth)",
    );
    assert_eq!(clipped, serde_json::json!([]), "tables clipped at 1280 px");
}
