//! Identities and times of result documents: ULIDs and RFC 3339 stamps.

/// A new ULID (48 bits of milliseconds and 80 random bits, in Crockford's base32): unique, and
/// sortable by time, which history listings use.
pub fn new_id() -> String {
    ulid::Ulid::new().to_string()
}

/// Now, as RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// A time given in seconds since 1970, as RFC 3339 UTC with seconds.
pub fn unix_rfc3339(seconds: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    humantime::format_rfc3339_seconds(at).to_string()
}

/// The fewest characters of an id shown: ten of a ULID's 26 are its time to the millisecond
/// and two random characters, so two runs rarely share them.
pub const SHORT_ID: usize = 10;

/// Shortest prefixes (at least `min` characters) that tell each id apart from the others.
pub fn short_ids(ids: &[&str], min: usize) -> Vec<String> {
    ids.iter()
        .map(|id| {
            let mut len = min.min(id.len());
            while len < id.len()
                && ids
                    .iter()
                    .any(|other| other != id && other.len() >= len && other[..len] == id[..len])
            {
                len += 1;
            }
            id[..len].to_string()
        })
        .collect()
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
