//! `iomark export` and `iomark plot`: saved runs as files.

use anyhow::bail;

use crate::cli::{ExportArgs, FormatArg, PlotArgs, PlotKind};
use iomark_export::{self as export, chart, Format};

use super::destination::Destination;
use super::write_stdout;
use super::{load_all, with_store};

pub fn export(args: ExportArgs) -> anyhow::Result<()> {
    let format = match args.format {
        FormatArg::Json => Format::Json,
        FormatArg::Csv => Format::Csv,
        FormatArg::Md => Format::Markdown,
        FormatArg::Html => Format::Html,
    };
    let destination = args
        .output
        .as_deref()
        .map(|path| Destination::check("--output", path))
        .transpose()?;
    let doc = with_store(&args.store, async |s| s.history().get(&args.id).await)?;
    let bytes = export::exporter(format).export(&doc)?;
    match destination {
        Some(destination) => write_and_say(destination, &bytes),
        None => write_stdout(&bytes),
    }
}

pub fn plot(args: PlotArgs) -> anyhow::Result<()> {
    let kind = match args.kind {
        PlotKind::Bars => chart::Kind::Bars,
        PlotKind::Timeline => chart::Kind::Timeline,
        PlotKind::Latency => chart::Kind::Latency,
        PlotKind::Histogram => chart::Kind::Histogram,
        PlotKind::Sweep => chart::Kind::Sweep,
        PlotKind::Surface => chart::Kind::Surface,
        PlotKind::Card => chart::Kind::Card,
        PlotKind::Health => chart::Kind::Health,
    };
    let png = is_png("--output", &args.output)?;
    let destination = Destination::check("--output", &args.output)?;
    let docs = load_all(&args.store, &args.ids)?;
    let refs: Vec<_> = docs.iter().collect();
    let bytes = if png {
        chart::png(kind, &refs)?
    } else {
        chart::svg(kind, &refs)?.into_bytes()
    };
    write_and_say(destination, &bytes)
}

/// Whether a chart's file is a PNG (else an SVG), from its name; any other name is refused.
pub fn is_png(flag: &str, file: &std::path::Path) -> anyhow::Result<bool> {
    let extension = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("svg") => Ok(false),
        Some("png") => Ok(true),
        _ => bail!(
            "{flag} {}: the chart's file name must end in .svg or .png",
            file.display()
        ),
    }
}

/// Writes the export or chart, then says where it went (on stdout, unless that is where it
/// went), the same for `export -o` and `plot -o`.
fn write_and_say(destination: Destination, bytes: &[u8]) -> anyhow::Result<()> {
    let path = destination.path().to_path_buf();
    let stdout = destination.is_stdout();
    destination.write(bytes)?;
    if !stdout {
        write_stdout(format!("wrote {}\n", path.display()).as_bytes())?;
    }
    Ok(())
}
