//! How much room a filesystem has (statvfs): asked by the engine before it creates a test file,
//! and by the probe for the result document.

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The filesystem's size and the bytes in use (by files and the filesystem itself; space
/// reserved for root but unused is not counted).
pub fn size_and_used(dir: &Path) -> io::Result<(u64, u64)> {
    let stat = statvfs(dir)?;
    let unit = stat.f_frsize as u64;
    let size = stat.f_blocks as u64 * unit;
    Ok((size, size.saturating_sub(stat.f_bfree as u64 * unit)))
}

fn statvfs(dir: &Path) -> io::Result<libc::statvfs> {
    let c_path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: zeroed is a valid statvfs; the path is NUL-terminated.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat)
}

/// What went wrong writing somewhere, in words that say what to do: a folder that is not this
/// user's to write, a read-only filesystem, a full one; else the system's own words.
pub fn plainly(error: &io::Error) -> String {
    match error.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "permission denied (choose a directory you can write to)".into()
        }
        Some(libc::EROFS) => "the filesystem is mounted read-only".into(),
        Some(libc::ENOSPC) => "the filesystem is full".into(),
        Some(libc::EDQUOT) => "your disk quota is used up".into(),
        _ => error.to_string(),
    }
}

/// Free bytes (available to this user) and whether the filesystem is mounted read-only.
pub fn free_space(dir: &Path) -> io::Result<(u64, bool)> {
    let stat = statvfs(dir)?;
    let free = stat.f_bavail as u64 * stat.f_frsize as u64;
    Ok((free, stat.f_flag & libc::ST_RDONLY != 0))
}
