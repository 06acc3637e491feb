//! What a stranger sends the results site (issue 59), class by class, against a real server:
//! whatever a document holds, each page of it is drawn at once and a stopped site stops;
//! what was deleted stays deleted; figures no storage gives do not rank; one household is
//! one voice. Each test was seen failing on the code before issue 59's fourth pass.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::site::{device_doc, get, post, ulid, Site, NO_LIMITS};

/// A server on a fresh SQLite store, with no rate limits.
fn fresh() -> (Site, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &NO_LIMITS);
    (site, dir)
}

/// Documents whose figures are finite but far past anything storage gives, each in a field a
/// page draws or reads: (what, document).
fn extreme_docs(first: u32) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut n = first;
    let mut with = |what: &str, change: &dyn Fn(&mut Value)| {
        let mut doc = device_doc(n, "Huge", "Figures", 1.0, "Raspberry Pi 4 Model B");
        change(&mut doc);
        out.push((what.to_string(), doc));
        n += 1;
    };
    for huge in [1e308, -1e308, 1e300, 1e15] {
        with(&format!("every latency {huge:e}"), &|d| {
            for t in d["tests"].as_array_mut().unwrap() {
                for k in ["min", "mean", "p50", "p90", "p99", "p99_9", "max", "stddev"] {
                    t["latency_us"][k] = json!(huge);
                }
            }
        });
        with(&format!("p99 and max {huge:e}"), &|d| {
            d["tests"][0]["latency_us"]["p99"] = json!(huge);
            d["tests"][0]["latency_us"]["max"] = json!(huge);
        });
        with(&format!("a timeline sample of {huge:e} MB/s"), &|d| {
            d["tests"][0]["timeline"][0]["mb_per_s"] = json!(huge);
        });
        with(&format!("a timeline sample at {huge:e} s"), &|d| {
            d["tests"][0]["timeline"][1]["t"] = json!(huge);
        });
        with(&format!("a loop of {huge:e} s"), &|d| {
            d["tests"][0]["loops"][0]["seconds"] = json!(huge);
        });
        with(&format!("CPU time {huge:e} s"), &|d| {
            d["tests"][0]["cpu"]["user_s"] = json!(huge);
        });
        with(&format!("a price of {huge:e}"), &|d| {
            d["price_usd"] = json!(huge);
        });
        with(&format!("a USB link of {huge:e} Mb/s"), &|d| {
            d["target"]["device"]["usb"]["speed_mbps"] = json!(huge);
        });
        with(&format!("a duration of {huge:e} s"), &|d| {
            d["settings"]["duration_s"] = json!(huge);
        });
    }
    out
}

/// The pages one result is shown on, by address.
fn pages_of(url: &str, id: &str, device: Option<&str>) -> Vec<String> {
    let mut pages = vec![
        format!("{url}/results/{id}"),
        format!("{url}/results/{id}/card.png"),
        format!("{url}/api/v1/results/{id}"),
        format!("{url}/"),
        format!("{url}/api/v1/leaderboard"),
        format!("{url}/compare?ids={id}"),
    ];
    if let Some(key) = device {
        pages.push(format!("{url}/devices/{key}"));
        pages.push(format!("{url}/api/v1/devices/{key}"));
    }
    pages
}

/// Issue 59: a result whose latency held about 1e308 was accepted, and drawing its page never
/// ended; two views held both workers of a two-core site. Whatever a document holds, it is
/// refused, or each of its pages is answered within seconds (bench/site-attack measures how
/// fast, against the goal of 1 s; a debug build on a busy machine is given 10).
#[test]
fn every_page_of_an_accepted_document_is_drawn_at_once() {
    let (site, _dir) = fresh();
    let mut slow = Vec::new();
    let mut accepted = 0;
    for (what, doc) in extreme_docs(9000) {
        let sent = post(&format!("{}/api/v1/results", site.url), &doc);
        match sent.status {
            201 => accepted += 1,
            422 => continue,
            other => panic!("{what}: {other} {}", sent.body),
        }
        let id = doc["id"].as_str().unwrap();
        let device = get(&format!("{}/api/v1/results/{id}", site.url)).json()["device_key"]
            .as_str()
            .map(str::to_string);
        for page in pages_of(&site.url, id, device.as_deref()) {
            let asked = Instant::now();
            let answer = get(&page);
            let took = asked.elapsed();
            if answer.status == 0 || took > Duration::from_secs(10) || answer.status >= 500 {
                slow.push(format!("{what}: {page}: {} in {took:?}", answer.status));
            }
        }
        if !slow.is_empty() {
            // The site is held: the pages after would wait their whole time each.
            break;
        }
    }
    assert!(
        slow.is_empty(),
        "{accepted} accepted; slow or failed: {slow:#?}"
    );
}

/// Issue 59: SIGTERM did not stop a site whose workers were drawing such a page. Loaded with
/// page views of every kind, uploads that trickle in and connections that send only blank
/// lines, a site stops within 5 s of SIGTERM, and says it stopped cleanly.
#[test]
fn sigterm_stops_a_loaded_site_within_five_seconds() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let (mut site, _dir) = fresh();
    let url = site.url.clone();
    let mut ids = Vec::new();
    for (_, doc) in extreme_docs(9500).into_iter().step_by(3) {
        if post(&format!("{url}/api/v1/results"), &doc).status == 201 {
            ids.push(doc["id"].as_str().unwrap().to_string());
        }
    }
    let plain = device_doc(9999, "Plain", "Stick", 1.0, "Raspberry Pi 4 Model B");
    assert_eq!(post(&format!("{url}/api/v1/results"), &plain).status, 201);
    ids.push(ulid(9999));
    let stop = Arc::new(AtomicBool::new(false));
    let mut load = Vec::new();
    for k in 0..6 {
        let (url, ids, stop) = (url.clone(), ids.clone(), stop.clone());
        load.push(std::thread::spawn(move || {
            let mut i = k;
            while !stop.load(Ordering::Relaxed) {
                let id = &ids[i % ids.len()];
                let _ = get(&pages_of(&url, id, None)[i % 6]);
                i += 1;
            }
        }));
    }
    // Uploads that send a byte at a time, and blank lines.
    let address = url.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    for k in 0..20 {
        let mut s = std::net::TcpStream::connect(&address).unwrap();
        let head = match k % 2 {
            0 => {
                "POST /api/v1/results HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                  Content-Length: 100000\r\n\r\n{"
            }
            _ => "\r\n\r\n",
        };
        s.write_all(head.as_bytes()).unwrap();
        held.push(s);
    }
    std::thread::sleep(Duration::from_secs(2));
    let asked = Instant::now();
    let status = site.stop();
    let took = asked.elapsed();
    stop.store(true, Ordering::Relaxed);
    for l in load {
        l.join().unwrap();
    }
    drop(held);
    assert!(status.success(), "{status:?}");
    assert!(
        took < Duration::from_secs(5),
        "stopped {took:?} after SIGTERM"
    );
}

