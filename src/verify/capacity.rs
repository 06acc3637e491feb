//! A raw device's real capacity, found in seconds by writing samples rather than everything
//! (f3probe's job; the method is iomark's own).
//!
//! A counterfeit card keeps only its first R bytes. Past them, a write either lands on a
//! position below R (the address wraps, usually modulo R) or is lost. So:
//! 1. a block of this run's sectors is written every `W/2` bytes (jittered) across the device,
//!    from low to high; then a dense region `D` of `W` bytes just after the first MiB (which is
//!    spared: it holds the partition table), written last, so it also flushes a small cache;
//! 2. every sample and all of `D` are read back. A sample at p ≥ R that wrapped shows data of a
//!    position below it: p − that position is a multiple of R, and since samples are closer
//!    together than `D` is long, one of them (the first past R) lands in `D`, giving R itself.
//!    A sample whose write was lost reads back bad;
//! 3. between the last good sample and the first lost one, a bisection (write, sync, read one
//!    block) finds the first lost block.
//!
//! It writes about `W` + one block per `W/2` of the device (64 MiB + 8 MB for 256 GB), so it
//! takes seconds, not the hours of a full fill; it does not check every byte (`--full` does).

use std::io;

use super::pass::Aligned;
use super::pattern::{self, Sector, SECTOR};
use crate::units::format_size;

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
    let mut rng = crate::rng::Rng::from_seed([seed, 1, 2, 3]);
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

    // Read the dense region back: any sector holding another position's data is evidence.
    let mut candidates: Vec<u64> = Vec::new();
    let mut lost_in_dense: Option<u64> = None;
    let (mut good_bytes, mut aliased_bytes, mut bad_bytes) = (0u64, 0u64, 0u64);
    let started = std::time::Instant::now();
    for at in (0..dense).step_by(chunk.len()) {
        let len = (dense - at).min(chunk.len() as u64) as usize;
        let position = SPARED + at;
        let read = dev.read_at(&mut chunk[..len], position);
        progress(len as u64);
        if read.is_err() {
            lost_in_dense.get_or_insert(position);
            bad_bytes += len as u64;
            continue;
        }
        for (i, sector) in chunk[..len].chunks_exact(SECTOR).enumerate() {
            let here = position + (i * SECTOR) as u64;
            match pattern::check(sector, here, seed) {
                Sector::Good => good_bytes += SECTOR as u64,
                Sector::Aliased(holds) => {
                    aliased_bytes += SECTOR as u64;
                    candidates.push(here.abs_diff(holds))
                }
                Sector::Bad => {
                    bad_bytes += SECTOR as u64;
                    lost_in_dense.get_or_insert(here);
                }
            }
        }
    }
    let read_mb_per_s = dense as f64 / 1e6 / started.elapsed().as_secs_f64();
    // Then the samples.
    let mut first_lost: Option<usize> = None;
    for (i, &p) in samples.iter().enumerate() {
        let got = match dev.read_at(&mut block, p) {
            Ok(()) => seen(&block, p, seed),
            Err(_) => Seen::Lost,
        };
        progress(BLOCK as u64);
        match got {
            Seen::Good => good_bytes += BLOCK as u64,
            Seen::Holds(holds) => {
                aliased_bytes += BLOCK as u64;
                candidates.push(p.abs_diff(holds))
            }
            Seen::Lost => {
                bad_bytes += BLOCK as u64;
                first_lost.get_or_insert(i);
            }
        }
    }

    let wrap = candidates.iter().copied().filter(|&c| c > 0).min();
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
    if let Some(r) = wrap {
        found.real = r;
        found.evidence = format!(
            "writes at {} ({r} bytes) and beyond land on positions below it (the address wraps)",
            format_size(r)
        );
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
        // Bisect between the last good sample and the first lost one.
        let mut good = if i == 0 {
            SPARED + dense
        } else {
            samples[i - 1] + BLOCK as u64
        };
        let mut lost = samples[i];
        while lost > good {
            let mid = good + (lost - good) / 2 / BLOCK as u64 * BLOCK as u64;
            pattern::fill(&mut block, mid, seed);
            let ok = dev.write_at(&block, mid).is_ok()
                && dev.sync().is_ok()
                && dev.read_at(&mut block, mid).is_ok()
                && seen(&block, mid, seed) == Seen::Good;
            written += BLOCK as u64;
            if ok {
                good = mid + BLOCK as u64;
            } else {
                lost = mid;
            }
        }
        if lost < found.real {
            found.real = lost;
            found.evidence = format!(
                "data written at {} ({lost} bytes) and beyond does not read back",
                format_size(lost)
            );
        }
        found.written_bytes = written;
    }
    Ok(found)
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

#[cfg(test)]
pub(crate) mod fakes {
    use super::*;
    use std::collections::HashMap;

    /// A device claiming `claimed` bytes that keeps `holds`: past it, writes wrap modulo
    /// `holds` (`lose: false`) or are lost, reading zeros (`lose: true`). Sparse in memory.
    pub struct Fake {
        pub claimed: u64,
        pub holds: u64,
        pub lose: bool,
        pub sectors: HashMap<u64, Vec<u8>>,
    }

    impl Fake {
        pub fn new(claimed: u64, holds: u64, lose: bool) -> Self {
            Fake {
                claimed,
                holds,
                lose,
                sectors: HashMap::new(),
            }
        }
    }

    impl Blocks for Fake {
        fn size(&self) -> u64 {
            self.claimed
        }
        fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
            for (i, s) in buf.chunks(SECTOR).enumerate() {
                let at = offset + (i * SECTOR) as u64;
                if at >= self.holds && self.lose {
                    continue;
                }
                self.sectors.insert(at % self.holds, s.to_vec());
            }
            Ok(())
        }
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
            for (i, s) in buf.chunks_mut(SECTOR).enumerate() {
                let at = offset + (i * SECTOR) as u64;
                match self.sectors.get(&(at % self.holds)) {
                    Some(data) if !(self.lose && at >= self.holds) => s.copy_from_slice(data),
                    _ => s.fill(0),
                }
            }
            Ok(())
        }
        fn sync(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}

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
    fn a_fake_that_loses_writes_is_found_to_the_block() {
        for holds in [GIB, (700 << 20) + 4096 * 3] {
            let mut dev = Fake::new(8 * GIB, holds, true);
            let found = probe(&mut dev, 5, &|_| {}).unwrap();
            assert_eq!(found.real, holds, "holds {holds}: {found:?}");
        }
    }
}
