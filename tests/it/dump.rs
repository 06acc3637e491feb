//! Issue 24: every public result in bulk, as gzip JSON lines and CSV, with the licence the
//! site's operator chose, made in the background; a dump that cannot be written (a full disk)
//! leaves the last one served whole and nothing behind.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::site::{
    device_doc, dump_files as files, get, get_bytes, http, post, ulid, Site, NO_LIMITS,
};
use crate::common::{Postgres, SmallFs};

/// The dump's index once `wanted` says it is the one waited for (within 90 s: a deletion
/// leaves it within the 30 s between two patches).
fn dump_where(url: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let answer = get(&format!("{url}/api/v1/dump"));
        if answer.status == 200 && wanted(&answer.json()) {
            return answer.json();
        }
        assert!(
            Instant::now() < deadline,
            "no such dump within 90 s: {} {}",
            answer.status,
            answer.body
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn no_leftovers(dir: &Path) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".making-")),
        "{names:?}"
    );
}

fn holds_every_public_result(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    let mut args = NO_LIMITS.to_vec();
    let dumps_arg = dumps.to_str().unwrap();
    args.extend(["--dump-every", "1s", "--dump-dir", dumps_arg]);
    args.extend(["--data-licence", "CC0-1.0"]);
    let site = Site::start(db, dir.path(), &args);
    let url = &site.url;
    let mut docs = Vec::new();
    for n in 1..=3 {
        let mut doc = device_doc(n, "Samsung", "SSD 860 EVO 500G", 0.1, "Raspberry Pi 4");
        // Text a spreadsheet would run.
        doc["label"] = json!(format!("=HYPERLINK(\"x\") {n}"));
        let answer = post(&format!("{url}/api/v1/results"), &doc);
        assert_eq!(answer.status, 201, "{}", answer.body);
        docs.push(doc);
    }
    let gone = post(
        &format!("{url}/api/v1/results"),
        &device_doc(4, "Samsung", "SSD 860 EVO 500G", 0.1, "Raspberry Pi 4"),
    );
    let token = gone.json()["token"].as_str().unwrap().to_string();
    let deleted = http(
        "DELETE",
        &format!("{url}/api/v1/results/{}", ulid(4)),
        None,
        Some(&token),
    );
    assert_eq!(deleted.status, 200);
    // A dump made since the deletion holds the three; one made before it held them too.
    let index = dump_where(url, |d| d["results"] == 3);
    assert_eq!(index["licence"], "CC0-1.0");
    let files = files(url, &index);
    let (name, lines) = &files[0];
    assert_eq!(name, "results.jsonl.gz");
    let lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "a heading and three documents");
    assert_eq!(lines[0]["about"]["licence"], "CC0-1.0", "{}", lines[0]);
    for (line, doc) in lines[1..].iter().zip(&docs) {
        assert_eq!(line["id"], doc["id"]);
        assert_eq!(line["tests"], doc["tests"]);
        assert_eq!(line["label"], doc["label"]);
        // Sent with the folder it ran in; the site keeps none (issue 44).
        assert_eq!(doc["target"]["path"], "/mnt/card");
        assert_eq!(line["target"]["path"], "", "{line}");
    }
    let (name, table) = &files[1];
    assert_eq!(name, "results.csv.gz");
    let mut rows = table.lines();
    let heading = rows.next().unwrap();
    assert!(heading.starts_with("# iomark results from"), "{heading}");
    assert!(heading.ends_with("licence: CC0-1.0"), "{heading}");
    let body = rows.collect::<Vec<_>>().join("\n");
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let columns = reader.headers().unwrap().clone();
    for wanted in [
        "id",
        "device_name",
        "sold_as",
        "board",
        "seq1m_q8_read",
        "score",
    ] {
        assert!(columns.iter().any(|c| c == wanted), "{wanted}: {columns:?}");
    }
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 3);
    let at = |name: &str| columns.iter().position(|c| c == name).unwrap();
    assert_eq!(&records[0][at("id")], ulid(1));
    let listed = get(&format!("{url}/api/v1/results/{}", ulid(1))).json();
    assert_eq!(&records[0][at("device_name")], listed["device_name"]);
    assert!(
        records[0][at("label")].starts_with("'="),
        "{:?}",
        &records[0]
    );
    let figure: f64 = records[0][at("seq1m_q8_read")].parse().unwrap();
    assert!(figure > 0.0);
    // Told on /about, with the files; the files are never held by the answer cache.
    let about = get(&format!("{url}/about")).body;
    assert!(about.contains("<strong>CC0-1.0</strong>"), "{about}");
    assert!(about.contains("/api/v1/dump/results.csv.gz"), "{about}");
    let missing = get(&format!("{url}/api/v1/dump/results.tar"));
    assert_eq!(missing.status, 404, "{}", missing.body);
    no_leftovers(&dumps);
}

