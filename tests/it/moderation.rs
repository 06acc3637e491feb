//! The moderators' API on a real `iomark serve`, on SQLite and a private PostgreSQL: hiding and
//! restoring a result changes every page, list and aggregate at once and lasts across a
//! restart; nothing happens without the secret; every action is in the audit.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::site::{device_doc, get, http, post, post_as, redirect, ulid, Site};
use crate::common::{iomark, Postgres};

pub(crate) const SECRET: &str = "moderators-secret-0123456789abcdef-xyz";

pub(crate) fn secret_file(dir: &Path, mode: u32) -> String {
    let file = dir.join("admin-token");
    std::fs::write(&file, format!("{SECRET}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    file.display().to_string()
}

pub(crate) fn act(
    url: &str,
    action: &str,
    id: &str,
    reason: &str,
    token: Option<&str>,
) -> (u16, Value) {
    let body = serde_json::to_vec(&json!({ "reason": reason })).unwrap();
    let answer = http(
        "POST",
        &format!("{url}/api/v1/admin/results/{id}/{action}"),
        Some(&body),
        token,
    );
    let value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    (answer.status, value)
}

/// The leaderboard's count and median for the one device, and whether the listing has `id`.
fn seen(url: &str, id: &str) -> (u64, f64, bool) {
    let board = get(&format!("{url}/api/v1/leaderboard?q=moderated")).json();
    let device = &board["devices"][0];
    let listed = get(&format!("{url}/api/v1/results?limit=500")).json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == id);
    (
        device["results"].as_u64().unwrap_or(0),
        device["figure"]["median"].as_f64().unwrap_or(0.0),
        listed,
    )
}

/// A site with the moderators' secret, on `db` (else a SQLite file of its own), with no limit
/// on submissions: the site first, so that it stops before its folder goes.
fn moderated_site(db: Option<&str>) -> (Site, tempfile::TempDir) {
    site_with_secret(db, &["--submissions-per-minute", "0"])
}

/// A site with the moderators' secret and `extra` arguments, on `db` (else a SQLite file of
/// its own): the site first, so that it stops before its folder goes.
pub(crate) fn site_with_secret(db: Option<&str>, extra: &[&str]) -> (Site, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let token_file = secret_file(dir.path(), 0o600);
    let db = db.map_or_else(
        || dir.path().join("site.db").display().to_string(),
        str::to_string,
    );
    let mut args = extra.to_vec();
    args.extend(["--admin-token-file", &token_file]);
    (Site::start(&db, dir.path(), &args), dir)
}

/// A result faster than its USB 2 link carries: kept, not ranked, and so listed for review.
fn too_fast(n: u32) -> Value {
    let mut doc = device_doc(n, "Moderated", "Card", 0.15, "Raspberry Pi 3 Model B");
    doc["target"]["device"]["usb"]["speed_mbps"] = json!(480.0);
    doc
}

fn moderation(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let token_file = secret_file(home, 0o600);
    let args = [
        "--submissions-per-minute",
        "0",
        "--admin-token-file",
        &token_file,
    ];
    let mut site = Site::start(db, home, &args);
    let url = site.url.clone();
    let mut tokens = Vec::new();
    for (n, scale) in [(71, 0.10), (72, 0.12), (73, 0.14)] {
        let doc = device_doc(n, "Moderated", "Card", scale, "Raspberry Pi 4 Model B");
        let receipt = post(&format!("{url}/api/v1/results"), &doc);
        assert_eq!(receipt.status, 201, "{}", receipt.body);
        tokens.push(receipt.json()["token"].as_str().unwrap().to_string());
    }
    let (hidden_id, before) = (ulid(73), seen(&url, &ulid(73)));
    assert_eq!(before, (3, 240.0, true));

    // Without the secret, or with another, nothing happens.
    for token in [None, Some("wrong"), Some(&tokens[2][..])] {
        assert_eq!(act(&url, "hide", &hidden_id, "spam", token).0, 401);
        assert_eq!(
            http("GET", &format!("{url}/api/v1/admin/audit"), None, token).status,
            401
        );
    }
    assert_eq!(seen(&url, &hidden_id), before);
    // A reason is required.
    assert_eq!(act(&url, "hide", &hidden_id, " ", Some(SECRET)).0, 400);

    // Hidden: gone from its page, the API, the listing and the device's aggregates.
    let (status, answer) = act(&url, "hide", &hidden_id, "an abusive label", Some(SECRET));
    assert_eq!((status, &answer["hidden"]), (200, &json!(hidden_id)));
    assert_eq!(seen(&url, &hidden_id), (2, 220.0, false));
    assert_eq!(get(&format!("{url}/results/{hidden_id}")).status, 404);
    assert_eq!(
        get(&format!("{url}/api/v1/results/{hidden_id}")).status,
        404
    );
    assert_eq!(act(&url, "hide", &hidden_id, "again", Some(SECRET)).0, 409);
    assert_eq!(
        act(&url, "hide", "01JNOSUCHRESULT0000000000", "x", Some(SECRET)).0,
        404
    );
    // The audit, read by a moderator, is never served from the cache to anyone else.
    let audit = http(
        "GET",
        &format!("{url}/api/v1/admin/audit"),
        None,
        Some(SECRET),
    )
    .json();
    assert_eq!(audit["audit"][0]["action"], "hide");
    assert_eq!(audit["audit"][0]["target"], json!(hidden_id));
    assert_eq!(audit["audit"][0]["reason"], "an abusive label");
    assert_eq!(
        http("GET", &format!("{url}/api/v1/admin/audit"), None, None).status,
        401
    );

    // Still hidden after the site is started again (the store backfills missing facts).
    site.stop();
    let mut site = Site::start(db, home, &args);
    let url = site.url.clone();
    assert_eq!(seen(&url, &hidden_id), (2, 220.0, false));

    // Restored: back everywhere, and still its submitter's to delete.
    let (status, _) = act(
        &url,
        "restore",
        &hidden_id,
        "label <reviewed> & kept",
        Some(SECRET),
    );
    assert_eq!(status, 200);
    assert_eq!(seen(&url, &hidden_id), before);
    assert_eq!(
        act(&url, "restore", &hidden_id, "again", Some(SECRET)).0,
        409
    );
    let audit = http(
        "GET",
        &format!("{url}/api/v1/admin/audit"),
        None,
        Some(SECRET),
    )
    .json();
    let actions: Vec<&str> = audit["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["restore", "hide"]);
    assert_eq!(audit["audit"][0]["reason"], "label <reviewed> & kept");
    // Written as every answer of the site is, no markup to a browser (the twelfth attack
    // pass: the moderators' answers wrote a stranger's `<` raw).
    let raw = http(
        "GET",
        &format!("{url}/api/v1/admin/audit"),
        None,
        Some(SECRET),
    )
    .body;
    assert!(
        raw.contains("label \\u003creviewed\\u003e \\u0026 kept"),
        "{raw}"
    );
    // A hidden result's submitter can still delete it with the token.
    assert_eq!(
        act(&url, "hide", &ulid(71), "checking", Some(SECRET)).0,
        200
    );
    let deleted = http(
        "DELETE",
        &format!("{url}/api/v1/results/{}", ulid(71)),
        None,
        Some(&tokens[0]),
    );
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert_eq!(act(&url, "restore", &ulid(71), "gone", Some(SECRET)).0, 404);
    assert_eq!(seen(&url, &ulid(71)).0, 2);

    // The results to review: those kept out of rankings.
    assert_eq!(
        post(&format!("{url}/api/v1/results"), &too_fast(74)).status,
        201
    );
    let review = http(
        "GET",
        &format!("{url}/api/v1/admin/review"),
        None,
        Some(SECRET),
    )
    .json();
    let ids: Vec<&str> = review["review"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&ulid(74).as_str()), "{review}");

    // One card listed under two names, merged: its results are filed under the other, new ones
    // too, and its old address leads there.
    for n in [75, 76] {
        let doc = device_doc(n, "Moderated", "Card Twin", 0.2, "Raspberry Pi 4 Model B");
        assert_eq!(
            post_as(n as u8, &format!("{url}/api/v1/results"), &doc).status,
            201
        );
    }
    let (twin, card) = ("moderated-card-twin-128gb", "moderated-card-128gb");
    let merge = |from: &str, into: &str, token: Option<&str>| {
        let body = serde_json::to_vec(&json!({ "into": into, "reason": "one card" })).unwrap();
        http(
            "POST",
            &format!("{url}/api/v1/admin/devices/{from}/merge"),
            Some(&body),
            token,
        )
        .status
    };
    let devices = || -> Vec<(String, u64)> {
        get(&format!("{url}/api/v1/leaderboard?q=moderated")).json()["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["key"].as_str().unwrap().to_string(),
                    d["results"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(devices().len(), 2, "{:?}", devices());
    assert_eq!(merge(twin, card, None), 401);
    assert_eq!(merge(card, card, Some(SECRET)), 422);
    assert_eq!(merge(twin, "no-such-device", Some(SECRET)), 404);
    assert_eq!(devices().len(), 2, "nothing changed");
    assert_eq!(merge(twin, card, Some(SECRET)), 200);
    assert_eq!(devices(), [(card.to_string(), 4)]);
    // Its old addresses lead to the card's, for the page and the API alike.
    for path in ["/devices", "/api/v1/devices"] {
        let moved = redirect(&format!("{url}{path}/{twin}?profile=standard"));
        assert_eq!(
            moved,
            (301, Some(format!("{card}?profile=standard"))),
            "{path}"
        );
    }
    assert_eq!(
        get(&format!("{url}/devices/{twin}")).status,
        200,
        "followed"
    );
    assert_eq!(merge(card, twin, Some(SECRET)), 422, "back into itself");
    // A new result of the merged name is filed under the card, also after a restart.
    site.stop();
    let mut site = Site::start(db, home, &args);
    let url = site.url.clone();
    let total = || {
        get(&format!("{url}/api/v1/devices/{card}")).json()["results_total"]
            .as_u64()
            .unwrap()
    };
    let before = total(); // the card's answer, now cached
    let doc = device_doc(77, "Moderated", "Card Twin", 0.2, "Raspberry Pi 4 Model B");
    let receipt = post(&format!("{url}/api/v1/results"), &doc).json();
    assert_eq!(
        total(),
        before + 1,
        "the card's answer is drawn anew at once"
    );
    // Its standing is among the card's results, where it was filed.
    let model = &receipt["standing"]["figures"][0]["model"];
    assert_eq!(model["results"], 4, "{receipt}");
    let board = get(&format!("{url}/api/v1/leaderboard?q=moderated")).json();
    assert_eq!(board["devices"].as_array().unwrap().len(), 1, "{board}");
    assert_eq!(board["devices"][0]["results"], 5);
    let audit = http(
        "GET",
        &format!("{url}/api/v1/admin/audit"),
        None,
        Some(SECRET),
    )
    .json();
    assert_eq!(audit["audit"][0]["action"], "merge");
    assert_eq!(audit["audit"][0]["target"], format!("{twin} into {card}"));

    // One of its results hidden on its own first (an abusive label): a device's restore does
    // not bring it back (the eleventh attack pass).
    let alone = receipt["id"].as_str().unwrap().to_string();
    let body = serde_json::to_vec(&json!({ "reason": "an abusive label" })).unwrap();
    let hide_alone = http(
        "POST",
        &format!("{url}/api/v1/admin/results/{alone}/hide"),
        Some(&body),
        Some(SECRET),
    );
    assert_eq!(hide_alone.status, 200, "{}", hide_alone.body);
    // A whole device hidden (its flagged result too), and brought back with every result its
    // hide hid.
    let device = |action: &str, token: Option<&str>| {
        let body = serde_json::to_vec(&json!({ "reason": "a fake card" })).unwrap();
        http(
            "POST",
            &format!("{url}/api/v1/admin/devices/{card}/{action}"),
            Some(&body),
            token,
        )
    };
    assert_eq!(device("hide", None).status, 401);
    let hidden = device("hide", Some(SECRET));
    assert_eq!(hidden.status, 200, "{}", hidden.body);
    assert_eq!(hidden.json()["hidden"], 5, "four ranked and one flagged");
    assert_eq!(
        get(&format!("{url}/api/v1/leaderboard?q=moderated")).json()["devices"],
        json!([])
    );
    assert_eq!(get(&format!("{url}/devices/{card}")).status, 404);
    assert_eq!(get(&format!("{url}/results/{}", ulid(72))).status, 404);
    assert_eq!(
        device("hide", Some(SECRET)).status,
        404,
        "nothing left to hide"
    );
    let restored = device("restore", Some(SECRET));
    assert_eq!(restored.json()["restored"], 5);
    let board = get(&format!("{url}/api/v1/leaderboard?q=moderated")).json();
    assert_eq!(board["devices"][0]["results"], 4, "{board}");
    assert_eq!(get(&format!("{url}/api/v1/results/{alone}")).status, 404);
    let audit = http(
        "GET",
        &format!("{url}/api/v1/admin/audit"),
        None,
        Some(SECRET),
    )
    .json();
    assert_eq!(
        audit["audit"][0]["target"],
        format!("device {card} (5 results)")
    );
    site.stop();
}

#[test]
fn moderators_hide_and_restore_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    moderation(&dir.path().join("site.db").display().to_string());
}

#[test]
fn moderators_hide_and_restore_on_postgres() {
    let pg = Postgres::start();
    moderation(&pg.database());
}

#[test]
fn without_a_secret_there_is_no_admin_api_and_a_loose_secret_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db").display().to_string();
    let site = Site::start(&db, home, &[]);
    let answer = http(
        "GET",
        &format!("{}/api/v1/admin/review", site.url),
        None,
        Some(SECRET),
    );
    assert_eq!(answer.status, 404);
    drop(site);
    // A secret others can read, a short one, a missing file: one line, no site.
    let loose = secret_file(home, 0o644);
    let line = crate::common::refused(iomark(home).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        &db,
        "--admin-token-file",
        &loose,
    ]));
    assert!(line.contains("can be read by others"), "{line}");
    std::fs::write(&loose, "short").unwrap();
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o600)).unwrap();
    let line = crate::common::refused(iomark(home).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        &db,
        "--admin-token-file",
        &loose,
    ]));
    assert!(line.contains("at least 32 characters"), "{line}");
    let line = crate::common::refused(iomark(home).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        &db,
        "--admin-token-file",
        "/no/such/file",
    ]));
    assert!(line.contains("--admin-token-file"), "{line}");
}

