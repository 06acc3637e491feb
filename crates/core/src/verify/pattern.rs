//! What verify writes: every 512-byte sector says where it belongs.
//!
//! A sector is its own position (the byte offset in the verified stream), the run's seed, and
//! 62 words drawn from a generator seeded by both. Read back, a sector is one of:
//! - **good**: exactly what was written there;
//! - **aliased**: exactly what this run wrote at *another* position: the device stored two
//!   positions in one place, the mark of a card that claims more than it holds;
//! - **bad**: anything else (a flipped bit, zeros, another run's data).
//!
//! A read that fails is counted by the caller as unreadable.

pub const SECTOR: usize = 512;

/// A sector read back, against what was written at its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sector {
    Good,
    /// This run's data of the position given.
    Aliased(u64),
    Bad,
}

#[inline]
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Fills `buf` (a whole number of sectors) with the sectors of positions `position`,
/// `position + 512`, …
pub fn fill(buf: &mut [u8], position: u64, seed: u64) {
    debug_assert_eq!(buf.len() % SECTOR, 0);
    for (i, sector) in buf.chunks_exact_mut(SECTOR).enumerate() {
        let at = position + (i * SECTOR) as u64;
        let mut state = seed ^ at.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        sector[..8].copy_from_slice(&at.to_le_bytes());
        sector[8..16].copy_from_slice(&seed.to_le_bytes());
        for word in sector[16..].chunks_exact_mut(8) {
            word.copy_from_slice(&splitmix(&mut state).to_le_bytes());
        }
    }
}

/// Whether `buf` holds exactly the sectors of `position` on (the common case, checked fast:
/// the expected bytes are made in `scratch` and compared whole).
pub fn all_good(buf: &[u8], position: u64, seed: u64, scratch: &mut [u8]) -> bool {
    let scratch = &mut scratch[..buf.len()];
    fill(scratch, position, seed);
    buf == &scratch[..]
}

/// What one sector read back at `position` holds.
pub fn check(sector: &[u8], position: u64, seed: u64) -> Sector {
    if matches(sector, position, seed) {
        return Sector::Good;
    }
    let word = |i: usize| u64::from_le_bytes(sector[i * 8..i * 8 + 8].try_into().unwrap());
    let (claimed, claimed_seed) = (word(0), word(1));
    if claimed_seed == seed
        && claimed != position
        && claimed % SECTOR as u64 == 0
        && matches(sector, claimed, seed)
    {
        Sector::Aliased(claimed)
    } else {
        Sector::Bad
    }
}

fn matches(sector: &[u8], position: u64, seed: u64) -> bool {
    let mut expected = [0u8; SECTOR];
    fill(&mut expected, position, seed);
    sector == expected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_say_where_they_belong() {
        let mut buf = vec![0u8; 4 * SECTOR];
        fill(&mut buf, 1 << 20, 7);
        for (i, sector) in buf.chunks(SECTOR).enumerate() {
            let at = (1 << 20) + (i * SECTOR) as u64;
            assert_eq!(check(sector, at, 7), Sector::Good);
            // Read at another position, it is that position's data.
            assert_eq!(check(sector, at + 4096, 7), Sector::Aliased(at));
            // Another run's seed makes it foreign, not aliased.
            assert_eq!(check(sector, at, 8), Sector::Bad);
        }
        // No two sectors are alike.
        assert_ne!(buf[..SECTOR], buf[SECTOR..2 * SECTOR]);
    }

    #[test]
    fn one_flipped_bit_is_bad() {
        let mut buf = vec![0u8; SECTOR];
        fill(&mut buf, 0, 1);
        for bit in [0, 8 * 8 + 3, 8 * SECTOR - 1] {
            let mut copy = buf.clone();
            copy[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(check(&copy, 0, 1), Sector::Bad, "bit {bit}");
        }
        assert_eq!(check(&[0u8; SECTOR], 0, 1), Sector::Bad);
        assert_eq!(check(&[0xFFu8; SECTOR], 0, 1), Sector::Bad);
    }
}
