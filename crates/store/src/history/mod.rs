//! The result history: each run one row of `results`, the whole document as saved plus
//! indexed copies of the fields people filter and sort by; found by an id's beginning or
//! `latest~N`, listed, deleted.

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

pub mod backup;
pub mod receipts;

use super::derive::Derive;
use super::replicas::Reader;
use super::sender::Sent;
use super::{Db, Problem, StoreError};
use iomark_result::result::{self, ResultDoc, Summary, SHORT_ID};

/// A history line: the run's indexed columns, and from its facts the device as a buyer names
/// it and the headline.
const COLUMNS: &str =
    "r.id, r.started_at, r.label, r.profile, COALESCE(e.device_name, r.device_model) AS device, \
     r.device_transport, r.filesystem, \
     r.seq_read_mb_per_s, r.seq_write_mb_per_s, r.rnd_read_iops, r.rnd_write_iops, \
     r.score_total, e.headline";

/// How many results [`History::save_all`] saves in one transaction: each transaction's commit
/// (a sync of the database's file) costs more than a result's rows.
const BATCH: usize = 500;

/// The runs saved in a store, each whole.
#[derive(Clone, Copy)]
pub struct History<'a> {
    db: &'a Db,
    reader: Reader<'a>,
    derive: Derive<'a>,
}

impl<'a> History<'a> {
    pub(crate) fn new(db: &'a Db, reader: Reader<'a>, derive: Derive<'a>) -> History<'a> {
        History { db, reader, derive }
    }

    /// The connection it writes on (for a site's submissions, `committer.rs`).
    pub(crate) fn db(&self) -> &'a Db {
        self.db
    }

    /// Saves one result, in one transaction. An id already present is refused.
    pub async fn save(&self, doc: &ResultDoc) -> Result<(), StoreError> {
        self.save_with(doc, None).await
    }

    /// Saves many results, [`BATCH`] to a transaction (`iomark import`): for each, whether it
    /// was new (false: its id was there already). A failure leaves the batches before it saved.
    pub async fn save_all(&self, docs: &[&ResultDoc]) -> Result<Vec<bool>, StoreError> {
        let mut new = Vec::with_capacity(docs.len());
        for batch in docs.chunks(BATCH) {
            let documents = batch
                .iter()
                .map(|d| encode(d))
                .collect::<Result<Vec<_>, _>>()?;
            let saved = self
                .db
                .write(async |tx| {
                    let mut each = Vec::with_capacity(batch.len());
                    for (doc, document) in batch.iter().zip(&documents) {
                        each.push(self.insert(tx, doc, document.clone(), None).await?);
                    }
                    Ok(each)
                })
                .await
                .map_err(|e| self.db.fail(e))?;
            new.extend(saved);
        }
        Ok(new)
    }