/// A device's key changed by new rules (here: the store edited as if older rules had filed its
/// results under another key) is remembered: the old address leads to the new one.
#[test]
fn a_key_new_rules_change_leads_to_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let db_text = db.display().to_string();
    let mut site = Site::start(&db_text, home, &["--submissions-per-minute", "0"]);
    let doc = device_doc(81, "Moderated", "Card", 0.1, "Raspberry Pi 4 Model B");
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc).status,
        201
    );
    site.stop();
    let script = "import sqlite3, sys\n\
                  c = sqlite3.connect(sys.argv[1])\n\
                  c.execute(\"UPDATE entries SET device_key = 'old-rules-card'\")\n\
                  c.execute(\"UPDATE devices SET device_key = 'old-rules-card'\")\n\
                  c.execute(\"UPDATE meta SET value = '0' WHERE name = 'rules'\")\n\
                  c.commit()\n";
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&db)
        .status()
        .expect("python3 (with its sqlite3 module) edits the store as older rules left it");
    assert!(status.success());
    let site = Site::start(&db_text, home, &["--submissions-per-minute", "0"]);
    assert_eq!(
        redirect(&format!("{}/devices/old-rules-card", site.url)),
        (301, Some("moderated-card-128gb".to_string()))
    );
    assert_eq!(
        get(&format!("{}/devices/old-rules-card", site.url)).status,
        200
    );
    assert_eq!(get(&format!("{}/devices/never-was", site.url)).status, 404);
}

