//! Moderation on a results site: a result hidden with a reason (its facts removed, so no page,
//! list, aggregate or ranking has it; its document kept) and restored, and the audit of every
//! moderator's action. Each change and its audit line are one transaction.

use serde::Serialize;
use sqlx::{Any, Row, Transaction};

use super::columns::{entry, SQL};
use super::model::Entry;
use super::{Begin, Store, StoreError};
use crate::result::ResultDoc;

/// What a moderator's action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moderated {
    Done,
    NoSuchResult,
    /// Already hidden, or already shown.
    Already,
}

/// One line of the audit.
#[derive(Clone, Debug, Serialize)]
pub struct AuditLine {
    pub at: String,
    pub action: String,
    pub target: String,
    pub reason: String,
}

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

async fn audit(
    tx: &mut Transaction<'_, Any>,
    action: &str,
    target: &str,
    reason: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO audit (id, at, action, target, reason) VALUES ($1, $2, $3, $4, $5)")
        .bind(ulid::Ulid::new().to_string())
        .bind(now())
        .bind(action)
        .bind(target)
        .bind(reason)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn exists(tx: &mut Transaction<'_, Any>, table: &str, id: &str) -> Result<bool, sqlx::Error> {
    Ok(sqlx::query(&format!("SELECT 1 FROM {table} WHERE id = $1"))
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
        .is_some())
}

impl Store {
    /// Hides result `id` for `reason`: its facts go, and with them its place in its device's
    /// aggregates; its document, the reason and its deletion token's hash stay for a restore.
    pub async fn hide(&self, id: &str, reason: &str) -> Result<Moderated, StoreError> {
        self.write(Begin::Immediate, async |tx| {
            let token: Option<Option<String>> =
                sqlx::query("SELECT token_hash FROM entries WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut **tx)
                    .await?
                    .map(|row| row.try_get(0))
                    .transpose()?;
            let Some(token) = token else {
                return Ok(match exists(tx, "hidden", id).await? {
                    true => Moderated::Already,
                    false => Moderated::NoSuchResult,
                });
            };
            sqlx::query(
                "INSERT INTO hidden (id, reason, token_hash, hidden_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(id)
            .bind(reason)
            .bind(token)
            .bind(now())
            .execute(&mut **tx)
            .await?;
            self.remove_from(tx, id, &["entries"]).await?;
            audit(tx, "hide", id, reason).await?;
            Ok(Moderated::Done)
        })
        .await
        .map_err(|e| self.fail(e))
    }

    /// Shows a hidden result again: its facts derived anew from its document, its device's
    /// aggregates with it.
    pub async fn restore(&self, id: &str, reason: &str) -> Result<Moderated, StoreError> {
        self.write(Begin::Immediate, async |tx| {
            let token: Option<Option<String>> =
                sqlx::query("SELECT token_hash FROM hidden WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut **tx)
                    .await?
                    .map(|row| row.try_get(0))
                    .transpose()?;
            let Some(token) = token else {
                return Ok(match exists(tx, "entries", id).await? {
                    true => Moderated::Already,
                    false => Moderated::NoSuchResult,
                });
            };
            let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
                .bind(id)
                .fetch_one(&mut **tx)
                .await?
                .try_get(0)?;
            let doc: ResultDoc =
                serde_json::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
            self.add_entry(tx, &doc, token.as_deref()).await?;
            sqlx::query("DELETE FROM hidden WHERE id = $1")
                .bind(id)
                .execute(&mut **tx)
                .await?;
            audit(tx, "restore", id, reason).await?;
            Ok(Moderated::Done)
        })
        .await
        .map_err(|e| self.fail(e))
    }

    /// The newest `limit` lines of the audit, newest first.
    pub async fn audit(&self, limit: u32) -> Result<Vec<AuditLine>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT at, action, target, reason FROM audit ORDER BY id DESC LIMIT {}",
            limit.clamp(1, 1000)
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|row| {
                Ok(AuditLine {
                    at: row.try_get(0)?,
                    action: row.try_get(1)?,
                    target: row.try_get(2)?,
                    reason: row.try_get(3)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.fail(e))
    }

    /// What a moderator reviews: results kept out of rankings (faster than their link, a
    /// changed pi profile) and results that name no device, newest first.
    pub async fn review(&self, limit: u32) -> Result<Vec<Entry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {} FROM entries WHERE synthetic = 0 AND (flag IS NOT NULL OR device_key IS NULL) \
             ORDER BY started_at DESC, id LIMIT {}",
            SQL.entry_select(""),
            limit.clamp(1, 1000)
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(entry)
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.fail(e))
    }
}
