//! `iomark compare`: saved runs side by side.

use crate::cli::CompareArgs;
use crate::output::{compare, Style};

use super::history::with_store;
use super::run::write_stdout;

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let docs = with_store(&args.store, async |s| {
        let mut docs = Vec::new();
        for id in &args.ids {
            docs.push(s.get(id).await?);
        }
        Ok(docs)
    })?;
    let comparison = crate::compare::compare(&docs);
    let text = if args.json {
        let mut text = serde_json::to_string_pretty(&comparison)?;
        text.push('\n');
        text
    } else {
        compare::render(&comparison, Style::stdout())
    };
    write_stdout(text.as_bytes())
}
