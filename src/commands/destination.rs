//! Files written at the user's request (`run --json`, `export -o`, `plot -o`): checked before
//! any work is done, and written so that nothing but the named file changes.
//!
//! - `-` is standard output.
//! - A new or existing regular file is written whole or not at all: to a temporary file beside
//!   it (created at once, which proves the folder exists and takes files), then renamed over
//!   it. A full disk leaves the old file as it was, not an empty one. An existing file with
//!   other hard links, or another owner, is rewritten in place instead, so that those keep it.
//! - A device node, FIFO or socket (`/dev/null`, `/dev/stdout`, a pipe) is written into as it
//!   is: never replaced by a regular file.
//! - A symbolic link is refused: renaming over it would replace the link, and following it
//!   writes somewhere the name does not say.
//! - A directory, or a folder that does not exist, is refused.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a destination is refused, naming the flag.
#[derive(Debug, thiserror::Error)]
pub enum DestinationError {
    #[error("{flag}: {path}: no such directory")]
    NoFolder { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} is a directory; give a file name")]
    Directory { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} is a symbolic link; give the file it points to")]
    Symlink { flag: &'static str, path: PathBuf },
    // Not `source`: the reason is said once, in plain words, not again as its cause.
    #[error("{flag}: cannot write {path}: {}", iomark_core::space::plainly(.error))]
    Io {
        flag: &'static str,
        path: PathBuf,
        error: io::Error,
    },
}

/// A checked destination, ready to take the bytes once they exist.
pub struct Destination {
    flag: &'static str,
    path: PathBuf,
    how: How,
}

enum How {
    Stdout,
    /// Written into as it is (a device node, FIFO or socket; or a regular file others share).
    InPlace,
    /// A temporary file beside the target, renamed over it when written.
    Replace {
        partial: PathBuf,
        file: File,
    },
}

impl Destination {
    /// Checks `path` for `flag` now, before the work whose result it will hold.
    pub fn check(flag: &'static str, path: &Path) -> Result<Destination, DestinationError> {
        let io = |error| DestinationError::Io {
            flag,
            path: path.to_path_buf(),
            error,
        };
        if path == Path::new("-") {
            return Ok(Destination {
                flag,
                path: path.to_path_buf(),
                how: How::Stdout,
            });
        }
        let how = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(DestinationError::Symlink {
                    flag,
                    path: path.to_path_buf(),
                })
            }
            Ok(meta) if meta.is_dir() => {
                return Err(DestinationError::Directory {
                    flag,
                    path: path.to_path_buf(),
                })
            }
            Ok(meta) if !meta.is_file() => {
                // Open it now (without creating or truncating anything) to find out if we may.
                OpenOptions::new().write(true).open(path).map_err(io)?;
                How::InPlace
            }
            // SAFETY: geteuid has no preconditions.
            Ok(meta) if meta.nlink() > 1 || meta.uid() != unsafe { libc::geteuid() } => {
                OpenOptions::new().write(true).open(path).map_err(io)?;
                How::InPlace
            }
            Ok(_) => Self::partial(flag, path)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Self::partial(flag, path)?,
            Err(e) => return Err(io(e)),
        };
        Ok(Destination {
            flag,
            path: path.to_path_buf(),
            how,
        })
    }

    /// A new temporary file beside `path`, removed if the run ends before it is renamed.
    fn partial(flag: &'static str, path: &Path) -> Result<How, DestinationError> {
        let folder = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(DestinationError::NoFolder {
                flag,
                path: folder.to_path_buf(),
            });
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".into());
        let partial = folder.join(format!(".{name}.{}.partial", std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&partial)
            .map_err(|error| DestinationError::Io {
                flag,
                path: path.to_path_buf(),
                error,
            })?;
        iomark_core::interrupt::remove_on_signal(&partial);
        Ok(How::Replace { partial, file })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the bytes go to standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self.how, How::Stdout)
    }

    /// Where another writer (SQLite's `VACUUM INTO`) may write the file before [`finish`]
    /// puts it in place: the empty temporary file beside the target, readable by its owner
    /// alone; none where the destination is written into as it is (standard output, a device
    /// node, a file others share).
    ///
    /// [`finish`]: Destination::finish
    pub fn partial_path(&self) -> Option<&Path> {
        use std::os::unix::fs::PermissionsExt;
        match &self.how {
            How::Replace { partial, file } => {
                let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
                Some(partial)
            }
            _ => None,
        }
    }

    /// Puts what was written at [`Destination::partial_path`] in place: synced, renamed over
    /// the target, and its folder synced, so that what iomark then says it wrote is there
    /// after a power cut too (the old file until then, never neither).
    pub fn finish(self) -> Result<(), DestinationError> {
        let io = |error| DestinationError::Io {
            flag: self.flag,
            path: self.path.clone(),
            error,
        };
        if let How::Replace { partial, .. } = &self.how {
            let folder = match self.path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => std::path::PathBuf::from("."),
            };
            File::open(partial)
                .and_then(|f| f.sync_all())
                .and_then(|()| std::fs::rename(partial, &self.path))
                .and_then(|()| File::open(&folder)?.sync_all())
                .map_err(io)?;
        }
        Ok(())
    }

    /// Writes `bytes`, whole.
    pub fn write(self, bytes: &[u8]) -> Result<(), DestinationError> {
        let io = |error| DestinationError::Io {
            flag: self.flag,
            path: self.path.clone(),
            error,
        };
        match &self.how {
            How::Stdout => {
                let mut out = io::stdout().lock();
                match out.write_all(bytes).and_then(|()| out.flush()) {
                    Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(io(e)),
                    _ => Ok(()),
                }
            }
            How::InPlace => {
                let mut file = OpenOptions::new()
                    .write(true)
                    .open(&self.path)
                    .map_err(io)?;
                if file.metadata().is_ok_and(|m| m.is_file()) {
                    file.set_len(0).map_err(io)?;
                }
                file.write_all(bytes).map_err(io)
            }
            How::Replace { partial, file } => {
                let mut file: &File = file;
                let written = file
                    .write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .and_then(|()| std::fs::rename(partial, &self.path));
                written.map_err(io)
            }
        }
    }
}

