//! Verify on a filesystem: fill its free space with files of this run's sectors, read them back.
//!
//! Everything lives in one folder, `iomark-verify`, made by this run (never one that was
//! there): numbered files of 1 GiB and `state.json` (the seed, the plan and the files written
//! whole), so an interrupted run can be continued with `--resume` and nothing else is touched.
//! The folder is removed at the end unless `--keep`.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub const FOLDER: &str = "iomark-verify";
/// The folder's name while it is made, before the process's id.
const NEW: &str = ".iomark-verify-new-";
const STATE: &str = "state.json";
/// `state.json` while it is written, before it replaces the last.
const STATE_NEW: &str = ".state.json.tmp";
/// The size of each file (the last may be smaller).
pub const FILE_BYTES: u64 = 1 << 30;
/// Sizes are whole MiB, so every file is a whole number of direct-I/O blocks.
const UNIT: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error(
        "{0} exists: an interrupted verify? `--resume` goes on with it; remove it to start again"
    )]
    Exists(PathBuf),
    #[error("{0}: nothing to resume (no interrupted verify here)")]
    NothingToResume(PathBuf),
    #[error("{0} is not a folder iomark made: remove it or verify elsewhere")]
    NotOurs(PathBuf),
    #[error("{}: {}", .0.display(), crate::space::plainly(.1))]
    Io(PathBuf, io::Error),
    #[error(
        "{path}: only {free} free, too little to verify (at least 1 MiB beyond what is kept free)"
    )]
    NoRoom { path: PathBuf, free: String },
    #[error("--size {size} is more than the {free} free on {path}")]
    TooBig {
        size: String,
        free: String,
        path: PathBuf,
    },
}

/// What `state.json` keeps.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    pub seed: u64,
    pub file_bytes: u64,
    pub planned_bytes: u64,
    /// How many files are written whole (and synced).
    pub files_done: usize,
}

/// The folder of one verify run.
pub struct Folder {
    pub path: PathBuf,
    pub state: State,
    pub resumed: bool,
}

/// Space left free on a filesystem being filled: 0.5% of the free space, 16 MiB to 256 MiB, so
/// the system is not brought to a halt.
pub fn kept_free(free: u64) -> u64 {
    (free / 200).clamp(16 << 20, 256 << 20)
}

/// Renames the folder made to `to`, never over anything there (a folder made meanwhile).
fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (a, b) = (c(from)?, c(to)?);
    // The system call itself: the musl the release builds link (older than 1.2.5) has no
    // renameat2 wrapper, and the link fails where the symbol is missing.
    // SAFETY: two NUL-terminated paths, relative to the working folder.
    let done = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if done == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        // A filesystem without the flag: the folder was not there a moment ago.
        Some(libc::EINVAL) | Some(libc::ENOSYS) if !to.exists() => std::fs::rename(from, to),
        _ => Err(error),
    }
}

/// Opens `path`, never following a link, past the page cache where the filesystem allows:
/// the file, and whether it is direct. tmpfs and some FUSE filesystems refuse `O_DIRECT`;
/// there the file (synced when written) is dropped from the cache, so reads reach the device.
pub fn open_uncached(path: &Path, write: bool) -> io::Result<(File, bool)> {
    let open = |direct: bool| {
        OpenOptions::new()
            .read(true)
            .write(write)
            .custom_flags(libc::O_NOFOLLOW | if direct { libc::O_DIRECT } else { 0 })
            .open(path)
    };
    let (file, direct) = match open(true) {
        Ok(file) => (file, true),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => (open(false)?, false),
        Err(e) => return Err(e),
    };
    if !direct {
        // SAFETY: a plain advisory call on an open descriptor.
        unsafe {
            libc::posix_fadvise(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
                0,
                libc::POSIX_FADV_DONTNEED,
            )
        };
    }
    Ok((file, direct))
}

/// Removes what a run cut off while it made its folder left in `dir`: folders of that name
/// whose process is gone, holding nothing but a state of ours (a verify making its folder in
/// the same place at this moment keeps its own).
fn remove_unfinished(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(NEW))
            .and_then(|p| p.parse::<u32>().ok());
        // This process's own name is one a run before a reboot left (it is not made yet).
        let gone = pid
            .is_some_and(|pid| pid == std::process::id() || !crate::engine::stale::is_running(pid));
        if !gone || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = entry.path();
        let ours = std::fs::read_dir(&path).is_ok_and(|inside| {
            inside.flatten().all(|f| {
                let name = f.file_name();
                (name == STATE || name == STATE_NEW) && f.file_type().is_ok_and(|t| t.is_file())
            })
        });
        if ours {
            let _ = std::fs::remove_file(path.join(STATE));
            let _ = std::fs::remove_file(path.join(STATE_NEW));
            let _ = std::fs::remove_dir(&path);
        }
    }
}

