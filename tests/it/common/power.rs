//! A disk that forgets at a power cut (issue 47). Killing a process keeps whatever the kernel
//! was given; a power cut also loses what the disk had not been told to keep. This disk is a
//! FUSE file (fuser) attached as a loop device with ext4 on it: what is written reaches the
//! disk's volatile cache, and only a flush of the device (the loop driver fsyncs its file at
//! each flush ext4 or SQLite asks for, and at each FUA write) makes it durable. At a cut the
//! disk answers nothing more, and what survives is what was made durable, plus, when asked, a
//! seeded share of the 4 KiB blocks written since (a cache writes back in any order): the
//! image the next power-on mounts, ext4 replaying its journal as after a real cut. Needs root,
//! /dev/fuse, losetup and mkfs.ext4; callers skip without them.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use fuser::{
    Errno, FileHandle, Filesystem, FopenFlags, INodeNo, LockOwner, MountOption, OpenFlags,
    ReplyAttr, ReplyData, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request, WriteFlags,
};

use super::devices::{one_file_getattr, one_file_lookup, Loop};
use super::{need, root_for, skip};

const BLOCK: usize = 4096;

/// What the disk holds: `durable` survives a cut, `current` is what reads see.
struct State {
    durable: Vec<u8>,
    current: Vec<u8>,
    /// Blocks written since the last flush.
    dirty: BTreeSet<usize>,
    /// The power is off: every request fails.
    off: bool,
    flushes: u64,
    /// Writes are acknowledged and thrown away, as by a card that has turned read-only
    /// without saying so.
    drops_writes: bool,
    /// Byte ranges whose reads fail (EIO), as a card's worn-out sectors do.
    unreadable: Vec<std::ops::Range<usize>>,
    /// Each flush of the cache takes this long, as a card's writes that stall for seconds.
    flush_stall: std::time::Duration,
}

struct Volatile(Arc<Mutex<State>>);

impl Volatile {
    fn size(&self) -> u64 {
        self.0.lock().unwrap().current.len() as u64
    }
}

