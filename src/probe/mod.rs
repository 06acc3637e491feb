//! Who is being tested: the host and the filesystem under the test path.
//!
//! Everything is read from files under a root passed in as a parameter (`/` in real use), so
//! tests run on captured fixture trees. Anything missing or unreadable becomes `None`, never an
//! error: a benchmark must run on machines we have never seen.

pub mod host;
pub mod mounts;

use std::path::Path;

use crate::result::Target;

/// The filesystem `path` lives on. `path` is resolved on the real filesystem; mount data is
/// read under `root`.
pub fn target(root: &Path, path: &Path) -> Target {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mount = mounts::read(root)
        .ok()
        .and_then(|table| mounts::containing(&table, &resolved).cloned());
    Target {
        path: resolved.display().to_string(),
        filesystem: mount.as_ref().map(|m| m.fstype.clone()),
        mount_options: mount.as_ref().map(|m| m.options.clone()),
        free_bytes: crate::engine::target::free_space(&resolved)
            .ok()
            .map(|(free, _)| free),
        device: None,
    }
}

/// Filesystems that keep their files in memory.
pub fn is_ram_filesystem(fstype: &str) -> bool {
    matches!(fstype, "tmpfs" | "ramfs" | "devtmpfs")
}
