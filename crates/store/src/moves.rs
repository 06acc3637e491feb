//! Where a device leads when moderators merged it into another or new rules renamed it: the
//! aliases, read and written in the transaction that needs them.

use sqlx::{Any, Row, Transaction};

/// Where device `key` leads through the aliases, in `tx`: itself when it is no alias.
pub(crate) async fn resolve(
    tx: &mut Transaction<'_, Any>,
    key: &str,
) -> Result<String, sqlx::Error> {
    let mut key = key.to_string();
    // Merges re-point the aliases that led to a merged key, so a chain is one step; the bound
    // only guards against a store edited by hand.
    for _ in 0..8 {
        let next: Option<String> = sqlx::query("SELECT target FROM aliases WHERE key = $1")
            .bind(&key)
            .fetch_optional(&mut **tx)
            .await?
            .map(|row| row.try_get(0))
            .transpose()?;
        match next {
            Some(next) if next != key => key = next,
            _ => break,
        }
    }
    Ok(key)
}

/// Records that device `key` now means `target` (and re-points what led to `key`).
pub(crate) async fn alias(
    tx: &mut Transaction<'_, Any>,
    key: &str,
    target: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO aliases (key, target, at) VALUES ($1, $2, $3) \
         ON CONFLICT (key) DO UPDATE SET target = excluded.target, at = excluded.at",
    )
    .bind(key)
    .bind(target)
    .bind(super::now())
    .execute(&mut **tx)
    .await?;
    sqlx::query("UPDATE aliases SET target = $1 WHERE target = $2")
        .bind(target)
        .bind(key)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Where device `key` went, if it was merged into another or renamed by new rules (asked of
/// `on`: the primary, where the merge was written).
pub(crate) async fn moved<'e>(
    on: impl sqlx::Executor<'e, Database = Any>,
    key: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query("SELECT target FROM aliases WHERE key = $1")
        .bind(key)
        .fetch_optional(on)
        .await?
        .map(|row| row.try_get(0))
        .transpose()
}
