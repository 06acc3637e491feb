//! What a results site asks of the store: each result's facts (`entries`), per-device
//! aggregates (`devices`, computed in `aggregate.rs`) kept current in the transaction that
//! changes them, the leaderboard, a device's results, and deletion with a token. Receipts of
//! what this store's owner submitted elsewhere are in `receipts.rs`.
//!
//! The leaderboard reads only `devices` (for all results, one board's or one filesystem's), so
//! its cost does not grow with the number of results; with a board and a filesystem at once,
//! it aggregates the matching entries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use sqlx::{Acquire, Any, Row, Transaction};

pub use super::aggregate::{aggregate, spread};
use super::aggregate::{in_scope, scopes};
use super::{Location, Store, StoreError};
use crate::result::identity::RANKED_TESTS;
use crate::result::ResultDoc;

/// The figures a device is ranked by: the eight standard tests (MB/s for SEQ1M, IOPS for
/// RND4K) and the pi profile's score.
pub const METRICS: [&str; 9] = [
    "seq1m_q8_read",
    "seq1m_q8_write",
    "seq1m_q1_read",
    "seq1m_q1_write",
    "rnd4k_q32_read",
    "rnd4k_q32_write",
    "rnd4k_q1_read",
    "rnd4k_q1_write",
    "score",
];

/// The most devices one leaderboard page lists.
pub const MAX_ROWS: u32 = 500;

/// How one figure spreads over a device's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub p25: f64,
    pub p75: f64,
    pub n: u64,
}

/// One line of a leaderboard.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceRow {
    pub key: String,
    pub name: String,
    pub kind: String,
    pub transport: Option<String>,
    pub capacity_gb: Option<i64>,
    pub results: i64,
    /// The median of the prices people gave, in US dollars.
    pub price_usd: Option<f64>,
    pub stats: BTreeMap<String, Spread>,
}

/// One result as a site lists it.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub id: String,
    pub class: String,
    pub device_key: Option<String>,
    pub device_name: String,
    pub kind: String,
    pub transport: Option<String>,
    pub capacity_gb: Option<i64>,
    pub started_at: String,
    pub label: Option<String>,
    pub board: Option<String>,
    pub filesystem: Option<String>,
    pub price_usd: Option<f64>,
    /// Why it is kept out of rankings, if it is.
    pub flag: Option<String>,
    pub synthetic: bool,
    pub figures: BTreeMap<String, f64>,
}

/// What a leaderboard shows.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub class: String,
    pub sort: &'static str,
    pub kind: Option<String>,
    pub transport: Option<String>,
    pub board: Option<String>,
    pub filesystem: Option<String>,
    /// Words of the model: matched against the device key, so case and punctuation do not
    /// matter.
    pub text: Option<String>,
    pub limit: u32,
    pub synthetic: bool,
}

/// How a deletion went.
#[derive(Debug, PartialEq, Eq)]
pub enum Deletion {
    Deleted,
    NoSuchResult,
    /// The token does not match (or the result was never submitted with one).
    WrongToken,
}

const ENTRY_COLUMNS: &str = "id, class, device_key, device_name, kind, transport, capacity_gb, \
     started_at, label, board, filesystem, price_usd, flag, synthetic, seq1m_q8_read, \
     seq1m_q8_write, seq1m_q1_read, seq1m_q1_write, rnd4k_q32_read, rnd4k_q32_write, \
     rnd4k_q1_read, rnd4k_q1_write, score";

