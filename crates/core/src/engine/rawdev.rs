//! A raw block device's life (as `target.rs` is the test file's): opened only when it is safe: root, a block device, nothing using it
//! (not mounted, nor any partition of it; not under LVM, LUKS or RAID; not swap), then opened
//! with `O_EXCL`, the kernel's own lock against mounting it meanwhile.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("{0}: no such device")]
    Missing(PathBuf),
    #[error("{0} is not a block device (--device takes a disk such as /dev/sdb; to verify a filesystem, give its folder: iomark verify PATH)")]
    NotBlock(PathBuf),
    #[error("--device needs root: raw devices are read and written directly (run it with sudo)")]
    NotRoot,
    #[error("{0}")]
    InUse(String),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

pub struct RawDevice {
    pub path: PathBuf,
    pub file: File,
    pub size: u64,
    /// `major:minor`.
    pub number: String,
    pub writable: bool,
}

/// BLKGETSIZE64: the device's size in bytes. The kernel defines it as `_IOR(0x12, 114,
/// size_t)`, so its number holds size_t's width: 0x80081272 on a 64-bit kernel's programs,
/// 0x80041272 on 32-bit ARM, where the 64-bit number is refused (EINVAL: every raw-device
/// command failed so on an emulated Pi 2, tests/virtual-pi).
const BLKGETSIZE64: libc::c_ulong =
    0x8000_1272 | ((std::mem::size_of::<libc::size_t>() as libc::c_ulong) << 16);

/// Opens `path` for direct I/O, read-only unless `write`, after every check.
pub fn open(path: &Path, write: bool) -> Result<RawDevice, DeviceError> {
    let resolved = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => DeviceError::Missing(path.to_path_buf()),
        _ => DeviceError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    let meta = std::fs::metadata(&resolved).map_err(|e| DeviceError::Io {
        path: resolved.clone(),
        source: e,
    })?;
    if !meta.file_type().is_block_device() {
        return Err(DeviceError::NotBlock(path.to_path_buf()));
    }
    // SAFETY: a plain getter.
    if unsafe { libc::geteuid() } != 0 {
        return Err(DeviceError::NotRoot);
    }
    let rdev = meta.rdev();
    let number = format!("{}:{}", libc::major(rdev), libc::minor(rdev));
    if let Some(reason) = crate::probe::inuse::in_use(Path::new("/"), &number) {
        return Err(DeviceError::InUse(reason));
    }
    let file = OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_DIRECT | libc::O_EXCL)
        .open(&resolved)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EBUSY) => DeviceError::InUse(format!(
                "{} is in use (the kernel refused an exclusive open: mounted or held by another program)",
                resolved.display()
            )),
            _ => DeviceError::Io {
                path: resolved.clone(),
                source: e,
            },
        })?;
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer given.
    let got = unsafe {
        libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            BLKGETSIZE64 as _,
            &mut size,
        )
    };
    if got != 0 {
        return Err(DeviceError::Io {
            path: resolved,
            source: io::Error::last_os_error(),
        });
    }
    Ok(RawDevice {
        path: resolved,
        file,
        size,
        number,
        writable: write,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blkgetsize64_is_the_kernels_number_for_this_width() {
        #[cfg(target_pointer_width = "64")]
        assert_eq!(BLKGETSIZE64, 0x8008_1272);
        #[cfg(target_pointer_width = "32")]
        assert_eq!(BLKGETSIZE64, 0x8004_1272);
    }
}
