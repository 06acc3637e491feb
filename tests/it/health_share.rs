//! Issue 48, its last part: a card's health shared with a results site (`iomark health
//! --share`, `POST /api/v1/card-health`), and what the model's page then says of the cards
//! watched. The checks are real ones, made here; their card's name and the months between them
//! are set as a card's probe and a timer would give them (this machine's disks name no model,
//! and a life takes months). The client's whole path, on drives that name themselves, runs in
//! `tests/virtual-pi` (its `disks` machine shares an NVMe drive's health with a site on this
//! host).

use std::path::Path;

use serde_json::{json, Value};

use crate::common::postgres::Postgres;
use crate::common::site::{from_address_with, get, http, Site, NO_LIMITS};
use crate::common::{iomark, ok};

const KEY: &str = "card-key-of-the-test-0000000000000000000";
const MODEL: &str = "sandisk-ultra-life-test";

/// A real health check of `dir` (its store in `home`), as the document it writes.
fn real_check(home: &Path, dir: &Path) -> Value {
    let out = home.join("check.json");
    ok(iomark(home)
        .arg("health")
        .arg(dir)
        .args(["--no-save", "--json"])
        .arg(&out));
    serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap()
}

/// `check` as made `days` after the first of its card's life, on a card named SanDisk "Ultra
/// Life Test", its device having written `per_day` bytes a day since the check before, with
/// `verdict`.
fn lived(check: &Value, n: u32, days: u64, per_day: Option<u64>, verdict: &str) -> Value {
    let mut check = check.clone();
    // 2026-03-01 and on: ids in the order of the times, as a machine's own would be.
    let at = 1_772_323_200 + days * 86_400;
    check["id"] = json!(format!("01KCARD{n:019}"));
    let time = |s: u64| {
        humantime::format_rfc3339(std::time::UNIX_EPOCH + std::time::Duration::from_secs(s))
            .to_string()
    };
    check["started_at"] = json!(time(at));
    check["finished_at"] = json!(time(at + 1));
    check["target"]["path"] = json!("");
    check["target"]["device"] = json!({
        "name": "mmcblk0", "model": "Ultra Life Test", "vendor": "SanDisk",
        "size_bytes": null, "transport": "sd", "rotational": false,
        "logical_block_size": 512, "physical_block_size": 512, "scheduler": "none",
        "stack": []
    });
    check["health"]["verdict"] = json!(verdict);
    check["health"]["written_per_day_bytes"] = json!(per_day);
    check
}

fn share(url: &str, key: Option<&str>, checks: &[&Value]) -> crate::common::site::Answer {
    let body = serde_json::to_vec(&checks).unwrap();
    http(
        "POST",
        &format!("{url}/api/v1/card-health"),
        Some(&body),
        key,
    )
}

