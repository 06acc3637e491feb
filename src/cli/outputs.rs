//! The arguments that say where a result goes, declared once: the store (every command that
//! reads or writes it) and, for the commands that measure (`run`, `langs`, `verify`), the JSON
//! document, the label and `--no-save`.

use std::path::PathBuf;

use clap::Args;

use super::values::parse_label;
use iomark_store::Location;

/// Which store: the local history unless told otherwise.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The result store: a SQLite file, a postgres:// URL, or a PostgreSQL `key=value` string
    /// ("host=db user=iomark dbname=results") [default: $XDG_DATA_HOME/iomark/results.db,
    /// else ~/.local/share/iomark/results.db]
    #[arg(long, value_name = "PATH|URL", env = "IOMARK_DB", value_parser = parse_db)]
    pub db: Option<Location>,
}

impl StoreArgs {
    /// The store named, or the default local file (which needs a home folder to be found).
    pub fn location(&self) -> Result<Location, String> {
        match &self.db {
            Some(location) => Ok(location.clone()),
            None => Location::parse(None),
        }
    }
}

/// Checked when the arguments are read: an empty value, or a URL of another kind, is refused
/// before anything is measured.
fn parse_db(text: &str) -> Result<Location, String> {
    Location::parse(Some(text)).map_err(|e| e.trim_start_matches("--db: ").to_string())
}

/// `iomark serve --read-db`: a PostgreSQL URL, and nothing else (a replica is PostgreSQL's).
pub fn parse_replica(text: &str) -> Result<Location, String> {
    match Location::parse(Some(text)) {
        Ok(location @ Location::Postgres(_)) => Ok(location),
        Ok(_) => Err("a read replica is a postgres:// URL".into()),
        Err(e) => Err(e.trim_start_matches("--db: ").to_string()),
    }
}

/// Where a measured result goes, besides the report.
#[derive(Debug, Args)]
pub struct ResultArgs {
    /// Write the result document (JSON) to FILE; `-` writes it to standard output and the
    /// report to standard error
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// A label for this result, e.g. "SanDisk Extreme 64GB in USB 3 reader" (at most 200
    /// characters, no control characters)
    #[arg(long, value_name = "TEXT", value_parser = parse_label)]
    pub label: Option<String>,

    /// Do not save the result to the store (see `iomark history`)
    #[arg(long)]
    pub no_save: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}
