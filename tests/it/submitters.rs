//! Submitters, not submissions (issue 44), on a real `iomark serve` under its default limits,
//! on SQLite and a private PostgreSQL: one address or one installation weighs once in a
//! device's name, kind, what it is sold as and medians, however often it sends; a result that
//! calls an established device something else, and a result of a device far beyond
//! the fastest of its kind, wait for a moderator before they rank.

use serde_json::{json, Value};

use crate::common::site::{device_doc, from_address_with, get, post, post_as, ulid, Site};
use crate::common::Postgres;
use crate::moderation::{act, site_with_secret, SECRET};

/// A site under the default limits, with the moderators' secret.
fn site(db: Option<&str>) -> (Site, tempfile::TempDir) {
    site_with_secret(db, &[])
}

/// A Samsung 980 PRO on NVMe, `scale` times the base figures (SEQ1M Q8T1 read 2000 MB/s).
fn nvme(n: u32, vendor: &str, scale: f64) -> Value {
    let mut d = device_doc(n, vendor, "980 PRO", scale, "Raspberry Pi 5 Model B");
    let device = &mut d["target"]["device"];
    device["name"] = json!("nvme0n1");
    device["transport"] = json!("nvme");
    device["usb"] = Value::Null;
    d
}

/// The one device a search for `q` finds on the leaderboard.
fn device(url: &str, q: &str) -> Value {
    let board = get(&format!("{url}/api/v1/leaderboard?q={q}")).json();
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{board}");
    devices[0].clone()
}

fn one_address_weighs_once(db: Option<&str>) {
    let (site, _dir) = site(db);
    let url = &site.url;
    let results = format!("{url}/api/v1/results");
    // Four owners, each from a network of their own: 2000, 2020, 2040, 2060 MB/s.
    for n in 1..=4u8 {
        let doc = nvme(n.into(), "Samsung", 1.0 + f64::from(n - 1) / 100.0);
        assert_eq!(post_as(n, &results, &doc).status, 201);
    }
    let honest = device(url, "980");
    assert_eq!(honest["name"], "Samsung 980 PRO 128 GB", "{honest}");
    assert_eq!(honest["figure"]["median"], 2030.0, "{honest}");
    assert_eq!(honest["submitters"], 4, "{honest}");

    // One address, within the default limits: six results calling it a USB stick sold as a
    // fake, slow, and six more as an NVMe drive spelt otherwise, sold as a fake, slow.
    let fake = "CHEAP FAKE - buy at scam.example";
    for n in 0..6u32 {
        let mut usb = device_doc(20 + n, "SAMSUNG", "980 PRO", 0.2, "Raspberry Pi 5 Model B");
        usb["sold_as"] = json!(fake);
        let answer = post(&results, &usb);
        assert_eq!(answer.status, 201, "{}", answer.body);
        let flag = answer.json()["flag"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            flag.contains("calls this device USB flash of 128 GB, where its"),
            "{flag}"
        );
        assert!(flag.contains("submitters call it NVMe of 128 GB"), "{flag}");
        assert!(flag.contains("waits for a moderator"), "{flag}");
        let mut slow = nvme(30 + n, "SAMSUNG", 0.2 + f64::from(n) / 100.0);
        slow["sold_as"] = json!(fake);
        assert_eq!(post(&results, &slow).status, 201);
    }
    let after = device(url, "980");
    assert_eq!(after["key"], honest["key"]);
    assert_eq!(after["name"], "Samsung 980 PRO 128 GB", "{after}");
    assert_eq!(after["kind"], "NVMe", "{after}");
    assert_eq!(after["sold_as"], Value::Null, "{after}");
    // Its one weight: the median of 400-odd, 2000, 2020, 2040, 2060 is 2020, as one result
    // of its own would have made it.
    assert_eq!(after["figure"]["median"], 2020.0, "{after}");
    assert_eq!(after["figure"]["n"], 5, "{after}");
    assert_eq!(
        (&after["submitters"], &after["results"]),
        (&json!(5), &json!(10))
    );
    // The results that called it something else wait for a moderator, listed for review.
    let review = crate::common::site::http(
        "GET",
        &format!("{url}/api/v1/admin/review"),
        None,
        Some(SECRET),
    )
    .json();
    let waiting: Vec<&Value> = review["review"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["waits"] == true)
        .collect();
    assert_eq!(waiting.len(), 6, "{review}");
    // The device's page says how many its figures come from.
    let key = after["key"].as_str().unwrap();
    let page = get(&format!("{url}/devices/{key}")).body;
    assert!(
        page.contains("10 results ranked from 5 submitters"),
        "{page}"
    );
}

#[test]
fn one_address_weighs_once_on_sqlite() {
    one_address_weighs_once(None);
}

