//! What a read pass found: bytes by kind, and where the wrong ones are.

use super::pattern::{self, Sector, SECTOR};
use iomark_result::result::verify::{Problem, ProblemKind};

/// At most this many ranges are kept; the counts go on past them.
pub const MOST_RANGES: usize = 1000;

#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub good: u64,
    pub bad: u64,
    pub aliased: u64,
    pub unreadable: u64,
    /// Runs of wrong sectors, in stream order, merged where they touch.
    pub ranges: Vec<Problem>,
    /// Ranges found beyond [`MOST_RANGES`].
    pub more_ranges: u64,
}

impl Tally {
    /// Checks `buf`, read at stream `position`; `unreadable` lists (position, bytes) whose read
    /// failed.
    pub fn check(
        &mut self,
        buf: &[u8],
        position: u64,
        seed: u64,
        unreadable: &[(u64, u64)],
        scratch: &mut [u8],
    ) {
        if unreadable.is_empty() && pattern::all_good(buf, position, seed, scratch) {
            self.good += buf.len() as u64;
            return;
        }
        for (i, sector) in buf.chunks_exact(SECTOR).enumerate() {
            let at = position + (i * SECTOR) as u64;
            if unreadable.iter().any(|&(p, n)| at >= p && at < p + n) {
                self.unreadable += SECTOR as u64;
                self.note(at, ProblemKind::Unreadable, None);
                continue;
            }
            match pattern::check(sector, at, seed) {
                Sector::Good => self.good += SECTOR as u64,
                Sector::Bad => {
                    self.bad += SECTOR as u64;
                    self.note(at, ProblemKind::Bad, None);
                }
                Sector::Aliased(holds) => {
                    self.aliased += SECTOR as u64;
                    self.note(at, ProblemKind::Aliased, Some(holds));
                }
            }
        }
    }

    fn note(&mut self, at: u64, kind: ProblemKind, holds: Option<u64>) {
        if let Some(last) = self.ranges.last_mut() {
            let continues = last.kind == kind
                && last.position + last.bytes == at
                && match (last.holds, holds) {
                    (Some(h), Some(now)) => h + last.bytes == now,
                    (None, None) => true,
                    _ => false,
                };
            if continues {
                last.bytes += SECTOR as u64;
                return;
            }
        }
        if self.ranges.len() >= MOST_RANGES {
            self.more_ranges += 1;
            return;
        }
        self.ranges.push(Problem {
            position: at,
            bytes: SECTOR as u64,
            kind,
            holds,
        });
    }

    /// Where the first wrong byte is.
    pub fn first_bad(&self) -> Option<u64> {
        self.ranges.first().map(|r| r.position)
    }

    pub fn add(&mut self, other: Tally) {
        self.good += other.good;
        self.bad += other.bad;
        self.aliased += other.aliased;
        self.unreadable += other.unreadable;
        for range in other.ranges {
            if self.ranges.len() < MOST_RANGES {
                self.ranges.push(range);
            } else {
                self.more_ranges += 1;
            }
        }
        self.more_ranges += other.more_ranges;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_merges_what_is_wrong() {
        let seed = 42;
        let mut buf = vec![0u8; 16 * SECTOR];
        pattern::fill(&mut buf, 0, seed);
        // Sectors 2 and 3 flipped; 6..8 hold positions 1 MiB on; 12 unreadable.
        buf[2 * SECTOR + 100] ^= 4;
        buf[3 * SECTOR] ^= 1;
        pattern::fill(&mut buf[6 * SECTOR..8 * SECTOR], 1 << 20, seed);
        let mut tally = Tally::default();
        let mut scratch = vec![0u8; buf.len()];
        tally.check(
            &buf,
            0,
            seed,
            &[(12 * SECTOR as u64, SECTOR as u64)],
            &mut scratch,
        );
        assert_eq!(tally.good, 11 * SECTOR as u64);
        assert_eq!(tally.bad, 2 * SECTOR as u64);
        assert_eq!(tally.aliased, 2 * SECTOR as u64);
        assert_eq!(tally.unreadable, SECTOR as u64);
        let ranges: Vec<_> = tally
            .ranges
            .iter()
            .map(|r| (r.position, r.bytes, r.kind, r.holds))
            .collect();
        let s = SECTOR as u64;
        assert_eq!(
            ranges,
            vec![
                (2 * s, 2 * s, ProblemKind::Bad, None),
                (6 * s, 2 * s, ProblemKind::Aliased, Some(1 << 20)),
                (12 * s, s, ProblemKind::Unreadable, None),
            ]
        );
        assert_eq!(tally.first_bad(), Some(2 * s));
    }
}
