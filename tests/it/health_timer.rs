//! Issue 48: `iomark health --install-timer` and `--remove-timer`, for real: the units written
//! where systemd reads them (the user's under a config folder of the test's own; the system's
//! in a mount namespace whose /etc/systemd/system is a folder of the test's own), checked by
//! `systemd-analyze verify` and its offline security audit, enabled by `systemctl` itself, the
//! service's command run as the unit would run it; a cron line where there is no systemctl.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{entries, iomark, is_root, need, ok, refused_saying, skip};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The words of a unit's `ExecStart=`, unquoted as systemd reads them (double quotes, `\\`
/// and `\"` inside them, `%%` and `$$` doubled).
fn exec_start(unit: &str) -> Vec<String> {
    let line = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart line");
    let line = line.replace("%%", "%").replace("$$", "$");
    let mut words = Vec::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => continue,
            '"' => {
                let mut word = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => word.extend(chars.next()),
                        '"' => break,
                        c => word.push(c),
                    }
                }
                words.push(word);
            }
            c => panic!("an unquoted word at {c}: {line}"),
        }
    }
    words
}

/// The units' name for `dir`: `iomark-health-` and the path as systemd's own `systemd-escape
/// --path` escapes it.
fn stem(dir: &Path) -> String {
    need("systemd-escape", "systemd");
    let out = ok(Command::new("systemd-escape")
        .arg("--path")
        .arg(dir.canonicalize().unwrap()));
    format!("iomark-health-{}", text(&out.stdout).trim())
}

/// Where systemd runs the machine, `systemctl --user` would talk to the real manager, which
/// never reads the test's folder: the test is skipped there rather than install a real timer.
fn systemd_runs_here() -> bool {
    let runs = std::path::Path::new("/run/systemd/system").is_dir();
    if runs {
        skip("systemd runs this machine: enabling a timer would start a real one");
    }
    runs
}

fn verify(units: &[PathBuf]) {
    let verified = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .args(units)
        .output()
        .unwrap();
    assert!(
        verified.status.success() && verified.stderr.is_empty(),
        "{}",
        text(&verified.stderr)
    );
}

#[test]
fn a_user_s_timer_is_written_enabled_runs_the_same_check_and_is_removed_whole() {
    need("systemd-analyze", "systemd");
    need("systemctl", "systemd");
    if systemd_runs_here() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let metrics = tempfile::tempdir().unwrap();
    let textfile = metrics.path().join("card.prom");
    let hook = "https://ntfy.example/card?tpl=1&t={{.title}}&m={{.message}}&x=%41$HOME";
    let out = ok(iomark(home.path())
        .env("XDG_CONFIG_HOME", config.path())
        .arg("health")
        .arg(dir.path())
        .args([
            "--install-timer",
            "--user",
            "--every",
            "1h",
            "--budget",
            "3MiB",
        ])
        .arg("--textfile")
        .arg(&textfile)
        .args(["--webhook", hook]));
    let said = text(&out.stdout);
    assert!(
        said.contains("every 1h") && said.contains("--remove-timer"),
        "{said}"
    );
    let units = config.path().join("systemd/user");
    let stem = stem(dir.path());
    let service = units.join(format!("{stem}.service"));
    let timer = units.join(format!("{stem}.timer"));
    verify(&[service.clone(), timer.clone()]);
    // systemctl enabled it, as it would at the next boot.
    let wanted = units.join(format!("timers.target.wants/{stem}.timer"));
    assert_eq!(std::fs::read_link(&wanted).unwrap(), timer);
    let unit = std::fs::read_to_string(&service).unwrap();
    assert!(unit.starts_with("# Written by iomark health"), "{unit}");
    assert!(std::fs::read_to_string(&timer)
        .unwrap()
        .contains("OnUnitActiveSec=3600s"));
    // A webhook's address may be a secret: the unit is its owner's alone.
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&service).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // The command, as systemd reads it, is this check: run it so.
    let words = exec_start(&unit);
    assert_eq!(words[0], env!("CARGO_BIN_EXE_iomark"));
    assert!(words.iter().any(|w| w == hook), "{words:?}");
    let ran = Command::new(&words[0])
        .args(&words[1..])
        .env("XDG_DATA_HOME", home.path())
        .output()
        .unwrap();
    // Healthy, and the first check: nothing for the webhook.
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert!(textfile.is_file());
    let listed = text(&ok(iomark(home.path()).arg("history")).stdout);
    assert!(listed.contains("healthy (check 1)"), "{listed}");
    // Installed again, it replaces its own units.
    ok(iomark(home.path())
        .env("XDG_CONFIG_HOME", config.path())
        .arg("health")
        .arg(dir.path())
        .args(["--install-timer", "--user"])
        .arg("--textfile")
        .arg(&textfile));
    // Removed: both units, the link that enabled it, and the metrics file its checks kept.
    let out = ok(iomark(home.path())
        .env("XDG_CONFIG_HOME", config.path())
        .arg("health")
        .arg(dir.path())
        .args(["--remove-timer", "--user"]));
    assert!(
        text(&out.stdout).contains("Removed the timer"),
        "{}",
        text(&out.stdout)
    );
    assert!(!service.exists() && !timer.exists());
    assert!(std::fs::symlink_metadata(&wanted).is_err());
    assert!(!textfile.exists());
    // Nothing more to remove: it says so.
    refused_saying(
        iomark(home.path())
            .env("XDG_CONFIG_HOME", config.path())
            .arg("health")
            .arg(dir.path())
            .args(["--remove-timer", "--user"]),
        "there is no timer of iomark's",
    );
}

