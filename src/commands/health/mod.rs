//! `iomark health`: one check of the filesystem PATH is on, published like any run.

use super::destination::directory;
use super::outputs::{Begun, Outputs};
use crate::cli::{HealthArgs, ProgressArg};
use crate::output::health as report;
use iomark_core::health::{self, DEFAULT_BUDGET};
use iomark_result::result::Settings;

pub fn run(args: HealthArgs) -> anyhow::Result<()> {
    let outputs = Outputs::settle(&args.result, ProgressArg::Auto, false)?;
    let begun = Begun::now();
    let dir = directory(args.path.as_deref())?;
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let section = health::check(
        std::path::Path::new("/"),
        &dir,
        args.budget.unwrap_or(DEFAULT_BUDGET),
    )?;
    let target = iomark_core::probe::local_target(&dir);
    let mut doc = outputs.document(begun, target, Settings::health(&section));
    doc.health = Some(section);
    outputs.publish(&doc, |style| report::render(&doc, style))
}
