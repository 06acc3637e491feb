//! Why a result document from elsewhere is refused, and the bounds it is held to.

use super::SCHEMA;

/// A document larger than this is refused unread (a real one is tens of KiB; a langs run with
/// every language, a few hundred).
pub const MAX_DOCUMENT_BYTES: usize = 16 << 20;
/// Any one text field.
pub const MAX_TEXT_CHARS: usize = 4096;
/// A label, as `--label` takes it.
pub const MAX_LABEL_CHARS: usize = 200;
/// What a device is sold as (`iomark submit --model`): a product's name, not a sentence.
pub const MAX_SOLD_AS_CHARS: usize = 80;
pub const MAX_TESTS: usize = 1000;
pub const MAX_WARNINGS: usize = 1000;
/// No storage a benchmark can reach moves a terabyte a second; the null engine, which does no
/// I/O, is the one exception.
pub const MAX_MB_PER_S: f64 = 1e6;

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("the document is {0} bytes, more than the {MAX_DOCUMENT_BYTES} a result can be")]
    TooLarge(usize),
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("schema is '{0}', expected '{SCHEMA}'")]
    OtherSchema(String),
    #[error("no \"schema\" field: not an {SCHEMA} document")]
    NoSchema,
    #[error("not a valid {SCHEMA} document: {0}")]
    Invalid(serde_json::Error),
    #[error("\"id\" must be a ULID (26 characters, as iomark makes them) or a UUID, not '{0}'")]
    BadId(String),
    #[error("{0}")]
    BadText(String),
    #[error("the document has no tests")]
    NoTests,
    #[error("the document has {0} tests, more than {MAX_TESTS}")]
    TooManyTests(usize),
    #[error("the document has {0} warnings, more than {MAX_WARNINGS}")]
    TooManyWarnings(usize),
    #[error("test {0} appears twice")]
    DuplicateTest(String),
    #[error("test {test}: {what}")]
    BadFigure { test: String, what: String },
    #[error("{field}: '{value}' is not an RFC 3339 time")]
    BadTime { field: &'static str, value: String },
    #[error("{0}")]
    BadTimes(String),
    #[error("settings: {0}")]
    BadSettings(String),
}

impl DocumentError {
    /// Why, in one word from a fixed list: what a site's metrics count refusals by.
    pub fn reason(&self) -> &'static str {
        match self {
            DocumentError::TooLarge(_) => "too_large",
            DocumentError::NotJson(_) => "not_json",
            DocumentError::OtherSchema(_) | DocumentError::NoSchema => "schema",
            DocumentError::Invalid(_) => "invalid",
            DocumentError::BadId(_) => "bad_id",
            DocumentError::BadText(_) => "bad_text",
            DocumentError::NoTests
            | DocumentError::TooManyTests(_)
            | DocumentError::TooManyWarnings(_)
            | DocumentError::DuplicateTest(_) => "tests",
            DocumentError::BadFigure { .. } => "bad_figure",
            DocumentError::BadTime { .. } | DocumentError::BadTimes(_) => "bad_time",
            DocumentError::BadSettings(_) => "bad_settings",
        }
    }
}
