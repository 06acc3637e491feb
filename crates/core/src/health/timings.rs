//! The timings of a check: small writes in place, each synced to the device; small reads past
//! the cache at places through the canaries; and both against the first checks', which a
//! folder keeps as its baseline.

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::time::Instant;

use super::folder::{self, Folder, CANARIES, CANARY_BYTES};
use super::{median, signal, Figures, FLOOR_READ_US, FLOOR_WRITE_MS, READS, SLOWER, SMALL};
use super::{STALL_MS, SYNCED_WRITES};
use crate::verify::pass::Aligned;
use crate::verify::pattern;
use iomark_result::result::health::{Signal, Spread};

/// Small writes in place, each synced to the device, timed.
pub(super) fn synced_writes(folder: &Folder, figures: &mut Figures, signals: &mut Vec<Signal>) {
    let path = folder.file("timed");
    let opened = if path.exists() {
        folder::open_uncached(&path, true).map(|(f, _)| f)
    } else {
        folder::create(&path)
            .and_then(|mut f| f.write_all(&vec![0u8; SYNCED_WRITES * SMALL]).map(|()| f))
    };
    let Ok(file) = opened else {
        return;
    };
    let mut buf = Aligned::new(SMALL);
    for i in 0..SYNCED_WRITES {
        pattern::fill(&mut buf, (i * SMALL) as u64, figures.reads_us.len() as u64);
        let begun = Instant::now();
        if file
            .write_all_at(&buf, (i * SMALL) as u64)
            .and_then(|()| file.sync_data())
            .is_err()
        {
            break;
        }
        figures.writes_ms.push(begun.elapsed().as_secs_f64() * 1e3);
    }
    let slowest = figures.writes_ms.iter().copied().fold(0.0, f64::max);
    if slowest >= STALL_MS {
        signals.push(signal(
            "write_stalls",
            "watch",
            format!("a synced 4 KiB write took {:.1} s", slowest / 1e3),
        ));
    }
}

/// Small reads at places through the canaries, past the cache, timed.
pub(super) fn read_latency(folder: &Folder, figures: &mut Figures) {
    let mut rng = iomark_result::rng::Rng::from_entropy();
    let mut buf = Aligned::new(SMALL);
    for i in 0..READS {
        let Ok((mut file, _)) = folder::open_uncached(&folder.canary(i % CANARIES), false) else {
            continue;
        };
        let at = rng.next_u64() % (CANARY_BYTES / SMALL) as u64 * SMALL as u64;
        let begun = Instant::now();
        if file.seek(SeekFrom::Start(at)).is_ok() && file.read_exact(&mut buf).is_ok() {
            figures.reads_us.push(begun.elapsed().as_secs_f64() * 1e6);
        }
    }
}

/// The timings against the first checks' (kept as the baseline for the ones after).
pub(super) fn compare(folder: &mut Folder, figures: &Figures, signals: &mut Vec<Signal>) {
    let state = &mut folder.state;
    let reads = Spread::of(&figures.reads_us);
    let writes = Spread::of(&figures.writes_ms);
    let (base_read, base_write) = (
        median(&state.first_read_p99_us),
        median(&state.first_synced_write_p99_ms),
    );
    if state.first_read_p99_us.len() >= 3 {
        // Ten times the first checks' and past a floor: a change worth looking at.
        let changed = |now: &Option<Spread>, base: Option<f64>, floor: f64| {
            now.as_ref()
                .zip(base)
                .map(|(now, base)| (now.p99, base))
                .filter(|(now, base)| *now > (base * SLOWER).max(base + floor))
        };
        if let Some((now, base)) = changed(&reads, base_read, FLOOR_READ_US) {
            signals.push(signal(
                "read_latency",
                "watch",
                format!(
                    "small reads take {:.1} ms at the 99th percentile, {:.1} ms at the first \
                     checks",
                    now / 1e3,
                    base / 1e3
                ),
            ));
        }
        if let Some((now, base)) = changed(&writes, base_write, FLOOR_WRITE_MS) {
            signals.push(signal(
                "write_latency",
                "watch",
                format!(
                    "synced writes take {now:.0} ms at the 99th percentile, {base:.0} ms at the \
                     first checks"
                ),
            ));
        }
    } else {
        state.first_read_p99_us.extend(reads.map(|r| r.p99));
        state
            .first_synced_write_p99_ms
            .extend(writes.map(|w| w.p99));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_far_from_the_first_checks_are_a_change_to_watch() {
        let dir = tempfile::tempdir().unwrap();
        let mut folder = Folder::open(dir.path()).unwrap();
        let signals = |folder: &mut Folder, read_us: f64, write_ms: f64| {
            let figures = Figures {
                reads_us: vec![read_us; 32],
                writes_ms: vec![write_ms; 8],
                ..Figures::default()
            };
            let mut signals = Vec::new();
            compare(folder, &figures, &mut signals);
            signals
        };
        // The first three checks are the baseline, never judged.
        for _ in 0..3 {
            assert!(signals(&mut folder, 100.0, 1.0).is_empty());
        }
        assert_eq!(folder.state.first_read_p99_us, [100.0; 3]);
        // Ten times slower but within the floor: no change; past both: watch.
        assert!(signals(&mut folder, 1_500.0, 50.0).is_empty());
        let said = signals(&mut folder, 30_000.0, 150.0);
        let names: Vec<&str> = said.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["read_latency", "write_latency"]);
        assert!(said.iter().all(|s| s.state == "watch"));
        assert!(said[0].evidence.contains("30.0 ms"), "{}", said[0].evidence);
        assert_eq!(folder.state.first_read_p99_us.len(), 3);
    }
}