impl Drop for Destination {
    fn drop(&mut self) {
        if let How::Replace { partial, .. } = &self.how {
            // Gone already when it was renamed into place.
            let _ = std::fs::remove_file(partial);
            iomark_core::interrupt::forget_on_signal(partial);
        }
    }
}

/// Where the test runs: PATH, checked to be an existing directory, made absolute so that every
/// report names it unambiguously.
pub fn directory(path: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(std::fs::canonicalize(&dir).unwrap_or(dir)),
        Ok(_) => anyhow::bail!(
            "{}: not a directory (give the directory to test, on the filesystem to measure)",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("{}: no such directory", dir.display())
        }
        Err(e) => anyhow::bail!("{}: {e}", dir.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_replaced_whole_and_leaves_no_partial() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, b"old").unwrap();
        let destination = Destination::check("--json", &path).unwrap();
        // Checked before the work: the temporary file exists already.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        destination.write(b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_destination_given_up_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        drop(Destination::check("--json", &dir.path().join("x.json")).unwrap());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn links_directories_and_missing_folders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, b"keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let refused = |path: &Path| Destination::check("-o", path).err().unwrap().to_string();
        assert!(refused(&link).contains("symbolic link"));
        assert!(refused(dir.path()).contains("is a directory"));
        assert!(refused(&dir.path().join("no/x.json")).contains("no such directory"));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    }

    #[test]
    fn a_device_node_is_written_into_not_replaced() {
        let destination = Destination::check("-o", Path::new("/dev/null")).unwrap();
        destination.write(b"anything").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file());
    }
}
