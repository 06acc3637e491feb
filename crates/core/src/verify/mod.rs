//! `iomark verify`: does the device hold what it claims, and give back what it was given?
//!
//! Three ways, one pattern (`pattern.rs`: every sector says where it belongs):
//! - **files** (`files.rs`), on a filesystem, non-destructive: fill the free space with files,
//!   read them back (H2testw's and f3write/f3read's job);
//! - **probe** (`capacity/`), on a raw device, destructive: find its real capacity in seconds
//!   (f3probe's job);
//! - **full**, on a raw device, destructive: write all of it, read all of it back, and name
//!   every wrong byte by its offset.
//!
//! The passes (`pass.rs`) and the tally of what came back (`tally.rs`) are shared. Raw devices
//! are opened only through `engine::rawdev`, which refuses one in use.
//!
//! What lives where: `iomark verify`: `pattern.rs` (every 512-byte sector holds its position and
//! the run's seed: good, bad, or aliased, i.e. another position's data), `pass.rs` (the write and
//! read passes over spans of files or a device, on two threads), `tally.rs` (bytes by kind and the
//! wrong ranges), `files.rs` (the `iomark-verify` folder on a filesystem, its `state.json`,
//! resume), `capacity/` (a raw device's real capacity from samples and whole windows at its edge,
//! behind a small `Blocks` trait; `fakes.rs` holds the counterfeits the unit tests know the truth
//! of: lost writes, a wrap, a wrap past a kept region, an offset, a cache), `extents.rs` (the
//! files' places on the device, FIEMAP, and the real size a filesystem verify tells from them);
//! `mod.rs` runs the three modes and concludes. It knows nothing of terminals, the store.

pub mod capacity;
pub mod extents;
pub mod files;
pub mod pass;
pub mod pattern;
pub mod tally;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::engine::rawdev::{DeviceError, RawDevice};
use crate::progress::{Live, Observer, Phase};
use files::{FilesError, Folder};
use iomark_result::result::verify::Section;
use iomark_result::units::format_size;
use pass::{End, Span};
use tally::Tally;

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Files(#[from] FilesError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

/// How a verify ended.
pub enum Outcome {
    Done(Box<Section>),
    /// A signal asked it to stop; for `files`, what was written whole is kept for `--resume`.
    Stopped {
        written: u64,
    },
}

/// What is known of the filesystem being filled, for the verdict.
#[derive(Clone, Copy, Debug, Default)]
pub struct Claim {
    /// The filesystem's size.
    pub claimed: Option<u64>,
    /// Bytes in use before the run (other files and the filesystem's own).
    pub used_before: Option<u64>,
}

/// Verify on a filesystem: write the folder's files, read them back, conclude.
pub fn files(
    mut folder: Folder,
    keep: bool,
    claim: Claim,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<Outcome, VerifyError> {
    let to_write: u64 = (folder.state.files_done..folder.count())
        .map(|i| folder.len(i))
        .sum();
    let seed = folder.state.seed;
    let Written {
        bytes: written,
        seconds: write_seconds,
        mut direct,
        error: write_error,
        stopped,
    } = write_files(&mut folder, to_write, observer, stop)?;
    if stopped {
        return Ok(Outcome::Stopped {
            written: written.iter().sum(),
        });
    }
    let total: u64 = written.iter().sum();
    let read_live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: format!("Reading {} back", format_size(total)),
            bytes: total,
        },
        read_live.clone(),
    );
    let mut tally = Tally::default();
    let mut read_seconds = 0.0;
    // Each file's places on the device, while the files are there; `None` once one is unknown.
    let mut places: Option<Vec<Vec<extents::Extent>>> = Some(Vec::new());
    for (i, &len) in written.iter().enumerate() {
        if len == 0 {
            if let Some(places) = places.as_mut() {
                places.push(Vec::new());
            }
            continue;
        }
        let (file, is_direct) = folder.open_read(i)?;
        direct &= is_direct;
        if let Some(list) = places.as_mut() {
            match extents::of(&file).ok().flatten() {
                Some(extents) => list.push(extents),
                None => places = None,
            }
        }
        let span = Span {
            file: &file,
            offset: 0,
            len,
            position: i as u64 * folder.state.file_bytes,
        };
        let read = pass::read(std::slice::from_ref(&span), seed, &read_live, stop);
        read_seconds += read.seconds;
        tally.add(read.tally);
        if read.stopped {
            observer.finished(None);
            return Ok(Outcome::Stopped { written: total });
        }
    }
    observer.finished_saying(&rate_text(total, read_seconds));
    let resumed = folder.resumed;
    let planned = folder.state.planned_bytes;
    let file_bytes = folder.state.file_bytes;
    let places = places.map(|files| extents::Places {
        files,
        file_bytes,
        base: extents::partition_start(&folder.path),
    });
    if !keep {
        folder.remove()?;
    }
    let mut section = section(
        "files",
        planned,
        total,
        &tally,
        rate(to_write, write_seconds),
        rate(total, read_seconds),
        direct,
    );
    section.file_bytes = Some(file_bytes);
    section.resumed = resumed;
    section.claimed_bytes = claim.claimed;
    conclude_files(&mut section, claim, places, write_error);
    Ok(Outcome::Done(Box::new(section)))
}

