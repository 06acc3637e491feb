//! Completions and the manual page, made from the clap definitions, checked where they are used:
//! in bash itself, and rendered by man(1).

use std::process::Command;

use crate::common::{iomark, ok, scratch};

/// What bash's completion of `words` (the last being completed) offers.
fn bash_completes(words: &[&str]) -> Vec<String> {
    let script =
        String::from_utf8(ok(iomark(scratch()).args(["completions", "bash"])).stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("iomark.bash");
    std::fs::write(&file, script).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = words.join(" ");
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; \
         _iomark iomark '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display(),
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = ok(Command::new("bash").args(["--norc", "-c", &program]));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn bash_completes_options_and_profile_names() {
    assert_eq!(bash_completes(&["iomark", "run", "--prof"]), ["--profile"]);
    assert_eq!(
        bash_completes(&["iomark", "run", "--profile", ""]),
        [
            "standard",
            "quick",
            "nvme",
            "latency",
            "sweep",
            "sustained",
            "sdcard",
            "pi",
            "surface"
        ]
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let script = ok(iomark(scratch()).args(["completions", shell])).stdout;
        let script = String::from_utf8_lossy(&script);
        assert!(
            script.contains("profile") && script.contains("sdcard"),
            "{shell}"
        );
    }
}

#[test]
fn the_manual_pages_render_without_warnings() {
    crate::common::need("man", "man-db");
    let dir = tempfile::tempdir().unwrap();
    for page in [None, Some("run"), Some("compare"), Some("export")] {
        let mut command = iomark(scratch());
        command.arg("man").args(page);
        let roff = ok(&mut command).stdout;
        let path = dir.path().join("page.1");
        std::fs::write(&path, roff).unwrap();
        let out = Command::new("man")
            .args(["--warnings", "-l", "-Tutf8"])
            .arg(&path)
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && warnings.trim().is_empty(),
            "{page:?}: {warnings}"
        );
        let name = page.map_or("iomark".to_string(), |p| format!("iomark-{p}"));
        assert!(text.contains(&name), "{page:?}");
    }
    // The main page lists every subcommand.
    let main = String::from_utf8(ok(iomark(scratch()).arg("man")).stdout).unwrap();
    for sub in ["iomark\\-run", "iomark\\-compare", "iomark\\-completions"] {
        assert!(main.contains(sub), "{sub}");
    }
    let line = crate::common::refused(iomark(scratch()).args(["man", "nope"]));
    assert!(line.contains("no command 'nope'"), "{line}");
}

#[test]
fn man_dir_writes_a_page_for_every_command_and_refuses_a_link() {
    let dir = tempfile::tempdir().unwrap();
    ok(iomark(scratch()).args(["man", "--dir"]).arg(dir.path()));
    let mut pages = crate::common::entries(dir.path());
    pages.sort();
    // One page per command the main page lists, and the main page; none for clap's `help`.
    let main = String::from_utf8(ok(iomark(scratch()).arg("man")).stdout).unwrap();
    for page in &pages {
        assert!(page.ends_with(".1"), "{page}");
        let name = page.trim_end_matches(".1").replace('-', "\\-");
        assert!(main.contains(&name), "{page} is not on the main page");
        let roff = std::fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(roff.starts_with(".ie") || roff.contains(".TH"), "{page}");
    }
    for must in [
        "iomark.1",
        "iomark-run.1",
        "iomark-verify.1",
        "iomark-serve.1",
        "iomark-submit.1",
    ] {
        assert!(pages.iter().any(|p| p == must), "{must} missing: {pages:?}");
    }
    assert!(!pages.iter().any(|p| p == "iomark-help.1"), "{pages:?}");
    let commands = main.matches("iomark\\-").count();
    assert!(
        pages.len() >= 15 && commands >= pages.len() - 1,
        "{pages:?}"
    );

    // A page's name that is a symbolic link is refused, and what it points to is left alone.
    let other = dir.path().join("elsewhere");
    std::fs::write(&other, "not a manual page").unwrap();
    std::fs::remove_file(dir.path().join("iomark-run.1")).unwrap();
    std::os::unix::fs::symlink(&other, dir.path().join("iomark-run.1")).unwrap();
    crate::common::refused_saying(
        iomark(scratch()).args(["man", "--dir"]).arg(dir.path()),
        "symbolic link",
    );
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "not a manual page"
    );
    let missing = dir.path().join("no-such-folder");
    crate::common::refused_saying(
        iomark(scratch()).args(["man", "--dir"]).arg(&missing),
        "no such directory",
    );
}