/// Review lists a ranked result far outside its model's others (with the figure and the
/// model's spread), a result held for being far beyond its device's own median, and the first
/// result of a device nobody else measured; not a result within the spread.
fn unusual_results_are_reviewed(db: &str) {
    let (site, _dir) = moderated_site(Some(db));
    let url = &site.url;
    // Six results of one card near 40 MB/s, one at 180 MB/s (within its USB 3 link, and
    // within 5 times its median: ranked, an outlier); a second model with four results, one of
    // them at 240 MB/s (6 times its median: it waits, issue 59); one new device.
    let scales = [0.020, 0.021, 0.019, 0.020, 0.022, 0.020, 0.09];
    // Each result from an owner of its own (a network of its own).
    for (n, scale) in (81..).zip(scales) {
        let doc = device_doc(n, "Spread", "Card", scale, "Raspberry Pi 4 Model B");
        assert_eq!(
            post_as(n as u8, &format!("{url}/api/v1/results"), &doc).status,
            201
        );
    }
    for (n, scale) in (91..).zip([0.020, 0.021, 0.019, 0.12]) {
        let doc = device_doc(n, "Few", "Card", scale, "Raspberry Pi 4 Model B");
        assert_eq!(
            post_as(n as u8, &format!("{url}/api/v1/results"), &doc).status,
            201
        );
    }
    let doc = device_doc(99, "Brand New", "Stick", 0.02, "Raspberry Pi 4 Model B");
    assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 201);
    let review = http(
        "GET",
        &format!("{url}/api/v1/admin/review"),
        None,
        Some(SECRET),
    )
    .json();
    let outliers = review["outliers"].as_array().unwrap();
    assert_eq!(outliers.len(), 1, "{review}");
    let far = &outliers[0];
    assert_eq!(far["id"], ulid(87));
    assert_eq!(far["device_name"], "Spread Card 128 GB", "{far}");
    assert!(far["ranges_out"].as_f64().unwrap() >= 3.0, "{far}");
    let value = far["value"].as_f64().unwrap();
    assert!(value > far["model"]["p75"].as_f64().unwrap(), "{far}");
    assert_eq!(far["model"]["n"], 7, "{far}");
    let waits = review["review"].as_array().unwrap();
    assert_eq!(waits.len(), 1, "{review}");
    assert_eq!(waits[0]["id"], ulid(94));
    let flag = waits[0]["flag"].as_str().unwrap();
    assert!(flag.contains("this device's own median"), "{flag}");
    let new: Vec<&Value> = review["new_devices"].as_array().unwrap().iter().collect();
    assert_eq!(new.len(), 1, "{review}");
    assert_eq!(new[0]["id"], ulid(99));
    // Not for anyone else.
    let refused = http("GET", &format!("{url}/api/v1/admin/review"), None, None);
    assert_eq!(refused.status, 401);
    assert!(!refused.body.contains("outliers"));
}

