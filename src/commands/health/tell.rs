//! Where a check is told besides the terminal and the store, each destination checked before
//! the check is made: a metrics file for node_exporter's textfile collector, the login message
//! (a file in /run/motd.d, pam_motd's folder), a webhook, and the journal (the verdict's line
//! with its priority when standard output is the journal, as under a timer).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};

use super::super::destination::Destination;
use super::{on_path, ours, remove_ours, stem};
use crate::cli::HealthArgs;
use iomark_export::health as told;
use iomark_result::result::health::Verdict;
use iomark_result::result::ResultDoc;

pub struct Tell {
    textfile: Option<Destination>,
    webhook: Option<String>,
    motd: Option<Motd>,
    notify: bool,
}

impl Tell {
    /// Every destination `args` names for a check of `dir`, checked now.
    pub fn settle(args: &HealthArgs, dir: &Path) -> anyhow::Result<Tell> {
        let textfile = match args.textfile.as_deref() {
            Some(path)
                if path == Path::new("-") || path.extension().is_none_or(|e| e != "prom") =>
            {
                bail!(
                    "--textfile: node_exporter's textfile collector reads only files ending in \
                     .prom: give one, e.g. /var/lib/prometheus/node-exporter/iomark-health.prom"
                )
            }
            Some(path) => Some(Destination::check("--textfile", path)?),
            None => None,
        };
        let motd = args
            .motd_dir()
            .map(|folder| Motd::settle(&folder, dir))
            .transpose()?;
        if args.notify && !on_path("notify-send") {
            bail!(
                "--notify shows notifications with notify-send, which is not here: apt install \
                 libnotify-bin"
            );
        }
        Ok(Tell {
            textfile,
            webhook: args.webhook.clone(),
            motd,
            notify: args.notify,
        })
    }

    /// Tells each destination of the check `doc` (published by now); every one is tried, and
    /// the first that failed is the error.
    pub fn tell(self, doc: &ResultDoc) -> anyhow::Result<()> {
        let Some(h) = &doc.health else {
            return Ok(());
        };
        let mut failed = Vec::new();
        if let Some(textfile) = self.textfile {
            if let Err(e) = textfile.write(told::metrics(doc).as_bytes()) {
                failed.push(anyhow::Error::from(e));
            }
        }
        if let Some(motd) = self.motd {
            if let Err(e) = motd.tell(doc, h.verdict != Verdict::Healthy) {
                failed.push(e);
            }
        }
        if let Some(url) = &self.webhook {
            if told::worth_telling(h) {
                if let Err(e) = post(url, doc) {
                    failed.push(e);
                }
            }
        }
        if self.notify && told::worth_telling(h) {
            // A timer's check runs whether or not anyone is logged in: without a session the
            // notification is not shown, and the check has still been made and told elsewhere.
            match session_bus() {
                true => {
                    if let Err(e) = notify(doc) {
                        failed.push(e);
                    }
                }
                false => crate::output::to_stderr(
                    "--notify: no desktop session now (no session bus): not shown\n",
                ),
            }
        }
        match failed.into_iter().next() {
            Some(e) => Err(e.context(format!(
                "the check is made (verdict: {}), but not told everywhere",
                h.verdict
            ))),
            None => Ok(()),
        }
    }
}

/// The login message of one watched filesystem: `DIR/iomark-health-<its path escaped>`.
struct Motd {
    path: PathBuf,
    /// Where it is written when the card is not healthy; none where an administrator silenced
    /// it (a link to /dev/null, as pam_motd documents).
    destination: Option<Destination>,
}

impl Motd {
    fn settle(folder: &Path, checked: &Path) -> anyhow::Result<Motd> {
        if !folder.is_dir() && folder == Path::new(crate::cli::health::DEFAULT_MOTD_DIR) {
            // /run is emptied at every boot; pam_motd reads the folder when it is there.
            std::fs::create_dir(folder)
                .with_context(|| format!("--motd: cannot make {}", folder.display()))?;
        }
        if !folder.is_dir() {
            bail!("--motd-dir: {}: no such directory", folder.display());
        }
        let path = folder.join(stem(checked));
        let silenced = std::fs::read_link(&path).is_ok_and(|to| to == Path::new("/dev/null"));
        if !silenced {
            ours(&path, "--motd")?;
        }
        let destination = match silenced {
            true => None,
            false => Some(Destination::check("--motd", &path)?),
        };
        Ok(Motd { path, destination })
    }

