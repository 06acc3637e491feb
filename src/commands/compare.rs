//! `iomark compare`: saved runs side by side.

use crate::cli::CompareArgs;
use crate::output::{compare, Style};

use super::json_or;
use super::load_all;
use super::write_stdout;

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let docs = load_all(&args.store, &args.ids)?;
    let comparison = crate::compare::compare(&docs);
    let text = json_or(args.json, &comparison, |c| {
        compare::render(c, Style::stdout())
    })?;
    write_stdout(text.as_bytes())
}
