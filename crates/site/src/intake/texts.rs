//! Every text of a document as a site keeps it: Unicode-normalised (NFC: a letter and its
//! accent as one character, so one name is spelled one way), without invisible formatting,
//! and with the folders that name a person hidden, as `iomark submit` hides them before sending
//! (`iomark_result::result::hide_private_paths`): a warning's text kept the folder of a card
//! mounted at `/media/USER/…`, and with it the user's name, on the result's page, in the API
//! and in the dump (issue 59).

use unicode_normalization::UnicodeNormalization;

/// Every text in `value` made canonical (`iomark_result::result::each_text`: its identifiers
/// and keys aside).
pub fn canonical(value: &mut serde_json::Value) {
    iomark_result::result::each_text(value, &mut |text| {
        // Invisible formatting (bidirectional overrides, zero-width characters) has no
        // place in a benchmark's text: inside a path it kept a user's name unseen.
        let normal = iomark_result::result::identity::seen(&text.nfc().collect::<String>());
        *text = iomark_result::result::hide_private_paths(&normal);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_spelled_one_way_and_name_no_one() {
        let mut value = serde_json::json!({
            "label": "Cafe\u{0301}",
            "warnings": [{"message": "/media/bob/CARD is slow; /home/bob/test too"}],
        });
        canonical(&mut value);
        assert_eq!(value["label"], "Caf\u{e9}");
        assert_eq!(
            value["warnings"][0]["message"],
            "/media/USER/[folder] is slow; ~/[folder] too"
        );
    }
}