impl Store {
    /// Writes a result's facts and refreshes its device's aggregate, inside the transaction
    /// that saves the result.
    pub(super) async fn add_entry(
        &self,
        tx: &mut Transaction<'_, Any>,
        doc: &ResultDoc,
        token_hash: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        let id = doc.identity();
        let mut figures = [None; 9];
        for (i, (test, _)) in RANKED_TESTS.iter().enumerate() {
            figures[i] = doc.test(test).map(|t| {
                if test.starts_with("SEQ") {
                    t.mb_per_s
                } else {
                    t.iops
                }
            });
        }
        figures[8] = doc.score_total().map(|s| s as f64);
        // Prepared afresh each time: see `Store::save_with` on NULL figures and PostgreSQL.
        let mut query = sqlx::query(
            "INSERT INTO entries (id, device_key, device_name, kind, transport, class, board, \
             filesystem, capacity_gb, price_usd, flag, synthetic, token_hash, started_at, label, \
             seq1m_q8_read, seq1m_q8_write, seq1m_q1_read, seq1m_q1_write, rnd4k_q32_read, \
             rnd4k_q32_write, rnd4k_q1_read, rnd4k_q1_write, score) VALUES ($1, $2, $3, $4, $5, \
             $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, \
             $23, $24)",
        )
        .persistent(false)
        .bind(&doc.id)
        .bind(&id.device_key)
        .bind(&id.device_name)
        .bind(id.kind)
        .bind(&id.transport)
        .bind(&id.class)
        .bind(&doc.host.board)
        .bind(&doc.target.filesystem)
        .bind(id.capacity_gb.map(|g| g as i64))
        .bind(doc.price_usd)
        .bind(&id.flag)
        .bind(id.synthetic as i64)
        .bind(token_hash)
        .bind(&doc.started_at)
        .bind(&doc.label);
        for figure in figures {
            query = query.bind(figure);
        }
        query.execute(&mut **tx).await?;
        if let Some(key) = &id.device_key {
            let scopes = scopes(doc.host.board.as_deref(), doc.target.filesystem.as_deref());
            self.refresh_device(tx, &id.class, key, &scopes).await?;
        }
        Ok(())
    }