    pub(crate) async fn save_with(
        &self,
        doc: &ResultDoc,
        sent: Option<&Sent>,
    ) -> Result<(), StoreError> {
        let document = encode(doc)?;
        let saved = self
            .db
            .write(async |tx| {
                // A submission of what this site deleted or hid is not taken again.
                if sent.is_some() && crate::tombstones::buried(tx, doc).await? {
                    return Ok(None);
                }
                self.insert(tx, doc, document, sent).await.map(Some)
            })
            .await;
        match saved {
            Ok(Some(true)) => Ok(()),
            Ok(Some(false)) => Err(StoreError::Duplicate(doc.id.clone())),
            Ok(None) => Err(StoreError::Buried(doc.id.clone())),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::Duplicate(doc.id.clone()))
            }
            Err(e) => Err(self.db.fail(e)),
        }
    }

    /// The result's row and its facts, in `tx`; false, with nothing written, where a result
    /// of that id is saved already (so that a batch of submissions needs no savepoint each to
    /// refuse one: `committer.rs`).
    pub(crate) async fn insert(
        &self,
        tx: &mut Transaction<'_, Any>,
        doc: &ResultDoc,
        document: String,
        sent: Option<&Sent>,
    ) -> Result<bool, sqlx::Error> {
        let h = doc.standard_figures();
        let device = doc.target.device.as_ref();
        // sqlx 0.8's Any driver declares a NULL f64 parameter as float4 on PostgreSQL; a statement
        // cached after such a NULL then refuses a real f64 ("incorrect binary data format").
        // Statements that bind optional figures are therefore prepared afresh each time there;
        // SQLite's keep their types to the values and stay prepared.
        let inserted = sqlx::query(
            "INSERT INTO results (id, schema_name, tool_version, started_at, saved_at, label, \
             profile, host_board, host_arch, device_model, device_transport, filesystem, \
             direct_io, seq_read_mb_per_s, seq_write_mb_per_s, rnd_read_iops, rnd_write_iops, \
             score_total, document) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
             $18, $19) ON CONFLICT (id) DO NOTHING",
        )
        .persistent(self.db.is_sqlite())
        .bind(&doc.id)
        .bind(&doc.schema)
        .bind(&doc.tool.version)
        .bind(&doc.started_at)
        // To the millisecond: the order results arrive in names a device where they disagree.
        .bind(super::now())
        .bind(&doc.label)
        .bind(&doc.settings.profile)
        .bind(&doc.host.board)
        .bind(&doc.host.arch)
        .bind(Some(doc.device_label()))
        .bind(device.and_then(|d| d.transport).map(|t| t.as_str()))
        .bind(&doc.target.filesystem)
        .bind(doc.settings.direct as i64)
        .bind(h.seq_read_mb_per_s)
        .bind(h.seq_write_mb_per_s)
        .bind(h.rnd_read_iops)
        .bind(h.rnd_write_iops)
        .bind(doc.score_total())
        .bind(document)
        .execute(&mut **tx)
        .await?;
        if inserted.rows_affected() == 0 {
            return Ok(false);
        }
        self.derive.add_saved(tx, doc, sent).await?;
        Ok(true)
    }

    /// Every run, newest first (at most `limit`, if given).
    pub async fn list(&self, limit: Option<u32>) -> Result<Vec<Summary>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM results r LEFT JOIN entries e ON e.id = r.id \
             ORDER BY r.started_at DESC, r.id DESC{}",
            limit.map(|n| format!(" LIMIT {n}")).unwrap_or_default()
        );
        let rows = sqlx::query(&sql)
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(summary)
            .collect::<Result<_, _>>()
            .map_err(|e| self.db.fail(e))
    }

    /// Every health check saved, oldest first, whole.
    pub async fn health_checks(&self) -> Result<Vec<ResultDoc>, StoreError> {
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM results WHERE profile = 'health' ORDER BY started_at, id",
        )
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
        let mut docs = Vec::with_capacity(ids.len());
        for id in ids {
            docs.push(self.document(&id).await?);
        }
        Ok(docs)
    }

    /// The full id of the one run whose id starts with `prefix` (case-insensitive); `latest` is
    /// the newest run and `latest~N` the one N before it, as git counts commits.
    pub async fn resolve(&self, prefix: &str) -> Result<String, StoreError> {
        let prefix = prefix.trim().to_ascii_uppercase();
        // ULIDs never contain L, so `latest` cannot be the beginning of an id.
        if let Some(back) = prefix.strip_prefix("LATEST") {
            let back: u32 = match back.strip_prefix('~') {
                None if back.is_empty() => 0,
                Some(n) => n
                    .parse()
                    .map_err(|_| StoreError::NotFound(prefix.to_lowercase()))?,
                None => return Err(StoreError::NotFound(prefix.to_lowercase())),
            };
            let newest = self.list(Some(back.saturating_add(1))).await?;
            return newest
                .into_iter()
                .nth(back as usize)
                .map(|s| s.id)
                .ok_or_else(|| StoreError::NotFound(prefix.to_lowercase()));
        }
        if prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(StoreError::NotFound(prefix));
        }
        // Ids hold only letters, digits and dashes, so the prefix needs no LIKE escaping.
        let rows =
            sqlx::query("SELECT id FROM results WHERE UPPER(id) LIKE $1 ORDER BY id LIMIT 6")
                .bind(format!("{prefix}%"))
                .fetch_all(&self.db.pool)
                .await
                .map_err(|e| self.db.fail(e))?;
        let ids: Vec<String> = rows
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.db.fail(e))?;
        match ids.len() {
            0 => Err(StoreError::NotFound(prefix)),
            1 => Ok(ids.into_iter().next().unwrap_or_default()),
            _ => Err(StoreError::Ambiguous(prefix, ids)),
        }
    }

    /// The shortest beginning of `id` (at least [`SHORT_ID`] characters) that names no other
    /// saved run, as git shortens commits: what `history` shows, and any command accepts.
    pub async fn short_id(&self, id: &str) -> Result<String, StoreError> {
        let start: String = id.chars().take(SHORT_ID).collect();
        if start.is_empty() || !start.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Ok(id.to_string());
        }
        // Ids hold only letters, digits and dashes, so the prefix needs no LIKE escaping.
        let rows = sqlx::query("SELECT id FROM results WHERE UPPER(id) LIKE $1 LIMIT 10000")
            .bind(format!("{}%", start.to_ascii_uppercase()))
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| self.db.fail(e))?;
        let mut ids: Vec<String> = rows
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.db.fail(e))?;
        if !ids.iter().any(|i| i == id) {
            ids.push(id.to_string());
        }
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let short = result::short_ids(&refs, SHORT_ID);
        Ok(refs
            .iter()
            .zip(short)
            .find(|(i, _)| **i == id)
            .map(|(_, s)| s)
            .unwrap_or_else(|| id.to_string()))
    }

    /// [`History::short_id`] of each of `ids` at once, against every saved run: read once, so
    /// that `import` of 100,000 runs does not read the store 100,000 times.
    pub async fn short_ids(&self, ids: &[&str]) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT id FROM results")
            .fetch_all(&self.db.pool)
            .await
            .map_err(|e| self.db.fail(e))?;
        let all: Vec<String> = rows
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.db.fail(e))?;
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        Ok(result::short_ids_among(ids, &all, SHORT_ID))
    }

    /// The result document of the run `prefix` names, as it was saved.
    pub async fn get(&self, prefix: &str) -> Result<ResultDoc, StoreError> {
        let id = self.resolve(prefix).await?;
        self.document(&id).await
    }

    /// The result document of the run whose id is `id`, whole: one lookup by the primary key
    /// (a site finds results by their full id; a prefix is a scan).
    pub async fn document(&self, id: &str) -> Result<ResultDoc, StoreError> {
        let id = id.to_string();
        let row = self
            .reader
            .read_one(|pool| {
                Box::pin(
                    sqlx::query("SELECT document FROM results WHERE id = $1")
                        .bind(&id)
                        .fetch_optional(pool),
                )
            })
            .await
            .map_err(|e| self.db.fail(e))?
            .ok_or_else(|| StoreError::NotFound(id.clone()))?;
        let text: String = row.try_get(0).map_err(|e| self.db.fail(e))?;
        serde_json::from_str(&text).map_err(|e| StoreError::Unavailable {
            location: self.db.location.display(),
            problem: Problem::Corrupt,
            detail: format!("run {id}: its saved document does not parse: {e}"),
        })
    }

    /// Removes the run `prefix` names; returns its full id.
    pub async fn delete(&self, prefix: &str) -> Result<String, StoreError> {
        let id = self.resolve(prefix).await?;
        self.db
            .write(async |tx| self.derive.remove(tx, &id).await)
            .await
            .map_err(|e| self.db.fail(e))?;
        Ok(id)
    }
}

/// A result document as the store keeps it.
pub(crate) fn encode(doc: &ResultDoc) -> Result<String, StoreError> {
    serde_json::to_string(doc)
        .map_err(|e| StoreError::Invalid(format!("cannot encode the result: {e}")))
}

fn summary(row: &AnyRow) -> Result<Summary, sqlx::Error> {
    Ok(Summary {
        id: row.try_get("id")?,
        started_at: row.try_get("started_at")?,
        label: row.try_get("label")?,
        profile: row.try_get("profile")?,
        device: row.try_get("device")?,
        transport: row
            .try_get::<Option<String>, _>("device_transport")?
            .map(|t| iomark_result::result::Transport::of(&t)),
        filesystem: row.try_get("filesystem")?,
        seq_read_mb_per_s: row.try_get("seq_read_mb_per_s")?,
        seq_write_mb_per_s: row.try_get("seq_write_mb_per_s")?,
        rnd_read_iops: row.try_get("rnd_read_iops")?,
        rnd_write_iops: row.try_get("rnd_write_iops")?,
        score_total: row.try_get("score_total")?,
        headline: row.try_get("headline")?,
    })
}
