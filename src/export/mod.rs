//! A saved run in other shapes: one file per format behind one trait, and the charts.
//!
//! Exporters are pure: a result document in, bytes out. Where the bytes go (a file, standard
//! output) is the command's business.

pub mod chart;
mod csv;
pub mod html;
pub mod json;
mod markdown;
pub mod score;

/// A text cell as a spreadsheet may open it safely (see `csv`).
pub use csv::text as spreadsheet_text;

use crate::result::ResultDoc;

pub trait Exporter {
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, ExportError>;
}

/// Why a document or chart could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The runs lack what this chart draws; the message says which run would have it.
    #[error("{0}")]
    NothingToDraw(String),
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    #[error("cannot encode the document: {0}")]
    Encode(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    Markdown,
    Html,
}

pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Json => Box::new(json::Json),
        Format::Csv => Box::new(csv::Csv),
        Format::Markdown => Box::new(markdown::Markdown),
        Format::Html => Box::new(html::Html),
    }
}

/// A figure with a sensible number of decimals for its size.
pub(crate) fn figure(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}
