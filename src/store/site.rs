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
use sqlx::{Any, Row, Transaction};

pub use super::aggregate::{aggregate, spread};
use super::aggregate::{in_scope, scope, scopes};
use super::{Begin, Location, Store, StoreError};
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

/// The rules that derive `entries` from documents and `devices` from entries. A store written
/// under other rules is derived anew when opened ([`Store::rederive`]); change this with them.
pub const RULES: &str = "2";

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
        let entries = self.ranked_entries(tx, class, key).await?;
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

    /// The results a device's aggregates are made of, in the order they arrived: its
    /// unflagged results of `class`, and of those the real ones where it has any (a synthetic
    /// result, which only the local load generator makes, never moves a real device's figures).
    async fn ranked_entries(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
    ) -> Result<Vec<Entry>, sqlx::Error> {
        let rows = sqlx::query(&format!(
            "SELECT {} FROM entries e JOIN results r ON r.id = e.id WHERE e.device_key = $1 \
             AND e.class = $2 AND e.flag IS NULL ORDER BY r.saved_at, e.id",
            columns("e.")
        ))
        .bind(key)
        .bind(class)
        .fetch_all(&mut **tx)
        .await?;
        let mut entries = rows.iter().map(entry).collect::<Result<Vec<_>, _>>()?;
        if entries.iter().any(|e| !e.synthetic) {
            entries.retain(|e| !e.synthetic);
        }
        Ok(entries)
    }

    /// Every aggregate of one device, in all its classes and scopes: what its page shows, as
    /// the leaderboard does.
    pub async fn device_rows(
        &self,
        key: &str,
    ) -> Result<Vec<(String, String, DeviceRow)>, StoreError> {
        let rows = sqlx::query(
            "SELECT class, scope, device_key, device_name, kind, transport, capacity_gb, \
             results, price_usd, stats FROM devices WHERE device_key = $1 ORDER BY class, scope",
        )
        .bind(key)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|row| {
                Ok((
                    row.try_get("class")?,
                    row.try_get("scope")?,
                    device_row(row)?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.fail(e))
    }

    /// Derives every result's facts and every device's aggregates anew, once, where the store
    /// was written under older rules than this version's ([`RULES`]).
    pub async fn rederive(&self) -> Result<(), StoreError> {
        let fail = |e| self.fail(e);
        let version: Option<String> = sqlx::query("SELECT value FROM meta WHERE name = 'rules'")
            .fetch_optional(&self.pool)
            .await
            .map_err(fail)?
            .map(|row| row.try_get(0))
            .transpose()
            .map_err(fail)?;
        if version.as_deref() == Some(RULES) {
            return Ok(());
        }
        // Two processes opening one store at once: the second waits for the first's write lock
        // (taken at BEGIN on SQLite, an advisory lock on PostgreSQL), then finds the work done.
        self.write(Begin::Immediate, async |tx| {
            if !self.is_sqlite() {
                sqlx::query("SELECT pg_advisory_xact_lock(hashtext('iomark rules'))::text")
                    .execute(&mut **tx)
                    .await?;
            }
            let done = sqlx::query("SELECT 1 FROM meta WHERE name = 'rules' AND value = $1")
                .bind(RULES)
                .fetch_optional(&mut **tx)
                .await?;
            if done.is_some() {
                return Ok(());
            }
            let ids: Vec<String> = sqlx::query("SELECT id FROM entries")
                .fetch_all(&mut **tx)
                .await?
                .iter()
                .map(|row| row.try_get(0))
                .collect::<Result<_, _>>()?;
            for id in ids {
                let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
                    .bind(&id)
                    .fetch_one(&mut **tx)
                    .await?
                    .try_get(0)?;
                let Ok(doc) = serde_json::from_str::<ResultDoc>(&text) else {
                    continue;
                };
                let facts = doc.identity();
                sqlx::query(
                    "UPDATE entries SET device_key = $1, device_name = $2, kind = $3, \
                     transport = $4, class = $5, capacity_gb = $6, flag = $7, synthetic = $8 \
                     WHERE id = $9",
                )
                .persistent(false)
                .bind(&facts.device_key)
                .bind(&facts.device_name)
                .bind(facts.kind)
                .bind(&facts.transport)
                .bind(&facts.class)
                .bind(facts.capacity_gb.map(|g| g as i64))
                .bind(&facts.flag)
                .bind(facts.synthetic as i64)
                .bind(&id)
                .execute(&mut **tx)
                .await?;
            }
            sqlx::query("DELETE FROM devices")
                .execute(&mut **tx)
                .await?;
            let pairs = sqlx::query(
                "SELECT DISTINCT class, device_key, board, filesystem FROM entries \
                 WHERE device_key IS NOT NULL",
            )
            .fetch_all(&mut **tx)
            .await?;
            let mut devices: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
            for row in &pairs {
                let board: Option<String> = row.try_get(2)?;
                let fs: Option<String> = row.try_get(3)?;
                let wanted = devices
                    .entry((row.try_get(0)?, row.try_get(1)?))
                    .or_default();
                for scope in scopes(board.as_deref(), fs.as_deref()) {
                    if !wanted.contains(&scope) {
                        wanted.push(scope);
                    }
                }
            }
            for ((class, key), wanted) in devices {
                self.refresh_device(tx, &class, &key, &wanted).await?;
            }
            sqlx::query("DELETE FROM meta WHERE name = 'rules'")
                .execute(&mut **tx)
                .await?;
            sqlx::query("INSERT INTO meta (name, value) VALUES ('rules', $1)")
                .bind(RULES)
                .execute(&mut **tx)
                .await?;
            Ok(())
        })
        .await
        .map_err(fail)
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
            self.write(Begin::Deferred, async |tx| {
                self.add_entry(tx, &doc, None).await
            })
            .await
            .map_err(|e| self.fail(e))?;
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
        // Each of board, filesystem and the two together reads its own scope's aggregates.
        let scope = scope(filter.board.as_deref(), filter.filesystem.as_deref());
        add("scope", Some(scope), false);
        let sql = format!(
            "SELECT device_key, device_name, kind, transport, capacity_gb, results, price_usd, \
             stats FROM devices WHERE {} AND {sort} IS NOT NULL \
             ORDER BY {sort} DESC, device_key LIMIT {limit}",
            conditions.join(" AND ")
        );
        let mut query = sqlx::query(&sql).bind(&filter.class);
        for value in &binds {
            query = query.bind(value);
        }
        let rows = query
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(device_row)
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

    /// The results that arrived last, ranked or not (a local history's runs have no device
    /// model more often than not), newest first: by when the store took them, which a
    /// document cannot set (its own `started_at` put a result 23 h ahead at the top, issue 22).
    pub async fn recent(&self, limit: u32, synthetic: bool) -> Result<Vec<Entry>, StoreError> {
        let rows = sqlx::query(&format!(
            // CROSS JOIN: SQLite then walks results by the index on saved_at and stops at the
            // limit (with a plain JOIN it sorted every result, 70 ms a page at 20,000).
            "SELECT {} FROM results r CROSS JOIN entries e WHERE e.id = r.id \
             AND e.synthetic <= $1 ORDER BY r.saved_at DESC LIMIT {}",
            columns("e."),
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
        self.write(Begin::Deferred, async |tx| {
            let stored: Option<Option<String>> =
                sqlx::query("SELECT token_hash FROM entries WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut **tx)
                    .await?
                    .map(|row| row.try_get(0))
                    .transpose()?;
            Ok(match stored {
                None => Deletion::NoSuchResult,
                Some(Some(stored))
                    if constant_time_eq(stored.as_bytes(), token_hash.as_bytes()) =>
                {
                    self.remove(tx, id).await?;
                    Deletion::Deleted
                }
                Some(_) => Deletion::WrongToken,
            })
        })
        .await
        .map_err(|e| self.fail(e))
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

fn device_row(row: &AnyRow) -> Result<DeviceRow, sqlx::Error> {
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
}

/// `ENTRY_COLUMNS`, each prefixed (`e.`) for a query that joins another table.
fn columns(prefix: &str) -> String {
    ENTRY_COLUMNS
        .split(", ")
        .map(|c| format!("{prefix}{c}"))
        .collect::<Vec<_>>()
        .join(", ")
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
