//! Where iomark keeps things: the XDG base directories, with their usual fallbacks.

use std::path::PathBuf;

/// `$VAR/iomark` when VAR holds an absolute path, else `$HOME/FALLBACK/iomark`
/// (`XDG_DATA_HOME` → `~/.local/share`, `XDG_CACHE_HOME` → `~/.cache`).
pub fn xdg(var: &'static str, fallback: &str) -> Result<PathBuf, NoHome> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute(var)
        .or_else(|| absolute("HOME").map(|home| home.join(fallback)))
        .map(|base| base.join("iomark"))
        .ok_or(NoHome(var))
}

/// Neither the XDG variable nor HOME names an absolute path.
#[derive(Debug, thiserror::Error)]
#[error("neither {0} nor HOME is set to an absolute path")]
pub struct NoHome(pub &'static str);
