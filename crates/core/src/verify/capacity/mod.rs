//! A raw device's real capacity, found in seconds by writing samples rather than everything
//! (f3probe's job; the method is iomark's own).
//!
//! A counterfeit card keeps only its first R bytes. Past them, a write either lands on a
//! position below R or is lost. Where it lands is usually R below (the address wraps modulo R),
//! but a card may keep its first K bytes apart (where its FAT is) and wrap the rest after them:
//! position p ≥ R then lands on K + (p − K) mod (R − K). The usable size is R in every case: the
//! first position that reads back anything but its own data. So:
//! 1. a block of this run's sectors is written every `W/2` bytes (jittered) across the device,
//!    from low to high; then a dense region `D` of `W` bytes just after the first MiB (which is
//!    spared: it holds the partition table), written last, so it also flushes a small cache;
//! 2. every sample and all of `D` are read back. Two positions found sharing a place (one holds
//!    the other's data) are a period apart, and since samples are closer together than `D` is
//!    long, one pair is exactly the wrap's period P = R − K. A sample whose write was lost reads
//!    back bad;
//! 3. the edge, to the sector, by writing a window whole rather than a block at a time (a block
//!    just written may be answered from the card's cache): for a wrap, the stretch of `D` below
//!    the lowest place found shared, then each of its positions plus P; the first position of
//!    `D` that now holds other data is K, and R = K + P. For lost writes, the stretch between
//!    the last good sample and the first lost one, then `D` again to flush the cache; the first
//!    position of the stretch that does not read back is R.
//!
//! It writes about `W` + one block per `W/2` of the device (64 MiB + 8 MB for 256 GB), so it
//! takes seconds, not the hours of a full fill; it does not check every byte (`--full` does).
//! On a counterfeit it writes up to 2 `W` more to find the edge.

use std::io;

use super::pass::Aligned;
use super::pattern::{self, Sector, SECTOR};
use edge::Edge;
use iomark_result::units::format_size;

/// Samples are single blocks of this size (aligned for direct I/O on any device).
pub const BLOCK: usize = 4096;
/// The start of the device, where the partition table is, is not written.
pub const SPARED: u64 = 1 << 20;
/// The dense region's size, at most.
const DENSE: u64 = 64 << 20;

/// What the probe writes to and reads from: a device, or a fake of one in the tests.
pub trait Blocks {
    fn size(&self) -> u64;
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()>;
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    fn sync(&mut self) -> io::Result<()>;
}

/// What the probe found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub claimed: u64,
    /// The first position that does not hold its own data (the claim, for a genuine device).
    pub real: u64,
    /// How it was told, in a few words.
    pub evidence: String,
    pub samples: usize,
    pub written_bytes: u64,
    /// Of what was read back: bytes intact, holding another position's data, and wrong or
    /// unreadable.
    pub good_bytes: u64,
    pub aliased_bytes: u64,
    pub bad_bytes: u64,
    /// The dense region's sequential write and read rates, MB/s.
    pub write_mb_per_s: f64,
    pub read_mb_per_s: f64,
}

/// A sample read back.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Seen {
    Good,
    /// Holds this run's data of the position given.
    Holds(u64),
    Lost,
}

fn seen(buf: &[u8], position: u64, seed: u64) -> Seen {
    let sectors: Vec<Sector> = buf
        .chunks_exact(SECTOR)
        .enumerate()
        .map(|(i, s)| pattern::check(s, position + (i * SECTOR) as u64, seed))
        .collect();
    if sectors.iter().all(|s| *s == Sector::Good) {
        return Seen::Good;
    }
    match sectors.first() {
        Some(Sector::Aliased(holds)) => Seen::Holds(*holds),
        _ => Seen::Lost,
    }
}

