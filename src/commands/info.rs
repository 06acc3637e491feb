//! `iomark info`: the host and the storage under a path, and the bottlenecks found.

use std::path::PathBuf;

use anyhow::bail;

use crate::cli::InfoArgs;
use crate::output::{info, Style};
use iomark_result::result::Info;

pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let path = args.path.unwrap_or_else(|| PathBuf::from("."));
    if let Err(error) = std::fs::metadata(&path) {
        if error.kind() == std::io::ErrorKind::NotFound {
            bail!("{}: no such file or directory", path.display());
        }
        bail!("{}: {error}", path.display());
    }
    let host = iomark_core::probe::host::probe(std::path::Path::new("/"));
    let target = iomark_core::probe::local_target(&path);
    let warnings = iomark_core::probe::bottleneck::warnings(&host, &target);
    let report = Info {
        host,
        target,
        warnings,
    };
    let text = super::json_or(args.json, &report, |r| info::render(r, Style::stdout()))?;
    super::write_stdout(text.as_bytes())
}
