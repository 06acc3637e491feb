//! `iomark health`: one gentle check of whether a card or disk still keeps what it is given
//! (issue 48). SD cards report no wear, and a dying one often acknowledges every write while
//! keeping none, or hands back other bytes, until the machine stops booting. A check looks for
//! what such a card shows, within a small write budget:
//! - **canaries** (`folder.rs`): files of known content written at the first check and read back
//!   past the page cache at every one: changed bytes mean the card does not keep what it holds;
//! - **a fresh write that must stick**: a new file, synced, read back past the cache: a card
//!   turned read-only that still says "written" is caught at the first check after;
//! - **latency against its own first checks**: small uncached reads and small synced writes;
//!   a synced write that stalls for a second or more is a warning of its own;
//! - **what the system knows** (`system.rs`): the filesystem remounted read-only, ext4's error
//!   count, and the device's own count of what was written (the check's real cost, and the
//!   daily write load since the last check).
//!
//! The verdict is the worst signal's: `lying`, `failing`, `watch` or `healthy`. It knows nothing
//! of terminals or the store.

pub mod folder;
pub mod report;
pub mod system;
mod timings;

use std::io::{self, Read, Write};
use std::path::Path;
use std::time::SystemTime;

use crate::verify::pass::Aligned;
use crate::verify::pattern::{self, SECTOR};
use folder::{Folder, FolderError, CANARIES, CANARY_BYTES};
use iomark_result::result::health::{Section, Signal, Spread, State, Verdict};
use iomark_result::units::format_size;
use system::Under;

/// What a check writes at most by default: the first check's canaries and its writes.
pub const DEFAULT_BUDGET: u64 = 4 << 20;
/// The fresh write: a new file of this size each check.
const FRESH_BYTES: usize = 64 << 10;
/// Small reads and synced writes timed each check.
const READS: usize = 32;
const SYNCED_WRITES: usize = 8;
const SMALL: usize = 4096;
/// A synced 4 KiB write slower than this is a stall.
const STALL_MS: f64 = 1000.0;
/// Timings this many times the first checks' (and past the floor below) are a change.
const SLOWER: f64 = 10.0;
const FLOOR_READ_US: f64 = 20_000.0;
const FLOOR_WRITE_MS: f64 = 100.0;
/// Free space a check leaves besides what it writes.
const SPARE: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum HealthError {
    #[error(transparent)]
    Folder(#[from] FolderError),
    #[error(
        "a check needs {needs} free here and {free} is: nothing was written (a full card is \
         no sign of a failing one; make room and check again)"
    )]
    NoSpace { needs: String, free: String },
    #[error(
        "a check writes up to {needs} here ({what}); --budget {budget} is less: give at least \
         --budget {needs}"
    )]
    Budget {
        needs: String,
        budget: String,
        what: &'static str,
    },
}

/// Bytes a check writes at most: the fresh file and the timed writes (twice, when they look
/// slow), and the canaries the first time.
pub fn writes(first: bool) -> u64 {
    let each = (FRESH_BYTES + 2 * SYNCED_WRITES * SMALL) as u64;
    each + if first {
        (CANARIES * CANARY_BYTES) as u64
    } else {
        0
    }
}

/// Checks the filesystem `dir` is on (an existing folder, resolved), keeping its folder there;
/// `root` is `/` on a real machine.
pub fn check(root: &Path, dir: &Path, budget: u64) -> Result<Section, HealthError> {
    let under = Under::of(root, dir);
    let before = under.sectors_written();
    let first = folder::needs_canaries(dir);
    let free = crate::space::free_space(dir).ok().map(|(free, _)| free);
    if !under.read_only && free.is_some_and(|free| free < writes(first) + SPARE) {
        return Err(HealthError::NoSpace {
            needs: format_size(writes(first) + SPARE),
            free: format_size(free.unwrap_or(0)),
        });
    }
    if writes(first) > budget && !under.read_only {
        return Err(HealthError::Budget {
            needs: format_size(writes(first)),
            budget: format_size(budget),
            what: if first {
                "the first check writes its canaries"
            } else {
                "a fresh file and timed writes"
            },
        });
    }
    let mut signals = Vec::new();
    if under.read_only {
        signals.push(signal(
            "read_only",
            State::Failing,
            format!(
                "the filesystem ({}) is mounted read-only: the kernel does so after errors; \
                 nothing was written",
                under.device.as_deref().unwrap_or("its device")
            ),
        ));
        if first {
            return Ok(conclude(signals, Default::default(), budget, None));
        }
    }
    let mut folder = Folder::open(dir)?;
    let mut figures = Figures::default();
    if folder.new && !under.read_only {
        write_canaries(&mut folder, &mut signals)?;
    }
    read_canaries(&folder, &mut figures, &mut signals);
    if !under.read_only {
        fresh_write(&folder, &mut figures, &mut signals);
        timings::synced_writes(&folder, &mut figures, &mut signals);
    }
    timings::read_latency(&folder, &mut figures);
    let writable = !under.read_only;
    let again = |folder: &Folder, reads, writes| timings::again(folder, reads, writes && writable);
    timings::judge(&mut folder, &figures, again, &mut signals);
    if let Some((count, last)) = under.ext4_errors(root) {
        if count > 0 {
            let when = last
                .map(|t| format!(", the last at {}", iomark_result::result::unix_rfc3339(t)))
                .unwrap_or_default();
            signals.push(signal(
                "filesystem_errors",
                State::Watch,
                format!("ext4 has counted {count} errors on this filesystem{when}"),
            ));
        }
    }
    let device_report = device_report(root, &under, &mut signals);
    let after = under.sectors_written();
    let written = before.zip(after).map(|(b, a)| a.saturating_sub(b) * 512);
    let per_day = per_day(&mut folder, root, after);
    folder.state.checks += 1;
    let checks = folder.state.checks;
    let mut section = conclude(signals, figures, budget, written);
    section.previous_verdict = folder.state.last_verdict.replace(section.verdict);
    if !under.read_only {
        folder.save()?;
    }
    section.checks = checks;
    section.device_report = device_report;
    section.written_per_day_bytes = per_day;
    section.baseline_read_p99_us = median(&folder.state.first_read_p99_us);
    section.baseline_synced_write_p99_ms = median(&folder.state.first_synced_write_p99_ms);
    Ok(section)
}