impl Filesystem for Volatile {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        one_file_lookup(parent, name, "disk.img", self.size(), reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        one_file_getattr(ino, self.size(), reply);
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // No page cache of the file: every write the loop device makes reaches this disk.
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
        let state = self.0.lock().unwrap();
        let start = (offset as usize).min(state.current.len());
        let end = (start + size as usize).min(state.current.len());
        let bad = state
            .unreadable
            .iter()
            .any(|r| r.start < end && start < r.end);
        if state.off || bad {
            reply.error(Errno::EIO);
            return;
        }
        reply.data(&state.current[start..end]);
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
        let mut state = self.0.lock().unwrap();
        if state.off {
            reply.error(Errno::EIO);
            return;
        }
        let start = offset as usize;
        let end = start + bytes.len();
        if end > state.current.len() {
            reply.error(Errno::ENOSPC);
            return;
        }
        if !state.drops_writes {
            state.current[start..end].copy_from_slice(bytes);
            for block in start / BLOCK..end.div_ceil(BLOCK) {
                state.dirty.insert(block);
            }
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
        // A close, not a flush of the disk's cache.
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
        let stall = self.0.lock().unwrap().flush_stall;
        std::thread::sleep(stall);
        let mut state = self.0.lock().unwrap();
        if state.off {
            reply.error(Errno::EIO);
            return;
        }
        let state = &mut *state;
        for block in std::mem::take(&mut state.dirty) {
            let range = block * BLOCK..((block + 1) * BLOCK).min(state.current.len());
            state.durable[range.clone()].copy_from_slice(&state.current[range]);
        }
        state.flushes += 1;
        reply.ok();
    }
}

/// One power-on of the disk: mounted at [`Disk::mount`] until dropped (after a cut, dropping
/// unmounts what is left and detaches the device).
pub struct Disk {
    pub mount: PathBuf,
    state: Arc<Mutex<State>>,
    // Field order is drop order: the loop device before the FUSE file under it.
    lo: Option<Loop>,
    session: Option<fuser::BackgroundSession>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Disk {
    /// A new disk of `size` bytes (a multiple of 4 KiB), formatted ext4 and mounted. None
    /// (the test skipped) without root or /dev/fuse.
    pub fn formatted(size: usize) -> Option<Disk> {
        let disk = Disk::power_on(vec![0; size])?;
        let lo = disk.lo.as_ref().unwrap().path().to_string();
        need("mkfs.ext4", "e2fsprogs");
        let made = Command::new("mkfs.ext4")
            .args(["-q", "-F", "-b", "4096", "-E"])
            .arg("nodiscard,lazy_itable_init=0,lazy_journal_init=0")
            .arg(&lo)
            .output()
            .unwrap();
        assert!(
            made.status.success(),
            "mkfs.ext4: {}",
            String::from_utf8_lossy(&made.stderr)
        );
        disk.mount_it();
        Some(disk)
    }

    /// The disk after a cut: `image` (what [`Disk::cut`] returned) mounted again, ext4
    /// replaying its journal.
    pub fn after(image: Vec<u8>) -> Disk {
        let disk = Disk::power_on(image).expect("the disk was made before");
        disk.mount_it();
        disk
    }

    fn power_on(image: Vec<u8>) -> Option<Disk> {
        if !root_for("a disk that forgets at a power cut") {
            return None;
        }
        if !Path::new("/dev/fuse").exists() {
            skip("this kernel or container has no /dev/fuse");
            return None;
        }
        let state = Arc::new(Mutex::new(State {
            durable: image.clone(),
            current: image,
            dirty: BTreeSet::new(),
            off: false,
            flushes: 0,
            drops_writes: false,
            unreadable: Vec::new(),
            flush_stall: std::time::Duration::ZERO,
        }));
        let fuse = tempfile::tempdir().unwrap();
        let mount = tempfile::tempdir().unwrap();
        let mut config = fuser::Config::default();
        config.mount_options = vec![
            MountOption::FSName("iomark-volatile-disk".into()),
            MountOption::DefaultPermissions,
        ];
        let session = match fuser::spawn_mount(Volatile(state.clone()), fuse.path(), &config) {
            Ok(session) => session,
            Err(e) => {
                skip(&format!("cannot mount the volatile disk: {e}"));
                return None;
            }
        };
        let lo = Loop::attach(&fuse.path().join("disk.img"), false)?;
        Some(Disk {
            mount: mount.path().to_path_buf(),
            state,
            lo: Some(lo),
            session: Some(session),
            _dirs: (fuse, mount),
        })
    }

    fn mount_it(&self) {
        let lo = self.lo.as_ref().unwrap().path();
        let mounted = Command::new("mount")
            .args(["-t", "ext4", lo])
            .arg(&self.mount)
            .output()
            .unwrap();
        assert!(
            mounted.status.success(),
            "mount: {}",
            String::from_utf8_lossy(&mounted.stderr)
        );
    }

    /// From now on, the disk acknowledges every write and keeps none of them (reads give what
    /// it held before), as a worn-out card that turned read-only without a word does.
    pub fn drop_writes(&self) {
        self.state.lock().unwrap().drops_writes = true;
    }

    /// From now on, reading any byte of `range` (of the disk) fails with an I/O error.
    pub fn fail_reads(&self, range: std::ops::Range<usize>) {
        self.state.lock().unwrap().unreadable.push(range);
    }

    /// Flips a bit in each of `len` bytes from `at` of what the disk holds, durable or not,
    /// as a card's cells that lose their charge: no write of anyone's made the change.
    pub fn decay(&self, at: usize, len: usize) {
        let mut state = self.state.lock().unwrap();
        for i in at..at + len {
            state.current[i] ^= 0x04;
            state.durable[i] ^= 0x04;
        }
    }

    /// From now on, every flush of the disk's cache takes `stall` (a sync waits that long).
    pub fn stall_flushes(&self, stall: std::time::Duration) {
        self.state.lock().unwrap().flush_stall = stall;
    }

    /// The loop device the disk is attached as (`/dev/loopN`).
    pub fn device(&self) -> String {
        self.lo.as_ref().unwrap().path().to_string()
    }

    /// How many times the disk's cache was flushed since power-on.
    pub fn flushes(&self) -> u64 {
        self.state.lock().unwrap().flushes
    }

    /// Cuts the power: from now the disk answers every request with an error. What it holds
    /// is returned: what was made durable, and with `tear` (a seed) a share of the blocks
    /// written since, about one in two, chosen by the seed. Stop (SIGSTOP) whatever writes
    /// before, so that nothing it says after the cut is believed, and kill it after.
    pub fn cut(&self, tear: Option<u64>) -> Vec<u8> {
        let mut state = self.state.lock().unwrap();
        state.off = true;
        let mut image = state.durable.clone();
        if let Some(seed) = tear {
            let mut x = seed | 1;
            for &block in &state.dirty {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x & 1 == 1 {
                    let range = block * BLOCK..((block + 1) * BLOCK).min(image.len());
                    image[range.clone()].copy_from_slice(&state.current[range]);
                }
            }
        }
        image
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        // Lazily: a filesystem whose disk is gone may not unmount at once; the loop device
        // is freed when it lets go.
        if Command::new("umount")
            .arg(&self.mount)
            .output()
            .map_or(true, |o| !o.status.success())
        {
            let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
        }
        drop(self.lo.take());
        drop(self.session.take());
    }
}
