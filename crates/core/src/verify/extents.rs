//! Where a filesystem put the files verify wrote, on its device (the kernel's FIEMAP), and from
//! that what a counterfeit device really holds.
//!
//! A filesystem verify sees positions in its files; a fake card wraps or loses by device offset.
//! With each file's extents, a wrong range's position and the position whose data it holds
//! become two device offsets: two offsets sharing one place are the wrap's period apart, which
//! is the real size; where nothing wrapped, the lowest offset whose data was lost is. The
//! filesystem's own space and where its allocator put the files no longer matter.

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::Path;

use iomark_result::result::verify::{Problem, ProblemKind};

/// One run of a file's bytes on its device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// Its offset in the file.
    pub logical: u64,
    /// Its offset on the filesystem's device.
    pub physical: u64,
    pub length: u64,
}

// <linux/fiemap.h>
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const FIEMAP_FLAG_SYNC: u32 = 0x1;
const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// Extents whose physical offset is not a place on the device: unknown, delayed, encoded,
/// not aligned, inline in metadata.
const FIEMAP_EXTENT_NOT_A_PLACE: u32 = 0x2 | 0x4 | 0x8 | 0x100 | 0x200;
const BATCH: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RawExtent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
struct Request {
    start: u64,
    length: u64,
    flags: u32,
    mapped: u32,
    count: u32,
    reserved: u32,
    extents: [RawExtent; BATCH],
}

/// The file's extents in order, or `None` where the filesystem does not tell (no FIEMAP, or an
/// extent with no place on the device).
pub fn of(file: &File) -> io::Result<Option<Vec<Extent>>> {
    let mut out = Vec::new();
    let mut start = 0u64;
    loop {
        let mut request = Request {
            start,
            length: u64::MAX - start,
            flags: FIEMAP_FLAG_SYNC,
            mapped: 0,
            count: BATCH as u32,
            reserved: 0,
            extents: [RawExtent::default(); BATCH],
        };
        // SAFETY: FS_IOC_FIEMAP reads the header and fills at most `count` extents of the
        // struct it is given, which is laid out as <linux/fiemap.h> declares it.
        let answer = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP as _, &mut request) };
        if answer < 0 {
            let error = io::Error::last_os_error();
            return match error.raw_os_error() {
                Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY) | Some(libc::EINVAL) => Ok(None),
                _ => Err(error),
            };
        }
        let mapped = (request.mapped as usize).min(BATCH);
        if mapped == 0 {
            return Ok(Some(out));
        }
        for raw in &request.extents[..mapped] {
            if raw.flags & FIEMAP_EXTENT_NOT_A_PLACE != 0 {
                return Ok(None);
            }
            out.push(Extent {
                logical: raw.logical,
                physical: raw.physical,
                length: raw.length,
            });
            start = raw.logical + raw.length;
            if raw.flags & FIEMAP_EXTENT_LAST != 0 {
                return Ok(Some(out));
            }
        }
    }
}

/// Where the filesystem holding `path` begins on its disk: a partition's start, else 0.
pub fn partition_start(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(dev) = std::fs::metadata(path).map(|m| m.dev()) else {
        return 0;
    };
    let sys = format!(
        "/sys/dev/block/{}:{}/start",
        libc::major(dev),
        libc::minor(dev)
    );
    std::fs::read_to_string(sys)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(0, |sectors| sectors * 512)
}

/// The files' places: file N's extents hold stream positions N × `file_bytes` on.
pub struct Places {
    pub files: Vec<Vec<Extent>>,
    pub file_bytes: u64,
    /// Where the filesystem begins on its disk.
    pub base: u64,
}

impl Places {
    /// The disk offset of stream position `position`, if a file's extent holds it.
    pub fn offset(&self, position: u64) -> Option<u64> {
        let file = self.files.get((position / self.file_bytes) as usize)?;
        let within = position % self.file_bytes;
        file.iter()
            .find(|e| within >= e.logical && within < e.logical + e.length)
            .map(|e| self.base + e.physical + (within - e.logical))
    }

    /// What the device holds, judged from the wrong ranges: the smallest distance between two
    /// disk offsets found sharing a place (the wrap's period); where none did, the lowest disk
    /// offset whose data was lost.
    pub fn real_size(&self, problems: &[Problem]) -> Option<u64> {
        let period = problems
            .iter()
            .filter(|p| p.kind == ProblemKind::Aliased)
            .filter_map(|p| Some(self.offset(p.position)?.abs_diff(self.offset(p.holds?)?)))
            .filter(|&d| d > 0)
            .min();
        period.or_else(|| {
            problems
                .iter()
                .filter(|p| p.kind != ProblemKind::Aliased)
                .filter_map(|p| self.offset(p.position))
                .min()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn problem(position: u64, kind: ProblemKind, holds: Option<u64>) -> Problem {
        Problem {
            position,
            bytes: 4096,
            kind,
            holds,
        }
    }

    #[test]
    fn a_file_written_here_has_its_extents() {
        use std::io::Write;
        // Beside the sources, on a disk (a tmpfs does not map its files).
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("f");
        let mut file = File::create(&path).unwrap();
        file.write_all(&vec![7u8; 3 * MIB as usize]).unwrap();
        file.sync_all().unwrap();
        let extents = of(&file)
            .unwrap()
            .expect("this filesystem maps its files (FIEMAP)");
        let covered: u64 = extents.iter().map(|e| e.length).sum();
        assert!(covered >= 3 * MIB, "{extents:?}");
        assert_eq!(extents[0].logical, 0);
    }

    #[test]
    fn a_wrap_and_a_loss_are_read_from_disk_offsets() {
        // Two files of 8 MiB: the first at disk offset 100 MiB, the second split in two, its
        // second half placed below the first file.
        let places = Places {
            files: vec![
                vec![Extent {
                    logical: 0,
                    physical: 100 * MIB,
                    length: 8 * MIB,
                }],
                vec![
                    Extent {
                        logical: 0,
                        physical: 300 * MIB,
                        length: 4 * MIB,
                    },
                    Extent {
                        logical: 4 * MIB,
                        physical: 20 * MIB,
                        length: 4 * MIB,
                    },
                ],
            ],
            file_bytes: 8 * MIB,
            base: MIB,
        };
        assert_eq!(places.offset(MIB), Some(102 * MIB));
        assert_eq!(places.offset(8 * MIB + 5 * MIB), Some(22 * MIB));
        assert_eq!(places.offset(16 * MIB), None);
        // File 1's first byte (disk 101 MiB) holds file 2's (disk 301 MiB): 200 MiB apart.
        let wrapped = [
            problem(0, ProblemKind::Aliased, Some(8 * MIB)),
            problem(8 * MIB + 4 * MIB, ProblemKind::Bad, None),
        ];
        assert_eq!(places.real_size(&wrapped), Some(200 * MIB));
        // Nothing shared: the lowest lost offset, on the disk (file 2's second half, 21 MiB).
        let lost = [
            problem(8 * MIB, ProblemKind::Bad, None),
            problem(8 * MIB + 4 * MIB, ProblemKind::Bad, None),
        ];
        assert_eq!(places.real_size(&lost), Some(21 * MIB));
        assert_eq!(places.real_size(&[]), None);
    }
}
