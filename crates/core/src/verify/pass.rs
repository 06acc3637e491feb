//! The two passes over the verified stream: write every sector of it, then read every sector
//! back and say what it holds.
//!
//! The stream is a list of [`Span`]s (the files of a filesystem verify, or a whole device),
//! each a range of one open file at a position of the stream. Making and checking the pattern
//! costs about as much CPU as the I/O of a fast disk, so each pass runs on two threads: one does
//! the I/O, one fills or checks the buffers, handed back and forth through channels.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use super::pattern::{self, Sector, SECTOR};
use super::tally::Tally;
use crate::progress::Live;

/// Bytes per I/O: large enough for any device's full sequential rate.
pub const CHUNK: usize = 4 << 20;
/// Buffers in flight between the two threads.
const DEPTH: usize = 3;
/// The smallest piece a failed read is retried in, to tell the unreadable from the rest.
const PIECE: usize = 4096;

/// A range of one open file, at `position` in the verified stream.
pub struct Span<'a> {
    pub file: &'a File,
    /// Where the range starts in the file.
    pub offset: u64,
    pub len: u64,
    /// Where the range starts in the stream.
    pub position: u64,
}

/// A page-aligned buffer, as direct I/O needs.
pub struct Aligned {
    ptr: *mut u8,
    len: usize,
}

// Plain memory owned by one value.
unsafe impl Send for Aligned {}

impl Aligned {
    pub fn new(len: usize) -> Self {
        let layout = std::alloc::Layout::from_size_align(len.max(PIECE), PIECE).expect("layout");
        // SAFETY: a non-zero size; the result is checked.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Aligned { ptr, len }
    }
}

impl std::ops::Deref for Aligned {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `len` bytes allocated and initialised in `new`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl std::ops::DerefMut for Aligned {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::from_size_align(self.len.max(PIECE), PIECE).unwrap();
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, layout) };
    }
}

/// How a write pass ended.
#[derive(Debug)]
pub struct Written {
    /// Bytes written in each span, in order; less than the span where the pass stopped.
    pub bytes: Vec<u64>,
    pub seconds: f64,
    pub end: End,
}

#[derive(Debug)]
pub enum End {
    Done,
    /// Asked to stop (Ctrl-C).
    Stopped,
    /// The filesystem filled up before the plan did.
    NoSpace,
    /// A write failed: the device or filesystem refused it.
    Failed {
        position: u64,
        error: io::Error,
    },
}

/// Writes every span with this run's sectors, syncing each span's file at its end (and after
/// each `sync_every` bytes), so that the time counts what reached the device.
pub fn write(spans: &[Span], seed: u64, live: &Live, stop: &AtomicBool) -> Written {
    let started = Instant::now();
    let mut bytes = vec![0u64; spans.len()];
    let (fill_tx, fill_rx) = mpsc::sync_channel::<(Aligned, u64, usize)>(DEPTH);
    let (ready_tx, ready_rx) = mpsc::sync_channel::<(Aligned, u64, usize)>(DEPTH);
    let end = std::thread::scope(|scope| {
        // The filler: makes each chunk's sectors.
        scope.spawn(move || {
            for (mut buf, position, len) in fill_rx {
                pattern::fill(&mut buf[..len], position, seed);
                if ready_tx.send((buf, position, len)).is_err() {
                    break;
                }
            }
        });
        let mut pool: Vec<Aligned> = (0..DEPTH).map(|_| Aligned::new(CHUNK)).collect();
        // Every chunk of the stream, in order: (span index, offset in file, position, length).
        let mut chunks = spans.iter().enumerate().flat_map(|(i, s)| {
            (0..s.len).step_by(CHUNK).map(move |at| {
                let len = (s.len - at).min(CHUNK as u64) as usize;
                (i, s.offset + at, s.position + at, len)
            })
        });
        let mut queued = std::collections::VecDeque::new();
        let mut span_done = 0usize;
        let fill_tx = fill_tx;
        let end = loop {
            while let Some(buf) = pool.pop() {
                match chunks.next() {
                    Some(chunk @ (_, _, position, len)) => {
                        queued.push_back(chunk);
                        fill_tx.send((buf, position, len)).expect("filler runs");
                    }
                    None => {
                        pool.push(buf);
                        break;
                    }
                }
            }
            let Some((i, offset, _, len)) = queued.pop_front() else {
                break End::Done;
            };
            if stop.load(Ordering::Relaxed) {
                break End::Stopped;
            }
            let (buf, position, _) = ready_rx.recv().expect("filler runs");
            if let Err(error) = spans[i].file.write_all_at(&buf[..len], offset) {
                break if error.raw_os_error() == Some(libc::ENOSPC) {
                    End::NoSpace
                } else {
                    End::Failed { position, error }
                };
            }
            bytes[i] += len as u64;
            live.add(len as u64);
            pool.push(buf);
            // A span ends: its file is synced before the next begins.
            if bytes[i] == spans[i].len && span_done <= i {
                span_done = i + 1;
                if let Err(error) = spans[i].file.sync_data() {
                    break End::Failed { position, error };
                }
            }
        };
        // The filler ends when its channel closes.
        drop(fill_tx);
        end
    });
    // A span cut short by a full disk or a failure keeps what reached it.
    for (i, span) in spans.iter().enumerate() {
        if bytes[i] > 0 && bytes[i] < span.len {
            let _ = span.file.sync_data();
        }
    }
    Written {
        bytes,
        seconds: started.elapsed().as_secs_f64(),
        end,
    }
}

