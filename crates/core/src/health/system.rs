//! What the system already knows of the device under a folder: whether its filesystem was
//! remounted read-only (the kernel does so after errors), ext4's error count, and the device's
//! count of sectors written (`stat` in sysfs, Documentation/block/stat.rst), from which a
//! check's own writes and the daily write load are measured rather than assumed.

use std::path::{Path, PathBuf};

use crate::probe::mounts;
use crate::probe::sysfs::{read, read_u64, resolve};

/// The filesystem and device under a folder, as far as the system tells.
#[derive(Clone, Debug, Default)]
pub struct Under {
    pub read_only: bool,
    pub fstype: Option<String>,
    /// The block device's kernel name (`mmcblk0p2`, `sda1`, `loop3`).
    pub device: Option<String>,
    /// Its `stat` file in sysfs.
    stat: Option<PathBuf>,
    /// The whole disk's node in sysfs (a partition's parent), and its name in /dev.
    pub disk: Option<(PathBuf, String)>,
}

impl Under {
    /// What `root` (`/` on a real machine) says of the filesystem `dir` (resolved) is on.
    pub fn of(root: &Path, dir: &Path) -> Under {
        let table = mounts::read(root).unwrap_or_default();
        let Some(mount) = mounts::containing(&table, dir) else {
            return Under::default();
        };
        let node = (!mount.device.starts_with("0:"))
            .then(|| resolve(&root.join("sys/dev/block").join(&mount.device)))
            .flatten();
        let disk = node.as_ref().and_then(|n| {
            let disk = match n.join("partition").exists() {
                true => n.parent()?.to_path_buf(),
                false => n.clone(),
            };
            let name = disk.file_name()?.to_string_lossy().into_owned();
            Some((disk, name))
        });
        Under {
            disk,
            read_only: mount.options.split(',').any(|o| o == "ro"),
            fstype: Some(mount.fstype.clone()),
            device: node
                .as_ref()
                .and_then(|n| n.file_name())
                .map(|n| n.to_string_lossy().into_owned()),
            stat: node.map(|n| n.join("stat")),
        }
    }

    /// Sectors (of 512 bytes) the device has written since the machine started.
    pub fn sectors_written(&self) -> Option<u64> {
        let text = read(self.stat.as_ref()?)?;
        // Field 7 of the block device's stat: sectors written.
        text.split_whitespace().nth(6)?.parse().ok()
    }

    /// ext4's count of errors on this filesystem since it was made, and when the last was
    /// (seconds since 1970), where it is ext4.
    pub fn ext4_errors(&self, root: &Path) -> Option<(u64, Option<u64>)> {
        if self.fstype.as_deref() != Some("ext4") {
            return None;
        }
        let dir = root.join("sys/fs/ext4").join(self.device.as_ref()?);
        let count = read_u64(&dir.join("errors_count"))?;
        Some((
            count,
            read_u64(&dir.join("last_error_time")).filter(|t| *t > 0),
        ))
    }
}

/// This boot's id: a count of sectors read in another boot is not comparable.
pub fn boot_id(root: &Path) -> Option<String> {
    read(&root.join("proc/sys/kernel/random/boot_id"))
}