/// What the write pass left: each file's bytes, the pass's time, whether every file was
/// written direct, the error that ended it early, and whether the user stopped it.
struct Written {
    bytes: Vec<u64>,
    seconds: f64,
    direct: bool,
    error: Option<String>,
    stopped: bool,
}

/// Writes the files not yet written (all of them, unless resuming), each marked done in the
/// folder's state as it ends; a full filesystem ends the pass and what was written is read.
fn write_files(
    folder: &mut Folder,
    to_write: u64,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<Written, VerifyError> {
    let (first, count, seed) = (folder.state.files_done, folder.count(), folder.state.seed);
    let mut w = Written {
        bytes: (0..first).map(|i| folder.len(i)).collect(),
        seconds: 0.0,
        direct: true,
        error: None,
        stopped: false,
    };
    if to_write == 0 {
        return Ok(w);
    }
    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: format!("Writing {}", format_size(to_write)),
            bytes: to_write,
        },
        live.clone(),
    );
    for i in first..count {
        let (file, is_direct) = folder.create(i)?;
        w.direct &= is_direct;
        let span = Span {
            file: &file,
            offset: 0,
            len: folder.len(i),
            position: i as u64 * folder.state.file_bytes,
        };
        let pass = pass::write(std::slice::from_ref(&span), seed, &live, stop);
        w.seconds += pass.seconds;
        w.bytes.push(pass.bytes[0]);
        match pass.end {
            End::Done => folder.mark_done(i + 1)?,
            End::Stopped => {
                observer.finished(None);
                w.stopped = true;
                return Ok(w);
            }
            End::NoSpace => {
                observer.note(&format!(
                    "the filesystem filled up after {}: verifying what was written",
                    format_size(w.bytes.iter().sum())
                ));
                break;
            }
            End::Failed { position, error } => {
                w.error = Some(format!("writing at {position} failed: {error}"));
                break;
            }
        }
    }
    observer.finished_saying(&rate_text(to_write, w.seconds));
    Ok(w)
}

