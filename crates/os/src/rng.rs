//! A fast random generator: xoshiro256++ (Blackman and Vigna, 2019), a handful of instructions
//! per 64 bits, so drawing random offsets costs nothing next to an I/O. It is seeded from the
//! kernel's `getrandom`, so two runs do not hit the same blocks in the same order. Used for
//! offsets and data (`engine`), test file names, and the seeds of verify, health and the site.

/// xoshiro256++.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Seeded from the kernel's random source.
    pub fn from_entropy() -> Self {
        let mut seed = [0u8; 32];
        // SAFETY: the buffer is valid for its length; getrandom writes at most that much.
        let got = unsafe { libc::getrandom(seed.as_mut_ptr().cast(), seed.len(), 0) };
        if got != seed.len() as isize {
            // Fall back on time and address entropy; offsets only need to be spread out.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            let addr = &seed as *const _ as u64;
            seed[..8].copy_from_slice(&nanos.to_le_bytes());
            seed[8..16].copy_from_slice(&addr.to_le_bytes());
        }
        let word = |i: usize| u64::from_le_bytes(seed[i * 8..i * 8 + 8].try_into().unwrap());
        Self::from_seed([word(0), word(1), word(2), word(3)])
    }

    /// A fixed seed, for tests. An all-zero state is the one state xoshiro cannot leave.
    pub fn from_seed(mut s: [u64; 4]) -> Self {
        if s == [0; 4] {
            s[0] = 0x9E37_79B9_7F4A_7C15;
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` by the multiply-shift method (Lemire, 2019); its bias is below
    /// n / 2^64, far below anything a benchmark can see.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Fills a buffer with random bytes.
    #[inline]
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}