#[test]
fn a_dump_holds_every_public_result_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    holds_every_public_result(dir.path().join("site.db").to_str().unwrap());
}

#[test]
fn a_dump_holds_every_public_result_on_postgres() {
    let pg = Postgres::start();
    holds_every_public_result(&pg.database());
}

/// A site without dumps says so; the licence is still told.
#[test]
fn a_site_may_make_no_dumps() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "0"]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    for path in ["/api/v1/dump", "/api/v1/dump/results.jsonl.gz"] {
        let answer = get(&format!("{}{path}", site.url));
        assert_eq!(answer.status, 404, "{path}");
        assert!(answer.body.contains("makes no dumps"), "{}", answer.body);
    }
    let about = get(&format!("{}/about", site.url)).body;
    assert!(about.contains("<strong>CC-BY-4.0</strong>"), "{about}");
    assert!(!about.contains("results.jsonl.gz"), "{about}");
    assert!(!dir.path().join("iomark/dump").exists());
}

/// On a full disk no new dump is made: the last one is served whole, as its index says, and
/// nothing is left behind; once there is room again, the next one is made.
#[test]
fn a_full_disk_keeps_the_last_dump() {
    let Some(fs) = SmallFs::mount("256k") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let log = dir.path().join("serve.log");
    let mut args = NO_LIMITS.to_vec();
    args.extend([
        "--dump-every",
        "1s",
        "--dump-dir",
        fs.path.to_str().unwrap(),
    ]);
    let mut command = Site::command(db.to_str().unwrap(), dir.path(), &args);
    command.stderr(std::fs::File::create(&log).unwrap());
    let site = Site::launch(command);
    let url = &site.url;
    dump_where(url, |d| d["results"] == 0);
    // Fill the filesystem to its last block.
    let mut filler = std::fs::File::create(fs.path.join("filler")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    drop(filler);
    for n in 1..=2 {
        let doc = device_doc(n, "Samsung", "SSD 860 EVO 500G", 0.1, "Raspberry Pi 4");
        assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 201);
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("no new dump, the last one stays")
    {
        assert!(
            Instant::now() < deadline,
            "no dump was tried on the full disk"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let index = get(&format!("{url}/api/v1/dump")).json();
    // Whichever dump of the empty store was last made (one a second), never one of the two.
    assert_eq!(index["results"], 0, "{index}");
    let whole = files(url, &index);
    assert_eq!(whole[0].1.lines().count(), 1, "the heading alone");
    no_leftovers(&fs.path);
    std::fs::remove_file(fs.path.join("filler")).unwrap();
    let next = dump_where(url, |d| d["results"] == 2);
    assert_eq!(files(url, &next)[0].1.lines().count(), 3);
    no_leftovers(&fs.path);
}

/// What a killed server was writing is removed when the next one starts (regular files of its
/// own names only), the files of a dump from before go once a new one is in place, and links
/// at a dump's names are neither followed nor removed.
#[test]
fn leftovers_go_and_links_stay_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    std::fs::write(dumps.join(".making-1-2-results.jsonl.gz"), b"half").unwrap();
    let outside = dir.path().join("precious");
    std::fs::write(&outside, b"not iomark's").unwrap();
    std::os::unix::fs::symlink(&outside, dumps.join(".making-link")).unwrap();
    // Links where a dump's files were kept before they were named by their content, and where
    // an old one of them would be: never followed, never removed.
    std::os::unix::fs::symlink(&outside, dumps.join("results.csv.gz")).unwrap();
    std::os::unix::fs::symlink(&outside, dumps.join("0123456789abcdef-results.csv.gz")).unwrap();
    // A dump's file from before (a regular file at the name it is served as) goes.
    std::fs::write(dumps.join("results.jsonl.gz"), b"an old dump").unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "1s", "--dump-dir", dumps.to_str().unwrap()]);
    let mut site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let index = dump_where(&site.url, |_| true);
    files(&site.url, &index);
    assert!(!dumps.join(".making-1-2-results.jsonl.gz").exists());
    assert!(!dumps.join("results.jsonl.gz").exists());
    for link in [
        ".making-link",
        "results.csv.gz",
        "0123456789abcdef-results.csv.gz",
    ] {
        assert!(dumps.join(link).is_symlink(), "{link}");
    }
    assert_eq!(std::fs::read(&outside).unwrap(), b"not iomark's");
    // The folder holds the index, the lock and the files it names, besides the links, and
    // at most the files of the dump before it (a download begun from its index ends whole);
    // read once the server stopped, with no dump half made.
    site.stop();
    let index: Value =
        serde_json::from_slice(&std::fs::read(dumps.join("dump.json")).unwrap()).unwrap();
    let mut names = crate::common::entries(&dumps);
    names.sort();
    let before: Vec<String> = names
        .iter()
        .filter(|n| {
            n.split_once('-')
                .is_some_and(|(hash, _)| hash.len() == 16 && hash != "0123456789abcdef")
                && !index.to_string().contains(&n[..16])
        })
        .cloned()
        .collect();
    assert!(before.len() <= 3, "more than the dump before: {before:?}");
    names.retain(|n| !before.contains(n));
    let mut expected: Vec<String> = index["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let sha = f["sha256"].as_str().unwrap();
            format!("{}-{}", &sha[..16], f["name"].as_str().unwrap())
        })
        .chain(
            [
                ".making-link",
                "results.csv.gz",
                "0123456789abcdef-results.csv.gz",
            ]
            .iter()
            .chain(&["dump.json", "dump.lock"])
            .map(|n| n.to_string()),
        )
        .collect();
    expected.sort();
    assert_eq!(names, expected);
}

