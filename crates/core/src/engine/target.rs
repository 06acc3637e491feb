//! The test file's life cycle: checked, created, probed for direct I/O, removed.
//!
//! Safety rules (docs/ARCHITECTURE.md, "Contracts"): the file gets a unique name
//! (`.iomark-<pid>-<random>.tmp`) and is created with `O_EXCL`, so iomark never opens an existing
//! file for writing; free space is checked before anything is written; the file is removed when
//! the [`TestFile`] is dropped (normal end or error) and, through [`remove_all`], from the signal
//! handler. Creation and registration for removal happen under one lock that the signal handler
//! also takes, so a signal can neither miss a file that exists nor remove one iomark did not
//! create. A name is removed only while it still names the file iomark created (same device and
//! inode): if another program replaced it, its file is left alone.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::buffer::Buffers;
use super::pattern::{prepare, restamp, Rng};
use super::{Data, EngineError, Op};
use crate::progress::Live;
use crate::space::free_space;

use super::fill::sync_range;
pub use super::fill::FillBudget;
pub use super::registry::remove_all;
use super::registry::{created, remove_if_same, Created};

/// Why a test file could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{0}: no such directory")]
    NotFound(PathBuf),
    #[error("{0}: not a directory (give the directory to test, on the filesystem to measure)")]
    NotADirectory(PathBuf),
    #[error("{0}: the filesystem is mounted read-only")]
    ReadOnly(PathBuf),
    #[error("{0}: permission denied (choose a directory you can write to)")]
    PermissionDenied(PathBuf),
    #[error("{path}: not enough free space: the test needs {need} and {free} is free (use --size to test with a smaller file)")]
    NoSpace {
        path: PathBuf,
        need: String,
        free: String,
    },
    #[error("{path}: cannot create the test file: {source}")]
    Create { path: PathBuf, source: io::Error },
}

/// Space the test leaves free beyond its file, so that iomark never fills a filesystem to the
/// last block: 1% of the file, at least 16 MiB.
pub fn headroom(size: u64) -> u64 {
    (size / 100).max(16 << 20)
}

/// The open test file.
#[derive(Debug)]
pub struct TestFile {
    path: PathBuf,
    file: File,
    size: u64,
    direct: bool,
    buffered_reason: Option<String>,
    reclaimed: Vec<(PathBuf, u64)>,
}