/// Verify a whole raw device: write every byte, read every byte back.
pub fn full(
    dev: &RawDevice,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<Outcome, VerifyError> {
    let seed = iomark_os::rng::Rng::from_entropy().next_u64();
    let len = dev.size / 4096 * 4096;
    let span = Span {
        file: &dev.file,
        offset: 0,
        len,
        position: 0,
    };
    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: format!("Writing {}", format_size(len)),
            bytes: len,
        },
        live.clone(),
    );
    let written = pass::write(std::slice::from_ref(&span), seed, &live, stop);
    observer.finished_saying(&rate_text(written.bytes[0], written.seconds));
    let mut write_error = None;
    match written.end {
        End::Done => {}
        End::Stopped => {
            return Ok(Outcome::Stopped {
                written: written.bytes[0],
            })
        }
        End::NoSpace => write_error = Some("the device refused a write: no space".to_string()),
        End::Failed { position, error } => {
            write_error = Some(format!("writing at {position} failed: {error}"))
        }
    }
    let total = written.bytes[0];
    let span = Span { len: total, ..span };
    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: format!("Reading {} back", format_size(total)),
            bytes: total,
        },
        live.clone(),
    );
    let read = pass::read(std::slice::from_ref(&span), seed, &live, stop);
    observer.finished_saying(&rate_text(total, read.seconds));
    if read.stopped {
        return Ok(Outcome::Stopped { written: total });
    }
    let mut section = section(
        "full",
        len,
        total,
        &read.tally,
        rate(total, written.seconds),
        rate(total, read.seconds),
        true,
    );
    section.claimed_bytes = Some(dev.size);
    // Where data of one offset was read at another, the device wraps: the smallest distance
    // between the two is what it really holds.
    section.real_bytes = read
        .tally
        .ranges
        .iter()
        .filter_map(|r| Some(r.position.abs_diff(r.holds?)))
        .min()
        .or(Some(dev.size).filter(|_| read.tally.aliased == 0));
    section.real_method = section.real_bytes.map(|_| "full".to_string());
    let wrong = section.bad_bytes + section.aliased_bytes + section.unreadable_bytes;
    section.ok = wrong == 0 && write_error.is_none();
    section.verdict = match (&write_error, section.real_bytes) {
        (Some(error), _) => format!("{error}; what was written was read back ({} wrong)", format_size(wrong)),
        (None, Some(real)) if real < dev.size => format!(
            "this device holds {}, not the {} it claims: past that, writes land on data written before",
            format_size(real),
            format_size(dev.size)
        ),
        _ if wrong == 0 => format!("all {} written read back intact", format_size(total)),
        _ => format!(
            "{} of {} read back wrong, the first at offset {}: do not trust this device with data",
            format_size(wrong),
            format_size(total),
            section.first_bad_offset.unwrap_or(0)
        ),
    };
    Ok(Outcome::Done(Box::new(section)))
}

/// Find a raw device's real capacity by sampling (`capacity/`).
pub fn probe(dev: &mut RawDevice, observer: &dyn Observer) -> Result<Outcome, VerifyError> {
    let seed = iomark_os::rng::Rng::from_entropy().next_u64();
    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: "Probing the capacity".into(),
            // The dense region twice and the samples twice, about.
            bytes: 2 * (64 << 20).min(dev.size / 4) + 2 * (dev.size / (32 << 20)) * 4096,
        },
        live.clone(),
    );
    let claimed = dev.size;
    let found = capacity::probe(dev, seed, &|n| live.add(n)).map_err(|e| VerifyError::Io {
        what: "probing the device".into(),
        source: e,
    })?;
    observer.finished_saying(&format!(
        "write {:.1} MB/s, read {:.1} MB/s",
        found.write_mb_per_s, found.read_mb_per_s
    ));
    let tally = Tally {
        good: found.good_bytes,
        bad: found.bad_bytes,
        aliased: found.aliased_bytes,
        ..Default::default()
    };
    let mut section = section(
        "probe",
        found.written_bytes,
        found.written_bytes,
        &tally,
        Some(found.write_mb_per_s),
        Some(found.read_mb_per_s),
        true,
    );
    section.first_bad_offset = (found.real < claimed).then_some(found.real);
    section.claimed_bytes = Some(claimed);
    section.real_bytes = Some(found.real);
    section.real_method = Some("probe".into());
    section.ok = found.real >= claimed;
    section.verdict = if section.ok {
        format!(
            "its {} are real: {} (`--full` checks every byte)",
            format_size(claimed),
            found.evidence
        )
    } else {
        format!(
            "this device holds {}, not the {} it claims: {}",
            format_size(found.real),
            format_size(claimed),
            found.evidence
        )
    };
    Ok(Outcome::Done(Box::new(section)))
}

