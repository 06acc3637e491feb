//! Every picture and export of a document the site would take: the card it serves as PNG,
//! each chart `iomark plot` draws, and the JSON, CSV, Markdown and HTML exports. Whatever
//! validates draws, or says what it lacks; none panics or takes unbounded memory.
#![no_main]

use iomark_export::chart::{self, Kind};
use iomark_export::{exporter, Format};
use iomark_result::result::ResultDoc;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(doc) = ResultDoc::from_json(text) else {
        return;
    };
    // One picture or the exports an input, chosen by its bytes: drawing all of them for each
    // would leave a tenth of the inputs tried in the same time.
    let kinds = Kind::ALL.len();
    let pick = usize::from(bytes.iter().fold(0u8, |sum, b| sum.wrapping_add(*b))) % (kinds + 2);
    match pick {
        k if k < kinds => {
            let kind = Kind::ALL[k];
            if chart::check(kind, &[&doc]).is_ok() {
                let svg = chart::svg(kind, &[&doc]).expect("a drawable chart draws");
                assert!(svg.starts_with("<svg"), "{}", kind.name());
            }
            // The card as the site serves it: as PNG, of the document as the site keeps it
            // (its one intake).
            if kind == Kind::Card {
                if let Ok(kept) = iomark_site::intake::admit(text) {
                    if chart::check(Kind::Card, &[&kept]).is_ok() {
                        let png = chart::png(Kind::Card, &[&kept]).expect("a drawable card draws");
                        assert!(png.starts_with(b"\x89PNG"));
                    }
                }
            }
        }
        k if k == kinds => {
            let both = [&doc, &doc];
            if chart::check(Kind::Bars, &both).is_ok() {
                chart::svg(Kind::Bars, &both).expect("two runs compare");
            }
        }
        _ => {
            for format in [Format::Json, Format::Csv, Format::Markdown, Format::Html] {
                exporter(format)
                    .export(&doc)
                    .expect("an accepted document exports");
            }
        }
    }
});
