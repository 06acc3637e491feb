//! Moderation on a results site: a result hidden with a reason (its facts removed, so no page,
//! list, aggregate or ranking has it; its document kept) and restored, a result that waited
//! for review ranked, and the audit of every moderator's action. Each change and its audit line are one transaction.

use serde::Serialize;
use sqlx::{Any, Row, Transaction};

use super::aggregate::scopes;
use super::derive::{Derive, Kept};
use super::moves::{alias, resolve};
use super::refresh::Refresh;
use super::{Db, StoreError};
use iomark_result::result::ResultDoc;

/// What a moderator's action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moderated {
    Done,
    NoSuchResult,
    /// Already hidden, or already shown.
    Already,
    /// A merge of a device into itself (or into a key that leads back to it).
    Circular,
}

/// One line of the audit.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditLine {
    pub at: String,
    pub action: String,
    pub target: String,
    pub reason: String,
}

async fn audit(
    tx: &mut Transaction<'_, Any>,
    action: &str,
    target: &str,
    reason: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO audit (id, at, action, target, reason) VALUES ($1, $2, $3, $4, $5)")
        .bind(ulid::Ulid::new().to_string())
        .bind(super::now())
        .bind(action)
        .bind(target)
        .bind(reason)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn ids(
    tx: &mut Transaction<'_, Any>,
    sql: &str,
    key: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query(sql)
        .bind(key)
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect()
}

async fn exists(tx: &mut Transaction<'_, Any>, table: &str, id: &str) -> Result<bool, sqlx::Error> {
    Ok(sqlx::query(&format!("SELECT 1 FROM {table} WHERE id = $1"))
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
        .is_some())
}

/// What moderators do to a site's results and devices, each with its line in the audit.
#[derive(Clone, Copy)]
pub struct Moderation<'a> {
    db: &'a Db,
    derive: Derive<'a>,
    refresh: Refresh<'a>,
}

