//! `iomark health --install-timer` and `--remove-timer`: a systemd service that runs the same
//! check (the same path, budget, store and warnings) and a timer that starts it every so often,
//! the system's (as root, sandboxed as the site's unit is) or the user's; where there is no
//! systemd, the cron line that does the same. Only files iomark wrote are ever replaced or
//! removed: each unit's first words are [`WRITTEN_BY`], and its header names the other files its
//! checks keep (the login message, the metrics file), which removing the timer removes too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context};

use super::super::say;
use super::units::{Plan, KEEPS};
use super::{on_path, ours, remove_ours, stem};
use crate::cli::HealthArgs;

/// How often a timer checks unless told.
const DEFAULT_EVERY: Duration = Duration::from_secs(6 * 3600);

/// Where the units go, and whether they are the user's.
struct Place {
    dir: PathBuf,
    user: bool,
}

impl Place {
    fn of(args: &HealthArgs) -> anyhow::Result<Place> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if !args.user && root {
            return Ok(Place {
                dir: PathBuf::from("/etc/systemd/system"),
                user: false,
            });
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .map(|home| home.join(".config"))
            })
            .context("neither XDG_CONFIG_HOME nor HOME is set to an absolute path")?;
        Ok(Place {
            dir: config.join("systemd/user"),
            user: true,
        })
    }

    /// `systemctl`, or `systemctl --user`.
    fn systemctl(&self) -> Command {
        let mut command = Command::new("systemctl");
        if self.user {
            command.arg("--user");
        }
        command
    }
}

/// Whether systemd manages this machine now (not merely installed: a container may have it).
fn systemd_running() -> bool {
    Path::new("/run/systemd/system").is_dir()
}

/// Whether `systemctl` is on the PATH: units can be written and enabled.
fn systemctl_here() -> bool {
    on_path("systemctl")
}

/// Installs the timer of the watched folder `dir` (resolved).
pub fn install(args: &HealthArgs, dir: &Path) -> anyhow::Result<()> {
    let every = args.every.unwrap_or(DEFAULT_EVERY);
    let plan = Plan::of(args, dir)?;
    if !systemctl_here() {
        return print_cron(&plan, every);
    }
    let place = Place::of(args)?;
    if args.notify && !place.user {
        bail!(
            "--notify: the system's timer runs in no one's desktop session: install it as yours \
             (--user, without sudo), or use --motd or a webhook"
        );
    }
    let stem = stem(dir);
    let service = place.dir.join(format!("{stem}.service"));
    let timer = place.dir.join(format!("{stem}.timer"));
    ours(&service, "--install-timer")?;
    ours(&timer, "--install-timer")?;
    std::fs::create_dir_all(&place.dir)
        .with_context(|| format!("cannot make {}", place.dir.display()))?;
    for folder in &plan.writes {
        // The sandbox's writable folders must be there when it starts.
        std::fs::create_dir_all(folder)
            .with_context(|| format!("cannot make {}", folder.display()))?;
    }
    let mode = if plan.secret { 0o600 } else { 0o644 };
    write_unit(&service, &plan.service(place.user, dir), mode)?;
    write_unit(&timer, &plan.timer(dir, every), 0o644)?;
    let name = format!("{stem}.timer");
    let running = systemd_running();
    let scope = if place.user { " --user" } else { "" };
    if running {
        systemctl(&place, &["daemon-reload"])?;
        systemctl(&place, &["enable", "--now", &name])?;
        // The first check now, in its sandbox: a unit that cannot work says so at once.
        // Its status is the verdict's: a card not healthy fails the service, as it should.
        systemctl(&place, &["start", &format!("{stem}.service")]).with_context(|| {
            format!(
                "the timer is installed, but its first check did not find the card healthy, or \
                 could not be made: see `journalctl{scope} -u {stem}.service`"
            )
        })?;
    } else {
        systemctl(&place, &["enable", &name])?;
    }
    say!(
        "Installed {} and {}: a check of {} every {}.",
        service.display(),
        timer.display(),
        dir.display(),
        iomark_result::units::format_every(every),
    )?;
    if running {
        say!("The first check ran now. Its checks: `journalctl{scope} -u {stem}.service`; the next: `systemctl{scope} list-timers {name}`.")?;
    } else {
        say!("systemd is installed but not running here (a container?): the timer is enabled and starts at the next boot.")?;
    }
    if !place.user && !plan.private_tmp() {
        say!(
            "Note: it writes under /tmp or /var/tmp, so its sandbox cannot give it a /tmp of its \
             own (PrivateTmp=): a folder elsewhere keeps the check more apart from the system."
        )?;
    }
    say!(
        "Remove it with `iomark health {} --remove-timer{}`.",
        super::super::shell_quote(&dir.to_string_lossy()),
        if place.user && !args.user { "" } else { scope }
    )?;
    Ok(())
}

