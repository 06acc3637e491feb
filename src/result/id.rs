//! Identities and times of result documents: ULIDs and RFC 3339 stamps.

/// A new ULID (Crockford base32 of 48 bits of milliseconds and 80 random bits): unique, and
/// sortable by time, which history listings will use.
pub fn new_id() -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut rng = crate::rng::Rng::from_entropy();
    let random = ((rng.next_u64() as u128) << 16) | (rng.next_u64() as u128 & 0xFFFF);
    let value = (millis & ((1 << 48) - 1)) << 80 | random;
    (0..26)
        .rev()
        .map(|i| ALPHABET[((value >> (i * 5)) & 31) as usize] as char)
        .collect()
}

/// Now, as RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_ulids_and_unique() {
        let a = new_id();
        let b = new_id();
        assert_eq!(a.len(), 26);
        assert_ne!(a, b);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase()));
    }
}
