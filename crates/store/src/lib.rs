//! The one place that knows SQL: the result history and what a results site keeps beside it,
//! on SQLite or PostgreSQL (sqlx Any).
//!
//! One schema (`migrations/`, embedded, in SQL both SQLite and PostgreSQL accept) serves the
//! local history, a SQLite file under `$XDG_DATA_HOME/iomark/` that needs nothing set up, and a
//! shared server on PostgreSQL (`--db postgres://…`).
//!
//! A [`Store`] is opened once and hands out its parts, each a type of its own file over the
//! connection [`Db`] they share, so that what calls what is spelled in each file (the house
//! test forbids circles between them, and a type's methods anywhere but its own file):
//!
//! ```text
//! Store ─┬─ history()     History      history/ (the runs; receipts; backups)
//!        ├─ submissions() Submissions  committer.rs (a site's saves and deletions)
//!        ├─ site()        Site         site/ (leaderboard, device pages, standing, review)
//!        ├─ moderation()  Moderation   moderation.rs (hide, restore, merge, audit)
//!        ├─ cards()       Cards        cards.rs (shared health checks, a row per card)
//!        └─ derivation()  Derive       derive.rs (facts and aggregates kept current)
//!
//! Submissions → History → Derive → Stale → Refresh → Db      Moderation → Derive
//! Site, History → Reader (replicas.rs) → Db                  Derive, Moderation, Site → moves.rs
//! ```
//!
//! - `location.rs`: where the store is, named without its password; `open.rs`: the pool's
//!   shape and the migrations; `error.rs`: what went wrong, in the reader's words;
//! - `model.rs`: what a site reads (entries, device aggregates); `columns.rs`: their columns
//!   and statements, from the metric list; `aggregate.rs`: medians and names;
//! - `refresh.rs`: a device's aggregates written from its results; `stale.rs`: busy devices
//!   left to a background pass; `moves.rs`: where a merged or renamed device leads;
//! - `sender.rs`: who sent a submission, as keyed hashes (a submitter weighs once in a
//!   device's aggregates); `hold.rs`: what waits for a moderator before it ranks, as a
//!   `Reason` (facts, no words), and what of a hidden device is hidden as it arrives
//!   (`hold/typos.rs`: names a reader skims past as another's);
//!   `tombstones.rs`: what was deleted or hidden, by id and measurement, never taken again;
//! - `replicas.rs`: the PostgreSQL replicas a server reads from, `lag.rs` how far behind they
//!   are.
//!
//! The API is async, as sqlx is; every write goes through [`Db::write`]. It judges figures in
//! one place only, `hold.rs` (what waits for a moderator, decided inside the submission's
//! transaction); everywhere else it keeps and reads them.

mod aggregate;
mod cards;
mod columns;
mod committer;
mod derive;
mod error;
mod history;
mod hold;
mod lag;
mod location;
mod model;
mod moderation;
mod moves;
mod open;
mod refresh;
mod replicas;
mod sender;
mod site;
mod stale;
mod submitted;
mod tombstones;

use sqlx::AnyPool;
use sqlx::{Any, Connection, Row, Transaction};
use std::convert::Infallible;

pub use aggregate::{aggregate, spread};
pub use cards::{CardCheck, CardRow, Cards, PublicCheck, Shared};
pub use committer::Submissions;
pub use derive::{Derive, RULES};
pub use error::{Problem, StoreError};
pub use history::receipts::Receipt;
pub use history::History;
pub use location::{data_dir, Location};
pub use model::{Deletion, DeviceRow, Entry, Filter, Spread, MAX_ROWS};
pub use moderation::{AuditLine, Moderated, Moderation};
pub use open::Pooling;
pub use replicas::on_primary;
pub use sender::{households, network, Sender};
pub use site::device::Point;
pub use site::review::Outlier;
pub use site::standing::{Among, FigureStanding, Whose, SAMPLE};
pub use site::Site;
pub use stale::INLINE;

/// An open store: the connection its parts share, and what a server adds (replicas, the
/// background refresh's memory, the committer). The one place a `Store` is made is
/// [`Store::open_with`].
pub struct Store {
    db: Db,
    replicas: replicas::Replicas,
    derivation: stale::Derivation,
    /// What [`Store::bulk_history`] saves through: every device's aggregates left for
    /// [`Store::refresh_bulk`].
    bulk: stale::Derivation,
    committer: committer::Committer,
    secret: sender::Secret,
}

