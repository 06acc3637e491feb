//! The one place that knows SQL: the result history and what a results site keeps beside it,
//! on SQLite or PostgreSQL (sqlx Any).
//!
//! One schema (`migrations/`, embedded, in SQL both SQLite and PostgreSQL accept) serves the
//! local history, a SQLite file under `$XDG_DATA_HOME/iomark/` that needs nothing set up, and a
//! shared server on PostgreSQL (`--db postgres://…`).
//!
//! - `location.rs`: where the store is; `open.rs`: the pool and the migrations;
//! - `history.rs`: the runs, saved whole; `receipts.rs`: what was submitted elsewhere;
//! - `model.rs`: what a site reads (entries, device aggregates); `columns.rs`: their columns
//!   and statements, from the metric list; `derive.rs`: entries and aggregates kept current;
//!   `aggregate.rs`: medians and names; `site.rs`: the site's queries, `device.rs` a device
//!   page's; `replicas.rs`: the PostgreSQL replicas a server reads from, `lag.rs` how far
//!   behind they are;
//!   `committer.rs`: a server's SQLite submissions committed together; `stale.rs`: busy
//!   devices' aggregates refreshed in the background.
//!
//! The API is async, as sqlx is; every write goes through [`Store::write`].
//!
//! What lives where: the one place that knows SQL: result history on SQLite or PostgreSQL (sqlx
//! Any). `location.rs` (where the store is, named without its password), `open.rs` (the pool's
//! shape, at most twice the cores, and the migrations, embedded from `migrations/`; a server on
//! PostgreSQL adds a `pg_trgm` index on the names of the devices' rows of all results where the
//! database lets it), `history.rs` (each run one row: saved, found by an id's beginning or
//! `latest~N`, listed, deleted), `receipts.rs` (what this store's owner submitted elsewhere),
//! `backup.rs` (a SQLite store copied while in use, `VACUUM INTO`, and a copy's integrity check).
//! What a results site keeps beside each document: `model.rs` (an entry, a device's aggregate, a
//! leaderboard's filter), `columns.rs` (their columns and every statement that writes or reads
//! them, built from `result::metric::METRICS`; many entries read as one row of JSON made by each
//! backend's own functions, not row by row through sqlx), `derive.rs` (the facts (`entries`) and
//! per-device aggregates (`devices`, per scope: all, a board, a filesystem, both) refreshed in the
//! transaction that adds or removes a result, over its real unflagged results in the order they
//! arrived; derived anew once when the store was written under older rules, `RULES`),
//! `aggregate.rs` (medians, the name and kind most results give, what two or more agree it is sold
//! as, and every name its results gave it as slugs for the search), `site.rs` (the site's reads:
//! the leaderboard from `devices` alone, searched by the `names` each device's results gave it (on
//! SQLite along their own index; on PostgreSQL a search of all results along a trigram index of
//! their rows, a board's or a filesystem's testing its own rows' names), the newest, the public
//! documents a page at a time for a dump), `device.rs` (a device's page: its aggregates, how many
//! results of each class it has (from an index), and in one statement one figure, flag and headline
//! of each of a class's newest 5,000 results (its distribution, SD verdicts, where a viewer's
//! result stands) beside its newest 50 in full: the points and which are newest from one index
//! alone, which holds every figure (migration 0013)), `review.rs` (what moderators review: flagged
//! and unnamed results, ranked ones beyond Tukey's far-out fences of their model's spread, a new
//! device's first result), `standing.rs` (where one result stands among its model's and its
//! kind-on-board's ranked results, per figure: counts, ties as half, the median; each group's
//! latest 5,000 figures at most, read backwards by id in one query and counted in Rust), `stale.rs`
//! (a busy device's aggregates left to the background: past `--refresh-inline-up-to` ranked results
//! a submission marks its device in table `stale`, in its own transaction, and the server's pass
//! refreshes each marked device once a second, a device at most every 250 µs per result, going on
//! from where the last pass stopped; on SQLite its results are read outside the write lock and the
//! aggregates written only if the device's results did not change meanwhile), `committer.rs` (a
//! server's SQLite submissions written by one task, those that arrive during a commit together in
//! the next transaction, each in a savepoint, each answered once it commits; each alone again if
//! the batch fails), `replicas.rs` (PostgreSQL streaming replicas a server reads from, `--read-db`:
//! `Store::read` sends a read to the next replica awake and asks the primary when it fails, a
//! failed replica rests until a background probe connects; `read_one` looks on the primary for what
//! a replica has not got yet; `on_primary` keeps a request's reads on the primary), `lag.rs` (how
//! far behind the primary each replica is, in time, from the primary's write position noted every
//! second; one further behind than `--read-db-max-lag` takes no reads until it has caught up).
//! Every write goes through `Store::write` (`mod.rs`): one transaction on a connection of its own,
//! closed rather than pooled again if anything fails. It knows nothing of what the figures mean.

