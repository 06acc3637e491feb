//! `iomark serve` and `iomark submit`, for real: the binary serving a store on 127.0.0.1 (a
//! SQLite file, and a private PostgreSQL started by the test), spoken to over HTTP and by the
//! `submit` command. The same suite runs on both stores.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::site::{
    device_doc, from_address_with, get, get_bytes, http, post, post_as, ulid, Site, NO_LIMITS, XSS,
};
use crate::common::{iomark, ok, write_doc, Postgres};

/// POSTs a body of `bytes` spaces, as a client that keeps sending while the server answers
/// would; returns the status line (the server may answer before the body is all sent).
fn huge_post(url: &str, bytes: usize) -> String {
    use std::io::{Read, Write};
    let address = url.trim_start_matches("http://");
    let stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let head = format!(
        "POST /api/v1/results HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {bytes}\r\n\r\n"
    );
    let sender = std::thread::spawn(move || {
        let _ = writer.write_all(head.as_bytes());
        let chunk = vec![b' '; 1 << 16];
        let mut sent = 0;
        while sent < bytes {
            if writer.write_all(&chunk).is_err() {
                break;
            }
            sent += chunk.len();
        }
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let mut reader = stream;
    while !answer.windows(2).any(|w| w == b"\r\n") {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let _ = reader.shutdown(std::net::Shutdown::Both);
    let _ = sender.join();
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

fn history_count(db: &str, home: &Path) -> usize {
    let out = ok(iomark(home).args(["history", "--json", "--db", db]));
    serde_json::from_slice::<Vec<Value>>(&out.stdout)
        .unwrap()
        .len()
}

/// The stores the site runs on; every test below runs on both.
#[derive(Clone, Copy)]
enum Store {
    Sqlite,
    Postgres,
}

/// A site with five results submitted as users would: the first from the command line (its
/// receipt kept in the user's own store), then two more of that SanDisk model on other boards
/// and two of a Kingston stick, one of them too fast for its USB 2 link.
struct Seeded {
    site: Site,
    db: String,
    /// What `iomark submit` printed for the first result.
    submitted: String,
    home: tempfile::TempDir,
    // Dropped last: the site stops before its database does.
    _postgres: Option<Postgres>,
}

impl Seeded {
    fn home(&self) -> &Path {
        self.home.path()
    }
}

fn seeded(store: Store) -> Seeded {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let (db, postgres) = match store {
        Store::Sqlite => (home.join("site.db").to_str().unwrap().to_string(), None),
        Store::Postgres => {
            let pg = Postgres::start();
            (pg.database(), Some(pg))
        }
    };
    let site = Site::start(&db, home, &["--submissions-per-minute", "0"]);
    let url = site.url.clone();
    let mut first = device_doc(1, "SanDisk", "Extreme Pro", 0.1, "Raspberry Pi 4 Model B");
    first["label"] = json!(XSS);
    first["price_usd"] = json!(20.0);
    let file = write_doc(home, &first);
    ok(iomark(home).arg("import").arg(&file));
    let sent = ok(iomark(home).args(["submit", "latest", "--server", &url, "--yes"]));
    let submitted = String::from_utf8_lossy(&sent.stdout).to_string();

    for (n, scale, board) in [
        (2, 0.12, "Raspberry Pi 4 Model B"),
        (3, 0.14, "Raspberry Pi 5 Model B"),
    ] {
        let mut d = device_doc(n, "SanDisk", "Extreme Pro", scale, board);
        d["price_usd"] = json!(24.0);
        assert_eq!(post(&format!("{url}/api/v1/results"), &d).status, 201);
    }
    let slow = device_doc(
        4,
        "Kingston",
        "DataTraveler Exodia",
        0.02,
        "Raspberry Pi 4 Model B",
    );
    assert_eq!(post(&format!("{url}/api/v1/results"), &slow).status, 201);
    let mut cached = device_doc(
        5,
        "Kingston",
        "DataTraveler Exodia",
        0.15,
        "Raspberry Pi 3 Model B",
    );
    cached["target"]["device"]["usb"]["speed_mbps"] = json!(480.0);
    let receipt = post(&format!("{url}/api/v1/results"), &cached);
    assert_eq!(receipt.status, 201, "{}", receipt.body);
    let flag = receipt.json()["flag"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(flag.contains("USB link"), "flagged: {flag}");
    Seeded {
        site,
        db,
        submitted,
        home: dir,
        _postgres: postgres,
    }
}

/// The seeded site the tests that only read share, one per store: made by the first test to
/// ask, stopped when the last one holding it is done (a test that writes makes its own).
fn shared(store: Store) -> Arc<Seeded> {
    static SQLITE: Mutex<Weak<Seeded>> = Mutex::new(Weak::new());
    static POSTGRES: Mutex<Weak<Seeded>> = Mutex::new(Weak::new());
    let slot = match store {
        Store::Sqlite => &SQLITE,
        Store::Postgres => &POSTGRES,
    };
    let mut held = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(seeded) = held.upgrade() {
        return seeded;
    }
    let seeded = Arc::new(seeded(store));
    *held = Arc::downgrade(&seeded);
    seeded
}

/// Each check as a test on SQLite and one on PostgreSQL: `site::NAME::on_sqlite`.
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn on_sqlite() {
                super::$name(super::Store::Sqlite);
            }
            #[test]
            fn on_postgres() {
                super::$name(super::Store::Postgres);
            }
        }
    )*};
}

on_both_stores!(
    the_command_line_submits_a_result_once,
    the_leaderboard_ranks_devices_by_their_medians,
    the_leaderboard_page_sorts_filters_and_pages,
    a_viewer_sees_where_their_result_stands,
    a_device_page_shows_boards_results_and_references,
    a_result_page_is_the_report_with_its_card,
    a_surface_scan_is_taken_but_has_no_card,
    compare_says_faster_only_on_evidence,
    compare_takes_the_spread_from_the_devices_results,
    every_result_is_listed_a_page_at_a_time,
    every_string_is_escaped_and_no_script_allowed,
    what_is_refused_is_not_stored,
    a_result_is_deleted_only_with_its_token,
    a_device_page_lists_its_newest_50_and_counts_all,
);

/// Sent from the command line: a receipt with the result's address and its deletion token;
/// sent again (by hand, or by a proxy replaying it), refused and said so, saved once; the same
/// id posted again refused.
fn the_command_line_submits_a_result_once(store: Store) {
    let s = shared(store);
    let (url, home, text) = (&s.site.url, s.home(), &s.submitted);
    let token = text
        .lines()
        .find_map(|l| l.strip_prefix("token: "))
        .unwrap_or_else(|| panic!("a token: line: {text}"))
        .to_string();
    assert!(
        text.contains(&format!("url: {url}/results/{}", ulid(1))),
        "{text}"
    );
    assert_eq!(token.len(), 64);
    let again = iomark(home)
        .args(["submit", "latest", "--server", url, "--yes"])
        .output()
        .unwrap();
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(&format!("has result {} already", ulid(1)))
            && err.contains("only the site's moderators can delete it"),
        "{err}"
    );
    let slow = device_doc(
        4,
        "Kingston",
        "DataTraveler Exodia",
        0.02,
        "Raspberry Pi 4 Model B",
    );
    assert_eq!(post(&format!("{url}/api/v1/results"), &slow).status, 409);
}

/// Found by searching the model in any case and spelling; ranked by the median of its
/// results, with its price per GB and MB/s per dollar; a column per figure, with the best.
fn the_leaderboard_ranks_devices_by_their_medians(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    let board = get(&format!("{url}/api/v1/leaderboard?q=sandisk%20EXTREME-pro")).json();
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{board}");
    let sandisk = &devices[0];
    assert_eq!(sandisk["key"], "sandisk-extreme-pro-128gb");
    assert_eq!(sandisk["results"], 3);
    // The median of 200, 240 and 280 MB/s, and of the prices 20, 24, 24.
    assert!((sandisk["figure"]["median"].as_f64().unwrap() - 240.0).abs() < 1e-6);
    assert_eq!(sandisk["price_usd"], 24.0);
    assert!((sandisk["usd_per_gb"].as_f64().unwrap() - 24.0 / 128.0).abs() < 1e-9);
    assert!((sandisk["mb_per_s_per_usd"].as_f64().unwrap() - 10.0).abs() < 1e-9);
    // Ranked: the SanDisk before the Kingston, whose too-fast result is not counted.
    let all = get(&format!("{url}/api/v1/leaderboard")).json();
    let keys: Vec<&str> = all["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "sandisk-extreme-pro-128gb",
            "kingston-datatraveler-exodia-128gb"
        ]
    );
    assert_eq!(all["devices"][1]["results"], 1);
    // Each line shows read beside write and sequential beside 4K, the sorted figure marked,
    // and each column's best among the devices listed (what its bars are measured against).
    let figures = |board: &Value| -> Vec<(String, bool)> {
        board["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["figure"].as_str().unwrap().to_string(),
                    c["sorted"] == true,
                )
            })
            .collect()
    };
    let four = [
        "seq1m_q8_read",
        "seq1m_q8_write",
        "rnd4k_q1_read",
        "rnd4k_q1_write",
    ];
    let expected: Vec<(String, bool)> = four
        .iter()
        .enumerate()
        .map(|(i, f)| (f.to_string(), i == 0))
        .collect();
    assert_eq!(figures(&all), expected);
    for column in all["columns"].as_array().unwrap() {
        let name = column["figure"].as_str().unwrap();
        let best = all["devices"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["stats"][name]["median"].as_f64())
            .fold(f64::MIN, f64::max);
        assert_eq!(column["best"].as_f64(), Some(best), "{name}");
    }
    let by_q32 = get(&format!("{url}/api/v1/leaderboard?sort=rnd4k_q32_read")).json();
    let mut expected: Vec<(String, bool)> = four.iter().map(|f| (f.to_string(), false)).collect();
    expected.push(("rnd4k_q32_read".into(), true));
    assert_eq!(figures(&by_q32), expected);
}

