//! Reading a result document from elsewhere (a file to import, later a submission) and checking
//! it before anything keeps it, against the schema and against physical sense: an id that can be
//! addressed, sizes within bounds, finite non-negative figures that agree with each other, real
//! times in order, text without control characters. Each refusal is one line that says what is
//! wrong, naming the field.

use std::time::{Duration, SystemTime};

pub use super::document_error::*;
use super::time::rfc3339;
use super::{ResultDoc, SCHEMA};

/// Whether `text` can be a label: at most 200 characters, none of them control characters
/// (an escape sequence in a label would drive the terminal that shows it).
pub fn check_label(text: &str) -> Result<(), String> {
    if text.chars().count() > MAX_LABEL_CHARS {
        return Err(format!("a label has at most {MAX_LABEL_CHARS} characters"));
    }
    if text.chars().any(char::is_control) {
        return Err("a label cannot hold control characters (newlines, escapes)".into());
    }
    Ok(())
}

/// What a device may be said to be sold as: a label's rules, at most
/// [`MAX_SOLD_AS_CHARS`] characters, and some letter or digit.
pub fn check_sold_as(text: &str) -> Result<(), String> {
    if text.chars().count() > MAX_SOLD_AS_CHARS {
        return Err(format!(
            "what a device is sold as has at most {MAX_SOLD_AS_CHARS} characters"
        ));
    }
    if text.chars().any(char::is_control) {
        return Err("what a device is sold as cannot hold control characters".into());
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Err("what a device is sold as needs a letter or a digit".into());
    }
    Ok(())
}

impl ResultDoc {
    /// Parses and checks a result document from elsewhere.
    pub fn from_json(text: &str) -> Result<ResultDoc, DocumentError> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(DocumentError::TooLarge(text.len()));
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(DocumentError::NotJson)?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => return Err(DocumentError::OtherSchema(other.into())),
            None => return Err(DocumentError::NoSchema),
        }
        check_text(&value, &mut String::new())?;
        // Read as text, as the store reads what it keeps (one reader of the document in the
        // binary, not a second from the value: about 100 KB), the value's text: keys in order
        // and each once, so a newer iomark's field reads the same wherever it was sent.
        let canonical = serde_json::to_string(&value).map_err(DocumentError::Invalid)?;
        let doc: ResultDoc = serde_json::from_str(&canonical).map_err(DocumentError::Invalid)?;
        doc.check()?;
        Ok(doc)
    }

    /// The document's own sense: what serde cannot see.
    fn check(&self) -> Result<(), DocumentError> {
        if !is_ulid(&self.id) && !is_uuid(&self.id) {
            return Err(DocumentError::BadId(self.id.chars().take(40).collect()));
        }
        if let Some(label) = &self.label {
            check_label(label).map_err(|e| DocumentError::BadText(format!("label: {e}")))?;
        }
        if let Some(name) = &self.sold_as {
            check_sold_as(name).map_err(|e| DocumentError::BadText(format!("sold_as: {e}")))?;
        }
        if let Some(price) = self.price_usd {
            if !crate::units::is_price(price) {
                return Err(DocumentError::BadText(format!(
                    "price_usd: {price} is not a price (above 0, below a million dollars)"
                )));
            }
        }
        let started = rfc3339("started_at", &self.started_at)?;
        let finished = rfc3339("finished_at", &self.finished_at)?;
        if finished < started {
            return Err(DocumentError::BadTimes(
                "finished_at is before started_at".into(),
            ));
        }
        if started > SystemTime::now() + Duration::from_secs(24 * 3600) {
            return Err(DocumentError::BadTimes(format!(
                "started_at {} is in the future",
                self.started_at
            )));
        }
        let s = &self.settings;
        if s.loops == 0 || s.file_size_bytes == 0 {
            return Err(DocumentError::BadSettings(
                "loops and file_size_bytes must be above zero".into(),
            ));
        }
        if !(finite(s.duration_s) && finite(s.warmup_s)) {
            return Err(DocumentError::BadSettings(
                "duration_s and warmup_s must be finite and not negative".into(),
            ));
        }
        if self.warnings.len() > MAX_WARNINGS {
            return Err(DocumentError::TooManyWarnings(self.warnings.len()));
        }
        // A surface scan and a verify run measure by themselves, with no table of tests; their
        // figures are checked as the tests' are.
        let surface = match &self.score {
            Some(super::Score::Surface(score)) => Some(&score.surface),
            _ => None,
        };
        if let Some(surface) = surface {
            surface.check().map_err(|what| DocumentError::BadFigure {
                test: "score.surface".into(),
                what,
            })?;
        }
        if let Some(verify) = &self.verify {
            for (name, rate) in [
                ("write_mb_per_s", verify.write_mb_per_s),
                ("read_mb_per_s", verify.read_mb_per_s),
            ] {
                if rate.is_some_and(|r| !finite(r)) {
                    return Err(DocumentError::BadFigure {
                        test: "verify".into(),
                        what: format!("{name} must be finite and not negative"),
                    });
                }
            }
        }
        if let Some(health) = &self.health {
            health.check().map_err(|what| DocumentError::BadFigure {
                test: "health".into(),
                what,
            })?;
        }
        if self.tests.is_empty()
            && surface.is_none()
            && self.verify.is_none()
            && self.health.is_none()
        {
            return Err(DocumentError::NoTests);
        }
        if self.tests.len() > MAX_TESTS {
            return Err(DocumentError::TooManyTests(self.tests.len()));
        }
        let no_io = s.engine.split('+').any(|e| e == "null");
        let mut names = std::collections::HashSet::new();
        for t in &self.tests {
            if !names.insert(t.name.as_str()) {
                return Err(DocumentError::DuplicateTest(t.name.clone()));
            }
            check_test(t, no_io).map_err(|what| DocumentError::BadFigure {
                test: t.name.clone(),
                what,
            })?;
        }
        Ok(())
    }
}

