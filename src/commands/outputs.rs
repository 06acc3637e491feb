//! Where a measuring command's result goes, settled once from its arguments and checked before
//! anything is measured (as ripgrep settles its flags into one value): the store (unless
//! `--no-save`), the `--json` destination, the progress display, the label. Then the result is
//! started, made into a document and published from here alone.

use std::path::Path;

use super::destination::Destination;
use super::session;
use crate::cli::{ProgressArg, ResultArgs};
use crate::output::progress::{Mode, Progress};
use crate::output::Style;
use iomark_export::{json::Json, Exporter};
use iomark_result::result::{self, Host, ResultDoc, Settings, Target};
use iomark_store::Location;

pub struct Outputs {
    /// The store the result is saved to, and the `--db` flag that names it in the commands
    /// shown (empty for the default store); none with `--no-save`.
    store: Option<(Location, String)>,
    json: Option<Destination>,
    mode: Mode,
    label: Option<String>,
    /// Only the report, or only the document when it goes to standard output.
    quiet: bool,
}

impl Outputs {
    /// Checks every destination: the store's location (not opened until there is a result)
    /// and the `--json` file.
    pub fn settle(
        args: &ResultArgs,
        progress: ProgressArg,
        quiet: bool,
    ) -> anyhow::Result<Outputs> {
        let store = if args.no_save {
            None
        } else {
            let location = args.store.location().map_err(anyhow::Error::msg)?;
            let db = match &args.store.db {
                Some(named) => format!(" --db {}", super::shell_quote(&named.display())),
                None => String::new(),
            };
            Some((location, db))
        };
        let json = args
            .json
            .as_deref()
            .map(|path| Destination::check("--json", path))
            .transpose()?;
        let mode = match (quiet, progress) {
            (true, _) | (_, ProgressArg::None) => Mode::Silent,
            (false, ProgressArg::Json) => Mode::Json,
            (false, ProgressArg::Auto) => Mode::Human,
        };
        Ok(Outputs {
            store,
            json,
            mode,
            label: args.label.clone(),
            quiet,
        })
    }

    /// The progress display these outputs call for, on standard error.
    pub fn progress(&self) -> Progress {
        Progress::with_mode(Style::stderr(), self.mode)
    }

    /// The result document of a run begun at `begun`, on `target`, measured as `settings` says,
    /// with its label.
    pub fn document(&self, begun: Begun, target: Target, settings: Settings) -> ResultDoc {
        let mut doc = ResultDoc::new(begun.host, target, begun.started_at, settings);
        doc.label = self.label.clone();
        doc
    }

    /// A finished run's last steps: the report (on stdout, or on stderr when the document goes
    /// to stdout, and not at all then when quiet), the store and where the run was saved
    /// (unless quiet), and the document where `--json` says.
    pub fn publish(self, doc: &ResultDoc, report: impl Fn(Style) -> String) -> anyhow::Result<()> {
        let json_to_stdout = self.json.as_ref().is_some_and(Destination::is_stdout);
        let say = |text: &str| {
            if json_to_stdout {
                crate::output::to_stderr(text);
                Ok(())
            } else {
                super::write_stdout(text.as_bytes())
            }
        };
        if json_to_stdout {
            if !self.quiet {
                say(&report(Style::stderr()))?;
            }
        } else {
            say(&report(Style::stdout()))?;
        }
        if let Some((location, db)) = &self.store {
            if let Some(id) = session::save_run(location, db, doc) {
                if !self.quiet {
                    say(&format!(
                        "Saved as {id}: `iomark show {id}{db}`, `iomark export {id}{db} --format html -o report.html`\n",
                    ))?;
                }
            }
        }
        if let Some(destination) = self.json {
            destination.write(&Json.export(doc)?)?;
        }
        Ok(())
    }
}

/// When and on what a run began: the host, probed, and the time, taken before measuring.
pub struct Begun {
    host: Host,
    started_at: String,
}

impl Begun {
    pub fn now() -> Begun {
        Begun {
            host: iomark_core::probe::host::probe(Path::new("/")),
            started_at: result::now_rfc3339(),
        }
    }

    pub fn host(&self) -> &Host {
        &self.host
    }
}
