//! `iomark compare`: saved runs side by side.

use crate::cli::CompareArgs;
use crate::output::{compare, Style};

use super::{json_or, short_id, with_store, write_stdout};

/// The most earlier runs read for the run-to-run spread, newest first.
const EARLIER: usize = 20;

/// Earlier runs that may be of the baseline's device with its profile (by their history
/// lines; `compare` itself keeps only those of the same device and method), newest first.
async fn earlier_runs(
    s: &iomark_store::Store,
    docs: &[iomark_result::result::ResultDoc],
) -> Result<Vec<iomark_result::result::ResultDoc>, iomark_store::StoreError> {
    let Some(base) = docs.first() else {
        return Ok(Vec::new());
    };
    let lines = s.history().list(None).await?;
    let device = lines
        .iter()
        .find(|l| l.id == base.id)
        .and_then(|l| l.device.clone());
    let mut earlier = Vec::new();
    for line in lines {
        if earlier.len() == EARLIER {
            break;
        }
        let candidate = line.profile == base.settings.profile && line.device == device;
        if !candidate || docs.iter().any(|d| d.id == line.id) {
            continue;
        }
        let doc = s.history().document(&line.id).await?;
        if doc.device_label() == base.device_label() {
            earlier.push(doc);
        }
    }
    Ok(earlier)
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let comparison = with_store(&args.store, async |s| {
        let mut docs = Vec::new();
        for id in &args.ids {
            docs.push(s.history().get(id).await?);
        }
        let earlier = earlier_runs(s, &docs).await?;
        let mut comparison = iomark_result::compare::compare(
            &docs,
            &earlier,
            iomark_result::compare::Earlier::Saved,
        );
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
