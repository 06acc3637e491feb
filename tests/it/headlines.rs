//! Issue 24: the figures people share, the pi profile's score and the SD classes a card meets,
//! reach every place a person looks: `history`, Markdown, HTML, the card, and the site's
//! newest results, leaderboard and device page.

use serde_json::{json, Value};

use crate::common::site::{get, post, post_as, ulid, Site, NO_LIMITS};
use crate::common::*;

/// An sdcard result of a SanDisk card claiming A1 whose random reads fall short of it: the
/// profile's three tests at a card's rates and its class verdicts.
fn sdcard_doc(n: u32) -> Value {
    let started = format!("2026-03-{:02}T10:00:00Z", 1 + n % 28);
    let keep = ["SEQ1M_Q8T1_write", "RND4K_Q1T1_read", "RND4K_Q1T1_write"];
    // 30 MB/s written; 4K at 0.8 MB/s read (195 IOPS), 1.2 written (293 IOPS).
    let scale: Vec<(&str, f64)> = keep.iter().map(|name| (*name, 0.02)).collect();
    let mut d = doc(&ulid(n), &started, &scale, 0.01);
    let tests: Vec<Value> = d["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| keep.contains(&t["name"].as_str().unwrap()))
        .cloned()
        .collect();
    d["tests"] = json!(tests);
    d["settings"]["profile"] = json!("sdcard");
    d["host"]["board"] = json!("Raspberry Pi 4 Model B Rev 1.4");
    d["target"]["device"] = json!({
        "name": "mmcblk0", "model": "SN64G", "vendor": "SanDisk", "transport": "mmc",
        "size_bytes": 63_864_569_856u64, "rotational": false, "stack": [],
        "sd": {"kind": "SD", "manufacturer": "SanDisk", "manfid": "0x03", "product": "SN64G",
               "claimed_classes": ["C10", "U3", "V30", "A1"]}
    });
    let class = |class: &str, family: &str, seq: f64, iops: Option<(f64, f64)>| {
        let (r, w) = iops.unzip();
        let measured = json!({"sequential_write_mb_per_s": 30.0,
            "random_read_iops_4k": r.map(|_| 195.3), "random_write_iops_4k": w.map(|_| 293.0)});
        let pass = 30.0 >= seq && iops.is_none_or(|(r, w)| 195.3 >= r && 293.0 >= w);
        json!({"class": class, "family": family, "note": "", "pass": pass,
               "measured": measured,
               "required": {"sequential_write_mb_per_s": seq, "random_read_iops_4k": r,
                            "random_write_iops_4k": w}})
    };
    d["score"] = json!({"classes": [
        class("C10", "speed", 10.0, None),
        class("U1", "uhs", 10.0, None),
        class("U3", "uhs", 30.0, None),
        class("V10", "video", 10.0, None),
        class("V30", "video", 30.0, None),
        class("A1", "app", 10.0, Some((1500.0, 500.0))),
    ]});
    d
}

/// A pi result: the score and its inputs (the tests do not matter here).
fn pi_doc(n: u32, total: u64) -> Value {
    let mut d = sdcard_doc(n);
    d["settings"]["profile"] = json!("pi");
    d["score"] = json!({"equivalents": "dd, fio and iozone's equivalents", "formula": "f",
        "total": total, "parts": {"dd_write_mb_per_s": 30.0, "fio_randread_4k_iops": 2000.0,
        "fio_randwrite_4k_iops": 600.0, "iozone_randread_4k_kb_per_s": 7000.0,
        "iozone_randwrite_4k_kb_per_s": 2000.0, "iozone_read_4k_kb_per_s": 8000.0,
        "iozone_write_4k_kb_per_s": 2500.0}});
    d
}

const CARD: &str = "C10 U3 V30, misses claimed A1";

#[test]
fn the_score_and_the_classes_met_are_in_history_and_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sd = write_doc(home, &sdcard_doc(1));
    let pi = write_doc(home, &pi_doc(2, 1459));
    ok(iomark(home).arg("import").arg(&sd).arg(&pi));
    let history = stdout(&ok(iomark(home).arg("history")));
    assert!(history.contains("Headline"), "{history}");
    assert!(history.contains(CARD), "{history}");
    assert!(history.contains("score 1459"), "{history}");
    // The card is named as a buyer writes it, not by its register name alone.
    assert!(history.contains("SanDisk SN64G 64 GB"), "{history}");

    let md = stdout(&ok(iomark(home).args([
        "export",
        &ulid(1),
        "--format",
        "md",
    ])));
    assert!(
        md.contains(&format!(
            "**{CARD}**: By the figures measured here it meets C10, U3 and V30."
        )),
        "{md}"
    );
    assert!(
        md.contains("It falls short of the A1 claimed for it."),
        "{md}"
    );
    let md = stdout(&ok(iomark(home).args([
        "export",
        &ulid(2),
        "--format",
        "md",
    ])));
    assert!(
        md.contains("**score 1459**: PiBenchmarks-compatible score 1459"),
        "{md}"
    );

    let html = home.join("pi.html");
    ok(iomark(home)
        .args(["export", &ulid(2), "--format", "html", "-o"])
        .arg(&html));
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(
        html.contains("<p id=\"headline\"><strong>score 1459</strong> · PiBenchmarks-compatible"),
        "{html}"
    );

    // The card to post says it above the figures (plotters writes SVG text as text).
    let card = home.join("card.svg");
    ok(iomark(home)
        .args(["plot", "--kind", "card", &ulid(1), "-o"])
        .arg(&card));
    let svg = std::fs::read_to_string(&card).unwrap();
    assert!(svg.contains(CARD), "the card does not say {CARD}");
    assert!(svg.contains("By the figures measured here"), "{svg}");
}

