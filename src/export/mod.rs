//! A saved run in other shapes: one file per format behind one trait, and the charts.
//!
//! Exporters are pure: a result document in, bytes out. Where the bytes go (a file, standard
//! output) is the command's business.

pub mod chart;
mod csv;
mod html;
mod json;
mod markdown;

use crate::result::ResultDoc;

pub trait Exporter {
    /// What the format is called on the command line.
    fn name(&self) -> &'static str;
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, String>;
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

/// Test rows as the table shows them: a row name (`SEQ1M_Q8T1`) with its read and write tests.
pub(crate) fn rows(
    doc: &ResultDoc,
) -> Vec<(
    String,
    Option<&crate::result::TestResult>,
    Option<&crate::result::TestResult>,
)> {
    let mut rows: Vec<(String, Option<&_>, Option<&_>)> = Vec::new();
    for t in &doc.tests {
        let (row, op) = match t.name.rsplit_once('_') {
            Some((row, op @ ("read" | "write"))) => (row.to_string(), op),
            _ => (t.name.clone(), t.op.as_str()),
        };
        let index = match rows.iter().position(|r| r.0 == row) {
            Some(i) => i,
            None => {
                rows.push((row, None, None));
                rows.len() - 1
            }
        };
        if op == "write" {
            rows[index].2 = Some(t);
        } else {
            rows[index].1 = Some(t);
        }
    }
    rows
}
