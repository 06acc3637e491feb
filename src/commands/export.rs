//! `iomark export` and `iomark plot`: saved runs as files.

use std::path::Path;

use anyhow::{bail, Context};

use crate::cli::{ExportArgs, FormatArg, PlotArgs, PlotKind};
use crate::export::{self, chart, Format};

use super::write_stdout;
use super::{load_all, with_store};

pub fn export(args: ExportArgs) -> anyhow::Result<()> {
    let format = match args.format {
        FormatArg::Json => Format::Json,
        FormatArg::Csv => Format::Csv,
        FormatArg::Md => Format::Markdown,
        FormatArg::Html => Format::Html,
    };
    if let Some(path) = &args.output {
        check_writable(path)?;
    }
    let doc = with_store(&args.store, async |s| s.get(&args.id).await)?;
    let bytes = export::exporter(format)
        .export(&doc)
        .map_err(anyhow::Error::msg)?;
    match &args.output {
        Some(path) => write_file(path, &bytes),
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
    };
    let extension = args
        .output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let png = match extension.as_deref() {
        Some("svg") => false,
        Some("png") => true,
        _ => bail!(
            "--output {}: the chart's file name must end in .svg or .png",
            args.output.display()
        ),
    };
    check_writable(&args.output)?;
    let docs = load_all(&args.store, &args.ids)?;
    let refs: Vec<_> = docs.iter().collect();
    if png {
        // Drawn to a temporary name, so a failure leaves no half-written file behind.
        let partial = args.output.with_extension("partial.png");
        let drawn = chart::png(kind, &refs, &partial);
        if let Err(e) = drawn {
            let _ = std::fs::remove_file(&partial);
            bail!("{e}");
        }
        std::fs::rename(&partial, &args.output)
            .with_context(|| format!("cannot write {}", args.output.display()))?;
    } else {
        let svg = chart::svg(kind, &refs).map_err(anyhow::Error::msg)?;
        write_file(&args.output, svg.as_bytes())?;
    }
    write_stdout(format!("wrote {}\n", args.output.display()).as_bytes())
}

/// Refuses, before any work, an output whose folder does not exist.
fn check_writable(path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!("{}: no such directory", dir.display());
    }
    if path.is_dir() {
        bail!("{}: is a directory; give a file name", path.display());
    }
    Ok(())
}

/// Writes the whole file or nothing: to a temporary name beside it, then renamed.
fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let partial = path.with_file_name(format!(".{name}.partial"));
    let written = std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}