/// Issue 59: sockets that sent only blank lines were taken as answering, so never closed to
/// make room: with 1,000 of them from 17 addresses, other visitors waited a median 7.9 s. Here
/// the site holds 192 connections; 6 addresses hold 60 each that send only blank lines, and
/// open a new one for each that is closed. Every probe is answered within 5 s.
#[test]
fn connections_that_send_only_blank_lines_make_room() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let site = crate::hostile_clients::site_with_256_files(dir.path());
    let url = site.url.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let holders: Vec<_> = (1..=6)
        .map(|a| {
            let (url, stop) = (url.clone(), stop.clone());
            std::thread::spawn(move || {
                let from = format!("127.0.4.{a}");
                let open = || {
                    let mut s = crate::common::site::connect_from(&from, &url).ok()?;
                    s.set_nonblocking(true).ok()?;
                    s.write_all(b"\r\n").ok()?;
                    Some(s)
                };
                let mut held: Vec<_> = (0..60).filter_map(|_| open()).collect();
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    held.retain_mut(|s| s.write_all(b"\r\n").is_ok());
                    while held.len() < 60 {
                        match open() {
                            Some(s) => held.push(s),
                            None => break,
                        }
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let mut took = Vec::new();
    for n in 0..10 {
        let asked = Instant::now();
        let answer = get(&format!("{url}/api/v1/health"));
        took.push(asked.elapsed());
        assert_eq!(answer.status, 200, "probe {n}: {}", answer.body);
    }
    stop.store(true, Ordering::Relaxed);
    for h in holders {
        h.join().unwrap();
    }
    took.sort();
    assert!(
        took[took.len() - 1] < Duration::from_secs(5),
        "probes took {took:?}"
    );
}

/// Issue 59: a stranger who kept a copy of a deleted result's document sent it again and got
/// 201, at the same address with its owner's label. A deleted result is not taken again,
/// under its id or another, with its label or another: 410, on SQLite and on PostgreSQL.
fn deletion_is_final(db: &str, home: &std::path::Path) {
    let site = Site::start(db, home, &NO_LIMITS);
    let results = format!("{}/api/v1/results", site.url);
    let doc = device_doc(9700, "Kept", "Copy", 1.0, "Raspberry Pi 4 Model B");
    let sent = post(&results, &doc);
    assert_eq!(sent.status, 201, "{}", sent.body);
    let token = sent.json()["token"].as_str().unwrap().to_string();
    let at = format!("{results}/{}", ulid(9700));
    let deleted = crate::common::site::http("DELETE", &at, None, Some(&token));
    assert!(deleted.status < 300, "{}: {}", deleted.status, deleted.body);
    assert_eq!(get(&at).status, 404);
    // The same document, by a stranger.
    let again = post(&results, &doc);
    assert_eq!(again.status, 410, "sent again: {}", again.body);
    // Under another id and label.
    let mut copy = doc.clone();
    copy["id"] = json!(ulid(9701));
    copy["label"] = json!("mine now");
    let again = post(&results, &copy);
    assert_eq!(again.status, 410, "under another id: {}", again.body);
    assert_eq!(get(&format!("{results}/{}", ulid(9701))).status, 404);
    // Nor any copy of its measurement, however its times, tests or figures are spelt (issue
    // 59's attack pass: each of these brought a deleted result back).
    type Change<'a> = (&'a str, &'a dyn Fn(&mut Value));
    let variants: [Change; 8] = [
        ("a time spelt +00:00", &|d| {
            let at = d["started_at"].as_str().unwrap().replace('Z', "+00:00");
            d["started_at"] = json!(at);
        }),
        ("a time a second later", &|d| {
            let at = d["started_at"].as_str().unwrap().replace(":00Z", ":01Z");
            d["started_at"] = json!(at);
            d["finished_at"] = json!(at);
        }),
        ("its tests reversed", &|d| {
            d["tests"].as_array_mut().unwrap().reverse();
        }),
        ("a CPU time changed", &|d| {
            d["tests"][0]["cpu"]["user_s"] = json!(0.101)
        }),
        ("a figure a rounding error up", &|d| {
            let v = d["tests"][0]["mb_per_s"].as_f64().unwrap();
            d["tests"][0]["mb_per_s"] = json!(v * (1.0 + 1e-12));
        }),
        // The second attack pass: a test dropped, or the model renamed.
        ("one test dropped", &|d| {
            d["tests"].as_array_mut().unwrap().pop();
        }),
        // The third: every figure of every test scaled by 1.0003.
        ("every figure scaled", &|d| {
            for t in d["tests"].as_array_mut().unwrap() {
                for key in ["mb_per_s", "iops"] {
                    t[key] = json!(t[key].as_f64().unwrap() * 1.0003);
                }
                for (_, v) in t["latency_us"].as_object_mut().unwrap() {
                    if let Some(f) = v.as_f64() {
                        *v = json!(f * 1.0003);
                    }
                }
            }
        }),
        ("its model renamed", &|d| {
            d["target"]["device"]["model"] = json!("Another Name 64GB");
            d["target"]["device"]["usb"]["product"] = json!("Another Name 64GB");
        }),
    ];
    for (k, (what, change)) in variants.iter().enumerate() {
        let mut copy = doc.clone();
        copy["id"] = json!(ulid(9710 + k as u32));
        change(&mut copy);
        let again = post(&results, &copy);
        assert_eq!(again.status, 410, "{what}: {}", again.body);
    }
    // The sixth attack pass's copies, each moved by a rule, not by a jitter of its own: each
    // ranked on the build before.
    let latencies = |t: &mut Value, f: &dyn Fn(&str, f64) -> f64| {
        for (k, v) in t["latency_us"].as_object_mut().unwrap() {
            if let Some(x) = v.as_f64() {
                *v = json!(f(k, x));
            }
        }
    };
    // Every rate x`f`, every loop that much shorter, every latency that much less.
    let scaled = |d: &mut Value, f: f64| {
        for t in d["tests"].as_array_mut().unwrap() {
            for key in ["mb_per_s", "iops"] {
                t[key] = json!(t[key].as_f64().unwrap() * f);
            }
            for l in t["loops"].as_array_mut().unwrap() {
                for key in ["mb_per_s", "iops"] {
                    l[key] = json!(l[key].as_f64().unwrap() * f);
                }
                l["seconds"] = json!(l["seconds"].as_f64().unwrap() / f);
            }
            for p in t["timeline"].as_array_mut().unwrap() {
                p["mb_per_s"] = json!(p["mb_per_s"].as_f64().unwrap() * f);
            }
            latencies(t, &|_, x| x / f);
        }
    };
    let moved: [Change; 6] = [
        // The seventh attack pass: three of each test's eight figures moved by half a
        // percent; then scaled whole, its least and most moved besides.
        ("its rate and its latencies' ends by 0.5%", &|d| {
            for t in d["tests"].as_array_mut().unwrap() {
                for key in ["mb_per_s", "iops"] {
                    t[key] = json!(t[key].as_f64().unwrap() * 1.005);
                }
                latencies(t, &|k, x| match k {
                    "min" => x * 0.995,
                    "max" => x * 1.005,
                    _ => x,
                });
            }
        }),
        ("x1.005, its least and most moved besides", &|d| {
            scaled(d, 1.005);
            for t in d["tests"].as_array_mut().unwrap() {
                latencies(t, &|k, x| match k {
                    "min" => x * 0.99,
                    "max" => x * 1.01,
                    _ => x,
                });
            }
        }),
        ("x1.05, the maximum moved besides", &|d| {
            scaled(d, 1.05);
            for t in d["tests"].as_array_mut().unwrap() {
                latencies(t, &|k, x| if k == "max" { x * 1.01 } else { x });
            }
        }),
        ("every latency 1.02x + 3 us", &|d| {
            for t in d["tests"].as_array_mut().unwrap() {
                latencies(t, &|k, x| {
                    if k == "stddev" {
                        x * 1.02
                    } else {
                        x * 1.02 + 3.0
                    }
                });
            }
        }),
        ("every latency to three digits", &|d| {
            for t in d["tests"].as_array_mut().unwrap() {
                latencies(t, &|_, x| format!("{x:.2e}").parse().unwrap());
            }
        }),
        ("read and write swapped", &|d| {
            for pair in d["tests"].as_array_mut().unwrap().chunks_mut(2) {
                if let [a, b] = pair {
                    for key in ["name", "op"] {
                        let (x, y) = (a[key].clone(), b[key].clone());
                        (a[key], b[key]) = (y, x);
                    }
                }
            }
        }),
    ];
    // The sixteenth attack pass: every figure nudged by 0.3% at most, each on its own, and the
    // copy sent as another device (its own device's buried results were all it was held to).
    let nudged = |d: &mut Value| {
        let mut n = 0u32;
        let mut by = move || {
            n += 1;
            1.0 + 0.003 * (f64::from(n) * 12.9898).sin()
        };
        for t in d["tests"].as_array_mut().unwrap() {
            let f = by();
            for key in ["mb_per_s", "iops"] {
                t[key] = json!(t[key].as_f64().unwrap() * f);
            }
            for l in t["loops"].as_array_mut().unwrap() {
                let f = by();
                for key in ["mb_per_s", "iops"] {
                    l[key] = json!(l[key].as_f64().unwrap() * f);
                }
                l["seconds"] = json!(l["seconds"].as_f64().unwrap() / f);
            }
            for p in t["timeline"].as_array_mut().unwrap() {
                p["mb_per_s"] = json!(p["mb_per_s"].as_f64().unwrap() * by());
            }
            for (_, v) in t["latency_us"].as_object_mut().unwrap() {
                if let Some(x) = v.as_f64() {
                    *v = json!(x * by());
                }
            }
        }
        d["target"]["device"]["model"] = json!("Another Name 64GB");
        d["target"]["device"]["usb"]["product"] = json!("Another Name 64GB");
    };
    let mut copy = doc.clone();
    copy["id"] = json!(ulid(9730));
    nudged(&mut copy);
    let again = post(&results, &copy);
    assert_eq!(
        again.status, 410,
        "nudged, as another device: {}",
        again.body
    );
    for (k, (what, change)) in moved.iter().enumerate() {
        let mut copy = doc.clone();
        copy["id"] = json!(ulid(9720 + k as u32));
        change(&mut copy);
        let again = post(&results, &copy);
        assert_eq!(again.status, 410, "{what}: {}", again.body);
    }
    // Another measurement of the same device is taken.
    let other = device_doc(9702, "Kept", "Copy", 1.1, "Raspberry Pi 4 Model B");
    assert_eq!(post(&results, &other).status, 201);
    // And a restart keeps the tombstone.
    drop(site);
    let site = Site::start(db, home, &NO_LIMITS);
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc).status,
        410
    );
}

#[test]
fn deletion_is_final_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    deletion_is_final(db.to_str().unwrap(), dir.path());
}

#[test]
fn deletion_is_final_on_postgres() {
    let pg = crate::common::Postgres::start();
    let dir = tempfile::tempdir().unwrap();
    deletion_is_final(&pg.database(), dir.path());
}

/// A site that trusts a proxy's forwarded address, without a cache (the tests send as many
/// addresses through one connection).
fn behind_a_proxy() -> (Site, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--trust-forwarded-for", "--cache-seconds", "0"]);
    (Site::start(db.to_str().unwrap(), dir.path(), &args), dir)
}

/// Issue 59: one dual-stack client (its IPv4 /24 and its IPv6 /64) counted as two submitters,
/// and two was what naming a device took: a card five others measured was retitled
/// "Counterfeit Junk 64GB". One household, over IPv4 and from ten /64s of its /56, with a
/// fresh installation key each time, names nothing; three households do.
#[test]
fn one_household_names_nothing() {
    let (site, _dir) = behind_a_proxy();
    let results = format!("{}/api/v1/results", site.url);
    let send = |n: u32, from: &str, sold_as: Option<&str>| {
        let key = format!("installation-key-of-the-tests-{n:08}");
        let (status, body) = crate::common::site::from_address_with(
            "POST",
            &results,
            "127.0.0.1",
            Some(&crate::device_names::card(n, sold_as, None).to_string()),
            &[
                &format!("X-Forwarded-For: {from}"),
                &format!("X-Iomark-Installation: {key}"),
            ],
        );
        assert_eq!(status, 201, "{n} from {from}: {body}");
    };
    let sold_as = || {
        let board = get(&format!("{}/api/v1/leaderboard?q=sn64g", site.url)).json();
        board["devices"][0]["sold_as"].clone()
    };
    for i in 1..=5 {
        send(9800 + i, &format!("198.51.{i}.20"), None);
    }
    let junk = Some("Counterfeit Junk 64GB");
    send(9810, "203.0.113.7", junk);
    for k in 0..10 {
        send(9811 + k, &format!("2001:db8:1:{k:x}::1"), junk);
    }
    assert_eq!(sold_as(), Value::Null, "one household named the card");
    // A second household is not enough either, nor one more over IPv4 (one IPv6 household
    // and two IPv4: one client may be both); a third household of one family is.
    send(9830, "2001:db9:2::1", junk);
    assert_eq!(sold_as(), Value::Null, "two households named the card");
    send(9831, "192.0.2.44", junk);
    assert_eq!(
        sold_as(),
        Value::Null,
        "two households of each family named the card"
    );
    send(9832, "2001:dba:3::1", junk);
    assert_eq!(sold_as(), json!("Counterfeit Junk 64GB"));
}

/// The eleventh attack pass: one household with three IPv6 /48s (a tunnel broker may route
/// several to one account) and no installation key outweighed two IPv4 networks in a device's median:
/// the family with more neighbourhoods is counted. A /48 is a home's, a /32 a provider's: the
/// three are one neighbourhood, and the median stays the IPv4 networks'; three /32s count.
#[test]
fn one_households_prefixes_do_not_outweigh_two_networks() {
    let (site, _dir) = behind_a_proxy();
    let results = format!("{}/api/v1/results", site.url);
    let send = |n: u32, from: &str, scale: f64| {
        let doc = device_doc(n, "Crucial", "BX500", scale, "Raspberry Pi 5 Model B");
        let (status, body) = crate::common::site::from_address_with(
            "POST",
            &results,
            "127.0.0.1",
            Some(&doc.to_string()),
            &[&format!("X-Forwarded-For: {from}")],
        );
        assert_eq!(status, 201, "{n} from {from}: {body}");
    };
    let median = || {
        let key = "crucial-bx500-128gb";
        let page = get(&format!("{}/api/v1/devices/{key}", site.url)).json();
        page["summary"]["seq1m_q8_read"]["median"]
            .as_f64()
            .unwrap_or_else(|| panic!("{page}"))
    };
    send(9901, "198.51.100.7", 0.2);
    send(9902, "203.0.113.7", 0.2);
    assert_eq!(median(), 400.0);
    for (k, from) in ["2001:470:1::7", "2001:470:2::7", "2001:470:3::7"]
        .iter()
        .enumerate()
    {
        send(9910 + k as u32, from, 0.1);
    }
    assert_eq!(
        median(),
        400.0,
        "one household's three /48s outweighed two networks"
    );
    send(9920, "2001:db8:1::7", 0.1);
    send(9921, "2001:db9:1::7", 0.1);
    assert_eq!(median(), 200.0, "three providers' households are three");
}

/// Issue 59's second attack pass: one machine with three /24s of one /22 set what a card is
/// sold as. Households of one neighbourhood (an IPv4 /16) count once where a device's identity
/// moves: three /24s of one /16 name nothing; households of three /16s do.
#[test]
fn one_block_of_addresses_names_nothing() {
    let (site, _dir) = behind_a_proxy();
    let results = format!("{}/api/v1/results", site.url);
    let send = |n: u32, from: &str, sold_as: Option<&str>| {
        let (status, body) = crate::common::site::from_address_with(
            "POST",
            &results,
            "127.0.0.1",
            Some(&crate::device_names::card(n, sold_as, None).to_string()),
            &[&format!("X-Forwarded-For: {from}")],
        );
        assert_eq!(status, 201, "{n} from {from}: {body}");
    };
    let board = || get(&format!("{}/api/v1/leaderboard?q=sn64g", site.url)).json();
    for i in 1..=3 {
        send(9840 + i, &format!("10.{i}.0.20"), None);
    }
    let junk = Some("Totally Fake Brand 64GB");
    for (n, from) in [
        (9850, "198.18.0.20"),
        (9851, "198.18.1.20"),
        (9852, "198.18.2.20"),
    ] {
        send(n, from, junk);
    }
    assert_eq!(
        board()["devices"][0]["sold_as"],
        Value::Null,
        "one /16 named the card"
    );
    // Its results still count as three households where figures are weighed.
    assert_eq!(board()["devices"][0]["submitters"], 6, "{}", board());
    send(9853, "203.0.113.9", junk);
    assert_eq!(
        board()["devices"][0]["sold_as"],
        Value::Null,
        "two /16s named the card"
    );
    send(9854, "192.0.2.9", junk);
    assert_eq!(
        board()["devices"][0]["sold_as"],
        json!("Totally Fake Brand 64GB")
    );
}

/// Issue 59: a device a moderator hid came back to the board with one new result from another
/// network. It stays hidden: a new result of it waits for a moderator, until the device is
/// restored.
#[test]
fn a_hidden_device_stays_hidden() {
    use crate::common::site::{http, post_as};
    use crate::moderation::SECRET;
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--cache-seconds", "0"]);
    let (site, _dir) = crate::moderation::site_with_secret(None, &args);
    let url = site.url.clone();
    let results = format!("{url}/api/v1/results");
    let fake = |n: u32| device_doc(n, "Hidden", "Fake Stick", 0.1, "Raspberry Pi 4 Model B");
    for n in 1..=3u8 {
        let sent = post_as(n, &results, &fake(9900 + u32::from(n)));
        assert_eq!(sent.status, 201, "{}", sent.body);
    }
    let board = || get(&format!("{url}/api/v1/leaderboard?q=hidden")).json()["devices"].clone();
    let key = board()[0]["key"].as_str().unwrap().to_string();
    let body = serde_json::to_vec(&json!({"reason": "a fake stick"})).unwrap();
    let admin = |action: &str| {
        http(
            "POST",
            &format!("{url}/api/v1/admin/devices/{key}/{action}"),
            Some(&body),
            Some(SECRET),
        )
    };
    assert_eq!(admin("hide").status, 200);
    assert_eq!(board(), json!([]));
    // One new result, from another network: it waits, and the device stays off the board.
    // (Its own measurement: a copy of a hidden one is refused, 410.)
    let mut other = fake(9909);
    other["tests"][0]["mb_per_s"] = json!(other["tests"][0]["mb_per_s"].as_f64().unwrap() * 1.01);
    for l in other["tests"][0]["loops"].as_array_mut().unwrap() {
        l["mb_per_s"] = json!(l["mb_per_s"].as_f64().unwrap() * 1.01);
    }
    let bs = other["tests"][0]["block_size"].as_f64().unwrap();
    other["tests"][0]["iops"] = json!(other["tests"][0]["mb_per_s"].as_f64().unwrap() * 1e6 / bs);
    let again = post_as(9, &results, &other);
    assert_eq!(again.status, 201, "{}", again.body);
    let flag = again.json()["flag"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(flag.contains("hid this device"), "{flag}");
    assert_eq!(board(), json!([]), "the hidden device came back");
    // Nor under its model with a trailing dot, or a word no maker is, before it, or its words
    // run together (the second attack pass).
    for (n, model) in [
        (9911, "Fake Stick 128GB."),
        (9912, "ATA Fake Stick"),
        (9913, "FakeStick"),
    ] {
        let mut d = fake(n);
        d["target"]["device"]["model"] = json!(model);
        d["tests"][1]["mb_per_s"] = json!(d["tests"][1]["mb_per_s"].as_f64().unwrap() * 1.02);
        let bs = d["tests"][1]["block_size"].as_f64().unwrap();
        d["tests"][1]["iops"] = json!(d["tests"][1]["mb_per_s"].as_f64().unwrap() * 1e6 / bs);
        d["tests"][1]["loops"][1]["mb_per_s"] = d["tests"][1]["mb_per_s"].clone();
        let sent = post_as(n as u8 - 100, &results, &d);
        let flag = sent.json()["flag"].as_str().unwrap_or_default().to_string();
        assert!(flag.contains("hid this device"), "{model}: {}", sent.body);
    }
    assert_eq!(board(), json!([]), "the hidden device came back");
    // While hidden, nothing of it is shown: its page, the new result's page (the eighth
    // attack pass: a result that waited brought both back).
    assert_eq!(get(&format!("{url}/devices/{key}")).status, 404);
    assert_eq!(get(&format!("{url}/results/{}", ulid(9909))).status, 404);
    // Restored by a moderator, it is back with the results it had and those that came under
    // its name while it was hidden (three of the four: `FakeStick` is a name of its own,
    // restored on its own).
    assert_eq!(admin("restore").status, 200);
    assert_eq!(board()[0]["results"], 6, "{}", board());
}

/// Issue 59: look-alike names ranked as twins of a device, above it: a letter from Armenian or
/// Cherokee inside a word, or a variation selector. Whatever script the odd letter is of, the
/// name is not ranked; a variation selector is no part of a name, so the result is the real
/// device's.
#[test]
fn look_alike_names_rank_as_no_twin() {
    let (site, _dir) = fresh();
    let results = format!("{}/api/v1/results", site.url);
    let stick = |n: u32, model: &str, scale: f64| {
        device_doc(n, "Sandisk", model, scale, "Raspberry Pi 4 Model B")
    };
    assert_eq!(post(&results, &stick(9950, "Extreme Go", 0.1)).status, 201);
    for (n, model) in [
        (9951, "Extreme G\u{0585}"), // an Armenian օ
        (9952, "\u{13ac}xtreme Go"), // a Cherokee Ꭼ
        (9953, "Extre\u{0578}e Go"), // an Armenian ո
        (9954, "Extr\u{10e7}me Go"), // a Georgian letter
    ] {
        let sent = post(&results, &stick(n, model, 0.2));
        assert_eq!(sent.status, 201, "{model}: {}", sent.body);
        let flag = sent.json()["flag"].as_str().unwrap_or_default().to_string();
        assert!(flag.contains("look-alike"), "{model}: {flag}");
    }
    // A whole word of Cyrillic letters that look Latin: a look-alike, not ranked.
    let dressed = post(&results, &stick(9956, "\u{0415}\u{0445}treme Go", 0.2));
    assert!(dressed.json()["flag"].is_string(), "{}", dressed.body);
    let dressed = post(&results, &stick(9957, "Extreme \u{0405}\u{041e}", 0.2));
    assert!(dressed.json()["flag"].is_string(), "{}", dressed.body);
    // The fifth: a word of Canadian Syllabics, whose W Unicode draws as a Cyrillic omega.
    let dressed = post(&results, &stick(9966, "Extreme Go \u{15ef}\u{15ea}", 0.2));
    assert!(dressed.json()["flag"].is_string(), "{}", dressed.body);
    // A mark on a letter, or small capitals: the same device as the real one.
    for (n, model) in [(9958, "Extr\u{1eb9}me Go"), (9959, "ᴇxtreme Go")] {
        let sent = post(
            &results,
            &stick(n, model, 0.1 + f64::from(n - 9950) / 100.0),
        );
        assert_eq!(sent.status, 201, "{model}: {}", sent.body);
    }
    // The second attack pass: a lower-case Cyrillic word, a Cherokee one, a click letter for
    // an I: look-alikes; a braille blank or a dotless ı: the same device.
    for (n, model) in [
        (9960, "Extreme Go \u{043a}\u{0456}\u{0442}"),
        (9961, "Extreme \u{13c0}\u{13aa}"),
        (9962, "Extreme G\u{01c0}"),
    ] {
        let sent = post(&results, &stick(n, model, 0.3));
        assert_eq!(sent.status, 201, "{model}: {}", sent.body);
        assert!(sent.json()["flag"].is_string(), "{model}: {}", sent.body);
    }
    // The third: a zero for an O. A new device whose key reads as another's waits.
    let zero = post(&results, &stick(9965, "Extreme G0", 0.3));
    assert_eq!(zero.status, 201, "{}", zero.body);
    let flag = zero.json()["flag"].as_str().unwrap_or_default().to_string();
    assert!(
        flag.contains("written as another device's"),
        "{}",
        zero.body
    );
    for (n, model) in [(9963, "Extreme\u{2800} Go"), (9964, "Extreme Go")] {
        let sent = post(
            &results,
            &stick(n, model, 0.12 + f64::from(n - 9963) / 100.0),
        );
        assert_eq!(sent.status, 201, "{model}: {}", sent.body);
    }
    // A variation selector inside the name: the same device.
    assert_eq!(
        post(&results, &stick(9955, "Extr\u{fe0f}eme Go", 0.11)).status,
        201
    );
    let board = get(&format!("{}/api/v1/leaderboard?q=extreme", site.url)).json();
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{board}");
    assert_eq!(devices[0]["results"], 6, "{board}");
    // And `VVD` for WD, a new device whose key reads as the real one's: it waits.
    let wd =
        |n: u32, maker: &str| device_doc(n, maker, "Black SN850X", 0.3, "Raspberry Pi 4 Model B");
    assert_eq!(post(&results, &wd(9968, "WD")).status, 201);
    let twin = post(&results, &wd(9969, "VVD"));
    let flag = twin.json()["flag"].as_str().unwrap_or_default().to_string();
    assert!(
        flag.contains("written as another device's"),
        "{}",
        twin.body
    );
}

/// Issue 59's attack pass: user names in paths of every spelling, in any text of a document,
/// reached the result's page, the API and the leaderboard. None does now.
#[test]
fn no_folder_names_its_owner_anywhere() {
    let (site, _dir) = fresh();
    let mut doc = device_doc(9960, "Private", "Paths", 0.1, "Raspberry Pi 4 Model B");
    let names = [
        "alice", "bobby", "carol", "davey", "erin", "frank", "grace", "henry", "ingrid",
    ];
    // The sixth attack pass: option values, a layer's mapper name, character references.
    doc["label"] = json!("card on /media/alice, from ~erin, &#47;home&#47;ingrid");
    doc["host"]["kernel"] = json!("6.1 /home//bobby/x");
    doc["host"]["os"] = json!("C:\\Users\\carol");
    doc["target"]["mount_options"] =
        json!("rw,/run/user/1000/gvfs/smb-share:server=nas,user=davey,uid=henry,compress=henry");
    doc["target"]["device"]["stack"] = json!(["dm-1 /dev/mapper/henry--laptop--vg-home"]);
    doc["target"]["device"]["vendor"] = json!("/media/frank");
    doc["warnings"] = json!([{"kind": "high_variation",
        "message": "loops of \u{ff0f}home\u{ff0f}grace/.iomark.tmp and /HOME/erin varied"}]);
    let sent = post(&format!("{}/api/v1/results", site.url), &doc);
    assert_eq!(sent.status, 201, "{}", sent.body);
    let id = ulid(9960);
    let device = get(&format!("{}/api/v1/results/{id}", site.url)).json()["device_key"]
        .as_str()
        .map(str::to_string);
    for page in pages_of(&site.url, &id, device.as_deref()) {
        let body = get(&page).body.to_lowercase();
        for name in names {
            assert!(!body.contains(name), "{page} names {name}");
        }
    }
}

/// Issue 59's attack pass: from one address, five new models each 1.95 times the last raised
/// the fastest of their kind step by step until a hard disk ranked first at 98,713 IOPS. Only
/// devices two households measured are a yardstick: the household's own models raise nothing.
#[test]
fn one_household_cannot_ratchet_the_yardstick() {
    use crate::common::site::post_as;
    let (site, _dir) = fresh();
    let results = format!("{}/api/v1/results", site.url);
    for n in 1..=3u8 {
        for k in [0u8, 100] {
            let mut d = device_doc(
                9970 + u32::from(n + k),
                "Known",
                &format!("Stick {n}"),
                0.05 + f64::from(k) / 100_000.0,
                "Raspberry Pi 4 Model B",
            );
            d["target"]["device"]["usb"]["speed_mbps"] = json!(20000.0);
            assert_eq!(post_as(n + k, &results, &d).status, 201);
        }
    }
    let mut held = 0;
    for step in 1..=5i32 {
        let scale = 0.05 * 1.95f64.powi(step);
        let mut d = device_doc(
            9990 + step as u32,
            "Ratchet",
            &format!("Model {step}"),
            scale,
            "Raspberry Pi 4 Model B",
        );
        d["target"]["device"]["usb"]["speed_mbps"] = json!(20000.0);
        let sent = post_as(9, &results, &d);
        assert_eq!(sent.status, 201, "{}", sent.body);
        // Kept out of rankings: waiting for a moderator, or past its link.
        if sent.json()["flag"].is_string() {
            held += 1;
        }
    }
    assert_eq!(
        held, 4,
        "{held} of 5 kept out; the first is within twice the yardstick"
    );
    let board = get(&format!("{}/api/v1/leaderboard", site.url)).json();
    let top = board["devices"][0]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        !top.contains("Model 5") && !top.contains("Model 4"),
        "{top} ranks first"
    );
}

/// Issue 59's fifth attack pass: a device a moderator hid came back, ranked, as `… PR0 …`
/// (a zero), without its maker's word, run together with its capacity, from a size that keyed
/// another capacity beside it, with its maker's company and `Gen4`, and as a generic model
/// sold as it. Each waits for a moderator; another product whose name holds it ranks.
#[test]
fn a_hidden_device_stays_hidden_however_it_is_spelled() {
    use crate::common::site::{http, post_as};
    use crate::moderation::SECRET;
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--cache-seconds", "0"]);
    let (site, _dir) = crate::moderation::site_with_secret(None, &args);
    let url = site.url.clone();
    let results = format!("{url}/api/v1/results");
    let pro = |n: u32, maker: &str, model: &str, scale: f64| {
        let mut d = device_doc(n, maker, model, scale, "Raspberry Pi 4 Model B");
        d["target"]["device"]["size_bytes"] = json!(2_000_398_934_016u64);
        d
    };
    for n in 1..=3u8 {
        let sent = post_as(
            n,
            &results,
            &pro(9800 + u32::from(n), "Samsung", "SSD 990 PRO 2TB", 0.1),
        );
        assert_eq!(sent.status, 201, "{}", sent.body);
    }
    let board = || get(&format!("{url}/api/v1/leaderboard?q=990")).json()["devices"].clone();
    let key = board()[0]["key"].as_str().unwrap().to_string();
    let body = serde_json::to_vec(&json!({"reason": "fake"})).unwrap();
    let hide = http(
        "POST",
        &format!("{url}/api/v1/admin/devices/{key}/hide"),
        Some(&body),
        Some(SECRET),
    );
    assert_eq!(hide.status, 200, "{}", hide.body);
    let spellings: [(&str, &str, Option<u64>, Option<&str>); 18] = [
        ("Samsung", "SSD 990 PR0 2TB", None, None),
        // The sixth pass: a maker as a reader sees it, how it is sold, a size of its own.
        ("Sarnsung", "SSD 990 PRO 2TB (Renewed)", None, None),
        ("S4MSUNG", "SSD 990 PRO 2TB OEM", None, None),
        ("Samsung", "SSD 990 PRO 2TB", Some(1_800_000_000_000), None),
        ("", "SSD 990 PRO 2TB", None, None),
        ("Samsung", "SSD 990PRO2TB", None, None),
        ("Samsung", "SSD 990 PRO 2TB", Some(2000 << 30), None),
        ("Samsung Electronics", "SSD 990 PRO 2TB Gen4", None, None),
        ("", "NVMe SSD", None, Some("Samsung SSD 990 PRO 2TB")),
        // The tenth: the name said twice; signs for letters, which keep a result out of
        // rankings but kept it public.
        (
            "Samsung",
            "SSD 990 PRO 2TB Samsung SSD 990 PRO 2TB",
            None,
            None,
        ),
        ("Sam$ung", "SSD 990 PRO 2TB", None, None),
        ("S@msung", "SSD 990 PRO 2TB", None, None),
        // The twelfth: neighbours swapped, its part number alone, a number in words.
        ("Samsung", "SSD 990 POR 2TB", None, None),
        ("Samsung", "SSD 909 PRO 2TB", None, None),
        ("Samsung", "MZ-V9P2T0BW", None, None),
        ("", "MZ-V9P2T0", None, None),
        ("Samsung", "SSD nine-ninety PRO 2TB", None, None),
        // The thirteenth: an O drawn as brackets.
        ("SaMsUnG", "SsD 990 PR() 2TB", None, None),
    ];
    for (i, (maker, model, size, sold_as)) in spellings.into_iter().enumerate() {
        let mut d = pro(9850 + i as u32, maker, model, 0.12 + i as f64 / 100.0);
        if let Some(size) = size {
            d["target"]["device"]["size_bytes"] = json!(size);
        }
        if let Some(sold_as) = sold_as {
            d["sold_as"] = json!(sold_as);
        }
        let sent = post_as(20 + i as u8, &results, &d);
        assert_eq!(sent.status, 201, "{model}: {}", sent.body);
        let flag = sent.json()["flag"].as_str().unwrap_or_default().to_string();
        assert!(
            flag.contains("hid this device"),
            "{maker} {model} {size:?} {sold_as:?}: {}",
            sent.body
        );
    }
    // A name in another script is weighed, not split inside a letter: the sixth pass's
    // `三星 T7` answered 503 (the store's writer panicked) once any device was hidden.
    for (n, maker) in [(9825u32, "三星"), (9826, "삼성"), (9827, "тошиба")] {
        let sent = post_as(
            41 + (n - 9825) as u8,
            &results,
            &pro(n, maker, "T7 64GB", 0.3),
        );
        assert_eq!(sent.status, 201, "{maker}: {}", sent.body);
    }
    // Another product, whose name holds the hidden one's, ranks.
    let other = post_as(
        40,
        &results,
        &pro(9830, "Samsung", "SSD 990 PRO with Heatsink 2TB", 0.2),
    );
    assert_eq!(other.status, 201, "{}", other.body);
    assert!(other.json()["flag"].is_null(), "{}", other.body);
    let names: Vec<String> = board()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].to_string())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].contains("Heatsink"), "{names:?}");
    // So do the maker's other products of the size, sent as a SATA drive names itself (the
    // thirteenth attack pass: a part-number rule hid every Samsung of 2 TB).
    for (n, model) in [(9831u32, "SSD 990 EVO 2TB"), (9832, "SSD 870 QVO 2TB")] {
        let mut d = pro(n, "ATA", &format!("Samsung {model}"), 0.2);
        d["target"]["device"]["transport"] = json!("sata");
        d["target"]["device"]["usb"] = Value::Null;
        let sent = post_as(44 + (n - 9831) as u8, &results, &d);
        assert_eq!(sent.status, 201, "{}", sent.body);
        assert!(
            !sent.body.contains("hid this device"),
            "{model}: {}",
            sent.body
        );
    }
}