fn finite(value: f64) -> bool {
    value.is_finite() && value >= 0.0
}

/// One test's figures: finite, not negative, within what storage can do, and agreeing with
/// each other.
fn check_test(t: &super::TestResult, no_io: bool) -> Result<(), String> {
    if t.name.is_empty() {
        return Err("a test has no name".into());
    }
    if t.block_size == 0 || t.queue_depth == 0 || t.threads == 0 {
        return Err("block_size, queue_depth and threads must be above zero".into());
    }
    let l = &t.latency_us;
    let figures = [
        ("mb_per_s", t.mb_per_s),
        ("iops", t.iops),
        ("cv", t.cv),
        ("latency_us.min", l.min),
        ("latency_us.mean", l.mean),
        ("latency_us.p50", l.p50),
        ("latency_us.p90", l.p90),
        ("latency_us.p99", l.p99),
        ("latency_us.p99_9", l.p99_9),
        ("latency_us.max", l.max),
        ("latency_us.stddev", l.stddev),
        ("cpu.user_s", t.cpu.user_s),
        ("cpu.sys_s", t.cpu.sys_s),
    ];
    let samples = t
        .loops
        .iter()
        .flat_map(|l| {
            [
                ("loops.mb_per_s", l.mb_per_s),
                ("loops.iops", l.iops),
                ("loops.seconds", l.seconds),
            ]
        })
        .chain(
            t.timeline
                .iter()
                .flat_map(|s| [("timeline.t", s.t), ("timeline.mb_per_s", s.mb_per_s)]),
        )
        .chain(
            l.histogram
                .iter()
                .map(|b| ("latency_us.histogram.le_us", b.le_us)),
        );
    for (name, value) in figures.into_iter().chain(samples) {
        if !finite(value) {
            return Err(format!(
                "{name} is {value}: figures are finite and not negative"
            ));
        }
    }
    if t.timeline.windows(2).any(|w| w[1].t < w[0].t) {
        return Err("timeline.t goes back: a timeline's samples are in the order of time".into());
    }
    if !no_io && t.mb_per_s > MAX_MB_PER_S {
        return Err(format!(
            "{} MB/s is beyond any storage (at most {MAX_MB_PER_S} MB/s outside the null engine)",
            t.mb_per_s
        ));
    }
    // iomark reports the median loop whole, so MB/s = IOPS × block size exactly; allow for the
    // rounding of documents written by other means.
    let implied = t.iops * t.block_size as f64 / 1e6;
    if (t.mb_per_s - implied).abs() > 1e-3 * t.mb_per_s.max(implied).max(1e-9) {
        return Err(format!(
            "{} MB/s disagrees with {} IOPS of {} bytes ({implied} MB/s)",
            t.mb_per_s, t.iops, t.block_size
        ));
    }
    Ok(())
}