#[test]
fn unusual_results_are_reviewed_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    unusual_results_are_reviewed(&dir.path().join("site.db").display().to_string());
}

#[test]
fn unusual_results_are_reviewed_on_postgres() {
    let pg = Postgres::start();
    unusual_results_are_reviewed(&pg.database());
}

/// A request to the moderators' page: its status, `Location` and body. `basic` is the password
/// sent as HTTP Basic credentials, `origin` the form's Origin.
fn page(
    method: &str,
    url: &str,
    basic: Option<&str>,
    origin: Option<&str>,
    form: &str,
) -> (u16, Option<String>, String) {
    use base64::Engine;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
    let auth = basic.map(|p| {
        let pair = base64::engine::general_purpose::STANDARD.encode(format!("moderator:{p}"));
        format!("Basic {pair}")
    });
    let mut answer = if method == "GET" {
        let mut request = agent.get(url);
        if let Some(auth) = &auth {
            request = request.header("authorization", auth);
        }
        request.call()
    } else {
        let mut request = agent
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded");
        if let Some(auth) = &auth {
            request = request.header("authorization", auth);
        }
        // "null;same-origin": Origin null, as from a no-referrer page, and Sec-Fetch-Site.
        let (origin, fetch_site) = match origin.and_then(|o| o.split_once(';')) {
            Some((origin, site)) => (Some(origin), Some(site)),
            None => (origin, None),
        };
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        if let Some(site) = fetch_site {
            request = request.header("sec-fetch-site", site);
        }
        request.send(form)
    }
    .unwrap();
    let location = answer
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .map(str::to_string);
    let body = answer.body_mut().read_to_string().unwrap_or_default();
    (answer.status().as_u16(), location, body)
}

