//! The store as a terminal command uses it: one runtime, one pool, one migration per command
//! ([`with_store`]), and a finished run saved so that nothing stops it being kept
//! ([`save_run`]: written aside first, removed once the store holds it).
//!
//! With `IOMARK_LOG=store` each opening is logged on standard error (the tests count them).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::StoreArgs;
use crate::output::to_stderr;
use iomark_result::result::ResultDoc;
use iomark_store::{self as store, Location, Store, StoreError};

/// Runs a store future to completion on a small runtime of its own.
pub fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::Invalid(format!("cannot start the store's runtime: {e}")))?;
    Ok(runtime.block_on(future))
}

/// Opens the store at `location` (the one place the commands do).
pub async fn open(location: Location) -> Result<Store, StoreError> {
    if std::env::var("IOMARK_LOG").is_ok_and(|v| v.split(',').any(|w| w == "store")) {
        to_stderr(&format!(
            "iomark: opening the store {}\n",
            location.display()
        ));
    }
    Store::open(location).await
}

/// Opens the store the arguments name, once, and runs `job` on it.
pub fn with_store<T>(
    args: &StoreArgs,
    job: impl AsyncFnOnce(&Store) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let location = args.location().map_err(StoreError::Invalid)?;
    block_on(async move {
        let store = open(location).await?;
        let outcome = job(&store).await;
        store.close().await;
        outcome
    })?
}

/// The runs the ids name, in that order.
pub fn load_all(args: &StoreArgs, ids: &[String]) -> Result<Vec<ResultDoc>, StoreError> {
    with_store(args, async |s| {
        let mut docs = Vec::new();
        for id in ids {
            docs.push(s.history().get(id).await?);
        }
        Ok(docs)
    })
}

/// How long saving a run waits for another writer before the run is kept aside instead.
pub const SAVE_PATIENCE: Duration = Duration::from_secs(20);

/// Saves a fresh run and returns the shortest beginning of its id that names it alone. The run
/// has ended well whatever happens here. The document is first written aside (`unsaved/`
/// beside the store) and that copy removed once the store holds it, so nothing that stops the
/// save (a locked store, Ctrl-C, a kill) loses the finished run; when the store cannot take it,
/// the message says where the copy is and gives the exact command that adds it (`db` is the
/// `--db` flag to paste, if the store was named); when no file can be written either, the
/// document itself goes to standard error.
pub fn save_run(location: &Location, db: &str, doc: &ResultDoc) -> Option<String> {
    let preferred: Option<PathBuf> = match location {
        Location::Sqlite(path) => path.parent().map(PathBuf::from),
        _ => store::data_dir().ok(),
    };
    let aside = keep_aside(doc, preferred.as_deref());
    let kept = match &aside {
        Ok(path) => format!(
            "The result is kept in {}; add it later with `iomark import {}{db}`.",
            path.display(),
            super::shell_quote(&path.display().to_string()),
        ),
        Err(e) => format!(
            "It could not be kept in a file either ({e}); here it is, to import later:\n{}",
            serde_json::to_string_pretty(doc).unwrap_or_default()
        ),
    };
    iomark_core::interrupt::set_pending(Some(format!("the result was not saved. {kept}")));
    let saved = block_on(save_patiently(location.clone(), doc)).and_then(|saved| saved);
    iomark_core::interrupt::set_pending(None);
    match saved {
        Ok(short) => {
            if let Ok(path) = aside {
                let _ = std::fs::remove_file(path);
            }
            Some(short)
        }
        Err(error) => {
            to_stderr(&format!(
                "warning: the result was not saved: {error}. {kept}\n"
            ));
            None
        }
    }
}

/// Opens the store once and saves `doc`, saying so if another writer makes it wait and giving
/// up after [`SAVE_PATIENCE`]; then, on the same store, finds its short id. Only the save is
/// bounded: once it is committed the run is saved, whatever the short id or the closing do (a
/// store too busy to answer the short id in time gives the whole id).
async fn save_patiently(location: Location, doc: &ResultDoc) -> Result<String, StoreError> {
    let shown = location.display();
    let save = async {
        let store = open(location).await?;
        match store.history().save(doc).await {
            Ok(()) => Ok(store),
            Err(e) => {
                store.close().await;
                Err(e)
            }
        }
    };
    let mut save = std::pin::pin!(save);
    let store = match tokio::time::timeout(Duration::from_secs(1), &mut save).await {
        Ok(outcome) => outcome?,
        Err(_) => {
            to_stderr(&format!(
                "waiting for the result store {shown}: another program is writing to it (up to {} s)…\n",
                SAVE_PATIENCE.as_secs()
            ));
            match tokio::time::timeout(SAVE_PATIENCE, save).await {
                Ok(outcome) => outcome?,
                Err(_) => {
                    return Err(StoreError::Unavailable {
                        location: shown,
                        problem: store::Problem::Locked,
                        detail: format!("still busy after {} s", SAVE_PATIENCE.as_secs() + 1),
                    })
                }
            }
        }
    };
    let short = tokio::time::timeout(Duration::from_secs(2), super::short_id(&store, &doc.id))
        .await
        .unwrap_or_else(|_| doc.id.clone());
    store.close().await;
    Ok(short)
}

/// Where a result goes when the store cannot take it: `unsaved/ID.json` in iomark's data folder,
/// else `iomark-ID.json` in the current directory, else in the temporary directory. Returns the
/// path written.
fn keep_aside(doc: &ResultDoc, preferred: Option<&Path>) -> std::io::Result<PathBuf> {
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