    /// Recomputes one device's aggregates for one class, in each of `scopes`, from its
    /// entries.
    pub(super) async fn refresh_device(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
        scopes: &[String],
    ) -> Result<(), sqlx::Error> {
        if matches!(self.location, Location::Postgres(_)) {
            // Two submissions for one device at once: the second waits, then sees the first.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))::text")
                .bind(format!("{class}\n{key}"))
                .execute(&mut **tx)
                .await?;
        }
        let rows = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entries WHERE device_key = $1 AND class = $2 \
             AND flag IS NULL"
        ))
        .bind(key)
        .bind(class)
        .fetch_all(&mut **tx)
        .await?;
        let entries = rows.iter().map(entry).collect::<Result<Vec<_>, _>>()?;
        for scope in scopes {
            let chosen: Vec<Entry> = entries
                .iter()
                .filter(|e| in_scope(e, scope))
                .cloned()
                .collect();
            self.write_device(tx, class, scope, key, &chosen).await?;
        }
        Ok(())
    }

    async fn write_device(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        scope: &str,
        key: &str,
        entries: &[Entry],
    ) -> Result<(), sqlx::Error> {
        let Some(row) = aggregate(entries).into_iter().next() else {
            sqlx::query("DELETE FROM devices WHERE class = $1 AND scope = $2 AND device_key = $3")
                .bind(class)
                .bind(scope)
                .bind(key)
                .execute(&mut **tx)
                .await?;
            return Ok(());
        };
        let synthetic = entries.iter().all(|e| e.synthetic);
        let stats = serde_json::to_string(&row.stats).unwrap_or_else(|_| "{}".into());
        let mut query = sqlx::query(
            "INSERT INTO devices (class, scope, device_key, device_name, kind, transport, \
             capacity_gb, results, synthetic, price_usd, stats, seq1m_q8_read, seq1m_q8_write, \
             seq1m_q1_read, seq1m_q1_write, rnd4k_q32_read, rnd4k_q32_write, rnd4k_q1_read, \
             rnd4k_q1_write, score) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
             $13, $14, $15, $16, $17, $18, $19, $20) \
             ON CONFLICT (class, scope, device_key) DO UPDATE SET \
             device_name = excluded.device_name, kind = excluded.kind, \
             transport = excluded.transport, capacity_gb = excluded.capacity_gb, \
             results = excluded.results, synthetic = excluded.synthetic, \
             price_usd = excluded.price_usd, stats = excluded.stats, \
             seq1m_q8_read = excluded.seq1m_q8_read, seq1m_q8_write = excluded.seq1m_q8_write, \
             seq1m_q1_read = excluded.seq1m_q1_read, seq1m_q1_write = excluded.seq1m_q1_write, \
             rnd4k_q32_read = excluded.rnd4k_q32_read, rnd4k_q32_write = excluded.rnd4k_q32_write, \
             rnd4k_q1_read = excluded.rnd4k_q1_read, rnd4k_q1_write = excluded.rnd4k_q1_write, \
             score = excluded.score",
        )
        .persistent(false)
        .bind(class)
        .bind(scope)
        .bind(key)
        .bind(&row.name)
        .bind(&row.kind)
        .bind(&row.transport)
        .bind(row.capacity_gb)
        .bind(row.results)
        .bind(synthetic as i64)
        .bind(row.price_usd)
        .bind(stats);
        for metric in METRICS {
            query = query.bind(row.stats.get(metric).map(|s| s.median));
        }
        query.execute(&mut **tx).await?;
        Ok(())
    }

    /// Gives facts to results saved before the store had them (or by an older iomark).
    pub async fn backfill(&self) -> Result<usize, StoreError> {
        // Ids first, from the two primary keys alone: reading the documents of every run to
        // find none missing took seconds at 100,000 runs.
        let rows = sqlx::query(
            "SELECT r.id FROM results r WHERE NOT EXISTS \
             (SELECT 1 FROM entries e WHERE e.id = r.id)",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        let mut done = 0;
        for row in rows {
            let id: String = row.try_get(0).map_err(|e| self.fail(e))?;
            let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
                .bind(&id)
                .fetch_one(&self.pool)
                .await
                .and_then(|row| row.try_get(0))
                .map_err(|e| self.fail(e))?;
            // A document this version cannot read keeps its history line; it is not ranked.
            let Ok(doc) = serde_json::from_str::<ResultDoc>(&text) else {
                continue;
            };
            let mut conn = self.pool.acquire().await.map_err(|e| self.fail(e))?;
            let outcome = async {
                let mut tx = conn.begin().await?;
                self.add_entry(&mut tx, &doc, None).await?;
                tx.commit().await
            }
            .await;
            if let Err(e) = outcome {
                super::forget(&mut conn);
                return Err(self.fail(e));
            }
            done += 1;
        }
        Ok(done)
    }

    /// Devices ranked by `filter.sort`, best first.
    pub async fn leaderboard(&self, filter: &Filter) -> Result<Vec<DeviceRow>, StoreError> {
        let sort = METRICS
            .iter()
            .find(|m| **m == filter.sort)
            .ok_or_else(|| StoreError::Invalid(format!("cannot sort by '{}'", filter.sort)))?;
        let limit = filter.limit.clamp(1, MAX_ROWS);
        let text = filter.text.as_deref().map(crate::result::identity::slug);
        // A real site has no synthetic results: `synthetic = 0` then, and no condition when
        // they are shown (a range here would keep the figure's index from giving the order).
        let mut conditions = vec!["class = $1".to_string()];
        if !filter.synthetic {
            conditions.push("synthetic = 0".to_string());
        }
        let mut binds: Vec<String> = Vec::new();
        let mut add = |column: &str, value: Option<String>, like: bool| {
            if let Some(value) = value.filter(|v| !v.is_empty() || column == "scope") {
                binds.push(if like { format!("%{value}%") } else { value });
                let n = binds.len() + 1;
                conditions.push(if like {
                    format!("{column} LIKE ${n}")
                } else {
                    format!("{column} = ${n}")
                });
            }
        };
        add("kind", filter.kind.clone(), false);
        add("transport", filter.transport.clone(), false);
        add("device_key", text, true);
        // One of board and filesystem reads that scope's aggregates; both at once are
        // aggregated from the matching entries.
        let scope = match (&filter.board, &filter.filesystem) {
            (None, None) => Some(String::new()),
            (Some(board), None) => Some(format!("board:{board}")),
            (None, Some(fs)) => Some(format!("fs:{fs}")),
            (Some(_), Some(_)) => None,
        };
        let live = scope.is_none();
        if live {
            add("board", filter.board.clone(), false);
            add("filesystem", filter.filesystem.clone(), false);
        } else {
            add("scope", scope, false);
        }
        let sql = if live {
            format!(
                "SELECT {ENTRY_COLUMNS} FROM entries WHERE {} AND flag IS NULL \
                 AND device_key IS NOT NULL",
                conditions.join(" AND ")
            )
        } else {
            format!(
                "SELECT device_key, device_name, kind, transport, capacity_gb, results, price_usd, \
                 stats FROM devices WHERE {} AND {sort} IS NOT NULL \
                 ORDER BY {sort} DESC, device_key LIMIT {limit}",
                conditions.join(" AND ")
            )
        };
        let mut query = sqlx::query(&sql).bind(&filter.class);
        for value in &binds {
            query = query.bind(value);
        }
        let rows = query
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.fail(e))?;
        if live {
            let entries = self.entries(&rows)?;
            let mut devices: Vec<DeviceRow> = aggregate(&entries)
                .into_iter()
                .filter(|d| d.stats.contains_key(*sort))
                .collect();
            devices.sort_by(|a, b| {
                b.stats[*sort]
                    .median
                    .total_cmp(&a.stats[*sort].median)
                    .then_with(|| a.key.cmp(&b.key))
            });
            devices.truncate(limit as usize);
            return Ok(devices);
        }
        rows.iter()
            .map(|row| {
                let stats: String = row.try_get("stats")?;
                Ok(DeviceRow {
                    key: row.try_get("device_key")?,
                    name: row.try_get("device_name")?,
                    kind: row.try_get("kind")?,
                    transport: row.try_get("transport")?,
                    capacity_gb: row.try_get("capacity_gb")?,
                    results: row.try_get("results")?,
                    price_usd: row.try_get("price_usd")?,
                    stats: serde_json::from_str(&stats).unwrap_or_default(),
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.fail(e))
    }

    /// The boards and filesystems that a class has ranked results on (its scopes).
    pub async fn scopes(&self, class: &str) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let rows = sqlx::query(
            "SELECT DISTINCT scope FROM devices WHERE class = $1 AND scope <> '' ORDER BY scope",
        )
        .bind(class)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        let mut boards = Vec::new();
        let mut filesystems = Vec::new();
        for row in rows {
            let scope: String = row.try_get(0).map_err(|e| self.fail(e))?;
            if let Some(board) = scope.strip_prefix("board:") {
                boards.push(board.to_string());
            } else if let Some(fs) = scope.strip_prefix("fs:") {
                filesystems.push(fs.to_string());
            }
        }
        Ok((boards, filesystems))
    }

    /// The classes of results that have ranked devices, with how many devices each.
    pub async fn classes(&self, synthetic: bool) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT class, COUNT(*) AS n FROM devices WHERE scope = '' AND synthetic <= $1 \
             GROUP BY class ORDER BY n DESC, class",
        )
        .bind(synthetic as i64)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.fail(e))
    }

    /// Every result of one device, newest first (at most 5,000).
    pub async fn device_entries(
        &self,
        key: &str,
        synthetic: bool,
    ) -> Result<Vec<Entry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entries WHERE device_key = $1 AND synthetic <= $2 \
             ORDER BY started_at DESC, id DESC LIMIT 5000"
        ))
        .bind(key)
        .bind(synthetic as i64)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        self.entries(&rows)
    }

    /// The newest results, ranked or not (a local history's runs have no device model more
    /// often than not), newest first.
    pub async fn recent(&self, limit: u32, synthetic: bool) -> Result<Vec<Entry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entries WHERE synthetic <= $1 \
             ORDER BY started_at DESC, id DESC LIMIT {}",
            limit.clamp(1, MAX_ROWS)
        ))
        .bind(synthetic as i64)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        self.entries(&rows)
    }

    /// One result's facts, by its full id.
    pub async fn entry(&self, id: &str) -> Result<Option<Entry>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entries WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        row.as_ref()
            .map(entry)
            .transpose()
            .map_err(|e| self.fail(e))
    }

    /// Saves a submitted result with the hash of its deletion token.
    pub async fn save_submitted(
        &self,
        doc: &ResultDoc,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        self.save_with(doc, Some(token_hash)).await
    }

    /// Deletes a submitted result if `token_hash` is its token's hash (compared in constant
    /// time).
    pub async fn delete_submitted(
        &self,
        id: &str,
        token_hash: &str,
    ) -> Result<Deletion, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(|e| self.fail(e))?;
        let outcome = async {
            let mut tx = conn.begin().await?;
            let stored: Option<Option<String>> =
                sqlx::query("SELECT token_hash FROM entries WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?
                    .map(|row| row.try_get(0))
                    .transpose()?;
            let deletion = match stored {
                None => Deletion::NoSuchResult,
                Some(None) => Deletion::WrongToken,
                Some(Some(stored))
                    if !constant_time_eq(stored.as_bytes(), token_hash.as_bytes()) =>
                {
                    Deletion::WrongToken
                }
                Some(Some(_)) => {
                    self.remove(&mut tx, id).await?;
                    tx.commit().await?;
                    return Ok(Deletion::Deleted);
                }
            };
            Ok(deletion)
        }
        .await;
        outcome.map_err(|e| {
            super::forget(&mut conn);
            self.fail(e)
        })
    }

    /// Removes one result and its facts, and refreshes its device's aggregates, in `tx`.
    pub(super) async fn remove(
        &self,
        tx: &mut Transaction<'_, Any>,
        id: &str,
    ) -> Result<(), sqlx::Error> {
        let facts =
            sqlx::query("SELECT class, device_key, board, filesystem FROM entries WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?;
        for table in ["entries", "results"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE id = $1"))
                .bind(id)
                .execute(&mut **tx)
                .await?;
        }
        let Some(row) = facts else {
            return Ok(());
        };
        let class: String = row.try_get(0)?;
        if let Some(key) = row.try_get::<Option<String>, _>(1)? {
            let board: Option<String> = row.try_get(2)?;
            let fs: Option<String> = row.try_get(3)?;
            let scopes = scopes(board.as_deref(), fs.as_deref());
            self.refresh_device(tx, &class, &key, &scopes).await?;
        }
        Ok(())
    }

    /// Whether the store answers (for a server's health check).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map_err(|e| self.fail(e))?;
        Ok(())
    }
}

impl Store {
    /// Rows of `ENTRY_COLUMNS` as entries.
    fn entries(&self, rows: &[AnyRow]) -> Result<Vec<Entry>, StoreError> {
        rows.iter()
            .map(entry)
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))
    }
}

fn entry(row: &AnyRow) -> Result<Entry, sqlx::Error> {
    let mut figures = BTreeMap::new();
    for metric in METRICS {
        if let Some(v) = row.try_get::<Option<f64>, _>(metric)? {
            figures.insert(metric.to_string(), v);
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
        board: row.try_get("board")?,
        filesystem: row.try_get("filesystem")?,
        price_usd: row.try_get("price_usd")?,
        flag: row.try_get("flag")?,
        synthetic: row.try_get::<i64, _>("synthetic")? != 0,
        figures,
    })
}

/// Equal bytes, compared in time that depends only on the length.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bytes_in_constant_time() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
