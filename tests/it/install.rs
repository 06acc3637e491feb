//! `packaging/install.sh`, run by sh against a release served over HTTP on 127.0.0.1: the
//! machine it sees (uname, dpkg, getconf) is set by commands placed first on PATH, so every
//! architecture's choice is tried here. The release holds a real archive per target whose
//! `iomark` is a script printing its target, so the installed file says which was chosen.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use crate::common::{is_root, need, skip};

const TARGETS: [&str; 4] = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "armv7-unknown-linux-gnueabihf",
    "arm-unknown-linux-musleabihf",
];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/install.sh")
}

/// A release folder served on 127.0.0.1, and the paths asked of it.
struct Release {
    _dir: tempfile::TempDir,
    files: PathBuf,
    url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Release {
    fn new() -> Release {
        let dir = tempfile::tempdir().unwrap();
        let files = dir.path().join("dist");
        std::fs::create_dir(&files).unwrap();
        let stage = dir.path().join("stage");
        for target in TARGETS {
            let name = format!("iomark-0.9.1-{target}");
            std::fs::create_dir_all(stage.join(&name)).unwrap();
            let binary = stage.join(&name).join("iomark");
            std::fs::write(
                &binary,
                format!("#!/bin/sh\necho 'iomark 0.9.1 ({target})'\n"),
            )
            .unwrap();
            std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
            let archive = files.join(format!("{name}.tar.gz"));
            crate::common::ok(
                Command::new("tar")
                    .arg("-czf")
                    .arg(&archive)
                    .arg("-C")
                    .arg(&stage)
                    .arg(&name),
            );
        }
        let sums = crate::common::ok(
            Command::new("sh")
                .arg("-c")
                .arg("sha256sum -- *.tar.gz")
                .current_dir(&files),
        );
        std::fs::write(files.join("SHA256SUMS"), sums.stdout).unwrap();

        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let (root, log) = (files.clone(), asked.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut line = String::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                // The headers, up to the blank line.
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                let path = line.split(' ').nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(path.clone());
                let file = root.join(path.trim_start_matches('/'));
                let reply = match std::fs::read(&file) {
                    Ok(body) if !path.contains("..") => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        [head.into_bytes(), body].concat()
                    }
                    _ => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = stream.write_all(&reply);
            }
        });
        Release {
            _dir: dir,
            files,
            url,
            asked,
        }
    }

    fn asked(&self) -> Vec<String> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

/// The machine install.sh sees: `uname -m`, what `dpkg --print-architecture` says (None: no
/// dpkg answer) and `getconf LONG_BIT`.
struct Machine {
    uname_m: &'static str,
    dpkg: Option<&'static str>,
    long_bit: u32,
}

/// A folder for one run: the commands that fake the machine, an install folder and a home.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new(machine: &Machine) -> Place {
        let dir = tempfile::tempdir().unwrap();
        // Readable by the unprivileged user the non-root case runs as.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let place = Place { dir };
        let dpkg = match machine.dpkg {
            Some(arch) => format!("[ \"$1\" = --print-architecture ] && echo {arch}"),
            None => "exit 1".to_string(),
        };
        place.command(
            "uname",
            &format!(
            "case \"$1\" in -s) echo Linux ;; -m) echo {} ;; *) exec /usr/bin/uname \"$@\" ;; esac",
            machine.uname_m
        ),
        );
        place.command("dpkg", &dpkg);
        place.command("getconf", &format!("echo {}", machine.long_bit));
        std::fs::create_dir(place.path("home")).unwrap();
        place
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, name: &str, body: &str) {
        let bin = self.path("shims");
        std::fs::create_dir_all(&bin).unwrap();
        let file = bin.join(name);
        std::fs::write(&file, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// install.sh under sh, with the shims first on PATH (then `rest`, by default the real PATH).
    fn install(&self, release: &Release, rest: Option<&str>) -> Command {
        let path = std::env::var("PATH").unwrap();
        let mut command = Command::new("/bin/sh");
        command
            .arg(script())
            .env_clear()
            .env(
                "PATH",
                format!("{}:{}", self.path("shims").display(), rest.unwrap_or(&path)),
            )
            .env("HOME", self.path("home"))
            .env("IOMARK_DOWNLOAD_URL", &release.url);
        command
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Requires a refusal: a failure with one `install.sh:` line saying `needle` on stderr.
fn refused(output: &Output, needle: &str) {
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "should fail: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.len() == 1 && lines[0].starts_with("install.sh: ") && lines[0].contains(needle),
        "one line saying '{needle}' expected: {stderr}"
    );
}

#[test]
fn install_sh_passes_shellcheck_and_dash() {
    need("shellcheck", "shellcheck");
    need("dash", "dash");
    let check = Command::new("shellcheck")
        .arg("--shell=sh")
        .arg(script())
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check.stdout));
    let parse = Command::new("dash")
        .arg("-n")
        .arg(script())
        .output()
        .unwrap();
    assert!(parse.status.success(), "{}", text(&parse.stderr));
    // Its default download address is the repository Cargo.toml names.
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("Cargo.toml names its repository");
    let install = std::fs::read_to_string(script()).unwrap();
    assert!(
        install.contains(&format!("\nhome={repository}\n")),
        "install.sh's home is not {repository}"
    );
}