/// A site with a public address over HTTPS takes a moderator's form from that origin alone:
/// not from its host over plain HTTP (where anyone on the way can write the page), nor
/// from the address it listens at.
#[test]
fn a_form_is_taken_from_the_public_origin_alone() {
    let (site, _dir) = site_with_secret(
        None,
        &[
            "--submissions-per-minute",
            "0",
            "--public-url",
            "https://results.example/",
        ],
    );
    let url = &site.url;
    let fine = device_doc(63, "Moderated", "Card", 0.02, "Raspberry Pi 4 Model B");
    assert_eq!(post(&format!("{url}/api/v1/results"), &fine).status, 201);
    let hide = format!("{url}/moderate/results/{}/hide", ulid(63));
    for from in [
        "http://results.example",
        "https://results.example:8443",
        "https://evil.example",
        "https://results.example/",
        url.as_str(),
    ] {
        let (status, _, body) = page("POST", &hide, Some(SECRET), Some(from), "reason=spam");
        assert_eq!(status, 403, "{from}: {body}");
    }
    assert_eq!(
        get(&format!("{url}/api/v1/results/{}", ulid(63))).status,
        200
    );
    // Its own origin, as a browser writes it (no default port), or with one.
    let (status, _, _) = page(
        "POST",
        &hide,
        Some(SECRET),
        Some("https://Results.example:443"),
        "reason=spam",
    );
    assert_eq!(status, 303);
    assert_eq!(
        get(&format!("{url}/api/v1/results/{}", ulid(63))).status,
        404
    );
}

