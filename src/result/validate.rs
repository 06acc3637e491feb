//! Reading a result document from elsewhere (a file to import, later a submission) and checking
//! it before anything keeps it: the schema, an id that can be addressed, tests with finite,
//! non-negative figures, real times. Each refusal is one line that says what is wrong.

use super::{ResultDoc, SCHEMA};

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("schema is '{0}', expected '{SCHEMA}'")]
    OtherSchema(String),
    #[error("no \"schema\" field: not an {SCHEMA} document")]
    NoSchema,
    #[error("not a valid {SCHEMA} document: {0}")]
    Invalid(serde_json::Error),
    #[error("\"id\" must be 1 to 64 letters, digits or dashes")]
    BadId,
    #[error("the document has no tests")]
    NoTests,
    #[error("test {0}: a figure is negative or not a number")]
    BadFigure(String),
    #[error("'{0}' is not an RFC 3339 time")]
    BadTime(String),
}

impl ResultDoc {
    /// Parses and checks a result document from elsewhere.
    pub fn from_json(text: &str) -> Result<ResultDoc, DocumentError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(DocumentError::NotJson)?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => return Err(DocumentError::OtherSchema(other.into())),
            None => return Err(DocumentError::NoSchema),
        }
        let doc: ResultDoc = serde_json::from_value(value).map_err(DocumentError::Invalid)?;
        if doc.id.is_empty()
            || doc.id.len() > 64
            || !doc
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(DocumentError::BadId);
        }
        if doc.tests.is_empty() {
            return Err(DocumentError::NoTests);
        }
        for t in &doc.tests {
            let figures = [
                t.mb_per_s,
                t.iops,
                t.cv,
                t.latency_us.mean,
                t.latency_us.max,
            ];
            if figures.iter().any(|f| !f.is_finite() || *f < 0.0) {
                return Err(DocumentError::BadFigure(t.name.clone()));
            }
        }
        for stamp in [&doc.started_at, &doc.finished_at] {
            humantime::parse_rfc3339_weak(stamp)
                .map_err(|_| DocumentError::BadTime(stamp.clone()))?;
        }
        Ok(doc)
    }
}