mod aggregate;
mod backup;
mod columns;
mod committer;
mod derive;
mod device;
mod error;
mod history;
mod lag;
mod location;
mod model;
mod moderation;
mod open;
pub mod receipts;
mod replicas;
mod review;
mod site;
mod stale;
mod standing;

use sqlx::AnyPool;
use sqlx::{Any, Connection, Transaction};

pub use aggregate::{aggregate, spread};
pub use derive::{constant_time_eq, RULES};
pub use device::Point;
pub use error::{Problem, StoreError};
pub use location::{data_dir, Location};
pub use model::{Deletion, DeviceRow, Entry, Filter, Spread, MAX_ROWS};
pub use moderation::{AuditLine, Moderated};
pub use open::Pooling;
pub use replicas::on_primary;
pub use review::Outlier;
pub use stale::INLINE;
pub use standing::{Among, FigureStanding, Whose, SAMPLE};

pub struct Store {
    /// The primary: every write, and every read when there are no replicas.
    pool: AnyPool,
    location: Location,
    pooling: Pooling,
    /// Devices with more ranked results than this are refreshed in the background
    /// (`stale.rs`); none: every submission refreshes its device.
    inline_up_to: Option<i64>,
    /// What the background passes remember (`stale.rs`).
    passes: std::sync::Mutex<stale::Passes>,
    replicas: replicas::Replicas,
    /// A server's SQLite submissions, committed together (`committer.rs`), once the first came.
    committer: std::sync::Mutex<Option<committer::Queue>>,
}

impl Store {
    /// A store over `pool`, with what only a server turns on left off: no replicas, every
    /// device refreshed in its submission, no committer yet. The one place a `Store` is made.
    fn over(pool: AnyPool, location: Location, pooling: Pooling) -> Store {
        Store {
            pool,
            location,
            pooling,
            inline_up_to: None,
            passes: Default::default(),
            replicas: Default::default(),
            committer: Default::default(),
        }
    }

    /// Runs `work` in one transaction, committed if it succeeds, on a connection of its own
    /// that is closed, never pooled again, if anything fails. Every write goes through here.
    /// After SQLite answered "database or disk is full" on a connection that went back to the
    /// pool, every later write through it was answered 201, held the write lock and vanished
    /// when the process stopped (244 of 274 on a 3 MB tmpfs, issue 22): its transaction was
    /// never committed. The likely cause is that sqlx's count of open transactions no longer
    /// matched SQLite's, so `BEGIN` and `COMMIT` became a savepoint and its release inside it.
    /// Closing the connection rolls back whatever it held.
    pub(crate) async fn write<T>(
        &self,
        begin: Begin,
        work: impl AsyncFnOnce(&mut Transaction<'_, Any>) -> Result<T, sqlx::Error>,
    ) -> Result<T, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        let outcome = async {
            let statement = match begin {
                // SQLite takes its write lock at BEGIN IMMEDIATE: a deferred transaction that
                // read first could not take it later while another process read (SQLITE_BUSY
                // at once, without waiting).
                Begin::Immediate if self.is_sqlite() => "BEGIN IMMEDIATE",
                _ => "BEGIN",
            };
            let mut tx = conn.begin_with(statement).await?;
            let value = work(&mut tx).await?;
            tx.commit().await?;
            Ok(value)
        }
        .await;
        if outcome.is_err() {
            conn.close_on_drop();
        }
        outcome
    }

    pub async fn close(self) {
        self.close_replicas().await;
        self.pool.close().await;
    }

    /// The pool's connections now: open, and of those idle (for a server's metrics).
    pub fn connections(&self) -> (u32, usize) {
        (self.pool.size(), self.pool.num_idle())
    }

    fn is_sqlite(&self) -> bool {
        matches!(self.location, Location::Sqlite(_))
    }

    fn fail(&self, e: sqlx::Error) -> StoreError {
        StoreError::from_sqlx(&self.location, e)
    }
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

/// How a write transaction begins: `Immediate` takes SQLite's write lock at once.
#[derive(Clone, Copy)]
pub(crate) enum Begin {
    Deferred,
    Immediate,
}
