//! The result history: the one place that knows SQL.
//!
//! One schema (`migrations/`, embedded, in SQL both SQLite and PostgreSQL accept) serves the
//! local history, a SQLite file under `$XDG_DATA_HOME/iomark/` that needs nothing set up, and a
//! shared server on PostgreSQL (`--db postgres://…`). Each run is one row: the whole result
//! document as saved, plus indexed copies of the fields people filter and sort by.
//!
//! The API is async, as sqlx is (and as a long-lived server will want it); the terminal
//! commands drive it with [`block_on`].

pub mod aggregate;
mod error;
pub mod receipts;
pub mod site;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::AnyPool;
use sqlx::Row;
use sqlx::{Any, Connection, Transaction};

use crate::result::{self, ResultDoc};

pub use error::{Problem, StoreError};

/// Where the store lives: a SQLite file or a PostgreSQL URL.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// From `--db` (or `IOMARK_DB`): a `postgres://` or `postgresql://` URL, a `sqlite:` URL, or
    /// a file path (made absolute, so that a `:` in it is never read as a host and port); none
    /// means the default local file. An empty value, or a URL of another kind, is refused: it
    /// would otherwise be taken as a file name and keep results where nobody looks.
    pub fn parse(db: Option<&str>) -> Result<Location, StoreError> {
        let Some(db) = db else {
            return Ok(Location::Sqlite(default_path()?));
        };
        if db.starts_with("postgres://") || db.starts_with("postgresql://") {
            return Ok(Location::Postgres(db.to_string()));
        }
        let path = match db
            .strip_prefix("sqlite://")
            .or_else(|| db.strip_prefix("sqlite:"))
        {
            Some(path) => path,
            None => {
                if let Some((scheme, _)) = db.split_once("://") {
                    return Err(StoreError::Invalid(format!(
                        "--db: '{scheme}://' is not a store iomark can use: give a SQLite file \
                         path, or a postgres:// URL"
                    )));
                }
                db
            }
        };
        if path.trim().is_empty() {
            return Err(StoreError::Invalid(
                "--db: the store is empty (an empty IOMARK_DB counts): give a SQLite file path, \
                 or a postgres:// URL, or leave it unset for the default"
                    .into(),
            ));
        }
        let path = std::path::absolute(path).map_err(|e| {
            StoreError::Invalid(format!("--db: cannot make {path} an absolute path: {e}"))
        })?;
        Ok(Location::Sqlite(path))
    }

    /// For messages: the file, or the server without its password.
    pub fn display(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => redact(url),
        }
    }

    fn url(&self) -> Result<String, StoreError> {
        match self {
            Location::Postgres(url) => Ok(url.clone()),
            Location::Sqlite(path) => {
                let text = path.to_str().ok_or_else(|| {
                    StoreError::Invalid(format!(
                        "{}: the store's path must be valid UTF-8",
                        path.display()
                    ))
                })?;
                // The driver reads a URL: escape what would end the path.
                let escaped = text
                    .replace('%', "%25")
                    .replace('?', "%3F")
                    .replace('#', "%23");
                Ok(format!("sqlite://{escaped}?mode=rwc"))
            }
        }
    }
}

/// `$XDG_DATA_HOME/iomark/results.db`, else `~/.local/share/iomark/results.db`.
pub fn default_path() -> Result<PathBuf, StoreError> {
    data_dir().map(|dir| dir.join("results.db"))
}

/// iomark's folder under `$XDG_DATA_HOME` (else `~/.local/share`).
pub fn data_dir() -> Result<PathBuf, StoreError> {
    crate::dirs::xdg("XDG_DATA_HOME", ".local/share")
        .map_err(|e| StoreError::Invalid(format!("{e}: give --db PATH")))
}

pub use crate::result::Summary;

/// The fewest characters of an id shown: ten of a ULID's 26 are its time to the millisecond
/// and two random characters, so two runs rarely share them.
pub const SHORT_ID: usize = 10;

pub struct Store {
    pool: AnyPool,
    location: Location,
}

