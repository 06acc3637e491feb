//! Issue 47: what iomark says it saved is there after a power cut, not only after a crash.
//! Each test writes to a disk that forgets what was not flushed (`common::power`), cuts its
//! power at moments chosen by a seed (printed; `IOMARK_POWER_SEED` repeats a run,
//! `IOMARK_POWER_CUTS` sets how many), mounts what survived and checks it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::power::Disk;
use crate::common::site::ulid;
use crate::common::{doc, iomark, write_doc};

/// A seeded sequence of numbers (xorshift), so that a failing run can be repeated.
struct Dice(u64);

impl Dice {
    fn from_env() -> Dice {
        let seed = std::env::var("IOMARK_POWER_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            });
        eprintln!("power cuts: IOMARK_POWER_SEED={seed}");
        Dice(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn cuts(default: usize) -> usize {
    std::env::var("IOMARK_POWER_CUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Waits until `child` ends or `until` comes, whichever is first: its status if it ended.
fn ended_by(child: &mut Child, until: Instant) -> Option<std::process::ExitStatus> {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Stops `child` where it is (nothing it says after this is believed), for the cut.
fn freeze(child: &Child) {
    // SAFETY: a signal to a process of our own.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGSTOP);
    }
}

/// Ends a frozen `child` after the cut.
fn end(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The ids the store at `db` lists, read by iomark itself (which rolls back what a cut left
/// half done), and SQLite's own check of the file.
fn stored(db: &Path, home: &Path) -> (Vec<String>, String) {
    let out = iomark(home)
        .args(["history", "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the store did not open after a cut: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let check = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])")
        .arg(db)
        .output()
        .expect("python3 (with its sqlite3 module) checks the store");
    (
        ids,
        String::from_utf8_lossy(&check.stdout).trim().to_string(),
    )
}

/// What the last step of a round of the history test does.
enum Step {
    Import(String),
    Delete(String),
    /// With the ids the store held as the backup began.
    Backup(Vec<String>),
}

/// The local history (runs saved by `import`, as `run` saves them; `delete`; `store backup`)
/// cut at any moment: the store opens and is whole, every run reported saved is there and
/// every run reported deleted is not, none is there in part, and the backup file is a whole
/// store, the last one reported or the one under way. The issue saw every one of 8 runs lost
/// when cut in the seconds after "Saved as": SQLite's rollback journal came back, its
/// deletion never synced.
#[test]
fn the_history_outlives_a_power_cut() {
    let Some(mut disk) = Disk::formatted(64 << 20) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut dice = Dice::from_env();
    let mut saved: Vec<String> = Vec::new();
    let mut deleted = 0;
    // The ids of the last backup reported made, if one was.
    let mut backed_up: Option<Vec<String>> = None;
    let mut n = 0u32;
    let total = cuts(25);
    let started = Instant::now();
    let import = |n: u32, db: &Path| {
        let id = ulid(n);
        let file = write_doc(home.path(), &doc(&id, "2026-03-01T10:00:00Z", &[], 0.01));
        let mut command = iomark(home.path());
        command.arg("import").arg(&file).arg("--db").arg(db);
        (command, id)
    };
    for cut in 0..total {
        let db = disk.mount.join("results.db");
        let backup = disk.mount.join("backup.db");
        for _ in 0..dice.below(3) {
            n += 1;
            let (mut command, id) = import(n, &db);
            assert!(
                command.stdout(Stdio::null()).status().unwrap().success(),
                "import failed before any cut"
            );
            saved.push(id);
        }
        // The last step, cut at a moment between its start and 1.2 s after.
        let (mut command, step) = match dice.below(4) {
            0 if !saved.is_empty() => {
                let id = saved[dice.below(saved.len() as u64) as usize].clone();
                let mut command = iomark(home.path());
                command.args(["delete", &id, "--db"]).arg(&db);
                (command, Step::Delete(id))
            }
            1 => {
                let mut command = iomark(home.path());
                command
                    .args(["store", "backup", "--db"])
                    .arg(&db)
                    .arg(&backup);
                let mut ids = saved.clone();
                ids.sort();
                (command, Step::Backup(ids))
            }
            _ => {
                n += 1;
                let (command, id) = import(n, &db);
                (command, Step::Import(id))
            }
        };
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let wait = Duration::from_millis(dice.below(1200));
        let until = Instant::now() + wait;
        // Done (its exit seen) before the cut counts as said; one still running does not.
        let said = match ended_by(&mut child, until) {
            Some(status) => {
                assert!(status.success(), "a step failed before the cut");
                true
            }
            None => false,
        };
        if said {
            std::thread::sleep(until.saturating_duration_since(Instant::now()));
            match &step {
                Step::Import(id) => saved.push(id.clone()),
                Step::Delete(id) => {
                    saved.retain(|s| s != id);
                    deleted += 1;
                }
                Step::Backup(ids) => backed_up = Some(ids.clone()),
            }
        } else {
            freeze(&child);
        }
        let tear = (dice.below(2) == 0).then(|| dice.next());
        let image = disk.cut(tear);
        end(child);
        drop(disk);
        disk = Disk::after(image);
        let db = disk.mount.join("results.db");
        let repeat = "IOMARK_POWER_SEED above repeats this";
        let (ids, integrity) = stored(&db, home.path());
        assert_eq!(
            integrity, "ok",
            "cut {cut}: the store is damaged ({repeat})"
        );
        // A deletion the cut interrupted may have been kept: its run is not lost if gone.
        let interrupted = match (&step, said) {
            (Step::Delete(id), false) => Some(id),
            _ => None,
        };
        let lost: Vec<&String> = saved
            .iter()
            .filter(|s| !ids.contains(s) && interrupted != Some(*s))
            .collect();
        assert!(
            lost.is_empty(),
            "cut {cut} ({} ms into the last step, tear {tear:?}): runs reported saved are \
             gone: {lost:?} ({repeat})",
            wait.as_millis()
        );
        if let (true, Step::Delete(id)) = (said, &step) {
            assert!(
                !ids.contains(id),
                "cut {cut}: {id} was reported deleted ({repeat})"
            );
        }
        if let Some(wanted) = &backed_up {
            let (mut kept, integrity) = stored(&disk.mount.join("backup.db"), home.path());
            kept.sort();
            let under_way = match (&step, said) {
                (Step::Backup(ids), false) => Some(ids),
                _ => None,
            };
            assert!(
                integrity == "ok" && (&kept == wanted || under_way == Some(&kept)),
                "cut {cut}: the backup holds {kept:?} ({integrity}), not the {wanted:?} \
                 reported ({repeat})"
            );
        }
        // A step the cut interrupted may have been kept whole; it counts from now on.
        match (&step, said) {
            (Step::Import(id), false) if ids.contains(id) => saved.push(id.clone()),
            (Step::Delete(id), false) if !ids.contains(id) => saved.retain(|s| s != id),
            _ => {}
        }
    }
    eprintln!(
        "power cuts: {total} cuts, {} runs saved and {deleted} deleted, none lost, in {:.0} s",
        saved.len() + deleted,
        started.elapsed().as_secs_f64()
    );
}

/// One SQLite query's rows, as text, by Python's sqlite3 (the server may be running: the
/// store is in WAL mode).
fn query(db: &Path, sql: &str) -> Vec<String> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import sqlite3, sys\n\
             for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):\n\
             \x20   print('|'.join(str(v) for v in row))",
        )
        .arg(db)
        .arg(sql)
        .output()
        .expect("python3 (with its sqlite3 module) reads the store");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A site on SQLite taking submissions from 4 clients, cut at a moment between 0.2 and 1.5 s
/// into each burst: after each cut the server starts, every submission answered 201 is
/// there with its figures, SQLite finds the file whole, the device's aggregate counts every
/// result that survived, and the dump made each second is served whole (the last one seen
/// before the cut, or a newer one).
#[test]
fn submissions_answered_201_outlive_a_power_cut() {
    use crate::common::site::{device_doc, dump_files, get, post, Site, NO_LIMITS};
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::{Arc, Mutex};

    let Some(mut disk) = Disk::formatted(128 << 20) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut dice = Dice::from_env();
    let acknowledged: Arc<Mutex<Vec<(String, f64)>>> = Arc::default();
    let next = Arc::new(AtomicU32::new(0));
    let total = cuts(15);
    let started = Instant::now();
    let db_of = |disk: &Disk| disk.mount.join("site.db").display().to_string();
    // A dump of every result made each second on the same disk: after a cut, the last one
    // seen is still served whole, or a newer one is (never a file of one beside the index of
    // the other, never none).
    let dumps_of = |disk: &Disk| disk.mount.join("dump").display().to_string();
    let start = |disk: &Disk| {
        let dumps = dumps_of(disk);
        let mut args = NO_LIMITS.to_vec();
        args.extend(["--dump-every", "1s", "--dump-dir", &dumps]);
        Site::start(&db_of(disk), home.path(), &args)
    };
    let mut site = start(&disk);
    let mut dumped = 0;
    for cut in 0..total {
        // A dump served before the burst has been through the fsyncs of many commits since.
        let dump_before = get(&format!("{}/api/v1/dump", site.url)).status == 200;
        let stop = Arc::new(AtomicBool::new(false));
        let clients: Vec<_> = (0..4)
            .map(|_| {
                let (url, stop) = (site.url.clone(), stop.clone());
                let (next, acknowledged) = (next.clone(), acknowledged.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        let n = next.fetch_add(1, Ordering::SeqCst) + 1;
                        // Figures of their own: the same figures sent again by one
                        // submitter are one result.
                        let scale = 0.05 + f64::from(n) * 1e-5;
                        let doc = device_doc(n, "Power", "Card", scale, "Raspberry Pi 4 Model B");
                        let read = doc["tests"][0]["mb_per_s"].as_f64().unwrap();
                        let answer = post(&format!("{url}/api/v1/results"), &doc);
                        if answer.status == 201 {
                            let id = doc["id"].as_str().unwrap().to_string();
                            acknowledged.lock().unwrap().push((id, read));
                        }
                    }
                })
            })
            .collect();
        let wait = Duration::from_millis(200 + dice.below(1300));
        std::thread::sleep(wait);
        // SAFETY: a signal to the server this test started.
        unsafe { libc::kill(site.pid() as i32, libc::SIGSTOP) };
        let tear = (dice.below(2) == 0).then(|| dice.next());
        let image = disk.cut(tear);
        stop.store(true, Ordering::SeqCst);
        site.kill();
        for client in clients {
            client.join().unwrap();
        }
        drop(disk);
        disk = Disk::after(image);
        site = start(&disk);
        let dump = get(&format!("{}/api/v1/dump", site.url));
        if dump_before {
            assert_eq!(
                dump.status, 200,
                "cut {cut}: the dump served before the cut is gone: {} (IOMARK_POWER_SEED \
                 above repeats this)",
                dump.body
            );
        }
        if dump.status == 200 {
            let files = dump_files(&site.url, &dump.json());
            assert_eq!(
                files[0].1.lines().count() as u64,
                dump.json()["results"].as_u64().unwrap() + 1,
                "cut {cut}"
            );
            dumped += 1;
        }
        let db = disk.mount.join("site.db");
        assert_eq!(
            query(&db, "PRAGMA integrity_check"),
            ["ok"],
            "cut {cut}: the store is damaged (IOMARK_POWER_SEED above repeats this)"
        );
        let stored: std::collections::HashMap<String, f64> = query(
            &db,
            "SELECT id, json_extract(document, '$.tests[0].mb_per_s') FROM results",
        )
        .into_iter()
        .map(|line| {
            let (id, read) = line.split_once('|').unwrap();
            (id.to_string(), read.parse().unwrap())
        })
        .collect();
        let said = acknowledged.lock().unwrap().clone();
        let lost: Vec<&String> = said
            .iter()
            .filter(|(id, read)| stored.get(id) != Some(read))
            .map(|(id, _)| id)
            .collect();
        assert!(
            lost.is_empty(),
            "cut {cut} ({} ms into the burst, tear {tear:?}): {} of {} submissions answered \
             201 are gone or changed: {lost:?} (IOMARK_POWER_SEED above repeats this)",
            wait.as_millis(),
            lost.len(),
            said.len()
        );
        // The device's aggregate counts every result that survived (the posts' figures are
        // all different), once the server has refreshed what the cut left stale.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let counted = query(
                &db,
                "SELECT results FROM devices WHERE scope = '' AND class = 'standard/direct/random'",
            );
            let entries = query(
                &db,
                "SELECT COUNT(*) FROM entries WHERE device_key IS NOT NULL",
            );
            if counted == entries {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "cut {cut}: the aggregate counts {counted:?} results of {entries:?}: {:?} {:?} \
                 {:?} {:?}",
                query(
                    &db,
                    "SELECT COUNT(*), COUNT(flag), COUNT(held), COUNT(submitter), \
                     COUNT(token_hash), COUNT(DISTINCT seq1m_q8_read) FROM entries"
                ),
                query(&db, "SELECT class, scope, results, submitters FROM devices"),
                query(&db, "SELECT COUNT(*) FROM results"),
                query(&db, "SELECT * FROM stale"),
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    eprintln!(
        "power cuts: {total} cuts, {} submissions answered 201, none lost, a whole dump \
         served after {dumped}, in {:.0} s",
        acknowledged.lock().unwrap().len(),
        started.elapsed().as_secs_f64()
    );
}

/// `iomark verify` of 40 MiB on the disk, cut at a moment while it runs (the first runs
/// whole, to time it), then resumed (or begun again, where the cut left no folder of its): it
/// ends saying every byte it planned is intact, as it does with no cut. A state that counted
/// a file the cut took back would skip writing it, and the read-back would find it wrong.
#[test]
fn a_verify_resumed_after_a_power_cut_says_what_it_checked() {
    let Some(mut disk) = Disk::formatted(128 << 20) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut dice = Dice::from_env();
    let total = cuts(10);
    let started = Instant::now();
    let mut interrupted = 0;
    // How long one takes uncut.
    let mut whole: Option<u64> = None;
    for cut in 0..total {
        let json = home.path().join(format!("cut-{cut}.json"));
        let verify = |mount: &Path, json: &Path, resume: bool| {
            let mut command = iomark(home.path());
            command
                .arg("verify")
                .arg(mount)
                .args(["--no-save", "--json"])
                .arg(json);
            if resume {
                command.arg("--resume");
            } else {
                command.args(["--size", "40MiB"]);
            }
            command.stdout(Stdio::null()).stderr(Stdio::piped());
            command
        };
        let mut child = verify(&disk.mount, &json, false).spawn().unwrap();
        let began = Instant::now();
        let until = match whole {
            Some(whole) => began + Duration::from_millis(dice.below(whole.max(1))),
            None => began + Duration::from_secs(600),
        };
        if ended_by(&mut child, until).is_some() {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            whole.get_or_insert(began.elapsed().as_millis() as u64);
        } else {
            interrupted += 1;
            freeze(&child);
            let tear = (dice.below(2) == 0).then(|| dice.next());
            let image = disk.cut(tear);
            end(child);
            drop(disk);
            disk = Disk::after(image);
            let resume = disk.mount.join("iomark-verify").exists();
            let out = verify(&disk.mount, &json, resume).output().unwrap();
            assert!(
                out.status.success(),
                "cut {cut}: verify {}after the cut failed: {} (IOMARK_POWER_SEED above \
                 repeats this)",
                if resume { "--resume " } else { "" },
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let v = &doc["verify"];
        assert!(
            v["ok"] == true && v["bad_bytes"] == 0 && v["good_bytes"] == v["planned_bytes"],
            "cut {cut}: {v} (IOMARK_POWER_SEED above repeats this)"
        );
        assert!(
            !disk.mount.join("iomark-verify").exists(),
            "cut {cut}: files left"
        );
    }
    eprintln!(
        "power cuts: {total} verifies, {interrupted} cut and resumed, each intact, in {:.0} s",
        started.elapsed().as_secs_f64()
    );
}
