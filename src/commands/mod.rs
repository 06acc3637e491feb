//! One module per subcommand: each ties the layers together for one job. What several share is
//! here: publishing a finished run, opening the store, and keeping a run the store cannot take.

pub mod compare;
pub mod export;
pub mod history;
pub mod info;
pub mod langs;
pub mod run;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::StoreArgs;
use crate::output::{to_stderr, Style};
use crate::result::ResultDoc;
use crate::store::{self, Location, Store, StoreError};

/// A finished run's last steps: the report (on stdout, or on stderr when the document goes to
/// stdout), the store (unless `--no-save`), and the document where `--json` says.
pub fn publish(
    doc: &ResultDoc,
    report: impl Fn(Style) -> String,
    json: Option<&Path>,
    store: Option<&StoreArgs>,
) -> anyhow::Result<()> {
    let json_to_stdout = json == Some(Path::new("-"));
    if json_to_stdout {
        crate::output::to_stderr(&report(Style::stderr()));
    } else {
        write_stdout(report(Style::stdout()).as_bytes())?;
    }
    if let Some(store) = store {
        save_run(store, doc);
    }
    if let Some(path) = json {
        let mut text = serde_json::to_string_pretty(doc)?;
        text.push('\n');
        if json_to_stdout {
            write_stdout(text.as_bytes())?;
        } else {
            std::fs::write(path, text)
                .with_context(|| format!("--json: cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// Pretty JSON with a final newline, or the text `render` makes.
pub fn json_or<T: serde::Serialize>(
    json: bool,
    value: &T,
    render: impl FnOnce(&T) -> String,
) -> anyhow::Result<String> {
    if json {
        let mut text = serde_json::to_string_pretty(value)?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(render(value))
    }
}

/// Writes to standard output; a closed pipe (`iomark run | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

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
