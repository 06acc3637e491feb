//! The commands that read and change the store: `history`, `show`, `import`, `delete`; and
//! saving a fresh run.

use std::path::PathBuf;

use anyhow::Context;

use crate::cli::{DeleteArgs, HistoryArgs, ImportArgs, ShowArgs, StoreArgs};
use crate::output::{history, table, to_stderr, Style};
use crate::result::ResultDoc;
use crate::store::{self, Location, Store, StoreError};

use super::{json_or, write_stdout};

/// Opens the store the arguments name and runs `job` on it.
pub fn with_store<T>(
    args: &StoreArgs,
    job: impl AsyncFnOnce(&Store) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let location = Location::parse(args.db.as_deref())?;
    store::block_on(async move {
        let store = Store::open(location).await?;
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
            docs.push(s.get(id).await?);
        }
        Ok(docs)
    })
}

pub fn list(args: HistoryArgs) -> anyhow::Result<()> {
    let runs = with_store(&args.store, async |s| s.list(args.limit).await)?;
    let text = json_or(args.json, &runs, |runs| {
        history::render(runs, Style::stdout())
    })?;
    write_stdout(text.as_bytes())
}

pub fn show(args: ShowArgs) -> anyhow::Result<()> {
    let doc = with_store(&args.store, async |s| s.get(&args.id).await)?;
    let text = if doc.langs.is_some() {
        crate::output::langs::render(&doc, Style::stdout())
    } else {
        table::render(&doc, None, Style::stdout())
    };
    write_stdout(text.as_bytes())
}

pub fn import(args: ImportArgs) -> anyhow::Result<()> {
    let mut docs = Vec::new();
    for path in &args.files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        let doc = ResultDoc::from_json(&text)
            .map_err(|reason| anyhow::anyhow!("{}: {reason}", path.display()))?;
        docs.push((path, doc));
    }
    // Every file is checked before any is added, so a bad one leaves the store as it was.
    let saved = with_store(&args.store, async |s| {
        let mut saved = Vec::new();
        for (path, doc) in &docs {
            match s.save(doc).await {
                Ok(()) => saved.push(format!("imported {} from {}", doc.id, path.display())),
                Err(StoreError::Duplicate(id)) => saved.push(format!(
                    "{id} is already in the store: skipped {}",
                    path.display()
                )),
                Err(e) => return Err(e),
            }
        }
        Ok(saved)
    })?;
    write_stdout(format!("{}\n", saved.join("\n")).as_bytes())
}

pub fn delete(args: DeleteArgs) -> anyhow::Result<()> {
    let id = with_store(&args.store, async |s| s.delete(&args.id).await)?;
    write_stdout(format!("deleted {id}\n").as_bytes())
}

/// Saves a fresh run. The run has ended well whatever happens here: when the store cannot take
/// the result, the document is written to a file and the message says how to add it later;
/// when no file can be written either, the document itself goes to standard error.
pub fn save_run(args: &StoreArgs, doc: &ResultDoc) {
    let Err(error) = with_store(args, async |s| s.save(doc).await) else {
        return;
    };
    let preferred: Option<PathBuf> = match Location::parse(args.db.as_deref()) {
        Ok(Location::Sqlite(path)) => path.parent().map(PathBuf::from),
        _ => store::data_dir().ok(),
    };
    let kept = match store::keep_aside(doc, preferred.as_deref()) {
        Ok(path) => format!(
            "The result is kept in {}; add it later with `iomark import {}`.",
            path.display(),
            path.display()
        ),
        Err(e) => format!(
            "It could not be kept in a file either ({e}); here it is, to import later:\n{}",
            serde_json::to_string_pretty(doc).unwrap_or_default()
        ),
    };
    to_stderr(&format!(
        "warning: the result was not saved: {error}. {kept}\n"
    ));
}
