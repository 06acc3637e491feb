//! A result's deletion token, as the client that submits it and the site that keeps it both
//! know it: `iomark submit` makes one and sends it with the result, so that a submission sent
//! again after a lost answer is answered with the same receipt; the site takes a client's own
//! only in this shape, and makes one the same way for a client that sends none.

/// A new deletion token: 32 random bytes from the kernel, in hex.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether a client's own token is long enough not to be guessed, and plain: 32 to 128
/// letters, digits, `-` or `_`.
pub fn is_token(token: &str) -> bool {
    (32..=128).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_token_is_one_a_site_takes() {
        let token = new_token().unwrap();
        assert_eq!(token.len(), 64);
        assert!(is_token(&token));
        assert_ne!(token, new_token().unwrap());
        assert!(!is_token("short"));
        assert!(!is_token(&"x".repeat(129)));
        assert!(!is_token(&format!("{}<", "a".repeat(40))));
    }
}
