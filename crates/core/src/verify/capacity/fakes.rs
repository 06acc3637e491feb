//! Counterfeit devices in memory, for the probe's tests: each way a fake card is known to
//! lie, with a known truth.

use super::{Blocks, SECTOR};
use std::collections::{HashMap, VecDeque};
use std::io;

/// A device claiming `claimed` bytes that keeps `holds` (R). Past R, writes are lost,
/// reading zeros (`lose`), or wrap: position p lands on K + (p − K) mod (R − K), its first
/// `kept` bytes (K) kept apart, and every place is `offset` further on, modulo R. The last
/// `cache` sectors written are answered from a cache, as a card's controller may. Sparse in
/// memory.
pub struct Fake {
    pub claimed: u64,
    pub holds: u64,
    pub lose: bool,
    pub kept: u64,
    pub offset: u64,
    pub cache: usize,
    /// The cache: the positions written, oldest first, each with its write's number; and
    /// the newest data of each position in it.
    recent: VecDeque<(u64, u64)>,
    cached: HashMap<u64, (u64, Vec<u8>)>,
    writes: u64,
    pub sectors: HashMap<u64, Vec<u8>>,
}

impl Fake {
    pub fn new(claimed: u64, holds: u64, lose: bool) -> Self {
        Fake {
            claimed,
            holds,
            lose,
            kept: 0,
            offset: 0,
            cache: 0,
            recent: VecDeque::new(),
            cached: HashMap::new(),
            writes: 0,
            sectors: HashMap::new(),
        }
    }

    /// Where position `at` is kept, if anywhere.
    fn place(&self, at: u64) -> Option<u64> {
        let within = if at < self.holds {
            at
        } else if self.lose {
            return None;
        } else {
            self.kept + (at - self.kept) % (self.holds - self.kept)
        };
        Some((within + self.offset) % self.holds)
    }
}

impl Blocks for Fake {
    fn size(&self) -> u64 {
        self.claimed
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        for (i, s) in buf.chunks(SECTOR).enumerate() {
            let at = offset + (i * SECTOR) as u64;
            if self.cache > 0 {
                self.writes += 1;
                self.recent.push_back((at, self.writes));
                self.cached.insert(at, (self.writes, s.to_vec()));
                if self.recent.len() > self.cache {
                    let (old, number) = self.recent.pop_front().unwrap();
                    if self.cached.get(&old).is_some_and(|(n, _)| *n == number) {
                        self.cached.remove(&old);
                    }
                }
            }
            if let Some(place) = self.place(at) {
                self.sectors.insert(place, s.to_vec());
            }
        }
        Ok(())
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        for (i, s) in buf.chunks_mut(SECTOR).enumerate() {
            let at = offset + (i * SECTOR) as u64;
            if let Some((_, data)) = self.cached.get(&at) {
                s.copy_from_slice(data);
                continue;
            }
            match self.place(at).and_then(|place| self.sectors.get(&place)) {
                Some(data) => s.copy_from_slice(data),
                None => s.fill(0),
            }
        }
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
}
