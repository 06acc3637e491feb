//! Which strings of a document are text people and machines write words into, and which are
//! identifiers: the privacy rules read the first and leave the second alone.

use serde_json::Value;

/// Where a document holds no one's words: its schema, ULID and times, whose form
/// `ResultDoc::validate` checks before anything reads them, and a device's serial hash, made
/// 24 hex figures by [`hash_serial`]. The privacy rules read every other string; reading these
/// mangled them (a ZFS pool's GUID, 17 figures or more, is a run a test's id holds:
/// `01JTEST0000000000000000013`), and kept rules for a network card's and an NTFS volume's
/// ids out of every text.
pub const IDENTIFIERS: [&str; 5] = [
    "/schema",
    "/id",
    "/started_at",
    "/finished_at",
    "/target/device/serial_hash",
];

/// `f` on every text of `value`: each string but the [`IDENTIFIERS`] (keys aside).
pub fn each_text(value: &mut Value, f: &mut impl FnMut(&mut String)) {
    walk(value, &mut String::new(), f)
}

fn walk(value: &mut Value, at: &mut String, f: &mut impl FnMut(&mut String)) {
    let mut into = |value: &mut Value, at: &mut String, key: &str| {
        if matches!(value, Value::String(_) | Value::Array(_) | Value::Object(_)) {
            let len = at.len();
            // A JSON pointer's escapes: a key holding `/` is no path of nested fields.
            at.push('/');
            at.push_str(&key.replace('~', "~0").replace('/', "~1"));
            walk(value, at, f);
            at.truncate(len);
        }
    };
    match value {
        Value::String(text) if !IDENTIFIERS.contains(&at.as_str()) => f(text),
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                into(item, at, &i.to_string());
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                into(item, at, key);
            }
        }
        _ => {}
    }
}

/// A device's serial hash as iomark makes it: one sent as anything else (a serial number
/// itself, a sentence) is hashed as iomark hashes a serial, so only a hash is ever kept.
pub fn hash_serial(value: &mut Value) {
    if let Some(field) = value.pointer_mut("/target/device/serial_hash") {
        if let Some(text) = field.as_str().filter(|t| !crate::result::is_serial_hash(t)) {
            *field = crate::result::serial_hash(text).into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_no_text_and_a_serial_is_only_ever_a_hash() {
        let mut value = serde_json::json!({
            "id": "01JTEST0000000000000000013",
            "label": "01JTEST0000000000000000013",
            "id/x": "text",
            "target": {"device": {"serial_hash": "S4EWNX0R123456", "model": "m"}},
            "tests": [{"name": "n"}],
        });
        hash_serial(&mut value);
        let mut seen = Vec::new();
        each_text(&mut value, &mut |t| seen.push(t.clone()));
        seen.sort();
        assert_eq!(seen, ["01JTEST0000000000000000013", "m", "n", "text"]);
        let hash = value["target"]["device"]["serial_hash"].as_str().unwrap();
        assert_eq!(hash, crate::result::serial_hash("S4EWNX0R123456"));
        // A hash is kept as it came.
        let before = value.clone();
        hash_serial(&mut value);
        assert_eq!(before, value);
    }
}
