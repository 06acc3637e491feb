//! A saved run in other shapes: one file per format behind one trait, and the charts.
//!
//! Exporters are pure: a result document in, bytes out. Where the bytes go (a file, standard
//! output) is the command's business.
//!
//! What lives where: one file per format behind `Exporter` (json, csv, markdown, html: the report
//! is `templates/report.html`, which the site's result page serves too; what a profile adds below
//! the table in words is its own, `iomark_profiles::details`); `chart/`, one file per chart kind (`card.rs` is one run as a card to
//! post, CrystalDiskMark's window), with what they share in `frame.rs` (legends, keys, axes,
//! panels, and the one colour rule, `color_for`: one run draws read blue and write orange; a
//! comparison gives each run its own colour, never those two, the same in every chart, named by its
//! letter in the key; lines solid for reads and dashed for writes; nothing else is told by colour,
//! so the timeline and latency charts draw a panel per test row) and `glyphs.rs` (PNG text drawn
//! glyph by glyph at each glyph's bearing, which plotters' bitmap backend misses). It knows nothing
//! of where the bytes go. `health.rs` tells a health check where people and monitors look
//! (Prometheus text, a webhook's JSON, the login message, a monitor's line).

pub mod chart;
mod csv;
pub mod health;
pub mod html;
pub mod json;
mod markdown;

/// A text cell as a spreadsheet may open it safely (see `csv`).
pub use csv::text as spreadsheet_text;

use iomark_result::result::ResultDoc;

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

/// A figure with the digits its size earns: one rule for every output.
pub(crate) use iomark_result::units::figure;