/// A dump is never put over a link someone left at the index's name: the file it points to
/// is untouched, the server says why it made no dump, and the files it wrote for it go.
#[test]
fn no_dump_is_put_over_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let outside = dir.path().join("precious");
    std::fs::write(&outside, b"not iomark's").unwrap();
    std::os::unix::fs::symlink(&outside, dumps.join("dump.json")).unwrap();
    let log = dir.path().join("serve.log");
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "1s", "--dump-dir", dumps.to_str().unwrap()]);
    let mut command = Site::command(db.to_str().unwrap(), dir.path(), &args);
    command.stderr(std::fs::File::create(&log).unwrap());
    let site = Site::launch(command);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("dump.json is not a regular file")
    {
        assert!(Instant::now() < deadline, "no dump was tried");
        std::thread::sleep(Duration::from_millis(100));
    }
    let refused = get(&format!("{}/api/v1/dump", site.url));
    assert_eq!(refused.status, 503);
    // Said: a dump was tried and failed, not that one is being made; why is the log's, which
    // names the server's folders.
    assert!(
        refused.body.contains("the last try") && refused.body.contains("failed"),
        "{}",
        refused.body
    );
    assert!(
        !refused.body.contains(dumps.to_str().unwrap()),
        "{}",
        refused.body
    );
    assert!(dumps.join("dump.json").is_symlink());
    assert_eq!(std::fs::read(&outside).unwrap(), b"not iomark's");
    let mut names = crate::common::entries(&dumps);
    names.sort();
    assert_eq!(names, ["dump.json", "dump.lock"]);
}

