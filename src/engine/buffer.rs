//! I/O buffers aligned for `O_DIRECT`.
//!
//! Direct I/O needs the buffer address, the length and the file offset aligned to the device's
//! logical block size. Every buffer here starts on a 4096-byte boundary, which satisfies 512- and
//! 4096-byte logical blocks alike; block sizes are multiples of 4096 too.

use std::alloc::{self, Layout};

pub const ALIGN: usize = 4096;

pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// The buffer is plain memory owned by one value; moving it to another thread is fine.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (rounded up to the alignment).
    pub fn new(len: usize) -> Self {
        let size = len.max(1).div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(size, ALIGN).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, layout }
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.ptr
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() bytes for the life of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this very layout.
        unsafe { alloc::dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_rounded_up() {
        let buf = AlignedBuf::new(5000);
        assert_eq!(buf.as_ptr() as usize % ALIGN, 0);
        assert_eq!(buf.len(), 8192);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
    }
}
