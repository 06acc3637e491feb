//! The columns of the site's tables and the SQL that writes and reads them, built once from
//! the facts below and the ranked figures (`result::metric::METRICS`): a new figure is a line
//! in that list and a column in a migration, and every statement here follows (the tests below
//! add one to a scratch copy of the list and see it written and read back).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use sqlx::any::AnyRow;
use sqlx::Row;

use super::model::{DeviceRow, Entry};
use iomark_result::result::metric::{Metric, METRICS};
use iomark_result::result::Reason;

/// A result's facts in `entries`, before its figures, in the order they are bound.
pub const ENTRY_FACTS: [&str; 21] = [
    "id",
    "device_key",
    "device_name",
    "kind",
    "transport",
    "class",
    "board",
    "filesystem",
    "capacity_gb",
    "price_usd",
    "flag",
    "synthetic",
    "token_hash",
    "started_at",
    "label",
    "headline",
    "sold_as",
    "submitter",
    "held",
    "system",
    "neighbourhood",
];

/// A device's aggregate in `devices`, before its figures' medians, in the order they are
/// bound; the first three are its key.
pub const DEVICE_FACTS: [&str; 16] = [
    "class",
    "scope",
    "device_key",
    "device_name",
    "kind",
    "transport",
    "capacity_gb",
    "results",
    "synthetic",
    "price_usd",
    "stats",
    "sold_as",
    "names",
    "submitters",
    "classes",
    "neighbourhoods",
];

/// The statements, for one list of figures.
pub struct Statements {
    /// `INSERT INTO entries …`: the facts, then one figure per metric.
    pub insert_entry: String,
    /// `INSERT INTO devices … ON CONFLICT … DO UPDATE` of one row: the facts, then one median
    /// per metric ([`Statements::upsert_devices`] writes several).
    pub upsert_device: String,
    /// `UPDATE entries …` of a result's facts derived anew from its document (`rederive`):
    /// device key, name, kind, transport, class, capacity, flag (a hold stays where the
    /// document gives none), synthetic, headline, sold-as, system, then one figure per
    /// metric, then its id.
    pub rederive_entry: String,
    /// What an [`Entry`] is read from (the token's hash is never read back).
    pub entry_columns: Vec<String>,
    /// The figures' columns, in the list's order: an entry's last columns.
    figures: Vec<String>,
}

impl Statements {
    pub fn new(metrics: &[Metric]) -> Statements {
        let figures = || metrics.iter().map(|m| m.column);
        let entry: Vec<&str> = ENTRY_FACTS.iter().copied().chain(figures()).collect();
        let device: Vec<&str> = DEVICE_FACTS.iter().copied().chain(figures()).collect();
        let updated: Vec<String> = device[3..]
            .iter()
            .map(|c| format!("{c} = excluded.{c}"))
            .collect();
        let derived = [
            "device_key",
            "device_name",
            "kind",
            "transport",
            "class",
            "capacity_gb",
            "flag",
            "synthetic",
            "headline",
            "sold_as",
            "system",
        ];
        let set: Vec<String> = derived
            .iter()
            .copied()
            .chain(figures())
            .enumerate()
            .map(|(n, c)| match c {
                "flag" => format!("flag = COALESCE(${}, held)", n + 1),
                c => format!("{c} = ${}", n + 1),
            })
            .collect();
        Statements {
            rederive_entry: format!(
                "UPDATE entries SET {} WHERE id = ${}",
                set.join(", "),
                set.len() + 1
            ),
            insert_entry: insert("entries", &entry),
            upsert_device: format!(
                "{} ON CONFLICT ({}) DO UPDATE SET {}",
                insert("devices", &device),
                device[..3].join(", "),
                updated.join(", ")
            ),
            entry_columns: entry
                .iter()
                .filter(|c| **c != "token_hash")
                .map(|c| c.to_string())
                .collect(),
            figures: figures().map(str::to_string).collect(),
        }
    }

