//! Offsets and data: the offset sequences and the written bytes, drawn from [`Rng`].

pub use iomark_os::rng::Rng;

use super::{Data, Pattern};

/// The offsets one stream of I/O visits.
#[derive(Clone, Debug)]
pub struct Offsets {
    pattern: Pattern,
    block_size: u64,
    blocks: u64,
    first_block: u64,
    span_blocks: u64,
    position: u64,
    rng: Rng,
}

impl Offsets {
    /// Offsets over a file of `file_size` bytes. For sequential I/O from several independent
    /// streams (threads), stream `stripe` of `stripes` walks its own contiguous share of the
    /// file (the shares differ by at most a block and cover it all), as fio does with
    /// `offset_increment`; random I/O always spans the whole file.
    pub fn new(
        pattern: Pattern,
        block_size: u64,
        file_size: u64,
        stripe: u64,
        stripes: u64,
    ) -> Self {
        let blocks = (file_size / block_size).max(1);
        // More streams than blocks: the extra ones share blocks rather than walk none.
        let (first_block, share) = share(blocks, stripe % blocks, stripes.min(blocks));
        let span_blocks = share.max(1);
        Offsets {
            pattern,
            block_size,
            blocks,
            first_block,
            span_blocks,
            position: 0,
            rng: Rng::from_entropy(),
        }
    }

    #[inline]
    pub fn next_offset(&mut self) -> u64 {
        let block = match self.pattern {
            Pattern::Sequential => {
                let block = self.first_block + self.position;
                self.position += 1;
                if self.position == self.span_blocks {
                    self.position = 0;
                }
                block
            }
            Pattern::Random => self.rng.below(self.blocks),
        };
        block * self.block_size
    }
}

/// Stream `index`'s share of `total` things (I/Os, blocks) split among `streams`: the shares
/// differ by at most one and add up to `total`, as (where it starts, how many).
pub fn share(total: u64, index: u64, streams: u64) -> (u64, u64) {
    let streams = u128::from(streams.max(1));
    let at = |i: u64| (u128::from(total) * u128::from(i) / streams) as u64;
    (at(index), at(index + 1) - at(index))
}

/// Prepares a write buffer once: random bytes, or zeros.
pub fn prepare(buf: &mut [u8], data: Data, rng: &mut Rng) {
    match data {
        Data::Random => rng.fill(buf),
        Data::Zero => buf.fill(0),
    }
}

/// Makes a write buffer unlike any block written before by overwriting one word in every
/// 512-byte sector. This is far cheaper than refilling the buffer, and enough to defeat
/// sector-level deduplication; the rest of the buffer stays incompressible.
#[inline]
pub fn restamp(buf: &mut [u8], data: Data, rng: &mut Rng) {
    if data == Data::Zero {
        return;
    }
    for sector in buf.chunks_mut(512) {
        sector[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_wraps_within_the_file() {
        let mut offsets = Offsets::new(Pattern::Sequential, 4096, 4 * 4096, 0, 1);
        let seen: Vec<u64> = (0..6).map(|_| offsets.next_offset()).collect();
        assert_eq!(seen, vec![0, 4096, 8192, 12288, 0, 4096]);
    }

    #[test]
    fn sequential_stripes_split_the_file() {
        let mut second = Offsets::new(Pattern::Sequential, 1024, 8 * 1024, 1, 2);
        let seen: Vec<u64> = (0..5).map(|_| second.next_offset()).collect();
        assert_eq!(seen, vec![4096, 5120, 6144, 7168, 4096]);
        // More stripes than blocks: every stream still gets a valid block.
        let mut crowded = Offsets::new(Pattern::Sequential, 1024, 2 * 1024, 5, 8);
        assert!(crowded.next_offset() < 2 * 1024);
    }

    #[test]
    fn uneven_stripes_cover_every_block_once() {
        // 10 blocks over 3 streams: 3, 3 and 4 blocks, each walked once by its stream's share
        // of a count of 10.
        let mut seen = Vec::new();
        for stripe in 0..3 {
            let mut offsets = Offsets::new(Pattern::Sequential, 512, 10 * 512, stripe, 3);
            let quota = share(10, stripe, 3).1;
            seen.extend((0..quota).map(|_| offsets.next_offset() / 512));
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..10).collect::<Vec<u64>>());
        assert_eq!(share(7, 0, 16), (0, 0));
        assert_eq!((0..16).map(|i| share(7, i, 16).1).sum::<u64>(), 7);
    }

    #[test]
    fn random_offsets_are_aligned_uniform_and_in_range() {
        let mut offsets = Offsets::new(Pattern::Random, 4096, 64 * 4096, 0, 1);
        let mut counts = [0u32; 64];
        for _ in 0..64_000 {
            let offset = offsets.next_offset();
            assert_eq!(offset % 4096, 0);
            counts[(offset / 4096) as usize] += 1;
        }
        // 1000 expected per block; a uniform generator stays well within ±20%.
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn random_data_is_incompressible_and_restamped() {
        let mut rng = Rng::from_seed([1, 2, 3, 4]);
        let mut buf = vec![0u8; 4096];
        prepare(&mut buf, Data::Random, &mut rng);
        let zeros = buf.iter().filter(|&&b| b == 0).count();
        assert!(zeros < 64, "random data has {zeros} zero bytes in 4096");
        let before = buf.clone();
        restamp(&mut buf, Data::Random, &mut rng);
        assert_ne!(before, buf);
        assert_eq!(before[8..512], buf[8..512]);
        let mut zero = vec![1u8; 4096];
        prepare(&mut zero, Data::Zero, &mut rng);
        restamp(&mut zero, Data::Zero, &mut rng);
        assert!(zero.iter().all(|&b| b == 0));
    }
}