/// The page: a column per figure, each heading ranking by its figure with the filters kept,
/// a bar per figure; filtered by board and kind; 50 devices unless asked for more.
fn the_leaderboard_page_sorts_filters_and_pages(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    let page = get(&format!("{url}/?kind=USB+flash&sort=rnd4k_q1_write")).body;
    for figure in ["seq1m_q8_read", "seq1m_q8_write", "rnd4k_q1_read"] {
        assert!(
            page.contains(&format!("href=\"/?kind=USB+flash&#38;sort={figure}\"")),
            "a heading ranks by {figure}: {page}"
        );
    }
    let lines = page
        .matches("<td class=\"device\"><a href=\"/devices/")
        .count();
    assert!(lines >= 1, "{page}");
    assert_eq!(page.matches("<td class=\"n fig sorted\">").count(), lines);
    assert!(
        page.contains("class=\"bar b20\""),
        "the best of a column fills it"
    );
    // Sorted by another figure, filtered by board and by kind.
    let by_board = get(&format!(
        "{url}/api/v1/leaderboard?board=Raspberry%20Pi%205%20Model%20B&sort=rnd4k_q1_write"
    ))
    .json();
    assert_eq!(by_board["devices"].as_array().unwrap().len(), 1);
    assert_eq!(by_board["devices"][0]["results"], 1);
    assert_eq!(
        get(&format!("{url}/api/v1/leaderboard?kind=NVMe")).json()["devices"],
        json!([])
    );
    // A page shows 50 devices unless asked for more, and links to more when it may have cut.
    let first = get(&format!("{url}/?limit=1&kind=USB%20flash"));
    let more = first
        .body
        .split("id=\"more\"")
        .next()
        .and_then(|b| b.rsplit("href=\"").next())
        .unwrap_or_default();
    assert!(
        more.starts_with("/?kind=USB+flash&") && more.contains("limit=4\""),
        "a link to more: {more}"
    );
    assert!(!get(&format!("{url}/")).body.contains("id=\"more\""));
    assert_eq!(
        get(&format!("{url}/api/v1/leaderboard?sort=nonsense")).status,
        400
    );
    assert_eq!(
        get(&format!("{url}/api/v1/leaderboard?kind=floppy")).status,
        400
    );
}

/// A viewer's own result marked among its model's: the middle of 200, 240 and 280 MB/s beats
/// one of the other two; on the page, a sentence, its row, and a line on the chart.
fn a_viewer_sees_where_their_result_stands(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    let sandisk = "sandisk-extreme-pro-128gb";
    let mine = get(&format!("{url}/api/v1/devices/{sandisk}?mine={}", ulid(2))).json();
    assert_eq!(mine["mine"]["found"], true, "{mine}");
    assert_eq!(mine["mine"]["figure"], "seq1m_q8_read");
    assert_eq!(mine["mine"]["beats"], 1.0);
    assert_eq!(mine["mine"]["others"], 2);
    let page = get(&format!("{url}/devices/{sandisk}?mine={}", ulid(2))).body;
    assert!(
        page.contains("beats 1 of the other 2 ranked results of SanDisk Extreme Pro 128 GB"),
        "{page}"
    );
    assert_eq!(page.matches("<tr class=\"mine\">").count(), 1);
    assert!(
        page.contains(">yours 240<") && page.contains(">median 240<"),
        "{page}"
    );
    assert!(page.contains(">results</text>") && page.contains("SEQ1M Q8T1 read (MB/s)</text>"));
    // The card of a typical result (the one at the median) stands for the device.
    let typical = format!("<img src=\"/results/{}/card.png\"", ulid(2));
    assert!(page.contains(&typical), "{page}");
    let card = get(&format!("{url}/results/{}/card.png", ulid(2)));
    assert_eq!(card.status, 200);
    // Another device's result is not among these; a flagged one is marked and said unranked.
    let page = get(&format!("{url}/devices/{sandisk}?mine={}", ulid(4))).body;
    assert!(
        page.contains("is not among SanDisk Extreme Pro 128 GB"),
        "{page}"
    );
    assert!(!page.contains("class=\"mine\""));
    let page = get(&format!(
        "{url}/devices/kingston-datatraveler-exodia-128gb?mine={}",
        ulid(5)
    ))
    .body;
    assert!(
        page.contains("Your result is marked, but not ranked: SEQ1M_Q8T1_read"),
        "{page}"
    );
    assert_eq!(
        get(&format!("{url}/devices/{sandisk}?mine=%01")).status,
        400
    );
    // A result's page links to it.
    let result = get(&format!("{url}/results/{}", ulid(2))).body;
    assert!(
        result.contains(&format!(
            "?profile=standard%2Fdirect%2Frandom&#38;mine={}\" id=\"stands\"",
            ulid(2)
        )),
        "{result}"
    );
}

/// Per-board medians, every result (the flagged one with its reason), published figures.
fn a_device_page_shows_boards_results_and_references(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    let device = get(&format!(
        "{url}/api/v1/devices/kingston-datatraveler-exodia-128gb"
    ))
    .json();
    assert_eq!(device["results"].as_array().unwrap().len(), 2);
    assert_eq!(device["summary"]["seq1m_q8_read"]["n"], 1);
    assert_eq!(device["boards"].as_array().unwrap().len(), 1);
    let page = get(&format!("{url}/devices/kingston-datatraveler-exodia-128gb"));
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains("<details class=\"flag\"><summary>not ranked</summary>SEQ1M_Q8T1_read"),
        "{}",
        page.body
    );
    let page = get(&format!("{url}/devices/sandisk-extreme-pro-128gb"));
    assert!(page.body.contains("Raspberry Pi 5 Model B"));
    assert!(
        page.body
            .contains("SanDisk 128GB Extreme Pro USB 3.1 flash drive"),
        "published figures shown"
    );
    assert!(page.body.contains("jeffgeerling.com"));
    assert_eq!(get(&format!("{url}/devices/no-such-device")).status, 404);
}

/// The result page is the full report; its card, to post, a PNG browsers may keep.
fn a_result_page_is_the_report_with_its_card(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    let result = get(&format!("{url}/results/{}", ulid(2)));
    assert_eq!(result.status, 200);
    assert!(result.body.contains("id=\"results\""));
    let api = get(&format!("{url}/api/v1/results/{}", ulid(5))).json();
    assert!(api["flag"].as_str().unwrap().contains("USB link"));
    assert_eq!(api["document"]["id"], ulid(5));
    assert_eq!(
        get(&format!("{url}/results/01JTEST0000000000000000099")).status,
        404
    );
    // Its card, to post: linked from the page, a PNG of the run's table that browsers may keep.
    let card = format!("/results/{}/card.png", ulid(2));
    assert!(result.body.contains(&format!("href=\"{card}\"")));
    let (status, content_type, png) = get_bytes(&format!("{url}{card}"));
    assert_eq!((status, content_type.as_str()), (200, "image/png"));
    let decoded = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    assert_eq!(decoded.info().width, 900);
}

/// A surface scan is taken (it has no tests) but has no table to draw a card of.
fn a_surface_scan_is_taken_but_has_no_card(store: Store) {
    let s = seeded(store);
    let url = &s.site.url;
    let surface: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/charts/surface.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(post(&format!("{url}/api/v1/results"), &surface).status, 201);
    let id = surface["id"].as_str().unwrap();
    let (status, _, body) = get_bytes(&format!("{url}/results/{id}/card.png"));
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("no card"));
    let (status, _, _) = get_bytes(&format!(
        "{url}/results/01JTEST0000000000000000099/card.png"
    ));
    assert_eq!(status, 404);
}

/// Results with verdicts, devices with medians; no verdict from one ranked result.
fn compare_says_faster_only_on_evidence(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    // 40% apart is within how far two runs may wander (no history on a site: 15% each)...
    let compared = get(&format!("{url}/api/v1/compare?ids={},{}", ulid(1), ulid(3))).json();
    let row = &compared["rows"][0];
    assert_eq!(row["cells"][1]["verdict"], "within_noise", "{compared}");
    // ...five times as fast is not.
    let compared = get(&format!("{url}/api/v1/compare?ids={},{}", ulid(4), ulid(1))).json();
    let row = &compared["rows"][0];
    assert_eq!(row["cells"][1]["verdict"], "faster", "{compared}");
    let page = get(&format!("{url}/compare?ids={}&ids={}", ulid(4), ulid(1)));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("faster"));
    let devices = get(&format!(
        "{url}/api/v1/compare?devices=sandisk-extreme-pro-128gb,kingston-datatraveler-exodia-128gb"
    ))
    .json();
    assert_eq!(devices.as_array().unwrap().len(), 2);
    // The second device against the first: the medians' difference, and no verdict from one
    // ranked result (the Kingston's other is too fast for its USB 2 link).
    assert!(devices[0].get("versus").is_none(), "{devices}");
    let versus = &devices[1]["versus"]["seq1m_q8_read"];
    let median = |d: &Value| d["summary"]["seq1m_q8_read"]["median"].as_f64().unwrap();
    let diff = (median(&devices[1]) / median(&devices[0]) - 1.0) * 100.0;
    assert!(
        (versus["diff_pct"].as_f64().unwrap() - diff).abs() < 1e-9,
        "{versus}"
    );
    assert_eq!(versus["verdict"], "cant_tell");
    let page = get(&format!(
        "{url}/compare?devices=sandisk-extreme-pro-128gb,kingston-datatraveler-exodia-128gb"
    ))
    .body;
    assert!(
        page.contains(&format!("{diff:+.0}%, can&#39;t tell")),
        "{page}"
    );
    assert!(
        page.contains("Median price") && page.contains("$24.00"),
        "{page}"
    );
    assert_eq!(
        get(&format!("{url}/api/v1/compare?ids={}", ulid(1))).status,
        400
    );
    assert_eq!(
        get(&format!("{url}/api/v1/compare?ids=a,b,c,d,e")).status,
        400
    );
}