#[test]
fn install_sh_picks_the_build_for_each_machine_or_refuses() {
    need("curl", "curl");
    let release = Release::new();
    let cases = [
        (
            Machine {
                uname_m: "x86_64",
                dpkg: Some("amd64"),
                long_bit: 64,
            },
            Some(TARGETS[0]),
        ),
        (
            Machine {
                uname_m: "x86_64",
                dpkg: None,
                long_bit: 64,
            },
            Some(TARGETS[0]),
        ),
        (
            Machine {
                uname_m: "aarch64",
                dpkg: Some("arm64"),
                long_bit: 64,
            },
            Some(TARGETS[1]),
        ),
        // A Pi 4 with 32-bit Raspberry Pi OS on its 64-bit kernel.
        (
            Machine {
                uname_m: "aarch64",
                dpkg: Some("armhf"),
                long_bit: 32,
            },
            Some(TARGETS[2]),
        ),
        (
            Machine {
                uname_m: "aarch64",
                dpkg: None,
                long_bit: 32,
            },
            Some(TARGETS[2]),
        ),
        (
            Machine {
                uname_m: "armv7l",
                dpkg: Some("armhf"),
                long_bit: 32,
            },
            Some(TARGETS[2]),
        ),
        (
            Machine {
                uname_m: "armv8l",
                dpkg: None,
                long_bit: 32,
            },
            Some(TARGETS[2]),
        ),
        // A Pi Zero or 1: ARMv6.
        (
            Machine {
                uname_m: "armv6l",
                dpkg: Some("armhf"),
                long_bit: 32,
            },
            Some(TARGETS[3]),
        ),
        (
            Machine {
                uname_m: "armv6l",
                dpkg: None,
                long_bit: 32,
            },
            Some(TARGETS[3]),
        ),
        (
            Machine {
                uname_m: "riscv64",
                dpkg: Some("riscv64"),
                long_bit: 64,
            },
            None,
        ),
        (
            Machine {
                uname_m: "x86_64",
                dpkg: Some("i386"),
                long_bit: 32,
            },
            None,
        ),
        (
            Machine {
                uname_m: "armv5tel",
                dpkg: Some("armel"),
                long_bit: 32,
            },
            None,
        ),
    ];
    for (machine, target) in cases {
        let place = Place::new(&machine);
        let dir = place.path("bin");
        let output = place
            .install(&release, None)
            .env("IOMARK_INSTALL_DIR", &dir)
            .output()
            .unwrap();
        let what = format!("{} with {:?} userland", machine.uname_m, machine.dpkg);
        match target {
            Some(target) => {
                assert!(output.status.success(), "{what}: {}", text(&output.stderr));
                let installed =
                    text(&crate::common::ok(&mut Command::new(dir.join("iomark"))).stdout);
                assert_eq!(
                    installed.trim(),
                    format!("iomark 0.9.1 ({target})"),
                    "{what}"
                );
                let mode = std::fs::metadata(dir.join("iomark"))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o777, 0o755, "{what}");
                assert_eq!(
                    release.asked(),
                    [
                        "/SHA256SUMS".to_string(),
                        format!("/iomark-0.9.1-{target}.tar.gz")
                    ],
                    "{what}"
                );
                let said = text(&output.stdout);
                assert!(
                    said.contains(&format!(
                        "installed iomark 0.9.1 ({target}) as {}",
                        dir.join("iomark").display()
                    )),
                    "{said}"
                );
                assert!(said.contains("is not on your PATH"), "{said}");
                assert_eq!(
                    crate::common::entries(&dir),
                    ["iomark"],
                    "{what}: nothing else left"
                );
            }
            None => {
                refused(&output, "no iomark build for this machine");
                assert!(release.asked().is_empty(), "{what}: nothing downloaded");
                assert!(!dir.exists(), "{what}");
            }
        }
    }
}