/// Runs the probe on `dev` with this run's `seed`. `progress` is told bytes as they are done.
pub fn probe(dev: &mut dyn Blocks, seed: u64, progress: &dyn Fn(u64)) -> io::Result<Found> {
    let size = dev.size() / BLOCK as u64 * BLOCK as u64;
    if size < SPARED + 16 * BLOCK as u64 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the device is too small to probe (under 1 MiB and 64 KiB)",
        ));
    }
    let dense = ((size - SPARED) / 4).min(DENSE) / BLOCK as u64 * BLOCK as u64;
    let step = (dense / 2).max(BLOCK as u64) / BLOCK as u64 * BLOCK as u64;
    let samples = sample_positions(size, dense, step, seed);

    let mut block = Aligned::new(BLOCK);
    let mut written = 0u64;
    for &p in &samples {
        pattern::fill(&mut block, p, seed);
        dev.write_at(&block, p)?;
        written += BLOCK as u64;
        progress(BLOCK as u64);
    }
    // The dense region, last, in large writes.
    let mut chunk = Aligned::new(super::pass::CHUNK);
    let started = std::time::Instant::now();
    for at in (0..dense).step_by(chunk.len()) {
        let len = (dense - at).min(chunk.len() as u64) as usize;
        pattern::fill(&mut chunk[..len], SPARED + at, seed);
        dev.write_at(&chunk[..len], SPARED + at)?;
        written += len as u64;
        progress(len as u64);
    }
    dev.sync()?;
    let write_mb_per_s = dense as f64 / 1e6 / started.elapsed().as_secs_f64();

    let (
        Readback {
            mut shared,
            lost_in_dense,
            first_lost,
            good_bytes,
            aliased_bytes,
            bad_bytes,
        },
        read_mb_per_s,
    ) = read_back(dev, &mut block, &mut chunk, &samples, dense, seed, progress);
    shared.retain(|&(a, b)| a != b);

    let mut found = Found {
        claimed: dev.size(),
        real: dev.size(),
        evidence: format!(
            "all {} samples across it and the {} after its first MiB read back intact",
            samples.len(),
            format_size(dense)
        ),
        samples: samples.len(),
        written_bytes: written,
        good_bytes,
        aliased_bytes,
        bad_bytes,
        write_mb_per_s,
        read_mb_per_s,
    };
    let mut edge = Edge {
        dev,
        seed,
        chunk: &mut chunk,
        progress,
        written: 0,
    };
    if let Some(period) = shared.iter().map(|&(a, b)| a.abs_diff(b)).min() {
        wrapped(&mut edge, &mut found, &shared, period, (step, dense, size))?;
    }
    if let Some(p) = lost_in_dense {
        if p < found.real {
            found.real = p;
            found.evidence = format!(
                "data written at {} ({p} bytes) did not read back",
                format_size(p)
            );
        }
    } else if let Some(i) = first_lost.filter(|&i| samples[i] < found.real) {
        let from = if i == 0 {
            SPARED + dense
        } else {
            samples[i - 1] + BLOCK as u64
        };
        let lost = samples[i];
        let first = edge
            .first_lost(from, lost, (SPARED, SPARED + dense))?
            .unwrap_or(lost);
        if first < found.real {
            found.real = first;
            found.evidence = format!(
                "data written at {} ({first} bytes) and beyond does not read back",
                format_size(first)
            );
        }
    }
    found.written_bytes += edge.written;
    Ok(found)
}

