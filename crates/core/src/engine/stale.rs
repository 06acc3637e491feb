//! What a killed run left: SIGKILL cannot be caught, so the test file of a run killed that way
//! stays. The next run in that directory finds it by name and removes it, before its own
//! free-space check, and says how much space it freed.

use std::io;
use std::path::{Path, PathBuf};

/// Removes from `dir` the test files of iomark runs that no longer exist: named
/// `.iomark-PID-RANDOM.tmp` (so ours by name), owned by this user, regular files, and PID not a
/// running process. Returns each removed file and its size.
pub fn remove_stale(dir: &Path) -> Vec<(PathBuf, u64)> {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(stale_pid) else {
            continue;
        };
        if is_running(pid) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_file() && meta.uid() == me && std::fs::remove_file(&path).is_ok() {
            removed.push((path, meta.blocks() * 512));
        }
    }
    removed
}

/// Whether process `pid` may still be running (this one is): what a file or folder named
/// after it is left alone for.
pub fn is_running(pid: u32) -> bool {
    // SAFETY: kill with signal 0 only asks whether the process exists.
    pid == std::process::id()
        || unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
        || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The PID in a test file's name, `.iomark-PID-16HEX.tmp`.
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(".iomark-")?.strip_suffix(".tmp")?;
    let (pid, random) = rest.split_once('-')?;
    if random.len() != 16 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_killed_runs_are_removed_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        // A PID above the kernel's pid_max: no such process can exist.
        let dead = dir.path().join(".iomark-4194305-00000000deadbeef.tmp");
        std::fs::write(&dead, vec![7u8; 8192]).unwrap();
        let alive = dir.path().join(format!(".iomark-1-{:016x}.tmp", 1));
        std::fs::write(&alive, b"init is running").unwrap();
        let unlike = dir.path().join(".iomark-4194305-notours.tmp");
        std::fs::write(&unlike, b"not a name iomark makes").unwrap();
        let file = super::super::TestFile::create(dir.path(), 1 << 20, true).unwrap();
        assert_eq!(file.reclaimed().len(), 1);
        assert_eq!(file.reclaimed()[0].0, dead);
        assert!(!dead.exists() && alive.exists() && unlike.exists());
        assert_eq!(stale_pid(".iomark-12-0123456789abcdef.tmp"), Some(12));
        assert_eq!(stale_pid(".iomark-12-xyz.tmp"), None);
    }
}