#[test]
fn install_sh_refuses_a_corrupted_download_and_installs_nothing() {
    need("curl", "curl");
    let release = Release::new();
    let machine = Machine {
        uname_m: "aarch64",
        dpkg: Some("arm64"),
        long_bit: 64,
    };
    let place = Place::new(&machine);
    let dir = place.path("bin");
    // One byte of the archive changed after SHA256SUMS was written.
    let archive = release
        .files
        .join(format!("iomark-0.9.1-{}.tar.gz", TARGETS[1]));
    let mut bytes = std::fs::read(&archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&archive, bytes).unwrap();
    let output = place
        .install(&release, None)
        .env("IOMARK_INSTALL_DIR", &dir)
        .output()
        .unwrap();
    refused(&output, "does not match its SHA-256");
    assert!(!dir.exists());

    // A release without this machine's build says so.
    std::fs::write(release.files.join("SHA256SUMS"), "").unwrap();
    let output = place
        .install(&release, None)
        .env("IOMARK_INSTALL_DIR", &dir)
        .output()
        .unwrap();
    refused(&output, "has no build for aarch64-unknown-linux-musl");
    // A server that answers nothing.
    std::fs::remove_file(release.files.join("SHA256SUMS")).unwrap();
    let output = place
        .install(&release, None)
        .env("IOMARK_INSTALL_DIR", &dir)
        .output()
        .unwrap();
    refused(&output, "cannot download");
    assert!(!dir.exists());
}

