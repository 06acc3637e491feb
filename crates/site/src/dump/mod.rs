//! The raw data in bulk: every public result as gzip JSON lines (a first line saying what the
//! dump is and under which licence, then each result's whole document on a line) and as gzip
//! CSV (a `#` line saying the same, then each result's facts and figures, as the listing gives
//! them).
//!
//! A dump is made in the background, at most every `--dump-every`, into files of the dump
//! folder; never for a request: 100,000 synthetic documents (smaller than real ones) are 709 MB
//! of JSON, and took 18.8 s to dump on this project's 2-core VM (`bench/site-dump`): per
//! request, that would let anyone occupy the server. Each file is written under a new name
//! (created with `O_EXCL`), synced, and renamed to a name of its content (the start of its
//! SHA-256, [`DumpFile::stored`]) beside the last dump's; the index naming the new files
//! replaces the last one's, and only then are the files of the dump before it removed (the last
//! dump's stay until the next: a download begun from its index ends whole, `download.rs`). So
//! the index names files that are there whole at every moment, a power cut's included: the
//! last dump or the new one, never a file of one beside the index of the other. A dump that fails (a full disk,
//! the store away) leaves the last one served and nothing behind, and what a killed server was
//! writing is removed at the next start.
//!
//! A result deleted or hidden is taken out of the last dump within [`PATCH_GAP`] (`patch.rs`:
//! its files read and written again without the results that left, under new names as a dump's
//! are, the index saying when), and the last dump is served meanwhile: deletions never take it
//! down, and however often they come its files are written at most every [`PATCH_GAP`].
//!
//! Several servers may share one dump folder: the one that makes a dump holds the folder's lock
//! (`dump.lock`, `flock`, let go when its process ends however it ends), the others make none
//! meanwhile, remove nothing at their start, and serve what the index (`dump.json`) says now.
//! Downloads stream from the files and pass by the answer cache (which holds whole answers in
//! memory); the request time limit bounds only the wait for an answer's head.

mod columns;
mod download;
mod make;
mod patch;

pub use download::{__path_file, file};

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::{Duration, SystemTime};

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::error::{Api, Failure, Json, Refusal};
use crate::Shared;

/// The files of a dump, by the names they are served under.
pub const FILES: [&str; 3] = ["results.jsonl.gz", "results.csv.gz", "card-health.csv.gz"];
/// What the folder keeps of the last dump made (its [`Made`]).
const INDEX: &str = "dump.json";
/// A file being written is named so; what a killed server left under it goes at the next start.
const MAKING: &str = ".making-";
/// Results read from the store at a time.
const PAGE: u32 = 200;
/// How long after a failed dump another is tried (or sooner, if dumps are made more often).
const RETRY: Duration = Duration::from_secs(600);
/// The folder's lock, held by the server making a dump.
const LOCK: &str = "dump.lock";
/// How often a server looks again while another holds the lock.
const AGAIN: Duration = Duration::from_secs(30);
/// When results last left the store (deleted or hidden), for every server of the folder: a
/// dump made (or patched) before then holds them, so they are taken out of it (`patch.rs`).
const GONE: &str = "dump.gone";
/// The least time between two patches of a dump: deletions that come faster are taken out
/// together, so that however often results are deleted the dump's files are written at most
/// this often (issue 59: each deletion took the dump down while it was made anew).
const PATCH_GAP: Duration = Duration::from_secs(30);

/// The site's dumps: where they are made, how often, under which licence, and the last one.
pub struct Dumps {
    pub dir: PathBuf,
    /// How often a dump is made; zero for never (the dump's routes then answer 404).
    pub every: Duration,
    pub licence: String,
    /// The last dump, as the index said when last read, and that index's modification time.
    made: RwLock<(Option<Made>, Option<SystemTime>)>,
    /// When the last try failed, while none has been made since this server started.
    failed: RwLock<Option<String>>,
    /// Woken when results leave the store: a dump is due at once.
    wake: tokio::sync::Notify,
}

/// The last dump made: what `GET /api/v1/dump` answers.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Made {
    /// When it was made (RFC 3339): it holds every public result there was then.
    pub made_at: String,
    /// A new one is made this many seconds after it.
    pub every_seconds: u64,
    pub results: u64,
    /// The cards' shared health checks it holds (`card-health.csv.gz`).
    #[serde(default)]
    pub card_checks: u64,
    /// The licence this site publishes its results under (its operator's `--data-licence`).
    pub licence: String,
    pub files: Vec<DumpFile>,
    /// When the results deleted or hidden since it was made were last taken out of it (RFC
    /// 3339), if they were: a deletion leaves the dump within a minute, and the dump stays up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patched_at: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DumpFile {
    pub name: String,
    /// Where it is downloaded, from this site's address.
    pub path: String,
    pub bytes: u64,
    /// The SHA-256 of the file as downloaded (gzip), in hex.
    pub sha256: String,
}

