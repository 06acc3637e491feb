//! `iomark health [PATH] --history`: the folder's checks from the store, oldest first, as a
//! table, and with `--chart FILE` drawn over time (the chart `iomark plot` draws, kind
//! `health`).

use std::path::Path;

use anyhow::bail;

use super::super::destination::Destination;
use super::super::export::is_png;
use super::super::{say, shell_quote, with_store, write_stdout};
use crate::cli::HealthArgs;
use crate::output::{health as report, Style};
use iomark_export::chart::{self, Kind};

pub fn show(args: &HealthArgs, dir: &Path) -> anyhow::Result<()> {
    let chart = match args.chart.as_deref() {
        None => None,
        Some(file) => {
            let png = is_png("--chart", file)?;
            Some((Destination::check("--chart", file)?, png))
        }
    };
    let path = dir.to_string_lossy();
    let saved = with_store(&args.result.store, async |s| {
        s.history().health_checks().await
    })?;
    let checks: Vec<_> = saved.iter().filter(|d| d.target.path == path).collect();
    if checks.is_empty() {
        bail!(
            "no health check of {path} in the store: `iomark health {}` makes one",
            shell_quote(&path)
        );
    }
    write_stdout(report::history(&checks, Style::stdout()).as_bytes())?;
    if let Some((destination, png)) = chart {
        let bytes = match png {
            true => chart::png(Kind::Health, &checks)?,
            false => chart::svg(Kind::Health, &checks)?.into_bytes(),
        };
        let written = destination.path().display().to_string();
        destination.write(&bytes)?;
        say!("wrote {written}")?;
    }
    Ok(())
}
