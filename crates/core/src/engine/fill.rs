//! How a test file is filled on a slow device: the budget that cuts it short, and keeping the
//! page cache's dirty data to a window so the fill moves at the device's pace. The fill itself
//! is `TestFile::fill`.

use std::os::unix::io::RawFd;
use std::time::Duration;

/// How long a fill may take on a slow device, and what the file must still hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillBudget {
    pub time: Duration,
    /// The file is cut to whole blocks of this size.
    pub block: u64,
    /// It is never cut below this.
    pub min: u64,
}

impl FillBudget {
    /// The file size for a device that writes `rate` bytes a second: what it writes in the
    /// budget, in whole blocks, at least the minimum and what is written already, at most `size`.
    pub fn size_for(&self, rate: f64, size: u64, written: u64) -> u64 {
        let affordable = (rate * self.time.as_secs_f64()) as u64;
        if affordable >= size {
            return size;
        }
        let block = self.block.max(1);
        let floor = self.min.max(written.div_ceil(block) * block);
        (affordable / block * block).max(floor).min(size)
    }
}

/// `sync_file_range` over one window: start its writeback, or (with `wait`) wait for it too.
pub(super) fn sync_range(fd: RawFd, offset: u64, len: u64, wait: bool) {
    let flags = if wait {
        libc::SYNC_FILE_RANGE_WAIT_BEFORE
            | libc::SYNC_FILE_RANGE_WRITE
            | libc::SYNC_FILE_RANGE_WAIT_AFTER
    } else {
        libc::SYNC_FILE_RANGE_WRITE
    };
    // SAFETY: plain syscall on an fd we own; a failure only means the final fdatasync does it.
    unsafe { libc::sync_file_range(fd, offset as i64, len as i64, flags) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_device_gets_a_file_it_can_fill_in_the_budget() {
        let budget = FillBudget {
            time: Duration::from_secs(10),
            block: 1 << 20,
            min: 64 << 20,
        };
        let gib = 1 << 30;
        // 10 MB/s: 100 MB in 10 s, in whole MiB: 95 MiB.
        assert_eq!(budget.size_for(10e6, gib, 40 << 20), 95 << 20);
        // A fast device keeps the whole file; a very slow one keeps the minimum, and never less
        // than what is written already.
        assert_eq!(budget.size_for(500e6, gib, 40 << 20), gib);
        assert_eq!(budget.size_for(1e6, gib, 40 << 20), 64 << 20);
        assert_eq!(budget.size_for(1e6, gib, 70 << 20), 70 << 20);
    }
}