/// What a check measured.
#[derive(Default)]
struct Figures {
    canary_bytes: u64,
    canary_bad: u64,
    canary_unreadable: u64,
    fresh_kept: Option<bool>,
    reads_us: Vec<f64>,
    writes_ms: Vec<f64>,
    direct: bool,
}

fn signal(name: &str, state: State, evidence: String) -> Signal {
    Signal {
        name: name.into(),
        state,
        evidence,
    }
}

/// Writes each canary whole and syncs it (in place of what a stopped first check left), then
/// the folder, then marks them whole in the state.
fn write_canaries(folder: &mut Folder, signals: &mut Vec<Signal>) -> Result<(), FolderError> {
    let mut buf = Aligned::new(CANARY_BYTES);
    let mut whole = true;
    for i in 0..CANARIES {
        let path = folder.canary(i);
        pattern::fill(&mut buf, (i * CANARY_BYTES) as u64, folder.state.seed);
        let written = (|| {
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&path)?;
            }
            let mut file = folder::create(&path)?;
            file.write_all(&buf)?;
            file.sync_all()
        })();
        if let Err(e) = written {
            whole = false;
            signals.push(signal(
                "canaries",
                State::Failing,
                format!("canary-{i} could not be written: {e}"),
            ));
        }
    }
    folder::sync_dir(&folder.path);
    folder.state.canaries_whole = whole;
    folder.save()
}

/// Reads every canary back past the cache, sector by sector against what it was given.
fn read_canaries(folder: &Folder, figures: &mut Figures, signals: &mut Vec<Signal>) {
    let mut buf = Aligned::new(CANARY_BYTES);
    let mut scratch = vec![0u8; SECTOR];
    let mut gone = Vec::new();
    figures.direct = true;
    for i in 0..CANARIES {
        figures.canary_bytes += CANARY_BYTES as u64;
        let read = folder::open_uncached(&folder.canary(i), false).and_then(|(mut file, d)| {
            figures.direct &= d;
            file.read_exact(&mut buf)?;
            Ok(())
        });
        if let Err(e) = read {
            if e.kind() == io::ErrorKind::NotFound {
                gone.push(format!("canary-{i}"));
                figures.canary_bad += CANARY_BYTES as u64;
            } else {
                figures.canary_unreadable += CANARY_BYTES as u64;
            }
            continue;
        }
        for (n, sector) in buf.chunks_exact(SECTOR).enumerate() {
            let at = (i * CANARY_BYTES + n * SECTOR) as u64;
            pattern::fill(&mut scratch, at, folder.state.seed);
            if sector != &scratch[..] {
                figures.canary_bad += SECTOR as u64;
            }
        }
    }
    let (bad, unreadable) = (figures.canary_bad, figures.canary_unreadable);
    if !gone.is_empty() {
        signals.push(signal(
            "canaries",
            State::Failing,
            format!(
                "{} gone from the card since the first check",
                gone.join(", ")
            ),
        ));
    } else if bad > 0 {
        signals.push(signal(
            "canaries",
            State::Lying,
            format!(
                "{} of the {} written at the first check came back different",
                format_size(bad),
                format_size(figures.canary_bytes)
            ),
        ));
    }
    if unreadable > 0 {
        signals.push(signal(
            "canaries",
            State::Failing,
            format!("{} of them could not be read", format_size(unreadable)),
        ));
    }
    if gone.is_empty() && bad == 0 && unreadable == 0 {
        signals.push(signal(
            "canaries",
            State::Healthy,
            format!("{} read back as written", format_size(figures.canary_bytes)),
        ));
    }
}