/// The moderators' page: asks for the secret (Basic), lists what to review, hides and restores
/// through its forms only when they come from the site itself, and is never served from the
/// cache to anyone else.
#[test]
fn the_moderators_page_hides_and_restores() {
    let (site, _dir) = moderated_site(None);
    let url = &site.url;
    let origin = url.as_str();
    assert_eq!(
        post(&format!("{url}/api/v1/results"), &too_fast(61)).status,
        201
    );
    let fine = device_doc(62, "Moderated", "Card", 0.02, "Raspberry Pi 4 Model B");
    assert_eq!(post(&format!("{url}/api/v1/results"), &fine).status, 201);
    let moderate = format!("{url}/moderate");
    // Without the secret, or with another: asked for it, shown nothing.
    for basic in [None, Some("wrong")] {
        let (status, _, body) = page("GET", &moderate, basic, None, "");
        assert_eq!(status, 401, "{body}");
        assert!(!body.contains(&ulid(61)), "{body}");
    }
    let (status, _, body) = page("GET", &moderate, Some(SECRET), None, "");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(&format!("/moderate/results/{}/hide", ulid(61))),
        "{body}"
    );
    assert!(body.contains("USB link"), "why it is flagged: {body}");
    // What a moderator saw is not served to the next visitor.
    assert_eq!(page("GET", &moderate, None, None, "").0, 401);
    let hide = format!("{url}/moderate/results/{}/hide", ulid(62));
    // A form from elsewhere (a browser sends Basic credentials with it) is refused; so is one
    // from this host under another scheme (the tenth attack pass: `https://` was taken).
    let other_scheme = origin.replace("http://", "https://");
    for from in [
        None,
        Some(other_scheme.as_str()),
        Some("http://evil.example"),
        Some("null"),
        Some("null;cross-site"),
        Some("http://evil.example;same-origin"),
    ] {
        let (status, _, body) = page("POST", &hide, Some(SECRET), from, "reason=spam");
        assert_eq!(status, 403, "{from:?}: {body}");
    }
    assert_eq!(
        page("POST", &hide, None, Some(origin), "reason=spam").0,
        401
    );
    assert_eq!(
        page("POST", &hide, Some(SECRET), Some(origin), "reason=").0,
        400
    );
    assert_eq!(
        get(&format!("{url}/api/v1/results/{}", ulid(62))).status,
        200
    );
    let (status, location, _) = page(
        "POST",
        &hide,
        Some(SECRET),
        Some(origin),
        "reason=an+abusive+label",
    );
    assert_eq!(status, 303);
    let location = location.unwrap();
    assert_eq!(location, format!("/moderate?done=hidden&id={}", ulid(62)));
    // A link cannot make the page say what it likes.
    let (_, _, forged) = page(
        "GET",
        &format!("{url}/moderate?done=Send+your+secret+to+evil.example&id=x"),
        Some(SECRET),
        None,
        "",
    );
    assert!(!forged.contains("evil.example"), "{forged}");
    assert_eq!(
        get(&format!("{url}/api/v1/results/{}", ulid(62))).status,
        404
    );
    let (_, _, body) = page("GET", &format!("{url}{location}"), Some(SECRET), None, "");
    assert!(
        body.contains(&format!("Result {} is hidden.", ulid(62))),
        "{body}"
    );
    assert!(body.contains("an abusive label"), "the audit: {body}");
    let restore = format!("{url}/moderate/results/{}/restore", ulid(62));
    assert!(body.contains(&format!(
        "action=\"/moderate/results/{}/restore\"",
        ulid(62)
    )));
    let again = page("POST", &hide, Some(SECRET), Some(origin), "reason=twice");
    assert_eq!(again.0, 409, "{}", again.2);
    let (status, _, _) = page(
        "POST",
        &restore,
        Some(SECRET),
        Some(origin),
        "reason=reviewed",
    );
    assert_eq!(status, 303);
    assert_eq!(
        get(&format!("{url}/api/v1/results/{}", ulid(62))).status,
        200
    );
}

