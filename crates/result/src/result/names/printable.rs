//! Text as a terminal or a log line may show it: what would drive the terminal or reorder
//! the line written out.

/// Text from a document, a device or a site, safe to put on a terminal or in a log line:
/// control characters (an escape sequence in a label would drive the terminal) and the marks
/// that reorder text (U+202E shows `gnusmaS` as `Samsung`) are shown escaped, as `\u{1b}`.
/// Imports refuse them, but a store may hold documents saved before they did, and a site's
/// answer may hold anything (the twelfth attack pass: a hostile site's receipt set the
/// terminal's title and cleared its screen through `iomark submit`).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, |c| c.is_control() || reorders(c))
}

/// `text` with each character `hidden` takes shown escaped: a control as `\n` or `\u{1b}`,
/// another as `\u{202e}`.
pub(super) fn escaped(text: &str, hidden: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(&hidden) {
        return text.into();
    }
    text.chars()
        .map(|c| match (hidden(c), c.is_control()) {
            (true, true) => c.escape_debug().to_string(),
            (true, false) => c.escape_unicode().to_string(),
            _ => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// Unicode's marks that reorder the text around them: embeddings, overrides, isolates and the
/// directional marks.
fn reorders(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}