#[test]
fn one_address_weighs_once_on_postgres() {
    let pg = Postgres::start();
    one_address_weighs_once(Some(&pg.database()));
}

/// An installation's key joins the networks it sends from into one submitter, and never
/// splits one network into several.
#[test]
fn an_installation_key_only_joins() {
    let (site, _dir) = site(None);
    let url = &site.url;
    let results = format!("{url}/api/v1/results");
    let send = |n: u32, from: &str, key: Option<&str>| {
        let header = key.map(|k| format!("X-Iomark-Installation: {k}"));
        let doc = nvme(n, "Samsung", 1.0 + f64::from(n) / 100.0);
        from_address_with(
            "POST",
            &results,
            from,
            Some(&doc.to_string()),
            &header.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    };
    let k1 = "installation-one-0123456789abcdef-0123";
    assert_eq!(send(1, "127.0.1.1", Some(k1)).0, 201);
    // The same installation from another network: the same submitter.
    assert_eq!(send(2, "127.0.2.1", Some(k1)).0, 201);
    assert_eq!(device(url, "980")["submitters"], 1);
    // Fresh keys from the first network: still that submitter.
    for (n, key) in [
        (3, "fresh-key-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        (4, "fresh-key-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"),
    ] {
        assert_eq!(send(n, "127.0.1.1", Some(key)).0, 201);
    }
    assert_eq!(device(url, "980")["submitters"], 1);
    // Another network without a key: another submitter.
    assert_eq!(send(5, "127.0.3.1", None).0, 201);
    let row = device(url, "980");
    assert_eq!(
        (&row["submitters"], &row["results"]),
        (&json!(2), &json!(5))
    );
    // A key no installation makes is refused in one line.
    let (status, body) = send(6, "127.0.4.1", Some("short"));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("X-Iomark-Installation"), "{body}");
}

/// The first result of a device far beyond the fastest of its kind here waits, unranked,
/// until a moderator ranks it; so does a later one far beyond the device's own figures.
#[test]
fn a_first_result_far_beyond_its_kind_waits_for_a_moderator() {
    let (site, _dir) = site(None);
    let url = &site.url;
    let results = format!("{url}/api/v1/results");
    // Each stick measured by two households: a yardstick (one household's own models are
    // none, issue 59).
    for (n, model) in [(1, "Stick A"), (2, "Stick B"), (3, "Stick C")] {
        for (k, from) in [(0, n as u8), (100, n as u8 + 100)] {
            let doc = device_doc(
                n + k,
                "Maker",
                model,
                0.02 + f64::from(n) / 1000.0 + f64::from(k) / 100_000.0,
                "Raspberry Pi 4 Model B",
            );
            assert_eq!(post_as(from, &results, &doc).status, 201);
        }
    }
    // 600 MB/s where the fastest USB stick here reads 46: within its USB 3 link, far beyond.
    let far = device_doc(9, "Maker", "Impossible", 0.3, "Raspberry Pi 4 Model B");
    let answer = post_as(9, &results, &far);
    assert_eq!(answer.status, 201, "{}", answer.body);
    let receipt = answer.json();
    let flag = receipt["flag"].as_str().unwrap_or_default();
    assert!(flag.contains("the fastest USB flash here"), "{receipt}");
    assert_eq!(receipt["standing"], Value::Null, "{receipt}");
    let ranked = |q: &str| {
        get(&format!("{url}/api/v1/leaderboard?q={q}")).json()["devices"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(ranked("impossible"), 0);
    let page = get(&format!("{url}/devices/maker-impossible-128gb")).body;
    assert!(page.contains("waits for a moderator"), "{page}");
    // Ranked by a moderator: on the leaderboard, and a second rank is refused.
    let id = ulid(9);
    assert_eq!(act(url, "rank", &id, "a real drive", None).0, 401);
    assert_eq!(act(url, "rank", &id, "a real drive", Some(SECRET)).0, 200);
    assert_eq!(ranked("impossible"), 1);
    assert_eq!(act(url, "rank", &id, "again", Some(SECRET)).0, 409);
    // A later result of a device already here is held against the device's own figures
    // (issue 59: a modest first result, then impossible ones, was never looked at again):
    // 14 times its median waits; twice it does not.
    let later = device_doc(10, "Maker", "Stick A", 0.3, "Raspberry Pi 4 Model B");
    let answer = post_as(10, &results, &later);
    let flag = answer.json()["flag"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(flag.contains("this device's own median"), "{}", answer.body);
    let usual = device_doc(11, "Maker", "Stick A", 0.042, "Raspberry Pi 4 Model B");
    let answer = post_as(11, &results, &usual);
    assert_eq!(answer.json()["flag"], Value::Null, "{}", answer.body);
}

/// Issue 59: a device of a kind the site cannot tell (`other`: a SCSI bridge) had no yardstick,
/// and 126,800 MB/s took rank 1. Its kind is held against the fastest device of any kind.
#[test]
fn an_unknown_kind_is_held_against_every_kind() {
    let (site, _dir) = site(None);
    let url = &site.url;
    let results = format!("{url}/api/v1/results");
    // Three sticks, each measured by two households (a yardstick).
    for n in 1..=3u8 {
        for k in [0, 100] {
            let doc = device_doc(
                u32::from(n + k),
                "Maker",
                &format!("Stick {n}"),
                0.2 + f64::from(k) / 10_000.0,
                "Raspberry Pi 4 Model B",
            );
            assert_eq!(post_as(n + k, &results, &doc).status, 201);
        }
    }
    // 10,000 MB/s (under the 15,754 no drive sold passes, over twice the sticks' 400), each
    // latency as Little's law has it at its queue depth.
    let mut odd = device_doc(9, "Odd", "Bridge", 5.0, "PC");
    for t in odd["tests"].as_array_mut().unwrap() {
        let (iops, depth) = (
            t["iops"].as_f64().unwrap(),
            t["queue_depth"].as_f64().unwrap(),
        );
        t["latency_us"]["mean"] = json!(depth * 1e6 / iops);
        t["latency_us"]["min"] = json!(depth * 0.5e6 / iops);
    }
    odd["target"]["device"] = json!({
        "name": "sdb", "model": "Bridge", "vendor": "Odd", "transport": "scsi",
        "size_bytes": 1_000_204_886_016u64, "rotational": false, "stack": []
    });
    let answer = post_as(9, &results, &odd);
    assert_eq!(answer.status, 201, "{}", answer.body);
    let flag = answer.json()["flag"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        flag.contains("the fastest device of any kind here"),
        "{}",
        answer.body
    );
}

/// A result of the nvme profile: the standard document's tests renamed as the nvme table has
/// them (SEQ128K Q32T1 for SEQ1M Q1T1, RND4K Q32T16 for RND4K Q32T1), `scale` times the base.
fn nvme_profile(n: u32, model: &str, scale: f64) -> Value {
    let mut d = nvme(n, "Samsung", scale);
    d["target"]["device"]["model"] = json!(model);
    d["settings"]["profile"] = json!("nvme");
    for test in d["tests"].as_array_mut().unwrap() {
        let name = test["name"].as_str().unwrap().to_string();
        let (renamed, bs, threads) = if name.starts_with("SEQ1M_Q1T1") {
            (name.replace("SEQ1M_Q1T1", "SEQ128K_Q32T1"), 131_072, 1)
        } else if name.starts_with("RND4K_Q32T1_") {
            (name.replace("RND4K_Q32T1", "RND4K_Q32T16"), 4096, 16)
        } else {
            continue;
        };
        let mb = test["mb_per_s"].as_f64().unwrap();
        test["name"] = json!(renamed);
        test["block_size"] = json!(bs);
        test["queue_depth"] = json!(32);
        test["threads"] = json!(threads);
        test["iops"] = json!(mb * 1e6 / f64::from(bs));
        for l in test["loops"].as_array_mut().unwrap() {
            let mb = l["mb_per_s"].as_f64().unwrap();
            l["iops"] = json!(mb * 1e6 / f64::from(bs));
            l["ios"] = json!((mb * 1e6 / f64::from(bs)) as u64);
        }
    }
    d
}

/// The nvme table's own figures rank on its leaderboard (issue 44): columns of their own, a
/// sort by each, a device's page showing them.
#[test]
fn the_nvme_table_ranks_its_own_figures() {
    let (site, _dir) = site(None);
    let url = &site.url;
    let results = format!("{url}/api/v1/results");
    for (n, model, scale) in [(1, "990 PRO", 1.0), (2, "970 EVO", 0.5)] {
        let answer = post_as(n as u8, &results, &nvme_profile(n, model, scale));
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
    let board = get(&format!(
        "{url}/api/v1/leaderboard?profile=nvme&sort=rnd4k_q32t16_read"
    ))
    .json();
    let columns: Vec<&str> = board["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["figure"].as_str().unwrap())
        .collect();
    for own in [
        "seq128k_q32_read",
        "seq128k_q32_write",
        "rnd4k_q32t16_read",
        "rnd4k_q32t16_write",
    ] {
        assert!(columns.contains(&own), "{own}: {board}");
    }
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2, "{board}");
    assert_eq!(devices[0]["name"], "Samsung 990 PRO 128 GB", "{board}");
    // RND4K Q32T1 read's base, 400 MB/s, in 4 KiB I/Os: 97,656 IOPS.
    assert_eq!(
        devices[0]["figure"]["median"].as_f64().unwrap().round(),
        97_656.0
    );
    let page = get(&format!("{url}/?profile=nvme")).body;
    assert!(page.contains("SEQ128K Q32T1 read"), "{page}");
    let device = get(&format!("{url}/devices/samsung-990-pro-128gb?profile=nvme")).body;
    assert!(device.contains("RND4K Q32T16 write"), "{device}");
    // The standard leaderboard has no such columns.
    let standard = get(&format!("{url}/api/v1/leaderboard")).json();
    assert!(!standard.to_string().contains("seq128k"), "{standard}");
}

/// A drive of `model` on NVMe, `scale` times the base figures (SEQ1M Q8T1 read 2000 MB/s).
fn drive(n: u32, vendor: &str, model: &str, scale: f64) -> Value {
    let mut d = nvme(n, vendor, scale);
    d["target"]["device"]["model"] = json!(model);
    d
}

/// The leaderboard's devices as (key, rank), in order (`url` with a query, if any).
fn ranks(url: &str) -> Vec<(String, Value)> {
    let board = get(&url.replacen("?", "/api/v1/leaderboard?", 1)).json();
    board["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["key"].as_str().unwrap().to_string(), d["rank"].clone()))
        .collect()
}

/// One household's word never ranks a device above others' (issue 59: a look-alike, a hidden
/// device's new spelling, figures no print foresaw each took rank 1 from one client): a
/// device measured from one neighbourhood is listed after every ranked one, unranked, however
/// many results it sends; from a second, it ranks by its figures.
fn one_household_does_not_rank(db: Option<&str>) {
    let (site, _dir) = site(db);
    let url = &site.url;
    let results = format!("{url}/api/v1/results");
    for n in 1..=2u8 {
        assert_eq!(
            post_as(n, &results, &nvme(n.into(), "Samsung", 1.0)).status,
            201
        );
    }
    // Faster, from one household: three results, two of its /24s, one /16.
    for (n, from) in [(11, "127.3.0.1"), (12, "127.3.0.2"), (13, "127.3.9.1")] {
        let doc = drive(n, "Kingston", "KC3000", 1.5).to_string();
        let (status, body) = from_address_with("POST", &results, from, Some(&doc), &[]);
        assert_eq!(status, 201, "{body}");
    }
    let samsung = "samsung-980-pro-128gb".to_string();
    let kingston = "kingston-kc3000-128gb".to_string();
    // The board, and a search (read in one statement) finding both.
    for query in ["?", "?q=128gb", "?kind=NVMe&q=pro+kc3000"] {
        let expected = match query {
            "?kind=NVMe&q=pro+kc3000" => vec![],
            _ => vec![(samsung.clone(), json!(1)), (kingston.clone(), Value::Null)],
        };
        assert_eq!(ranks(&format!("{url}{query}")), expected, "{query}");
    }
    let board = get(&format!("{url}/api/v1/leaderboard")).json();
    assert_eq!(board["corroboration"], 2, "{board}");
    assert_eq!(board["devices"][1]["neighbourhoods"], 1, "{board}");
    let home = get(&format!("{url}/")).body;
    assert!(home.contains("id=\"unranked\""), "{home}");
    assert!(home.contains("<tr><td>–</td>"), "{home}");
    let page = get(&format!("{url}/devices/{kingston}")).body;
    assert!(
        page.contains("not ranked on the leaderboard yet: measured alike from 1 of the 2"),
        "{page}"
    );
    // Someone elsewhere measures one too: it ranks by its figure.
    assert_eq!(
        post_as(4, &results, &drive(14, "Kingston", "KC3000", 1.4)).status,
        201
    );
    for query in ["?", "?q=128gb"] {
        assert_eq!(
            ranks(&format!("{url}{query}")),
            [(kingston.clone(), json!(1)), (samsung.clone(), json!(2))]
        );
    }
    assert!(!get(&format!("{url}/")).body.contains("id=\"unranked\""));
}

#[test]
fn one_household_does_not_rank_on_sqlite() {
    one_household_does_not_rank(None);
}

#[test]
fn one_household_does_not_rank_on_postgres() {
    let pg = Postgres::start();
    one_household_does_not_rank(Some(&pg.database()));
}

/// A site of one network (`--corroboration 1`) ranks every device at once, as your own
/// history does without `--db`.
#[test]
fn a_site_of_one_network_ranks_at_once() {
    let (site, _dir) = site_with_secret(None, &["--corroboration", "1"]);
    let results = format!("{}/api/v1/results", site.url);
    assert_eq!(post(&results, &nvme(1, "Samsung", 1.0)).status, 201);
    assert_eq!(
        post(&results, &drive(2, "Kingston", "KC3000", 1.5)).status,
        201
    );
    assert_eq!(
        ranks(&format!("{}?", site.url)),
        [
            ("kingston-kc3000-128gb".to_string(), json!(1)),
            ("samsung-980-pro-128gb".to_string(), json!(2))
        ]
    );
}