impl DumpFile {
    /// The name the file is kept under in the dump folder: the start of its SHA-256, then the
    /// name it is served as.
    pub fn stored(&self) -> String {
        stored_name(&self.name, &self.sha256)
    }
}

/// The name a dump's file `name` whose SHA-256 is `sha256` is kept under (see
/// [`DumpFile::stored`]).
pub(super) fn stored_name(name: &str, sha256: &str) -> String {
    format!("{}-{name}", sha256.get(..16).unwrap_or("0"))
}

/// Where a dump's file `name` whose SHA-256 is `sha256` is downloaded: that very file, not
/// whichever a newer dump put at its name (the power-cut test read an index, then a file a
/// patch had rewritten since: 185 bytes where the index said 186).
pub(super) fn served_path(name: &str, sha256: &str) -> String {
    format!(
        "/api/v1/dump/{name}?sha256={}",
        sha256.get(..16).unwrap_or("0")
    )
}

impl Dumps {
    /// The dumps kept in `dir` (made where it is missing), with the last one found there if
    /// its files are whole; what a killed server was writing there is removed.
    pub fn open(dir: PathBuf, every: Duration, licence: String) -> Result<Dumps, String> {
        let dumps = Dumps {
            made: RwLock::new((None, None)),
            failed: RwLock::new(None),
            wake: tokio::sync::Notify::new(),
            dir,
            every,
            licence,
        };
        if every.is_zero() {
            return Ok(dumps);
        }
        let shown = dumps.dir.display().to_string();
        std::fs::create_dir_all(&dumps.dir).map_err(|e| format!("{shown}: {e}"))?;
        // What a killed server left; none while another server makes a dump here.
        if lock(&dumps.dir)?.is_some() {
            for entry in std::fs::read_dir(&dumps.dir).map_err(|e| format!("{shown}: {e}"))? {
                let entry = entry.map_err(|e| format!("{shown}: {e}"))?;
                let ours = entry.file_name().to_string_lossy().starts_with(MAKING);
                if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        Ok(dumps)
    }

    /// The last dump, as the folder's index says now (another server may have made it), if
    /// its files are whole.
    fn last(&self) -> Option<Made> {
        let index = self.dir.join(INDEX);
        let stamp = std::fs::symlink_metadata(&index)
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok());
        {
            let made = self.made.read().unwrap_or_else(|e| e.into_inner());
            if made.1 == stamp {
                return made.0.clone();
            }
        }
        // Never read through a link someone put at the index's name.
        let last = stamp
            .and_then(|_| std::fs::read(&index).ok())
            .and_then(|text| serde_json::from_slice::<Made>(&text).ok())
            .filter(|made| {
                made.files.iter().all(|f| {
                    std::fs::symlink_metadata(self.dir.join(f.stored()))
                        .is_ok_and(|m| m.is_file() && m.len() == f.bytes)
                })
            });
        *self.made.write().unwrap_or_else(|e| e.into_inner()) = (last.clone(), stamp);
        last
    }

    /// A result was deleted or hidden (issue 44: it stayed in the dump served until the next
    /// one, 24 h by default). It is taken out of the last dump within [`PATCH_GAP`], which is
    /// served meanwhile (issue 59: served no more until a new one was made, 4 clients deleting
    /// in a loop kept the dump away for 146 of 147 requests).
    pub fn forget(&self) {
        if self.every.is_zero() {
            return;
        }
        let path = self.dir.join(GONE);
        let written = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .and_then(|mut file| {
                use std::io::Write;
                file.write_all(iomark_result::result::now_rfc3339().as_bytes())?;
                file.sync_all()
            });
        if let Err(e) = written {
            tracing::error!(
                "{}: {e}: the last dump is served until the next one",
                path.display()
            );
        }
        self.wake.notify_one();
    }

    /// Whether results left the store since `made` was made or last patched (it holds them).
    fn outdated(&self, made: &Made) -> bool {
        let read = |text: &str| humantime::parse_rfc3339(text.trim()).ok();
        let gone = std::fs::symlink_metadata(self.dir.join(GONE))
            .ok()
            .filter(|m| m.is_file())
            .and_then(|_| std::fs::read_to_string(self.dir.join(GONE)).ok());
        let since = made.patched_at.as_deref().unwrap_or(&made.made_at);
        match (gone.as_deref().and_then(read), read(since)) {
            (Some(gone), Some(since)) => gone >= since,
            _ => false,
        }
    }

    /// What is due: a dump made anew where none was made, where the last is `every` old, or
    /// where it states another licence than the one the site now publishes under; the last
    /// one patched where results left the store since (at most every [`PATCH_GAP`]); else
    /// nothing for a while. The last dump is served meanwhile.
    fn due(&self) -> Due {
        let Some(last) = self.last().filter(|m| m.licence == self.licence) else {
            return Due::Make;
        };
        let read = |text: &str| humantime::parse_rfc3339(text).ok();
        let Some(made_at) = read(&last.made_at) else {
            return Due::Make;
        };
        let now = SystemTime::now();
        let Ok(until_next) = (made_at + self.every).duration_since(now) else {
            return Due::Make;
        };
        if !self.outdated(&last) {
            return Due::In(until_next);
        }
        let patched = last.patched_at.as_deref().and_then(read).unwrap_or(made_at);
        match (patched + PATCH_GAP).duration_since(now) {
            Ok(wait) if !wait.is_zero() => Due::In(wait.min(until_next)),
            _ => Due::Patch(last),
        }
    }
}

/// What [`Dumps::due`] finds.
enum Due {
    In(Duration),
    Make,
    Patch(Made),
}

/// Makes a dump whenever one is due, for as long as the server runs.
pub async fn keep_made(state: Shared) {
    let dumps = &state.dumps;
    if dumps.every.is_zero() {
        return;
    }
    loop {
        let wait = match dumps.due() {
            Due::In(wait) => wait,
            Due::Make | Due::Patch(_) => Duration::ZERO,
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = dumps.wake.notified() => {}
        }
        let held = match lock(&dumps.dir) {
            Ok(Some(held)) => held,
            // Another server makes it: look again in a while.
            Ok(None) => {
                tokio::time::sleep(AGAIN.min(dumps.every)).await;
                continue;
            }
            Err(e) => {
                dumps.failed(format!("no new dump, the last one stays: {e}"));
                tokio::time::sleep(RETRY.min(dumps.every)).await;
                continue;
            }
        };
        // Another server may have made one while this one waited.
        let made = match dumps.due() {
            Due::In(_) => continue,
            Due::Make => make::make(&state).await,
            Due::Patch(last) => patch::patch(&state, last).await,
        };
        drop(held);
        match made {
            Ok(_) => *dumps.failed.write().unwrap_or_else(|e| e.into_inner()) = None,
            Err(e) => {
                dumps.failed(format!("no new dump, the last one stays: {e}"));
                tokio::time::sleep(RETRY.min(dumps.every)).await;
            }
        }
    }
}

impl Dumps {
    fn failed(&self, why: String) {
        *self.failed.write().unwrap_or_else(|e| e.into_inner()) =
            Some(iomark_result::result::now_rfc3339());
        tracing::error!("{why}");
    }
}

/// The folder's lock if no other server holds it (`None` if one does), held until dropped or
/// the process ends. Refused where `dump.lock` is not a regular file.
fn lock(dir: &Path) -> Result<Option<File>, String> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() || meta.permissions().mode() & 0o002 != 0 {
        return Err(format!("{} is not a lock of this site's", path.display()));
    }
    // SAFETY: flock on a descriptor this function owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(Some(file));
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(None)
    } else {
        Err(format!("{}: {e}", path.display()))
    }
}

