//! One module per subcommand: each ties the layers together for one job.

pub mod compare;
pub mod export;
pub mod history;
pub mod info;
pub mod langs;
pub mod run;

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use crate::cli::StoreArgs;
use crate::output::Style;
use crate::result::ResultDoc;

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
        history::save_run(store, doc);
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
