//! `iomark compare`: saved runs side by side.

use crate::cli::CompareArgs;
use crate::output::{compare, Style};

use super::json_or;
use super::load_all;
use super::write_stdout;

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let docs = load_all(&args.store, &args.ids)?;
    let mut comparison = crate::compare::compare(&docs);
    if !args.json {
        // People type ids: show each as short as the store allows (the JSON keeps them whole).
        for run in &mut comparison.runs {
            run.id = super::short_id(&args.store, &run.id);
        }
    }
    let text = json_or(args.json, &comparison, |c| {
        compare::render(c, Style::stdout())
    })?;
    write_stdout(text.as_bytes())
}
