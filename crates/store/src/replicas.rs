//! PostgreSQL streaming replicas a server reads from (`iomark serve --read-db`). A site's
//! reads (pages, the API's read-only answers, dumps) go to the replicas in turn; writes, and
//! every read made inside [`on_primary`] (a client that has just written), go to the primary.
//!
//! A replica more than `--read-db-max-lag` behind the primary takes no reads until it has
//! caught up (`lag.rs`). A replica that fails a read is rested and that read is asked of the
//! primary at once. While it rests, a probe in the background tries a connection every
//! [`REST`], and the replica is back in turn when one succeeds: no request waits on a replica
//! that is away (sqlx's pool retries a refused connection until its timeout, which made the
//! first request after each rest wait [`ACQUIRE`]). A result asked for by its id and not (yet)
//! on the replica is looked for on the primary too: a submitter's link works before the
//! replica has replayed the submission.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Connection};

use super::location::Location;
use super::open::Pooling;
use super::{Db, StoreError};

/// How long a replica that failed is left alone.
pub const REST: Duration = Duration::from_secs(5);
/// How long a read waits for one of a replica's connections before asking the primary.
pub const ACQUIRE: Duration = Duration::from_secs(1);

#[derive(Default)]
pub(crate) struct Replicas {
    list: Vec<Replica>,
    next: AtomicUsize,
}

struct Replica {
    pool: AnyPool,
    url: String,
    shown: String,
    /// Resting since: its reads go to the primary until a probe connects.
    resting: std::sync::Arc<Mutex<Option<Instant>>>,
    /// Too far behind the primary to read from (`lag.rs`).
    behind: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

tokio::task_local! {
    static PRIMARY: ();
}

/// Runs `work` with every read of the store on the primary: what a client that has just
/// written reads, so that it sees its own write whatever a replica's lag.
pub async fn on_primary<F: std::future::Future>(work: F) -> F::Output {
    PRIMARY.scope((), work).await
}

fn on_primary_now() -> bool {
    PRIMARY.try_with(|_| ()).is_ok()
}

impl Replicas {
    /// The next replica that is not resting, in turn.
    fn pick(&self) -> Option<&Replica> {
        let n = self.list.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n)
            .map(|i| &self.list[(start + i) % n])
            .find(|r| !r.behind.load(Ordering::Relaxed) && r.awake())
    }
}

impl Replica {
    /// Whether the replica is in turn; when its last probe is [`REST`] old, starts another.
    fn awake(&self) -> bool {
        let mut resting = self.resting.lock().unwrap_or_else(|e| e.into_inner());
        match *resting {
            None => true,
            Some(since) if since.elapsed() < REST => false,
            Some(_) => {
                *resting = Some(Instant::now());
                let (url, shown, flag) =
                    (self.url.clone(), self.shown.clone(), self.resting.clone());
                tokio::spawn(async move {
                    let probe = tokio::time::timeout(ACQUIRE, sqlx::AnyConnection::connect(&url));
                    if let Ok(Ok(connection)) = probe.await {
                        let _ = connection.close().await;
                        *flag.lock().unwrap_or_else(|e| e.into_inner()) = None;
                        tracing::info!(replica = %shown, "the replica answers again; read from it");
                    }
                });
                false
            }
        }
    }

    /// Rests a replica whose connection failed (not one whose query was refused: the primary
    /// is asked that read too, but the replica stays in turn).
    fn failed(&self, error: &sqlx::Error) {
        let connection = match error {
            sqlx::Error::Database(e) => e
                .code()
                .is_some_and(|c| c.starts_with("08") || c.starts_with("57") || c.starts_with("53")),
            _ => true,
        };
        metrics::counter!("iomark_replica_failures_total", "rested" => connection.to_string())
            .increment(1);
        if !connection {
            return;
        }
        let mut resting = self.resting.lock().unwrap_or_else(|e| e.into_inner());
        if resting.is_none() {
            tracing::warn!(
                replica = %self.shown,
                "the replica failed ({error}); its reads go to the primary until it answers \
                 again (tried every {} s)",
                REST.as_secs()
            );
            *resting = Some(Instant::now());
        }
    }
}

