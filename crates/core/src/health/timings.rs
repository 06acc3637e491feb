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
        if let (Some(now), Some(base)) = (&reads, base_read) {
            if now.p99 > (base * SLOWER).max(base + FLOOR_READ_US) {
                signals.push(signal(
                    "read_latency",
                    "watch",
                    format!(
                        "small reads take {:.1} ms at the 99th percentile, {:.1} ms at the \
                         first checks",
                        now.p99 / 1e3,
                        base / 1e3
                    ),
                ));
            }
        }
        if let (Some(now), Some(base)) = (&writes, base_write) {
            if now.p99 > (base * SLOWER).max(base + FLOOR_WRITE_MS) {
                signals.push(signal(
                    "write_latency",
                    "watch",
                    format!(
                        "synced writes take {:.0} ms at the 99th percentile, {:.0} ms at the \
                         first checks",
                        now.p99, base
                    ),
                ));
            }
        }
    } else {
        state.first_read_p99_us.extend(reads.map(|r| r.p99));
        state
            .first_synced_write_p99_ms
            .extend(writes.map(|w| w.p99));
    }
}