/// Without a secret the site has no moderators' page at all.
#[test]
fn without_a_secret_there_is_no_moderators_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db").display().to_string();
    let site = Site::start(&db, dir.path(), &[]);
    let moderate = format!("{}/moderate", site.url);
    assert_eq!(page("GET", &moderate, Some(SECRET), None, "").0, 404);
}

/// A moderator in a real browser: the page at a phone's width, a reason typed and the form
/// sent as Chromium sends it (its own Origin), and the result gone from the site.
#[test]
fn a_moderator_hides_a_result_in_a_browser() {
    use crate::common::cdp::Browser;
    use base64::Engine;
    let (site, _dir) = moderated_site(None);
    let url = &site.url;
    let mut fast = too_fast(51);
    fast["label"] = json!("a label that says something nobody should read on a public site");
    assert_eq!(post(&format!("{url}/api/v1/results"), &fast).status, 201);
    let mut browser = Browser::open(375, 800, true);
    browser.call("Network.enable", json!({}), true);
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("m:{SECRET}"));
    browser.call(
        "Network.setExtraHTTPHeaders",
        json!({"headers": {"Authorization": format!("Basic {basic}")}}),
        true,
    );
    browser.goto(&format!("{url}/moderate"));
    assert!(!browser.overflows(), "{}", browser.too_wide());
    assert_eq!(
        browser.eval("document.querySelectorAll('#flagged li').length"),
        json!(1)
    );
    browser.eval(
        "const f = document.querySelector('#flagged form'); \
         f.querySelector('input[name=reason]').value = 'an abusive label'; f.submit(); true",
    );
    browser.wait_for("location.search.includes('done=')");
    let done = browser.eval("document.querySelector('#done').innerText");
    assert_eq!(done, json!(format!("Result {} is hidden.", ulid(51))));
    assert_eq!(
        browser.eval("document.querySelectorAll('#audit form').length"),
        json!(1),
        "its restore form"
    );
    assert!(!browser.overflows(), "{}", browser.too_wide());
    assert_eq!(
        get(&format!("{url}/api/v1/results/{}", ulid(51))).status,
        404
    );
}
