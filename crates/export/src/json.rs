//! The result document itself, as `iomark run --json` writes it.

use super::{ExportError, Exporter};
use iomark_result::result::ResultDoc;

pub struct Json;

impl Exporter for Json {
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, ExportError> {
        let mut text =
            serde_json::to_string_pretty(doc).map_err(|e| ExportError::Encode(e.to_string()))?;
        text.push('\n');
        Ok(text.into_bytes())
    }
}
