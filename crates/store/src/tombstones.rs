//! Deletion is final (issue 59): a stranger who kept a copy of a deleted result's document
//! sent it again and got 201, at the same address with its owner's label; a hidden result
//! deleted and sent again by its owner was visible again. A result deleted (by its token) or
//! hidden (by a moderator) leaves a tombstone: its id and its measurement's fingerprint, and a
//! submission that matches either is refused, whoever sends it, under whatever id or label. A
//! moderator's restore lifts a hidden result's tombstone (`moderation.rs`).

use sha2::{Digest, Sha256};
use sqlx::{Any, Row, Transaction};

use iomark_result::result::ResultDoc;

/// A measurement's fingerprint: its device and its tests' figures (each test's MB/s and IOPS to
/// four significant digits, the tests in order of name), hashed. The same measurement sent
/// under another id or label, at another time, with its tests in another order or a figure
/// moved by a rounding error, has the same (issue 59's attack pass brought a deleted result
/// back by writing its start as `+00:00`, or one figure one unit of the last place up); two
/// runs of a device rarely agree in every figure to four digits.
pub(crate) fn fingerprint(doc: &ResultDoc) -> String {
    let four = |v: f64| match v.is_finite() && v != 0.0 {
        true => format!("{v:.3e}"),
        false => "0".to_string(),
    };
    let mut tests: Vec<String> = doc
        .tests
        .iter()
        .map(|t| format!("{} {} {}", t.name, four(t.mb_per_s), four(t.iops)))
        .collect();
    tests.sort();
    let device = doc.identity().device_key.unwrap_or_default();
    let text = format!("{device}\n{}", tests.join("\n"));
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Buries result `id` (its document as stored), in `tx`: it is not taken again.
pub(crate) async fn bury(tx: &mut Transaction<'_, Any>, id: &str) -> Result<(), sqlx::Error> {
    let Some(row) = sqlx::query("SELECT document FROM results WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
    else {
        return Ok(());
    };
    let text: String = row.try_get(0)?;
    let print = serde_json::from_str::<ResultDoc>(&text)
        .map(|doc| fingerprint(&doc))
        .unwrap_or_default();
    sqlx::query(
        "INSERT INTO tombstones (id, fingerprint, buried_at) VALUES ($1, $2, $3) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(id)
    .bind(print)
    .bind(super::now())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Lifts result `id`'s tombstone, in `tx` (a moderator restored it).
pub(crate) async fn lift(tx: &mut Transaction<'_, Any>, id: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM tombstones WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Whether `doc` is a result this site buried, by its id or its measurement.
pub(crate) async fn buried(
    tx: &mut Transaction<'_, Any>,
    doc: &ResultDoc,
) -> Result<bool, sqlx::Error> {
    Ok(
        sqlx::query("SELECT 1 FROM tombstones WHERE id = $1 OR fingerprint = $2")
            .bind(&doc.id)
            .bind(fingerprint(doc))
            .fetch_optional(&mut **tx)
            .await?
            .is_some(),
    )
}