/// Where the address wraps: the real capacity is the lowest place found shared, or where the
/// wrap begins above a kept region, plus the period; `found` says so.
fn wrapped(
    edge: &mut Edge<'_>,
    found: &mut Found,
    shared: &[(u64, u64)],
    period: u64,
    (step, dense, size): (u64, u64, u64),
) -> io::Result<()> {
    // The lowest place found shared is at K or above, and K is at most two samples' steps
    // below it (a sample lands on `D` every step); its window of `D` is then probed.
    let lowest = shared
        .iter()
        .map(|&(a, b)| a.min(b))
        .min()
        .unwrap_or(SPARED);
    let to = lowest.clamp(SPARED, SPARED + dense);
    let from = to.saturating_sub(2 * step).max(SPARED);
    let kept = edge.wrap_start(from, to, period, size)?.unwrap_or(to);
    // Where K is within the spared first MiB, it cannot be told from 0: R is P, never more.
    let real = if kept <= SPARED {
        period
    } else {
        kept + period
    };
    found.real = real;
    found.evidence = if kept <= SPARED {
        format!(
            "writes at {} ({real} bytes) and beyond land on positions below it (the address wraps)",
            format_size(real)
        )
    } else {
        format!(
            "writes at {} ({real} bytes) and beyond land on positions from {} ({kept} bytes) up (the address wraps past the first {})",
            format_size(real),
            format_size(kept),
            format_size(kept)
        )
    };
    Ok(())
}

/// What reading back found: places two positions share, the first place lost in the dense
/// region and the first sample lost, and the bytes by kind.
#[derive(Default)]
struct Readback {
    /// Each pair shares one place: the higher of the two is past R, the lower is at K or above.
    shared: Vec<(u64, u64)>,
    lost_in_dense: Option<u64>,
    first_lost: Option<usize>,
    good_bytes: u64,
    aliased_bytes: u64,
    bad_bytes: u64,
}

/// A block every `step` after the dense region, jittered within its step, and the last block.
fn sample_positions(size: u64, dense: u64, step: u64, seed: u64) -> Vec<u64> {
    let mut rng = iomark_os::rng::Rng::from_seed([seed, 1, 2, 3]);
    let mut samples = Vec::new();
    let mut at = SPARED + dense;
    while at + BLOCK as u64 <= size {
        let jitter = rng.next_u64() % (step / BLOCK as u64) * BLOCK as u64;
        let p = (at + jitter).min(size - BLOCK as u64);
        samples.push(p);
        at += step;
    }
    if samples.last() != Some(&(size - BLOCK as u64)) {
        samples.push(size - BLOCK as u64);
    }
    samples.dedup();
    samples
}

/// Reads the dense region back, then the samples; returns what was found and the dense
/// region's read rate.
fn read_back(
    dev: &mut dyn Blocks,
    block: &mut Aligned,
    chunk: &mut Aligned,
    samples: &[u64],
    dense: u64,
    seed: u64,
    progress: &dyn Fn(u64),
) -> (Readback, f64) {
    // Read the dense region back: any sector holding another position's data is evidence.
    let mut r = Readback::default();
    let started = std::time::Instant::now();
    for at in (0..dense).step_by(chunk.len()) {
        let len = (dense - at).min(chunk.len() as u64) as usize;
        let position = SPARED + at;
        let read = dev.read_at(&mut chunk[..len], position);
        progress(len as u64);
        if read.is_err() {
            r.lost_in_dense.get_or_insert(position);
            r.bad_bytes += len as u64;
            continue;
        }
        for (i, sector) in chunk[..len].chunks_exact(SECTOR).enumerate() {
            let here = position + (i * SECTOR) as u64;
            match pattern::check(sector, here, seed) {
                Sector::Good => r.good_bytes += SECTOR as u64,
                Sector::Aliased(holds) => {
                    r.aliased_bytes += SECTOR as u64;
                    r.shared.push((here, holds));
                }
                Sector::Bad => {
                    r.bad_bytes += SECTOR as u64;
                    r.lost_in_dense.get_or_insert(here);
                }
            }
        }
    }
    let read_mb_per_s = dense as f64 / 1e6 / started.elapsed().as_secs_f64();
    // Then the samples.
    for (i, &p) in samples.iter().enumerate() {
        let got = match dev.read_at(block, p) {
            Ok(()) => seen(block, p, seed),
            Err(_) => Seen::Lost,
        };
        progress(BLOCK as u64);
        match got {
            Seen::Good => r.good_bytes += BLOCK as u64,
            Seen::Holds(holds) => {
                r.aliased_bytes += BLOCK as u64;
                r.shared.push((p, holds));
            }
            Seen::Lost => {
                r.bad_bytes += BLOCK as u64;
                r.first_lost.get_or_insert(i);
            }
        }
    }
    (r, read_mb_per_s)
}

