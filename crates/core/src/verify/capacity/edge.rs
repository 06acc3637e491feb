//! Finding a counterfeit's edge to the sector: whole windows written and read back, so that
//! a card's cache cannot answer for what it lost (step 3 of the probe, `mod.rs`).

use std::io;

use super::pattern::{self, Sector, SECTOR};
use super::{Aligned, Blocks};

/// What finds the edge: writes whole windows and reads them back (step 3 above).
pub(super) struct Edge<'a> {
    pub dev: &'a mut dyn Blocks,
    pub seed: u64,
    pub chunk: &'a mut Aligned,
    pub progress: &'a dyn Fn(u64),
    pub written: u64,
}

impl Edge<'_> {
    /// Writes this run's data for positions `from..to`, each at `position + shift`.
    fn write(&mut self, from: u64, to: u64, shift: u64) -> io::Result<()> {
        let mut at = from;
        while at < to {
            let len = (to - at).min(self.chunk.len() as u64) as usize;
            pattern::fill(&mut self.chunk[..len], at + shift, self.seed);
            self.dev.write_at(&self.chunk[..len], at + shift)?;
            self.written += len as u64;
            (self.progress)(len as u64);
            at += len as u64;
        }
        Ok(())
    }

    /// The first position of `from..to` that does not read back its own data.
    fn first_wrong(&mut self, from: u64, to: u64) -> io::Result<Option<u64>> {
        self.dev.sync()?;
        let mut at = from;
        while at < to {
            let len = (to - at).min(self.chunk.len() as u64) as usize;
            let read = self.dev.read_at(&mut self.chunk[..len], at);
            (self.progress)(len as u64);
            if read.is_err() {
                return Ok(Some(at));
            }
            for (i, sector) in self.chunk[..len].chunks_exact(SECTOR).enumerate() {
                let here = at + (i * SECTOR) as u64;
                if pattern::check(sector, here, self.seed) != Sector::Good {
                    return Ok(Some(here));
                }
            }
            at += len as u64;
        }
        Ok(None)
    }

    /// Where a wrap of `period` begins in `from..to` (a stretch of `D`, holding its own data):
    /// each position's partner `period` above is written, and the first position that then
    /// holds other data shares its place with it. `None` if none does.
    pub(super) fn wrap_start(
        &mut self,
        from: u64,
        to: u64,
        period: u64,
        size: u64,
    ) -> io::Result<Option<u64>> {
        let to = to.min(size.saturating_sub(period));
        if from >= to {
            return Ok(None);
        }
        // `D` holds its own data (it read back so); the partners' writes also push it out of
        // any cache, so what is read is what the card keeps.
        self.write(from, to, period)?;
        self.first_wrong(from, to)
    }

    /// The first position of `from..to` whose write is lost: the stretch written whole, then
    /// `flush` (known good, elsewhere) written again so no cache answers, then read back.
    pub(super) fn first_lost(
        &mut self,
        from: u64,
        to: u64,
        flush: (u64, u64),
    ) -> io::Result<Option<u64>> {
        self.write(from, to, 0)?;
        self.write(flush.0, flush.1, 0)?;
        self.first_wrong(from, to)
    }
}