/// The schema, version by version. Each is idempotent (`IF NOT EXISTS`), so that two processes
/// creating a new store at the same moment both succeed (the loser retries, see `migrate`).
fn migrator() -> Migrator {
    let steps = [
        (1, "results", include_str!("migrations/0001_results.sql")),
        (2, "site", include_str!("migrations/0002_site.sql")),
        (
            3,
            "site rules",
            include_str!("migrations/0003_site_rules.sql"),
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

const COLUMNS: &str =
    "id, started_at, label, profile, device_model, device_transport, filesystem, \
     seq_read_mb_per_s, seq_write_mb_per_s, rnd_read_iops, rnd_write_iops, score_total";

/// How many connections a store keeps and how long a caller waits for one.
#[derive(Clone, Copy, Debug)]
pub struct Pooling {
    pub connections: u32,
    pub acquire_timeout: Duration,
    /// SQLite in write-ahead-log mode, so that readers never wait for a writer (a server).
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

impl Store {
    /// Opens (creating where needed) the store and brings its schema up to date.
    pub async fn open(location: Location) -> Result<Store, StoreError> {
        Store::open_with(location, Pooling::COMMAND).await
    }

    /// [`Store::open`] with a pool of the given shape.
    pub async fn open_with(location: Location, pooling: Pooling) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let url = location.url()?;
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
            } else if is_sqlite {
                // Each SQLite connection is a thread of its own; more than the cores only adds
                // switching between them (one writer at a time in any case).
                pooling
                    .connections
                    .min(std::thread::available_parallelism().map_or(2, |n| n.get() as u32 * 2))
            } else {
                pooling.connections
            })
            .acquire_timeout(pooling.acquire_timeout)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if is_sqlite {
                        // Wait for another iomark's write instead of failing at once.
                        sqlx::query("PRAGMA busy_timeout = 15000")
                            .execute(&mut *conn)
                            .await?;
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
                        }
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(fail)?;
        let store = Store { pool, location };
        store.migrate().await?;
        store.backfill().await?;
        store.rederive().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let migrator = migrator();
        let mut attempt = 0;
        loop {
            match migrator.run(&self.pool).await {
                Ok(()) => return Ok(()),
                // Another process created the schema between our look and our write.
                Err(_) if attempt < 3 => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
                }
                Err(sqlx::migrate::MigrateError::Execute(e)) => {
                    return Err(StoreError::from_sqlx(&self.location, e))
                }
                Err(e) => {
                    return Err(StoreError::Unavailable {
                        location: self.location.display(),
                        problem: Problem::classify_text(&e.to_string()),
                        detail: e.to_string(),
                    })
                }
            }
        }
    }

    /// Saves one result, in one transaction. An id already present is refused.
    pub async fn save(&self, doc: &ResultDoc) -> Result<(), StoreError> {
        self.save_with(doc, None).await
    }

    async fn save_with(&self, doc: &ResultDoc, token_hash: Option<&str>) -> Result<(), StoreError> {
        let document = serde_json::to_string(doc)
            .map_err(|e| StoreError::Invalid(format!("cannot encode the result: {e}")))?;
        let saved = self
            .write(Begin::Deferred, async |tx| {
                self.insert(tx, doc, document, token_hash).await
            })
            .await;
        match saved {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(StoreError::Duplicate(doc.id.clone()))
            }
            other => other.map_err(|e| self.fail(e)),
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

    /// The result's row and its facts, in `tx`.
    async fn insert(
        &self,
        tx: &mut Transaction<'_, Any>,
        doc: &ResultDoc,
        document: String,
        token_hash: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        let h = doc.headline();
        let device = doc.target.device.as_ref();
        // sqlx 0.8's Any driver declares a NULL f64 parameter as float4 on PostgreSQL; a statement
        // cached after such a NULL then refuses a real f64 ("incorrect binary data format").
        // Statements that bind optional figures are therefore prepared afresh each time.
        sqlx::query(
            "INSERT INTO results (id, schema_name, tool_version, started_at, saved_at, label, \
             profile, host_board, host_arch, device_model, device_transport, filesystem, \
             direct_io, seq_read_mb_per_s, seq_write_mb_per_s, rnd_read_iops, rnd_write_iops, \
             score_total, document) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
             $18, $19)",
        )
        .persistent(false)
        .bind(&doc.id)
        .bind(&doc.schema)
        .bind(&doc.tool.version)
        .bind(&doc.started_at)
        // To the millisecond: the order results arrive in names a device where they disagree.
        .bind(humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string())
        .bind(&doc.label)
        .bind(&doc.settings.profile)
        .bind(&doc.host.board)
        .bind(&doc.host.arch)
        .bind(Some(doc.device_label()))
        .bind(device.and_then(|d| d.transport.clone()))
        .bind(&doc.target.filesystem)
        .bind(doc.settings.direct as i64)
        .bind(h.seq_read_mb_per_s)
        .bind(h.seq_write_mb_per_s)
        .bind(h.rnd_read_iops)
        .bind(h.rnd_write_iops)
        .bind(doc.score_total())
        .bind(document)
        .execute(&mut **tx)
        .await?;
        self.add_entry(tx, doc, token_hash).await
    }

    /// Every run, newest first (at most `limit`, if given).
    pub async fn list(&self, limit: Option<u32>) -> Result<Vec<Summary>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM results ORDER BY started_at DESC, id DESC{}",
            limit.map(|n| format!(" LIMIT {n}")).unwrap_or_default()
        );
        let rows = sqlx::query(&sql)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(summary)
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))
    }

    /// The full id of the one run whose id starts with `prefix` (case-insensitive); `latest` is
    /// the newest run and `latest~N` the one N before it, as git counts commits.
    pub async fn resolve(&self, prefix: &str) -> Result<String, StoreError> {
        let prefix = prefix.trim().to_ascii_uppercase();
        // ULIDs never contain L, so `latest` cannot be the beginning of an id.
        if let Some(back) = prefix.strip_prefix("LATEST") {
            let back: u32 = match back.strip_prefix('~') {
                None if back.is_empty() => 0,
                Some(n) => n
                    .parse()
                    .map_err(|_| StoreError::NotFound(prefix.to_lowercase()))?,
                None => return Err(StoreError::NotFound(prefix.to_lowercase())),
            };
            let newest = self.list(Some(back.saturating_add(1))).await?;
            return newest
                .into_iter()
                .nth(back as usize)
                .map(|s| s.id)
                .ok_or_else(|| StoreError::NotFound(prefix.to_lowercase()));
        }
        if prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(StoreError::NotFound(prefix));
        }
        // Ids hold only letters, digits and dashes, so the prefix needs no LIKE escaping.
        let rows =
            sqlx::query("SELECT id FROM results WHERE UPPER(id) LIKE $1 ORDER BY id LIMIT 6")
                .bind(format!("{prefix}%"))
                .fetch_all(&self.pool)
                .await
                .map_err(|e| self.fail(e))?;
        let ids: Vec<String> = rows
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))?;
        match ids.len() {
            0 => Err(StoreError::NotFound(prefix)),
            1 => Ok(ids.into_iter().next().unwrap_or_default()),
            _ => Err(StoreError::Ambiguous(prefix, ids)),
        }
    }

    /// The shortest beginning of `id` (at least [`SHORT_ID`] characters) that names no other
    /// saved run, as git shortens commits: what `history` shows, and any command accepts.
    pub async fn short_id(&self, id: &str) -> Result<String, StoreError> {
        let start: String = id.chars().take(SHORT_ID).collect();
        if start.is_empty() || !start.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Ok(id.to_string());
        }
        // Ids hold only letters, digits and dashes, so the prefix needs no LIKE escaping.
        let rows = sqlx::query("SELECT id FROM results WHERE UPPER(id) LIKE $1 LIMIT 10000")
            .bind(format!("{}%", start.to_ascii_uppercase()))
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.fail(e))?;
        let mut ids: Vec<String> = rows
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<_, _>>()
            .map_err(|e| self.fail(e))?;
        if !ids.iter().any(|i| i == id) {
            ids.push(id.to_string());
        }
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let short = result::short_ids(&refs, SHORT_ID);
        Ok(refs
            .iter()
            .zip(short)
            .find(|(i, _)| **i == id)
            .map(|(_, s)| s)
            .unwrap_or_else(|| id.to_string()))
    }

    /// The result document of the run `prefix` names, as it was saved.
    pub async fn get(&self, prefix: &str) -> Result<ResultDoc, StoreError> {
        let id = self.resolve(prefix).await?;
        self.document(&id).await
    }

    /// The result document of the run whose id is `id`, whole: one lookup by the primary key
    /// (a site finds results by their full id; a prefix is a scan).
    pub async fn document(&self, id: &str) -> Result<ResultDoc, StoreError> {
        let id = id.to_string();
        let row = sqlx::query("SELECT document FROM results WHERE id = $1")
            .bind(&id)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.fail(e))?
            .ok_or_else(|| StoreError::NotFound(id.clone()))?;
        let text: String = row.try_get(0).map_err(|e| self.fail(e))?;
        serde_json::from_str(&text).map_err(|e| StoreError::Unavailable {
            location: self.location.display(),
            problem: Problem::Corrupt,
            detail: format!("run {id}: its saved document does not parse: {e}"),
        })
    }

    /// Removes the run `prefix` names; returns its full id.
    pub async fn delete(&self, prefix: &str) -> Result<String, StoreError> {
        let id = self.resolve(prefix).await?;
        self.write(Begin::Deferred, async |tx| self.remove(tx, &id).await)
            .await
            .map_err(|e| self.fail(e))?;
        Ok(id)
    }

    pub async fn close(self) {
        self.pool.close().await;
    }

    fn is_sqlite(&self) -> bool {
        matches!(self.location, Location::Sqlite(_))
    }

    fn fail(&self, e: sqlx::Error) -> StoreError {
        StoreError::from_sqlx(&self.location, e)
    }
}