#[test]
fn a_unit_of_that_name_not_iomark_s_is_never_replaced_or_removed() {
    need("systemctl", "systemd");
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let units = config.path().join("systemd/user");
    std::fs::create_dir_all(&units).unwrap();
    let stem = stem(dir.path());
    let theirs = units.join(format!("{stem}.timer"));
    std::fs::write(&theirs, "[Timer]\nOnCalendar=daily\n").unwrap();
    for flag in ["--install-timer", "--remove-timer"] {
        refused_saying(
            iomark(home.path())
                .env("XDG_CONFIG_HOME", config.path())
                .arg("health")
                .arg(dir.path())
                .args([flag, "--user"]),
            "is not iomark's",
        );
    }
    assert_eq!(
        std::fs::read_to_string(&theirs).unwrap(),
        "[Timer]\nOnCalendar=daily\n"
    );
    assert_eq!(entries(&units), [format!("{stem}.timer")]);
}

/// The system's timer, as root installs it: in a mount namespace whose /etc/systemd/system
/// is the test's folder. Its service passes systemd's verify and, with each set of warnings,
/// the offline security audit the site's unit passes (an exposure of 2.0 or less).
#[test]
fn the_system_s_timer_is_valid_and_as_hardened_as_the_site_s_unit() {
    if !is_root() {
        skip("the system's units are root's to write");
        return;
    }
    need("systemd-analyze", "systemd");
    need("unshare", "util-linux");
    // Folders outside /tmp, as a card's and a store's are, wherever the project lives (a clone
    // under /tmp too): the service gets a private /tmp.
    let made = || tempfile::tempdir_in("/var/lib").unwrap();
    let (home, units, dir, metrics) = (made(), made(), made(), made());
    let textfile = metrics.path().join("card.prom");
    let in_tmp = tempfile::tempdir().unwrap();
    let variants: [(&Path, &[&str]); 6] = [
        (dir.path(), &[]),
        (dir.path(), &["--motd"]),
        (dir.path(), &["--webhook", "http://127.0.0.1:9/hook"]),
        (dir.path(), &["--share", "http://127.0.0.1:9"]),
        (dir.path(), &["--db", "postgres://iomark@127.0.0.1/iomark"]),
        (in_tmp.path(), &[]),
    ];
    for (dir, more) in variants {
        let script = format!(
            "mount --bind {} /etc/systemd/system && exec \"$@\"",
            units.path().display()
        );
        let out = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script, "sh"])
            .arg(env!("CARGO_BIN_EXE_iomark"))
            .arg("health")
            .arg(dir)
            .arg("--install-timer")
            .arg("--textfile")
            .arg(&textfile)
            .args(more)
            .env("XDG_DATA_HOME", home.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{more:?}: {}", text(&out.stderr));
        // A folder under /tmp costs the sandbox its own /tmp, and the user is told.
        let told = text(&out.stdout).contains("cannot give it a /tmp of its own");
        assert_eq!(
            told,
            dir.starts_with("/tmp"),
            "{more:?}: {}",
            text(&out.stdout)
        );
        let stem = stem(dir);
        let service = units.path().join(format!("{stem}.service"));
        let timer = units.path().join(format!("{stem}.timer"));
        verify(&[service.clone(), timer.clone()]);
        let audit = Command::new("systemd-analyze")
            .args(["security", "--offline=yes", "--threshold=20"])
            .arg(&service)
            .output()
            .unwrap();
        let said = text(&audit.stdout);
        assert!(audit.status.success(), "{more:?}: {said}");
        let unit = std::fs::read_to_string(&service).unwrap();
        // It may write its folder, the store's and the metrics file's, and nothing else.
        let postgres = more.contains(&"--db");
        let store = (!postgres).then(|| home.path());
        for folder in [Some(dir), store, Some(metrics.path())]
            .into_iter()
            .flatten()
        {
            let folder = folder.canonicalize().unwrap();
            assert!(
                unit.contains(&format!("ReadWritePaths=\"{}", folder.display())),
                "{unit}"
            );
        }
        // A webhook's address or a store's URL may hold a secret: root's alone to read.
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&service).unwrap().permissions().mode() & 0o777;
        let secret = more.contains(&"--webhook") || postgres;
        assert_eq!(mode, if secret { 0o600 } else { 0o644 }, "{more:?}");
        // The network only for a webhook, a site the card is shared with, or a PostgreSQL
        // store; each check shares as the one that made the timer.
        let network = more.contains(&"--webhook") || more.contains(&"--share") || postgres;
        assert_eq!(unit.contains("PrivateNetwork=yes"), !network, "{unit}");
        assert_eq!(
            unit.contains("--share"),
            more.contains(&"--share"),
            "{unit}"
        );
        // A folder under /tmp: a private one would hide it.
        assert_eq!(
            unit.contains("PrivateTmp=yes"),
            !dir.starts_with("/tmp"),
            "{unit}"
        );
        assert_eq!(
            unit.contains("RuntimeDirectory=motd.d"),
            more.contains(&"--motd")
        );
        // Enabled: the link (to the unit's place in the namespace) is in the folder.
        let link = units
            .path()
            .join(format!("timers.target.wants/{stem}.timer"));
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            Path::new("/etc/systemd/system").join(format!("{stem}.timer"))
        );
    }
}

/// Without systemctl on the PATH: the crontab line for the same check, and nothing written.
#[test]
fn without_systemd_the_cron_line_is_printed_and_nothing_written() {
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = ok(iomark(home.path())
        .env("XDG_CONFIG_HOME", config.path())
        .env("PATH", empty.path())
        .arg("health")
        .arg(dir.path())
        .args(["--install-timer", "--every", "6h", "--motd"]));
    let said = text(&out.stdout);
    assert!(said.contains("crontab -e"), "{said}");
    let line = said
        .lines()
        .find(|l| l.starts_with("17 */6 * * * "))
        .unwrap_or_else(|| panic!("{said}"));
    let dir = dir.path().canonicalize().unwrap();
    assert!(
        line.contains(&format!(
            "{} health {}",
            env!("CARGO_BIN_EXE_iomark"),
            dir.display()
        )),
        "{line}"
    );
    assert!(line.contains("--motd-dir /run/motd.d"), "{line}");
    assert!(entries(config.path()).is_empty());
    assert!(entries(&dir).is_empty());
    // Too often for a card: refused.
    refused_saying(
        iomark(home.path())
            .arg("health")
            .arg(&dir)
            .args(["--install-timer", "--every", "1m"]),
        "10 minutes",
    );
}
