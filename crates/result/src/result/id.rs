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

/// Serial numbers never leave the machine: only this salted hash does (twelve bytes of a
/// SHA-256, in lowercase hex).
pub fn serial_hash(serial: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("iomark.serial/1:{}", serial.trim()).as_bytes());
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// Whether `text` is what [`serial_hash`] makes: 24 lowercase hex figures.
pub fn is_serial_hash(text: &str) -> bool {
    text.len() == 24 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The fewest characters of an id shown: ten of a ULID's 26 are its time to the millisecond
/// and two random characters, so two runs rarely share them.
pub const SHORT_ID: usize = 10;

/// Shortest prefixes (at least `min` characters) that tell each id apart from the others.
/// Sorted, an id shares its longest beginning with a neighbour: each needs one character past
/// that, so 100,000 ids take a sort, not 10^10 comparisons (`iomark import` was quadratic).
pub fn short_ids(ids: &[&str], min: usize) -> Vec<String> {
    short_ids_among(ids, ids, min)
}

/// The shortest prefixes of `wanted` (at least `min` characters) that tell each apart from
/// every other id of `all` (which holds them, or not).
pub fn short_ids_among(wanted: &[&str], all: &[&str], min: usize) -> Vec<String> {
    let mut sorted: Vec<&str> = all.iter().chain(wanted).copied().collect();
    sorted.sort_unstable();
    sorted.dedup();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    wanted
        .iter()
        .map(|id| {
            let at = sorted.binary_search(id).unwrap_or_else(|at| at);
            let before = at.checked_sub(1).map(|i| common(id, sorted[i]));
            let after = sorted.get(at + 1).map(|next| common(id, next));
            let shared = before.into_iter().chain(after).max().unwrap_or(0);
            let mut len = min.max(shared + 1).min(id.len());
            while !id.is_char_boundary(len) {
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
    fn serial_hash_is_stable_and_hides_the_serial() {
        let hash = serial_hash("S4EWNX0R123456");
        assert_eq!(hash, serial_hash(" S4EWNX0R123456\n"));
        assert_eq!(hash.len(), 24);
        assert!(!hash.contains("S4EW"));
        assert_ne!(hash, serial_hash("S4EWNX0R123457"));
        assert!(is_serial_hash(&hash) && !is_serial_hash("S4EWNX0R123456"));
    }

    /// The shortest prefixes as the definition says, one id against every other.
    fn by_definition(ids: &[&str], min: usize) -> Vec<String> {
        ids.iter()
            .map(|id| {
                let mut len = min.min(id.len());
                let clash = |len: usize| {
                    ids.iter()
                        .any(|o| o != id && o.len() >= len && o[..len] == id[..len])
                };
                while len < id.len() && clash(len) {
                    len += 1;
                }
                id[..len].to_string()
            })
            .collect()
    }

    #[test]
    fn short_ids_are_what_comparing_every_pair_gives() {
        let mut rng = iomark_os::rng::Rng::from_seed([59, 1, 2, 3]);
        for round in 0..200 {
            // Few letters, so that ids share long beginnings; some ids twice, some a prefix
            // of another.
            let mut ids: Vec<String> = (0..1 + round % 30)
                .map(|_| {
                    let len = 1 + (rng.next_u64() % 12) as usize;
                    (0..len)
                        .map(|_| (b'A' + (rng.next_u64() % 3) as u8) as char)
                        .collect()
                })
                .collect();
            if ids.len() > 2 {
                ids.push(ids[0].clone());
                let cut = ids[1].len() / 2;
                ids.push(ids[1][..cut.max(1)].to_string());
            }
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            for min in [1, 3, 10] {
                assert_eq!(
                    short_ids(&refs, min),
                    by_definition(&refs, min),
                    "{refs:?} {min}"
                );
            }
        }
    }

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
