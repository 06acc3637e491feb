//! Issue 48's degraded cards: `common::power`'s disk (a FUSE file as a loop device, ext4 on
//! it) made to fail as dying cards do, each begun after a healthy check, each caught with its
//! verdict at the first check after: cells that lose their charge (bytes that change under the
//! canaries, no write of anyone's), sectors that no longer read (EIO), writes that stall for
//! seconds. And a healthy card under a steady write load of another program's, checked a
//! thousand times, never once warned about.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::power::Disk;
use crate::common::{iomark, need, ok};
use crate::health::{check, signal};

/// Where a file's first block is on its disk, in bytes (`filefrag`'s physical extents).
fn first_block_on_disk(file: &Path) -> usize {
    need("filefrag", "e2fsprogs");
    let out = ok(Command::new("filefrag").args(["-e", "-b4096"]).arg(file));
    let text = String::from_utf8_lossy(&out.stdout);
    // "   0:        0..      63:      34816..     34879:     64:  last,eof"
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("0:"))
        .unwrap_or_else(|| panic!("{text}"));
    let physical = line.split(':').nth(2).unwrap().split("..").next().unwrap();
    physical.trim().parse::<usize>().unwrap() * 4096
}

/// A healthy first check of a new disk, the store in `home`.
fn healthy_disk(home: &Path) -> Option<Disk> {
    let disk = Disk::formatted(64 << 20)?;
    let first = check(home, &disk.mount, &[]);
    assert_eq!(
        first["health"]["verdict"], "healthy",
        "{:#}",
        first["health"]
    );
    Some(disk)
}

#[test]
fn a_card_whose_cells_change_what_they_hold_is_lying_at_the_next_check() {
    let home = tempfile::tempdir().unwrap();
    let Some(disk) = healthy_disk(home.path()) else {
        return;
    };
    let at = first_block_on_disk(&disk.mount.join("iomark-health/canary-1"));
    disk.decay(at + 1000, 3);
    let doc = check(home.path(), &disk.mount, &[]);
    let h = &doc["health"];
    assert_eq!(h["verdict"], "lying", "{h:#}");
    // Three bytes in one sector, and no more.
    assert_eq!(h["canary_bad_bytes"], 512, "{h:#}");
    assert_eq!(signal(&doc, "canaries").unwrap()["state"], "lying");
}

#[test]
fn a_card_whose_sectors_no_longer_read_is_failing_at_the_next_check() {
    let home = tempfile::tempdir().unwrap();
    let Some(disk) = healthy_disk(home.path()) else {
        return;
    };
    let at = first_block_on_disk(&disk.mount.join("iomark-health/canary-2"));
    disk.fail_reads(at..at + 4096);
    let doc = check(home.path(), &disk.mount, &[]);
    let h = &doc["health"];
    assert_eq!(h["verdict"], "failing", "{h:#}");
    assert_eq!(h["canary_unreadable_bytes"], 256 << 10, "one canary: {h:#}");
    assert_eq!(h["canary_bad_bytes"], 0);
    let canaries = signal(&doc, "canaries").unwrap();
    assert_eq!(canaries["state"], "failing");
    assert!(
        canaries["evidence"]
            .as_str()
            .unwrap()
            .contains("could not be read"),
        "{canaries}"
    );
}

#[test]
fn a_card_whose_writes_stall_for_seconds_is_to_watch_at_the_next_check() {
    let home = tempfile::tempdir().unwrap();
    let Some(disk) = healthy_disk(home.path()) else {
        return;
    };
    disk.stall_flushes(Duration::from_millis(1200));
    let doc = check(home.path(), &disk.mount, &[]);
    let h = &doc["health"];
    assert_eq!(h["verdict"], "watch", "{h:#}");
    assert_eq!(signal(&doc, "write_stalls").unwrap()["state"], "watch");
    assert!(
        h["synced_write_ms"]["max"].as_f64().unwrap() >= 1000.0,
        "{h:#}"
    );
    // What it holds is still whole: it is slow, not lying.
    assert_eq!(h["canary_bad_bytes"], 0);
    assert_eq!(h["fresh_write_kept"], true);
}

/// A card in good health, with another program writing to it the whole time (64 KiB at a
/// time, synced every MiB, over a file it keeps rewriting, as a logger or a database does),
/// is checked 1,000 times: every check healthy. The first checks, which later ones are
/// compared with, are made under the same load.
#[test]
fn a_healthy_card_under_a_write_load_gets_no_warning_in_a_thousand_checks() {
    let home = tempfile::tempdir().unwrap();
    let Some(disk) = Disk::formatted(96 << 20) else {
        return;
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (stop, file) = (stop.clone(), disk.mount.join("logger.dat"));
        std::thread::spawn(move || {
            use std::io::{Seek, Write};
            let mut out = std::fs::File::create(&file).unwrap();
            let chunk = vec![0x5au8; 64 << 10];
            let (mut written, mut total) = (0u64, 0u64);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                out.write_all(&chunk).unwrap();
                written += chunk.len() as u64;
                total += chunk.len() as u64;
                if written % (1 << 20) == 0 {
                    out.sync_data().unwrap();
                }
                if written >= 16 << 20 {
                    out.rewind().unwrap();
                    written = 0;
                }
            }
            total
        })
    };
    let began = Instant::now();
    let mut verdicts = std::collections::BTreeMap::<String, Vec<u64>>::new();
    for n in 1..=1000u64 {
        let out = iomark(home.path())
            .arg("health")
            .arg(&disk.mount)
            .args(["--no-save", "--monitor"])
            .output()
            .unwrap();
        let line = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let verdict = line.split(" - ").next().unwrap_or_default().to_string();
        if verdict != "HEALTH OK" {
            eprintln!("check {n}: {line}");
        }
        verdicts.entry(verdict).or_default().push(n);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let loaded = writer.join().unwrap();
    let seconds = began.elapsed().as_secs_f64();
    eprintln!(
        "1,000 checks in {seconds:.1} s beside {:.0} MiB written by the other program",
        loaded as f64 / (1 << 20) as f64
    );
    // The load was there the whole time: at least 1 MiB a second of it.
    assert!(
        loaded as f64 >= seconds * (1 << 20) as f64,
        "{loaded} bytes in {seconds} s"
    );
    let warned: Vec<_> = verdicts.iter().filter(|(v, _)| *v != "HEALTH OK").collect();
    assert!(warned.is_empty(), "checks warned, by verdict: {warned:?}");
    assert_eq!(verdicts["HEALTH OK"].len(), 1000);
}
