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
use iomark_result::result::health::{Signal, Spread, State};

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
            State::Watch,
            format!("a synced 4 KiB write took {:.1} s", slowest / 1e3),
        ));
    }
}

/// Small reads at places through the canaries, past the cache, timed.
pub(super) fn read_latency(folder: &Folder, figures: &mut Figures) {
    let mut rng = iomark_os::rng::Rng::from_entropy();
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

/// A timing far from the first checks': now and then.
type Change = Option<(f64, f64)>;

/// The timings against the first checks' (kept as the baseline for the ones after). A change
/// is looked at a second time before it is said: a read that waited behind another program's
/// writes once is not a card that slowed down (1,000 checks under a write load found one),
/// while a card that did is as slow on the second look.
pub(super) fn judge(
    folder: &mut Folder,
    figures: &Figures,
    look_again: impl FnOnce(&Folder, bool, bool) -> Figures,
    signals: &mut Vec<Signal>,
) {
    if folder.state.first_read_p99_us.len() < 3 {
        let state = &mut folder.state;
        state
            .first_read_p99_us
            .extend(Spread::of(&figures.reads_us).map(|r| r.p99));
        state
            .first_synced_write_p99_ms
            .extend(Spread::of(&figures.writes_ms).map(|w| w.p99));
        return;
    }
    let (mut reads, mut writes) = compare(folder, figures);
    if reads.is_some() || writes.is_some() {
        let again = look_again(folder, reads.is_some(), writes.is_some());
        let (reads_again, writes_again) = compare(folder, &again);
        reads = reads.zip(reads_again).map(|(_, now)| now);
        writes = writes.zip(writes_again).map(|(_, now)| now);
    }
    if let Some((now, base)) = reads {
        signals.push(signal(
            "read_latency",
            State::Watch,
            format!(
                "small reads take {:.1} ms at the 99th percentile, twice in a row, {:.1} ms at \
                 the first checks",
                now / 1e3,
                base / 1e3
            ),
        ));
    }
    if let Some((now, base)) = writes {
        signals.push(signal(
            "write_latency",
            State::Watch,
            format!(
                "synced writes take {now:.0} ms at the 99th percentile, twice in a row, {base:.0} \
                 ms at the first checks"
            ),
        ));
    }
}

/// The second look: the reads, the synced writes, or both, timed again.
pub(super) fn again(folder: &Folder, reads: bool, writes: bool) -> Figures {
    let mut again = Figures::default();
    if reads {
        read_latency(folder, &mut again);
    }
    if writes {
        synced_writes(folder, &mut again, &mut Vec::new());
    }
    again
}

/// The reads' and the writes' 99th percentiles where they are ten times the first checks'
/// and past a floor.
fn compare(folder: &Folder, figures: &Figures) -> (Change, Change) {
    let state = &folder.state;
    let changed = |now: Option<Spread>, base: Option<f64>, floor: f64| {
        now.zip(base)
            .map(|(now, base)| (now.p99, base))
            .filter(|(now, base)| *now > (base * SLOWER).max(base + floor))
    };
    (
        changed(
            Spread::of(&figures.reads_us),
            median(&state.first_read_p99_us),
            FLOOR_READ_US,
        ),
        changed(
            Spread::of(&figures.writes_ms),
            median(&state.first_synced_write_p99_ms),
            FLOOR_WRITE_MS,
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_far_from_the_first_checks_are_a_change_to_watch() {
        let dir = tempfile::tempdir().unwrap();
        let mut folder = Folder::open(dir.path()).unwrap();
        let timed = |read_us: f64, write_ms: f64| Figures {
            reads_us: vec![read_us; 32],
            writes_ms: vec![write_ms; 8],
            ..Figures::default()
        };
        // The second look finds what the first did.
        let signals = |folder: &mut Folder, read_us: f64, write_ms: f64| {
            let mut signals = Vec::new();
            let again = |_: &Folder, _, _| timed(read_us, write_ms);
            judge(folder, &timed(read_us, write_ms), again, &mut signals);
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
        assert!(said.iter().all(|s| s.state == State::Watch));
        assert!(said[0].evidence.contains("30.0 ms"), "{}", said[0].evidence);
        assert_eq!(folder.state.first_read_p99_us.len(), 3);
        // A slow first look and a second that is not: nothing to say.
        let mut said = Vec::new();
        let asked = std::cell::Cell::new(None);
        let again = |_: &Folder, reads, writes| {
            asked.set(Some((reads, writes)));
            timed(100.0, 1.0)
        };
        judge(&mut folder, &timed(30_000.0, 1.0), again, &mut said);
        assert!(said.is_empty(), "{said:?}");
        assert_eq!(
            asked.get(),
            Some((true, false)),
            "only the reads looked at again"
        );
    }
}