/// What the last dump holds, when it was made, and under which licence.
#[utoipa::path(get, path = "/api/v1/dump", tag = "results",
    responses(
        (status = OK, description = "The last dump of every public result", body = Made),
        (status = NOT_FOUND, description = "This site makes no dumps", body = Refusal),
        (status = SERVICE_UNAVAILABLE, description = "The first dump is being made",
            body = Refusal)))]
pub async fn index(State(state): State<Shared>) -> Result<Json<Made>, Api> {
    Ok(Json(last(&state)?))
}

/// The last dump, or why there is none to give.
pub(super) fn last(state: &Shared) -> Result<Made, Failure> {
    if state.dumps.every.is_zero() {
        return Err(Failure::not_found("this site makes no dumps"));
    }
    state.dumps.last().ok_or_else(|| {
        let failed = state
            .dumps
            .failed
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        // What failed is the operator's to read (the log): it may name the server's folders.
        let why = match failed {
            Some(at) => format!(
                "no dump could be made yet: the last try, at {at}, failed (its reason is in the \
                 site's log); it is tried again every {} minutes",
                RETRY.min(state.dumps.every).as_secs().div_ceil(60)
            ),
            None => "the first dump is being made: try again in a minute".into(),
        };
        Failure::new(StatusCode::SERVICE_UNAVAILABLE, why)
    })
}