/// How a write transaction begins: `Immediate` takes SQLite's write lock at once.
#[derive(Clone, Copy)]
pub(crate) enum Begin {
    Deferred,
    Immediate,
}

fn summary(row: &AnyRow) -> Result<Summary, sqlx::Error> {
    Ok(Summary {
        id: row.try_get("id")?,
        started_at: row.try_get("started_at")?,
        label: row.try_get("label")?,
        profile: row.try_get("profile")?,
        device: row.try_get("device_model")?,
        transport: row.try_get("device_transport")?,
        filesystem: row.try_get("filesystem")?,
        seq_read_mb_per_s: row.try_get("seq_read_mb_per_s")?,
        seq_write_mb_per_s: row.try_get("seq_write_mb_per_s")?,
        rnd_read_iops: row.try_get("rnd_read_iops")?,
        rnd_write_iops: row.try_get("rnd_write_iops")?,
        score_total: row.try_get("score_total")?,
    })
}

/// A URL with its password shown as `***`, whether in its user information or as a query
/// parameter (`?password=…`, which PostgreSQL's URLs also take).
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let mut out = match rest.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
            None => format!("{scheme}://{rest}"),
        },
        None => format!("{scheme}://{rest}"),
    };
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.to_ascii_lowercase().contains("password") => {
                    format!("{key}=***")
                }
                _ => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// Runs a store future to completion on a small runtime of its own, for the terminal commands.
