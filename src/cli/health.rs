//! `iomark health`'s arguments.

use std::path::PathBuf;

use clap::Args;

use super::outputs::ResultArgs;
use super::values::parse_size_arg;

#[derive(Debug, Args)]
#[command(after_help = "\
A check keeps a folder, PATH/iomark-health, on the filesystem it watches: at the first check it
writes 1 MiB of canaries there (files of known content), and at every check it reads them back
past the page cache, writes a new 64 KiB file, syncs it and reads it back, times 32 small reads
and 8 small synced writes, and reads what the system knows (a filesystem remounted read-only,
ext4's error count, the device's own count of bytes written). A check writes about 100 KiB
(1.1 MiB the first time); what the device counted written meanwhile is in the result.

Verdicts: healthy; watch (something changed: writes that stall, timings far from the first
checks', filesystem errors); failing (read-only, unreadable, gone); lying (the card
acknowledged writes it did not keep, or changed what it held). Each check is saved in the
history like a run. A check exits with its verdict, as `smartctl -H` and monitors read one:
0 healthy, 1 watch, 2 failing or lying, 3 when no check could be made (the error says why),
so `iomark health /media/card || notify-send card` is told.

Telling people (each tested for real, see docs/HEALTH.md):
  --textfile FILE   Prometheus metrics for node_exporter's textfile collector, every check
  --webhook URL     a JSON POST when a check is not healthy, and once when it is again
  --motd            a message at login (/run/motd.d) while the card is not healthy
  --notify          a desktop notification (notify-send), as the webhook is sent
  --monitor         Nagios-style: one line with performance data first, then the report
Under systemd the verdict's line reaches the journal with its priority (warning, critical).

Sharing (opt-in): --share URL sends the card's checks to a results site, whose page for the
card's model then says how many such cards are watched, for how long, and how many failed after
how many months and terabytes written. No path or host name is sent, the serial only as a salted
hash; the card is known there by a key kept in its folder, and --unshare URL withdraws it.

A check on a schedule: --install-timer writes a systemd timer and service (the system's as root,
else yours; --user for yours) that run this same check --every 6h, and starts it; where there is
no systemd it prints the cron line instead. --remove-timer stops and removes them.

Its checks over time: --history lists them, --history --chart FILE.svg draws them.

Examples:
  iomark health /media/card           check the card mounted there
  iomark health                       check the filesystem of the current folder
  iomark health / --json -            the check as a result document, for scripts
  sudo iomark health / --motd --textfile /var/lib/prometheus/node-exporter/iomark.prom --install-timer
  iomark health /media/card --share https://example.org --install-timer
  iomark health /media/card --webhook 'https://ntfy.sh/TOPIC?tpl=1&t={{.title}}&m={{.message}}'")]
pub struct HealthArgs {
    /// A folder on the filesystem to check [default: .]
    pub path: Option<PathBuf>,

    /// The most a check may write, e.g. 2MiB [default: 4MiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub budget: Option<u64>,

    /// Write the check as Prometheus metrics to FILE (replaced whole at every check), for
    /// node_exporter's textfile collector
    #[arg(long, value_name = "FILE")]
    pub textfile: Option<PathBuf>,

    /// POST the check as JSON to URL when it is not healthy, and once when it is healthy again
    #[arg(long, value_name = "URL", value_parser = parse_webhook)]
    pub webhook: Option<String>,

    /// Keep a message shown at login (in /run/motd.d) while the card is not healthy; it is
    /// removed when a check finds the card healthy
    #[arg(long)]
    pub motd: bool,

    /// The folder of login messages --motd writes in [default: /run/motd.d]
    #[arg(long, value_name = "DIR")]
    pub motd_dir: Option<PathBuf>,

    /// Show a desktop notification (notify-send) when a check is not healthy, and once when it
    /// is again, in the desktop session this runs in
    #[arg(long)]
    pub notify: bool,

    /// Share this card's checks with the results site at URL (opt-in): its device's page
    /// then counts the card among those of its model watched, and says if it fails. Every
    /// check the site has not yet is sent, under a key of the card's kept in its folder
    #[arg(long, value_name = "URL")]
    pub share: Option<String>,

    /// Withdraw this card from the site at URL: every check shared there is removed
    #[arg(long, value_name = "URL",
        conflicts_with_all = ["share", "install_timer", "remove_timer", "monitor", "json", "history"])]
    pub unshare: Option<String>,

    /// For Nagios-style monitors: print one line with performance data first (the exit status
    /// is the verdict's, as always: 0 healthy, 1 watch, 2 failing or lying, 3 no check)
    #[arg(long)]
    pub monitor: bool,

    /// List the checks of PATH in the store, oldest first, instead of checking
    #[arg(long, conflicts_with_all = ["install_timer", "remove_timer", "monitor", "json"])]
    pub history: bool,

    /// With --history: draw them over time to FILE (.svg or .png)
    #[arg(long, value_name = "FILE", requires = "history")]
    pub chart: Option<PathBuf>,

    /// Run this check on a schedule: write and start a systemd timer (or print a cron line
    /// where there is no systemd)
    #[arg(long, conflicts_with_all = ["remove_timer", "monitor", "json"])]
    pub install_timer: bool,

    /// How often the timer checks [default: 6h]
    #[arg(long, value_name = "DURATION", value_parser = parse_timer_every, requires = "install_timer")]
    pub every: Option<std::time::Duration>,

    /// The timer is yours (~/.config/systemd/user), not the system's; the default when not root
    #[arg(long)]
    pub user: bool,

    /// Stop and remove the timer --install-timer made for PATH, and its login message and
    /// metrics file
    #[arg(long, conflicts_with_all = ["monitor", "json", "budget"])]
    pub remove_timer: bool,

    #[command(flatten)]
    pub result: ResultArgs,
}

impl HealthArgs {
    /// Where the login message goes, when one is kept.
    pub fn motd_dir(&self) -> Option<PathBuf> {
        match (&self.motd_dir, self.motd) {
            (Some(dir), _) => Some(dir.clone()),
            (None, true) => Some(PathBuf::from(DEFAULT_MOTD_DIR)),
            (None, false) => None,
        }
    }
}

/// Where pam_motd reads messages a program keeps while they are true (lost at a reboot, made
/// again by the next check).
pub const DEFAULT_MOTD_DIR: &str = "/run/motd.d";

/// A webhook's address: http or https, a host, no spaces.
fn parse_webhook(text: &str) -> Result<String, String> {
    let url = text.trim();
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest)
            if !rest.is_empty() && !rest.starts_with('/') && !url.contains(char::is_whitespace) =>
        {
            Ok(url.to_string())
        }
        _ => Err(format!(
            "'{}' is not a web address: give http://HOST/… or https://HOST/…",
            text.escape_debug()
        )),
    }
}

/// How often a timer checks: from 10 minutes (a check writes about 100 KiB) to a week.
fn parse_timer_every(text: &str) -> Result<std::time::Duration, String> {
    let every = iomark_result::units::parse_duration(text)?;
    if every < std::time::Duration::from_secs(600) {
        return Err("a timer checks at most every 10 minutes (each check writes about 100 KiB): give 10m or more".into());
    }
    Ok(every)
}
