//! Opening a store: the pool's shape (a terminal command's one patient connection, a server's
//! few), the schema brought up to date (`migrations/`, embedded), then the derived tables
//! brought up to date (`derive.rs`, by `Store::open_with`).

use std::borrow::Cow;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::Connection;

use super::location::Location;
use super::{Db, Problem, StoreError};

/// How many connections a store keeps and how long a caller waits for one.
#[derive(Clone, Copy, Debug)]
pub struct Pooling {
    pub connections: u32,
    pub acquire_timeout: Duration,
    /// SQLite in write-ahead-log mode, so that readers never wait for a writer: a server's
    /// pooling, which on PostgreSQL also adds the search's trigram index (`search_index`).
    pub wal: bool,
}

impl Pooling {
    /// A terminal command: one connection, patient (another iomark may hold the file).
    pub const COMMAND: Pooling = Pooling {
        connections: 1,
        acquire_timeout: Duration::from_secs(15),
        wal: false,
    };
    /// A server: a few connections, and an answer within seconds when the database is away.
    pub const SERVER: Pooling = Pooling {
        connections: 8,
        acquire_timeout: Duration::from_secs(3),
        wal: true,
    };
}
/// The primary's pool, of the given shape, at `location` (a SQLite file's folder made).
pub(crate) async fn connect(location: Location, pooling: Pooling) -> Result<Db, StoreError> {
    sqlx::any::install_default_drivers();
    let url = location.url().map_err(StoreError::Invalid)?;
    let fail = |e: sqlx::Error| StoreError::from_sqlx(&location, e);
    if let Location::Sqlite(path) = &location {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io(&location, e))?;
        }
    }
    let is_sqlite = matches!(location, Location::Sqlite(_));
    if !is_sqlite {
        // One connection first: the pool retries until its timeout and then reports only
        // that it timed out, where this says why (refused, unknown host, bad password).
        let probe = sqlx::AnyConnection::connect(&url).await.map_err(fail)?;
        let _ = probe.close().await;
    }
    let wal = pooling.wal;
    let pool = AnyPoolOptions::new()
        .max_connections(if is_sqlite && !wal {
            1
        } else {
            // Each SQLite connection is a thread of its own, each PostgreSQL one a process:
            // more than twice the cores only adds switching between them (one writer at a
            // time in any case). A PostgreSQL site on 2 cores, 64 clients saturating it
            // (wrk, bench/site-load's pages): p99 68-76 ms with 4 against 78-83 with 8 in
            // three runs each; 101-103 with 16 against 69-75 with 8 in two.
            pooling
                .connections
                .min(std::thread::available_parallelism().map_or(2, |n| n.get() as u32 * 2))
        })
        .acquire_timeout(pooling.acquire_timeout)
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if is_sqlite {
                    // Wait for another iomark's write instead of failing at once.
                    sqlx::query("PRAGMA busy_timeout = 15000")
                        .execute(&mut *conn)
                        .await?;
                    if !wal {
                        // A commit in the rollback journal's mode is the journal's deletion;
                        // FULL syncs the file but not its folder, so after a power cut the
                        // journal came back and SQLite rolled the saved run back (every time,
                        // tests/it/power_cuts.rs). EXTRA syncs the folder too.
                        // A file that is no database fails this too: its error is left to
                        // the first query, which says so plainly (damaged, and what to do).
                        let _ = sqlx::query("PRAGMA synchronous = EXTRA")
                            .execute(&mut *conn)
                            .await;
                    }
                    if wal {
                        // Readers never wait for the writer. FULL syncs the log at each
                        // commit, so that by SQLite's documentation a submission answered
                        // 201 outlives a power cut too, not only a crash of the process
                        // (NORMAL's promise). Its cost on
                        // this project's VM, 32 clients submitting to a store of 20,000
                        // results: 156 and 192 a second against NORMAL's 214.
                        sqlx::query("PRAGMA journal_mode = WAL")
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query("PRAGMA synchronous = FULL")
                            .execute(&mut *conn)
                            .await?;
                        // Pages read through a shared mapping rather than copied into each
                        // connection's own small cache: a server's connections all read the
                        // same hot tables.
                        sqlx::query("PRAGMA mmap_size = 1073741824")
                            .execute(&mut *conn)
                            .await?;
                        // A statement in a transaction that may fail halfway (a submission's
                        // inserts and upsert in its batch's, `committer.rs`) keeps each
                        // page's first image in a statement journal, by default a file under
                        // /var/tmp written and thrown away: twice the writes the log itself
                        // took while each submission was a savepoint (strace of a server
                        // taking submissions). In memory: at most the pages one statement
                        // changes.
                        sqlx::query("PRAGMA temp_store = MEMORY")
                            .execute(&mut *conn)
                            .await?;
                    }
                }
                Ok(())
            })
        })
        .connect(&url)
        .await
        .map_err(fail)?;
    Ok(Db {
        pool,
        location,
        pooling,
    })
}