/// A restart keeps the last dump rather than making one again, unless the site now publishes
/// under another licence: then a new one, saying so, is made at once.
#[test]
fn a_new_licence_makes_a_new_dump_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let dumps = dir.path().join("dumps");
    let start = |licence: &str| {
        let mut args = NO_LIMITS.to_vec();
        args.extend(["--dump-every", "24h", "--dump-dir", dumps.to_str().unwrap()]);
        args.extend(["--data-licence", licence]);
        Site::start(db.to_str().unwrap(), dir.path(), &args)
    };
    let mut site = start("CC-BY-4.0");
    let first = dump_where(&site.url, |d| d["licence"] == "CC-BY-4.0");
    site.stop();
    // A dump made again would say a later second.
    std::thread::sleep(Duration::from_millis(1100));
    let mut site = start("CC-BY-4.0");
    std::thread::sleep(Duration::from_millis(500));
    let kept = get(&format!("{}/api/v1/dump", site.url)).json();
    assert_eq!(kept["made_at"], first["made_at"], "made again: {kept}");
    site.stop();
    let site = start("ODbL-1.0");
    let next = dump_where(&site.url, |d| d["licence"] == "ODbL-1.0");
    let lines = &files(&site.url, &next)[0].1;
    assert!(lines.contains("\"licence\":\"ODbL-1.0\""), "{lines}");
}