/// A comparison of two results takes the run-to-run spread from the device's other results
/// on the site, and says so: 30% apart is within the assumed 15% a run, and slower beside
/// three results within 1% of each other. One address's many results weigh as one: nine
/// results swinging 30% either way, sent before its newest one in line with the others, do
/// not widen the spread.
fn compare_takes_the_spread_from_the_devices_results(store: Store) {
    let dir = tempfile::tempdir().unwrap();
    let (db, _postgres) = match store {
        Store::Sqlite => (
            dir.path().join("site.db").to_str().unwrap().to_string(),
            None,
        ),
        Store::Postgres => {
            let pg = Postgres::start();
            (pg.database(), Some(pg))
        }
    };
    let site = Site::start(&db, dir.path(), &NO_LIMITS);
    let url = &site.url;
    let send_as = |from: u8, n: u32, scale: f64| {
        let doc = device_doc(n, "Samsung", "FIT Plus", scale, "Raspberry Pi 4 Model B");
        let answer = post_as(from, &format!("{url}/api/v1/results"), &doc);
        assert_eq!(answer.status, 201, "{}", answer.body);
    };
    let send = |n: u32, scale: f64| send_as(n as u8, n, scale);
    send(1, 0.1);
    send(2, 0.07);
    let compare = || get(&format!("{url}/api/v1/compare?ids={},{}", ulid(1), ulid(2))).json();
    let before = compare();
    assert_eq!(
        before["rows"][0]["cells"][1]["verdict"], "within_noise",
        "{before}"
    );
    assert_eq!(
        before["spread"],
        "Run-to-run spread: 15% assumed (fewer than 3 other results of this device on this \
         site with this method).",
        "{before}"
    );
    for (n, scale) in [(3, 0.1), (4, 0.101), (5, 0.099)] {
        send(n, scale);
    }
    let after = compare();
    let row = &after["rows"][0];
    assert_eq!(row["cells"][1]["verdict"], "slower", "{after}");
    assert_eq!(row["run_spread_runs"], 3, "{after}");
    let spread = after["spread"].as_str().unwrap();
    assert!(
        spread
            .ends_with("from up to 3 other results of this device on this site with this method."),
        "{spread}"
    );
    // One more submitter: nine results at 0.07 and 0.13, then its newest at 0.1.
    for n in 10..19 {
        send_as(9, n, if n % 2 == 0 { 0.07 } else { 0.13 });
    }
    send_as(9, 27, 0.1);
    let after = compare();
    let row = &after["rows"][0];
    assert_eq!(row["cells"][1]["verdict"], "slower", "{after}");
    assert_eq!(row["run_spread_runs"], 4, "{after}");
    let spread = after["spread"].as_str().unwrap();
    let page = get(&format!("{url}/compare?ids={}&ids={}", ulid(1), ulid(2))).body;
    assert!(page.contains("-30.0%, slower"), "{page}");
    assert!(page.contains(&spread.replace('\'', "&#39;")), "{page}");
}

/// The raw data: every result, a page at a time, by id; the same walked two at a time (each
/// page its own, not a cached first page) as at once; of one device, with whole documents.
fn every_result_is_listed_a_page_at_a_time(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    let walk = |first: String| -> Vec<Value> {
        let mut out = Vec::new();
        let mut next = Some(first);
        while let Some(page) = next {
            let answer = get(&page).json();
            out.extend(answer["results"].as_array().unwrap().iter().cloned());
            next = answer["next"].as_str().map(str::to_string);
            assert!(out.len() < 100, "the walk ends");
        }
        out
    };
    let ids = |results: &[Value]| -> Vec<String> {
        results
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = walk(format!("{url}/api/v1/results?limit=500"));
    let by_two = walk(format!("{url}/api/v1/results?limit=2"));
    assert_eq!(ids(&by_two), ids(&all));
    let mut sorted = ids(&all);
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, ids(&all), "in id order, each once");
    for n in 1..=5 {
        assert!(ids(&all).contains(&ulid(n)), "{n}: {all:?}");
    }
    assert_eq!(
        all[0]["url"],
        format!("{url}/results/{}", all[0]["id"].as_str().unwrap())
    );
    // Of one device; with each whole document.
    let sandisk_results = walk(format!(
        "{url}/api/v1/results?device=sandisk-extreme-pro-128gb&limit=1&documents=1"
    ));
    assert_eq!(ids(&sandisk_results), [ulid(1), ulid(2), ulid(3)]);
    for r in &sandisk_results {
        assert_eq!(r["document"]["id"], r["id"]);
        assert!(r["document"]["tests"].is_array());
    }
    assert!(all[0].get("document").is_none());
    assert_eq!(
        get(&format!("{url}/api/v1/results?documents=2")).status,
        400
    );
    assert_eq!(get(&format!("{url}/api/v1/results?after=%01")).status, 400);
    assert!(
        get(&format!("{url}/api/v1/results?profile=nope")).json()["results"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// Every user string escaped on every page and in every answer; every answer carries the
/// policy that forbids scripts.
fn every_string_is_escaped_and_no_script_allowed(store: Store) {
    let s = shared(store);
    let url = &s.site.url;
    for path in [
        "/".to_string(),
        "/?q=sandisk".into(),
        "/?q=%3Cscript%3E".into(),
        "/devices/sandisk-extreme-pro-128gb".into(),
        format!("/results/{}", ulid(1)),
        format!("/compare?ids={},{}", ulid(1), ulid(2)),
        "/api/v1/leaderboard".into(),
        "/api/v1/devices/sandisk-extreme-pro-128gb".into(),
        format!("/api/v1/results/{}", ulid(1)),
        format!("/api/v1/compare?ids={},{}", ulid(1), ulid(2)),
        "/no/such/page?x=%3Cscript%3E".into(),
    ] {
        let answer = get(&format!("{url}{path}"));
        // The pages' own images are cards from this site; the label's is never an element.
        for raw in ["<script", "<img src=x"] {
            assert!(
                !answer.body.contains(raw),
                "{path}: '{raw}' unescaped in: {}",
                answer.body
            );
        }
        let csp = answer.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("default-src 'none'"), "{path}: {csp}");
        assert!(!csp.contains("script-src"), "{path}: {csp}");
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
    }
    let page = get(&format!("{url}/devices/sandisk-extreme-pro-128gb"));
    assert!(
        page.body
            .contains("&#60;script&#62;alert(1)&#60;/script&#62;")
            || page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the label is shown, escaped"
    );
    let api = get(&format!("{url}/api/v1/results/{}", ulid(1)));
    assert_eq!(
        api.json()["document"]["label"],
        XSS,
        "the API's JSON decodes to the label"
    );
}

/// A body too big, and a thousand documents each wrong in its own way: refused with a reason,
/// and none of them stored.
fn what_is_refused_is_not_stored(store: Store) {
    let s = seeded(store);
    let (url, db, home) = (&s.site.url, s.db.as_str(), s.home());
    let before = history_count(db, home);
    let status = huge_post(url, 20 << 20);
    assert!(status.starts_with("HTTP/1.1 413"), "a 20 MB body: {status}");
    let mut refused = 0;
    for n in 0..1000u32 {
        let mut bad = device_doc(1000 + n, "Bad", "Document", 1.0, "x");
        match n % 10 {
            0 => bad["schema"] = json!("other/1"),
            1 => bad["id"] = json!("../../etc/passwd"),
            2 => bad["tests"] = json!([]),
            3 => bad["tests"][0]["mb_per_s"] = json!(-1.0),
            4 => bad["started_at"] = json!("yesterday"),
            5 => bad["label"] = json!("a\u{1b}[2Jb"),
            6 => bad["price_usd"] = json!(-5.0),
            7 => bad["tests"][0]["mb_per_s"] = json!(1e12),
            8 => bad["settings"]["loops"] = json!(0),
            _ => bad = json!("not a document"),
        }
        let answer = post(&format!("{url}/api/v1/results"), &bad);
        assert!(
            (400..500).contains(&answer.status),
            "bad document {n}: {} {}",
            answer.status,
            answer.body
        );
        assert!(answer.json()["error"]
            .as_str()
            .is_some_and(|e| !e.is_empty()));
        refused += 1;
    }
    assert_eq!(refused, 1000);
    let broken = http(
        "POST",
        &format!("{url}/api/v1/results"),
        Some(b"{\"schema\":"),
        None,
    );
    assert_eq!(broken.status, 422);
    assert_eq!(
        history_count(db, home),
        before,
        "nothing refused was stored"
    );
}

/// Only with the token: a wrong one deletes nothing; the right one, kept by `submit`, takes the
/// result out of every answer, the cached ones too, and the receipt with it.
fn a_result_is_deleted_only_with_its_token(store: Store) {
    let s = seeded(store);
    let (url, db, home) = (&s.site.url, s.db.as_str(), s.home());
    let before = history_count(db, home);
    let target = format!("{url}/api/v1/results/{}", ulid(1));
    assert_eq!(http("DELETE", &target, None, None).status, 401);
    let wrong = "0".repeat(64);
    assert_eq!(http("DELETE", &target, None, Some(&wrong)).status, 403);
    assert_eq!(get(&target).status, 200, "a wrong token deletes nothing");
    assert_eq!(history_count(db, home), before);
    let deleted = ok(iomark(home).args(["submit", "--delete", &ulid(1)[..12], "--server", url]));
    assert!(String::from_utf8_lossy(&deleted.stdout).contains("Deleted"));
    assert_eq!(get(&target).status, 404);
    // The same address as before the deletion: its cached answer went with the deletion.
    let after = get(&format!("{url}/api/v1/leaderboard?q=sandisk%20EXTREME-pro")).json();
    assert_eq!(
        after["devices"][0]["results"], 2,
        "the aggregate follows the deletion"
    );
    assert_eq!(history_count(db, home), before - 1);
    // The receipt is gone with it.
    let again = iomark(home)
        .args(["submit", "--delete", &ulid(1), "--server", url])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("no receipt"));
}

/// A device with more results than its page lists: the newest 50 in full, every one drawn and
/// counted, and a viewer's result that is not among the 50 placed among them all.
fn a_device_page_lists_its_newest_50_and_counts_all(store: Store) {
    let s = seeded(store);
    let url = &s.site.url;
    for i in 0..55u32 {
        let d = device_doc(
            900 + i,
            "Kingston",
            "DataTraveler Max",
            0.05 + f64::from(i) / 1000.0,
            "Raspberry Pi 5",
        );
        assert_eq!(post(&format!("{url}/api/v1/results"), &d).status, 201);
    }
    let found = get(&format!("{url}/api/v1/leaderboard?q=datatraveler%20max")).json();
    let key = found["devices"][0]["key"].as_str().unwrap().to_string();
    let device = get(&format!("{url}/api/v1/devices/{key}")).json();
    assert_eq!(device["results_total"], 55, "{device}");
    let listed: Vec<&str> = device["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let every = device["all_results"].as_str().unwrap();
    assert_eq!(
        every,
        format!("/api/v1/results?device={key}&profile=standard%2Fdirect%2Frandom")
    );
    let mut all: Vec<Value> = get(&format!("{url}{every}")).json()["results"]
        .as_array()
        .unwrap()
        .clone();
    all.sort_by(|a, b| {
        let at = |v: &Value| (v["started_at"].to_string(), v["id"].to_string());
        at(b).cmp(&at(a))
    });
    let newest: Vec<&str> = all
        .iter()
        .take(50)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, newest, "the newest 50, newest first");
    let ranked = all.iter().filter(|r| r["flag"].is_null()).count();
    let oldest = all[54]["id"].as_str().unwrap();
    assert!(!listed.contains(&oldest));
    let mine = get(&format!("{url}/api/v1/devices/{key}?mine={oldest}")).json()["mine"].clone();
    assert_eq!(mine["found"], true, "{mine}");
    let own = all[54]["figures"]["seq1m_q8_read"].as_f64().unwrap();
    let beaten = all
        .iter()
        .filter(|r| r["flag"].is_null() && r["id"] != oldest)
        .filter(|r| r["figures"]["seq1m_q8_read"].as_f64().unwrap() < own)
        .count();
    assert_eq!(
        mine["others"],
        ranked - usize::from(all[54]["flag"].is_null())
    );
    assert_eq!(mine["beats"], beaten as f64);
    let page = get(&format!("{url}/devices/{key}")).body;
    assert!(
        page.contains("The newest 50 of its 55 results of this profile"),
        "{page}"
    );
    assert!(
        page.contains(&format!(" of its {ranked} ranked results, one bar")),
        "{page}"
    );
    assert_eq!(page.matches("name=\"ids\"").count(), 50);
}

#[test]
fn submit_shows_what_leaves_and_keeps_a_failed_result() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut d = device_doc(7, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    d["target"]["path"] = json!(home.join("bench").to_str().unwrap());
    d["target"]["device"]["serial_hash"] = json!("5bb17e88053d491c860cdadb");
    d["target"]["mount_options"] = json!("rw,vers=3.1.1,username=zorro,domain=QUIXCORP");
    d["label"] = json!("the card at /media/zorro/CARD");
    let file = write_doc(home, &d);
    ok(iomark(home).arg("import").arg(&file));
    // The dry run prints the document, less the home path, and sends nothing.
    let dry = ok(iomark(home).env("HOME", home).args([
        "submit",
        "--server",
        "http://127.0.0.1:9",
        "--dry-run",
    ]));
    let sent: Value = serde_json::from_slice(&dry.stdout).unwrap();
    assert_eq!(sent["target"]["path"], "~/[folder]");
    assert_eq!(sent["id"], ulid(7));
    assert!(!String::from_utf8_lossy(&dry.stdout).contains(home.to_str().unwrap()));
    // And says what it removed (the fifth attack pass: options and a user name went unsaid).
    assert_eq!(sent["target"]["mount_options"], "rw,vers=3.1.1");
    let said = String::from_utf8_lossy(&dry.stderr);
    for line in [
        "Removed before sending",
        "target.mount_options: username, domain (they name a person",
        "label: the card at /media/zorro/CARD -> the card at /media/USER/[folder]",
        "target.path: ",
    ] {
        assert!(said.contains(line), "{line}: {said}");
    }
    // Without --yes and nobody to ask: not sent.
    let unasked = iomark(home)
        .args(["submit", "--server", "http://127.0.0.1:9"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!unasked.status.success());
    assert!(String::from_utf8_lossy(&unasked.stderr).contains("give --yes"));
    // A server that is not there: a clear error, and the result is still in the store.
    let failed = iomark(home)
        .args(["submit", "--server", "http://127.0.0.1:9", "--yes"])
        .output()
        .unwrap();
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("the result stays in your store"),
        "{stderr}"
    );
    ok(iomark(home).args(["show", &ulid(7)]));
    // A server that refuses it: its reason is shown.
    let site_dir = tempfile::tempdir().unwrap();
    let db = site_dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), site_dir.path(), &[]);
    let mut future = d.clone();
    future["id"] = json!(ulid(8));
    future["started_at"] = json!("2099-01-01T00:00:00Z");
    future["finished_at"] = json!("2099-01-01T00:00:01Z");
    // A document the local import refuses cannot be made by hand here: check the server's
    // answer through submit's path with a bad server URL instead.
    let bad = iomark(home)
        .args(["submit", "--server", "ftp://example"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a site's address"));
    let answer = post(&format!("{}/api/v1/results", site.url), &future);
    assert_eq!(answer.status, 422);
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .contains("in the future"));
}