/// The site shows the same words: the newest results say each result's headline, a profile
/// whose results have no SEQ1M Q8T1 read ranks by a figure they have, and a card's page says
/// which classes its results meet.
#[test]
fn the_site_shows_the_score_and_a_cards_classes() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &NO_LIMITS);
    let url = site.url.clone();
    // Each from an owner of its own: the two cards' figures are the same.
    for (n, d) in (1..).zip([sdcard_doc(1), sdcard_doc(2), pi_doc(3, 1459)]) {
        let answer = post_as(n, &format!("{url}/api/v1/results"), &d);
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
    let front = get(&format!("{url}/")).body;
    assert!(front.contains("<th>Headline</th>"), "{front}");
    assert!(front.contains(CARD), "{front}");
    assert!(front.contains("score 1459"), "{front}");

    let board = get(&format!("{url}/api/v1/leaderboard?profile=sdcard")).json();
    assert_eq!(board["sort"], "seq1m_q8_write", "{board}");
    assert_eq!(
        board["devices"][0]["name"], "SanDisk SN64G 64 GB",
        "{board}"
    );
    assert_eq!(board["devices"][0]["results"], 2, "{board}");
    // The classes its submitters find it meets, the claim it misses left to its page.
    assert_eq!(board["devices"][0]["classes"], "C10 U3 V30", "{board}");
    let page = get(&format!("{url}/?profile=sdcard")).body;
    assert!(page.contains("SanDisk SN64G 64 GB"), "{page}");
    assert!(!page.contains("No device has ranked results"), "{page}");
    assert!(page.contains("<th>Classes met</th>"), "{page}");
    assert!(
        page.contains("<td class=\"classes\">C10 U3 V30</td>"),
        "{page}"
    );
    // On a phone the column is beside the card's name, whole, before any scrolling.
    let mut browser = crate::common::cdp::Browser::open(375, 800, true);
    browser.goto(&format!("{url}/?profile=sdcard"));
    let cell = browser.eval(
        "(() => { const c = document.querySelector('td.classes'); \
         const r = c.getBoundingClientRect(); \
         return [c.innerText, r.right <= window.innerWidth, c.scrollWidth <= c.clientWidth]; })()",
    );
    assert_eq!(cell, json!(["C10 U3 V30", true, true]));
    if let Ok(keep) = std::env::var("IOMARK_KEEP_SCREENSHOTS") {
        browser.screenshot(&std::path::Path::new(&keep).join("sdcard-board-375.png"));
    }
    // Other boards have no such column.
    let standard = get(&format!("{url}/?profile=pi")).body;
    assert!(!standard.contains("Classes met"), "{standard}");

    let key = board["devices"][0]["key"].as_str().unwrap();
    let device = get(&format!("{url}/devices/{key}?profile=sdcard")).body;
    assert!(device.contains("SD classes met"), "{device}");
    assert!(
        device.contains(&format!(
            "<strong>{CARD}</strong> in 2 of its ranked results"
        )),
        "{device}"
    );
    let api = get(&format!("{url}/api/v1/devices/{key}?profile=sdcard")).json();
    assert_eq!(api["classes_met"], json!([[CARD, 2]]), "{api}");
    // The tables show the figures the profile has, not eight columns of dashes.
    assert!(!device.contains("SEQ1M Q8T1 read"), "{device}");
    let result = get(&format!("{url}/results/{}", ulid(3))).body;
    assert!(result.contains("id=\"headline\""), "{result}");
    assert!(result.contains("score 1459"), "{result}");
    // Every page leads to how to get iomark and submit to this very site.
    assert!(front.contains("href=\"/about#yours\""), "{front}");
    let about = get(&format!("{url}/about")).body;
    assert!(about.contains("id=\"yours\""), "{about}");
    assert!(
        about.contains(&format!("iomark submit --server {url}")),
        "{about}"
    );
}

