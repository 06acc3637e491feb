//! The commands that read and change the store: `history`, `show`, `import`, `delete`.

use anyhow::Context;

use crate::cli::{DeleteArgs, HistoryArgs, ImportArgs, ShowArgs};
use crate::output::{history, table, Style};
use iomark_result::result::ResultDoc;
use iomark_store::StoreError;

use super::{json_or, with_store, write_stdout};

pub fn list(args: HistoryArgs) -> anyhow::Result<()> {
    let runs = with_store(&args.store, async |s| s.history().list(args.limit).await)?;
    let text = json_or(args.json, &runs, |runs| {
        history::render(runs, Style::stdout())
    })?;
    write_stdout(text.as_bytes())
}

pub fn show(args: ShowArgs) -> anyhow::Result<()> {
    let doc = with_store(&args.store, async |s| s.history().get(&args.id).await)?;
    let text = if doc.langs.is_some() {
        crate::output::langs::render(&doc, Style::stdout())
    } else if doc.verify.is_some() {
        crate::output::verify::render(&doc, Style::stdout())
    } else if doc.health.is_some() {
        crate::output::health::render(&doc, Style::stdout())
    } else {
        table::render(&doc, None, Style::stdout())
    };
    write_stdout(text.as_bytes())
}

pub fn import(args: ImportArgs) -> anyhow::Result<()> {
    let mut docs = Vec::new();
    for path in &args.files {
        // A file far larger than any result is refused unread.
        let size = std::fs::metadata(path)
            .with_context(|| format!("{}: cannot read", path.display()))?
            .len();
        if size > iomark_result::result::validate::MAX_DOCUMENT_BYTES as u64 {
            anyhow::bail!(
                "{}: {size} bytes, more than the {} a result can be",
                path.display(),
                iomark_result::result::validate::MAX_DOCUMENT_BYTES
            );
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        let doc = ResultDoc::from_json(&text)
            .map_err(|reason| anyhow::anyhow!("{}: {reason}", path.display()))?;
        docs.push((path, doc));
    }
    // Every file is checked before any is added, so a bad one leaves the store as it was: a run
    // already there is skipped only when it is the same run, and refused when the id names
    // different figures.
    let saved = with_store(&args.store, async |s| {
        for (path, doc) in &docs {
            // By its whole id: one lookup of the key, not a scan for a prefix.
            match s.history().document(&doc.id).await {
                Ok(stored) if same(&stored, doc) => {}
                Ok(_) => {
                    return Err(StoreError::Invalid(format!(
                    "{}: a different run with id {} is already in the store; nothing was imported",
                    path.display(),
                    doc.id
                )))
                }
                Err(StoreError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        // Saved 500 to a transaction: a commit per run was most of the time (bench/import-scale).
        let all: Vec<&ResultDoc> = docs.iter().map(|(_, doc)| doc).collect();
        let new = s.bulk_history().save_all(&all).await?;
        let outcomes: Vec<_> = docs
            .iter()
            .zip(new)
            .map(|((path, doc), new)| (new, path, doc))
            .collect();
        // Each device's aggregates once, not once per run (a killed import leaves them marked
        // stale, for the next import or `iomark serve` of this store to refresh).
        s.refresh_bulk().await?;
        // Each id as short as the store allows once every run is in, all found at once.
        let ids: Vec<&str> = outcomes.iter().map(|(_, _, doc)| doc.id.as_str()).collect();
        let short = s.history().short_ids(&ids).await?;
        let mut saved = Vec::new();
        for ((new, path, _), id) in outcomes.into_iter().zip(short) {
            saved.push(if new {
                format!("imported {id} from {}", path.display())
            } else {
                format!("{id} is already in the store: skipped {}", path.display())
            });
        }
        Ok(saved)
    })?;
    write_stdout(format!("{}\n", saved.join("\n")).as_bytes())
}

/// Whether two documents say the same, field by field.
fn same(a: &ResultDoc, b: &ResultDoc) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

pub fn delete(args: DeleteArgs) -> anyhow::Result<()> {
    let id = with_store(&args.store, async |s| s.history().delete(&args.id).await)?;
    write_stdout(format!("deleted {id}\n").as_bytes())
}
