//! I/O buffers: aligned for `O_DIRECT`, laid out in memory as fio lays out its own.
//!
//! Direct I/O needs the buffer address, the length and the file offset aligned to the device's
//! logical block size; every buffer here starts on a 4096-byte boundary, which satisfies 512-
//! and 4096-byte logical blocks alike.
//!
//! Memory layout matters for large blocks: a request carries at most so many memory segments
//! (254 on a virtio disk), and only physically adjacent pages share one. SEQ1M Q8T1 read, on this
//! project's virtio VM, against fio in alternating rounds:
//! - transparent huge pages (one segment per 1 MiB I/O): 1021 KiB per request, 1.65-1.68x fio, a
//!   figure ordinary programs (dd, cp, fio) do not see on the same disk;
//! - one anonymous mapping for all of a stream's buffers, faulted in order, as fio allocates its
//!   own: 508 KiB per request (fio's vary from 494 to 861 KiB with where its pages fall), and
//!   0.99x to 1.22x fio over three rounds.
//!
//! iomark takes the second: its figures should be the ones programs get, and fio's.

use std::io;

const PAGE: usize = 4096;

/// `count` buffers of `size` bytes each, page-aligned, one after another in one mapping.
pub struct Buffers {
    ptr: *mut u8,
    map_len: usize,
    stride: usize,
    size: usize,
    count: usize,
}

// The mapping is plain memory owned by one value; moving it to another thread is fine.
unsafe impl Send for Buffers {}

impl Buffers {
    pub fn new(count: usize, size: usize) -> io::Result<Self> {
        let stride = size.max(1).div_ceil(PAGE) * PAGE;
        let map_len = stride * count.max(1);
        // SAFETY: an anonymous private mapping; the result is checked.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = raw as *mut u8;
        // Fault the pages in, in order, now rather than during the first timed I/Os.
        for offset in (0..map_len).step_by(PAGE) {
            // SAFETY: inside the mapping just made.
            unsafe { ptr.add(offset).write_volatile(0) };
        }
        Ok(Buffers {
            ptr,
            map_len,
            stride,
            size,
            count: count.max(1),
        })
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// Buffer `index`, `size` bytes long.
    pub fn get(&self, index: usize) -> &[u8] {
        assert!(index < self.count);
        // SAFETY: inside the mapping; each buffer is a disjoint range.
        unsafe { std::slice::from_raw_parts(self.ptr.add(index * self.stride), self.size) }
    }

    pub fn get_mut(&mut self, index: usize) -> &mut [u8] {
        assert!(index < self.count);
        // SAFETY: as above; &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(index * self.stride), self.size) }
    }

    /// Where buffer `index` starts, for submitting it to the kernel.
    pub fn ptr(&mut self, index: usize) -> *mut u8 {
        assert!(index < self.count);
        // SAFETY: inside the mapping.
        unsafe { self.ptr.add(index * self.stride) }
    }

    /// One iovec per buffer, for registering them with io_uring.
    pub fn iovecs(&mut self) -> Vec<libc::iovec> {
        (0..self.count)
            .map(|i| libc::iovec {
                iov_base: self.ptr(i).cast(),
                iov_len: self.size,
            })
            .collect()
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: the window mapped in new(); nothing borrows from it past self.
        unsafe { libc::munmap(self.ptr.cast(), self.map_len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_disjoint_and_zeroed() {
        let mut small = Buffers::new(3, 5000).unwrap();
        assert_eq!(small.ptr(0) as usize % PAGE, 0);
        assert_eq!(small.ptr(1) as usize - small.ptr(0) as usize, 8192);
        assert_eq!(small.get(2).len(), 5000);
        assert!(small.get(1).iter().all(|&b| b == 0));
        small.get_mut(1).fill(7);
        assert!(small.get(0).iter().all(|&b| b == 0) && small.get(2).iter().all(|&b| b == 0));

        let mut large = Buffers::new(8, 1 << 20).unwrap();
        assert_eq!(large.ptr(1) as usize - large.ptr(0) as usize, 1 << 20);
        assert_eq!(large.iovecs().len(), 8);
        large.get_mut(7).fill(1);
        assert_eq!(large.get(7)[(1 << 20) - 1], 1);
    }
}
