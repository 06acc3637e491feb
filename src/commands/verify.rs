//! `iomark verify`: on a filesystem (safe) or, with `--device … --destructive`, a raw device.
//! Checks every destination and the device first, then runs `verify`, then publishes the
//! result like any run.

use std::io::{IsTerminal, Write};

use anyhow::bail;

use super::destination::directory;
use super::outputs::{Begun, Outputs};
use super::Stopped;
use crate::cli::VerifyArgs;
use crate::output::verify as report;
use iomark_core::engine::rawdev::{self, RawDevice};
use iomark_core::verify::{self, files::Folder, Claim, Outcome};
use iomark_result::result::{self, Settings};
use iomark_result::units::format_size;

pub fn run(args: VerifyArgs) -> anyhow::Result<()> {
    if args.device.is_some() && !args.destructive {
        bail!(
            "--device writes to the device and destroys what is on it: add --destructive to go on \
             (to check a filesystem without harm, give its folder: iomark verify PATH)"
        );
    }
    let outputs = Outputs::settle(&args.result, args.progress, false)?;
    let progress = outputs.progress();
    let begun = Begun::now();
    let stop = iomark_core::interrupt::stop_flag();

    let (outcome, target) = match &args.device {
        Some(path) => {
            let mut dev = rawdev::open(path, true)?;
            let target = iomark_core::probe::device_target(&dev.path, &dev.number);
            confirm(&args, &dev, &target)?;
            let outcome = if args.full {
                iomark_core::interrupt::stop_gracefully();
                verify::full(&dev, &progress, stop)?
            } else {
                verify::probe(&mut dev, &progress)?
            };
            (outcome, target)
        }
        None => {
            let dir = directory(args.path.as_deref())?;
            let folder = Folder::open(&dir, args.size, args.resume)?;
            let (total, used) = iomark_core::space::size_and_used(&dir)?;
            let ours: u64 = (0..folder.state.files_done).map(|i| folder.len(i)).sum();
            let claim = Claim {
                claimed: Some(total),
                used_before: Some(used.saturating_sub(ours)),
            };
            if folder.resumed {
                progress.line(&format!(
                    "Resuming: {} of {} already written",
                    format_size(ours),
                    format_size(folder.state.planned_bytes)
                ));
            }
            iomark_core::interrupt::stop_gracefully();
            let folder_path = folder.path.clone();
            let outcome = verify::files(folder, args.keep, claim, &progress, stop)?;
            if let Outcome::Stopped { written } = outcome {
                return Err(Stopped(format!(
                    "stopped with {} written; `iomark verify {} --resume` goes on, or remove {}",
                    format_size(written),
                    dir.display(),
                    folder_path.display()
                ))
                .into());
            }
            (outcome, iomark_core::probe::local_target(&dir))
        }
    };
    let section = match outcome {
        Outcome::Done(section) => *section,
        Outcome::Stopped { written } => {
            return Err(Stopped(format!(
                "stopped with {} written; the device holds this run's pattern now",
                format_size(written)
            ))
            .into());
        }
    };
    drop(progress);
    let mut doc = outputs.document(begun, target, Settings::verify(&section));
    doc.verify = Some(section);
    outputs.publish(&doc, |style| report::render(&doc, style))
}

/// Shows the device and asks for its size to be typed back, unless `--yes`.
fn confirm(args: &VerifyArgs, dev: &RawDevice, target: &result::Target) -> anyhow::Result<()> {
    let model = target
        .device
        .as_ref()
        .and_then(|d| {
            let parts: Vec<&str> = [d.vendor.as_deref(), d.model.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            (!parts.is_empty()).then(|| parts.join(" "))
        })
        .unwrap_or_else(|| "no model name".into());
    let size = format_size(dev.size);
    if !args.yes && !std::io::stdin().is_terminal() {
        bail!(
            "nothing written to {} ({model}, {size}): nobody can confirm here; give --yes to go on without asking",
            dev.path.display()
        );
    }
    super::note!(
        "{}: {model}, {size}. Everything on it will be overwritten.",
        dev.path.display()
    );
    if args.yes {
        return Ok(());
    }
    crate::output::to_stderr(&format!("Type its size as shown ({size}) to go on: "));
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    if answer.trim() != size {
        bail!("nothing written: the size typed was not {size}");
    }
    Ok(())
}