/// A new file of fresh content, synced, read back past the cache.
fn fresh_write(folder: &Folder, figures: &mut Figures, signals: &mut Vec<Signal>) {
    let path = folder.file("fresh");
    let seed = iomark_os::rng::Rng::from_entropy().next_u64();
    let mut buf = Aligned::new(FRESH_BYTES);
    pattern::fill(&mut buf, 0, seed);
    let written = (|| {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.is_file() => return Err(io::Error::other("not a regular file")),
            Ok(_) => std::fs::remove_file(&path)?,
            Err(_) => {}
        }
        let mut file = folder::create(&path)?;
        file.write_all(&buf)?;
        file.sync_all()
    })();
    if let Err(e) = written {
        figures.fresh_kept = Some(false);
        signals.push(signal(
            "fresh_write",
            State::Failing,
            format!("a new file could not be written and synced: {e}"),
        ));
        return;
    }
    let mut back = Aligned::new(FRESH_BYTES);
    let read = folder::open_uncached(&path, false).and_then(|(mut f, _)| f.read_exact(&mut back));
    let kept = read.is_ok() && back[..] == buf[..];
    figures.fresh_kept = Some(kept);
    signals.push(match read {
        Err(e) => signal(
            "fresh_write",
            State::Failing,
            format!("a new file, written and synced, could not be read back: {e}"),
        ),
        Ok(()) if !kept => signal(
            "fresh_write",
            State::Lying,
            format!(
                "a new file of {} was acknowledged written and synced, yet read back other \
                 bytes: the card does not keep what it is given",
                format_size(FRESH_BYTES as u64)
            ),
        ),
        Ok(()) => signal(
            "fresh_write",
            State::Healthy,
            format!(
                "a new file of {} read back as written",
                format_size(FRESH_BYTES as u64)
            ),
        ),
    });
}

/// What the device reports of itself, as a signal too; where it has a report that could not
/// be read (not root), a signal saying so.
fn device_report(
    root: &Path,
    under: &Under,
    signals: &mut Vec<Signal>,
) -> Option<iomark_result::result::health::DeviceReport> {
    let (disk, name) = under.disk.as_ref()?;
    match report::read(root, disk, name)? {
        Ok(found) => {
            signals.push(report::signal(&found));
            Some(found)
        }
        Err(why) => {
            let how = match why.as_str() {
                report::NEEDS_ROOT => " (as root, the timer's checks read it)",
                _ => "",
            };
            signals.push(signal(
                "device_report",
                State::Unknown,
                format!("{name}'s own report of its health was not read: {why}{how}"),
            ));
            None
        }
    }
}

/// Bytes the device wrote per day since the last check, and the count kept for the next.
fn per_day(folder: &mut Folder, root: &Path, sectors: Option<u64>) -> Option<u64> {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_secs();
    let boot = system::boot_id(root);
    let state = &mut folder.state;
    let rate = match (state.device_sectors_written, state.at_unix_s, sectors) {
        (Some(then), Some(at), Some(sectors))
            if state.boot_id == boot && sectors >= then && now > at + 60 =>
        {
            Some((sectors - then) * 512 * 86_400 / (now - at))
        }
        _ => None,
    };
    state.device_sectors_written = sectors;
    state.at_unix_s = Some(now);
    state.boot_id = boot;
    rate
}

fn median(values: &[f64]) -> Option<f64> {
    Spread::of(values).map(|s| s.p50)
}

/// The section, its verdict the worst signal's, worst first.
fn conclude(
    mut signals: Vec<Signal>,
    figures: Figures,
    budget: u64,
    written: Option<u64>,
) -> Section {
    // Worst first; a signal that could not be told moves no verdict.
    let rank = |s: &Signal| std::cmp::Reverse(s.state.verdict().unwrap_or(Verdict::Healthy));
    signals.sort_by_key(rank);
    let verdict = signals.first().map_or(Verdict::Healthy, |s| rank(s).0);
    let worst = signals
        .first()
        .map(|s| s.evidence.clone())
        .unwrap_or_default();
    let sentence = match verdict {
        Verdict::Lying => format!(
            "It does not keep what it is given ({worst}): copy what matters off it now, and \
             replace it."
        ),
        Verdict::Failing => format!("It is failing ({worst}): copy what matters off it now."),
        Verdict::Watch => {
            format!("Something changed ({worst}): check again soon, and keep a backup.")
        }
        Verdict::Healthy => format!(
            "It keeps what it is given: {} of canaries and a fresh write read back as written.",
            format_size(figures.canary_bytes)
        ),
    };
    Section {
        verdict,
        sentence,
        signals,
        checks: 0,
        previous_verdict: None,
        canary_bytes: figures.canary_bytes,
        canary_bad_bytes: figures.canary_bad,
        canary_unreadable_bytes: figures.canary_unreadable,
        fresh_write_kept: figures.fresh_kept,
        read_latency_us: Spread::of(&figures.reads_us),
        synced_write_ms: Spread::of(&figures.writes_ms),
        baseline_read_p99_us: None,
        baseline_synced_write_p99_ms: None,
        budget_bytes: budget,
        device_written_bytes: written,
        written_per_day_bytes: None,
        direct: figures.direct,
        device_report: None,
        extra: Default::default(),
    }
}