impl<'a> Moderation<'a> {
    pub(crate) fn new(db: &'a Db, derive: Derive<'a>) -> Moderation<'a> {
        Moderation {
            db,
            derive,
            refresh: Refresh::new(db),
        }
    }

    /// Hides result `id` for `reason`: its facts go, and with them its place in its device's
    /// aggregates; its document, the reason and its deletion token's hash stay for a restore.
    pub async fn hide(&self, id: &str, reason: &str) -> Result<Moderated, StoreError> {
        self.db
            .write(async |tx| {
                let done = self.hide_in(tx, id, reason).await?;
                if done == Moderated::Done {
                    audit(tx, "hide", id, reason).await?;
                }
                Ok(done)
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Shows a hidden result again: its facts derived anew from its document, its device's
    /// aggregates with it.
    pub async fn restore(&self, id: &str, reason: &str) -> Result<Moderated, StoreError> {
        self.db
            .write(async |tx| {
                let done = self.restore_in(tx, id).await?;
                if done == Moderated::Done {
                    audit(tx, "restore", id, reason).await?;
                }
                Ok(done)
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Ranks a result that waited for a moderator (`hold.rs`): it joins its device's
    /// aggregates. Already, where it waits for nothing.
    pub async fn rank(&self, id: &str, reason: &str) -> Result<Moderated, StoreError> {
        self.db
            .write(async |tx| {
                let row = sqlx::query(
                    "SELECT held, class, device_key, board, filesystem, system FROM entries \
                     WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?;
                let Some(row) = row else {
                    return Ok(match exists(tx, "hidden", id).await? {
                        true => Moderated::Already,
                        false => Moderated::NoSuchResult,
                    });
                };
                let held: Option<String> = row.try_get(0)?;
                let (class, key): (String, Option<String>) = (row.try_get(1)?, row.try_get(2)?);
                let (board, fs, system): (Option<String>, Option<String>, Option<String>) =
                    (row.try_get(3)?, row.try_get(4)?, row.try_get(5)?);
                let (Some(_), Some(key)) = (held, key) else {
                    return Ok(Moderated::Already);
                };
                // Its flag was why it waited, unless its document gives one of its own.
                sqlx::query(
                    "UPDATE entries SET flag = CASE WHEN flag = held THEN NULL ELSE flag END, \
                     held = NULL WHERE id = $1",
                )
                .bind(id)
                .execute(&mut **tx)
                .await?;
                let scopes = scopes(board.as_deref(), fs.as_deref(), system.as_deref());
                self.refresh.device(tx, &class, &key, &scopes).await?;
                audit(tx, "rank", id, reason).await?;
                Ok(Moderated::Done)
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Hides every result of device `key` (an abusive or fake device); how many.
    pub async fn hide_device(&self, key: &str, reason: &str) -> Result<usize, StoreError> {
        self.db
            .write(async |tx| {
                let ids = ids(tx, "SELECT id FROM entries WHERE device_key = $1", key).await?;
                for id in &ids {
                    self.hide_in(tx, id, reason).await?;
                    // Hidden with the device: its restore shows it again, and no other.
                    sqlx::query("UPDATE hidden SET by_device = $1 WHERE id = $2")
                        .bind(key)
                        .bind(id)
                        .execute(&mut **tx)
                        .await?;
                }
                if !ids.is_empty() {
                    let what = format!("device {key} ({} results)", ids.len());
                    audit(tx, "hide", &what, reason).await?;
                    // And it stays hidden: a new result of it waits (`hold.rs`).
                    sqlx::query(
                        "INSERT INTO hidden_devices (device_key, reason, hidden_at) \
                         VALUES ($1, $2, $3) ON CONFLICT (device_key) DO NOTHING",
                    )
                    .bind(key)
                    .bind(reason)
                    .bind(super::now())
                    .execute(&mut **tx)
                    .await?;
                }
                Ok(ids.len())
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Shows again every result of device `key` that its hide hid (or hid as it arrived); how
    /// many. A result a moderator hid on its own stays hidden (the eleventh attack pass).
    pub async fn restore_device(&self, key: &str, reason: &str) -> Result<usize, StoreError> {
        self.db
            .write(async |tx| {
                let sql = "SELECT id FROM hidden WHERE device_key = $1 AND by_device = $1";
                let ids = ids(tx, sql, key).await?;
                for id in &ids {
                    self.restore_in(tx, id).await?;
                }
                sqlx::query("DELETE FROM hidden_devices WHERE device_key = $1")
                    .bind(key)
                    .execute(&mut **tx)
                    .await?;
                if !ids.is_empty() {
                    let what = format!("device {key} ({} results)", ids.len());
                    audit(tx, "restore", &what, reason).await?;
                }
                Ok(ids.len())
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Why result `id` is hidden, if it is: the moderator's reason (for the result, or for
    /// the device it arrived as, `hold::hidden_on_arrival`).
    pub async fn why_hidden(&self, id: &str) -> Result<Option<String>, StoreError> {
        sqlx::query("SELECT reason FROM hidden WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.db.pool)
            .await
            .and_then(|row| row.map(|r| r.try_get(0)).transpose())
            .map_err(|e| self.db.fail(e))
    }

    async fn hide_in(
        &self,
        tx: &mut Transaction<'_, Any>,
        id: &str,
        reason: &str,
    ) -> Result<Moderated, sqlx::Error> {
        let facts = sqlx::query(
            "SELECT token_hash, device_key, submitter, neighbourhood FROM entries WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
        let Some(facts) = facts else {
            return Ok(match exists(tx, "hidden", id).await? {
                true => Moderated::Already,
                false => Moderated::NoSuchResult,
            });
        };
        let token: Option<String> = facts.try_get(0)?;
        let key: Option<String> = facts.try_get(1)?;
        let submitter: Option<String> = facts.try_get(2)?;
        let neighbourhood: Option<String> = facts.try_get(3)?;
        sqlx::query(
            "INSERT INTO hidden (id, reason, token_hash, device_key, hidden_at, submitter, \
             neighbourhood) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id)
        .bind(reason)
        .bind(token)
        .bind(key)
        .bind(super::now())
        .bind(submitter)
        .bind(neighbourhood)
        .execute(&mut **tx)
        .await?;
        // Hidden, it is not taken again either, until a moderator restores it.
        crate::tombstones::bury(tx, id).await?;
        self.derive.remove_from(tx, id, &["entries"]).await?;
        Ok(Moderated::Done)
    }

    async fn restore_in(
        &self,
        tx: &mut Transaction<'_, Any>,
        id: &str,
    ) -> Result<Moderated, sqlx::Error> {
        type Hidden = (Option<String>, Option<String>, Option<String>);
        let hidden: Option<Hidden> =
            sqlx::query("SELECT token_hash, submitter, neighbourhood FROM hidden WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?
                .map(|row| {
                    Ok::<_, sqlx::Error>((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
                })
                .transpose()?;
        let Some((token, submitter, neighbourhood)) = hidden else {
            return Ok(match exists(tx, "entries", id).await? {
                true => Moderated::Already,
                false => Moderated::NoSuchResult,
            });
        };
        crate::tombstones::lift(tx, id).await?;
        let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
            .bind(id)
            .fetch_one(&mut **tx)
            .await?
            .try_get(0)?;
        let doc: ResultDoc =
            serde_json::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        // A moderator restored it: it is not held again.
        let kept = Kept {
            token_hash: token.as_deref(),
            submitter: submitter.as_deref(),
            neighbourhood: neighbourhood.as_deref(),
            held: None,
        };
        self.derive.add_entry(tx, &doc, kept).await?;
        sqlx::query("DELETE FROM hidden WHERE id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await?;
        Ok(Moderated::Done)
    }

    /// Merges device `from` into device `into` (one card listed under two names): its results
    /// move, both aggregates are made anew, new results under `from` go to `into`, and
    /// `from`'s pages lead there.
    pub async fn merge(
        &self,
        from: &str,
        into: &str,
        reason: &str,
    ) -> Result<Moderated, StoreError> {
        self.db
            .write(async |tx| {
                let target = resolve(tx, into).await?;
                if target == from {
                    return Ok(Moderated::Circular);
                }
                let has = async |tx: &mut Transaction<'_, Any>, key: &str| {
                    sqlx::query("SELECT 1 FROM entries WHERE device_key = $1 LIMIT 1")
                        .bind(key.to_string())
                        .fetch_optional(&mut **tx)
                        .await
                        .map(|row| row.is_some())
                };
                if !has(tx, from).await? || !has(tx, &target).await? {
                    return Ok(Moderated::NoSuchResult);
                }
                for table in ["entries", "hidden"] {
                    sqlx::query(&format!(
                        "UPDATE {table} SET device_key = $1 WHERE device_key = $2"
                    ))
                    .bind(&target)
                    .bind(from)
                    .execute(&mut **tx)
                    .await?;
                }
                sqlx::query("DELETE FROM devices WHERE device_key = $1")
                    .bind(from)
                    .execute(&mut **tx)
                    .await?;
                alias(tx, from, &target).await?;
                let rows = sqlx::query(
                    "SELECT DISTINCT class, board, filesystem, system FROM entries \
                     WHERE device_key = $1",
                )
                .bind(&target)
                .fetch_all(&mut **tx)
                .await?;
                let mut classes: Vec<(String, Vec<String>)> = Vec::new();
                for row in &rows {
                    let class: String = row.try_get(0)?;
                    let board: Option<String> = row.try_get(1)?;
                    let fs: Option<String> = row.try_get(2)?;
                    let system: Option<String> = row.try_get(3)?;
                    let at = match classes.iter().position(|(c, _)| *c == class) {
                        Some(at) => at,
                        None => {
                            classes.push((class, Vec::new()));
                            classes.len() - 1
                        }
                    };
                    for scope in scopes(board.as_deref(), fs.as_deref(), system.as_deref()) {
                        if !classes[at].1.contains(&scope) {
                            classes[at].1.push(scope);
                        }
                    }
                }
                for (class, wanted) in classes {
                    self.refresh.device(tx, &class, &target, &wanted).await?;
                }
                audit(tx, "merge", &format!("{from} into {target}"), reason).await?;
                Ok(Moderated::Done)
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// The newest `limit` lines of the audit, newest first.
    pub async fn audit(&self, limit: u32) -> Result<Vec<AuditLine>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT at, action, target, reason FROM audit ORDER BY id DESC LIMIT {}",
            limit.clamp(1, 1000)
        ))
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
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
            .map_err(|e| self.db.fail(e))
    }
}
