//! The surface profile's reads (`iomark_profiles::surface` is the profile): single synchronous
//! reads, timed one by one, because a rate per position is the figure; the engine's loop, which
//! keeps a queue full over a whole file, measures a different thing. On a raw device (opened
//! read-only by `engine::rawdev`) the positions are the device's own and nothing is written.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::buffer::Buffers;
use crate::progress::{Live, Observer, Phase};
use iomark_profiles::surface::{self, Spec, ACCESS_BYTES, SAMPLE_BYTES};
use iomark_result::result::score::{AccessSample, RateSample, Surface};

/// Scans `size` bytes of `file` (opened for direct I/O). `over` is `device` or `file`.
pub fn scan(
    file: &File,
    size: u64,
    spec: Spec,
    over: &str,
    observer: &dyn Observer,
    stop: Option<&AtomicBool>,
) -> io::Result<Surface> {
    let samples = u64::from(spec.samples.max(1));
    // Each sample at most its share of the device, in whole 4 KiB.
    let sample_bytes = SAMPLE_BYTES.min(size / samples / 4096 * 4096).max(4096);
    if size < sample_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "too small to scan (under 4 KiB)",
        ));
    }
    let mut buffers = Buffers::new(1, sample_bytes as usize)?;
    let stopped = || stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: format!(
                "Surface: {samples} reads of {}",
                iomark_result::units::format_size(sample_bytes)
            ),
            bytes: samples * sample_bytes,
        },
        live.clone(),
    );
    let last = (size - sample_bytes) / 4096 * 4096;
    let mut rates = Vec::with_capacity(samples as usize);
    for i in 0..samples {
        if stopped() {
            break;
        }
        let at = if samples == 1 {
            0
        } else {
            (last as u128 * u128::from(i) / u128::from(samples - 1)) as u64 / 4096 * 4096
        };
        let buf = buffers.get_mut(0);
        let started = Instant::now();
        file.read_exact_at(buf, at)?;
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        live.add(sample_bytes);
        rates.push(RateSample {
            mb_per_s: sample_bytes as f64 / 1e6 / seconds,
            position: at as f64 / size as f64,
        });
    }
    observer.finished(None);

    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Bytes {
            label: format!("Surface: {} access times", spec.accesses),
            bytes: spec.accesses * ACCESS_BYTES,
        },
        live.clone(),
    );
    let mut rng = iomark_os::rng::Rng::from_entropy();
    let blocks = size / ACCESS_BYTES;
    let mut access = Vec::with_capacity(spec.accesses as usize);
    for _ in 0..spec.accesses {
        if stopped() {
            break;
        }
        let at = rng.next_u64() % blocks * ACCESS_BYTES;
        let buf = &mut buffers.get_mut(0)[..ACCESS_BYTES as usize];
        let started = Instant::now();
        file.read_exact_at(buf, at)?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        live.add(ACCESS_BYTES);
        access.push(AccessSample {
            ms,
            position: at as f64 / size as f64,
        });
    }
    observer.finished(None);
    Ok(surface::summarize(rates, access, sample_bytes, over))
}