impl Folder {
    /// A new run's folder in `dir`, or the interrupted one with `resume`.
    pub fn open(dir: &Path, size: Option<u64>, resume: bool) -> Result<Folder, FilesError> {
        let path = dir.join(FOLDER);
        let existing = match std::fs::symlink_metadata(&path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(FilesError::Io(path, e)),
        };
        match (existing, resume) {
            (Some(_), false) => Err(FilesError::Exists(path)),
            (None, true) => Err(FilesError::NothingToResume(dir.to_path_buf())),
            (Some(meta), true) => {
                if !meta.is_dir() {
                    return Err(FilesError::NotOurs(path));
                }
                let text = std::fs::read_to_string(path.join(STATE))
                    .map_err(|_| FilesError::NotOurs(path.clone()))?;
                let state: State =
                    serde_json::from_str(&text).map_err(|_| FilesError::NotOurs(path.clone()))?;
                if !state.file_bytes.is_multiple_of(UNIT)
                    || !state.planned_bytes.is_multiple_of(UNIT)
                {
                    return Err(FilesError::NotOurs(path));
                }
                Ok(Folder {
                    path,
                    state,
                    resumed: true,
                })
            }
            (None, false) => {
                let (free, _) = crate::space::free_space(dir)
                    .map_err(|e| FilesError::Io(dir.to_path_buf(), e))?;
                let room = free.saturating_sub(kept_free(free)) / UNIT * UNIT;
                let planned = match size {
                    Some(size) if size > room => {
                        return Err(FilesError::TooBig {
                            size: iomark_result::units::format_size(size),
                            free: iomark_result::units::format_size(room),
                            path: dir.to_path_buf(),
                        })
                    }
                    Some(size) => size.div_ceil(UNIT) * UNIT,
                    None => room,
                };
                if planned < UNIT {
                    return Err(FilesError::NoRoom {
                        path: dir.to_path_buf(),
                        free: iomark_result::units::format_size(free),
                    });
                }
                // Made whole under a name of its own, its state in it and synced, then put in
                // place: a power cut leaves no folder of ours without its state (one did, and
                // `--resume` then called it "not a folder iomark made", tests/it/power_cuts.rs).
                remove_unfinished(dir);
                let new = dir.join(format!("{NEW}{}", std::process::id()));
                std::fs::create_dir(&new).map_err(|e| FilesError::Io(new.clone(), e))?;
                let mut folder = Folder {
                    path: new,
                    state: State {
                        seed: iomark_os::rng::Rng::from_entropy().next_u64(),
                        file_bytes: FILE_BYTES,
                        planned_bytes: planned,
                        files_done: 0,
                    },
                    resumed: false,
                };
                folder.save()?;
                rename_new(&folder.path, &path).map_err(|e| FilesError::Io(path.clone(), e))?;
                File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| FilesError::Io(dir.to_path_buf(), e))?;
                folder.path = path;
                Ok(folder)
            }
        }
    }

    /// The files' count.
    pub fn count(&self) -> usize {
        self.state.planned_bytes.div_ceil(self.state.file_bytes) as usize
    }

    /// File `i`'s length.
    pub fn len(&self, i: usize) -> u64 {
        let start = i as u64 * self.state.file_bytes;
        (self.state.planned_bytes - start).min(self.state.file_bytes)
    }

    pub fn file(&self, i: usize) -> PathBuf {
        self.path.join(format!("{:04}.iomv", i + 1))
    }

    /// Records that the first `done` files are written whole.
    pub fn mark_done(&mut self, done: usize) -> Result<(), FilesError> {
        self.state.files_done = done;
        self.save()
    }

    /// Replaces `state.json`: written and synced beside it, renamed over it, and the folder
    /// synced, so that after a power cut it is the last state or this one, whole, and the
    /// files it counts are in the folder (issue 47; the files are synced as they end).
    fn save(&self) -> Result<(), FilesError> {
        use std::io::Write;
        let tmp = self.path.join(STATE_NEW);
        let text = serde_json::to_string_pretty(&self.state).expect("state serializes");
        let replace = || -> io::Result<()> {
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&tmp)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, self.path.join(STATE))?;
            File::open(&self.path)?.sync_all()
        };
        replace().map_err(|e| FilesError::Io(self.path.clone(), e))
    }

    /// Creates file `i` afresh (removing a part-written one of ours), for writing. Returns it
    /// and whether it is open for direct I/O.
    pub fn create(&self, i: usize) -> Result<(File, bool), FilesError> {
        let path = self.file(i);
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            if !meta.file_type().is_file() {
                return Err(FilesError::NotOurs(path));
            }
            std::fs::remove_file(&path).map_err(|e| FilesError::Io(path.clone(), e))?;
        }
        let open = |direct: bool| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW | if direct { libc::O_DIRECT } else { 0 })
                .open(&path)
        };
        match open(true) {
            Ok(file) => Ok((file, true)),
            // tmpfs and some FUSE filesystems refuse O_DIRECT.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                let _ = std::fs::remove_file(&path);
                open(false)
                    .map(|f| (f, false))
                    .map_err(|e| FilesError::Io(path, e))
            }
            Err(e) => Err(FilesError::Io(path, e)),
        }
    }

    /// Opens file `i` for reading, past the page cache where the filesystem allows. Returns it
    /// and whether it is direct.
    pub fn open_read(&self, i: usize) -> Result<(File, bool), FilesError> {
        let path = self.file(i);
        let (file, direct) =
            open_uncached(&path, false).map_err(|e| FilesError::Io(path.clone(), e))?;
        let meta = file
            .metadata()
            .map_err(|e| FilesError::Io(path.clone(), e))?;
        if !meta.file_type().is_file() || meta.file_type().is_fifo() {
            return Err(FilesError::NotOurs(path));
        }
        Ok((file, direct))
    }

    /// Removes the files and the folder.
    pub fn remove(self) -> Result<(), FilesError> {
        for i in 0..self.count() {
            match std::fs::remove_file(self.file(i)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(FilesError::Io(self.file(i), e)),
            }
        }
        let _ = std::fs::remove_file(self.path.join(STATE));
        std::fs::remove_dir(&self.path).map_err(|e| FilesError::Io(self.path.clone(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_ours_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Folder::open(dir.path(), Some(3 << 20), false).unwrap();
        assert_eq!(folder.count(), 1);
        assert_eq!(folder.len(0), 3 << 20);
        // A second run refuses to start over it, and points at --resume.
        let again = Folder::open(dir.path(), None, false).err().unwrap();
        assert!(again.to_string().contains("--resume"), "{again}");
        let resumed = Folder::open(dir.path(), None, true).unwrap();
        assert_eq!(resumed.state.seed, folder.state.seed);
        assert!(resumed.resumed);
        resumed.remove().unwrap();
        assert!(!dir.path().join(FOLDER).exists());
        // Nothing to resume; a symlink in its place is not ours.
        assert!(Folder::open(dir.path(), None, true).is_err());
        std::os::unix::fs::symlink("/tmp", dir.path().join(FOLDER)).unwrap();
        let refused = Folder::open(dir.path(), None, true).err().unwrap();
        assert!(
            refused.to_string().contains("not a folder iomark made"),
            "{refused}"
        );
    }

    /// A folder a power cut stopped being made is its half-made name, never `iomark-verify`
    /// without a state; the next run removes it, but nothing else of that name.
    #[test]
    fn a_folder_is_put_in_place_whole_and_a_half_made_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        // Above the kernel's largest PID (4,194,304): a process that is gone.
        let cut = dir.path().join(format!("{NEW}4194399"));
        std::fs::create_dir(&cut).unwrap();
        std::fs::write(cut.join(STATE_NEW), "{").unwrap();
        let other = dir.path().join(format!("{NEW}4194398"));
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("photo.jpg"), "mine").unwrap();
        // One being made by a running verify (here: init's PID) is its own; one named after
        // this very process was left before a reboot gave the PID out again.
        let running = dir.path().join(format!("{NEW}1"));
        std::fs::create_dir(&running).unwrap();
        std::fs::write(running.join(STATE_NEW), "{").unwrap();
        let before_reboot = dir.path().join(format!("{NEW}{}", std::process::id()));
        std::fs::create_dir(&before_reboot).unwrap();
        std::fs::write(before_reboot.join(STATE), "{}").unwrap();
        let folder = Folder::open(dir.path(), Some(1 << 20), false).unwrap();
        assert_eq!(folder.path, dir.path().join(FOLDER));
        assert!(folder.path.join(STATE).is_file());
        assert!(!cut.exists(), "the half-made folder is removed");
        assert!(
            !before_reboot.exists(),
            "its own name's leftover is removed"
        );
        assert!(
            running.join(STATE_NEW).is_file(),
            "a running verify's folder stays"
        );
        assert!(other.join("photo.jpg").is_file(), "what is not ours stays");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }
}
