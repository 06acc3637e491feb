//! Who leaves when the site is full: every connection's phase (idle since the site last wrote
//! to it, sending a request's headers since their first byte, or waiting for its answer) kept
//! where the listener sees it, so that a new connection at the cap closes the one that has
//! waited longest without a request in flight (an idle keep-alive, a client that never asks,
//! headers that come a line at a time) instead of waiting behind it. An attack with 1,100 idle
//! or slow-header sockets held against a 1,024 open-file limit made other clients wait a
//! median 19.6 s (issue 44): the idle limit freed them eventually, nothing freed them when a
//! slot was needed. A connection whose headers have all come is never closed so: its answer
//! is under way (the handler's own time limit bounds it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Context;

use futures_util::task::AtomicWaker;
use tokio::time::Instant;

/// A connection's phase.
const IDLE: u8 = 0;
const ASKING: u8 = 1;
const ANSWERING: u8 = 2;

/// Every open connection's tracker, by a number of its own.
pub struct Registry {
    epoch: Instant,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Tracker>>>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::default(),
        }
    }
}

/// One connection as the registry sees it, shared with the connection itself.
pub struct Tracker {
    registry: Arc<Registry>,
    id: u64,
    phase: AtomicU8,
    /// When its phase began, in milliseconds after the registry's epoch.
    since: AtomicU64,
    evicted: AtomicBool,
    waker: AtomicWaker,
    /// How much of a blank line (`\r\n\r\n`, the end of a request's headers) was read last.
    matched: AtomicU8,
}

impl Registry {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// A new connection's tracker, idle from now; it leaves the registry when dropped.
    pub fn track(self: &Arc<Registry>) -> Arc<Tracker> {
        let tracker = Arc::new(Tracker {
            registry: self.clone(),
            id: self.next.fetch_add(1, Ordering::Relaxed),
            phase: AtomicU8::new(IDLE),
            since: AtomicU64::new(self.now()),
            evicted: AtomicBool::new(false),
            waker: AtomicWaker::new(),
            matched: AtomicU8::new(0),
        });
        self.lock().insert(tracker.id, tracker.clone());
        tracker
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Tracker>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Closes the connection that has waited longest with no request in flight, if there is
    /// one: whether one was closed. Its slot comes free when its task ends.
    pub fn evict_one(&self) -> bool {
        let open = self.lock();
        let oldest = open
            .values()
            .filter(|t| !t.evicted.load(Ordering::Relaxed))
            .filter(|t| t.phase.load(Ordering::Relaxed) != ANSWERING)
            .min_by_key(|t| t.since.load(Ordering::Relaxed));
        let Some(oldest) = oldest else {
            return false;
        };
        oldest.evicted.store(true, Ordering::Release);
        oldest.waker.wake();
        metrics::counter!("iomark_connections_evicted_total").increment(1);
        true
    }

    /// How many connections are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

impl Tracker {
    /// Whether the listener closed it to make room; a read or write waiting on it is woken.
    pub fn evicted(&self, cx: &mut Context<'_>) -> bool {
        self.waker.register(cx.waker());
        self.evicted.load(Ordering::Acquire)
    }

    fn enter(&self, phase: u8) {
        if self.phase.swap(phase, Ordering::Relaxed) != phase {
            self.since.store(self.registry.now(), Ordering::Relaxed);
        }
    }

    /// Bytes read from the client: a request begins at its first byte that is not a line's
    /// end, and its headers end at a blank line. Whether a request is under way: blank lines
    /// before one are no request (HTTP lets a server skip them), so a connection that sends
    /// only those stays idle, and goes first when room is needed (issue 59: 1,000 sockets
    /// sending blank lines were taken as answering and never closed).
    pub fn read(&self, bytes: &[u8]) -> bool {
        let phase = self.phase.load(Ordering::Relaxed);
        if phase == ANSWERING {
            return true;
        }
        let bytes = match phase {
            IDLE => match bytes.iter().position(|b| !matches!(b, b'\r' | b'\n')) {
                Some(start) => &bytes[start..],
                None => return false,
            },
            _ => bytes,
        };
        self.enter(ASKING);
        const END: &[u8; 4] = b"\r\n\r\n";
        let mut matched = self.matched.load(Ordering::Relaxed) as usize;
        for &b in bytes {
            matched = match b {
                _ if b == END[matched] => matched + 1,
                b'\r' => 1,
                _ => 0,
            };
            if matched == END.len() {
                self.matched.store(0, Ordering::Relaxed);
                self.enter(ANSWERING);
                return true;
            }
        }
        self.matched.store(matched as u8, Ordering::Relaxed);
        true
    }

    /// Bytes written to the client: idle from now until it asks again.
    pub fn wrote(&self) {
        self.matched.store(0, Ordering::Relaxed);
        self.phase.store(IDLE, Ordering::Relaxed);
        self.since.store(self.registry.now(), Ordering::Relaxed);
    }
}

/// The connection's hold on its tracker: removes it from the registry when the connection
/// ends.
pub struct Leave(pub Arc<Tracker>);

impl Drop for Leave {
    fn drop(&mut self) {
        self.0.registry.lock().remove(&self.0.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_waiting_without_a_request_goes_first() {
        let registry = Arc::new(Registry::default());
        let old = Leave(registry.track());
        std::thread::sleep(std::time::Duration::from_millis(5));
        let answering = Leave(registry.track());
        answering.0.read(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        std::thread::sleep(std::time::Duration::from_millis(5));
        let asking = Leave(registry.track());
        asking.0.read(b"GET / HTTP/1.1\r\nHo");
        // The oldest idle one first, then the one still sending headers; never the one
        // whose answer is under way.
        assert!(registry.evict_one());
        assert!(old.0.evicted.load(Ordering::Relaxed));
        assert!(registry.evict_one());
        assert!(asking.0.evicted.load(Ordering::Relaxed));
        assert!(!registry.evict_one());
        assert!(!answering.0.evicted.load(Ordering::Relaxed));
        // Answered, it is idle again, and may go.
        answering.0.wrote();
        assert!(registry.evict_one());
        drop((old, asking, answering));
        assert_eq!(registry.len(), 0);
    }

    #[test]
    fn headers_end_at_a_blank_line_however_the_reads_cut_it() {
        let registry = Arc::new(Registry::default());
        let t = Leave(registry.track());
        for piece in [&b"GET / HTTP/1.1\r"[..], b"\nHost: x\r\n\r", b"\n"] {
            assert_ne!(t.0.phase.load(Ordering::Relaxed), ANSWERING);
            t.0.read(piece);
        }
        assert_eq!(t.0.phase.load(Ordering::Relaxed), ANSWERING);
        // A body read while answering changes nothing.
        t.0.read(b"{}");
        assert_eq!(t.0.phase.load(Ordering::Relaxed), ANSWERING);
        t.0.wrote();
        t.0.read(b"G\r\r\n\r\n");
        assert_eq!(t.0.phase.load(Ordering::Relaxed), ANSWERING);
    }

    #[test]
    fn blank_lines_alone_are_no_request() {
        let registry = Arc::new(Registry::default());
        let t = Leave(registry.track());
        for _ in 0..100 {
            assert!(!t.0.read(b"\r\n\r\n\n\r"));
        }
        assert_eq!(t.0.phase.load(Ordering::Relaxed), IDLE);
        assert!(registry.evict_one());
        // One after them begins a request.
        let u = Leave(registry.track());
        assert!(u.0.read(b"\r\nGET / HTTP/1.1\r\n\r\n"));
        assert_eq!(u.0.phase.load(Ordering::Relaxed), ANSWERING);
    }
}
