//! One module per subcommand: each ties the layers together for one job. What several share is
//! here: publishing a finished run, opening the store, and keeping a run the store cannot take.

pub mod compare;
pub mod destination;
pub mod export;
pub mod history;
pub mod info;
pub mod langs;
pub mod run;
pub mod serve;
pub mod shell;
pub mod submit;
pub mod verify;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::StoreArgs;
use crate::output::{to_stderr, Style};
use crate::result::ResultDoc;
use crate::store::{self, Location, Store, StoreError};
use destination::Destination;

/// A finished run's last steps: the report (on stdout, or on stderr when the document goes to
/// stdout, and not at all then with `quiet`), the store (unless `--no-save`) and where the run
/// was saved (unless `quiet`), and the document where `--json` says.
pub fn publish(
    doc: &ResultDoc,
    report: impl Fn(Style) -> String,
    json: Option<Destination>,
    store: Option<&StoreArgs>,
    quiet: bool,
) -> anyhow::Result<()> {
    let json_to_stdout = json.as_ref().is_some_and(Destination::is_stdout);
    let say = |text: &str| {
        if json_to_stdout {
            crate::output::to_stderr(text);
            Ok(())
        } else {
            write_stdout(text.as_bytes())
        }
    };
    // Quiet: the table alone, or the document alone when it goes to standard output.
    if json_to_stdout {
        if !quiet {
            say(&report(Style::stderr()))?;
        }
    } else {
        say(&report(Style::stdout()))?;
    }
    if let Some(store) = store {
        if save_run(store, doc) && !quiet {
            let db = db_flag(store.db.as_deref());
            let id = short_id(store, &doc.id);
            say(&format!(
                "Saved as {id}: `iomark show {id}{db}`, `iomark export {id}{db} --format html -o report.html`\n",
            ))?;
        }
    }
    if let Some(destination) = json {
        let mut text = serde_json::to_string_pretty(doc)?;
        text.push('\n');
        destination.write(text.as_bytes())?;
    }
    Ok(())
}

/// The shortest beginning of `id` that names one run in the store (the whole id if the store
/// cannot say).
/// Where a run's result will go, checked before anything is measured: the store it is saved
/// to (unless `--no-save`), and the `--json` file, whose destination is returned.
pub fn check_destinations(
    no_save: bool,
    store: &StoreArgs,
    json: Option<&Path>,
) -> anyhow::Result<Option<Destination>> {
    if !no_save {
        Location::parse(store.db.as_deref())?;
    }
    Ok(json
        .map(|path| Destination::check("--json", path))
        .transpose()?)
}

pub fn short_id(args: &StoreArgs, id: &str) -> String {
    with_store(args, async |s| s.short_id(id).await).unwrap_or_else(|_| id.to_string())
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

/// How long saving a run waits for another writer before the run is kept aside instead.
pub const SAVE_PATIENCE: Duration = Duration::from_secs(20);

/// Saves a fresh run. The run has ended well whatever happens here. The document is first
/// written aside (`unsaved/` beside the store) and that copy removed once the store holds it, so
/// nothing that stops the save (a locked store, Ctrl-C, a kill) loses the finished run; when the
/// store cannot take it, the message says where the copy is and gives the exact command that
/// adds it; when no file can be written either, the document itself goes to standard error.
pub fn save_run(args: &StoreArgs, doc: &ResultDoc) -> bool {
    let location = Location::parse(args.db.as_deref());
    let preferred: Option<PathBuf> = match &location {
        Ok(Location::Sqlite(path)) => path.parent().map(PathBuf::from),
        _ => store::data_dir().ok(),
    };
    let aside = store::keep_aside(doc, preferred.as_deref());
    let kept = match &aside {
        Ok(path) => format!(
            "The result is kept in {}; add it later with `{}`.",
            path.display(),
            import_command(path, args.db.as_deref())
        ),
        Err(e) => format!(
            "It could not be kept in a file either ({e}); here it is, to import later:\n{}",
            serde_json::to_string_pretty(doc).unwrap_or_default()
        ),
    };
    crate::interrupt::set_pending(Some(format!("the result was not saved. {kept}")));
    let saved = location.and_then(|location| {
        let shown = location.display();
        store::block_on(save_patiently(location, doc, shown))?
    });
    crate::interrupt::set_pending(None);
    match saved {
        Ok(()) => {
            if let Ok(path) = aside {
                let _ = std::fs::remove_file(path);
            }
            true
        }
        Err(error) => {
            to_stderr(&format!(
                "warning: the result was not saved: {error}. {kept}\n"
            ));
            false
        }
    }
}

/// Opens the store and saves `doc`, saying so if another writer makes it wait, and giving up
/// after [`SAVE_PATIENCE`].
async fn save_patiently(
    location: Location,
    doc: &ResultDoc,
    shown: String,
) -> Result<(), StoreError> {
    let save = async {
        let store = Store::open(location).await?;
        let outcome = store.save(doc).await;
        store.close().await;
        outcome
    };
    let mut save = std::pin::pin!(save);
    if let Ok(outcome) = tokio::time::timeout(Duration::from_secs(1), &mut save).await {
        return outcome;
    }
    to_stderr(&format!(
        "waiting for the result store {shown}: another program is writing to it (up to {} s)…\n",
        SAVE_PATIENCE.as_secs()
    ));
    match tokio::time::timeout(SAVE_PATIENCE, save).await {
        Ok(outcome) => outcome,
        Err(_) => Err(StoreError::Unavailable {
            location: shown,
            problem: store::Problem::Locked,
            detail: format!("still busy after {} s", SAVE_PATIENCE.as_secs() + 1),
        }),
    }
}

/// The command that imports `path` into the store `db` names (as given: `--db` or IOMARK_DB),
/// quoted for a POSIX shell; a password in a URL is shown as `***`.
fn import_command(path: &Path, db: Option<&str>) -> String {
    format!(
        "iomark import {}{}",
        shell_quote(&path.display().to_string()),
        db_flag(db)
    )
}

/// ` --db STORE` when the store was named, for commands to paste; else nothing.
fn db_flag(db: Option<&str>) -> String {
    db.map(|db| format!(" --db {}", shell_quote(&store::redact(db))))
        .unwrap_or_default()
}

/// `text` as one word for a POSIX shell.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@,%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_import_hint_names_the_store_it_failed_on() {
        assert_eq!(
            import_command(Path::new("/d/unsaved/x.json"), None),
            "iomark import /d/unsaved/x.json"
        );
        assert_eq!(
            import_command(Path::new("/a b/x.json"), Some("/tmp/my store.db")),
            "iomark import '/a b/x.json' --db '/tmp/my store.db'"
        );
        assert_eq!(
            import_command(Path::new("x.json"), Some("postgres://me:secret@db/iomark")),
            "iomark import x.json --db 'postgres://me:***@db/iomark'"
        );
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