/// Issue 59's fifth attack pass ranked an SD card of 1 PB, a USB stick of 256 TB and a stick
/// reading 33,650 times a second one at a time (30 µs each; the fastest USB SSD of the
/// reference reads 4,740). None ranks: each is taken, and flagged.
#[test]
fn a_device_beyond_what_its_kind_can_be_does_not_rank() {
    let (site, _dir) = fresh();
    let results = format!("{}/api/v1/results", site.url);
    let mut card = device_doc(
        9840,
        "Sandisk",
        "Extreme Card",
        0.02,
        "Raspberry Pi 4 Model B",
    );
    card["target"]["device"]["transport"] = json!("mmc");
    card["target"]["device"]["usb"] = Value::Null;
    card["target"]["device"]["sd"] = json!({"kind": "SD"});
    card["target"]["device"]["size_bytes"] = json!(1_000_000_000_000_000u64);
    let mut huge = device_doc(
        9841,
        "Kingston",
        "Huge Stick",
        0.05,
        "Raspberry Pi 4 Model B",
    );
    huge["target"]["device"]["size_bytes"] = json!(256_000_000_000_000u64);
    let mut quick = device_doc(
        9842,
        "Kingston",
        "Quick Stick",
        0.05,
        "Raspberry Pi 4 Model B",
    );
    // One test's figures as `iops` at queue depth 1, every count and time with them.
    let at_q1 = |doc: &mut Value, test: &str, iops: f64| {
        for t in doc["tests"].as_array_mut().unwrap() {
            if t["name"] != test {
                continue;
            }
            let scale = iops / t["iops"].as_f64().unwrap();
            t["iops"] = json!(iops);
            t["mb_per_s"] = json!(iops * 4096.0 / 1e6);
            for l in t["loops"].as_array_mut().unwrap() {
                for k in ["mb_per_s", "iops"] {
                    l[k] = json!(l[k].as_f64().unwrap() * scale);
                }
                let ios = (l["ios"].as_f64().unwrap() * scale).round() as u64;
                l["ios"] = json!(ios);
                l["bytes"] = json!(ios * 4096);
            }
            for s in t["timeline"].as_array_mut().unwrap() {
                s["mb_per_s"] = json!(s["mb_per_s"].as_f64().unwrap() * scale);
            }
            let lat = t["latency_us"].as_object_mut().unwrap();
            for v in lat.values_mut().filter(|v| v.is_f64()) {
                *v = json!(v.as_f64().unwrap() / scale);
            }
        }
    };
    at_q1(&mut quick, "RND4K_Q1T1_read", 33_650.0);
    // The sixth pass: a stick's writes one at a time (10 µs each, within its link), and a
    // virtual disk's reads.
    let mut writer = device_doc(
        9843,
        "Kingston",
        "Writing Stick",
        0.05,
        "Raspberry Pi 4 Model B",
    );
    at_q1(&mut writer, "RND4K_Q1T1_write", 100_000.0);
    let mut virtual_disk = device_doc(9844, "QEMU", "Hard Disk", 0.05, "Raspberry Pi 4 Model B");
    virtual_disk["target"]["device"]["transport"] = json!("virtio");
    virtual_disk["target"]["device"]["usb"] = Value::Null;
    at_q1(&mut virtual_disk, "RND4K_Q1T1_read", 3_000_000.0);
    for (what, doc, said) in [
        ("a 1 PB SD card", card, "larger than any can be"),
        ("a 256 TB stick", huge, "larger than any can be"),
        ("a stick at 33,650 reads at Q1", quick, "one at a time"),
        (
            "a stick at 100,000 writes at Q1",
            writer,
            "writes a second, one at a time",
        ),
        (
            "a virtual disk at 3,000,000 reads at Q1",
            virtual_disk,
            "the kernel's block layer",
        ),
    ] {
        let sent = post(&results, &doc);
        assert_eq!(sent.status, 201, "{what}: {}", sent.body);
        let flag = sent.json()["flag"].as_str().unwrap_or_default().to_string();
        assert!(flag.contains(said), "{what}: {}", sent.body);
    }
    let board = get(&format!("{}/api/v1/leaderboard", site.url)).json();
    assert_eq!(board["devices"], json!([]), "{board}");
}