/// A stopped PostgreSQL makes no new dump and loses none: the last one is served whole while
/// the store is away, and the next is made once it is back, without a restart of the site.
#[test]
fn a_stopped_store_keeps_the_last_dump() {
    let mut pg = Postgres::start();
    let db = pg.database();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let dumps = dir.path().join("dumps");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "1s", "--dump-dir", dumps.to_str().unwrap()]);
    let mut command = Site::command(&db, dir.path(), &args);
    command.stderr(std::fs::File::create(&log).unwrap());
    let site = Site::launch(command);
    let url = &site.url;
    let doc = device_doc(1, "Samsung", "SSD 860 EVO 500G", 0.1, "Raspberry Pi 4");
    assert_eq!(post(&format!("{url}/api/v1/results"), &doc).status, 201);
    dump_where(url, |d| d["results"] == 1);
    if !pg.stop() {
        crate::common::skip("a PostgreSQL given by IOMARK_TEST_POSTGRES is not ours to stop");
        return;
    }
    // Two failed tries: what is served after the first is what is served after the second
    // (a dump whose reads had all ended before the stop may still have finished).
    let failures = || {
        std::fs::read_to_string(&log)
            .unwrap()
            .matches("no new dump, the last one stays")
            .count()
    };
    let wait_for = |count: usize| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while failures() < count {
            assert!(
                Instant::now() < deadline,
                "no dump was tried with the store away"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for(1);
    let kept = get(&format!("{url}/api/v1/dump")).json();
    wait_for(failures() + 1);
    let still = get(&format!("{url}/api/v1/dump")).json();
    assert_eq!(still, kept);
    assert_eq!(files(url, &still)[0].1.lines().count(), 2);
    no_leftovers(&dumps);
    pg.start_again();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = get(&format!("{url}/api/v1/dump")).json();
        if now["made_at"] != kept["made_at"] {
            assert_eq!(now["results"], 1, "{now}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no dump within 60 s of the store's return"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Several servers on one dump folder. While another holds the folder's lock (here the test,
/// as a server making a dump would), a server removes nothing there and makes no dump, and
/// says the first is being made; once it is let go, it makes one. A second server started
/// later serves that dump as its own (not due yet: none made again), its files as its index
/// says, and removes what no server is writing any more.
#[test]
fn servers_share_one_dump_folder() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let dumps = dir.path().join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    let writing = dumps.join(".making-9-9-results.csv.gz");
    std::fs::write(&writing, b"another server's dump, half written").unwrap();
    let lock = std::fs::File::create(dumps.join("dump.lock")).unwrap();
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let start = |every: &str| {
        let mut args = NO_LIMITS.to_vec();
        args.extend(["--dump-every", every, "--dump-dir", dumps.to_str().unwrap()]);
        Site::start(db.to_str().unwrap(), dir.path(), &args)
    };
    let mut first = start("1s");
    let doc = device_doc(1, "SanDisk", "Ultra Fit", 0.02, "Raspberry Pi 4 Model B");
    assert_eq!(
        post(&format!("{}/api/v1/results", first.url), &doc).status,
        201
    );
    std::thread::sleep(Duration::from_millis(2500));
    let waiting = get(&format!("{}/api/v1/dump", first.url));
    assert_eq!(waiting.status, 503, "{}", waiting.body);
    assert!(waiting.body.contains("being made"), "{}", waiting.body);
    assert!(writing.exists(), "removed while another held the lock");
    assert!(
        !dumps.join("dump.json").exists(),
        "made while another held the lock"
    );

    drop(lock);
    dump_where(&first.url, |d| d["results"] == 1);
    assert!(first.stop().success());
    // The last dump the first server made (it makes one a second).
    let made: Value =
        serde_json::from_slice(&std::fs::read(dumps.join("dump.json")).unwrap()).unwrap();
    let mut second = start("24h");
    let index = get(&format!("{}/api/v1/dump", second.url)).json();
    assert_eq!(index["made_at"], made["made_at"], "the first server's dump");
    assert_eq!(index["results"], 1);
    let files = files(&second.url, &index);
    assert!(files[0].1.contains(&ulid(1)), "{}", files[0].1);
    assert!(!writing.exists(), "a leftover once nobody held the lock");
    no_leftovers(&dumps);
    assert!(second.stop().success());
}

/// Results `1..=count` (a SanDisk stick's) imported into `db` before a site starts on it.
fn imported(dir: &Path, db: &Path, count: u32) {
    for n in 1..=count {
        let d = device_doc(n, "SanDisk", "Ultra", 0.05, "Raspberry Pi 4 Model B");
        let file = crate::common::write_doc(dir, &d);
        crate::common::ok(
            crate::common::iomark(dir)
                .arg("import")
                .arg(&file)
                .arg("--db")
                .arg(db),
        );
    }
}

/// Issue 44: a deleted or hidden result stayed in the dump served until the next one (24 h by
/// default). Issue 59: served no more until a new one was made, the dump was away as long as
/// deletions came. The last dump stays served, and the result leaves it within a minute.
#[test]
fn a_hidden_result_leaves_the_dump_served() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let dumps = dir.path().join("dumps");
    // Two results in the store before the site starts: its first dump holds both.
    imported(dir.path(), &db, 2);
    let secret = "moderators-secret-0123456789abcdef-dump";
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, secret).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "24h", "--dump-dir", dumps.to_str().unwrap()]);
    args.extend(["--admin-token-file", secret_file.to_str().unwrap()]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let url = &site.url;
    let before = dump_where(url, |d| d["results"] == 2);
    let gone = ulid(2);
    let hidden = http(
        "POST",
        &format!("{url}/api/v1/admin/results/{gone}/hide"),
        Some(br#"{"reason": "a test"}"#),
        Some(secret),
    );
    assert_eq!(hidden.status, 200, "{}", hidden.body);
    // The dump is served all along: the last one, then the one without it.
    assert_eq!(get(&format!("{url}/api/v1/dump")).status, 200);
    let path = before["files"][0]["path"].as_str().unwrap();
    assert_eq!(get_bytes(&format!("{url}{path}")).0, 200);
    // Without it within a minute, not a day; made no later than before, patched since.
    let after = dump_where(url, |d| d["results"] == 1);
    assert_eq!(after["made_at"], before["made_at"], "{after}");
    assert!(after["patched_at"].is_string(), "{after}");
    for (name, text) in files(url, &after) {
        assert!(!text.contains(&gone), "{name} holds the hidden result");
        // The results' files (the cards' health checks hold no result).
        if name.starts_with("results.") {
            assert!(text.contains(&ulid(1)), "{name} lost the other one");
        }
    }
}

/// Issue 59: each deletion took the dump down until a new one was made; 4 clients sending and
/// deleting results in a loop kept it away for 146 of 147 requests over 30 s. Under the same
/// loop for 15 s the dump is answered every time, and after it still holds the three results
/// it was made with and none of those deleted (they came after it was made: that a deleted
/// result leaves the dump is `a_hidden_result_leaves_the_dump_served`'s).
#[test]
fn deletions_keep_the_dump_up() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let dumps = dir.path().join("dumps");
    imported(dir.path(), &db, 3);
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "24h", "--dump-dir", dumps.to_str().unwrap()]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let url = site.url.clone();
    dump_where(&url, |d| d["results"] == 3);
    let stop = Arc::new(AtomicBool::new(false));
    let deleted = Arc::new(Mutex::new(Vec::new()));
    let loops: Vec<_> = (0..4u32)
        .map(|k| {
            let (url, stop, deleted) = (url.clone(), stop.clone(), deleted.clone());
            std::thread::spawn(move || {
                let mut n = 100 + k * 10_000;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    // Each its own measurement (a copy of a deleted one is refused, 410: so is
                    // one whose every rate is within a thousandth of a deleted one's), the
                    // threads' documents interleaved, each 0.15% from the next.
                    let m = (n - 100 - k * 10_000) * 4 + k;
                    let scale = 0.05 * 1.0015f64.powi(m as i32);
                    let d = device_doc(n, "Churn", "Stick", scale, "Raspberry Pi 4 Model B");
                    let sent = post(&format!("{url}/api/v1/results"), &d);
                    assert_eq!(sent.status, 201, "{}", sent.body);
                    let token = sent.json()["token"].as_str().unwrap().to_string();
                    let at = format!("{url}/api/v1/results/{}", ulid(n));
                    let gone = http("DELETE", &at, None, Some(&token));
                    assert_eq!(gone.status, 200, "{}", gone.body);
                    deleted.lock().unwrap().push(ulid(n));
                }
            })
        })
        .collect();
    let until = Instant::now() + Duration::from_secs(15);
    let (mut asked, mut answered) = (0, 0);
    while Instant::now() < until {
        asked += 1;
        let index = get(&format!("{url}/api/v1/dump"));
        if index.status == 200 {
            let path = index.json()["files"][0]["path"]
                .as_str()
                .unwrap()
                .to_string();
            if get_bytes(&format!("{url}{path}")).0 == 200 {
                answered += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    for l in loops {
        l.join().unwrap();
    }
    assert_eq!(
        answered,
        asked,
        "the dump was away for {} of {asked}",
        asked - answered
    );
    let deleted = deleted.lock().unwrap().clone();
    assert!(deleted.len() > 10, "{} deleted", deleted.len());
    let after = dump_where(&url, |d| d["results"] == 3);
    let results = files(&url, &after);
    for (name, text) in &results {
        if name.starts_with("results.") {
            for id in &deleted {
                assert!(!text.contains(id.as_str()), "{name} holds deleted {id}");
            }
            for n in 1..=3 {
                assert!(text.contains(&ulid(n)), "{name} lost {}", ulid(n));
            }
        }
    }
}

/// A file is downloaded as the index that named it describes, while a newer dump replaces it:
/// the index's `path` names that very file, kept until the dump after the next (the power-cut
/// test read a file a patch had rewritten since its index: 185 bytes where it said 186).
#[test]
fn a_file_is_the_one_its_index_named() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--dump-every", "1s", "--dump-dir", dumps.to_str().unwrap()]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let url = &site.url;
    let first = dump_where(url, |_| true);
    let made = first["made_at"].clone();
    let second = dump_where(url, |d| d["made_at"] != made);
    // The first index's files, whole, though a newer dump is in place.
    assert!(first["files"][0]["path"]
        .as_str()
        .unwrap()
        .contains("?sha256="));
    files(url, &first);
    let made = second["made_at"].clone();
    dump_where(url, |d| d["made_at"] != made);
    let gone = get(&format!(
        "{url}{}",
        first["files"][0]["path"].as_str().unwrap()
    ));
    assert_eq!(gone.status, 404, "{}", gone.body);
    assert!(
        gone.body.contains("read /api/v1/dump again"),
        "{}",
        gone.body
    );
    for bad in ["zz", "0123", "g123456789abcdef"] {
        let answer = get(&format!("{url}/api/v1/dump/results.csv.gz?sha256={bad}"));
        assert_eq!(answer.status, 400, "{bad}: {}", answer.body);
    }
    // Without one, the last dump's.
    assert_eq!(
        get(&format!("{url}/api/v1/dump/results.csv.gz")).status,
        200
    );
}