#[test]
fn install_sh_replaces_an_older_iomark_but_never_a_link() {
    need("curl", "curl");
    let release = Release::new();
    let place = Place::new(&Machine {
        uname_m: "x86_64",
        dpkg: Some("amd64"),
        long_bit: 64,
    });
    let dir = place.path("bin");
    std::fs::create_dir(&dir).unwrap();
    // A download address given with a trailing slash is the same address.
    let mut with_slash = place.install(&release, None);
    with_slash.env("IOMARK_DOWNLOAD_URL", format!("{}/", release.url));
    let output = with_slash.env("IOMARK_INSTALL_DIR", &dir).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        release.asked(),
        [
            "/SHA256SUMS".to_string(),
            format!("/iomark-0.9.1-{}.tar.gz", TARGETS[0])
        ]
    );
    std::fs::remove_file(dir.join("iomark")).unwrap();
    std::fs::write(dir.join("iomark"), "an older iomark").unwrap();
    let output = place
        .install(&release, None)
        .env("IOMARK_INSTALL_DIR", &dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(std::fs::read_to_string(dir.join("iomark"))
        .unwrap()
        .contains(TARGETS[0]));

    let elsewhere = place.path("elsewhere");
    std::fs::write(&elsewhere, "someone else's file").unwrap();
    std::fs::remove_file(dir.join("iomark")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("iomark")).unwrap();
    let output = place
        .install(&release, None)
        .env("IOMARK_INSTALL_DIR", &dir)
        .output()
        .unwrap();
    refused(&output, "is not a regular file");
    assert_eq!(
        std::fs::read_to_string(&elsewhere).unwrap(),
        "someone else's file"
    );
    assert!(std::fs::symlink_metadata(dir.join("iomark"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        crate::common::entries(&dir),
        ["iomark"],
        "no partial file left"
    );
}

/// A PATH holding only the commands install.sh uses, from this machine, less `without`.
fn bare_path(place: &Place, without: &[&str]) -> String {
    let bare = place.path("bare");
    std::fs::create_dir(&bare).unwrap();
    for tool in [
        "sh",
        "curl",
        "wget",
        "sha256sum",
        "cut",
        "mktemp",
        "rm",
        "grep",
        "tar",
        "gzip",
        "id",
        "mkdir",
        "cp",
        "chmod",
        "mv",
        "head",
    ] {
        if without.contains(&tool) {
            continue;
        }
        let real = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists());
        let real = real.unwrap_or_else(|| panic!("this test needs {tool}"));
        std::os::unix::fs::symlink(real, bare.join(tool)).unwrap();
    }
    bare.display().to_string()
}

#[test]
fn install_sh_downloads_with_wget_and_refuses_without_a_downloader() {
    need("wget", "wget");
    let release = Release::new();
    let machine = Machine {
        uname_m: "armv7l",
        dpkg: Some("armhf"),
        long_bit: 32,
    };
    let place = Place::new(&machine);
    let dir = place.path("bin");
    let path = bare_path(&place, &["curl"]);
    let output = place
        .install(&release, Some(&path))
        .env("IOMARK_INSTALL_DIR", &dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "wget: {}", text(&output.stderr));
    assert!(std::fs::read_to_string(dir.join("iomark"))
        .unwrap()
        .contains(TARGETS[2]));

    let place = Place::new(&machine);
    let path = bare_path(&place, &["curl", "wget"]);
    let output = place
        .install(&release, Some(&path))
        .env("IOMARK_INSTALL_DIR", place.path("bin"))
        .output()
        .unwrap();
    refused(&output, "neither curl nor wget");
    assert!(!place.path("bin").exists());
}

#[test]
fn install_sh_installs_to_the_home_of_a_user_and_to_usr_local_for_root() {
    need("curl", "curl");
    let release = Release::new();
    let place = Place::new(&Machine {
        uname_m: "x86_64",
        dpkg: Some("amd64"),
        long_bit: 64,
    });
    let home = place.path("home");
    let mut command = place.install(&release, None);
    if is_root() {
        // As the unprivileged user nobody, whose home this place's is.
        std::os::unix::fs::chown(&home, Some(65534), Some(65534)).unwrap();
        let mut as_user = Command::new("setpriv");
        as_user.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
        as_user.arg(command.get_program()).args(command.get_args());
        as_user
            .env_clear()
            .envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))));
        command = as_user;
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let installed = home.join(".local/bin/iomark");
    assert!(std::fs::read_to_string(&installed)
        .unwrap()
        .contains(TARGETS[0]));
    let said = text(&output.stdout);
    assert!(
        said.contains("is not on your PATH") && said.contains(".local/bin"),
        "{said}"
    );

    // As root, into /usr/local/bin: over a private, empty /usr/local/bin (a mount namespace of
    // its own), so this machine's is left as it was.
    if !is_root() {
        skip("installing to /usr/local/bin needs root");
        return;
    }
    let place = Place::new(&Machine {
        uname_m: "x86_64",
        dpkg: Some("amd64"),
        long_bit: 64,
    });
    let command = place.install(&release, None);
    let mut private = Command::new("unshare");
    private.args(["--mount", "--propagation", "private", "/bin/sh", "-c"]);
    private.arg("mount -t tmpfs iomark-test /usr/local/bin && \"$@\" && cat /usr/local/bin/iomark && ls -A /usr/local/bin");
    private
        .arg("sh")
        .arg(command.get_program())
        .args(command.get_args());
    private
        .env_clear()
        .envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))));
    let output = private.output().unwrap();
    let stderr = text(&output.stderr);
    if !output.status.success()
        && (stderr.contains("ermission denied") || stderr.contains("not permitted"))
    {
        skip(&format!("no private mount here: {}", stderr.trim()));
        return;
    }
    assert!(output.status.success(), "{stderr}");
    let said = text(&output.stdout);
    assert!(said.contains("as /usr/local/bin/iomark"), "{said}");
    assert!(
        said.contains(&format!("iomark 0.9.1 ({})", TARGETS[0])),
        "{said}"
    );
    assert!(
        said.trim_end().ends_with("\niomark"),
        "only iomark in /usr/local/bin: {said}"
    );
}
