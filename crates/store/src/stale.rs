//! Aggregates refreshed in the background. A submission refreshes its device's aggregates in
//! its own transaction, re-reading the device's results: a cost that grows with them. On a
//! server ([`Store::refreshing_inline_up_to`](super::Store::refreshing_inline_up_to)), a device
//! with more ranked results than that is only marked stale in the submission's transaction
//! (`stale`, one row per scope), and [`Stale::refresh`], which the server runs every second
//! (through [`Derive::refresh_stale`](super::Derive::refresh_stale)), refreshes each marked
//! device once however many submissions marked it, and a device at most every [`PER_RESULT`]
//! times its results (a second at least): re-reading 20,000 results every second took the CPU
//! the submissions needed (`bench/busy-device`), and a median of many results moves slowly.
//! Each pass goes on from the device the last one stopped at, so that devices left for later
//! cannot hold up the others. Nothing is lost with the process: the marks are in the store,
//! and the next server refreshes them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use sqlx::{Any, Row, Transaction};

use super::refresh::Refresh;
use super::{Db, StoreError};

/// A device with more ranked results than this is refreshed in the background by default.
pub const INLINE: i64 = 1000;
/// The most devices one pass takes.
const PASS: i64 = 250;
/// A device is refreshed at most once in this much time per result it has (a second at
/// least): 5 s at 20,000 results.
pub const PER_RESULT: Duration = Duration::from_micros(250);

/// What the passes remember: when each device was last refreshed, and where the last pass
/// stopped.
#[derive(Default)]
pub(crate) struct Passes {
    refreshed: HashMap<(String, String), Instant>,
    after: Option<(String, String)>,
}

/// What a store remembers for the background refresh: the limit past which it is left to
/// it (none: every submission refreshes its device), and the passes.
#[derive(Default)]
pub(crate) struct Derivation {
    inline_up_to: Option<i64>,
    passes: std::sync::Mutex<Passes>,
}

impl Derivation {
    /// Devices with more ranked results than `most` are refreshed in the background.
    pub(crate) fn inline_up_to(most: i64) -> Derivation {
        Derivation {
            inline_up_to: Some(most),
            passes: Default::default(),
        }
    }

    /// The same limit, with passes of its own (a committer's).
    pub(crate) fn same_limit(&self) -> Derivation {
        Derivation {
            inline_up_to: self.inline_up_to,
            passes: Default::default(),
        }
    }
}

/// Devices' aggregates marked stale in submissions and refreshed by the background pass.
#[derive(Clone, Copy)]
pub(crate) struct Stale<'a> {
    db: &'a Db,
    derivation: &'a Derivation,
    refresh: Refresh<'a>,
}