impl Blocks for crate::engine::rawdev::RawDevice {
    fn size(&self) -> u64 {
        self.size
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::write_all_at(&self.file, buf, offset)
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

mod edge;
#[cfg(test)]
pub(crate) mod fakes;

#[cfg(test)]
mod tests {
    use super::fakes::Fake;
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn a_genuine_device_is_its_claim() {
        let mut dev = Fake::new(4 * GIB, 4 * GIB, false);
        let found = probe(&mut dev, 9, &|_| {}).unwrap();
        assert_eq!(found.real, 4 * GIB, "{found:?}");
        // About 64 MiB and a block per 32 MiB.
        assert!(found.written_bytes < (64 << 20) + 200 * BLOCK as u64);
    }

    #[test]
    fn a_wrapping_fake_is_found_exactly() {
        // Powers of two, and not.
        for holds in [GIB / 2, 300 << 20, (1500 << 20) + 512 * 7, 40 << 20] {
            let mut dev = Fake::new(4 * GIB, holds, false);
            let found = probe(&mut dev, 3, &|_| {}).unwrap();
            assert_eq!(found.real, holds, "holds {holds}: {found:?}");
        }
    }

    #[test]
    fn a_wrap_past_a_kept_region_is_found_at_its_edge() {
        // The first K bytes kept apart (a FAT), the rest wrapping after them: the usable size is
        // R, not the period R − K (which it said before, a few percent short).
        for (holds, kept) in [
            (300 << 20, 4 << 20),
            ((1500 << 20) + 512 * 7, 20 << 20),
            (GIB / 2, 48 << 20),
            (40 << 20, 8 << 20),
        ] {
            let mut dev = Fake::new(4 * GIB, holds, false);
            dev.kept = kept;
            let found = probe(&mut dev, 7, &|_| {}).unwrap();
            assert_eq!(found.real, holds, "holds {holds}, keeps {kept}: {found:?}");
        }
        // Kept within the spared first MiB, which is never written: never more than R.
        let mut dev = Fake::new(4 * GIB, GIB, false);
        dev.kept = 512 << 10;
        let found = probe(&mut dev, 7, &|_| {}).unwrap();
        assert!(
            found.real <= GIB && found.real >= GIB - (1 << 20),
            "{found:?}"
        );
    }

    #[test]
    fn a_wrap_with_an_offset_is_found_exactly() {
        for offset in [(7 << 20) + 512 * 3, 200 << 20] {
            let mut dev = Fake::new(4 * GIB, 300 << 20, false);
            dev.offset = offset;
            let found = probe(&mut dev, 11, &|_| {}).unwrap();
            assert_eq!(found.real, 300 << 20, "offset {offset}: {found:?}");
        }
    }

    #[test]
    fn a_cache_answering_recent_writes_does_not_hide_the_edge() {
        // 8 MiB of recent writes answered from a cache: a block written and read at once reads
        // back whatever the card keeps.
        for (lose, kept) in [(true, 0), (false, 0), (false, 16 << 20)] {
            let holds = (700 << 20) + 4096 * 3;
            let mut dev = Fake::new(4 * GIB, holds, lose);
            dev.kept = kept;
            dev.cache = (8 << 20) / SECTOR;
            let found = probe(&mut dev, 13, &|_| {}).unwrap();
            assert_eq!(found.real, holds, "lose {lose}, keeps {kept}: {found:?}");
        }
    }

    #[test]
    fn a_fake_that_loses_writes_is_found_to_the_block() {
        for holds in [GIB, (700 << 20) + 4096 * 3] {
            let mut dev = Fake::new(8 * GIB, holds, true);
            let found = probe(&mut dev, 5, &|_| {}).unwrap();
            assert_eq!(found.real, holds, "holds {holds}: {found:?}");
        }
    }
}
