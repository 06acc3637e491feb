//! `iomark health`: one check of the filesystem PATH is on, published like any run, then told
//! where people and monitors look (`tell.rs`: a metrics file, a webhook, the login message, the
//! journal, a monitor's exit status); or a timer that runs the same check (`timer.rs`, its
//! units' text in `units.rs`). What they share is here: the name of a watched path's files, and
//! which files are iomark's to replace or remove.

mod history;
mod share;
pub(crate) mod tell;
mod timer;
mod units;

use std::path::Path;

use anyhow::{bail, Context};

use super::destination::directory;
use super::outputs::{Begun, Outputs};
use super::Exit;
use crate::cli::{HealthArgs, ProgressArg};
use crate::output::health as report;
use iomark_core::health::{self, DEFAULT_BUDGET};
use iomark_export::health::WRITTEN_BY;
use iomark_result::result::Settings;

pub fn run(args: HealthArgs) -> anyhow::Result<()> {
    let watched = || -> anyhow::Result<std::path::PathBuf> {
        let dir = directory(args.path.as_deref())?;
        Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
    };
    if args.install_timer {
        return timer::install(&args, &watched()?);
    }
    if args.remove_timer {
        return timer::remove(&args, &watched()?);
    }
    if args.history {
        return history::show(&args, &watched()?);
    }
    if let Some(url) = &args.unshare {
        return share::withdraw(url, &watched()?);
    }
    // A check's status is its verdict's (0 healthy, 1 watch, 2 failing or lying, as a
    // monitor and `smartctl -H` read one), so `iomark health /media/card || notify` is told;
    // 3 is "unknown": no check could be made, or it was not saved.
    match watched().and_then(|dir| check(&args, &dir)) {
        Err(error)
            if error.downcast_ref::<Exit>().is_none()
                && error.downcast_ref::<super::Stopped>().is_none() =>
        {
            let line = format!("{error:#}").replace('\n', " ");
            match args.monitor {
                true => super::say!("HEALTH UNKNOWN - {line}")?,
                false => crate::output::print_error(&line),
            }
            Err(Exit(3).into())
        }
        other => other,
    }
}

/// One check: every destination checked first, then the check, the report and the store, then
/// the warnings. The verdict's status is the command's answer.
fn check(args: &HealthArgs, dir: &Path) -> anyhow::Result<()> {
    if args.monitor && args.result.json.as_deref() == Some(Path::new("-")) {
        bail!("--monitor prints its line on standard output: give --json a file");
    }
    let outputs = Outputs::settle(&args.result, ProgressArg::Auto, args.monitor)?;
    let tell = tell::Tell::settle(args, dir)?;
    let share = share::Share::settle(args, dir)?;
    let begun = Begun::now();
    let section = health::check(Path::new("/"), dir, args.budget.unwrap_or(DEFAULT_BUDGET))?;
    let target = iomark_core::probe::local_target(dir);
    let mut doc = outputs.document(begun, target, Settings::health(&section));
    doc.health = Some(section);
    let journal = tell::stdout_is_journal();
    // A monitor's first line is its status; the report below it is its long output.
    if args.monitor {
        super::say!("{}", iomark_export::health::monitor_line(&doc))?;
    }
    outputs.publish(&doc, |style| {
        let text = report::render(&doc, style);
        match journal {
            true => format!("{}\n{text}", tell::journal_line(&doc)),
            false => text,
        }
    })?;
    let told = tell.tell(&doc);
    // Shared after it is saved and told: a site away loses nothing (the next share sends it).
    let told = match share.map(|s| s.send(args, dir, &doc)) {
        Some(Err(shared)) => match told {
            Ok(()) => Err(shared),
            Err(told) => Err(told.context(format!("{shared:#}"))),
        },
        _ => told,
    };
    let status = doc.health.as_ref().map_or(0, |h| h.verdict.exit_status());
    // The answer is the verdict; what could not be told is said beside it (a healthy check
    // not told everywhere is 1, but for a monitor, whose 1 means "watch").
    if let Err(error) = told {
        crate::output::print_error(&format!("{error:#}"));
        if status == 0 && !args.monitor {
            return Err(Exit(1).into());
        }
    }
    match status {
        0 => Ok(()),
        status => Err(Exit(status).into()),
    }
}

/// Whether a program is on the PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// `iomark-health-` and the path as systemd escapes one (`systemd-escape --path`):
/// `/media/card` → `iomark-health-media-card`, `/` → `iomark-health--`. The name of the units
/// and of the login message of one watched filesystem.
pub fn stem(dir: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let text = dir.as_os_str().as_bytes();
    let parts: Vec<&[u8]> = text
        .split(|b| *b == b'/')
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return "iomark-health--".into();
    }
    let mut out = String::from("iomark-health-");
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('-');
        }
        for (j, b) in part.iter().enumerate() {
            let plain = b.is_ascii_alphanumeric() || b"_:".contains(b) || (*b == b'.' && i + j > 0);
            match plain {
                true => out.push(*b as char),
                false => out.push_str(&format!("\\x{b:02x}")),
            }
        }
    }
    out
}

/// Refuses `path` unless it is missing or a regular file iomark wrote (its first words
/// [`WRITTEN_BY`], or the login message's): a file of someone else's is never replaced.
pub fn ours(path: &Path, flag: &str) -> anyhow::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => bail!("{flag}: {}: {e}", path.display()),
        Ok(meta) if meta.is_file() && written_by_us(path) => Ok(true),
        Ok(_) => bail!(
            "{flag}: {} is not iomark's (it does not begin \"{WRITTEN_BY}\"): it was left as it \
             is; move it away or choose another name",
            path.display()
        ),
    }
}

/// Removes `path` where it is a file iomark wrote (whether it was there); a missing one is
/// fine.
pub fn remove_ours(path: &Path) -> anyhow::Result<bool> {
    let there = ours(path, "remove")?;
    if there {
        std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
    }
    Ok(there)
}

fn written_by_us(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(64).read_to_end(&mut head))
        .is_ok_and(|_| iomark_export::health::is_ours(&head))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_escaped_as_systemd_escape_does() {
        let cases = [
            ("/", "iomark-health--"),
            ("/media/card", "iomark-health-media-card"),
            ("/media/my-card/", "iomark-health-media-my\\x2dcard"),
            ("/mnt/.hidden/a b", "iomark-health-mnt-.hidden-a\\x20b"),
            ("/.x/\u{e9}:_", "iomark-health-\\x2ex-\\xc3\\xa9:_"),
        ];
        for (path, name) in cases {
            assert_eq!(stem(Path::new(path)), name, "{path}");
        }
    }
}