/// Removes the timer of the watched folder `dir` (resolved), and what its checks kept.
pub fn remove(args: &HealthArgs, dir: &Path) -> anyhow::Result<()> {
    let place = Place::of(args)?;
    let stem = stem(dir);
    let service = place.dir.join(format!("{stem}.service"));
    let timer = place.dir.join(format!("{stem}.timer"));
    let found = ours(&timer, "--remove-timer")? | ours(&service, "--remove-timer")?;
    if !found {
        bail!(
            "--remove-timer: there is no timer of iomark's for {} ({} is not there)",
            dir.display(),
            timer.display()
        );
    }
    let kept = std::fs::read_to_string(&service)
        .map(|text| {
            text.lines()
                .filter_map(|l| l.strip_prefix(KEEPS))
                .map(PathBuf::from)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if systemctl_here() && timer.exists() {
        let name = format!("{stem}.timer");
        match systemd_running() {
            true => systemctl(&place, &["disable", "--now", &name])?,
            false => systemctl(&place, &["disable", &name])?,
        }
    }
    remove_ours(&timer)?;
    remove_ours(&service)?;
    if systemctl_here() && systemd_running() {
        systemctl(&place, &["daemon-reload"])?;
        // A check that found the card not healthy failed its service (its status is the
        // verdict's): that mark goes with the unit. None to clear is no error.
        let _ = place
            .systemctl()
            .args(["reset-failed", &format!("{stem}.service")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    let (mut removed, mut left) = (Vec::new(), Vec::new());
    for file in &kept {
        // A link to /dev/null silences a login message: an administrator's, left alone.
        if std::fs::read_link(file).is_ok_and(|to| to == Path::new("/dev/null")) {
            continue;
        }
        match remove_ours(file) {
            Ok(true) => removed.push(format!(", {}", file.display())),
            Ok(false) => {}
            Err(e) => left.push(format!("{e:#}")),
        }
    }
    say!(
        "Removed the timer of {} ({} and {}{}).",
        dir.display(),
        timer.display(),
        service.display(),
        removed.concat()
    )?;
    for why in left {
        say!("Left as it is: {why}")?;
    }
    Ok(())
}

/// Without systemd: the crontab line that runs the same check about as often.
fn print_cron(plan: &Plan, every: Duration) -> anyhow::Result<()> {
    let minutes = (every.as_secs() / 60).max(10);
    let (schedule, said) = cron_schedule(minutes);
    let words: Vec<String> = plan
        .command
        .iter()
        .map(|w| super::super::shell_quote(w).replace('%', "\\%"))
        .collect();
    say!(
        "There is no systemd here (no systemctl): add this line with `crontab -e` to check {said}:"
    )?;
    say!()?;
    say!("{schedule} {} >/dev/null 2>&1", words.join(" "))?;
    Ok(())
}

/// A cron schedule for every `minutes`, rounded to one cron can say, and how often that is.
fn cron_schedule(minutes: u64) -> (String, String) {
    const MINUTES: [u64; 6] = [10, 12, 15, 20, 30, 60];
    const HOURS: [u64; 7] = [2, 3, 4, 6, 8, 12, 24];
    if minutes < 60 {
        let m = *MINUTES
            .iter()
            .min_by_key(|m| m.abs_diff(minutes))
            .unwrap_or(&60);
        if m < 60 {
            return (format!("*/{m} * * * *"), format!("every {m} minutes"));
        }
    }
    let hours = (minutes + 30) / 60;
    if hours < 24 {
        let h = *HOURS
            .iter()
            .min_by_key(|h| h.abs_diff(hours))
            .unwrap_or(&24);
        if h < 24 {
            return (format!("17 */{h} * * *"), format!("every {h} hours"));
        }
    }
    let days = ((hours + 12) / 24).clamp(1, 7);
    match days {
        1 => ("17 4 * * *".into(), "once a day".into()),
        7 => ("17 4 * * 0".into(), "once a week".into()),
        d => (format!("17 4 */{d} * *"), format!("every {d} days")),
    }
}

fn write_unit(path: &Path, text: &str, mode: u32) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let partial = path.with_extension(format!("iomark-{}.partial", std::process::id()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&partial)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&partial, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

/// Runs `systemctl ARGS`, its own words the error where it fails.
fn systemctl(place: &Place, args: &[&str]) -> anyhow::Result<()> {
    let output = place
        .systemctl()
        .args(args)
        .output()
        .context("cannot run systemctl")?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        bail!(
            "systemctl {} failed: {}",
            args.join(" "),
            said.split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_says_what_it_can() {
        assert_eq!(cron_schedule(360).0, "17 */6 * * *");
        assert_eq!(cron_schedule(15).0, "*/15 * * * *");
        assert_eq!(cron_schedule(60 * 24).0, "17 4 * * *");
        assert_eq!(cron_schedule(60 * 24 * 7).0, "17 4 * * 0");
        assert_eq!(cron_schedule(300).1, "every 4 hours");
    }
}
