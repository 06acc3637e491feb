//! What one device's page reads: its aggregates, how many results it has of each class, one
//! figure of each of a class's results (its distribution, its SD verdicts, where a viewer's
//! result stands), and its newest results in full.
//!
//! A page read every result in full before (up to 5,000): 4.4 ms a page for a device of 500
//! results, most of it each result's 40 columns written as JSON and read back. Its distribution
//! needs four columns of each, its list only the newest 50, and the figures its tables show are
//! those of its aggregates.

use sqlx::Row;

use super::Site;
use crate::columns::{device_row, real_as_json, real_of_json, SQL};
use crate::model::{DeviceRow, Entry};
use crate::StoreError;
use iomark_result::result::metric::METRICS;
use iomark_result::result::Reason;

/// Newest first: the order of a device's results on its page.
const NEWEST: &str = "started_at DESC, id DESC";

/// One result of a device, as its distribution needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub id: String,
    /// Why it is not ranked, if it is not.
    pub flag: Option<Reason>,
    pub headline: Option<String>,
    /// The figure asked for, where it has it.
    pub value: Option<f64>,
}

impl Site<'_> {
    /// Every aggregate of one device, in all its classes and scopes: what its page shows, as
    /// the leaderboard does.
    pub async fn device_rows(
        &self,
        key: &str,
    ) -> Result<Vec<(String, String, DeviceRow)>, StoreError> {
        let rows = self
            .reader
            .read(|pool| {
                Box::pin(
                    sqlx::query(
                        "SELECT class, scope, device_key, device_name, kind, transport, \
                         capacity_gb, results, submitters, price_usd, stats, sold_as, classes, \
                         neighbourhoods FROM devices \
                         WHERE device_key = $1 ORDER BY class, scope",
                    )
                    .bind(key)
                    .fetch_all(pool),
                )
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|row| {
                Ok((
                    row.try_get("class")?,
                    row.try_get("scope")?,
                    device_row(row)?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }

    /// The classes one device has results of (flagged ones too) with how many of each, most
    /// first; none for a key no result has. From an index alone.
    pub async fn device_classes(
        &self,
        key: &str,
        synthetic: bool,
    ) -> Result<Vec<(String, usize)>, StoreError> {
        let rows = self
            .reader
            .read(|pool| {
                Box::pin(
                    sqlx::query(
                        "SELECT class, COUNT(*) FROM entries WHERE device_key = $1 \
                         AND synthetic <= $2 GROUP BY class",
                    )
                    .bind(key)
                    .bind(synthetic as i64)
                    .fetch_all(pool),
                )
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        let mut classes = rows
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get::<i64, _>(1)? as usize)))
            .collect::<Result<Vec<(String, usize)>, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))?;
        classes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(classes)
    }

    /// The newest `points` results of one device and class (a site's `--standing-sample`, 5,000), each
    /// with `figure` (a
    /// column of `METRICS`, never text from a request), and the newest `limit` of them in
    /// full; newest first. One statement: as two, a page of a device with 50 results cost the
    /// server 1,091 µs of CPU against 940 (wrk, one connection, no cache). Where the class has
    /// no more than `limit` results (its `total`), the points are those read in full.
    pub async fn device_results(
        &self,
        key: &str,
        class: &str,
        figure: &'static str,
        synthetic: bool,
        (limit, points): (usize, usize),
        total: usize,
    ) -> Result<(Vec<Point>, Vec<Entry>), StoreError> {
        debug_assert!(METRICS.iter().any(|m| m.column == figure));
        let sqlite = self.db.is_sqlite();
        let inner = points_of(figure, points);
        let value = real_as_json(&format!("t.{figure}"), sqlite);
        let points = if sqlite {
            format!(
                "SELECT json_group_array(json_array(t.id, t.flag, t.headline, {value}) \
                 ORDER BY {NEWEST}) FROM ({inner}) t"
            )
        } else {
            format!(
                "SELECT CAST(COALESCE(json_agg(json_build_array(t.id, t.flag, t.headline, \
                 {value}) ORDER BY {NEWEST}), '[]') AS TEXT) FROM ({inner}) t"
            )
        };
        // Which, from the index alone (migration 0013); then only those rows.
        let entries = SQL.entries_as_json(
            &format!(
                "SELECT {} FROM entries WHERE id IN (SELECT id FROM entries WHERE {OF_CLASS} \
                 ORDER BY {NEWEST} LIMIT {limit})",
                SQL.entry_select("")
            ),
            NEWEST,
            sqlite,
        );
        let all = total <= limit;
        let sql = match all {
            true => format!("SELECT '[]', ({entries})"),
            false => format!("SELECT ({points}), ({entries})"),
        };
        let row = self
            .reader
            .read(|pool| Box::pin(of_class(&sql, key, class, synthetic).fetch_one(pool)))
            .await
            .map_err(|e| self.db.fail(e))?;
        let read = || -> Result<_, sqlx::Error> {
            let entries = SQL.entries_from_json(&row.try_get::<String, _>(1)?)?;
            let points = match all {
                true => entries
                    .iter()
                    .map(|e| Point {
                        id: e.id.clone(),
                        flag: e.flag.clone(),
                        headline: e.headline.clone(),
                        value: e.figures.get(figure).copied(),
                    })
                    .collect(),
                false => points_from_json(&row.try_get::<String, _>(0)?)?,
            };
            Ok((points, entries))
        };
        read().map_err(|e| self.db.fail(e))
    }

    /// The newest ranked result of each of the `limit` submitters who sent one of the device's
    /// newest results of a class, its document as sent: what a comparison takes the device's
    /// run-to-run spread from, each submitter once (as its medians weigh them), so that one
    /// address's many results cannot widen or narrow it. A result whose sender the site could
    /// not tell counts as a submitter of its own.
    pub async fn device_documents(
        &self,
        key: &str,
        class: &str,
        synthetic: bool,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        let limit = limit.clamp(1, 100) as usize;
        // Which: enough of the newest rows' ids and senders, from the entries alone, that
        // `limit` submitters are among them unless a few sent most; then only those documents
        // (a document is up to 64 KB: reading all of those rows whole cost up to 200 of them).
        let sql = format!(
            "SELECT id, submitter FROM entries WHERE {OF_CLASS} AND flag IS NULL \
             ORDER BY {NEWEST} LIMIT {}",
            limit * 10
        );
        let rows = self
            .reader
            .read(|pool| Box::pin(of_class(&sql, key, class, synthetic).fetch_all(pool)))
            .await
            .map_err(|e| self.db.fail(e))?;
        let mut seen = std::collections::HashSet::new();
        let mut ids: Vec<String> = Vec::new();
        for row in &rows {
            let who: Option<String> = row.try_get(1).map_err(|e| self.db.fail(e))?;
            if who.is_some_and(|who| !seen.insert(who)) {
                continue;
            }
            ids.push(row.try_get(0).map_err(|e| self.db.fail(e))?);
            if ids.len() == limit {
                break;
            }
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT document FROM results WHERE id IN ({})",
            marks.join(", ")
        );
        let rows = self
            .reader
            .read(|pool| {
                let query = ids
                    .iter()
                    .fold(sqlx::query(&sql), |query, id| query.bind(id.as_str()));
                Box::pin(query.fetch_all(pool))
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|row| row.try_get::<String, _>(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.db.fail(e))
    }
}

/// A device's results of one class, as seen by the viewer: `$1` its key, `$2` the class, `$3`
/// 1 where synthetic results are shown.
const OF_CLASS: &str = "device_key = $1 AND class = $2 AND synthetic <= $3";

/// `sql`, which reads [`OF_CLASS`], with its three parameters bound.
fn of_class<'q>(
    sql: &'q str,
    key: &'q str,
    class: &'q str,
    synthetic: bool,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    sqlx::query(sql)
        .bind(key)
        .bind(class)
        .bind(synthetic as i64)
}

/// The statement that reads a class's newest `points` results with `figure`, from the index
/// of migration 0013 alone.
fn points_of(figure: &str, points: usize) -> String {
    format!(
        "SELECT id, flag, headline, {figure}, started_at FROM entries WHERE {OF_CLASS} \
         ORDER BY {NEWEST} LIMIT {points}"
    )
}

/// The points of [`Site::device_results`]'s first text: `[id, flag, headline, value]` each.
fn points_from_json(text: &str) -> Result<Vec<Point>, sqlx::Error> {
    use serde_json::Value;
    let bad = |what: String| sqlx::Error::Decode(what.into());
    let rows: Vec<[Value; 4]> =
        serde_json::from_str(text).map_err(|e| bad(format!("a device's points as JSON: {e}")))?;
    rows.into_iter()
        .map(|[id, flag, headline, value]| {
            Ok(Point {
                id: id
                    .as_str()
                    .ok_or_else(|| bad("a point without its id".into()))?
                    .to_string(),
                flag: flag.as_str().map(Reason::from_stored),
                headline: headline.as_str().map(str::to_string),
                value: real_of_json(&value),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class's newest results come by their start (not their ids), its points are every
    /// result with its exact figure and flag, and a class small enough to be read whole gives
    /// the same points as one read apart.
    #[test]
    fn a_device_page_reads_its_newest_and_every_point() {
        crate::on_a_server_store(None, async |store| {
            let mut doc = iomark_result::result::sample::ssd_doc();
            // Ids run against time: the first saved is the newest.
            for n in 0..62u32 {
                doc.id = format!("01JPAGE{n:019}");
                doc.started_at = format!("2026-01-01T00:{:02}:00Z", 61 - n);
                doc.tests[0].mb_per_s = 1000.0 + f64::from(n) / 3.0;
                doc.tests[0].iops = doc.tests[0].mb_per_s * 1e6 / (1 << 20) as f64;
                store.history().save(&doc).await.unwrap();
            }
            let run = async |sql: &str| {
                sqlx::query(sql).execute(&store.db.pool).await.unwrap();
            };
            run("UPDATE entries SET flag = 'too fast' WHERE id LIKE '%3'").await;
            run("UPDATE entries SET class = 'pi/direct/random' WHERE id LIKE '%60' OR id LIKE '%61'")
                .await;
            let row = sqlx::query("SELECT class, device_key FROM entries WHERE id = $1")
                .bind("01JPAGE0000000000000000000")
                .fetch_one(&store.db.pool)
                .await
                .unwrap();
            let (class, key): (String, String) = (row.get(0), row.get(1));
            let classes = store.site().device_classes(&key, false).await.unwrap();
            assert_eq!(
                classes,
                [(class.clone(), 60), ("pi/direct/random".into(), 2)]
            );
            assert!(store
                .site()
                .device_classes("nobody", false)
                .await
                .unwrap()
                .is_empty());

            let figure = "seq1m_q8_read";
            let (points, entries) = store
                .site()
                .device_results(&key, &class, figure, false, (50, 5000), 60)
                .await
                .unwrap();
            let ids = |n: std::ops::Range<u32>| -> Vec<String> {
                n.map(|n| format!("01JPAGE{n:019}")).collect()
            };
            let listed: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
            assert_eq!(listed, ids(0..50));
            assert_eq!(
                points.iter().map(|p| p.id.clone()).collect::<Vec<_>>(),
                ids(0..60)
            );
            for (n, p) in points.iter().enumerate() {
                assert_eq!(p.value, Some(1000.0 + n as f64 / 3.0), "{p:?}");
                assert_eq!(p.flag.is_some(), n % 10 == 3, "{p:?}");
            }
            for (p, e) in points.iter().zip(&entries) {
                assert_eq!(
                    (p.value, &p.flag),
                    (e.figures.get(figure).copied(), &e.flag)
                );
            }
            let (whole, all) = store
                .site()
                .device_results(&key, &class, figure, false, (60, 5000), 60)
                .await
                .unwrap();
            assert_eq!((whole, all.len()), (points, 60));
        })
    }

    /// The points by any figure of `METRICS`, and which results are the newest, are read from
    /// an index alone, not from each result's row: a figure added to `METRICS` belongs in
    /// migration 0013's index too.
    #[test]
    fn a_device_page_reads_its_points_from_an_index_alone() {
        crate::on_a_server_store(None, async |store| {
            let plan = async |sql: String| -> String {
                sqlx::query(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .bind("key")
                    .bind("class")
                    .bind(0i64)
                    .fetch_all(&store.db.pool)
                    .await
                    .unwrap()
                    .iter()
                    .map(|row| row.get::<String, _>("detail"))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let newest =
                format!("SELECT id FROM entries WHERE {OF_CLASS} ORDER BY {NEWEST} LIMIT 50");
            for sql in METRICS
                .iter()
                .map(|m| points_of(m.column, 5000))
                .chain([newest])
            {
                let plan = plan(sql.clone()).await;
                assert!(
                    plan.contains("USING COVERING INDEX entries_device_points")
                        && !plan.contains("TEMP B-TREE"),
                    "{sql}: {plan}"
                );
            }
        })
    }
}
