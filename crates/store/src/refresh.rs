//! A device's aggregates written from its results: for one class, in each scope asked (all
//! results, a board's, a filesystem's, both), from its ranked results as `aggregate.rs` sums
//! them up, in the caller's transaction.

use sqlx::{Any, Row, Transaction};

use super::aggregate::{aggregate, in_scope};
use super::columns::SQL;
use super::model::{DeviceRow, Entry};
use super::Db;
use iomark_result::result::metric::METRICS;

/// The most scopes one statement writes.
const UPSERTED: usize = 64;

/// The writer of devices' aggregates.
#[derive(Clone, Copy)]
pub(crate) struct Refresh<'a> {
    db: &'a Db,
}

impl<'a> Refresh<'a> {
    pub(crate) fn new(db: &'a Db) -> Refresh<'a> {
        Refresh { db }
    }

    /// Recomputes one device's aggregates for one class, in each of `scopes`, from its
    /// entries.
    pub(crate) async fn device(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
        scopes: &[String],
    ) -> Result<(), sqlx::Error> {
        if !self.db.is_sqlite() {
            // Two submissions for one device at once: the second waits, then sees the first.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))::text")
                .bind(format!("{class}\n{key}"))
                .execute(&mut **tx)
                .await?;
        }
        let entries = self.ranked_entries(&mut **tx, class, key).await?;
        self.write_scopes(tx, class, key, scopes, &entries).await
    }

    /// Writes a device's aggregates in each of `scopes` from its ranked `entries`: the scopes
    /// that have any in as few statements as the bound allows ([`UPSERTED`] rows each), those
    /// left with none deleted.
    pub(crate) async fn write_scopes(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
        scopes: &[String],
        entries: &[Entry],
    ) -> Result<(), sqlx::Error> {
        let mut rows = Vec::with_capacity(scopes.len());
        for scope in scopes {
            let chosen: Vec<Entry> = entries
                .iter()
                .filter(|e| in_scope(e, scope))
                .cloned()
                .collect();
            match aggregate(&chosen).into_iter().next() {
                Some(row) => rows.push((scope, row, chosen.iter().all(|e| e.synthetic))),
                None => {
                    sqlx::query(
                        "DELETE FROM devices WHERE class = $1 AND scope = $2 AND device_key = $3",
                    )
                    .bind(class)
                    .bind(scope)
                    .bind(key)
                    .execute(&mut **tx)
                    .await?;
                }
            }
        }
        // A device re-derived whole may have a thousand scopes (a system each): a row binds
        // 29 parameters, SQLite takes at most 32,766 a statement (1,129 rows), PostgreSQL
        // 65,535.
        for rows in rows.chunks(UPSERTED) {
            self.upsert(tx, class, key, rows).await?;
        }
        Ok(())
    }

    /// One statement writing `rows`: each a scope, its aggregate, and whether all of it is
    /// synthetic.
    async fn upsert(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
        rows: &[(&String, DeviceRow, bool)],
    ) -> Result<(), sqlx::Error> {
        // Kept prepared on SQLite; on PostgreSQL prepared afresh (`History::insert` says why).
        let sql = SQL.upsert_devices(rows.len());
        let mut query = sqlx::query(&sql).persistent(self.db.is_sqlite());
        // The binds follow `columns::DEVICE_FACTS`, then each figure's median, row by row.
        for (scope, row, synthetic) in rows {
            let stats = serde_json::to_string(&row.stats).unwrap_or_else(|_| "{}".into());
            query = query
                .bind(class)
                .bind(scope.as_str())
                .bind(key)
                .bind(&row.name)
                .bind(&row.kind)
                .bind(&row.transport)
                .bind(row.capacity_gb)
                .bind(row.results)
                .bind(*synthetic as i64)
                .bind(row.price_usd)
                .bind(stats)
                .bind(&row.sold_as)
                .bind(&row.names)
                .bind(row.submitters)
                .bind(&row.classes)
                .bind(row.neighbourhoods);
            for metric in &METRICS {
                query = query.bind(row.stats.get(metric.column).map(|s| s.median));
            }
        }
        query.execute(&mut **tx).await?;
        Ok(())
    }

    /// The results a device's aggregates are made of, in the order they arrived: its
    /// unflagged results of `class`, the real ones where it has any (a synthetic result, which
    /// only the local load generator makes, never moves a real device's figures), read along
    /// an index that keeps them apart (migration 0011).
    pub(crate) async fn ranked_entries<'e>(
        &self,
        on: impl sqlx::Executor<'e, Database = Any>,
        class: &str,
        key: &str,
    ) -> Result<Vec<Entry>, sqlx::Error> {
        // As one row (`entries_as_json`): read row by row, a device's 500 results took most of
        // each submission's time in the store's one writer (bench/site-load at 1,000,000).
        let sql = SQL.entries_as_json(
            &format!(
                "SELECT {}, r.saved_at AS saved_at FROM entries e JOIN results r ON r.id = e.id \
                 WHERE e.device_key = $1 AND e.class = $2 AND e.flag IS NULL AND e.synthetic = \
                 (SELECT synthetic FROM entries WHERE device_key = $1 AND class = $2 \
                 AND flag IS NULL ORDER BY synthetic LIMIT 1)",
                SQL.entry_select("e.")
            ),
            "saved_at, id",
            self.db.is_sqlite(),
        );
        let text: String = sqlx::query(&sql)
            .bind(key)
            .bind(class)
            .fetch_one(on)
            .await?
            .try_get(0)?;
        SQL.entries_from_json(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::DEVICE_FACTS;

    /// A device with more scopes than one statement could hold (a re-derived device that ran
    /// on more systems than SQLite's 32,766 parameters take rows) has every scope written,
    /// over several statements.
    #[test]
    fn more_scopes_than_one_statement_writes_are_all_written() {
        crate::on_a_server_store(None, async |store| {
            let width = DEVICE_FACTS.len() + METRICS.len();
            let many = 32_766 / width + 1;
            let systems: Vec<String> = (0..many).map(|n| format!("Debian {n}")).collect();
            let entries: Vec<Entry> = systems
                .iter()
                .enumerate()
                .map(|(n, system)| {
                    let mut e = Entry {
                        id: format!("{n:026}"),
                        class: "standard/direct/random".into(),
                        device_key: Some("many-systems".into()),
                        device_name: "Many Systems 64 GB".into(),
                        kind: "microSD".into(),
                        transport: None,
                        capacity_gb: Some(64),
                        started_at: "2026-11-27T00:00:00Z".into(),
                        label: None,
                        headline: None,
                        sold_as: None,
                        board: None,
                        filesystem: None,
                        price_usd: None,
                        flag: None,
                        synthetic: false,
                        figures: Default::default(),
                        submitter: Some(format!("submitter {n}")),
                        neighbourhood: None,
                        waits: false,
                        system: Some(system.clone()),
                    };
                    e.figures.insert("seq1m_q8_read".into(), 40.0 + n as f64);
                    e
                })
                .collect();
            let mut scopes = vec![String::new()];
            scopes.extend(systems.iter().map(|s| format!("system:{s}")));
            let refresh = Refresh::new(&store.db);
            store
                .db
                .write(async |tx| {
                    refresh
                        .write_scopes(
                            tx,
                            "standard/direct/random",
                            "many-systems",
                            &scopes,
                            &entries,
                        )
                        .await
                })
                .await
                .unwrap();
            let written: Vec<(String, f64)> = sqlx::query_as(
                "SELECT scope, seq1m_q8_read FROM devices WHERE device_key = 'many-systems' \
                 ORDER BY scope",
            )
            .fetch_all(&store.db.pool)
            .await
            .unwrap();
            assert_eq!(written.len(), many + 1);
            assert!(
                written.contains(&(format!("system:Debian {}", many - 1), 39.0 + many as f64)),
                "{written:?}"
            );
        });
    }
}