impl TestFile {
    /// Checks `dir`, then creates a new test file of `size` bytes in it (space reserved, not yet
    /// written). With `want_direct`, direct I/O is switched on where the filesystem accepts it.
    pub fn create(dir: &Path, size: u64, want_direct: bool) -> Result<TestFile, TargetError> {
        let meta = std::fs::metadata(dir).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => TargetError::NotFound(dir.to_path_buf()),
            io::ErrorKind::PermissionDenied => TargetError::PermissionDenied(dir.to_path_buf()),
            _ => TargetError::Create {
                path: dir.to_path_buf(),
                source: e,
            },
        })?;
        if !meta.is_dir() {
            return Err(TargetError::NotADirectory(dir.to_path_buf()));
        }
        // What a run killed with SIGKILL (the one signal that cannot be caught) left behind would
        // otherwise hold the space this run needs, unexplained.
        let reclaimed = super::stale::remove_stale(dir);
        let (free, read_only) = free_space(dir).map_err(|source| TargetError::Create {
            path: dir.to_path_buf(),
            source,
        })?;
        if read_only {
            return Err(TargetError::ReadOnly(dir.to_path_buf()));
        }
        let need = size + headroom(size);
        if free < need {
            return Err(TargetError::NoSpace {
                path: dir.to_path_buf(),
                need: iomark_result::units::format_size(need),
                free: iomark_result::units::format_size(free),
            });
        }

        let mut rng = Rng::from_entropy();
        let name = format!(".iomark-{}-{:016x}.tmp", std::process::id(), rng.next_u64());
        let path = dir.join(name);
        let file = {
            let mut registry = created();
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .map_err(|source| match source.raw_os_error() {
                    Some(libc::EROFS) => TargetError::ReadOnly(dir.to_path_buf()),
                    Some(libc::EACCES) | Some(libc::EPERM) => {
                        TargetError::PermissionDenied(dir.to_path_buf())
                    }
                    _ => TargetError::Create {
                        path: path.clone(),
                        source,
                    },
                })?;
            let meta = file.metadata().map_err(|source| TargetError::Create {
                path: path.clone(),
                source,
            })?;
            {
                use std::os::unix::fs::MetadataExt;
                registry.push(Created {
                    path: path.clone(),
                    dev: meta.dev(),
                    ino: meta.ino(),
                    fd: file.as_raw_fd(),
                });
            }
            file
        };
        // From here on, dropping `test_file` removes the file, whatever fails next.
        let mut test_file = TestFile {
            path,
            file,
            size,
            direct: false,
            buffered_reason: None,
            reclaimed,
        };
        test_file.reserve()?;
        if want_direct {
            test_file.enable_direct();
        } else {
            test_file.buffered_reason = Some("buffered I/O was requested (--buffered)".into());
        }
        Ok(test_file)
    }

    /// Reserves the blocks up front, so a full filesystem shows now rather than mid-test.
    fn reserve(&self) -> Result<(), TargetError> {
        // SAFETY: plain syscall on an fd we own.
        let rc = unsafe { libc::fallocate(self.fd(), 0, 0, self.size as libc::off_t) };
        if rc == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        match error.raw_os_error() {
            Some(libc::ENOSPC) => {
                let dir = self.path.parent().unwrap_or(Path::new("."));
                let free = free_space(dir).map(|(free, _)| free).unwrap_or(0);
                Err(TargetError::NoSpace {
                    path: dir.to_path_buf(),
                    need: iomark_result::units::format_size(self.size),
                    free: iomark_result::units::format_size(free),
                })
            }
            // Not every filesystem can preallocate (exFAT, some FUSE); the fill writes it anyway.
            Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) | Some(libc::ENOSYS) => Ok(()),
            _ => Err(TargetError::Create {
                path: self.path.clone(),
                source: error,
            }),
        }
    }

    /// Switches on `O_DIRECT` and proves it with one aligned write; some filesystems accept the
    /// flag and then refuse the I/O.
    fn enable_direct(&mut self) {
        let fd = self.fd();
        // SAFETY: fcntl on an fd we own.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_DIRECT) } != 0 {
            self.buffered_reason = Some(format!(
                "the filesystem does not support direct I/O ({})",
                io::Error::last_os_error()
            ));
            return;
        }
        let probe = match Buffers::new(1, 4096) {
            Ok(probe) => probe,
            Err(error) => {
                self.buffered_reason = Some(format!("no memory for a direct-I/O probe ({error})"));
                return;
            }
        };
        match self.file.write_at(probe.get(0), 0) {
            Ok(_) => self.direct = true,
            Err(error) => {
                // SAFETY: as above; restore the flags without O_DIRECT.
                unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT) };
                self.buffered_reason =
                    Some(format!("the filesystem refused a direct write ({error})"));
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether I/O bypasses the page cache (`O_DIRECT`).
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// Test files of runs that were killed, found in the directory and removed before this one
    /// was created, with their sizes.
    pub fn reclaimed(&self) -> &[(PathBuf, u64)] {
        &self.reclaimed
    }

    /// Why direct I/O is off, when it is.
    pub fn buffered_reason(&self) -> Option<&str> {
        self.buffered_reason.as_deref()
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// Writes the file once, front to back, with incompressible (or zero) data, as fio lays out
    /// its files: through the page cache, then `fdatasync`, then evicted from the cache. Returns
    /// the bytes written.
    ///
    /// How a file was written changes how fast it is rewritten. On this project's virtio VM, fio's
    /// own RND4K Q32T1 write ran at 415-477 MB/s on a file written with direct I/O and 220-320
    /// MB/s on one written through the page cache; fio lays out through the page cache, and so
    /// do the programs that write most files. Filling the same way keeps iomark's write figures
    /// comparable with fio's and with what programs get.
    ///
    /// Dirty data is kept to two windows of 16 MiB (each written back as the next fills), so the
    /// fill moves at the device's pace and its rate is known as it goes. With a `budget`, a slow
    /// device's file is cut short: once the fill has run 2 s, the file becomes what the device
    /// writes in the budget's time (whole blocks, at least its minimum), and the rest of the
    /// reserved space is given back. A card writing 10 MB/s needs no 1 GiB file to defeat a
    /// cache it does not have, and filling one took 108 s of a 171 s standard run (issue 16).
    pub fn fill(
        &mut self,
        data: Data,
        live: &Live,
        budget: Option<FillBudget>,
    ) -> Result<u64, EngineError> {
        const CHUNK: u64 = 1 << 20;
        const WINDOW: u64 = 16 << 20;
        const DECIDE_AFTER: Duration = Duration::from_secs(2);
        let fd = self.fd();
        let target = self.buffered(|| -> Result<u64, EngineError> {
            let mut rng = Rng::from_entropy();
            let mut buffer = Buffers::new(1, CHUNK as usize).map_err(EngineError::Memory)?;
            prepare(buffer.get_mut(0), data, &mut rng);
            let started = Instant::now();
            let mut target = self.size;
            let mut decided = budget.is_none();
            let mut offset = 0;
            while offset < target {
                let len = CHUNK.min(target - offset);
                restamp(buffer.get_mut(0), data, &mut rng);
                let written = self
                    .file
                    .write_all_at(&buffer.get(0)[..len as usize], offset)
                    .map(|()| len as usize);
                EngineError::check(Op::Write, offset, len, written)?;
                live.add(len);
                offset += len;
                if offset % WINDOW == 0 {
                    // Start writing this window back; wait for the one before it.
                    sync_range(fd, offset - WINDOW, WINDOW, false);
                    if offset >= 2 * WINDOW {
                        sync_range(fd, offset - 2 * WINDOW, WINDOW, true);
                        let elapsed = started.elapsed();
                        if let (false, Some(budget)) = (decided, budget) {
                            if elapsed >= DECIDE_AFTER {
                                decided = true;
                                // What is on the device by now, at the rate it got there.
                                let rate = (offset - WINDOW) as f64 / elapsed.as_secs_f64();
                                target = budget.size_for(rate, self.size, offset);
                            }
                        }
                    }
                }
            }
            EngineError::check(Op::Write, 0, 0, self.file.sync_data().map(|()| 0))?;
            // SAFETY: plain syscall on an fd we own.
            unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
            Ok(target)
        })?;
        if target < self.size {
            EngineError::check(Op::Write, target, 0, self.file.set_len(target).map(|()| 0))?;
            self.size = target;
        }
        Ok(target)
    }

    /// Runs `work` with direct I/O switched off (buffered, through the page cache), then
    /// switches it back on if it was on.
    pub fn buffered<T>(&self, work: impl FnOnce() -> T) -> T {
        let fd = self.fd();
        // SAFETY: fcntl on an fd we own.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if self.direct {
            unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT) };
        }
        let result = work();
        if self.direct {
            // SAFETY: as above; restores the flags read before.
            unsafe { libc::fcntl(fd, libc::F_SETFL, flags) };
        }
        result
    }

    /// Pushes written data to the device and evicts the file from the page cache, so that the
    /// next buffered read reads the device (as far as the kernel lets us: it is
    /// `posix_fadvise(DONTNEED)`, plus `drop_caches` when running as root). The caller decides
    /// when it is needed: a test may be buffered on a file that has direct I/O.
    pub fn evict_cache(&self) -> io::Result<()> {
        self.file.sync_data()?;
        // SAFETY: plain syscall on an fd we own.
        unsafe { libc::posix_fadvise(self.fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if unsafe { libc::geteuid() } == 0 {
            let _ = std::fs::write("/proc/sys/vm/drop_caches", "1");
        }
        Ok(())
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        let mut registry = created();
        let fd = self.fd();
        if let Some(index) = registry.iter().position(|c| c.fd == fd) {
            let file = registry.swap_remove(index);
            remove_if_same(&file.path, file.dev, file.ino);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_exclusively_and_removed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), 1 << 20, true).unwrap();
        let path = file.path().to_path_buf();
        assert!(path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with(".iomark-"));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1 << 20);
        assert!(created().iter().any(|c| c.path == path));
        drop(file);
        assert!(!path.exists());
        assert!(!created().iter().any(|c| c.path == path));
    }

    #[test]
    fn a_file_put_in_its_place_by_another_program_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), 1 << 20, true).unwrap();
        let path = file.path().to_path_buf();
        // Another program deletes the test file and creates its own under the same name.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"someone else's").unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), b"someone else's");
    }

    #[test]
    fn refuses_missing_dirs_files_and_huge_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        assert!(matches!(
            TestFile::create(&missing, 1 << 20, true),
            Err(TargetError::NotFound(_))
        ));
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"x").unwrap();
        assert!(matches!(
            TestFile::create(&plain, 1 << 20, true),
            Err(TargetError::NotADirectory(_))
        ));
        assert!(matches!(
            TestFile::create(dir.path(), 1 << 60, true),
            Err(TargetError::NoSpace { .. })
        ));
        // Nothing but the plain file is left.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn fill_writes_every_block_and_keeps_direct_io() {
        let dir = tempfile::tempdir().unwrap();
        let size = (3 << 20) + 8192;
        let mut file = TestFile::create(dir.path(), size, true).unwrap();
        let direct = file.direct();
        let live = Live::default();
        assert_eq!(file.fill(Data::Random, &live, None).unwrap(), size);
        assert_eq!(live.bytes(), size);
        assert_eq!(file.direct(), direct);
        if direct {
            // SAFETY: fcntl on an fd the file owns.
            let flags = unsafe { libc::fcntl(file.fd(), libc::F_GETFL) };
            assert_ne!(
                flags & libc::O_DIRECT,
                0,
                "O_DIRECT not restored after the fill"
            );
        }
        let bytes = std::fs::read(file.path()).unwrap();
        assert_eq!(bytes.len() as u64, size);
        for (i, block) in bytes.chunks(4096).enumerate() {
            let zeros = block.iter().filter(|&&b| b == 0).count();
            assert!(zeros < 256, "block {i} looks unwritten");
        }
        let mut distinct: Vec<&[u8]> = bytes.chunks(512).collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            bytes.len() / 512,
            "repeated 512-byte sectors"
        );
    }

    #[test]
    fn buffered_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), 1 << 20, false).unwrap();
        assert!(!file.direct());
        assert!(file.buffered_reason().unwrap().contains("--buffered"));
    }
}