#[test]
fn a_client_over_its_submission_limit_is_told_to_wait() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(
        db.to_str().unwrap(),
        dir.path(),
        &["--submissions-per-minute", "3"],
    );
    for n in 0..3 {
        let d = device_doc(20 + n, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
        assert_eq!(
            post(&format!("{}/api/v1/results", site.url), &d).status,
            201
        );
    }
    let d = device_doc(23, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    let answer = post(&format!("{}/api/v1/results", site.url), &d);
    assert_eq!(answer.status, 429);
    assert!(answer.header("retry-after").is_some());
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .contains("too many submissions"));
    // Reading is still allowed.
    assert_eq!(get(&format!("{}/api/v1/leaderboard", site.url)).status, 200);
}

/// Behind a proxy, each client is limited by the address the proxy appended, and only when
/// told to trust it.
#[test]
fn behind_a_proxy_each_client_has_its_own_limit() {
    let post_from = |url: &str, n: u32, from: &str| {
        let d = device_doc(n, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        agent
            .post(format!("{url}/api/v1/results"))
            .header("content-type", "application/json")
            .header("x-forwarded-for", from)
            .send(d.to_string().as_bytes())
            .unwrap()
            .status()
            .as_u16()
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let db = db.to_str().unwrap();
    let limits = ["--submissions-per-minute", "1"];
    let site = Site::start(
        db,
        dir.path(),
        &[&limits[..], &["--trust-forwarded-for"]].concat(),
    );
    assert_eq!(post_from(&site.url, 50, "203.0.113.1, 198.51.100.1"), 201);
    assert_eq!(
        post_from(&site.url, 51, "203.0.113.2, 198.51.100.1"),
        429,
        "same last hop"
    );
    assert_eq!(
        post_from(&site.url, 52, "198.51.100.2"),
        201,
        "another client"
    );
    drop(site);
    // Not trusted: the header is ignored, and every request is the peer's.
    let site = Site::start(db, dir.path(), &limits);
    assert_eq!(post_from(&site.url, 53, "198.51.100.3"), 201);
    assert_eq!(post_from(&site.url, 54, "198.51.100.4"), 429);
}

/// Submits documents from `clients` threads until `stop`; returns the ids answered 201 and
/// the other statuses seen (with one reason each).
fn load(
    url: &str,
    clients: u32,
    first: u32,
    stop: Arc<AtomicBool>,
) -> (Vec<String>, Vec<(u16, String)>) {
    let accepted = Arc::new(Mutex::new(Vec::new()));
    let other = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let (url, stop) = (url.to_string(), stop.clone());
            let (accepted, other) = (accepted.clone(), other.clone());
            std::thread::spawn(move || {
                // Bounded: at most 2,000 submissions a client, whatever happens.
                for i in 0..2000u32 {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let n = first + c * 10_000 + i;
                    let d = device_doc(n, "Load", &format!("Model {}", n % 7), 0.1, "Pi");
                    let answer = post(&format!("{url}/api/v1/results"), &d);
                    if answer.status == 201 {
                        accepted.lock().unwrap().push(ulid(n));
                    } else {
                        other
                            .lock()
                            .unwrap()
                            .push((answer.status, answer.body.clone()));
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let a = accepted.lock().unwrap().clone();
    let o = other.lock().unwrap().clone();
    (a, o)
}

#[test]
fn postgres_going_away_under_load_gets_503_and_loses_nothing() {
    let mut pg = Postgres::start();
    let db = pg.database();
    let dir = tempfile::tempdir().unwrap();
    let site = Site::start(&db, dir.path(), &NO_LIMITS);
    let stop = Arc::new(AtomicBool::new(false));
    let loader = {
        let (url, stop) = (site.url.clone(), stop.clone());
        std::thread::spawn(move || load(&url, 4, 100_000, stop))
    };
    std::thread::sleep(Duration::from_millis(1500));
    if !pg.stop() {
        // A server given by IOMARK_TEST_POSTGRES is not ours to stop.
        stop.store(true, Ordering::SeqCst);
        loader.join().unwrap();
        return;
    }
    // While it is away: 503 with a reason, for pages and the API alike.
    std::thread::sleep(Duration::from_millis(1500));
    let answer = get(&format!("{}/api/v1/leaderboard", site.url));
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(answer.json()["error"]
        .as_str()
        .unwrap()
        .contains("unavailable"));
    let page = get(&format!("{}/", site.url));
    assert_eq!(page.status, 503);
    pg.start_again();
    // Back by itself, with no restart of iomark.
    let deadline = Instant::now() + Duration::from_secs(30);
    while get(&format!("{}/api/v1/health", site.url)).status != 200 {
        assert!(
            Instant::now() < deadline,
            "the site did not come back within 30 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(1000));
    stop.store(true, Ordering::SeqCst);
    let (accepted, other) = loader.join().unwrap();
    assert!(
        accepted.len() > 10,
        "submissions went through: {}",
        accepted.len()
    );
    assert!(
        other.iter().all(|(s, _)| *s == 503),
        "only 503 while the database was away: {other:?}"
    );
    assert!(!other.is_empty(), "some submissions met the outage");
    for id in &accepted {
        assert_eq!(
            get(&format!("{}/api/v1/results/{id}", site.url)).status,
            200,
            "accepted {id} was lost"
        );
    }
}

#[test]
fn sigterm_under_load_loses_no_accepted_submission() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let db = db.to_str().unwrap();
    let mut site = Site::start(db, dir.path(), &NO_LIMITS);
    let stop = Arc::new(AtomicBool::new(false));
    let loader = {
        let (url, stop) = (site.url.clone(), stop.clone());
        std::thread::spawn(move || load(&url, 8, 200_000, stop))
    };
    std::thread::sleep(Duration::from_millis(1500));
    let status = site.stop();
    assert!(status.success(), "serve exits cleanly on SIGTERM: {status}");
    stop.store(true, Ordering::SeqCst);
    let (accepted, _) = loader.join().unwrap();
    assert!(accepted.len() > 10, "{}", accepted.len());
    let site = Site::start(db, dir.path(), &["--requests-per-minute", "0"]);
    for id in &accepted {
        assert_eq!(
            get(&format!("{}/api/v1/results/{id}", site.url)).status,
            200,
            "accepted {id} was lost"
        );
    }
}

/// The run command takes a price and a label into the document the site ranks by.
#[test]
fn run_records_the_price() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_iomark"))
        .env("XDG_DATA_HOME", dir.path())
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "--engine",
            "null",
            "--profile",
            "quick",
        ])
        .args(["--price", "$12.99", "--no-save", "--json", "-", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["price_usd"], 12.99);
    let bad = Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args(["run", "--price", "free"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a price"));
}

/// A person on a phone: finds a card by searching its model, opens its page and a result,
/// and compares two results, in headless Chromium at 375 px; no page scrolls sideways, and
/// each renders (a screenshot with the page's colours in it).
#[test]
fn a_person_finds_and_compares_a_card_in_a_browser() {
    use crate::common::cdp::{png_facts, Browser};
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &[]);
    let url = site.url.clone();
    // Submitted from the command line, with a label that tries to run a script.
    let mut first = device_doc(31, "SanDisk", "Extreme Pro", 0.10, "Raspberry Pi 4 Model B");
    first["label"] = json!(XSS);
    ok(iomark(home).arg("import").arg(write_doc(home, &first)));
    ok(iomark(home).args(["submit", "latest", "--server", &url, "--yes"]));
    for (n, maker, model, scale) in [
        (32, "SanDisk", "Extreme Pro", 0.13),
        (
            33,
            "Kingston",
            "DataTraveler Exodia Onyx With A Very Long Model Name",
            0.02,
        ),
        (34, "Samsung", "BAR Plus", 0.2),
    ] {
        let mut d = device_doc(n, maker, model, scale, "Raspberry Pi 5 Model B");
        d["price_usd"] = json!(19.99);
        assert_eq!(post(&format!("{url}/api/v1/results"), &d).status, 201);
    }

    let mut browser = Browser::open(375, 800, true);
    let shots = tempfile::tempdir().unwrap();
    let check_page = |browser: &mut Browser, name: &str| {
        if browser.overflows() {
            let widths = browser.eval("[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth, document.documentElement.clientWidth]");
            panic!(
                "{name} scrolls sideways at 375 px: {widths} {}",
                browser.too_wide()
            );
        }
        assert_eq!(
            browser.eval("document.querySelectorAll('script').length"),
            json!(0)
        );
        // The only images are this site's cards, and each was drawn and shown.
        let images = browser.eval(
            "Array.from(document.images).map(i => [new URL(i.src).pathname, i.complete && i.naturalWidth])",
        );
        for image in images.as_array().unwrap() {
            let path = image[0].as_str().unwrap();
            assert!(
                path.starts_with("/results/") && path.ends_with("/card.png"),
                "{name}: {image}"
            );
            assert!(
                image[1].as_u64().unwrap_or(0) > 0,
                "{name}: not shown: {image}"
            );
        }
        let path = shots.path().join(format!("{name}.png"));
        browser.screenshot(&path);
        let (width, height, colours) = png_facts(&path);
        assert_eq!(width, 375, "{name}");
        assert!(height >= 300, "{name}: {height} px tall");
        assert!(colours > 8, "{name} rendered: {colours} colours");
        if let Ok(keep) = std::env::var("IOMARK_KEEP_SCREENSHOTS") {
            let _ = std::fs::copy(&path, Path::new(&keep).join(format!("{name}.png")));
        }
    };

    // The leaderboard: search the model as a person types it.
    browser.goto(&format!("{url}/"));
    check_page(&mut browser, "leaderboard");
    assert_eq!(
        browser.eval("document.querySelectorAll('#leaderboard tbody tr').length"),
        json!(3)
    );
    // On a phone the newest results' headline starts on the screen (it was pushed off it by
    // the profile column and a reason not to rank).
    let left = browser.eval(
        "Array.from(document.querySelectorAll('#recent th')).find(h => h.innerText === 'Headline').getBoundingClientRect().left",
    );
    assert!(left.as_f64().unwrap() < 340.0, "headline at {left} px");
    // A figure's heading ranks by it; its column is then the marked one.
    browser.eval(
        "Array.from(document.querySelectorAll('#leaderboard th a')).find(a => a.innerText.startsWith('RND4K Q1T1 read')).click(); true",
    );
    browser.wait_for("location.search.includes('sort=rnd4k_q1_read')");
    assert_eq!(
        browser.eval("document.querySelector('#leaderboard th.sorted').innerText.split('\\n')[0]"),
        json!("RND4K Q1T1 read")
    );
    let bars = browser.eval(
        "Array.from(document.querySelectorAll('#leaderboard td.sorted .bar')).map(b => b.getBoundingClientRect().width)",
    );
    let bars: Vec<f64> = bars
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_f64().unwrap())
        .collect();
    assert!(
        !bars.is_empty() && bars.iter().all(|w| *w > 0.0),
        "{bars:?}"
    );
    // Ranked by it, the first line's bar is the longest.
    assert!(bars.iter().all(|w| *w <= bars[0] + 0.5), "{bars:?}");
    browser.goto(&format!("{url}/"));
    browser.eval(
        "document.querySelector('input[name=q]').value = 'extreme pro'; \
         document.querySelector('form.filters').submit(); true",
    );
    browser.wait_for("location.search.includes('q=extreme+pro')");
    let rows = browser.eval(
        "Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(r => r.innerText)",
    );
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0]
        .as_str()
        .unwrap()
        .contains("SanDisk Extreme Pro 128 GB"));
    check_page(&mut browser, "search");

    // Its page.
    browser.eval("document.querySelector('#leaderboard tbody a').click(); true");
    browser.wait_for("location.pathname.startsWith('/devices/')");
    assert_eq!(
        browser.eval("document.querySelector('h1').innerText"),
        json!("SanDisk Extreme Pro 128 GB")
    );
    let text = browser.eval("document.body.innerText");
    assert!(
        text.as_str().unwrap().contains("<script>alert(1)</script>"),
        "the label is shown as text"
    );
    check_page(&mut browser, "device");
    assert_eq!(
        browser.eval("document.querySelectorAll('#typical img').length"),
        json!(1),
        "the device page shows a typical result's card"
    );

    // Two results ticked and compared.
    browser.eval(
        "document.querySelectorAll('input[name=ids]').forEach(b => b.checked = true); \
         document.querySelector('input[name=ids]').form.submit(); true",
    );
    browser.wait_for("location.pathname === '/compare'");
    let header = browser.eval("document.querySelectorAll('#compare thead th').length");
    assert_eq!(header, json!(3), "the test column and two results");
    let body = browser.eval("document.querySelector('#compare').innerText");
    // 23% apart, two runs and no history of the device: within how far runs wander.
    assert!(body.as_str().unwrap().contains("within noise"), "{body}");
    check_page(&mut browser, "compare");
    // Two devices side by side, each figure's verdict under it: no sideways scroll at 375 px.
    browser.goto(&format!(
        "{url}/compare?devices=sandisk-extreme-pro-128gb,samsung-bar-plus-128gb"
    ));
    let verdicts = browser.eval("document.querySelectorAll('#compare .verdict').length");
    assert!(verdicts.as_u64().unwrap() >= 8, "{verdicts}");
    check_page(&mut browser, "compare-devices");

    // A result's full report.
    browser.goto(&format!("{url}/devices/sandisk-extreme-pro-128gb"));
    browser.eval("document.querySelector('#results tbody a').click(); true");
    browser.wait_for("location.pathname.startsWith('/results/')");
    assert_eq!(
        browser.eval("document.querySelectorAll('#results tbody tr').length"),
        json!(4)
    );
    check_page(&mut browser, "result");

    // Its card to share: the link opens the picture itself.
    browser.eval("document.querySelector('#card').click(); true");
    browser.wait_for("location.pathname.endsWith('/card.png')");
    browser.wait_for("document.images.length === 1 && document.images[0].complete");
    assert_eq!(browser.eval("document.images[0].naturalWidth"), json!(900));
    assert!(
        browser
            .eval("document.images[0].naturalHeight")
            .as_u64()
            .unwrap()
            > 400
    );

    // A long model name on a phone.
    browser.goto(&format!(
        "{url}/devices/kingston-datatraveler-exodia-onyx-with-a-very-long-model-name-128gb"
    ));
    check_page(&mut browser, "long-name");

    // How to get iomark and add a result, reached from any page's header; its commands scroll
    // inside their box, never the page.
    browser.eval("document.querySelector('header a[href=\"/about#yours\"]').click(); true");
    browser.wait_for("location.pathname === '/about'");
    let about = browser.eval("document.querySelector('#yours').innerText");
    assert_eq!(about, json!("Measure yours and add it"));
    check_page(&mut browser, "about");

    // On a laptop every table is whole: no column behind a scroll bar at 1280 px (the
    // leaderboard cut "MB/s per $" at the window's edge while names wrapped, issue 44).
    let mut wide = Browser::open(1280, 900, true);
    for path in [
        "/".to_string(),
        "/?profile=standard&sort=rnd4k_q1_read".to_string(),
        "/devices/sandisk-extreme-pro-128gb".to_string(),
        "/devices/kingston-datatraveler-exodia-onyx-with-a-very-long-model-name-128gb".to_string(),
        "/compare?devices=sandisk-extreme-pro-128gb,samsung-bar-plus-128gb".to_string(),
        format!("/results/{}", ulid(32)),
    ] {
        wide.goto(&format!("{url}{path}"));
        let clipped = wide.eval(
            "Array.from(document.querySelectorAll('.scroll, table')).filter(t => t.scrollWidth > t.clientWidth + 1).map(t => (t.querySelector('table') || t).id + ' ' + t.scrollWidth + '>' + t.clientWidth)",
        );
        assert_eq!(clipped, json!([]), "{path}: tables clipped at 1280 px");
        assert!(!wide.overflows(), "{path}: {}", wide.too_wide());
        if let Ok(keep) = std::env::var("IOMARK_KEEP_SCREENSHOTS") {
            let name: String = path
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .take(40)
                .collect();
            wide.screenshot(&Path::new(&keep).join(format!("wide{name}.png")));
        }
    }
}

/// A result without a price (or without some figure) saved before one with it, on one
/// PostgreSQL connection: sqlx's Any driver declares such a NULL as float4, and a cached
/// statement then refused the next real figure ("incorrect binary data format").
#[test]
fn absent_figures_then_present_ones_save_on_postgres() {
    let pg = Postgres::start();
    let db = pg.database();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut files = Vec::new();
    for n in 0..4u32 {
        let mut d = device_doc(40 + n, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
        d["price_usd"] = if n % 2 == 0 { Value::Null } else { json!(9.5) };
        if n == 0 {
            // No SEQ1M Q8T1 at all: its indexed columns are NULL.
            d["tests"] = json!(d["tests"].as_array().unwrap()[2..].to_vec());
        }
        files.push(write_doc(home, &d));
    }
    ok(iomark(home).arg("import").args(&files).args(["--db", &db]));
    assert_eq!(history_count(&db, home), 4);
}

/// Issue 24: a drive is listed under its own name, whatever it is plugged in through: the
/// same Samsung 860 EVO behind an ASMedia bridge and on a SATA port is one device, found by
/// "samsung 860"; a SanDisk stick the kernel calls rotational is filed as USB flash.
#[test]
fn a_drive_is_found_by_its_own_name_in_any_enclosure() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &NO_LIMITS);
    let url = site.url.clone();
    let size = 500_107_862_016u64;
    let mut bridged = device_doc(
        1,
        "Samsung",
        "SSD 860 EVO 500G",
        0.1,
        "Raspberry Pi 4 Model B",
    );
    bridged["target"]["device"]["size_bytes"] = json!(size);
    bridged["target"]["device"]["usb"] = json!({
        "speed_mbps": 5000.0, "driver": "uas", "vendor_id": "174c", "product_id": "55aa",
        "manufacturer": "ASMedia", "product": "ASM1153E",
        "bridge": "ASMedia ASM1051E/ASM1053E/ASM1153E (SATA)"
    });
    let mut sata = device_doc(2, "ATA", "Samsung SSD 860", 0.1, "Raspberry Pi 5 Model B");
    let device = &mut sata["target"]["device"];
    device["transport"] = json!("sata");
    device["size_bytes"] = json!(size);
    device["usb"] = Value::Null;
    device["drive_model"] = json!("Samsung SSD 860 EVO 500GB");
    device["rotation_rpm"] = json!(0);
    let mut stick = device_doc(3, "SanDisk", "Cruzer Blade", 0.02, "Raspberry Pi 4 Model B");
    stick["target"]["device"]["rotational"] = json!(true);
    stick["target"]["device"]["usb"]["vendor_id"] = json!("0781");
    // Three owners, each from a network of their own.
    for (n, d) in (1..).zip([&bridged, &sata, &stick]) {
        let answer = post_as(n, &format!("{url}/api/v1/results"), d);
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
    let board = get(&format!("{url}/api/v1/leaderboard?q=samsung%20860")).json();
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{board}");
    assert_eq!(devices[0]["name"], "Samsung SSD 860 EVO 500 GB", "{board}");
    assert_eq!(devices[0]["results"], 2, "{board}");
    // Nothing is named after the bridge.
    let bridge = get(&format!("{url}/api/v1/leaderboard?q=asmedia")).json();
    assert_eq!(bridge["devices"].as_array().unwrap().len(), 0, "{bridge}");
    let flash = get(&format!("{url}/api/v1/leaderboard?kind=USB%20flash")).json();
    let names: Vec<&str> = flash["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert_eq!(names, ["SanDisk Cruzer Blade 128 GB"], "{flash}");
    let hdd = get(&format!("{url}/api/v1/leaderboard?kind=USB%20HDD")).json();
    assert_eq!(hdd["devices"].as_array().unwrap().len(), 0, "{hdd}");
}

/// Issue 24: after a submission, the site says where the result stands among its own model
/// and its kind on its board, figure by figure, and says when there are too few to tell.
#[test]
fn submit_says_where_the_result_stands_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    standing(dir.path().join("site.db").to_str().unwrap());
}

#[test]
fn submit_says_where_the_result_stands_on_postgres() {
    let pg = Postgres::start();
    standing(&pg.database());
}

fn standing(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let site = Site::start(db, home, &NO_LIMITS);
    let url = site.url.clone();
    let board = "Raspberry Pi 4 Model B";
    let send = |n: u32, scale: f64| -> String {
        let file = write_doc(home, &device_doc(n, "SanDisk", "Extreme Pro", scale, board));
        ok(iomark(home).arg("import").arg(&file));
        let out = ok(iomark(home).args(["submit", "latest", "--server", &url, "--yes"]));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The first of its model: nothing to place it among.
    let first = send(1, 0.1);
    assert!(first.contains("Where it stands on"), "{first}");
    assert!(
        first.contains("too few results to place it yet (0 other USB flash results on Raspberry Pi 4 Model B, 0 other SanDisk Extreme Pro 128 GB results)"),
        "{first}"
    );
    for n in 2..=7 {
        let d = device_doc(
            n,
            "SanDisk",
            "Extreme Pro",
            0.1 + f64::from(n) / 100.0,
            board,
        );
        assert_eq!(post(&format!("{url}/api/v1/results"), &d).status, 201);
    }
    // A slow one among seven others of its model: the slowest fifth, and what to check.
    let slow = send(8, 0.05);
    assert!(
        slow.contains(
            "SEQ1M Q8T1 read 100 MB/s: in the slowest fifth (faster than 0%) of 7 other \
             SanDisk Extreme Pro 128 GB results (their median 280 MB/s)\n"
        ),
        "{slow}"
    );
    assert!(
        slow.contains(
            "SEQ1M Q8T1 read, SEQ1M Q8T1 write, SEQ1M Q1T1 read, SEQ1M Q1T1 write, RND4K Q32T1 \
             read, RND4K Q32T1 write, RND4K Q1T1 read, RND4K Q1T1 write are in the slowest fifth \
             of SanDisk Extreme Pro 128 GB: the same model does better elsewhere, so check the \
             slot, adapter, cable or power"
        ),
        "{slow}"
    );
    // The API's 201 carries the same, as figures.
    let fast = device_doc(9, "SanDisk", "Extreme Pro", 0.3, board);
    let answer = post(&format!("{url}/api/v1/results"), &fast);
    assert_eq!(answer.status, 201);
    let standing = &answer.json()["standing"];
    let first_figure = &standing["figures"][0];
    assert_eq!(first_figure["metric"], "seq1m_q8_read", "{standing}");
    assert_eq!(first_figure["model"]["results"], 8, "{standing}");
    assert_eq!(first_figure["model"]["percentile"], 100.0, "{standing}");
    assert_eq!(first_figure["kind"]["results"], 8, "{standing}");
    assert!(
        standing["summary"]
            .as_str()
            .unwrap()
            .contains("fastest fifth"),
        "{standing}"
    );
    // A result kept out of rankings is placed nowhere.
    let mut cached = device_doc(10, "SanDisk", "Extreme Pro", 0.3, board);
    cached["target"]["device"]["usb"]["speed_mbps"] = json!(480.0);
    let answer = post(&format!("{url}/api/v1/results"), &cached);
    assert_eq!(answer.status, 201);
    assert_eq!(answer.json()["standing"], Value::Null);
}

/// A site on PostgreSQL searches names along a trigram index (pg_trgm) of the devices' rows of
/// all results, with a generic plan too, finds a board's devices by name, and drops the index
/// of every row that earlier versions made; a user who may not add the extension still gets a
/// site that starts, finds devices by name, and says at start why searches are slower.
#[test]
fn searches_on_postgres_read_a_trigram_index_where_they_may() {
    let pg = Postgres::start();
    let dir = tempfile::tempdir().unwrap();
    let name = |url: &str| url.rsplit('/').next().unwrap().to_string();
    let owned = pg.database();
    Site::start(&owned, dir.path(), &["--submissions-per-minute", "0"]).stop();
    // The index an earlier version made, and enough ranked devices that the planner reads
    // the names' index rather than each of them (20,000, in no search's answer).
    let figures = "seq1m_q8_read, seq1m_q8_write, seq1m_q1_read, seq1m_q1_write, \
                   rnd4k_q32_read, rnd4k_q32_write, rnd4k_q1_read, rnd4k_q1_write, score";
    pg.psql(
        &name(&owned),
        &format!(
            "CREATE INDEX devices_names_trgm ON devices USING gin (names gin_trgm_ops); \
             INSERT INTO devices (class, scope, device_key, device_name, kind, results, \
             synthetic, stats, names, {figures}) SELECT 'standard/direct/random', s, \
             'filler-' || i, 'Filler ' || i, 'ssd', 1, 0, '{{}}', 'filler-' || i, \
             i, i, i, i, i, i, i, i, i FROM generate_series(1, 20000) i, \
             (VALUES (''), ('board:Raspberry Pi 4 Model B')) AS scopes(s); ANALYZE devices; \
             ALTER DATABASE {} SET plan_cache_mode = force_generic_plan",
            name(&owned)
        ),
    );
    let mut site = Site::start(&owned, dir.path(), &["--submissions-per-minute", "0"]);
    let doc = device_doc(1, "SanDisk", "Extreme Pro", 0.1, "Raspberry Pi 4 Model B");
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc).status,
        201
    );
    for query in [
        "q=extreme+pro",
        "q=extreme&board=Raspberry%20Pi%204%20Model%20B",
    ] {
        let found = get(&format!("{}/api/v1/leaderboard?{query}", site.url)).json();
        let keys: Vec<&Value> = found["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| &d["key"])
            .collect();
        assert_eq!(keys, ["sandisk-extreme-pro-128gb"], "{query}: {found}");
    }
    site.stop();
    // Each server connection's counts reach the statistics as it closes.
    let scans = || {
        pg.psql(
            &name(&owned),
            "SELECT COALESCE(sum(idx_scan), 0) FROM pg_stat_user_indexes \
             WHERE indexrelname = 'devices_names_trgm_all'",
        )
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while scans() == "0" && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        scans(),
        "1",
        "the search of all results read the trigram index of their rows (a board's, its own)"
    );
    let old = pg.psql(
        &name(&owned),
        "SELECT count(*) FROM pg_indexes WHERE indexname = 'devices_names_trgm'",
    );
    assert_eq!(old, "0", "the index of every row is dropped");

    // A user who may make tables in the database but not add extensions to it.
    let theirs = pg.database();
    pg.psql(
        &name(&theirs),
        "CREATE ROLE lesser LOGIN; GRANT USAGE, CREATE ON SCHEMA public TO lesser",
    );
    let url = theirs.replacen("iomark@", "lesser@", 1);
    assert_ne!(url, theirs);
    let log = dir.path().join("serve.log");
    let mut command = Site::command(&url, dir.path(), &["--submissions-per-minute", "0"]);
    command.stderr(std::fs::File::create(&log).unwrap());
    let mut site = Site::launch(command);
    let doc = device_doc(1, "SanDisk", "Extreme Pro", 0.1, "Raspberry Pi 4 Model B");
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc).status,
        201
    );
    let found = get(&format!("{}/api/v1/leaderboard?q=extreme", site.url)).json();
    assert_eq!(
        found["devices"][0]["key"], "sandisk-extreme-pro-128gb",
        "{found}"
    );
    site.stop();
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        said.contains("searches by name read every device of a class") && said.contains("pg_trgm"),
        "{said}"
    );
    let indexes = pg.psql(
        &name(&theirs),
        "SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'devices_names_trgm%'",
    );
    assert_eq!(indexes, "0");
}