/// The connection every part of the store shares: the primary's pool and where it is.
#[derive(Clone)]
pub(crate) struct Db {
    /// The primary: every write, and every read when there are no replicas.
    pool: AnyPool,
    location: Location,
    pooling: Pooling,
}

impl Store {
    /// Opens (creating where needed) the store and brings its schema up to date.
    pub async fn open(location: Location) -> Result<Store, StoreError> {
        Store::open_with(location, Pooling::COMMAND).await
    }

    /// [`Store::open`] with a pool of the given shape: the schema brought up to date, then the
    /// derived tables. What only a server turns on is left off: no replicas, every device
    /// refreshed in its submission, no committer yet.
    pub async fn open_with(location: Location, pooling: Pooling) -> Result<Store, StoreError> {
        let db = open::connect(location, pooling).await?;
        let store = Store {
            db,
            replicas: Default::default(),
            derivation: Default::default(),
            bulk: stale::Derivation::inline_up_to(0),
            committer: Default::default(),
            secret: Default::default(),
        };
        open::migrate(&store.db).await?;
        store.derivation().backfill().await?;
        store.derivation().rederive().await?;
        if pooling.wal {
            open::search_index(&store.db).await;
        }
        Ok(store)
    }

    /// Adds the replicas the store's reads are spread over: PostgreSQL URLs, of a PostgreSQL
    /// primary (`replicas.rs`).
    pub async fn with_replicas(
        mut self,
        urls: &[Location],
        pooling: Pooling,
        max_lag: std::time::Duration,
    ) -> Result<Store, StoreError> {
        self.replicas = replicas::Replicas::connect(&self.db, urls, pooling, max_lag).await?;
        Ok(self)
    }

    /// Devices with more ranked results than `most` are refreshed by
    /// [`Derive::refresh_stale`] rather than in each submission (a server's store; a
    /// terminal's refreshes every one).
    pub fn refreshing_inline_up_to(mut self, most: i64) -> Store {
        self.derivation = stale::Derivation::inline_up_to(most);
        self
    }

    /// The result history: runs saved, found, listed, deleted; receipts; backups.
    pub fn history(&self) -> History<'_> {
        History::new(&self.db, self.reader(), self.derivation())
    }

    /// The result history for saving many runs at once (`iomark import`): a saved run marks
    /// its device's aggregates stale instead of re-reading every result of the device, so that
    /// 100,000 runs of one device are not 100,000 reads of a growing device (import was
    /// quadratic, issue 59); [`Store::refresh_bulk`] then refreshes each device once.
    pub fn bulk_history(&self) -> History<'_> {
        History::new(&self.db, self.reader(), Derive::new(&self.db, &self.bulk))
    }

    /// Refreshes every device left stale, each once: what [`Store::bulk_history`] saved.
    pub async fn refresh_bulk(&self) -> Result<(), StoreError> {
        while !Derive::new(&self.db, &self.bulk)
            .refresh_stale()
            .await?
            .is_empty()
        {}
        Ok(())
    }

    /// What a results site saves and deletes for its submitters.
    pub fn submissions(&self) -> Submissions<'_> {
        Submissions::new(
            self.history(),
            self.derivation(),
            &self.committer,
            &self.derivation,
            &self.secret,
        )
    }

    /// What a results site reads: leaderboards, device pages, standings, what to review.
    pub fn site(&self) -> Site<'_> {
        Site::new(self.reader())
    }

    /// What moderators do: hide, restore, merge, and the audit of it.
    pub fn moderation(&self) -> Moderation<'_> {
        Moderation::new(&self.db, self.derivation())
    }

    /// The cards whose owners share their health checks, and what a device page says of them.
    pub fn cards(&self) -> Cards<'_> {
        Cards::new(&self.db, self.reader(), &self.secret)
    }

    /// The facts and aggregates derived from each document, kept current.
    pub fn derivation(&self) -> Derive<'_> {
        Derive::new(&self.db, &self.derivation)
    }

    fn reader(&self) -> replicas::Reader<'_> {
        replicas::Reader::new(&self.db, &self.replicas)
    }

    /// Whether reads may go elsewhere than the primary.
    pub fn has_replicas(&self) -> bool {
        self.replicas.any()
    }

    pub async fn close(self) {
        self.replicas.close().await;
        self.db.pool.close().await;
    }

    /// The pool's connections now: open, and of those idle (for a server's metrics).
    pub fn connections(&self) -> (u32, usize) {
        (self.db.pool.size(), self.db.pool.num_idle())
    }
}