/// A pi score run with other file sizes says so wherever it is shown, and is not ranked
/// beside scores of the real sizes.
#[test]
fn a_pi_score_from_other_sizes_is_marked_and_not_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut d = pi_doc(1, 42519);
    d["warnings"] = json!([{"kind": "pi_score_not_comparable",
        "message": "--size changed the pi profile's file sizes"}]);
    let path = write_doc(home, &d);
    ok(iomark(home).arg("import").arg(&path));
    let history = stdout(&ok(iomark(home).arg("history")));
    assert!(history.contains("score 42519*"), "{history}");
    assert!(history.contains("* a pi score not comparable"), "{history}");

    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &NO_LIMITS);
    let answer = post(&format!("{}/api/v1/results", site.url), &d);
    assert_eq!(answer.status, 201, "{}", answer.body);
    let board = get(&format!("{}/api/v1/leaderboard?profile=pi", site.url)).json();
    assert_eq!(board["devices"].as_array().unwrap().len(), 0, "{board}");
}

/// A store written before headlines were kept (no `entries.headline`, migration 4 not run, nor
/// 13, whose index holds it; older rules) gains the column and every stored result's headline
/// when a newer iomark opens it.
#[test]
fn a_store_from_before_headlines_gains_them() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let path = write_doc(home, &pi_doc(1, 1459));
    ok(iomark(home).arg("import").arg(&path));
    let db = home.join("iomark/results.db");
    let script = "import sqlite3, sys\n\
                  c = sqlite3.connect(sys.argv[1])\n\
                  c.execute('DROP INDEX entries_device_points')\n\
                  c.execute('ALTER TABLE entries DROP COLUMN headline')\n\
                  c.execute('DELETE FROM _sqlx_migrations WHERE version IN (4, 13)')\n\
                  c.execute(\"UPDATE meta SET value = '3' WHERE name = 'rules'\")\n\
                  c.commit()\n";
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&db)
        .status()
        .expect("python3 (with its sqlite3 module) edits the store as an older iomark left it");
    assert!(status.success());
    let history = stdout(&ok(iomark(home).arg("history")));
    assert!(history.contains("score 1459"), "{history}");
}

/// A card none of whose results is ranked (each measured with the null engine) has no
/// aggregate: its page takes its figures from its results, and places a viewer's result by the
/// first of those (SEQ1M Q8T1 write for the sdcard profile), not by a figure it lacks.
#[test]
fn a_card_with_no_ranked_result_places_yours_by_its_own_figure() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &NO_LIMITS);
    let url = site.url.clone();
    let mut d = sdcard_doc(7);
    d["settings"]["engine"] = json!("null");
    let answer = post(&format!("{url}/api/v1/results"), &d);
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert!(answer.json()["flag"].is_string(), "{}", answer.body);
    let listed = get(&format!("{url}/api/v1/results/{}", ulid(7))).json();
    let key = listed["device_key"].as_str().unwrap();
    let written = listed["figures"]["seq1m_q8_write"].as_f64().unwrap();
    let api = get(&format!(
        "{url}/api/v1/devices/{key}?profile=sdcard&mine={}",
        ulid(7)
    ))
    .json();
    assert_eq!(api["mine"]["figure"], "seq1m_q8_write", "{api}");
    assert_eq!(api["mine"]["value"].as_f64(), Some(written), "{api}");
    assert!(api["mine"]["flag"].is_string(), "{api}");
    let page = get(&format!(
        "{url}/devices/{key}?profile=sdcard&mine={}",
        ulid(7)
    ))
    .body;
    assert!(
        page.contains("Your result is marked, but not ranked"),
        "{page}"
    );
    assert!(!page.contains("SEQ1M Q8T1 read"), "{page}");
}