/// A submission forgets the answers it may change and keeps the other devices' pages: after a
/// result of one device, its page and the leaderboards are drawn anew (and show it), while
/// another device's page is still served from the cache; the same when a result is deleted.
#[test]
fn a_submission_keeps_the_other_devices_pages() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(
        db.to_str().unwrap(),
        dir.path(),
        &["--submissions-per-minute", "0", "--cache-seconds", "600"],
    );
    let url = site.url.clone();
    let submit = |n: u32, model: &str| {
        let doc = device_doc(n, "SanDisk", model, 0.1, "Raspberry Pi 5");
        let answer = post_as(n as u8, &format!("{url}/api/v1/results"), &doc);
        assert_eq!(answer.status, 201);
        answer.json()["token"].as_str().unwrap().to_string()
    };
    submit(1, "Extreme Pro");
    submit(2, "Ultra");
    let (a, b) = (
        "/devices/sandisk-extreme-pro-128gb",
        "/devices/sandisk-ultra-128gb",
    );
    let kept = |path: &str| {
        let answer = get(&format!("{url}{path}"));
        assert_eq!(answer.status, 200, "{path}");
        let age = answer
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("age"));
        (age, answer.body)
    };
    for path in [a, b, "/", "/api/v1/leaderboard"] {
        kept(path);
        assert!(kept(path).0, "{path} is served from the cache once drawn");
    }
    let before = kept(a).1;
    assert!(before.contains("(1)"), "{before}");
    let token = submit(3, "Extreme Pro");
    let (from_cache, page) = kept(a);
    assert!(!from_cache, "its own device's page is drawn anew");
    assert!(page.contains("(2)"), "{page}");
    assert!(kept(b).0, "another device's page stays in the cache");
    assert!(!kept("/").0, "a leaderboard is drawn anew");
    let board = kept("/api/v1/leaderboard").1;
    assert!(board.contains("\"results\":2"), "{board}");

    let deleted = http(
        "DELETE",
        &format!("{url}/api/v1/results/{}", ulid(3)),
        None,
        Some(&token),
    );
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let (from_cache, page) = kept(a);
    assert!(
        !from_cache,
        "the deleted result's device's page is drawn anew"
    );
    assert!(page.contains("(1)"), "{page}");
    assert!(kept(b).0, "another device's page stays in the cache");
    let board = kept("/api/v1/leaderboard").1;
    assert!(board.contains("\"results\":1"), "{board}");
}

