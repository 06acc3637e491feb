//! Aggregates refreshed in the background. A submission refreshes its device's aggregates in
//! its own transaction, re-reading the device's results: a cost that grows with them. On a
//! server ([`Store::refreshing_inline_up_to`]), a device with more ranked results than that is
//! only marked stale in the submission's transaction (`stale`, one row per scope), and
//! [`Store::refresh_stale`], which the server runs every second, refreshes each marked device
//! once however many submissions marked it. Nothing is lost with the process: the marks are
//! in the store, and the next server refreshes them.

use std::collections::BTreeMap;

use sqlx::{Any, Row, Transaction};

use super::{Begin, Store, StoreError};

/// A device with more ranked results than this is refreshed in the background by default.
pub const INLINE: i64 = 1000;
/// The most marks one pass takes.
const PASS: i64 = 1000;

impl Store {
    /// Devices with more ranked results than `most` are refreshed by [`Store::refresh_stale`]
    /// rather than in each submission (a server's store; a terminal's refreshes every one).
    pub fn refreshing_inline_up_to(mut self, most: i64) -> Store {
        self.inline_up_to = Some(most);
        self
    }

    /// Whether the submission of a result of `key` in `class` leaves its refresh to the
    /// background: its aggregate over all results counts more than the inline limit.
    pub(super) async fn defers(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
    ) -> Result<bool, sqlx::Error> {
        let Some(most) = self.inline_up_to else {
            return Ok(false);
        };
        let results: Option<i64> = sqlx::query(
            "SELECT results FROM devices WHERE class = $1 AND scope = '' AND device_key = $2",
        )
        .bind(class)
        .bind(key)
        .fetch_optional(&mut **tx)
        .await?
        .map(|row| row.try_get(0))
        .transpose()?;
        Ok(results.is_some_and(|n| n >= most))
    }

    /// Marks a device's aggregates in `scopes` for the background refresh.
    pub(super) async fn mark_stale(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
        scopes: &[String],
    ) -> Result<(), sqlx::Error> {
        let mark = "INSERT INTO stale (class, device_key, scope) VALUES ($1, $2, $3) \
                    ON CONFLICT DO NOTHING";
        each_scope(tx, mark, class, key, scopes).await
    }

    /// Removes a device's marks in `scopes`.
    async fn unmark(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
        scopes: &[String],
    ) -> Result<(), sqlx::Error> {
        let unmark = "DELETE FROM stale WHERE class = $1 AND device_key = $2 AND scope = $3";
        each_scope(tx, unmark, class, key, scopes).await
    }