/// The sixteenth attack pass ranked twins of a ranked device beside it: its figures spaced
/// apart, its maker in katakana, `()` for the zeros after a figure; and its capacity glued to
/// its model number made a device of its own. The twins wait; the glued name is the device.
#[test]
fn twins_spelt_apart_or_transcribed_wait_and_a_glued_capacity_is_the_device() {
    let (site, _dir) = fresh();
    let results = format!("{}/api/v1/results", site.url);
    let stick = |n: u32, maker: &str, model: &str, scale: f64| {
        device_doc(n, maker, model, scale, "Raspberry Pi 4 Model B")
    };
    assert_eq!(
        post(&results, &stick(9970, "Crucial", "MX500 128GB", 0.1)).status,
        201
    );
    for (n, maker, model) in [
        (9971, "Crucial", "MX 5 0 0 128GB"),
        (9972, "クルーシャル", "MX500 128GB"),
        (9973, "Crucial", "MX5()() 128GB"),
        // And another maker's line's word added (`Extreme` is SanDisk's).
        (9977, "Crucial", "MX500 Extreme 128GB"),
    ] {
        let sent = post(&results, &stick(n, maker, model, 0.2));
        assert_eq!(sent.status, 201, "{model}: {}", sent.body);
        let flag = sent.json()["flag"].as_str().unwrap_or_default().to_string();
        assert!(flag.contains("another device"), "{maker} {model}: {flag}");
    }
    let glued = post(&results, &stick(9974, "Crucial", "MX500128GB", 0.11));
    assert_eq!(glued.status, 201, "{}", glued.body);
    assert!(glued.json()["flag"].is_null(), "{}", glued.body);
    let board = get(&format!("{}/api/v1/leaderboard?q=mx500", site.url)).json();
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{board}");
    assert_eq!(devices[0]["results"], 2, "{board}");
    // The seventeenth: a drive's part number is the product it is sold as, not its twin.
    for (n, model) in [(9975, "P3 Plus 128GB"), (9976, "CT128P3PSSD8")] {
        let sent = post(&results, &stick(n, "Crucial", model, 0.1));
        assert_eq!(sent.status, 201, "{}", sent.body);
        assert!(sent.json()["flag"].is_null(), "{model}: {}", sent.body);
    }
    let board = get(&format!("{}/api/v1/leaderboard?q=p3", site.url)).json();
    let devices = board["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{board}");
    assert_eq!(devices[0]["name"], "Crucial P3 Plus 128 GB", "{board}");
}