/// Issue 44: on a device with 5,750 results, `?mine=` for its 5,201st-newest said it was "not
/// among" the device's results: the page reads a class's newest 5,000. Yours is looked up by
/// its id and placed among those. (The sample here is 50, `--standing-sample`, as the site's
/// 5,000 would take 5,000 results to reach.)
#[test]
fn where_mine_stands_is_found_among_all_of_its_devices_results() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let docs = home.join("docs");
    std::fs::create_dir(&docs).unwrap();
    const RESULTS: u32 = 60;
    let files: Vec<_> = (1..=RESULTS)
        .map(|n| {
            let scale = 0.02 + f64::from(n % 50) / 1000.0;
            let d = device_doc(
                n,
                "Kingston",
                "DataTraveler Exodia",
                scale,
                "Raspberry Pi 4 Model B",
            );
            write_doc(&docs, &d)
        })
        .collect();
    ok(iomark(home).arg("import").args(&files).arg("--db").arg(&db));
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--standing-sample", "50"]);
    let site = Site::start(db.to_str().unwrap(), home, &args);
    let url = &site.url;
    let oldest = ulid(1);
    let listed = get(&format!("{url}/api/v1/results/{oldest}")).json();
    let key = listed["device_key"].as_str().unwrap();
    let value = listed["figures"]["seq1m_q8_read"].as_f64().unwrap();
    let api = get(&format!("{url}/api/v1/devices/{key}?mine={oldest}")).json();
    assert_eq!(api["mine"]["found"], true, "{}", api["mine"]);
    assert_eq!(api["mine"]["value"].as_f64(), Some(value));
    assert_eq!(api["mine"]["others"], 50, "placed among the newest 50");
    let page = get(&format!("{url}/devices/{key}?mine={oldest}")).body;
    assert!(!page.contains("not among"), "the page says it is not found");
}

