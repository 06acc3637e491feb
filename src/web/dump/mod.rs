//! The raw data in bulk: every public result as gzip JSON lines (a first line saying what the
//! dump is and under which licence, then each result's whole document on a line) and as gzip
//! CSV (a `#` line saying the same, then each result's facts and figures, as the listing gives
//! them).
//!
//! A dump is made in the background, at most every `--dump-every`, into files of the dump
//! folder; never for a request: 100,000 synthetic documents (smaller than real ones) are 709 MB
//! of JSON, and took 18.8 s to dump on this project's 2-core VM (`bench/site-dump`): per
//! request, that would let anyone occupy the server. Each file is written under a new name
//! (created with `O_EXCL`), synced, and renamed over the last dump's only where that is a
//! regular file; a dump that fails (a full disk, the store away) leaves the last one served and
//! nothing behind, and what a killed server was writing is removed at the next start.
//! Downloads stream from the files and pass by the answer cache (which holds whole answers in
//! memory); the request time limit bounds only the wait for an answer's head.

mod make;

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::RwLock;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::error::{Api, Failure, Json, Refusal};
use super::Shared;

/// The files of a dump, by the names they are served under.
pub const FILES: [&str; 2] = ["results.jsonl.gz", "results.csv.gz"];
/// What the folder keeps of the last dump made (its [`Made`]).
const INDEX: &str = "dump.json";
/// A file being written is named so; what a killed server left under it goes at the next start.
const MAKING: &str = ".making-";
/// Results read from the store at a time.
const PAGE: u32 = 200;
/// How long after a failed dump another is tried (or sooner, if dumps are made more often).
const RETRY: Duration = Duration::from_secs(600);

/// The site's dumps: where they are made, how often, under which licence, and the last one.
pub struct Dumps {
    pub dir: PathBuf,
    /// How often a dump is made; zero for never (the dump's routes then answer 404).
    pub every: Duration,
    pub licence: String,
    made: RwLock<Option<Made>>,
}

/// The last dump made: what `GET /api/v1/dump` answers.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Made {
    /// When it was made (RFC 3339): it holds every public result there was then.
    pub made_at: String,
    /// A new one is made this many seconds after it.
    pub every_seconds: u64,
    pub results: u64,
    /// The licence this site publishes its results under (its operator's `--data-licence`).
    pub licence: String,
    pub files: Vec<DumpFile>,
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

impl Dumps {
    /// The dumps kept in `dir` (made where it is missing), with the last one found there if
    /// its files are whole; what a killed server was writing there is removed.
    pub fn open(dir: PathBuf, every: Duration, licence: String) -> Result<Dumps, String> {
        let dumps = Dumps {
            made: RwLock::new(None),
            dir,
            every,
            licence,
        };
        if every.is_zero() {
            return Ok(dumps);
        }
        let shown = dumps.dir.display().to_string();
        std::fs::create_dir_all(&dumps.dir).map_err(|e| format!("{shown}: {e}"))?;
        for entry in std::fs::read_dir(&dumps.dir).map_err(|e| format!("{shown}: {e}"))? {
            let entry = entry.map_err(|e| format!("{shown}: {e}"))?;
            let ours = entry.file_name().to_string_lossy().starts_with(MAKING);
            if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        let last = std::fs::read(dumps.dir.join(INDEX))
            .ok()
            .and_then(|text| serde_json::from_slice::<Made>(&text).ok())
            .filter(|made| {
                made.files.iter().all(|f| {
                    std::fs::symlink_metadata(dumps.dir.join(&f.name))
                        .is_ok_and(|m| m.is_file() && m.len() == f.bytes)
                })
            });
        *dumps.made.write().unwrap_or_else(|e| e.into_inner()) = last;
        Ok(dumps)
    }

    fn last(&self) -> Option<Made> {
        self.made.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How long until the next dump is due: at once where none was made, or where the last one
    /// states another licence than the one the site now publishes under (it is served until
    /// the new one is made).
    fn due_in(&self) -> Duration {
        let made_at = self
            .last()
            .filter(|m| m.licence == self.licence)
            .and_then(|m| humantime::parse_rfc3339(&m.made_at).ok());
        made_at
            .and_then(|at| (at + self.every).duration_since(SystemTime::now()).ok())
            .unwrap_or_default()
    }
}

/// Makes a dump whenever one is due, for as long as the server runs.
pub async fn keep_made(state: Shared) {
    let dumps = &state.dumps;
    if dumps.every.is_zero() {
        return;
    }
    loop {
        tokio::time::sleep(dumps.due_in()).await;
        match make::make(&state).await {
            Ok(made) => *dumps.made.write().unwrap_or_else(|e| e.into_inner()) = Some(made),
            Err(e) => {
                tracing::error!("no new dump, the last one stays: {e}");
                tokio::time::sleep(RETRY.min(dumps.every)).await;
            }
        }
    }
}

/// What the last dump holds, when it was made, and under which licence.
#[utoipa::path(get, path = "/api/v1/dump", tag = "results",
    responses(
        (status = OK, description = "The last dump of every public result", body = Made),
        (status = NOT_FOUND, description = "This site makes no dumps", body = Refusal)))]
pub async fn index(State(state): State<Shared>) -> Result<Json<Made>, Api> {
    Ok(Json(last(&state)?))
}

/// One file of the last dump: `results.jsonl.gz` (a line about the dump, then one result
/// document per line) or `results.csv.gz` (a `#` line about the dump, then one result a row).
#[utoipa::path(get, path = "/api/v1/dump/{file}", tag = "results",
    params(("file" = inline(FileName), Path, description = "results.jsonl.gz or results.csv.gz")),
    responses(
        (status = OK, description = "The file, gzip", content_type = "application/gzip",
            body = Vec<u8>),
        (status = NOT_FOUND, description = "No such file, or this site makes no dumps",
            body = Refusal)))]
pub async fn file(
    State(state): State<Shared>,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, Api> {
    last(&state)?;
    let Some(name) = FILES.iter().find(|f| **f == name) else {
        return Err(Failure::not_found(format!("a dump has {} and {}", FILES[0], FILES[1])).into());
    };
    let path = state.dumps.dir.join(name);
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| Failure::new(StatusCode::SERVICE_UNAVAILABLE, format!("{name}: {e}")))?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let reader = tokio::fs::File::from_std(file);
    let chunks = futures_util::stream::unfold(reader, |mut reader| async move {
        use tokio::io::AsyncReadExt;
        let mut chunk = vec![0u8; 1 << 16];
        match reader.read(&mut chunk).await {
            Ok(0) => None,
            Ok(n) => {
                chunk.truncate(n);
                Some((Ok(axum::body::Bytes::from(chunk)), reader))
            }
            Err(e) => Some((Err(e), reader)),
        }
    });
    let mut response = Body::from_stream(chunks).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/gzip"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(bytes));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=600"),
    );
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"iomark-{name}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// The name of one of a dump's [`FILES`], as the OpenAPI document describes it.
pub struct FileName;

impl utoipa::PartialSchema for FileName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .enum_values(Some(FILES))
            .into()
    }
}

impl utoipa::ToSchema for FileName {}

/// The last dump, or why there is none to give.
fn last(state: &Shared) -> Result<Made, Failure> {
    if state.dumps.every.is_zero() {
        return Err(Failure::not_found("this site makes no dumps"));
    }
    state.dumps.last().ok_or_else(|| {
        Failure::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the first dump is being made: try again in a minute",
        )
    })
}