impl<'a> Stale<'a> {
    pub(crate) fn new(db: &'a Db, derivation: &'a Derivation) -> Stale<'a> {
        Stale {
            db,
            derivation,
            refresh: Refresh::new(db),
        }
    }

    /// Whether the submission of a result of `key` in `class` leaves its refresh to the
    /// background: its aggregate over all results counts more than the inline limit.
    pub(crate) async fn defers(
        &self,
        tx: &mut Transaction<'_, Any>,
        class: &str,
        key: &str,
    ) -> Result<bool, sqlx::Error> {
        let Some(most) = self.derivation.inline_up_to else {
            return Ok(false);
        };
        Ok(results_of(&mut **tx, class, key)
            .await?
            .is_some_and(|n| n >= most))
    }

    /// Marks a device's aggregates in `scopes` for the background refresh.
    pub(crate) async fn mark_stale(
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
    /// marks: the keys of the devices refreshed (a key once for each of its classes).
    pub(crate) async fn refresh(&self) -> Result<Vec<String>, StoreError> {
        let fail = |e| self.db.fail(e);
        let after = self.passes().after.clone();
        let rows = match &after {
            None => sqlx::query(&format!(
                "SELECT DISTINCT class, device_key FROM stale ORDER BY class, device_key \
                 LIMIT {PASS}"
            ))
            .fetch_all(&self.db.pool)
            .await
            .map_err(fail)?,
            Some((class, key)) => sqlx::query(&format!(
                "SELECT DISTINCT class, device_key FROM stale WHERE class > $1 \
                 OR (class = $1 AND device_key > $2) ORDER BY class, device_key LIMIT {PASS}"
            ))
            .bind(class)
            .bind(key)
            .fetch_all(&self.db.pool)
            .await
            .map_err(fail)?,
        };
        let mut devices = Vec::with_capacity(rows.len());
        for row in &rows {
            devices.push((
                row.try_get::<String, _>(0).map_err(fail)?,
                row.try_get::<String, _>(1).map_err(fail)?,
            ));
        }
        // Where the next pass goes on from; from the start once this one reached the end.
        self.passes().after = (devices.len() as i64 == PASS)
            .then(|| devices.last().cloned())
            .flatten();
        let mut refreshed = Vec::new();
        for (class, key) in devices {
            if !self.due(&class, &key).await.map_err(fail)? {
                continue;
            }
            let scopes: Vec<String> =
                sqlx::query("SELECT scope FROM stale WHERE class = $1 AND device_key = $2")
                    .bind(&class)
                    .bind(&key)
                    .fetch_all(&self.db.pool)
                    .await
                    .map_err(fail)?
                    .iter()
                    .map(|row| row.try_get(0))
                    .collect::<Result<_, _>>()
                    .map_err(fail)?;
            if self.db.is_sqlite() {
                self.refresh_outside_the_lock(&class, &key, &scopes)
                    .await
                    .map_err(fail)?;
            } else {
                self.db
                    .write(async |tx| {
                        // A mark made after this read is not removed here: its device is refreshed
                        // again at a later pass (a mark committed before this delete is seen by
                        // the refresh's read, which follows it).
                        self.unmark(tx, &class, &key, &scopes).await?;
                        self.refresh.device(tx, &class, &key, &scopes).await
                    })
                    .await
                    .map_err(fail)?;
            }
            self.refreshed(&class, &key);
            refreshed.push(key);
        }
        Ok(refreshed)
    }

    fn passes(&self) -> std::sync::MutexGuard<'_, Passes> {
        self.derivation
            .passes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a device may be refreshed now: never yet by this server, or not within its
    /// interval ([`PER_RESULT`] times its results, a second at least).
    async fn due(&self, class: &str, key: &str) -> Result<bool, sqlx::Error> {
        let Some(last) = self
            .passes()
            .refreshed
            .get(&(class.into(), key.into()))
            .copied()
        else {
            return Ok(true);
        };
        let results = results_of(&self.db.pool, class, key).await?;
        let every = PER_RESULT
            .saturating_mul(results.unwrap_or(0).clamp(0, u32::MAX as i64) as u32)
            .max(Duration::from_secs(1));
        Ok(last.elapsed() >= every)
    }

    fn refreshed(&self, class: &str, key: &str) {
        let mut passes = self.passes();
        if passes.refreshed.len() >= 65_536 {
            passes
                .refreshed
                .retain(|_, at| at.elapsed() < Duration::from_secs(3600));
        }
        passes
            .refreshed
            .insert((class.to_string(), key.to_string()), Instant::now());
    }

    /// SQLite's refresh of one marked device, its results read outside the write lock (which
    /// every submission waits for): the results read, then in one transaction the aggregates
    /// written and the marks removed, unless the device's results changed since the read (a
    /// result added or hidden meanwhile): then nothing is written and the marks stay for the
    /// next pass. The marks were once removed first, in a transaction of their own: a power
    /// cut or a kill between that and the write would have left the aggregate short of the
    /// device's last results with no mark to have it refreshed.
    async fn refresh_outside_the_lock(
        &self,
        class: &str,
        key: &str,
        scopes: &[String],
    ) -> Result<(), sqlx::Error> {
        let read = self.read(class, key).await?;
        self.write_unless_changed(class, key, scopes, read).await
    }

    /// The device's results, with what would show a change.
    async fn read(&self, class: &str, key: &str) -> Result<Read, sqlx::Error> {
        Ok(Read {
            fingerprint: self.fingerprint(&self.db.pool, class, key).await?,
            entries: self
                .refresh
                .ranked_entries(&self.db.pool, class, key)
                .await?,
        })
    }

    /// The last: the aggregates written from `read` and the marks removed, or, if the
    /// device's results changed since, nothing.
    async fn write_unless_changed(
        &self,
        class: &str,
        key: &str,
        scopes: &[String],
        read: Read,
    ) -> Result<(), sqlx::Error> {
        self.db
            .write(async |tx| {
                if self.fingerprint(&mut **tx, class, key).await? != read.fingerprint {
                    return Ok(());
                }
                self.unmark(tx, class, key, scopes).await?;
                self.refresh
                    .write_scopes(tx, class, key, scopes, &read.entries)
                    .await
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

/// A device's results read outside the write lock, and what shows whether they changed since.
struct Read {
    fingerprint: (i64, Option<String>),
    entries: Vec<super::model::Entry>,
}

/// How many ranked results a device's aggregate over all of them counts (none: no aggregate).
async fn results_of<'e>(
    on: impl sqlx::Executor<'e, Database = Any>,
    class: &str,
    key: &str,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query("SELECT results FROM devices WHERE class = $1 AND scope = '' AND device_key = $2")
        .bind(class)
        .bind(key)
        .fetch_optional(on)
        .await?
        .map(|row| row.try_get(0))
        .transpose()
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

    /// A bulk import (`Store::bulk_history`) leaves every device's aggregates for one refresh
    /// at its end (`Store::refresh_bulk`), which counts every result, and leaves no mark.
    #[test]
    fn a_bulk_import_refreshes_each_device_once_at_its_end() {
        crate::on_a_server_store(None, async |store| {
            for n in 1..=40u32 {
                let mut doc = iomark_result::result::sample::ssd_doc();
                doc.id = format!("01JBULK{n:019}");
                store.bulk_history().save(&doc).await.unwrap();
            }
            let count = async |sql: &str| -> i64 {
                sqlx::query(sql)
                    .fetch_one(&store.db.pool)
                    .await
                    .unwrap()
                    .try_get(0)
                    .unwrap()
            };
            let before = count("SELECT results FROM devices WHERE scope = ''").await;
            assert!(before < 40, "refreshed with each result: {before}");
            assert!(count("SELECT COUNT(*) FROM stale").await > 0);
            store.refresh_bulk().await.unwrap();
            assert_eq!(
                count("SELECT results FROM devices WHERE scope = ''").await,
                40
            );
            assert_eq!(count("SELECT COUNT(*) FROM stale").await, 0);
        });
    }

    /// Past the limit a submission marks its device instead of refreshing it, and one pass
    /// refreshes it with every result since; under it, each refreshes its own.
    #[test]
    fn a_busy_device_waits_for_the_pass_and_a_quiet_one_does_not() {
        crate::on_a_server_store(Some(2), async |store| {
            let doc = |n: u32| {
                let mut doc = iomark_result::result::sample::ssd_doc();
                doc.id = format!("01JSTALE{n:018}");
                doc
            };
            let counted = async || -> (i64, i64) {
                let results = sqlx::query("SELECT results FROM devices WHERE scope = ''")
                    .fetch_one(&store.db.pool)
                    .await
                    .unwrap()
                    .try_get(0)
                    .unwrap();
                let marks = sqlx::query("SELECT COUNT(*) FROM stale")
                    .fetch_one(&store.db.pool)
                    .await
                    .unwrap()
                    .try_get(0)
                    .unwrap();
                (results, marks)
            };
            for n in 1..=2 {
                store
                    .submissions()
                    .save(&doc(n), "t", &crate::Sender::default())
                    .await
                    .unwrap();
            }
            assert_eq!(counted().await, (2, 0), "refreshed in each submission");
            for n in 3..=5 {
                store
                    .submissions()
                    .save(&doc(n), "t", &crate::Sender::default())
                    .await
                    .unwrap();
            }
            let (results, marks) = counted().await;
            assert_eq!(results, 2, "left to the pass");
            assert!(marks > 0);
            assert_eq!(
                store.derivation().refresh_stale().await.unwrap().len(),
                1,
                "one device"
            );
            assert_eq!(counted().await, (5, 0));
            assert_eq!(store.derivation().refresh_stale().await.unwrap().len(), 0);
            // Marked again within its interval (a second, at 5 results): left for a later pass.
            store
                .submissions()
                .save(&doc(6), "t", &crate::Sender::default())
                .await
                .unwrap();
            assert_eq!(
                store.derivation().refresh_stale().await.unwrap().len(),
                0,
                "not due yet"
            );
            assert!(counted().await.1 > 0, "the marks stay");
            tokio::time::sleep(Duration::from_millis(1100)).await;
            assert_eq!(store.derivation().refresh_stale().await.unwrap().len(), 1);
            assert_eq!(counted().await, (6, 0));

            // A result saved between the pass's read and its write: nothing written from the
            // stale read, the marks kept, and the next pass counts it.
            store
                .submissions()
                .save(&doc(7), "t", &crate::Sender::default())
                .await
                .unwrap();
            let (class, key) = marked(store).await;
            let scopes: Vec<String> = sqlx::query("SELECT scope FROM stale")
                .fetch_all(&store.db.pool)
                .await
                .unwrap()
                .iter()
                .map(|row| row.try_get(0).unwrap())
                .collect();
            let stale = Stale::new(&store.db, &store.derivation);
            let before = counted().await.1;
            let read = stale.read(&class, &key).await.unwrap();
            assert_eq!(counted().await.1, before, "marked while it reads");
            store
                .submissions()
                .save(&doc(8), "t", &crate::Sender::default())
                .await
                .unwrap();
            let marks = counted().await.1;
            stale
                .write_unless_changed(&class, &key, &scopes, read)
                .await
                .unwrap();
            let (results, after) = counted().await;
            assert_eq!(results, 6, "the read it made is out of date: not written");
            assert!(
                after >= scopes.len() as i64 && after >= marks,
                "still marked"
            );
            tokio::time::sleep(Duration::from_millis(1100)).await;
            assert_eq!(store.derivation().refresh_stale().await.unwrap().len(), 1);
            assert_eq!(counted().await, (8, 0));
        });
    }

    /// The one device marked stale.
    async fn marked(store: &crate::Store) -> (String, String) {
        let row = sqlx::query("SELECT DISTINCT class, device_key FROM stale")
            .fetch_one(&store.db.pool)
            .await
            .unwrap();
        (row.try_get(0).unwrap(), row.try_get(1).unwrap())
    }
}