impl Db {
    /// Runs `work` in one transaction, committed if it succeeds, on a connection of its own
    /// that is closed, never pooled again, if anything fails. Every write goes through here.
    /// After SQLite answered "database or disk is full" on a connection that went back to the
    /// pool, every later write through it was answered 201, held the write lock and vanished
    /// when the process stopped (244 of 274 on a 3 MB tmpfs, issue 22): its transaction was
    /// never committed. The likely cause is that sqlx's count of open transactions no longer
    /// matched SQLite's, so `BEGIN` and `COMMIT` became a savepoint and its release inside it.
    /// Closing the connection rolls back whatever it held.
    ///
    /// Every write begins as SQLite's `BEGIN IMMEDIATE`, taking its write lock at once (and
    /// waiting for it as long as the store's busy timeout): a deferred transaction that read
    /// first could not take it later while another wrote (SQLITE_BUSY at once, without
    /// waiting). Some writes began deferred; under 4 clients submitting and deleting in a
    /// loop, deletions were answered 503 "busy" (issue 59).
    pub(crate) async fn write<T>(
        &self,
        work: impl AsyncFnOnce(&mut Transaction<'_, Any>) -> Result<T, sqlx::Error>,
    ) -> Result<T, sqlx::Error> {
        let done = self
            .write_or_refuse(async move |tx| work(tx).await.map(Ok::<T, Infallible>))
            .await?;
        match done {
            Ok(value) => Ok(value),
            Err(never) => match never {},
        }
    }

    /// Runs `work` as [`Db::write`] does, and rolls back whatever it wrote when it refuses
    /// (answers `Ok(Err(..))`): a refusal leaves the store as it was. A card's share refused at
    /// its third check kept the two before it (the eleventh attack pass).
    pub(crate) async fn write_or_refuse<T, E>(
        &self,
        work: impl AsyncFnOnce(&mut Transaction<'_, Any>) -> Result<Result<T, E>, sqlx::Error>,
    ) -> Result<Result<T, E>, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        let outcome = async {
            let statement = match self.is_sqlite() {
                true => "BEGIN IMMEDIATE",
                false => "BEGIN",
            };
            let mut tx = conn.begin_with(statement).await?;
            let value = work(&mut tx).await?;
            match value.is_ok() {
                true => tx.commit().await?,
                false => tx.rollback().await?,
            }
            Ok(value)
        }
        .await;
        if outcome.is_err() {
            conn.close_on_drop();
        }
        outcome
    }

    fn is_sqlite(&self) -> bool {
        matches!(self.location, Location::Sqlite(_))
    }

    /// The value kept in `meta` under `name`, made of `made()` the first time (a secret, a
    /// key): two processes asking at once both get the first one written.
    pub(crate) async fn kept(
        &self,
        name: &str,
        made: impl FnOnce() -> std::io::Result<String>,
    ) -> Result<String, StoreError> {
        let made = made().map_err(|e| StoreError::Unavailable {
            location: self.location.display(),
            problem: Problem::Other,
            detail: format!("cannot make the store's {name}: {e}"),
        })?;
        self.write(async |tx| {
            sqlx::query(
                "INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            )
            .bind(name)
            .bind(&made)
            .execute(&mut **tx)
            .await?;
            sqlx::query("SELECT value FROM meta WHERE name = $1")
                .bind(name)
                .fetch_one(&mut **tx)
                .await?
                .try_get::<String, _>(0)
        })
        .await
        .map_err(|e| self.fail(e))
    }

    fn fail(&self, e: sqlx::Error) -> StoreError {
        StoreError::from_sqlx(&self.location, e)
    }
}

/// Now, to the millisecond, as the store writes times.
pub(crate) fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// Equal bytes, compared in time that depends only on the length (a deletion token's hash
/// against the one stored).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A server's SQLite store in a new folder (refreshing devices inline up to `inline_up_to`
/// results, where given), and `test` run on it on one thread: a task it spawns runs only while
/// the test awaits.
#[cfg(test)]
pub(crate) fn on_a_server_store<T>(
    inline_up_to: Option<i64>,
    test: impl AsyncFnOnce(&Store) -> T,
) -> T {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::Sqlite(dir.path().join("site.db"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut store = Store::open_with(location, Pooling::SERVER).await.unwrap();
        if let Some(most) = inline_up_to {
            store = store.refreshing_inline_up_to(most);
        }
        test(&store).await
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn equal_bytes_in_constant_time() {
        assert!(super::constant_time_eq(b"abc", b"abc"));
        assert!(!super::constant_time_eq(b"abc", b"abd"));
        assert!(!super::constant_time_eq(b"abc", b"ab"));
    }
}
