//! What a test's name states of it: its block size, queue depth and threads. The engine's plan
//! (`suite::spec`) makes names so, and a site refuses a test whose figures deny its name.

/// The block size, queue depth and threads a test's name states: `SEQ1M_Q8T1_read` is
/// 1 MiB, 8, 1; `RND4K_Q32T1_write` 4 KiB, 32, 1; `IOZRND4K_Q1T1_read` 4 KiB, 1, 1. None for
/// a name of another shape.
pub fn shape(name: &str) -> Option<(u64, u32, u32)> {
    let mut parts = name.split('_');
    let size = parts
        .next()?
        .trim_start_matches(|c: char| c.is_ascii_uppercase());
    let queue = parts.next()?.strip_prefix('Q')?;
    let (unit, digits) = match size.strip_suffix('K') {
        Some(d) => (1u64 << 10, d),
        None => (1u64 << 20, size.strip_suffix('M')?),
    };
    let block = digits.parse::<u64>().ok()?.checked_mul(unit)?;
    let (depth, threads) = queue.split_once('T')?;
    Some((block, depth.parse().ok()?, threads.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_state_their_shape() {
        assert_eq!(shape("SEQ1M_Q8T1_read"), Some((1 << 20, 8, 1)));
        assert_eq!(shape("RND4K_Q32T1_write"), Some((4096, 32, 1)));
        assert_eq!(shape("SEQ128K_Q32T1_read"), Some((128 << 10, 32, 1)));
        assert_eq!(shape("IOZRND4K_Q1T1_read"), Some((4096, 1, 1)));
        assert_eq!(shape("DD4K_Q1T1_write"), Some((4096, 1, 1)));
        assert_eq!(shape("whatever"), None);
        assert_eq!(shape("SEQ99999999999999999M_Q1T1_read"), None);
    }
}
