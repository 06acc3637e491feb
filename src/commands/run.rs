//! `iomark run`: options → plan → suite on the engine → result document → table, store, JSON.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::write_stdout;
use crate::cli::{ProgressArg, RunArgs};
use crate::engine;
use crate::output::progress::{Mode, Progress};
use crate::output::{table, Style};
use crate::result::ResultDoc;
use crate::suite::{self, verdicts, Plan};

/// Where the test runs: PATH, checked to be an existing directory, made absolute so that every
/// report names it unambiguously.
pub(crate) fn directory(path: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(std::fs::canonicalize(&dir).unwrap_or(dir)),
        Ok(_) => bail!(
            "{}: not a directory (give the directory to test, on the filesystem to measure)",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{}: no such directory", dir.display())
        }
        Err(e) => bail!("{}: {e}", dir.display()),
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if let Some(device) = args.device.clone() {
        return run_device(args, &device);
    }
    let dir = directory(args.path.as_deref())?;
    let target = crate::probe::local_target(&dir);
    let mut options = args.options();
    options.thermometer = Some(crate::probe::thermal::local);
    let plan = Plan::new(options, target.free_bytes)?;
    let (engine, fallback) = engine::select(args.engine.into()).context("--engine io_uring")?;

    if args.print_fio {
        let text = suite::fio::job_file(&plan, &dir, engine)?;
        return write_stdout(text.as_bytes());
    }
    // Every destination is checked before anything is measured.
    let json = super::check_destinations(args.no_save, &args.store, args.json.as_deref())?;

    let host = crate::probe::host::probe(Path::new("/"));
    let started_at = crate::result::now_rfc3339();
    let mode = match (args.quiet, args.progress) {
        (true, _) | (_, ProgressArg::None) => Mode::Silent,
        (false, ProgressArg::Json) => Mode::Json,
        (false, ProgressArg::Auto) => Mode::Human,
    };
    let progress = Progress::with_mode(Style::stderr(), mode);
    let mut warnings = Vec::new();
    if let Some(reason) = &fallback {
        let warning = verdicts::engine_fallback(reason);
        progress.line(&format!("note: {}", warning.message));
        warnings.push(warning);
    }
    warnings.extend(crate::probe::bottleneck::warnings(&host, &target));
    let outcome = suite::run(&plan, &dir, engine, &progress, &target)?;
    drop(progress);
    warnings.extend(outcome.warnings);

    let mut doc = ResultDoc::new(host, target, started_at, outcome.settings);
    doc.label = args.label.clone();
    doc.price_usd = args.price;
    doc.tests = outcome.tests;
    doc.warnings = warnings;
    doc.score = outcome.score;

    let file_path = outcome.file_path.display().to_string();
    super::publish(
        &doc,
        |style| table::render(&doc, Some(&file_path), style),
        json,
        (!args.no_save).then_some(&args.store),
        args.quiet,
    )
}

/// `--device`: the surface profile over a raw device, read-only.
fn run_device(args: RunArgs, device: &Path) -> anyhow::Result<()> {
    if args.profile != suite::Profile::Surface {
        anyhow::bail!(
            "--device: only the surface profile reads a raw device (read-only); `iomark verify \
             --device` checks its capacity"
        );
    }
    let json = super::check_destinations(args.no_save, &args.store, args.json.as_deref())?;
    let dev = crate::engine::rawdev::open(device, false)?;
    let mut options = args.options();
    options.size = Some(dev.size);
    let plan = Plan::new(options, None)?;
    let target = crate::probe::device_target(&dev.path, &dev.number);
    let host = crate::probe::host::probe(Path::new("/"));
    let started_at = crate::result::now_rfc3339();
    let progress = Progress::with_mode(
        Style::stderr(),
        if args.quiet {
            Mode::Silent
        } else {
            Mode::Human
        },
    );
    let outcome = suite::runner::run_device(&plan, &dev, &progress)?;
    drop(progress);
    drop(dev);
    let mut doc = ResultDoc::new(host, target, started_at, outcome.settings);
    doc.label = args.label.clone();
    doc.price_usd = args.price;
    doc.score = outcome.score;
    super::publish(
        &doc,
        |style| table::render(&doc, None, style),
        json,
        (!args.no_save).then_some(&args.store),
        args.quiet,
    )
}
