//! Connections: how many the site holds, from whom, and for how long. An attack found that
//! 1,100 idle connections against a 1,024 open-file limit left no probe answered in 40 s, and
//! 200 connections sending their headers a byte at a time stayed open for a minute (issue 22).
//! So:
//!
//! - at most [`cap`] connections at once, below the open-file limit (raised to its hard limit
//!   first), so that the store, the log and the listener always have descriptors; past it, a
//!   new connection closes the one that has waited longest with no request in flight
//!   (`evict.rs`), or where every one has, waits until one ends;
//! - at most [`PER_PEER`] at once from one address (an IPv6 /64 counts as one), unless the
//!   site is behind a proxy, from which every connection comes;
//! - a connection that has sent nothing for [`IDLE`] since the site last wrote to it is closed
//!   (an idle keep-alive, or a client that never sends a request: blank lines are no
//!   request, whatever their number), and so is one whose request
//!   has not been answered [`REQUEST`] after its first byte (a slow header; the handler's own
//!   time limit answers long before) or that takes nothing of an answer for [`IDLE`].

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

use super::evict::{Leave, Registry};

/// How long a connection may send nothing after the site's last write (or its opening).
pub const IDLE: Duration = Duration::from_secs(15);
/// How long after its first byte a request may go unanswered.
pub const REQUEST: Duration = Duration::from_secs(20);
/// The most connections one address holds at once.
pub const PER_PEER: u32 = 64;
/// Descriptors kept for everything but connections: the store's pool and files, the
/// listener, the standard streams, a PNG being drawn.
const RESERVE: u64 = 64;

/// The listener with its limits.
pub struct Guarded {
    inner: TcpListener,
    slots: Arc<Semaphore>,
    peers: Option<Arc<Peers>>,
    registry: Arc<Registry>,
}

/// Connections per address.
#[derive(Default)]
pub struct Peers {
    open: Mutex<HashMap<IpAddr, u32>>,
}

/// The client's address, as a handler reads it (`ConnectInfo<Peer>`).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

impl Connected<IncomingStream<'_, Guarded>> for Peer {
    fn connect_info(stream: IncomingStream<'_, Guarded>) -> Peer {
        Peer(*stream.remote_addr())
    }
}

impl Guarded {
    /// `per_peer` false behind a proxy, where every connection has the proxy's address.
    pub fn new(inner: TcpListener, per_peer: bool) -> Guarded {
        Guarded {
            inner,
            slots: Arc::new(Semaphore::new(cap())),
            peers: per_peer.then(Default::default),
            registry: Default::default(),
        }
    }
}

/// The most connections held at once: the open-file limit, raised to its hard limit (at most
/// 65,536), less what the rest of the process needs.
pub fn cap() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the one struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 256;
        }
        let wanted = limit.rlim_max.min(65_536);
        if limit.rlim_cur < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = wanted;
            }
        }
    }
    // rlim_t is 32 bits wide on 32-bit ARM's glibc.
    #[allow(clippy::useless_conversion)]
    let files = u64::from(limit.rlim_cur);
    (if files > 2 * RESERVE {
        files - RESERVE
    } else {
        files / 2
    })
    .max(1) as usize
}

/// One address's connections counted as one: an IPv6 client usually holds a whole /64.
pub fn peer_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

impl Listener for Guarded {
    type Io = Connection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Connection, SocketAddr) {
        loop {
            // Taken first, so that a connection waits for a slot only once it is known to
            // want one (one descriptor past the cap at most, of the reserve).
            let (stream, address) = match self.inner.accept().await {
                Ok(accepted) => accepted,
                Err(_) => {
                    // Out of descriptors or memory, or a connection reset before it was
                    // taken: wait a moment rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let slot = match self.slots.clone().try_acquire_owned() {
                Ok(slot) => slot,
                Err(_) => {
                    // Full: the longest waiting without a request leaves for it.
                    self.registry.evict_one();
                    let Ok(slot) = self.slots.clone().acquire_owned().await else {
                        // The semaphore is never closed.
                        continue;
                    };
                    slot
                }
            };
            let seat = match &self.peers {
                Some(peers) => match Seat::take(peers, address.ip()) {
                    Some(seat) => Some(seat),
                    // Over its share: closed at once, the slot free again.
                    None => continue,
                },
                None => None,
            };
            let _ = stream.set_nodelay(true);
            let tracker = Leave(self.registry.track());
            return (Connection::new(stream, slot, seat, tracker), address);
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// One of an address's connections, given back when the connection ends.
struct Seat {
    peers: Arc<Peers>,
    key: IpAddr,
}

impl Seat {
    fn take(peers: &Arc<Peers>, ip: IpAddr) -> Option<Seat> {
        let key = peer_key(ip);
        let mut open = peers.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(key).or_insert(0);
        if *n >= PER_PEER {
            return None;
        }
        *n += 1;
        Some(Seat {
            peers: peers.clone(),
            key,
        })
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// A connection with its deadline: [`IDLE`] after the site's last write until the client's
/// first byte, then [`REQUEST`] from that byte until the site writes again.
pub struct Connection {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    _seat: Option<Seat>,
    tracker: Leave,
    deadline: Pin<Box<Sleep>>,
    /// Whether a request has begun since the site last wrote.
    asked: bool,
}

impl Connection {
    fn new(
        stream: TcpStream,
        slot: OwnedSemaphorePermit,
        seat: Option<Seat>,
        tracker: Leave,
    ) -> Connection {
        Connection {
            stream,
            _slot: slot,
            _seat: seat,
            tracker,
            deadline: Box::pin(tokio::time::sleep(IDLE)),
            asked: false,
        }
    }

    /// While waiting: an error once the deadline has passed, or once the listener closed it
    /// to make room.
    fn expired(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        if self.tracker.0.evicted(cx) {
            return Some(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "the site was full and this connection had no request in flight",
            ));
        }
        self.deadline.as_mut().poll(cx).is_ready().then(|| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "the client was idle or slow past the site's limit",
            )
        })
    }

    /// A write that went through starts the idle time anew; one that waits may have waited too
    /// long (a client that takes nothing of its answer).
    fn after_write(
        &mut self,
        cx: &mut Context<'_>,
        outcome: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        match outcome {
            Poll::Ready(Ok(n)) if n > 0 => {
                self.asked = false;
                self.tracker.0.wrote();
                self.deadline.as_mut().reset(Instant::now() + IDLE);
                Poll::Ready(Ok(n))
            }
            Poll::Pending => match self.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
            other => other,
        }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Pending => match this.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
            Poll::Ready(Ok(())) => {
                // Blank lines alone begin no request: the idle time goes on.
                if this.tracker.0.read(&buf.filled()[before..]) && !this.asked {
                    this.asked = true;
                    this.deadline.as_mut().reset(Instant::now() + REQUEST);
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.after_write(cx, outcome)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.after_write(cx, outcome)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_is_its_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(peer_key(a), peer_key(b));
        assert_ne!(peer_key(a), peer_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(peer_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn an_address_holds_its_share_and_gives_it_back() {
        let peers = Arc::new(Peers::default());
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let seats: Vec<Seat> = (0..PER_PEER)
            .map(|_| Seat::take(&peers, ip).unwrap())
            .collect();
        assert!(Seat::take(&peers, ip).is_none());
        assert!(Seat::take(&peers, "192.0.2.2".parse().unwrap()).is_some());
        drop(seats);
        assert!(Seat::take(&peers, ip).is_some());
        assert!(peers.open.lock().unwrap().len() <= 1);
    }
}
