//! A dump's files as downloads: the one an index named (`?sha256=`), or the last dump's.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;

use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{last, stored_name, DumpFile, FILES};
use crate::error::{Api, Failure, Refusal};
use crate::Shared;

/// One file of the last dump: `results.jsonl.gz` (a line about the dump, then one result
/// document per line), `results.csv.gz` (a `#` line about the dump, then one result a row) or
/// `card-health.csv.gz` (a `#` line, then one shared health check a row: its card by the hash
/// of the card's key, its device, time, verdict and bytes written since the card's first).
#[utoipa::path(get, path = "/api/v1/dump/{file}", tag = "results",
    params(("file" = inline(FileName), Path, description = "results.jsonl.gz, results.csv.gz or card-health.csv.gz"),
        Pinned),
    responses(
        (status = OK, description = "The file, gzip", content_type = "application/gzip",
            body = Vec<u8>),
        (status = NOT_FOUND, description = "No such file, this site makes no dumps, or the \
            file an index named was replaced since by a newer dump's",
            body = Refusal),
        (status = BAD_REQUEST, description = "A sha256 that is not 16 hex digits",
            body = Refusal),
        (status = SERVICE_UNAVAILABLE, description = "The first dump is being made",
            body = Refusal)))]
pub async fn file(
    State(state): State<Shared>,
    UrlPath(name): UrlPath<String>,
    Query(pinned): Query<Pinned>,
) -> Result<Response, Api> {
    let Some(name) = FILES.iter().find(|f| **f == name) else {
        return Err(Failure::not_found(format!("a dump has {}", FILES.join(", "))).into());
    };
    // The very file an index named (its `path`), while it is kept: this dump's or the one
    // before it.
    if let Some(sha) = pinned.sha256.as_deref() {
        if sha.len() != 16 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Failure::bad("sha256: the first 16 hex digits of a file's SHA-256").into());
        }
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(
                state
                    .dumps
                    .dir
                    .join(stored_name(name, &sha.to_ascii_lowercase())),
            )
            .map_err(|_| {
                Failure::not_found(format!(
                    "that {name} was replaced by a newer dump's: read /api/v1/dump again"
                ))
            })?;
        return Ok(streamed(file, name));
    }
    // The file the index names now; a newer dump may remove it between the two, so a file
    // found gone is looked for once more, in the index of that newer dump.
    let open = || -> Result<File, Failure> {
        let made = last(&state)?;
        let stored = made
            .files
            .iter()
            .find(|f| f.name == *name)
            .map(DumpFile::stored)
            .ok_or_else(|| Failure::not_found(format!("the last dump has no {name}")))?;
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(state.dumps.dir.join(stored))
            .map_err(|e| Failure::new(StatusCode::SERVICE_UNAVAILABLE, format!("{name}: {e}")))
    };
    let file = open().or_else(|_| open())?;
    Ok(streamed(file, name))
}

/// Which file of a dump: the one whose SHA-256 begins so, as an index's `path` names it.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Pinned {
    /// The first 16 hex digits of the file's SHA-256; without it, the last dump's file.
    #[param(pattern = "^[0-9a-fA-F]{16}$")]
    pub sha256: Option<String>,
}

/// `file` as a download of `name`.
fn streamed(file: File, name: &str) -> Response {
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
    response
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