/// Issue 44: an unknown path under /api/v1 answered an HTML page; the API answers JSON.
#[test]
fn an_unknown_api_path_answers_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    for path in ["/api/v1/nope", "/api/v2/results", "/api"] {
        let answer = get(&format!("{}{path}", site.url));
        assert_eq!(answer.status, 404, "{path}");
        assert!(
            answer.json()["error"].is_string(),
            "{path}: {}",
            answer.body
        );
    }
    let page = get(&format!("{}/nope", site.url));
    assert_eq!(page.status, 404);
    assert!(page.body.contains("<html"), "{}", page.body);
}

/// Issue 44: a result's page showed where on the submitter's machine it ran.
#[test]
fn a_results_page_shows_no_local_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let mut d = device_doc(1, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    d["target"]["path"] = json!("/media/alice/secret-card");
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &d).status,
        201
    );
    for path in [
        format!("/results/{}", ulid(1)),
        format!("/api/v1/results/{}", ulid(1)),
        "/api/v1/results?documents=1".to_string(),
    ] {
        let answer = get(&format!("{}{path}", site.url));
        assert_eq!(answer.status, 200, "{path}");
        assert!(
            !answer.body.contains("secret-card"),
            "{path}: {}",
            answer.body
        );
    }
}

/// Issue 44: "not ranked" gave its reason only in a tooltip, which a phone cannot show. The
/// newest results' list and the result's own page say it in their text.
#[test]
fn a_result_that_is_not_ranked_says_why_in_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let mut d = device_doc(
        1,
        "Kingston",
        "DataTraveler Exodia",
        0.15,
        "Raspberry Pi 3 Model B",
    );
    d["target"]["device"]["usb"]["speed_mbps"] = json!(480.0);
    let receipt = post(&format!("{}/api/v1/results", site.url), &d);
    assert_eq!(receipt.status, 201, "{}", receipt.body);
    let flag = receipt.json()["flag"]
        .as_str()
        .expect("flagged")
        .to_string();
    let board = get(&format!("{}/", site.url)).body;
    assert!(
        board.contains("<details class=\"flag\"><summary>not ranked</summary>"),
        "{board}"
    );
    assert!(!board.contains("title=\"not ranked"), "{board}");
    let page = get(&format!("{}/results/{}", site.url, ulid(1))).body;
    assert!(page.contains("Not ranked: "), "{page}");
    assert!(!flag.is_empty());
}