/// The cards block of the model's API answer.
fn cards(url: &str) -> Value {
    let answer = get(&format!("{url}/api/v1/devices/{MODEL}"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()["cards"].clone()
}

/// A card's life told in order: the model's page counts it, says when it began to lie and
/// what it had written by then; each way a share can be wrong is refused with its reason; one
/// address's drawer of cards counts as a household; the card withdrawn with its key is gone.
fn a_life(url: &str, home: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let first = real_check(home, dir.path());
    assert_eq!(first["health"]["verdict"], "healthy");
    let life = [
        lived(&first, 1, 0, None, "healthy"),
        lived(&first, 2, 60, Some(2_000_000_000), "healthy"),
        lived(&first, 3, 120, Some(2_000_000_000), "lying"),
    ];
    let answer = share(url, Some(KEY), &[&life[0], &life[1]]);
    assert_eq!(answer.status, 201, "{}", answer.body);
    let receipt = answer.json();
    assert_eq!(
        (receipt["added"].as_u64(), receipt["again"].as_u64()),
        (Some(2), Some(0))
    );
    assert_eq!(receipt["device"], MODEL);
    assert!(receipt["url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/devices/{MODEL}")));
    // Sent again with the next: counted once.
    let answer = share(url, Some(KEY), &[&life[1], &life[2]]);
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert_eq!(answer.json()["added"], 1);
    assert_eq!(answer.json()["again"], 1);
    let record = cards(url);
    assert_eq!(record["cards"], 1);
    assert_eq!(record["now"], json!([["lying", 1]]));
    let failed = &record["failed"][0];
    assert_eq!(failed["verdict"], "lying");
    assert!(
        (failed["months"].as_f64().unwrap() - 120.0 / 30.4375).abs() < 0.01,
        "{failed}"
    );
    // 60 days at 2 GB, twice.
    assert!(
        (failed["written_tb"].as_f64().unwrap() - 0.24).abs() < 1e-9,
        "{failed}"
    );
    // The page: a model with no result yet tells its cards alone.
    let page = get(&format!("{url}/devices/{MODEL}"));
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("Cards watched over time"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(
            "1 card of this model is watched by its owner, for 3.9 months so far. 1 failed: lying \
         about what it stores after 3.9 months and 0.24 TB written."
        ),
        "{}",
        page.body
    );
    assert!(page.body.contains("id=\"noresults\""));

    refusals(url, &first, &life);
    household(url, &life[0]);

    // Withdrawn with its key (another key withdraws nothing).
    let gone = http(
        "DELETE",
        &format!("{url}/api/v1/card-health"),
        None,
        Some(&"x".repeat(40)),
    );
    assert_eq!(gone.status, 404, "{}", gone.body);
    let gone = http(
        "DELETE",
        &format!("{url}/api/v1/card-health"),
        None,
        Some(KEY),
    );
    assert_eq!(gone.status, 200, "{}", gone.body);
    assert_eq!(gone.json()["checks"], 3);
    assert_eq!(cards(url)["cards"], 4);
    assert_eq!(cards(url)["failed"], json!([]));
}

/// Each way a share can be wrong, refused with what is wrong, nothing added.
fn refusals(url: &str, first: &Value, life: &[Value; 3]) {
    let said = |answer: crate::common::site::Answer, status: u16, words: &str| {
        assert_eq!(answer.status, status, "{words}: {}", answer.body);
        assert!(answer.body.contains(words), "{words}: {}", answer.body);
    };
    said(
        share(url, None, &[&life[0]]),
        401,
        "Authorization: Bearer KEY",
    );
    said(
        share(url, Some("short"), &[&life[0]]),
        400,
        "32 to 128 letters",
    );
    let other = "another-card-key-00000000000000000000000";
    said(
        share(url, Some(other), &[&life[0]]),
        409,
        "under another card's key",
    );
    // Older than the card's newest: a life is told in order.
    let older = lived(first, 9, 100, None, "healthy");
    said(
        share(url, Some(KEY), &[&older]),
        400,
        "older than the card's newest",
    );
    let mut future = lived(first, 10, 0, None, "healthy");
    future["started_at"] = json!("2099-01-01T00:00:00Z");
    future["finished_at"] = json!("2099-01-01T00:00:01Z");
    said(share(url, Some(other), &[&future]), 422, "is in the future");
    let mut past = lived(first, 13, 0, None, "healthy");
    past["started_at"] = json!("2020-01-01T00:00:00Z");
    past["finished_at"] = json!("2020-01-01T00:00:01Z");
    said(
        share(url, Some(other), &[&past]),
        422,
        "not a time a check can have been made",
    );
    let mut nameless = lived(first, 11, 200, None, "healthy");
    nameless["target"]["device"] = Value::Null;
    said(
        share(url, Some(other), &[&nameless]),
        422,
        "names no device",
    );
    let run = crate::common::doc(
        &crate::common::site::ulid(1),
        "2026-05-01T00:00:00Z",
        &[],
        0.0,
    );
    said(share(url, Some(other), &[&run]), 422, "not a health check");
    let wild = lived(first, 12, 200, Some(u64::MAX / 2), "healthy");
    said(share(url, Some(other), &[&wild]), 422, "petabyte a day");
    said(share(url, Some(other), &[]), 422, "send 1 to 100");
    let many: Vec<Value> = (0..101)
        .map(|i| lived(first, 100 + i, 300, None, "healthy"))
        .collect();
    said(
        share(url, Some(other), &many.iter().collect::<Vec<_>>()),
        422,
        "send 1 to 100",
    );
    // A card's check is no run: the results' door says where it goes.
    let answer = http(
        "POST",
        &format!("{url}/api/v1/results"),
        Some(life[0].to_string().as_bytes()),
        None,
    );
    said(answer, 422, "/api/v1/card-health");
    assert_eq!(cards(url)["cards"], 1);
}

/// Six cards from another address: four of them count (a household's), beside the first.
fn household(url: &str, check: &Value) {
    for i in 0..6u32 {
        let mut card = check.clone();
        card["id"] = json!(format!("01KDRAWER{i:017}"));
        let key = format!("Authorization: Bearer drawer-card-key-{i}-000000000000000000000");
        let body = serde_json::to_string(&[card]).unwrap();
        let (status, body) = from_address_with(
            "POST",
            &format!("{url}/api/v1/card-health"),
            "127.0.9.1",
            Some(&body),
            &[&key],
        );
        assert_eq!(status, 201, "{body}");
    }
    let record = cards(url);
    assert_eq!(
        (record["cards"].as_u64(), record["submitters"].as_u64()),
        (Some(5), Some(2))
    );
}

#[test]
fn a_cards_shared_life_is_told_on_its_models_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    a_life(&site.url, dir.path());
}

