//! Who is being tested: the host and the storage under the test path.
//!
//! Everything is read from files under a root passed in as a parameter (`/` in real use), so
//! every code path is tested on fixture trees (`tests/fixtures/`). Anything missing or
//! unreadable becomes `None`, never an error: a benchmark must run on machines we have never
//! seen. No external programs are run. Each module's `decode` makes its values from the files'
//! text alone, so the fuzz target `probe` hands it any bytes; what leaves the probe has its text
//! made printable and bounded ([`fit_text`]): a device names itself, and a hostile one would
//! otherwise drive the terminal that shows its name.

pub mod ata;
pub mod block;
pub mod bottleneck;
pub mod host;
pub mod inuse;
pub mod mmc;
pub mod mounts;
pub mod nvme;
pub mod sysfs;
pub mod thermal;
pub mod usb;

use std::path::Path;

use iomark_result::result::{fit_text, Target};

/// The storage `path` lives on. `path` is absolute and already resolved, as the probed system
/// sees it; mount and device data are read under `root`. `free_bytes` comes from the caller,
/// which can ask the real filesystem.
pub fn target(root: &Path, path: &Path, free_bytes: Option<u64>) -> Target {
    let mount = mounts::read(root)
        .ok()
        .and_then(|table| mounts::containing(&table, path).cloned());
    let device = mount.as_ref().and_then(|m| {
        block::device(root, &m.device).or_else(|| {
            m.source
                .strip_prefix("/dev/")
                .filter(|_| m.device.starts_with("0:"))
                .and_then(|name| block::device_named(root, name))
        })
    });
    fit_text(Target {
        extra: Default::default(),
        path: path.display().to_string(),
        filesystem: mount.as_ref().map(|m| m.fstype.clone()),
        mount_options: mount.as_ref().map(|m| m.options.clone()),
        free_bytes,
        device,
    })
}

/// A raw block device (`major:minor`) on this machine, given by `path`.
pub fn device_target(path: &Path, major_minor: &str) -> Target {
    fit_text(Target {
        extra: Default::default(),
        path: path.display().to_string(),
        filesystem: None,
        mount_options: None,
        free_bytes: None,
        device: block::device(Path::new("/"), major_minor),
    })
}

/// The storage under a real path on this machine.
pub fn local_target(path: &Path) -> Target {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let free = crate::space::free_space(&resolved)
        .ok()
        .map(|(free, _)| free);
    target(Path::new("/"), &resolved, free)
}

/// Filesystems that keep their files in memory.
pub fn is_ram_filesystem(fstype: &str) -> bool {
    matches!(fstype, "tmpfs" | "ramfs" | "devtmpfs")
}
