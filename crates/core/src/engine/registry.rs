//! The test files this process created and still holds, so that the signal handler can remove
//! them (through [`remove_all`]) and nothing else: each is known by its path, its device and
//! inode, and its open descriptor.

use std::os::unix::io::RawFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// A test file this process created and has not removed yet.
pub(super) struct Created {
    pub(super) path: PathBuf,
    /// Its identity, to tell it from a file another program put under the same name.
    pub(super) dev: u64,
    pub(super) ino: u64,
    /// Its descriptor, still open in the thread that runs the test.
    pub(super) fd: RawFd,
}

static CREATED: Mutex<Vec<Created>> = Mutex::new(Vec::new());

pub(super) fn created() -> MutexGuard<'static, Vec<Created>> {
    CREATED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes `path` if it still names the file of that device and inode.
pub(super) fn remove_if_same(path: &Path, dev: u64, ino: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.dev() == dev && meta.ino() == ino => std::fs::remove_file(path).is_ok(),
        _ => false,
    }
}

/// Removes every test file this process created and still holds; called from the signal
/// handler just before the process exits. Returns the paths removed. Each file is also cut to
/// nothing through its descriptor, so its blocks are free when this returns, not only once the
/// exiting process has closed it (a run started at once on a small filesystem needs them). The
/// lock stays held (the guard is leaked) so that no new file can be created between this call
/// and the exit.
pub fn remove_all() -> Vec<PathBuf> {
    let mut guard = created();
    let mut removed = Vec::new();
    for file in guard.drain(..) {
        if remove_if_same(&file.path, file.dev, file.ino) {
            removed.push(file.path);
        }
        // SAFETY: the descriptor is open (a TestFile leaves the registry before it closes), and
        // it is the file iomark created, whatever its name now.
        unsafe { libc::ftruncate(file.fd, 0) };
    }
    std::mem::forget(guard);
    removed
}
