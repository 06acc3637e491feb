//! The CSV files' columns: a result's facts and figures, and a shared health check's.

use iomark_store::Entry;

/// The columns of the cards' file.
pub(super) const CARD_COLUMNS: [&str; 7] = [
    "check",
    "card",
    "device_key",
    "device_name",
    "checked_at",
    "verdict",
    "written_bytes_since_first_shared_check",
];

/// A column of the CSV: its name, and its cell for a result.
type Column = (&'static str, fn(&Entry) -> String);

/// A result's facts as the CSV gives them, before its figures (`METRICS`' columns).
pub(super) const COLUMNS: [Column; 15] = [
    ("id", |e| e.id.clone()),
    ("started_at", |e| e.started_at.clone()),
    ("class", |e| e.class.clone()),
    ("device_key", |e| text(&e.device_key)),
    ("device_name", |e| cell(&e.device_name)),
    ("sold_as", |e| text(&e.sold_as)),
    ("kind", |e| e.kind.clone()),
    ("transport", |e| text(&e.transport)),
    ("capacity_gb", |e| number(e.capacity_gb)),
    ("board", |e| text(&e.board)),
    ("filesystem", |e| text(&e.filesystem)),
    ("price_usd", |e| number(e.price_usd)),
    ("label", |e| text(&e.label)),
    ("headline", |e| text(&e.headline)),
    ("not_ranked_because", |e| {
        text(&e.flag.as_ref().map(iomark_profiles::reasons::words))
    }),
];

/// Text a submitter chose, as a spreadsheet may open it safely.
pub(super) fn cell(text: &str) -> String {
    iomark_export::spreadsheet_text(text)
}

fn text(value: &Option<String>) -> String {
    value.as_deref().map(cell).unwrap_or_default()
}

fn number<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}
