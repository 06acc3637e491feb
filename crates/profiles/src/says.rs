//! What a profile's score says to people ([`Says`]): a headline in a few words and a sentence, the
//! lines a report prints below the table, and how the run was paced where the profile paces it its
//! own way. Each profile's file implements it for its score; the list (`lib.rs`, `says_of`) finds
//! the implementation a document's score has. Text is marked through [`Marks`]: a terminal's bold,
//! dim and red, or nothing ([`Plain`]) for a report.

use iomark_result::result::ResultDoc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Headline {
    /// A few words: `score 1459`, `C10 U3 V30 A1`, `cliff at 4 GiB`.
    pub short: String,
    /// One plain sentence on what it means.
    pub sentence: String,
}

/// How the text is marked: a terminal's bold, dim and red, or nothing ([`Plain`]).
pub trait Marks {
    fn bold(&self, text: &str) -> String;
    fn dim(&self, text: &str) -> String;
    fn red(&self, text: &str) -> String;
}

/// Text as it is, for a report.
pub struct Plain;

impl Marks for Plain {
    fn bold(&self, text: &str) -> String {
        text.to_string()
    }
    fn dim(&self, text: &str) -> String {
        text.to_string()
    }
    fn red(&self, text: &str) -> String {
        text.to_string()
    }
}

/// What a profile's score says about the run `doc` it is part of.
pub trait Says {
    /// The run's headline, where the figures allow one.
    fn headline(&self, doc: &ResultDoc) -> Option<Headline>;
    /// What a report prints below the table, each line ending in a newline.
    fn details(&self, doc: &ResultDoc, style: &dyn Marks) -> String;
    /// What was measured, where it is not the run's test file (`16 GiB`, `1 GiB device`).
    fn object(&self, _doc: &ResultDoc) -> Option<String> {
        None
    }
    /// How the I/O was done and with what data, where not by the run's engine.
    fn engine(&self, _doc: &ResultDoc) -> Option<(String, String)> {
        None
    }
    /// How the tests were paced, where not in timed loops.
    fn pacing(&self, _doc: &ResultDoc) -> Option<String> {
        None
    }
    /// Direct or buffered I/O (`mode`), where some of the profile's steps differ.
    fn io_mode(&self, _doc: &ResultDoc, _mode: &str) -> Option<String> {
        None
    }
}

/// Seconds as people say them: `500 ms`, `5 s`.
pub fn seconds(s: f64) -> String {
    if s < 1.0 && s > 0.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{s} s")
    }
}
