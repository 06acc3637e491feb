//! The text of a health timer's units: the service that runs the check as the command was
//! given (`Plan`), sandboxed to write its folder, the store and the files it keeps; and the
//! timer. Words are quoted as systemd reads them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};

use super::stem;
use crate::cli::HealthArgs;
use iomark_export::health::WRITTEN_BY;
use iomark_store::Location;

/// A header line naming a file the checks keep besides their folder and the store.
pub const KEEPS: &str = "# Its checks keep: ";

/// What the scheduled check runs and what it writes outside its folder.
pub struct Plan {
    /// The command, each word as it is.
    pub command: Vec<String>,
    /// Files its checks keep besides the folder and the store.
    keeps: Vec<PathBuf>,
    /// Folders the sandbox lets it write in.
    pub writes: Vec<PathBuf>,
    /// Whether it needs the network (a webhook, a PostgreSQL store).
    network: bool,
    /// Whether its command holds a secret (a webhook's address, a store's URL): the service
    /// is then its owner's alone to read.
    pub secret: bool,
    /// The login message is in /run/motd.d, which systemd makes at boot for it.
    run_motd: bool,
}

impl Plan {
    pub fn of(args: &HealthArgs, dir: &Path) -> anyhow::Result<Plan> {
        let exe = std::env::current_exe().context("cannot tell where iomark is")?;
        let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
        let mut command = vec![
            exe.to_string_lossy().into_owned(),
            "health".into(),
            dir.to_string_lossy().into_owned(),
        ];
        let mut keeps = Vec::new();
        // A PostgreSQL store is reached over the network (or its socket).
        let mut postgres = false;
        let mut writes = vec![dir.to_path_buf()];
        let mut arg = |flag: &str, value: String| {
            command.push(flag.into());
            command.push(value);
        };
        if let Some(budget) = args.budget {
            arg("--budget", budget.to_string());
        }
        if args.result.no_save {
            arg("--no-save", String::new());
        } else {
            match args.result.store.location().map_err(anyhow::Error::msg)? {
                Location::Sqlite(path) => {
                    writes.extend(path.parent().map(Path::to_path_buf));
                    arg("--db", path.to_string_lossy().into_owned());
                }
                Location::Postgres(url) => {
                    postgres = true;
                    arg("--db", url);
                }
            }
        }
        if let Some(label) = &args.result.label {
            arg("--label", label.clone());
        }
        if let Some(textfile) = &args.textfile {
            if textfile.extension().is_none_or(|e| e != "prom") {
                bail!("--textfile: node_exporter's textfile collector reads only files ending in .prom");
            }
            let textfile = absolute(textfile)?;
            writes.extend(textfile.parent().map(Path::to_path_buf));
            keeps.push(textfile.clone());
            arg("--textfile", textfile.to_string_lossy().into_owned());
        }
        let motd = args.motd_dir().map(|d| absolute(&d)).transpose()?;
        let run_motd = motd.as_deref() == Some(Path::new(crate::cli::health::DEFAULT_MOTD_DIR));
        if let Some(folder) = &motd {
            keeps.push(folder.join(stem(dir)));
            if !run_motd {
                writes.push(folder.clone());
            }
            arg("--motd-dir", folder.to_string_lossy().into_owned());
        }
        if let Some(url) = &args.webhook {
            arg("--webhook", url.clone());
        }
        if args.notify {
            arg("--notify", String::new());
        }
        if let Some(url) = &args.share {
            arg("--share", url.clone());
        }
        command.retain(|w| !w.is_empty());
        for word in &command {
            if word.contains(['\n', '\r', '\0']) {
                bail!("--install-timer: a path or value holds a line break, which a unit cannot");
            }
        }
        Ok(Plan {
            command,
            keeps,
            writes,
            network: args.webhook.is_some() || args.share.is_some() || postgres,
            secret: args.webhook.is_some() || postgres,
            run_motd,
        })
    }

    fn header(&self, dir: &Path, what: &str) -> String {
        let mut out = format!(
            "{WRITTEN_BY} --install-timer: {what} of {}.\n# `iomark health {} --remove-timer` \
             stops and removes it.\n",
            dir.display(),
            super::super::shell_quote(&dir.to_string_lossy())
        );
        for file in &self.keeps {
            out.push_str(&format!("{KEEPS}{}\n", file.display()));
        }
        out
    }