#[test]
fn a_cards_shared_life_is_told_on_its_models_page_on_postgres() {
    let pg = Postgres::start();
    let dir = tempfile::tempdir().unwrap();
    let site = Site::start(&pg.database(), dir.path(), &NO_LIMITS);
    a_life(&site.url, dir.path());
}

/// Beside the model's results: the page shows both, and the API answer has the record.
#[test]
fn a_models_page_with_results_tells_its_cards_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let card = tempfile::tempdir().unwrap();
    let check = lived(&real_check(dir.path(), card.path()), 1, 0, None, "healthy");
    let mut run = crate::common::doc(
        &crate::common::site::ulid(7),
        "2026-05-01T00:00:00Z",
        &[],
        0.0,
    );
    run["target"]["device"] = check["target"]["device"].clone();
    let posted = crate::common::site::post(&format!("{}/api/v1/results", site.url), &run);
    assert_eq!(posted.status, 201, "{}", posted.body);
    assert_eq!(share(&site.url, Some(KEY), &[&check]).status, 201);
    let page = get(&format!("{}/devices/{MODEL}", site.url));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<h2>Medians</h2>"), "{}", page.body);
    assert!(
        page.body
            .contains("1 card of this model is watched by its owner, for under a day so far."),
        "{}",
        page.body
    );
    assert_eq!(cards(&site.url)["cards"], 1);
}

