//! `iomark run`: options → plan → suite on the engine → result document → table, store, JSON.

use std::path::Path;

use anyhow::Context;

use super::destination::directory;
use super::outputs::{Begun, Outputs};
use super::write_stdout;
use crate::cli::RunArgs;
use crate::output::table;
use iomark_core::engine;
use iomark_core::suite::{self, verdicts, Plan};

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if let Some(device) = args.device.clone() {
        return run_device(args, &device);
    }
    let dir = directory(args.path.as_deref())?;
    let target = iomark_core::probe::local_target(&dir);
    let transport = target.device.as_ref().and_then(|d| d.transport);
    let default = suite::Profile::default_for(transport);
    let mut options = args.options(default);
    options.thermometer = Some(iomark_core::probe::thermal::local);
    let plan = Plan::new(options, target.free_bytes)?;
    let (engine, fallback) = engine::select(args.engine.into()).context("--engine io_uring")?;

    if args.print_fio {
        let text = suite::fio::job_file(&plan, &dir, engine)?;
        return write_stdout(text.as_bytes());
    }
    // Every destination is checked before anything is measured.
    let outputs = Outputs::settle(&args.result, args.progress, args.quiet)?;

    let begun = Begun::now();
    let progress = outputs.progress();
    let mut warnings = Vec::new();
    if let Some(reason) = &fallback {
        let warning = verdicts::engine_fallback(reason);
        progress.line(&format!("note: {}", warning.message));
        warnings.push(warning);
    }
    warnings.extend(iomark_core::probe::bottleneck::warnings(
        begun.host(),
        &target,
    ));
    if args.profile.is_none() && default != suite::Profile::Standard {
        progress.line(&format!(
            "note: profile {} (CrystalDiskMark's NVMe SSD preset), as the target is an NVMe \
             drive; --profile standard runs the usual table",
            default.name()
        ));
    }
    let outcome = suite::run(&plan, &dir, engine, &progress, &target)?;
    drop(progress);
    warnings.extend(outcome.warnings);

    let mut doc = outputs.document(begun, target, outcome.settings);
    doc.price_usd = args.price;
    doc.tests = outcome.tests;
    doc.warnings = warnings;
    doc.score = outcome.score;

    let file_path = outcome.file_path.display().to_string();
    outputs.publish(&doc, |style| table::render(&doc, Some(&file_path), style))
}

/// `--device`: the surface profile over a raw device, read-only.
fn run_device(args: RunArgs, device: &Path) -> anyhow::Result<()> {
    if args.profile.is_some_and(|p| p != suite::Profile::Surface) {
        anyhow::bail!(
            "--device: only the surface profile reads a raw device (read-only); `iomark verify \
             --device` checks its capacity"
        );
    }
    let outputs = Outputs::settle(&args.result, args.progress, args.quiet)?;
    let dev = iomark_core::engine::rawdev::open(device, false)?;
    let mut options = args.options(suite::Profile::Surface);
    options.size = Some(dev.size);
    let plan = Plan::new(options, None)?;
    let target = iomark_core::probe::device_target(&dev.path, &dev.number);
    let begun = Begun::now();
    let progress = outputs.progress();
    let outcome = suite::runner::run_device(&plan, &dev, &progress)?;
    drop(progress);
    drop(dev);
    let mut doc = outputs.document(begun, target, outcome.settings);
    doc.price_usd = args.price;
    doc.score = outcome.score;
    outputs.publish(&doc, |style| table::render(&doc, None, style))
}