    /// Refreshes the devices marked stale, each in a transaction of its own that removes its
    /// marks: how many devices were refreshed.
    pub async fn refresh_stale(&self) -> Result<usize, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT class, device_key, scope FROM stale ORDER BY class, device_key LIMIT {PASS}"
        ))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.fail(e))?;
        let mut devices: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for row in &rows {
            let (class, key, scope): (String, String, String) = (
                row.try_get(0).map_err(|e| self.fail(e))?,
                row.try_get(1).map_err(|e| self.fail(e))?,
                row.try_get(2).map_err(|e| self.fail(e))?,
            );
            devices.entry((class, key)).or_default().push(scope);
        }
        let refreshed = devices.len();
        for ((class, key), scopes) in devices {
            if self.is_sqlite() {
                self.refresh_outside_the_lock(&class, &key, &scopes)
                    .await
                    .map_err(|e| self.fail(e))?;
                continue;
            }
            self.write(Begin::Immediate, async |tx| {
                // A mark made after this read is not removed here: its device is refreshed
                // again at the next pass (on SQLite the write lock orders the two; on
                // PostgreSQL a mark committed before this delete is seen by the refresh's read).
                self.unmark(tx, &class, &key, &scopes).await?;
                self.refresh_device(tx, &class, &key, &scopes).await
            })
            .await
            .map_err(|e| self.fail(e))?;
        }
        Ok(refreshed)
    }

    /// SQLite's refresh of one marked device, its results read outside the write lock (which
    /// every submission waits for): the marks removed, the results read, the aggregates
    /// written, each in a moment of its own. If the device's results changed between the
    /// read and the write (a result added or hidden meanwhile), nothing is written and the
    /// marks are put back for the next pass.
    async fn refresh_outside_the_lock(
        &self,
        class: &str,
        key: &str,
        scopes: &[String],
    ) -> Result<(), sqlx::Error> {
        self.write(Begin::Immediate, async |tx| {
            self.unmark(tx, class, key, scopes).await
        })
        .await?;
        let before = self.fingerprint(&self.pool, class, key).await?;
        let entries = self.ranked_entries(&self.pool, class, key).await?;
        self.write(Begin::Immediate, async |tx| {
            if self.fingerprint(&mut **tx, class, key).await? != before {
                return self.mark_stale(tx, class, key, scopes).await;
            }
            self.write_scopes(tx, class, key, scopes, &entries).await
        })
        .await
    }

    /// What changes when a device's results do: how many rows it has and its newest id (read
    /// from the index on device, class and id alone; a flag changes only when every device is
    /// derived anew).
    async fn fingerprint<'e>(
        &self,
        on: impl sqlx::Executor<'e, Database = Any>,
        class: &str,
        key: &str,
    ) -> Result<(i64, Option<String>), sqlx::Error> {
        let row = sqlx::query(
            "SELECT COUNT(*), MAX(id) FROM entries WHERE device_key = $1 AND class = $2",
        )
        .bind(key)
        .bind(class)
        .fetch_one(on)
        .await?;
        Ok((row.try_get(0)?, row.try_get(1)?))
    }
}

/// `statement` run for each of a device's `scopes` ($1 class, $2 device, $3 scope).
async fn each_scope(
    tx: &mut Transaction<'_, Any>,
    statement: &str,
    class: &str,
    key: &str,
    scopes: &[String],
) -> Result<(), sqlx::Error> {
    for scope in scopes {
        sqlx::query(statement)
            .bind(class)
            .bind(key)
            .bind(scope)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the limit a submission marks its device instead of refreshing it, and one pass
    /// refreshes it with every result since; under it, each refreshes its own.
    #[test]
    fn a_busy_device_waits_for_the_pass_and_a_quiet_one_does_not() {
        super::super::on_a_server_store(Some(2), async |store| {
            let doc = |n: u32| {
                let mut doc = crate::result::sample::doc();
                doc.id = format!("01JSTALE{n:018}");
                doc.target.device = Some(crate::result::Device {
                    model: Some("Samsung SSD 980 PRO 1TB".into()),
                    vendor: Some("Samsung".into()),
                    transport: Some("nvme".into()),
                    size_bytes: Some(1_000_204_886_016),
                    ..Default::default()
                });
                doc
            };
            let counted = async || -> (i64, i64) {
                let results = sqlx::query("SELECT results FROM devices WHERE scope = ''")
                    .fetch_one(&store.pool)
                    .await
                    .unwrap()
                    .try_get(0)
                    .unwrap();
                let marks = sqlx::query("SELECT COUNT(*) FROM stale")
                    .fetch_one(&store.pool)
                    .await
                    .unwrap()
                    .try_get(0)
                    .unwrap();
                (results, marks)
            };
            for n in 1..=2 {
                store.save_submitted(&doc(n), "t").await.unwrap();
            }
            assert_eq!(counted().await, (2, 0), "refreshed in each submission");
            for n in 3..=5 {
                store.save_submitted(&doc(n), "t").await.unwrap();
            }
            let (results, marks) = counted().await;
            assert_eq!(results, 2, "left to the pass");
            assert!(marks > 0);
            assert_eq!(store.refresh_stale().await.unwrap(), 1, "one device");
            assert_eq!(counted().await, (5, 0));
            assert_eq!(store.refresh_stale().await.unwrap(), 0);
        });
    }
}