/// A server's PostgreSQL store: searches by name of all results read a trigram index
/// (`pg_trgm`, of PostgreSQL's own contrib) instead of every device of a class, each looked
/// up (a search of 100,000 results: 4.9 ms against 0.2 ms, EXPLAIN ANALYZE; SQLite reads
/// the names' own index, migration 0010). Made where the database lets this user add the
/// extension (its owner can: pg_trgm is trusted); else searches work as before, and the
/// server says why at start. The index holds the rows of all results only (`scope = ''`),
/// a device once a class; one of every row, as made before, is dropped. New entries go
/// straight into it (`fastupdate = off`, one row a submission): in GIN's default pending
/// list, which every search reads whole until a vacuum, 65 pages had gathered on a store of
/// 20,000 results, and tripled what a search read.
pub(crate) async fn search_index(db: &Db) {
    if db.is_sqlite() {
        return;
    }
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS pg_trgm",
        "CREATE INDEX IF NOT EXISTS devices_names_trgm_all ON devices \
             USING gin (names gin_trgm_ops) WITH (fastupdate = off) WHERE scope = ''",
    ] {
        if let Err(e) = sqlx::query(sql).execute(&db.pool).await {
            tracing::warn!(
                "searches by name read every device of a class (`{sql}` failed: {e}); \
                     a database owner can run it"
            );
            return;
        }
    }
    let sql = "DROP INDEX IF EXISTS devices_names_trgm";
    if let Err(e) = sqlx::query(sql).execute(&db.pool).await {
        tracing::warn!("an unused index stays (`{sql}` failed: {e}); its owner can drop it");
    }
}

pub(crate) async fn migrate(db: &Db) -> Result<(), StoreError> {
    let migrator = migrator();
    let mut attempt = 0;
    loop {
        match migrator.run(&db.pool).await {
            Ok(()) => return Ok(()),
            // Another process created the schema between our look and our write.
            Err(_) if attempt < 3 => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
            }
            Err(sqlx::migrate::MigrateError::Execute(e)) => {
                return Err(StoreError::from_sqlx(&db.location, e))
            }
            Err(e) => {
                return Err(StoreError::Unavailable {
                    location: db.location.display(),
                    problem: Problem::classify_text(&e.to_string()),
                    detail: e.to_string(),
                })
            }
        }
    }
}

/// The migrations, embedded. Each is idempotent, so that two processes creating a new store
/// at the same moment both succeed (the loser retries, see `migrate`).
fn migrator() -> Migrator {
    let steps = [
        (1, "results", include_str!("migrations/0001_results.sql")),
        (2, "site", include_str!("migrations/0002_site.sql")),
        (
            3,
            "site rules",
            include_str!("migrations/0003_site_rules.sql"),
        ),
        (4, "headline", include_str!("migrations/0004_headline.sql")),
        (
            5,
            "moderation",
            include_str!("migrations/0005_moderation.sql"),
        ),
        (6, "names", include_str!("migrations/0006_names.sql")),
        (7, "standing", include_str!("migrations/0007_standing.sql")),
        (8, "stale", include_str!("migrations/0008_stale.sql")),
        (9, "latest", include_str!("migrations/0009_latest.sql")),
        (10, "search", include_str!("migrations/0010_search.sql")),
        (
            11,
            "model real",
            include_str!("migrations/0011_model_real.sql"),
        ),
        (
            12,
            "device newest",
            include_str!("migrations/0012_device_newest.sql"),
        ),
        (
            13,
            "device points",
            include_str!("migrations/0013_device_points.sql"),
        ),
        (
            14,
            "submitters",
            include_str!("migrations/0014_submitters.sql"),
        ),
        (
            15,
            "nvme figures",
            include_str!("migrations/0015_nvme_figures.sql"),
        ),
        (16, "system", include_str!("migrations/0016_system.sql")),
        (17, "classes", include_str!("migrations/0017_classes.sql")),
        (18, "cards", include_str!("migrations/0018_cards.sql")),
        (
            19,
            "tombstones",
            include_str!("migrations/0019_tombstones.sql"),
        ),
        (
            20,
            "buried tests",
            include_str!("migrations/0020_buried_tests.sql"),
        ),
        (
            21,
            "neighbourhoods",
            include_str!("migrations/0021_neighbourhoods.sql"),
        ),
        (
            22,
            "buried figures",
            include_str!("migrations/0022_buried_figures.sql"),
        ),
        (
            23,
            "corroborated",
            include_str!("migrations/0023_corroborated.sql"),
        ),
        (
            24,
            "hidden by device",
            include_str!("migrations/0024_hidden_by_device.sql"),
        ),
        (
            25,
            "buried near",
            include_str!("migrations/0025_buried_near.sql"),
        ),
        (
            26,
            "near band",
            include_str!("migrations/0026_near_band.sql"),
        ),
    ];
    Migrator {
        migrations: Cow::Owned(
            steps
                .into_iter()
                .map(|(version, name, sql)| {
                    Migration::new(
                        version,
                        name.into(),
                        MigrationType::Simple,
                        sql.into(),
                        false,
                    )
                })
                .collect(),
        ),
        ..Migrator::DEFAULT
    }
}