/// A pass's rate as its summary says it, for the line progress prints when the pass ends.
fn rate_text(bytes: u64, seconds: f64) -> String {
    rate(bytes, seconds).map_or("–".into(), |r| iomark_result::units::Rate(r).to_string())
}

fn rate(bytes: u64, seconds: f64) -> Option<f64> {
    (bytes > 0 && seconds > 0.0).then(|| bytes as f64 / 1e6 / seconds)
}

fn section(
    mode: &str,
    planned: u64,
    written: u64,
    tally: &Tally,
    write_mb_per_s: Option<f64>,
    read_mb_per_s: Option<f64>,
    direct: bool,
) -> Section {
    Section {
        extra: Default::default(),
        mode: mode.into(),
        planned_bytes: planned,
        written_bytes: written,
        good_bytes: tally.good,
        bad_bytes: tally.bad,
        aliased_bytes: tally.aliased,
        unreadable_bytes: tally.unreadable,
        first_bad_offset: tally.first_bad(),
        write_mb_per_s,
        read_mb_per_s,
        direct,
        file_bytes: None,
        claimed_bytes: None,
        real_bytes: None,
        real_method: None,
        ok: false,
        verdict: String::new(),
        problems: tally.ranges.clone(),
        more_problems: tally.more_ranges,
        resumed: false,
    }
}

/// The verdict of a filesystem verify.
fn conclude_files(
    section: &mut Section,
    claim: Claim,
    places: Option<extents::Places>,
    write_error: Option<String>,
) {
    let written = section.written_bytes;
    let wrong = section.bad_bytes + section.aliased_bytes + section.unreadable_bytes;
    let where_first = section.first_bad_offset.map(|p| {
        let file_bytes = section.file_bytes.unwrap_or(files::FILE_BYTES);
        format!(
            "{}/{:04}.iomv at offset {}",
            files::FOLDER,
            p / file_bytes + 1,
            p % file_bytes
        )
    });
    // Fake capacity: data read back from the wrong place, or a large share lost.
    let fake = section.aliased_bytes > 0 || wrong > written / 100;
    if fake {
        // From where the files lie on the device; else what was in use plus what read back.
        let placed = places.and_then(|p| p.real_size(&section.problems));
        (section.real_bytes, section.real_method) = match placed {
            Some(real) => (Some(real), Some("extents".into())),
            None => (
                claim.used_before.map(|used| used + section.good_bytes),
                Some("used_plus_intact".into()),
            ),
        };
    }
    section.ok = wrong == 0 && write_error.is_none();
    let mut verdict = match (fake, section.real_bytes, claim.claimed) {
        _ if wrong == 0 => format!("all {} written read back intact", format_size(written)),
        (true, Some(real), Some(claimed)) => format!(
            "this device holds about {}, not the {} it claims: {} of {} written read back wrong{}, the first in {}",
            format_size(real),
            format_size(claimed),
            format_size(wrong),
            format_size(written),
            if section.aliased_bytes > 0 {
                format!(" ({} holding data written elsewhere)", format_size(section.aliased_bytes))
            } else {
                String::new()
            },
            where_first.clone().unwrap_or_default()
        ),
        _ => format!(
            "{} of {} read back wrong, the first in {}: do not trust this device with data",
            format_size(wrong),
            format_size(written),
            where_first.clone().unwrap_or_default()
        ),
    };
    if let Some(error) = write_error {
        verdict = format!("{error}; {verdict}");
    }
    section.verdict = verdict;
}