impl Replicas {
    /// The replicas a store's reads are spread over: PostgreSQL URLs, of a PostgreSQL
    /// primary. A replica that cannot be reached now is said so and tried again later (the
    /// site serves from the primary meanwhile); one more than `max_lag` behind the primary
    /// takes no reads until it has caught up (zero: whatever its lag).
    pub(crate) async fn connect(
        db: &Db,
        urls: &[Location],
        pooling: Pooling,
        max_lag: Duration,
    ) -> Result<Replicas, StoreError> {
        let mut replicas = Replicas::default();
        if urls.is_empty() {
            return Ok(replicas);
        }
        if db.is_sqlite() {
            return Err(StoreError::Invalid(
                "--read-db: replicas are PostgreSQL's; this store is a SQLite file".into(),
            ));
        }
        for location in urls {
            let Location::Postgres(url) = location else {
                return Err(StoreError::Invalid(format!(
                    "--read-db: {} is not a postgres:// URL",
                    location.display()
                )));
            };
            let shown = location.display();
            let resting = match sqlx::AnyConnection::connect(url).await {
                Ok(connection) => {
                    let _ = connection.close().await;
                    None
                }
                Err(e) => {
                    tracing::warn!(
                        replica = %shown,
                        "the replica does not answer now ({}); its reads go to the primary \
                         until it does",
                        StoreError::from_sqlx(location, e)
                    );
                    Some(Instant::now())
                }
            };
            let pool = AnyPoolOptions::new()
                .max_connections(pooling.connections)
                .acquire_timeout(ACQUIRE)
                .connect_lazy(url)
                .map_err(|e| StoreError::from_sqlx(location, e))?;
            replicas.list.push(Replica {
                pool,
                url: url.clone(),
                shown,
                resting: std::sync::Arc::new(Mutex::new(resting)),
                behind: Default::default(),
            });
        }
        let watched = replicas
            .list
            .iter()
            .map(|r| super::lag::Watched {
                pool: r.pool.clone(),
                shown: r.shown.clone(),
                behind: r.behind.clone(),
            })
            .collect();
        super::lag::watch(db.pool.clone(), watched, max_lag);
        Ok(replicas)
    }

    /// Whether there are any.
    pub(crate) fn any(&self) -> bool {
        !self.list.is_empty()
    }

    pub(crate) async fn close(&self) {
        for replica in &self.list {
            replica.pool.close().await;
        }
    }
}

/// Reads of the store: on a replica in turn where there are any, else on the primary.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    db: &'a Db,
    replicas: &'a Replicas,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(db: &'a Db, replicas: &'a Replicas) -> Reader<'a> {
        Reader { db, replicas }
    }

    /// The primary's connection.
    pub(crate) fn db(&self) -> &'a Db {
        self.db
    }

    /// A read: on a replica in turn unless inside [`on_primary`], on the primary if there is
    /// none awake or it fails. (`query` makes a boxed future, not an async closure: with one,
    /// the compiler could not see the handlers' futures were `Send`.)
    pub(crate) async fn read<T>(
        &self,
        query: impl Fn(&'a AnyPool) -> BoxFuture<'a, Result<T, sqlx::Error>>,
    ) -> Result<T, sqlx::Error> {
        match self.on_replica(&query).await {
            Some(value) => Ok(value),
            None => self.on_the_primary(&query).await,
        }
    }

    /// A read of one thing by its key: as [`Reader::read`], and on the primary as well when a
    /// replica has not got it (yet). The primary is asked once, whichever way it comes to it.
    pub(crate) async fn read_one<T>(
        &self,
        query: impl Fn(&'a AnyPool) -> BoxFuture<'a, Result<Option<T>, sqlx::Error>>,
    ) -> Result<Option<T>, sqlx::Error> {
        match self.on_replica(&query).await {
            Some(Some(found)) => Ok(Some(found)),
            _ => self.on_the_primary(&query).await,
        }
    }

    /// What a replica in turn answers, unless inside [`on_primary`]; none when no replica is
    /// awake or the one asked failed (it is rested).
    async fn on_replica<T>(
        &self,
        query: impl Fn(&'a AnyPool) -> BoxFuture<'a, Result<T, sqlx::Error>>,
    ) -> Option<T> {
        if on_primary_now() {
            return None;
        }
        let replica = self.replicas.pick()?;
        match query(&replica.pool).await {
            Ok(value) => {
                metrics::counter!("iomark_store_reads_total", "on" => "replica").increment(1);
                Some(value)
            }
            Err(e) => {
                replica.failed(&e);
                None
            }
        }
    }

    /// The read on the primary, counted as such where there are replicas.
    async fn on_the_primary<T>(
        &self,
        query: impl Fn(&'a AnyPool) -> BoxFuture<'a, Result<T, sqlx::Error>>,
    ) -> Result<T, sqlx::Error> {
        if self.replicas.any() {
            metrics::counter!("iomark_store_reads_total", "on" => "primary").increment(1);
        }
        query(&self.db.pool).await
    }
}