    /// [`Statements::upsert_device`] of `rows` rows in one statement, their binds one row's
    /// after another's: a submission writes its device in each of its scopes (up to five), and
    /// each statement is a round trip to the connection's thread (SQLite) or server.
    pub fn upsert_devices(&self, rows: usize) -> String {
        let (head, tail) = self
            .upsert_device
            .split_once(" ON CONFLICT")
            .expect("an upsert has its conflict clause");
        let (insert, one) = head.split_once(" VALUES ").expect("an insert has values");
        let width = one.matches('$').count();
        let values: Vec<String> = (0..rows)
            .map(|row| {
                let places: Vec<String> = (1..=width)
                    .map(|n| format!("${}", row * width + n))
                    .collect();
                format!("({})", places.join(", "))
            })
            .collect();
        format!("{insert} VALUES {} ON CONFLICT{tail}", values.join(", "))
    }

    /// The columns of an entry, each prefixed (`e.`) for a query that joins another table.
    pub fn entry_select(&self, prefix: &str) -> String {
        self.entry_columns
            .iter()
            .map(|c| format!("{prefix}{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The entries `inner` selects (the entry columns, and those `order` names), as one row of
    /// one text: a JSON array of each entry's columns, in `order`, for
    /// [`Statements::entries_from_json`]. Read row by row through sqlx (each row's values
    /// copied, converted for the Any driver, handed from the SQLite connection's thread), a
    /// device page of 500 results took 9.3 ms; read so, 4.5 ms. Each backend has its own JSON
    /// functions.
    pub fn entries_as_json(&self, inner: &str, order: &str, sqlite: bool) -> String {
        if sqlite {
            let columns: Vec<String> = self
                .entry_columns
                .iter()
                .map(|c| match self.holds_a_real(c) {
                    true => real_as_json(&format!("t.{c}"), true),
                    false => format!("t.{c}"),
                })
                .collect();
            let columns = columns.join(", ");
            format!(
                "SELECT json_group_array(json_array({columns}) ORDER BY {order}) FROM ({inner}) t"
            )
        } else {
            let columns = self.entry_select("t.");
            format!(
                "SELECT CAST(COALESCE(json_agg(json_build_array({columns}) ORDER BY {order}), \
                 '[]') AS TEXT) FROM ({inner}) t"
            )
        }
    }

    /// Whether an entry column holds a real number: a figure, or the price.
    fn holds_a_real(&self, column: &str) -> bool {
        column == "price_usd" || self.figures.iter().any(|f| f == column)
    }

    /// The entries of [`Statements::entries_as_json`]'s text: a real comes as a JSON number,
    /// or from SQLite as text of 17 significant digits, the same double either way.
    pub fn entries_from_json(&self, text: &str) -> Result<Vec<Entry>, sqlx::Error> {
        use serde_json::Value;
        let bad = |what: String| sqlx::Error::Decode(what.into());
        let rows: Vec<Vec<Value>> =
            serde_json::from_str(text).map_err(|e| bad(format!("entries as JSON: {e}")))?;
        let columns = &self.entry_columns;
        let at = |name: &str| columns.iter().position(|c| c == name);
        let (id, class, key, name, kind, transport, capacity, started) = (
            at("id"),
            at("class"),
            at("device_key"),
            at("device_name"),
            at("kind"),
            at("transport"),
            at("capacity_gb"),
            at("started_at"),
        );
        let (submitter, held, system) = (at("submitter"), at("held"), at("system"));
        let neighbourhood = at("neighbourhood");
        let (label, headline, sold_as, board, fs, price, flag, synthetic) = (
            at("label"),
            at("headline"),
            at("sold_as"),
            at("board"),
            at("filesystem"),
            at("price_usd"),
            at("flag"),
            at("synthetic"),
        );
        rows.into_iter()
            .map(|row| {
                if row.len() != columns.len() {
                    return Err(bad(format!(
                        "an entry of {} columns, not {}",
                        row.len(),
                        columns.len()
                    )));
                }
                let value = |i: Option<usize>| i.and_then(|i| row.get(i)).unwrap_or(&Value::Null);
                let text = |i| value(i).as_str().map(str::to_string);
                let real = |i| real_of_json(value(i));
                let required = |i, what: &str| {
                    text(i).ok_or_else(|| bad(format!("an entry without its {what}")))
                };
                Ok(Entry {
                    id: required(id, "id")?,
                    class: required(class, "class")?,
                    device_key: text(key),
                    device_name: required(name, "device name")?,
                    kind: required(kind, "kind")?,
                    transport: text(transport),
                    capacity_gb: value(capacity).as_f64().map(|v| v as i64),
                    started_at: required(started, "start")?,
                    label: text(label),
                    headline: text(headline),
                    sold_as: text(sold_as),
                    board: text(board),
                    filesystem: text(fs),
                    price_usd: real(price),
                    flag: text(flag).as_deref().map(Reason::from_stored),
                    synthetic: value(synthetic).as_f64().is_some_and(|v| v != 0.0),
                    submitter: text(submitter),
                    neighbourhood: text(neighbourhood),
                    waits: text(held).is_some(),
                    system: text(system),
                    figures: self
                        .figures
                        .iter()
                        .filter_map(|f| Some((f.clone(), real(at(f))?)))
                        .collect(),
                })
            })
            .collect()
    }
}

/// A real number `expr` as a JSON function of the backend's takes it: SQLite writes a real to
/// 15 significant digits in JSON, so there it goes as text of 17, which comes back the same
/// double ([`real_of_json`]).
pub fn real_as_json(expr: &str, sqlite: bool) -> String {
    match sqlite {
        true => format!("CASE WHEN {expr} IS NULL THEN NULL ELSE printf('%!.17g', {expr}) END"),
        false => expr.to_string(),
    }
}

/// A real of [`real_as_json`]: a JSON number, or (from SQLite) its text.
pub fn real_of_json(value: &serde_json::Value) -> Option<f64> {
    value.as_f64().or_else(|| value.as_str()?.parse().ok())
}

fn insert(table: &str, columns: &[&str]) -> String {
    let places: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
    format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(", "),
        places.join(", ")
    )
}

/// The statements for this version's figures.
pub static SQL: LazyLock<Statements> = LazyLock::new(|| Statements::new(&METRICS));

/// A row of `devices` as a leaderboard line.
pub fn device_row(row: &AnyRow) -> Result<DeviceRow, sqlx::Error> {
    let stats: String = row.try_get("stats")?;
    Ok(DeviceRow {
        key: row.try_get("device_key")?,
        name: row.try_get("device_name")?,
        kind: row.try_get("kind")?,
        transport: row.try_get("transport")?,
        capacity_gb: row.try_get("capacity_gb")?,
        results: row.try_get("results")?,
        submitters: row.try_get("submitters")?,
        price_usd: row.try_get("price_usd")?,
        stats: serde_json::from_str(&stats).unwrap_or_default(),
        sold_as: row.try_get("sold_as")?,
        classes: row.try_get("classes")?,
        neighbourhoods: row.try_get("neighbourhoods")?,
        // Written for searches, read by none: a leaderboard does not fetch it.
        names: String::new(),
    })
}

/// A row of [`Statements::entry_columns`] as an entry, its figures those of `metrics`.
pub fn entry_of(row: &AnyRow, metrics: &[Metric]) -> Result<Entry, sqlx::Error> {
    let mut figures = BTreeMap::new();
    for metric in metrics {
        if let Some(v) = row.try_get::<Option<f64>, _>(metric.column)? {
            figures.insert(metric.column.to_string(), v);
        }
    }
    Ok(Entry {
        id: row.try_get("id")?,
        class: row.try_get("class")?,
        device_key: row.try_get("device_key")?,
        device_name: row.try_get("device_name")?,
        kind: row.try_get("kind")?,
        transport: row.try_get("transport")?,
        capacity_gb: row.try_get("capacity_gb")?,
        started_at: row.try_get("started_at")?,
        label: row.try_get("label")?,
        headline: row.try_get("headline")?,
        sold_as: row.try_get("sold_as")?,
        board: row.try_get("board")?,
        filesystem: row.try_get("filesystem")?,
        price_usd: row.try_get("price_usd")?,
        flag: row
            .try_get::<Option<String>, _>("flag")?
            .as_deref()
            .map(Reason::from_stored),
        synthetic: row.try_get::<i64, _>("synthetic")? != 0,
        submitter: row.try_get("submitter")?,
        neighbourhood: row.try_get("neighbourhood")?,
        waits: row.try_get::<Option<String>, _>("held")?.is_some(),
        system: row.try_get("system")?,
        figures,
    })
}

/// A row of [`SQL`]'s entry columns as an entry.
pub fn entry(row: &AnyRow) -> Result<Entry, sqlx::Error> {
    entry_of(row, &METRICS)
}

#[cfg(test)]
mod tests;
