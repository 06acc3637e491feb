//! `iomark store backup`: a copy of a SQLite store taken while a server writes to it holds
//! every result answered 201 before it began, serves as a store of its own (the restore), and
//! a backup that cannot be made (a full disk, a link, the store itself) leaves FILE as it was.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::site::{device_doc, get, post, ulid, Site, NO_LIMITS};
use crate::common::{iomark, ok, write_doc, SmallFs};

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.contains("partial"))
        .collect()
}

#[test]
fn a_backup_under_submissions_holds_every_result_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &NO_LIMITS);
    let url = site.url.clone();
    // Submissions go on, bounded, while the backup is taken.
    let answered = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let submitter = {
        let (answered, stop, url) = (answered.clone(), stop.clone(), url.clone());
        std::thread::spawn(move || {
            for n in 1..=400 {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                // Figures of its own each: one submitter's same figures are one result.
                let scale = 0.02 + f64::from(n) / 100_000.0;
                let doc = device_doc(n, "Backed", "Up", scale, "Raspberry Pi 4 Model B");
                if post(&format!("{url}/api/v1/results"), &doc).status == 201 {
                    answered.lock().unwrap().push(ulid(n));
                }
            }
        })
    };
    while answered.lock().unwrap().len() < 40 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let before: Vec<String> = answered.lock().unwrap().clone();
    let backup = home.join("backup.db");
    let out = ok(iomark(home)
        .args(["store", "backup"])
        .arg(&backup)
        .arg("--db")
        .arg(&db));
    stop.store(true, Ordering::SeqCst);
    submitter.join().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("checked"), "{said}");
    let mode = std::fs::metadata(&backup).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o600,
        "a backup holds token hashes: its owner's alone"
    );
    assert!(leftovers(home).is_empty(), "{:?}", leftovers(home));
    // Restored: a server on the copy answers every result answered 201 before the backup.
    let restored = tempfile::tempdir().unwrap();
    let copy = restored.path().join("restored.db");
    std::fs::copy(&backup, &copy).unwrap();
    let second = Site::start(copy.to_str().unwrap(), restored.path(), &NO_LIMITS);
    for id in &before {
        let answer = get(&format!("{}/api/v1/results/{id}", second.url));
        assert_eq!(answer.status, 200, "{id} lost: {}", answer.body);
    }
    let board = get(&format!("{}/api/v1/leaderboard?q=backed", second.url)).json();
    let counted = board["devices"][0]["results"].as_u64().unwrap();
    assert!(counted >= before.len() as u64, "{board}");
}

#[test]
fn a_backup_that_cannot_be_made_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("results.db");
    for n in 1..=3 {
        let doc = device_doc(n, "Backed", "Up", 0.02, "Raspberry Pi 4 Model B");
        ok(iomark(home)
            .arg("import")
            .arg(write_doc(home, &doc))
            .arg("--db")
            .arg(&db));
    }
    let refused = |file: &Path, db: &str| {
        let out = iomark(home)
            .args(["store", "backup"])
            .arg(file)
            .args(["--db", db])
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let db_text = db.to_str().unwrap();
    // A link, the store itself, a folder that is not there, a PostgreSQL store.
    let precious = home.join("precious");
    std::fs::write(&precious, b"not a store").unwrap();
    let link = home.join("link.db");
    std::os::unix::fs::symlink(&precious, &link).unwrap();
    assert!(refused(&link, db_text).contains("symbolic link"));
    assert_eq!(std::fs::read(&precious).unwrap(), b"not a store");
    assert!(refused(&db, db_text).contains("the store itself"));
    assert!(refused(&home.join("no/such/x.db"), db_text).contains("no such directory"));
    let said = refused(&home.join("pg.db"), "postgres://iomark@127.0.0.1:9/x");
    assert!(said.contains("pg_dump"), "{said}");
    assert!(leftovers(home).is_empty(), "{:?}", leftovers(home));
    // A full disk: the last backup there stays whole.
    let Some(fs) = SmallFs::mount("64k") else {
        return;
    };
    let old = fs.path.join("backup.db");
    std::fs::write(&old, b"yesterday's backup").unwrap();
    let said = refused(&old, db_text);
    assert!(said.contains("no backup was made"), "{said}");
    assert_eq!(std::fs::read(&old).unwrap(), b"yesterday's backup");
    assert!(leftovers(&fs.path).is_empty(), "{:?}", leftovers(&fs.path));
    // With room, the same backup is made, and it is a store.
    let roomy = home.join("backup.db");
    ok(iomark(home)
        .args(["store", "backup"])
        .arg(&roomy)
        .args(["--db", db_text]));
    let history = ok(iomark(home).args(["history", "--json", "--db", roomy.to_str().unwrap()]));
    let listed: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3);
}