/// Here, where the disk names no model: a share is refused with why, after the check is saved;
/// no key is made for a card no site could file. A site's address that is none is refused
/// before any check, and withdrawing a card never shared says so.
#[test]
fn a_share_says_why_a_disk_without_a_name_cannot_be_shared() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let site = Site::start(
        home.path().join("site.db").to_str().unwrap(),
        home.path(),
        &NO_LIMITS,
    );
    let out = iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(["--share", &site.url])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("tells no model"), "{said}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Saved as"));
    assert!(!dir.path().join("iomark-health/share.json").exists());
    let other = tempfile::tempdir().unwrap();
    let out = iomark(home.path())
        .arg("health")
        .arg(other.path())
        .args(["--share", "ftp://example.org"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--share: 'ftp://example.org' is not a site's address"));
    assert!(!other.path().join("iomark-health").exists());
    let out = iomark(home.path())
        .arg("health")
        .arg(dir.path())
        .args(["--unshare", &site.url])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not shared with"));
}

/// The record as a person sees it, on a phone and a laptop: the cards' sentence whole and in
/// view, no page wider than its screen, for a model with results and for one with cards alone.
/// Screenshots are left in `IOMARK_SHOTS` where it is set, to be looked at.
#[test]
fn a_models_cards_read_whole_at_375_and_1280_px() {
    use crate::common::cdp::Browser;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    let card = tempfile::tempdir().unwrap();
    let first = real_check(dir.path(), card.path());
    let life = [
        lived(&first, 1, 0, None, "healthy"),
        lived(&first, 2, 90, Some(5_000_000_000), "watch"),
        lived(&first, 3, 200, Some(5_000_000_000), "failing"),
    ];
    assert_eq!(
        share(&site.url, Some(KEY), &life.iter().collect::<Vec<_>>()).status,
        201
    );
    let mut other = lived(&first, 4, 10, None, "healthy");
    other["target"]["device"]["model"] = json!("Extreme Shot Test");
    let mut run = crate::common::doc(
        &crate::common::site::ulid(8),
        "2026-05-01T00:00:00Z",
        &[],
        0.0,
    );
    run["target"]["device"] = other["target"]["device"].clone();
    let posted = crate::common::site::post(&format!("{}/api/v1/results", site.url), &run);
    assert_eq!(posted.status, 201, "{}", posted.body);
    let key = "second-card-key-of-the-test-000000000000";
    assert_eq!(share(&site.url, Some(key), &[&other]).status, 201);
    let shots = std::env::var_os("IOMARK_SHOTS").map(std::path::PathBuf::from);
    for (width, mobile) in [(375, true), (1280, false)] {
        let mut browser = Browser::open(width, 800, mobile);
        for model in [MODEL, "sandisk-extreme-shot-test"] {
            browser.goto(&format!("{}/devices/{model}", site.url));
            assert!(
                !browser.overflows(),
                "{model} at {width} px: {}",
                browser.too_wide()
            );
            let seen = browser.eval(
                "(() => { const p = document.getElementById('cards'); const r = p.getBoundingClientRect(); \
                 return [p.innerText, r.left >= 0 && r.right <= window.innerWidth]; })()",
            );
            assert!(
                seen[0].as_str().unwrap().contains("of this model"),
                "{seen}"
            );
            assert_eq!(seen[1], json!(true), "{model} at {width} px: {seen}");
            if let Some(shots) = &shots {
                browser.screenshot(&shots.join(format!("cards-{model}-{width}.png")));
            }
        }
    }
}

/// The published dump holds the shared checks (a third file, `card-health.csv.gz`): each card
/// by its key's hash, never who shared it; a withdrawn card leaves it at once, as a deleted
/// result does.
#[test]
fn the_dump_publishes_the_cards_checks_and_forgets_a_withdrawn_card() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let dumps = dir.path().join("dumps");
    let mut args = NO_LIMITS.to_vec();
    let dumps_arg = dumps.to_str().unwrap();
    args.extend(["--dump-every", "1s", "--dump-dir", dumps_arg]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let url = &site.url;
    let card = tempfile::tempdir().unwrap();
    let first = real_check(dir.path(), card.path());
    let life = [
        lived(&first, 1, 0, None, "healthy"),
        lived(&first, 2, 60, Some(2_000_000_000), "watch"),
        lived(&first, 3, 120, Some(2_000_000_000), "lying"),
    ];
    assert_eq!(
        share(url, Some(KEY), &life.iter().collect::<Vec<_>>()).status,
        201
    );
    let dump_where = |wanted: &dyn Fn(&Value) -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let answer = get(&format!("{url}/api/v1/dump"));
            if answer.status == 200 && wanted(&answer.json()) {
                return answer.json();
            }
            assert!(std::time::Instant::now() < deadline, "{}", answer.body);
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    let index = dump_where(&|d| d["card_checks"] == 3);
    let files = crate::common::site::dump_files(url, &index);
    let (name, table) = &files[2];
    assert_eq!(name, "card-health.csv.gz");
    let rows: Vec<&str> = table.lines().collect();
    assert!(
        rows[0].starts_with("# iomark cards' health checks shared with"),
        "{table}"
    );
    assert_eq!(
        rows[1],
        "check,card,device_key,device_name,checked_at,verdict,written_bytes_since_first_shared_check"
    );
    let hash: String = <sha2::Sha256 as sha2::Digest>::digest(KEY.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(rows.len(), 5, "{table}");
    assert_eq!(
        rows[4],
        format!("01KCARD0000000000000000003,{hash},{MODEL},SanDisk Ultra Life Test,2026-06-29T00:00:00Z,lying,240000000000")
    );
    // Seven columns a row: never who shared it.
    assert!(
        rows[2..].iter().all(|r| r.split(',').count() == 7),
        "{table}"
    );
    // Withdrawn: the dump that held it is not served; the next holds none of it.
    let gone = http(
        "DELETE",
        &format!("{url}/api/v1/card-health"),
        None,
        Some(KEY),
    );
    assert_eq!(gone.status, 200);
    let index = dump_where(&|d| d["card_checks"] == 0);
    let files = crate::common::site::dump_files(url, &index);
    assert_eq!(files[2].1.lines().count(), 2, "{}", files[2].1);
}
