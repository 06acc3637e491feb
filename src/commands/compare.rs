//! `iomark compare`: saved runs side by side.

use crate::cli::CompareArgs;
use crate::output::{compare, Style};

use super::{json_or, short_id, with_store, write_stdout};

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let comparison = with_store(&args.store, async |s| {
        let mut docs = Vec::new();
        for id in &args.ids {
            docs.push(s.history().get(id).await?);
        }
        let mut comparison = iomark_result::compare::compare(&docs);
        if !args.json {
            // People type ids: show each as short as the store allows (the JSON keeps them
            // whole).
            for run in &mut comparison.runs {
                run.id = short_id(s, &run.id).await;
            }
        }
        Ok(comparison)
    })?;
    let text = json_or(args.json, &comparison, |c| {
        compare::render(c, Style::stdout())
    })?;
    write_stdout(text.as_bytes())
}