    /// The service: one check, at low priority, in a sandbox that lets it write its folder,
    /// the store and the files it keeps, and nothing else.
    pub fn service(&self, user: bool, dir: &Path) -> String {
        let exec: Vec<String> = self.command.iter().map(|w| unit_quote(w)).collect();
        let mut out = self.header(dir, "the check");
        out.push_str(&format!(
            "\n[Unit]\nDescription=iomark health check of {}\nDocumentation=man:iomark-health(1)\n\
             RequiresMountsFor={}\n",
            escape_specifiers(&dir.to_string_lossy()),
            unit_quote(&dir.to_string_lossy())
        ));
        if self.network {
            out.push_str("Wants=network-online.target\nAfter=network-online.target\n");
        }
        out.push_str(&format!(
            "\n[Service]\nType=oneshot\nExecStart={}\nNice=10\nIOSchedulingClass=idle\n\
             UMask=0022\nNoNewPrivileges=yes\nRestrictRealtime=yes\nRestrictSUIDSGID=yes\n\
             LockPersonality=yes\nMemoryDenyWriteExecute=yes\nSystemCallArchitectures=native\n\
             SystemCallFilter=@system-service\nSystemCallFilter=~@privileged @resources\n\
             SystemCallErrorNumber=EPERM\nRestrictNamespaces=yes\n",
            exec.join(" ")
        ));
        out.push_str(match self.network {
            true => "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n",
            false => "RestrictAddressFamilies=AF_UNIX\n",
        });
        if user {
            // A user's manager cannot make mount namespaces without user namespaces, which
            // not every kernel allows: the sandbox above is what works everywhere.
            return out;
        }
        // /proc stays whole: the check reads the boot's id, the host's name and the mounts.
        out.push_str(
            "# Root, to write its folder whoever owns the card's files; no other power.\n\
             CapabilityBoundingSet=CAP_DAC_OVERRIDE CAP_FOWNER\nAmbientCapabilities=\n\
             ProtectSystem=strict\nProtectHome=read-only\nPrivateDevices=yes\n\
             PrivateMounts=yes\nProtectKernelTunables=yes\nProtectKernelModules=yes\n\
             ProtectKernelLogs=yes\nProtectControlGroups=yes\nProtectClock=yes\n\
             ProtectHostname=yes\nProtectProc=invisible\nRemoveIPC=yes\n",
        );
        if self.private_tmp() {
            out.push_str("PrivateTmp=yes\n");
        }
        for folder in &self.writes {
            out.push_str(&format!(
                "ReadWritePaths={}\n",
                unit_quote(&folder.to_string_lossy())
            ));
        }
        if self.run_motd {
            out.push_str(
                "# /run/motd.d, where pam_motd reads messages, made at boot and kept.\n\
                 RuntimeDirectory=motd.d\nRuntimeDirectoryMode=0755\nRuntimeDirectoryPreserve=yes\n",
            );
        }
        if !self.network {
            out.push_str("PrivateNetwork=yes\nIPAddressDeny=any\n");
        }
        out
    }

    /// Whether the system's service gets a /tmp of its own: not where it writes under /tmp or
    /// /var/tmp (a folder checked, a store kept there), which a private one would hide.
    pub fn private_tmp(&self) -> bool {
        !self
            .writes
            .iter()
            .any(|w| w.starts_with("/tmp") || w.starts_with("/var/tmp"))
    }

    pub fn timer(&self, dir: &Path, every: Duration) -> String {
        let mut out = self.header(dir, "the timer");
        out.push_str(&format!(
            "\n[Unit]\nDescription=iomark health check of {} every {}\n\n[Timer]\n\
             OnBootSec=10min\nOnUnitActiveSec={}s\nRandomizedDelaySec=5min\n\
             AccuracySec=1min\n\n[Install]\nWantedBy=timers.target\n",
            escape_specifiers(&dir.to_string_lossy()),
            iomark_result::units::format_every(every),
            every.as_secs()
        ));
        out
    }
}

/// A path made absolute from the current folder (its folder resolved, its name kept).
fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    let path = std::path::absolute(path).with_context(|| format!("{}", path.display()))?;
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok(std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or(path.clone())),
        _ => Ok(path),
    }
}

/// One word as a unit file's command line and settings read it: in double quotes, with `\`
/// and `"` escaped, and systemd's specifiers (`%`) and variables (`$`) doubled.
fn unit_quote(word: &str) -> String {
    let escaped = word
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('%', "%%")
        .replace('$', "$$");
    format!("\"{escaped}\"")
}

/// Text in a unit's description, its specifiers doubled.
fn escape_specifiers(text: &str) -> String {
    text.replace('%', "%%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_words_are_quoted() {
        assert_eq!(
            unit_quote("https://x/a?m={{.message}}&p=%20$HOME\"\\"),
            "\"https://x/a?m={{.message}}&p=%%20$$HOME\\\"\\\\\""
        );
    }
}