/// Issue 44: right after a submission the profile menu said "standard · 0 devices" beside a
/// table of one: the menus were read at most every 30 s. A write forgets them.
#[test]
fn the_menus_count_what_the_table_beside_them_shows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let before = get(&format!("{}/", site.url)).body;
    assert!(
        before.contains("No device has ranked results here yet."),
        "{before}"
    );
    let d = device_doc(1, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &d).status,
        201
    );
    let after = get(&format!("{}/", site.url)).body;
    assert!(after.contains("standard · 1 device<"), "{after}");
    assert!(after.contains("SanDisk Ultra"), "{after}");
}

/// Issue 44: documents were stored as sent: 754 KB each, with 20,000 timeline samples and an
/// unknown array of 150,000 elements, accepted and dumped to everyone. A site keeps at most
/// what iomark makes (docs/API.md says how much).
#[test]
fn a_site_refuses_documents_beyond_what_iomark_makes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let url = format!("{}/api/v1/results", site.url);
    let mut long = device_doc(1, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    let samples: Vec<Value> = (0..20_000)
        .map(|i| json!({"t": f64::from(i) / 10.0, "mb_per_s": 100.0}))
        .collect();
    long["tests"][0]["timeline"] = json!(samples);
    let answer = post(&url, &long);
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert!(answer.body.contains("timeline samples"), "{}", answer.body);
    // Neither was kept.
    let listed = get(&format!("{}/api/v1/results", site.url)).json();
    assert_eq!(listed["results"], json!([]), "{listed}");
    // Fields the site does not know are not kept at all (issue 59, its one intake): the
    // result is, without them, and nothing of them is dumped or shown.
    let mut padded = device_doc(2, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    padded["unknown"] = json!(vec![0u8; 150_000]);
    padded["tests"][0]["newer"] = json!("a newer iomark's field");
    let answer = post(&url, &padded);
    assert_eq!(answer.status, 201, "{}", answer.body);
    let kept = get(&format!("{url}/{}", ulid(2)));
    assert!(
        !kept.body.contains("unknown") && !kept.body.contains("newer"),
        "{}",
        kept.body
    );
}

/// Issue 44: a stored result is at most 64 kB. An hour-long write, a sample a second (what
/// the pi profile's long test may send; 177 kB as sent here), is kept (49 kB, its timeline in
/// 900 samples of 4 s) with its timeline merged into longer samples, says so on its page and in its document, and is answered alike when its
/// submitter sends it again; a result that does not fit even so is refused in one line.
#[test]
fn a_site_keeps_at_most_64_kb_of_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let url = format!("{}/api/v1/results", site.url);
    let mut long = device_doc(1, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    let samples: Vec<Value> = (0..3600)
        .map(|i| {
            let rate = if i < 1200 { 91.234567 } else { 23.456789 };
            json!({"t": f64::from(i), "mb_per_s": rate, "temp_c": 40.0 + f64::from(i % 30)})
        })
        .collect();
    // One loop of the hour, its bytes those the timeline draws, its latencies a full queue's.
    let moved = (1200.0 * 91.234567 + 2400.0 * 23.456789) * 1e6;
    let ios = (moved / f64::from(1 << 20)) as u64;
    let (bytes, iops) = (ios << 20, ios as f64 / 3600.0);
    let rate = bytes as f64 / 3600.0 / 1e6;
    let mean = 8e6 / iops * 0.9;
    let test = &mut long["tests"][1];
    test["loops"] = json!([{"mb_per_s": rate, "iops": iops, "bytes": bytes, "ios": ios,
                            "seconds": 3600.0}]);
    (test["mb_per_s"], test["iops"], test["cv"]) = (json!(rate), json!(iops), json!(0.0));
    test["latency_us"] = json!({"min": mean * 0.1, "mean": mean, "p50": mean * 0.9,
        "p90": mean * 1.5, "p99": mean * 3.0, "p99_9": mean * 7.0, "max": mean * 20.0,
        "stddev": mean * 0.3});
    test["timeline"] = json!(samples);
    let sent = long.to_string().len();
    assert!(sent > 150_000, "{sent}");
    let token = "t".repeat(40);
    let header = format!("Authorization: Bearer {token}");
    let from = "127.0.1.1";
    let (status, receipt) =
        from_address_with("POST", &url, from, Some(&long.to_string()), &[&header]);
    assert_eq!(status, 201, "{receipt}");
    let id = long["id"].as_str().unwrap();
    let kept = get(&format!("{url}/{id}")).json()["document"].clone();
    let stored = serde_json::to_string(&kept).unwrap().len();
    assert!(stored <= 64_000, "{stored} bytes kept");
    let timeline = kept["tests"][1]["timeline"].as_array().unwrap();
    assert!(
        timeline.len() < 3600 && timeline.len() >= 50,
        "{}",
        timeline.len()
    );
    // Each kept sample is the mean of the seconds it joins: the first third at 91.2 MB/s, the
    // rest at 23.5, and the hottest of their temperatures.
    assert!((timeline[0]["mb_per_s"].as_f64().unwrap() - 91.234567).abs() < 1e-6);
    assert!((timeline.last().unwrap()["mb_per_s"].as_f64().unwrap() - 23.456789).abs() < 1e-6);
    assert!(timeline[0]["temp_c"].as_f64().unwrap() > 40.0);
    // Every figure as sent.
    assert_eq!(kept["tests"][1]["mb_per_s"], long["tests"][1]["mb_per_s"]);
    assert_eq!(kept["tests"][1]["loops"], long["tests"][1]["loops"]);
    let warning = kept["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "thinned")
        .unwrap_or_else(|| panic!("no thinned warning: {}", kept["warnings"]));
    let said = warning["message"].as_str().unwrap();
    assert!(said.contains("the longest had 3600"), "{said}");
    let page = get(&format!("{}/results/{id}", site.url)).body;
    assert!(
        page.contains("A site keeps at most 64 kB of a result"),
        "{page}"
    );
    // Its answer lost, the submitter sends it again: the same receipt, the result stored once.
    let (again, second) =
        from_address_with("POST", &url, from, Some(&long.to_string()), &[&header]);
    assert_eq!(again, 201, "{second}");
    let (first, second): (Value, Value) = (
        serde_json::from_str(&receipt).unwrap(),
        serde_json::from_str(&second).unwrap(),
    );
    assert_eq!(first["token"], second["token"]);

    // 64 tests of 100 loops each: 790 kB sent, over 64 kB however the timelines are thinned.
    let mut wide = device_doc(2, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
    let test = wide["tests"][0].clone();
    let tests: Vec<Value> = (0..64)
        .map(|n| {
            let mut t = test.clone();
            t["name"] = json!(format!("custom{n}"));
            t["loops"] = json!(vec![test["loops"][1].clone(); 100]);
            t
        })
        .collect();
    wide["tests"] = json!(tests);
    let answer = post(&url, &wide);
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert!(
        answer
            .body
            .contains("a site keeps at most 64 kB of one result"),
        "{}",
        answer.body
    );
    let listed = get(&format!("{}/api/v1/results", site.url)).json();
    assert_eq!(listed["results"].as_array().unwrap().len(), 1, "{listed}");
}

/// A device's page shows its medians by system, as by board (issue 44): one card on Raspbian
/// and on Oracle Linux with its UEK kernel, as one of the posts iomark grew from set them.
#[test]
fn a_device_page_shows_its_figures_by_system() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let url = site.url.clone();
    let systems = [
        ("Raspbian GNU/Linux 10 (buster)", "4.19.66-v7+", 0.1),
        ("Raspbian GNU/Linux 10 (buster)", "4.19.75-v7+", 0.11),
        (
            "Oracle Linux Server 7.6",
            "4.14.35-1902.0.18.el7uek.aarch64",
            0.2,
        ),
    ];
    for (n, (os, kernel, scale)) in (1..).zip(systems) {
        let mut doc = device_doc(n, "SanDisk", "Ultra", scale, "Raspberry Pi 3 Model B+");
        doc["host"]["os"] = json!(os);
        doc["host"]["kernel"] = json!(kernel);
        let answer = post_as(n as u8, &format!("{url}/api/v1/results"), &doc);
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
    let view = get(&format!("{url}/api/v1/devices/sandisk-ultra-128gb")).json();
    let systems: Vec<(String, u64)> = view["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["system"].as_str().unwrap().to_string(),
                s["results"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        systems,
        [
            ("Raspbian GNU/Linux 10 (buster) · Linux 4.19".to_string(), 2),
            ("Oracle Linux Server 7.6 · Linux 4.14".to_string(), 1)
        ],
        "{view}"
    );
    let page = get(&format!("{url}/devices/sandisk-ultra-128gb")).body;
    assert!(page.contains("<h2>By system</h2>"), "{page}");
    assert!(
        page.contains("Oracle Linux Server 7.6 · Linux 4.14"),
        "{page}"
    );
}
