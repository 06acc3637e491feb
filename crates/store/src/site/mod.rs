//! What a results site reads from the store: the leaderboard, the newest results, one
//! result's facts, the choices a leaderboard offers (a device's page: `device.rs`).
//!
//! The leaderboard reads only `devices` (for all results, one board's, one filesystem's, or
//! both), so its cost does not grow with the number of results.

use sqlx::any::AnyRow;
use sqlx::Row;

pub mod device;
pub mod review;
pub mod standing;

use super::aggregate::scope;
use super::columns::{device_row, entry, SQL};
use super::model::{DeviceRow, Entry, Filter, MAX_ROWS};
use super::moves;
use super::replicas::Reader;
use super::{Db, StoreError};
use iomark_result::result::metric::METRICS;

/// What a results site reads, on a replica where there are any.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    db: &'a Db,
    reader: Reader<'a>,
}

impl<'a> Site<'a> {
    pub(crate) fn new(reader: Reader<'a>) -> Site<'a> {
        Site {
            db: reader.db(),
            reader,
        }
    }

    /// Where device `key` went, if it was merged into another or renamed by new rules (asked
    /// of the primary, where the merge was written).
    pub async fn moved(&self, key: &str) -> Result<Option<String>, StoreError> {
        moves::moved(&self.db.pool, key)
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Devices ranked by `filter.sort`, best first: those measured from at least
    /// `filter.corroboration` neighbourhoods, then the others.
    pub async fn leaderboard(&self, filter: &Filter) -> Result<Vec<DeviceRow>, StoreError> {
        // A column of the metric list, never text from a request.
        let sort = filter.sort.column;
        let limit = filter.limit.clamp(1, MAX_ROWS);
        let text = filter
            .text
            .as_deref()
            .map(iomark_result::result::identity::slug);
        // A real site has no synthetic results: `synthetic = 0` then, and no condition when
        // they are shown (a range here would keep the figure's index from giving the order).
        let mut conditions = vec!["class = $1".to_string()];
        if !filter.synthetic {
            conditions.push("synthetic = 0".to_string());
        }
        let mut binds: Vec<String> = Vec::new();
        let mut bind = |value: String| {
            binds.push(value);
            binds.len() + 1
        };
        for (column, value) in [("kind", &filter.kind), ("transport", &filter.transport)] {
            if let Some(value) = value.clone().filter(|v| !v.is_empty()) {
                conditions.push(format!("{column} = ${}", bind(value)));
            }
        }
        // Every word of the search in some name of the device, in any order: "samsung 860"
        // finds samsung-ssd-860-evo-500gb, "extreme" a card sold as a SanDisk Extreme.
        let words: Vec<String> = text
            .iter()
            .flat_map(|t| t.split('-'))
            .filter(|w| !w.is_empty())
            .map(|w| format!("names LIKE ${}", bind(format!("%{w}%"))))
            .collect();
        // Each of board, filesystem and the two together reads its own scope's aggregates.
        // The scope of all results is written into the statement, so that PostgreSQL may read
        // a search's names from the trigram index of those rows alone (`open::search_index`),
        // in a generic plan too: an index of every scope's rows held each name a dozen times,
        // and a word every device has ("model") read 232 of its pages, 1.5 ms a search against
        // 0.2 (EXPLAIN ANALYZE, 100,000 results). A board's search tests its own rows' names:
        // finding them in that index and then each board's row by its key was as fast with
        // statistics, but without them (a store just filled or restored) PostgreSQL read every
        // device's row for each of the board's, 1.5 s a search.
        let scope = scope(filter.board.as_deref(), filter.filesystem.as_deref());
        conditions.push(match scope.is_empty() {
            true => "scope = ''".to_string(),
            false => format!("scope = ${}", bind(scope)),
        });
        let searched = !words.is_empty();
        conditions.extend(words);
        // SQLite reads a search's names from their own index, a device's row only where they
        // match (migration 0010); it would walk the figure's index instead, a row each.
        let indexed = if searched && self.db.is_sqlite() {
            "INDEXED BY devices_names"
        } else {
            ""
        };
        // A device measured from fewer neighbourhoods than the site asks is listed after every
        // ranked one (issue 59: one household's look-alike, a hidden device's new spelling or
        // figures no print foresaw took rank 1 on its word alone): each part read along the
        // figure's index, the second only where the first leaves room.
        // A search, whose few rows come from the names' index, orders them in one statement
        // (its index read once).
        let k = filter.corroboration;
        let (parts, first): (Vec<String>, String) = match k {
            0 | 1 => (vec![String::new()], String::new()),
            k if searched => (vec![String::new()], format!("neighbourhoods >= {k} DESC, ")),
            k => (
                vec![
                    format!("AND neighbourhoods >= {k}"),
                    format!("AND neighbourhoods < {k}"),
                ],
                String::new(),
            ),
        };
        let mut devices = Vec::new();
        for part in parts {
            let room = limit as usize - devices.len();
            if room == 0 {
                break;
            }
            let sql = format!(
                "SELECT device_key, device_name, kind, transport, capacity_gb, results, submitters, \
                 price_usd, stats, sold_as, classes, neighbourhoods FROM devices {indexed} \
                 WHERE {} AND {sort} IS NOT NULL {part} \
                 ORDER BY {first}{sort} DESC, device_key LIMIT {room}",
                conditions.join(" AND ")
            );
            let rows = self
                .reader
                .read(|pool| {
                    let mut query = sqlx::query(&sql).bind(&filter.class);
                    for value in &binds {
                        query = query.bind(value);
                    }
                    Box::pin(query.fetch_all(pool))
                })
                .await
                .map_err(|e| self.db.fail(e))?;
            for row in &rows {
                devices.push(device_row(row).map_err(|e| self.db.fail(e))?);
            }
        }
        Ok(devices)
    }

    /// The boards and filesystems that a class has ranked results on (its scopes).
    pub async fn scopes(&self, class: &str) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let rows = self
            .reader
            .read(|pool| {
                Box::pin(
                    sqlx::query(
                        "SELECT DISTINCT scope FROM devices WHERE class = $1 \
                         AND scope <> '' ORDER BY scope",
                    )
                    .bind(class)
                    .fetch_all(pool),
                )
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        let mut boards = Vec::new();
        let mut filesystems = Vec::new();
        for row in rows {
            let scope: String = row.try_get(0).map_err(|e| self.db.fail(e))?;
            if let Some(board) = scope.strip_prefix("board:") {
                boards.push(board.to_string());
            } else if let Some(fs) = scope.strip_prefix("fs:") {
                filesystems.push(fs.to_string());
            }
        }
        Ok((boards, filesystems))
    }

    /// The figures (columns of `METRICS`) that a class's ranked devices have.
    pub async fn figures_of(&self, class: &str) -> Result<Vec<&'static str>, StoreError> {
        let counts: Vec<String> = METRICS
            .iter()
            .map(|m| format!("COUNT({}) AS {}", m.column, m.column))
            .collect();
        let sql = format!(
            "SELECT {} FROM devices WHERE class = $1 AND scope = ''",
            counts.join(", ")
        );
        let row = self
            .reader
            .read(|pool| Box::pin(sqlx::query(&sql).bind(class).fetch_one(pool)))
            .await
            .map_err(|e| self.db.fail(e))?;
        let mut present = Vec::new();
        for m in &METRICS {
            if row
                .try_get::<i64, _>(m.column)
                .map_err(|e| self.db.fail(e))?
                > 0
            {
                present.push(m.column);
            }
        }
        Ok(present)
    }

    /// The classes of results that have ranked devices, with how many devices each.
    pub async fn classes(&self, synthetic: bool) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = self
            .reader
            .read(|pool| {
                Box::pin(
                    sqlx::query(
                        "SELECT class, COUNT(*) AS n FROM devices WHERE scope = '' \
                         AND synthetic <= $1 GROUP BY class ORDER BY n DESC, class",
                    )
                    .bind(synthetic as i64)
                    .fetch_all(pool),
                )
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }

    /// The results that arrived last, ranked or not (a local history's runs have no device
    /// model more often than not), newest first: by when the store took them, which a
    /// document cannot set (its own `started_at` put a result 23 h ahead at the top, issue 22).
    pub async fn recent(&self, limit: u32, synthetic: bool) -> Result<Vec<Entry>, StoreError> {
        let sql = format!(
            // CROSS JOIN: SQLite then walks results by the index on saved_at and stops at the
            // limit (with a plain JOIN it sorted every result, 70 ms a page at 20,000).
            // Synthetic or not written into the statement, not bound: PostgreSQL planned it anew
            // at each of a leaderboard's reads, 0.13 ms to run 0.03 (it never chose the generic
            // plan; pg_stat_statements under bench/site-load), and plans it once so.
            "SELECT {} FROM results r CROSS JOIN entries e WHERE e.id = r.id \
             AND e.synthetic <= {} ORDER BY r.saved_at DESC LIMIT {}",
            SQL.entry_select("e."),
            synthetic as i64,
            limit.clamp(1, MAX_ROWS)
        );
        let rows = self
            .reader
            .read(|pool| Box::pin(sqlx::query(&sql).fetch_all(pool)))
            .await
            .map_err(|e| self.db.fail(e))?;
        self.entries(&rows)
    }

    /// Results in the order of their ids, from just after `after`: a walk that pages through
    /// every result there was when it began. Of one class and one device when given.
    pub async fn listing(
        &self,
        after: &str,
        class: Option<&str>,
        device: Option<&str>,
        limit: u32,
        synthetic: bool,
    ) -> Result<Vec<Entry>, StoreError> {
        let mut conditions = vec!["synthetic <= $1".to_string(), "id > $2".to_string()];
        let binds: Vec<&str> = class.into_iter().chain(device).collect();
        if class.is_some() {
            conditions.push("class = $3".into());
        }
        if device.is_some() {
            conditions.push(format!("device_key = ${}", 2 + binds.len()));
        }
        let sql = format!(
            "SELECT {} FROM entries WHERE {} ORDER BY id LIMIT {}",
            SQL.entry_select(""),
            conditions.join(" AND "),
            limit.clamp(1, MAX_ROWS)
        );
        let rows = self
            .reader
            .read(|pool| {
                let mut query = sqlx::query(&sql).bind(synthetic as i64).bind(after);
                for value in &binds {
                    query = query.bind(*value);
                }
                Box::pin(query.fetch_all(pool))
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        self.entries(&rows)
    }

    /// Public results with their documents, in the order of their ids, from just after
    /// `after`: what a dump of the whole site reads, a page at a time.
    pub async fn documents_after(
        &self,
        after: &str,
        limit: u32,
        synthetic: bool,
    ) -> Result<Vec<(Entry, String)>, StoreError> {
        let sql = format!(
            "SELECT {}, r.document FROM entries e JOIN results r ON r.id = e.id \
             WHERE e.synthetic <= $1 AND e.id > $2 ORDER BY e.id LIMIT {}",
            SQL.entry_select("e."),
            limit.clamp(1, MAX_ROWS)
        );
        let rows = self
            .reader
            .read(|pool| {
                Box::pin(
                    sqlx::query(&sql)
                        .bind(synthetic as i64)
                        .bind(after)
                        .fetch_all(pool),
                )
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|row| Ok((entry(row)?, row.try_get("document")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }

    /// The ids of results deleted or hidden since `at` (RFC 3339; from its second on): what a
    /// dump made then holds and may no longer give (`tombstones.rs`). Read on the primary.
    pub async fn buried_since(&self, at: &str) -> Result<Vec<String>, StoreError> {
        let second = at.get(..19).unwrap_or(at);
        sqlx::query("SELECT id FROM tombstones WHERE substr(buried_at, 1, 19) >= $1")
            .bind(second)
            .fetch_all(&self.db.pool)
            .await
            .and_then(|rows| rows.iter().map(|row| row.try_get(0)).collect())
            .map_err(|e| self.db.fail(e))
    }

    /// One result's facts, by its full id.
    pub async fn entry(&self, id: &str) -> Result<Option<Entry>, StoreError> {
        let sql = format!("SELECT {} FROM entries WHERE id = $1", SQL.entry_select(""));
        let row = self
            .reader
            .read_one(|pool| Box::pin(sqlx::query(&sql).bind(id).fetch_optional(pool)))
            .await
            .map_err(|e| self.db.fail(e))?;
        row.as_ref()
            .map(entry)
            .transpose()
            .map_err(|e| self.db.fail(e))
    }

    /// Whether the store's primary answers (for a server's health check).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1")
            .execute(&self.db.pool)
            .await
            .map_err(|e| self.db.fail(e))?;
        Ok(())
    }

    /// Rows of the entry columns as entries.
    fn entries(&self, rows: &[AnyRow]) -> Result<Vec<Entry>, StoreError> {
        rows.iter()
            .map(entry)
            .collect::<Result<_, _>>()
            .map_err(|e| self.db.fail(e))
    }
}