/// How a read pass ended: what it found, and whether it read everything.
pub struct Read {
    pub tally: Tally,
    pub seconds: f64,
    pub stopped: bool,
}

/// Reads every span back and checks each sector against its position. Two threads read, each
/// every other chunk, so that one read is always in flight while the other's chunk is checked;
/// the checker takes the chunks in order, from each reader in turn.
pub fn read(spans: &[Span], seed: u64, live: &Live, stop: &AtomicBool) -> Read {
    const READERS: usize = 2;
    type Chunk = (Aligned, u64, usize, Vec<(u64, u64)>);
    let started = Instant::now();
    let chunks: Vec<(usize, u64)> = spans
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..s.len).step_by(CHUNK).map(move |at| (i, at)))
        .collect();
    let mut stopped = false;
    let mut tally = Tally::default();
    std::thread::scope(|scope| {
        let mut to_checker = Vec::new();
        let mut to_reader = Vec::new();
        for r in 0..READERS {
            let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Chunk>(DEPTH);
            let (back_tx, back_rx) = mpsc::sync_channel::<Aligned>(DEPTH);
            to_checker.push(chunk_rx);
            to_reader.push(back_tx);
            let chunks = &chunks;
            scope.spawn(move || {
                let mut pool: Vec<Aligned> = (0..DEPTH).map(|_| Aligned::new(CHUNK)).collect();
                for &(i, at) in chunks.iter().skip(r).step_by(READERS) {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let mut buf = match pool.pop() {
                        Some(buf) => buf,
                        None => match back_rx.recv() {
                            Ok(buf) => buf,
                            Err(_) => return,
                        },
                    };
                    let span = &spans[i];
                    let len = (span.len - at).min(CHUNK as u64) as usize;
                    let unreadable = read_chunk(span.file, &mut buf[..len], span.offset + at)
                        .into_iter()
                        .map(|(start, n)| (span.position + at + start as u64, n as u64))
                        .collect();
                    live.add(len as u64);
                    if chunk_tx
                        .send((buf, span.position + at, len, unreadable))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
        let mut scratch = vec![0u8; CHUNK];
        for k in 0..chunks.len() {
            let Ok((buf, position, len, unreadable)) = to_checker[k % READERS].recv() else {
                stopped = true;
                break;
            };
            tally.check(&buf[..len], position, seed, &unreadable, &mut scratch);
            let _ = to_reader[k % READERS].send(buf);
        }
        // Readers still running see their channels close and end.
        drop(to_checker);
        drop(to_reader);
    });
    Read {
        tally,
        seconds: started.elapsed().as_secs_f64(),
        stopped,
    }
}

/// Reads `buf` from `offset`; where that fails, reads it again piece by piece. Returns the
/// pieces that could not be read (start in `buf`, length), zeroed in `buf`.
fn read_chunk(file: &File, buf: &mut [u8], offset: u64) -> Vec<(usize, usize)> {
    if file.read_exact_at(buf, offset).is_ok() {
        return Vec::new();
    }
    let mut failed: Vec<(usize, usize)> = Vec::new();
    for start in (0..buf.len()).step_by(PIECE) {
        let end = (start + PIECE).min(buf.len());
        if file
            .read_exact_at(&mut buf[start..end], offset + start as u64)
            .is_err()
        {
            buf[start..end].fill(0);
            match failed.last_mut() {
                Some((s, n)) if *s + *n == start => *n += end - start,
                _ => failed.push((start, end - start)),
            }
        }
    }
    failed
}

/// What one sector holds, for callers that read single blocks (the capacity probe).
pub fn check_block(buf: &[u8], position: u64, seed: u64) -> Vec<Sector> {
    buf.chunks_exact(SECTOR)
        .enumerate()
        .map(|(i, s)| pattern::check(s, position + (i * SECTOR) as u64, seed))
        .collect()
}