/// Every string in the document: no control characters, none over the length any field needs.
fn check_text(value: &serde_json::Value, path: &mut String) -> Result<(), DocumentError> {
    match value {
        serde_json::Value::String(text) => {
            if text.chars().count() > MAX_TEXT_CHARS {
                return Err(DocumentError::BadText(format!(
                    "{path}: longer than {MAX_TEXT_CHARS} characters"
                )));
            }
            if text.chars().any(char::is_control) {
                return Err(DocumentError::BadText(format!(
                    "{path}: holds a control character"
                )));
            }
        }
        serde_json::Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{index}]"));
                check_text(item, path)?;
                path.truncate(len);
            }
        }
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                check_text(item, path)?;
                path.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

/// A ULID as iomark makes them: 26 characters of Crockford's base32, upper case.
fn is_ulid(id: &str) -> bool {
    id.len() == 26
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_uppercase() && !b"ILOU".contains(&b)))
}

/// A UUID in its usual form: 8-4-4-4-12 lower-case hex digits.
fn is_uuid(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| {
            g.len() == n
                && g.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sample;
    use proptest::strategy::Strategy;

    fn refused(change: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut value = serde_json::to_value(sample::doc()).unwrap();
        change(&mut value);
        ResultDoc::from_json(&value.to_string())
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn the_sample_is_taken_and_times_with_offsets_are_read() {
        let text = serde_json::to_string(&sample::doc()).unwrap();
        ResultDoc::from_json(&text).unwrap();
        let utc = rfc3339("t", "2026-11-21T07:00:00Z").unwrap();
        assert_eq!(rfc3339("t", "2026-11-21T21:00:00+14:00").unwrap(), utc);
        assert_eq!(rfc3339("t", "2026-11-21T02:30:00.125-04:30").unwrap(), utc);
        assert_eq!(
            utc.duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs(),
            1_795_244_400
        );
        for bad in [
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-11-21 07:00",
            "yesterday",
        ] {
            assert!(rfc3339("t", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn issue_11_documents_that_make_no_sense_are_refused() {
        use serde_json::json;
        type Change = Box<dyn FnOnce(&mut serde_json::Value)>;
        let cases: Vec<(Change, &str)> = vec![
            (
                Box::new(|v| v["tests"][0]["latency_us"]["p99"] = json!(-5.0)),
                "latency_us.p99 is -5",
            ),
            (
                Box::new(|v| {
                    v["tests"][0]["mb_per_s"] = json!(1e308);
                    v["tests"][0]["iops"] = json!(1e308 / 1.048576);
                }),
                "beyond any storage",
            ),
            (
                Box::new(|v| v["tests"][0]["iops"] = json!(1.0)),
                "disagrees with",
            ),
            (
                Box::new(|v| v["finished_at"] = json!("2026-11-21T06:00:00Z")),
                "before started_at",
            ),
            (
                Box::new(|v| {
                    v["started_at"] = json!("9999-01-01T00:00:00Z");
                    v["finished_at"] = json!("9999-01-01T00:00:01Z");
                }),
                "in the future",
            ),
            (
                Box::new(|v| {
                    let first = v["tests"][0].clone();
                    v["tests"].as_array_mut().unwrap().push(first);
                }),
                "appears twice",
            ),
            (
                // Found by the fuzz target draw: a sample 2 * 10^15 s in, between two others.
                Box::new(|v| v["tests"][0]["timeline"][0]["t"] = json!(2e15)),
                "timeline.t goes back",
            ),
            (Box::new(|v| v["id"] = json!("latest")), "must be a ULID"),
            (
                Box::new(|v| v["id"] = json!("01KAQZ8X3N")),
                "must be a ULID",
            ),
            (
                Box::new(|v| v["label"] = json!("x".repeat(201))),
                "at most 200",
            ),
            (
                Box::new(|v| v["label"] = json!("\u{1b}]0;pwned\u{7}")),
                "control character",
            ),
            (
                Box::new(|v| v["target"]["path"] = json!("a\nb")),
                "target.path: holds a control",
            ),
        ];
        for (change, needle) in cases {
            let error = refused(change);
            assert!(error.contains(needle), "{needle}: {error}");
        }
    }

    /// A document as `run` makes them, with figures drawn at random but consistent the way
    /// the engine makes them (the reported loop's MB/s is its IOPS times the block size).
    fn generated(figures: &[(u32, u32, f64, f64)], label: &str) -> ResultDoc {
        let mut doc = sample::doc();
        doc.label = Some(label.to_string());
        doc.tests.truncate(figures.len().max(1));
        for (test, &(block_kib, depth, mb_per_s, latency)) in doc.tests.iter_mut().zip(figures) {
            test.block_size = u64::from(block_kib) * 1024;
            test.queue_depth = depth;
            test.mb_per_s = mb_per_s;
            test.iops = mb_per_s * 1e6 / test.block_size as f64;
            test.latency_us.p50 = latency;
            test.latency_us.max = latency * 3.0;
            test.cv = latency / 1e6;
        }
        doc
    }

    proptest::proptest! {
        #[test]
        fn any_document_run_can_make_survives_import_and_export_byte_for_byte(
            figures in proptest::collection::vec(
                (1u32..16384, 1u32..256, 0.0f64..1e5, 0.0f64..1e7), 1..8),
            label in "[ -~]{0,200}",
        ) {
            let doc = generated(&figures, &label);
            let text = serde_json::to_string_pretty(&doc).unwrap();
            let back = ResultDoc::from_json(&text).unwrap();
            proptest::prop_assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text);
        }

        #[test]
        fn no_document_crashes_import(
            path in proptest::collection::vec(0usize..64, 1..5),
            replacement in proptest::prop_oneof![
                proptest::strategy::Just(serde_json::Value::Null),
                proptest::num::f64::ANY.prop_map(|f| serde_json::json!(f)),
                proptest::num::i64::ANY.prop_map(|i| serde_json::json!(i)),
                ".{0,40}".prop_map(serde_json::Value::String),
                proptest::strategy::Just(serde_json::json!([])),
                proptest::strategy::Just(serde_json::json!({})),
            ],
            cut in 0usize..20_000,
        ) {
            // One value anywhere in a real document replaced by another of any kind.
            let mut value = serde_json::to_value(sample::doc()).unwrap();
            let mut pointer = String::new();
            let mut at = &value;
            for step in &path {
                let next = match at {
                    serde_json::Value::Object(map) if !map.is_empty() => {
                        let (key, item) = map.iter().nth(step % map.len()).unwrap();
                        pointer.push_str(&format!("/{key}"));
                        item
                    }
                    serde_json::Value::Array(items) if !items.is_empty() => {
                        let index = step % items.len();
                        pointer.push_str(&format!("/{index}"));
                        &items[index]
                    }
                    _ => break,
                };
                at = next;
            }
            *value.pointer_mut(&pointer).unwrap() = replacement;
            let _ = ResultDoc::from_json(&value.to_string());
            // And any prefix of a real document: never a panic, an error at worst.
            let text = serde_json::to_string(&sample::doc()).unwrap();
            let cut = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
            proptest::prop_assert!(ResultDoc::from_json(&text[..cut]).is_err() || cut == text.len());
        }
    }

    /// Found by the fuzz target document: a field this version does not know, sent after
    /// the known ones of an untagged score's object (an SD class's `required`), read back
    /// otherwise than it was kept; read from the parsed value's text, it reads the same.
    #[test]
    fn a_kept_document_reads_back_the_same_whatever_its_fields_order() {
        let text = include_str!("../../../../fuzz/corpus/document/unknown-field-after-known.json");
        let doc = ResultDoc::from_json(text).unwrap();
        let stored = serde_json::to_string(&doc).unwrap();
        let again = ResultDoc::from_json(&stored).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), stored);
    }

    #[test]
    fn issue_11_fields_this_version_does_not_know_are_kept() {
        let mut value = serde_json::to_value(sample::doc()).unwrap();
        value["from_the_future"] = serde_json::json!({"a": [1, 2]});
        value["settings"]["new_setting"] = serde_json::json!("x");
        value["tests"][0]["latency_us"]["p99_99"] = serde_json::json!(900.0);
        value["tests"][0]["timeline"][0]["iops"] = serde_json::json!(5.0);
        let doc = ResultDoc::from_json(&value.to_string()).unwrap();
        assert_eq!(serde_json::to_value(&doc).unwrap(), value);
    }
}