    /// Writes the message while the card is not healthy, and removes it once it is.
    fn tell(self, doc: &ResultDoc, unhealthy: bool) -> anyhow::Result<()> {
        match (self.destination, unhealthy) {
            (None, _) => Ok(()),
            (Some(destination), true) => {
                Ok(destination.write(told::login_message(doc).as_bytes())?)
            }
            (Some(destination), false) => {
                drop(destination);
                remove_ours(&self.path).map(|_| ())
            }
        }
    }
}

/// POSTs the check to `url`, once more after a pause when no answer comes or the server
/// answers 5xx; anything but 2xx is an error naming the host (the rest of the address may be
/// a secret).
fn post(url: &str, doc: &ResultDoc) -> anyhow::Result<()> {
    let body = told::webhook(doc, &hostname()).to_string();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .user_agent(format!("iomark/{}", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let host = url.split('/').take(3).collect::<Vec<_>>().join("/");
    let mut tries = 0;
    loop {
        tries += 1;
        let answer = agent
            .post(url)
            .header("content-type", "application/json")
            .send(&body);
        let problem = match answer {
            Ok(response) if response.status().is_success() => return Ok(()),
            Ok(response) if response.status().is_server_error() => {
                format!("{host} answered {}", response.status().as_u16())
            }
            Ok(response) => bail!(
                "--webhook: {host} answered {}: check the address",
                response.status().as_u16()
            ),
            Err(e) => format!("no answer from {host}: {e}"),
        };
        if tries == 2 {
            bail!("--webhook: {problem}");
        }
        std::thread::sleep(Duration::from_secs(3));
    }
}

/// Whether a desktop session's bus is here to show a notification on.
fn session_bus() -> bool {
    let runtime_bus =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| Path::new(&dir).join("bus").exists());
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() || runtime_bus
}

/// The check as a desktop notification: critical when failing or lying, normal to watch, low
/// for the all-clear.
fn notify(doc: &ResultDoc) -> anyhow::Result<()> {
    let Some(h) = &doc.health else {
        return Ok(());
    };
    let (urgency, icon) = match h.verdict {
        Verdict::Healthy => ("low", "dialog-information"),
        Verdict::Watch => ("normal", "dialog-warning"),
        Verdict::Failing | Verdict::Lying => ("critical", "dialog-error"),
    };
    let shown = std::process::Command::new("notify-send")
        .args(["--app-name=iomark", "-u", urgency, "-i", icon, "--"])
        .arg(format!(
            "iomark health: {} is {}",
            doc.target.path,
            h.verdict.as_str().to_uppercase()
        ))
        .arg(&h.sentence)
        .output()
        .context("--notify: cannot run notify-send")?;
    if !shown.status.success() {
        bail!(
            "--notify: notify-send failed: {}",
            String::from_utf8_lossy(&shown.stderr).trim()
        );
    }
    Ok(())
}

/// This machine's name, as the webhook says where the card is (and `iomark ui` how to reach
/// it from another computer).
pub(crate) fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_string())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "this machine".into())
}

/// Whether standard output is the journal (systemd says so in `JOURNAL_STREAM`: the device and
/// inode of the stream it gave).
pub fn stdout_is_journal() -> bool {
    let Some(stream) = std::env::var_os("JOURNAL_STREAM") else {
        return false;
    };
    let stream = stream.to_string_lossy();
    let Some((dev, ino)) = stream.split_once(':') else {
        return false;
    };
    let stdout = std::fs::metadata("/proc/self/fd/1");
    stdout.is_ok_and(|m| dev.parse() == Ok(m.dev()) && ino.parse() == Ok(m.ino()))
}

/// The verdict in one line, with the priority the journal files it under (systemd reads a
/// `<N>` prefix): informational when healthy, a warning to watch, critical otherwise.
pub fn journal_line(doc: &ResultDoc) -> String {
    let Some(h) = &doc.health else {
        return String::new();
    };
    let priority = match h.verdict {
        Verdict::Healthy => 6,
        Verdict::Watch => 4,
        Verdict::Failing | Verdict::Lying => 2,
    };
    format!(
        "<{priority}>iomark health: {} is {}: {}",
        told::what(doc),
        h.verdict.as_str().to_uppercase(),
        h.sentence
    )
}
