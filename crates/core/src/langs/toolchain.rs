//! Finding a language's toolchain, asking its version, and building its program once into a
//! cache folder keyed by the source, the compiler's version and the build command.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use super::Lang;

/// A program ready to run.
#[derive(Clone, Debug)]
pub struct Ready {
    pub lang: &'static Lang,
    /// The version line of the compiler or runtime.
    pub runtime: String,
    /// The build command as run, for compiled languages.
    pub build_flags: Option<String>,
    /// The command that runs the program (before its own arguments).
    pub command: Vec<String>,
}

/// `$XDG_CACHE_HOME/iomark/langs`, else `~/.cache/iomark/langs`.
pub fn cache_root() -> Result<PathBuf, iomark_os::dirs::NoHome> {
    iomark_os::dirs::xdg("XDG_CACHE_HOME", ".cache").map(|dir| dir.join("langs"))
}

/// The first executable of that name on PATH.
pub fn on_path(tool: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The first non-empty line a version command prints (on stdout or, like `java -version`, on
/// stderr).
fn version_line(args: &[&str]) -> Result<String, ToolchainError> {
    let output = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| ToolchainError::Run(args.join(" "), e))?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("Picked up"))
        // `Scala code runner version 2.11.12 -- Copyright 2002-2017, LAMP/EPFL`
        .map(|l| l.split(" -- ").next().unwrap_or(l).to_string())
        .ok_or_else(|| ToolchainError::NoVersion(args.join(" ")))
}

fn fill(template: &[&str], src: &Path, out: &Path) -> Vec<String> {
    template
        .iter()
        .map(|a| {
            a.replace("{src}", &src.display().to_string())
                .replace("{out}", &out.display().to_string())
        })
        .collect()
}

/// Why a language is skipped, in one line.
#[derive(Debug, thiserror::Error)]
pub enum ToolchainError {
    #[error("{} not found on PATH", .0.join(" and "))]
    Missing(Vec<&'static str>),
    #[error("`{0}` failed: {1}")]
    Run(String, std::io::Error),
    #[error("`{0}` printed nothing")]
    NoVersion(String),
    #[error("cannot write the program to {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("the build failed ({0}): {1}")]
    Build(String, String),
    #[error("cannot put the build in {0}")]
    Place(PathBuf),
}

/// Finds the toolchain and builds the program (once: later runs reuse the cache). `Err` is the
/// reason to skip the language.
pub fn prepare(lang: &'static Lang, cache: &Path) -> Result<Ready, ToolchainError> {
    let missing: Vec<&str> = lang
        .tools
        .iter()
        .copied()
        .filter(|t| on_path(t).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(ToolchainError::Missing(missing));
    }
    let runtime = version_line(lang.version)?;
    let mut hash = Sha256::new();
    hash.update(lang.name);
    for (name, text) in lang.sources {
        hash.update(name);
        hash.update(text);
    }
    hash.update(&runtime);
    hash.update(lang.build.unwrap_or_default().join(" "));
    let key: String = hash
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = cache.join(format!("{}-{key}", lang.name));
    let (src, out) = (dir.join("src"), dir.join("out"));
    let build_flags = lang
        .build
        .map(|b| fill(b, Path::new("src"), Path::new("out")).join(" "));
    let ready = Ready {
        lang,
        runtime,
        build_flags,
        command: fill(lang.run, &src, &out),
    };
    if dir.join("ready").is_file() {
        return Ok(ready);
    }
    // Built in a folder of its own, then renamed into place: a build that fails or is
    // interrupted never leaves a half-built program where the next run would use it.
    let partial = cache.join(format!(
        ".{}-{key}.partial-{}",
        lang.name,
        std::process::id()
    ));
    let outcome = build(lang, cache, &partial);
    if let Err(e) = outcome {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e);
    }
    if std::fs::rename(&partial, &dir).is_err() {
        // Another iomark built it at the same moment: use that one.
        let _ = std::fs::remove_dir_all(&partial);
        if !dir.join("ready").is_file() {
            return Err(ToolchainError::Place(dir));
        }
    }
    Ok(ready)
}

fn build(lang: &Lang, cache: &Path, partial: &Path) -> Result<(), ToolchainError> {
    let (src, out) = (partial.join("src"), partial.join("out"));
    let io = |e: std::io::Error| ToolchainError::Write(partial.to_path_buf(), e);
    std::fs::create_dir_all(&src).map_err(io)?;
    std::fs::create_dir_all(&out).map_err(io)?;
    for (name, text) in lang.sources {
        std::fs::write(src.join(name), text).map_err(io)?;
    }
    if let Some(template) = lang.build {
        let args = fill(template, Path::new("src"), Path::new("out"));
        let output = Command::new(&args[0])
            .args(&args[1..])
            .current_dir(partial)
            // Go keeps its build cache beside the programs, not wherever HOME points.
            .env("GOCACHE", cache.join("go-build"))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| ToolchainError::Run(args[0].clone(), e))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message");
            return Err(ToolchainError::Build(args.join(" "), first.to_string()));
        }
    }
    std::fs::write(partial.join("ready"), b"").map_err(io)
}