/// The sixteenth attack pass ranked a SATA-only SSD by its model number sent as NVMe at three
/// times SATA's rate, and a disk named by its line sent as not rotating at an SSD's random
/// reads. Both are taken and flagged; an NVMe drive at the same rate is not.
#[test]
fn a_sata_only_ssd_and_a_disk_s_line_rank_within_their_physics() {
    let (site, _dir) = fresh();
    let results = format!("{}/api/v1/results", site.url);
    let drive = |n: u32, maker: &str, model: &str, scale: f64, transport: &str| {
        let mut doc = device_doc(n, maker, model, scale, "Raspberry Pi 4 Model B");
        doc["target"]["device"]["transport"] = json!(transport);
        doc["target"]["device"]["usb"] = Value::Null;
        doc["target"]["device"]["size_bytes"] = json!(1_000_204_886_016u64);
        doc
    };
    let sata = post(&results, &drive(9980, "Samsung", "MZ-77E1T0", 0.9, "nvme"));
    assert_eq!(sata.status, 201, "{}", sata.body);
    let flag = sata.json()["flag"].as_str().unwrap_or_default().to_string();
    assert!(flag.contains("SATA"), "{}", sata.body);
    let disk = post(&results, &drive(9981, "Seagate", "IronWolf", 0.2, "sata"));
    assert_eq!(disk.status, 201, "{}", disk.body);
    assert!(disk.json()["flag"].is_string(), "{}", disk.body);
    let nvme = post(
        &results,
        &drive(9982, "Samsung", "SSD 980 PRO", 0.9, "nvme"),
    );
    assert_eq!(nvme.status, 201, "{}", nvme.body);
    assert!(nvme.json()["flag"].is_null(), "{}", nvme.body);
}