pub fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::Invalid(format!("cannot start the store's runtime: {e}")))?;
    Ok(runtime.block_on(future))
}

/// Where a result goes when the store cannot take it: `unsaved/ID.json` in iomark's data folder,
/// else `iomark-ID.json` in the current directory, else in the temporary directory. Returns the
/// path written.
pub fn keep_aside(doc: &ResultDoc, preferred: Option<&Path>) -> std::io::Result<PathBuf> {
    let mut text = serde_json::to_string_pretty(doc).map_err(std::io::Error::other)?;
    text.push('\n');
    let name = format!("iomark-{}.json", doc.id);
    let mut candidates = Vec::new();
    if let Some(dir) = preferred {
        candidates.push(dir.join("unsaved"));
    }
    if let Ok(cwd) = std::env::current_dir() {
        candidates.push(cwd);
    }
    candidates.push(std::env::temp_dir());
    let mut last = std::io::Error::other("nowhere to write");
    for dir in candidates {
        let path = dir.join(&name);
        let written = std::fs::create_dir_all(&dir).and_then(|()| {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)?;
            std::io::Write::write_all(&mut file, text.as_bytes())?;
            file.sync_all()
        });
        match written {
            Ok(()) => return Ok(path),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                last = e;
            }
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_redaction() {
        assert_eq!(
            Location::parse(Some("postgres://u:secret@127.0.0.1/db"))
                .unwrap()
                .display(),
            "postgres://u:***@127.0.0.1/db"
        );
        assert_eq!(
            Location::parse(Some("postgres://u@127.0.0.1/db"))
                .unwrap()
                .display(),
            "postgres://u@127.0.0.1/db"
        );
        assert_eq!(
            redact("postgres://u@127.0.0.1/db?sslmode=disable&password=hunter2"),
            "postgres://u@127.0.0.1/db?sslmode=disable&password=***"
        );
        assert_eq!(
            redact("postgres://u:p%40ss@h/db?PassWord=x"),
            "postgres://u:***@h/db?PassWord=***"
        );
        assert_eq!(
            Location::parse(Some("sqlite:///tmp/a?b.db")).unwrap(),
            Location::Sqlite("/tmp/a?b.db".into())
        );
        assert_eq!(
            Location::Sqlite("/tmp/50%?#.db".into()).url().unwrap(),
            "sqlite:///tmp/50%25%3F%23.db?mode=rwc"
        );
    }

    #[test]
    fn an_empty_store_or_an_unknown_scheme_is_refused() {
        // Issue 11: these ran, exited 0 and kept the result nowhere, or in junk folders.
        for db in ["", " ", "sqlite:", "sqlite://"] {
            let error = Location::parse(Some(db)).unwrap_err().to_string();
            assert!(
                error.starts_with("--db: the store is empty"),
                "{db:?}: {error}"
            );
        }
        let error = Location::parse(Some("mysql://a@b/c"))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--db: 'mysql://' is not a store"),
            "{error}"
        );
        // A relative path with a colon is a file here, not a host and a port.
        let cwd = std::env::current_dir().unwrap();
        let location = Location::parse(Some("c:y.db")).unwrap();
        assert_eq!(location, Location::Sqlite(cwd.join("c:y.db")));
        assert!(location.url().unwrap().starts_with("sqlite:///"));
        assert_eq!(
            Location::parse(Some("sqlite:rel.db")).unwrap(),
            Location::Sqlite(cwd.join("rel.db"))
        );
    }
}
