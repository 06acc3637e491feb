//! A result document as the site and `iomark import` take it: any bytes. What is accepted
//! must be what the site can keep and give back: checked, thinned to its bound, and read again
//! as the same document from what it stores (a dump is imported the same way).
#![no_main]

use iomark_result::result::{ResultDoc, SITE_KEEPS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(mut doc) = ResultDoc::from_json(text) else {
        return;
    };
    let stored = serde_json::to_string(&doc).expect("an accepted document serialises");
    let again = ResultDoc::from_json(&stored).expect("what was accepted is accepted again");
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        stored,
        "read again, the document is the same"
    );
    if doc.check_public().is_err() {
        return;
    }
    doc.target.path.clear();
    if doc.thin_for_site().is_ok() {
        let kept = serde_json::to_string(&doc).unwrap();
        assert!(kept.len() <= SITE_KEEPS, "a site keeps at most {SITE_KEEPS} bytes");
        let read = ResultDoc::from_json(&kept).expect("what a site keeps reads back");
        read.check_public().expect("what a site keeps is still plausible");
    }
});
