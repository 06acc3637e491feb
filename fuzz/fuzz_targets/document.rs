//! A result document as the site and `iomark import` take it: any bytes. What is accepted
//! must be what the site can keep and give back: through the site's one intake
//! (`iomark_site::intake`), thinned to its bound, and admitted again as the same document from
//! what it stores (a dump is imported the same way).
#![no_main]

use iomark_result::result::{ResultDoc, SITE_KEEPS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(doc) = ResultDoc::from_json(text) else {
        return;
    };
    let stored = serde_json::to_string(&doc).expect("an accepted document serialises");
    let again = ResultDoc::from_json(&stored).expect("what was accepted is accepted again");
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        stored,
        "read again, the document is the same"
    );
    // The site's one intake: what it admits is canonical (admitted again, unchanged), within
    // the bound a site keeps, and drawn within a time bound (the fuzz run's own timeout).
    let Ok(kept) = iomark_site::intake::admit(text) else {
        return;
    };
    let text = serde_json::to_string(&kept).unwrap();
    assert!(
        text.len() <= SITE_KEEPS,
        "a site keeps at most {SITE_KEEPS} bytes"
    );
    let again = iomark_site::intake::admit(&text).expect("what a site keeps is admitted again");
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        text,
        "admitted again, unchanged"
    );
});
