//! One module per subcommand: each ties the rooms together for one job. What several share:
//! `outputs.rs` (where a measured result goes, settled before measuring, and publishing it),
//! `session.rs` (the store, opened once per command), `destination.rs` (files users name), and
//! here the few helpers for what commands print.
//!
//! What lives where: one file per subcommand, tying the rooms together for one job; `outputs.rs`
//! settles a measuring command's outputs once, before anything is measured (`Outputs`: the store's
//! location, the `--json` destination, the progress mode, the label), makes the document
//! (`Begun::now()` probes the host and takes the time; `Outputs::document`) and publishes it
//! (report, store, `export::json`); `session.rs` is the store as commands use it: one runtime, one
//! pool, one migration per command (`with_store`; `save_run` saves and finds the short id in one
//! opening, the result written aside first and kept there if the store cannot take it;
//! `IOMARK_LOG=store` logs each opening); `destination.rs` checks the directories and files users
//! name (`--json`, `-o`); `shell.rs` makes completions and the manual page; `store.rs` looks after
//! the store (`backup`: the copy made into the checked destination's temporary file, checked, then
//! renamed into place); `mod.rs` holds `Stopped`, the error a command returns when the user stopped
//! it. It knows nothing of how I/O is done.

mod client;
pub mod compare;
pub mod destination;
pub mod export;
pub mod health;
pub mod history;
pub mod info;
pub mod langs;
pub mod outputs;
pub mod run;
pub mod serve;
pub mod session;
pub mod shell;
pub mod store;
pub mod submit;
pub mod ui;
pub mod verify;

use std::io::Write;

pub use session::{load_all, with_store};

/// A command that stopped on the user's signal before it finished, with what was left where:
/// `main` says so and exits with the signal's status (nothing under `commands/` exits).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Stopped(pub String);

/// A command whose answer is its exit status (`health`: 0 to 3, as monitors read
/// them), said in full before it returns: `main` exits with it and prints nothing more.
#[derive(Debug, thiserror::Error)]
#[error("exit status {0}")]
pub struct Exit(pub i32);

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

/// `println!` through [`write_stdout`]: a closed pipe (`iomark submit … | head -2`) ends no
/// command, where `println!` panics.
macro_rules! say {
    () => {
        $crate::commands::write_stdout(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::commands::write_stdout(format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}
pub(crate) use say;

/// `eprintln!` that never panics: a closed standard error (`… 2>&1 | head -1`) is not an error
/// of the command's.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::output::to_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use note;

/// `print!` through [`write_stdout`], flushed (a question before its answer).
macro_rules! ask {
    ($($arg:tt)*) => {
        $crate::commands::write_stdout(format!($($arg)*).as_bytes())
    };
}
pub(crate) use ask;

/// Writes to standard output; a closed pipe (`iomark run | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// The shortest beginning of `id` that names one run in the store (the whole id if the store
/// cannot say).
pub async fn short_id(store: &iomark_store::Store, id: &str) -> String {
    store
        .history()
        .short_id(id)
        .await
        .unwrap_or_else(|_| id.to_string())
}

/// `text` as one word for a POSIX shell.
pub fn shell_quote(text: &str) -> String {
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
    fn words_are_quoted_for_a_shell() {
        assert_eq!(shell_quote("/d/unsaved/x.json"), "/d/unsaved/x.json");
        assert_eq!(shell_quote("/tmp/my store.db"), "'/tmp/my store.db'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        // A URL's password is shown as *** before it is quoted (`Location::display`).
        let url = iomark_store::Location::parse(Some("postgres://me:secret@db/iomark")).unwrap();
        assert_eq!(shell_quote(&url.display()), "'postgres://me:***@db/iomark'");
    }
}
