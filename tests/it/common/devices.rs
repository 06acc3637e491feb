//! Real block devices for the tests, made by the tests: loop devices over files in /dev/shm,
//! and counterfeit cards: a FUSE filesystem (fuser) with one file that claims more than it
//! stores, attached with losetup. Everything here needs root; callers skip without it.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, LockOwner, MountOption,
    OpenFlags, ReplyAttr, ReplyData, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request,
    WriteFlags,
};

use super::{need, root_for, skip};

/// A loop device over `file`, detached when dropped.
pub struct Loop {
    pub dev: PathBuf,
}

impl Loop {
    /// `partitions`: scan for a partition table (`losetup -P`).
    /// `None` (the test [`skip`]ped) without root or where the kernel gives no loop device.
    pub fn attach(file: &Path, partitions: bool) -> Option<Loop> {
        if !root_for("a loop device") {
            return None;
        }
        need("losetup", "mount");
        let mut command = Command::new("losetup");
        command.args(["--find", "--show"]);
        if partitions {
            command.arg("--partscan");
        }
        let output = command.arg(file).output().ok()?;
        if !output.status.success() {
            skip(&format!(
                "losetup: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
            return None;
        }
        let dev = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        Some(Loop { dev })
    }

    pub fn path(&self) -> &str {
        self.dev.to_str().unwrap()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

/// A file in /dev/shm of `size` bytes of a fixed random-looking content, removed when dropped.
pub struct ShmFile {
    pub path: PathBuf,
}

impl ShmFile {
    pub fn new(size: u64) -> ShmFile {
        let path = PathBuf::from(format!(
            "/dev/shm/iomark-test-{}-{}.img",
            std::process::id(),
            COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let mut data = vec![0u8; size as usize];
        let mut x = 0x1234_5678_9abc_def0u64;
        for chunk in data.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        std::fs::write(&path, data).unwrap();
        ShmFile { path }
    }
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Drop for ShmFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// SHA-256 of everything a device holds.
pub fn sha256(dev: &Path) -> String {
    let output = Command::new("sha256sum").arg(dev).output().unwrap();
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// Which 4 KiB blocks a [`Card`] corrupts on read: block b where b % every == at.
#[derive(Clone, Copy, Debug)]
pub struct Flips {
    pub every: u64,
    pub at: u64,
    /// The byte of the block whose lowest bit flips.
    pub byte: u64,
}

/// A counterfeit card: one file, `card.img`, that claims `claimed` bytes and stores only
/// `data.len()`, every offset taken modulo that (what a fake card's controller does), and
/// optionally a flipped bit in some blocks.
struct Card {
    claimed: u64,
    data: Mutex<Vec<u8>>,
    flips: Option<Flips>,
}

/// A FUSE folder that holds one file, as the fake card and the forgetful disk
/// (`power.rs`) are: the file's inode, and how long the kernel may keep what it is told.
pub const TTL: Duration = Duration::from_secs(1);
pub const IMAGE: INodeNo = INodeNo(2);

/// The attributes of such a folder (the root) or of its file of `size` bytes.
pub fn one_file_attr(ino: INodeNo, size: u64) -> FileAttr {
    let dir = ino == INodeNo::ROOT;
    FileAttr {
        ino,
        size: if dir { 0 } else { size },
        blocks: if dir { 0 } else { size / 512 },
        atime: std::time::UNIX_EPOCH,
        mtime: std::time::UNIX_EPOCH,
        ctime: std::time::UNIX_EPOCH,
        crtime: std::time::UNIX_EPOCH,
        kind: if dir {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: if dir { 0o755 } else { 0o644 },
        nlink: if dir { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

/// Looks up `name` in such a folder, whose file is `file` of `size` bytes.
pub fn one_file_lookup(parent: INodeNo, name: &OsStr, file: &str, size: u64, reply: ReplyEntry) {
    if parent == INodeNo::ROOT && name == file {
        reply.entry(&TTL, &one_file_attr(IMAGE, size), fuser::Generation(0));
    } else {
        reply.error(Errno::ENOENT);
    }
}

/// The attributes of `ino` in such a folder, whose file is of `size` bytes.
pub fn one_file_getattr(ino: INodeNo, size: u64, reply: ReplyAttr) {
    if ino == INodeNo::ROOT || ino == IMAGE {
        reply.attr(&TTL, &one_file_attr(ino, size));
    } else {
        reply.error(Errno::ENOENT);
    }
}

impl Filesystem for Card {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        one_file_lookup(parent, name, "card.img", self.claimed, reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        one_file_getattr(ino, self.claimed, reply);
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // Direct I/O: no page cache of the file may hide what the "card" really stores.
        reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let data = self.data.lock().unwrap();
        let end = (offset + u64::from(size)).min(self.claimed);
        let mut out = Vec::with_capacity((end.saturating_sub(offset)) as usize);
        let real = data.len() as u64;
        let mut at = offset;
        while at < end {
            let here = (at % real) as usize;
            let n = ((end - at) as usize).min(data.len() - here);
            out.extend_from_slice(&data[here..here + n]);
            at += n as u64;
        }
        if let Some(f) = self.flips {
            let first = offset / 4096;
            let last = end.div_ceil(4096);
            for block in first..last {
                let byte = block * 4096 + f.byte;
                if block % f.every == f.at && byte >= offset && byte < end {
                    out[(byte - offset) as usize] ^= 1;
                }
            }
        }
        reply.data(&out);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        bytes: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        if offset + bytes.len() as u64 > self.claimed {
            reply.error(Errno::ENOSPC);
            return;
        }
        let mut data = self.data.lock().unwrap();
        let real = data.len() as u64;
        let mut done = 0usize;
        while done < bytes.len() {
            let here = ((offset + done as u64) % real) as usize;
            let n = (bytes.len() - done).min(data.len() - here);
            data[here..here + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
        }
        reply.written(bytes.len() as u32);
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }
}

/// A counterfeit card attached as a loop device; unmounted and detached when dropped.
pub struct FakeCard {
    // Field order is drop order: the loop device goes before the filesystem under it.
    pub dev: Loop,
    _session: fuser::BackgroundSession,
    _dir: tempfile::TempDir,
}

impl FakeCard {
    /// A card claiming `claimed` bytes that stores `holds`.
    pub fn new(claimed: u64, holds: u64, flips: Option<Flips>) -> Option<FakeCard> {
        if !root_for("a FUSE counterfeit card") {
            return None;
        }
        if !Path::new("/dev/fuse").exists() {
            skip("this kernel or container has no /dev/fuse");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let card = Card {
            claimed,
            data: Mutex::new(vec![0u8; holds as usize]),
            flips,
        };
        let mut config = fuser::Config::default();
        config.mount_options = vec![
            MountOption::FSName("iomark-fake-card".into()),
            MountOption::DefaultPermissions,
        ];
        let session = match fuser::spawn_mount(card, dir.path(), &config) {
            Ok(session) => session,
            Err(e) => {
                skip(&format!("cannot mount the fake card: {e}"));
                return None;
            }
        };
        let dev = Loop::attach(&dir.path().join("card.img"), false)?;
        Some(FakeCard {
            dev,
            _session: session,
            _dir: dir,
        })
    }
}
