//! The clients that wrote a moment ago. With read replicas (`--read-db`), their reads are made
//! on the primary for [`FRESH`] after a submission or deletion, and never from the answer
//! cache, so that whoever submits sees their result at once, whatever the replicas' lag; every
//! other reader is served from the replicas. Per process: the proxy docs/SITE.md
//! gives (packaging/haproxy.cfg) sends a client's requests to the process that took its write for as
//! long, so that is every read a submitter makes.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long after a write a client's reads stay on the primary: far above a streaming
/// replica's lag on a healthy network (milliseconds).
pub const FRESH: Duration = Duration::from_secs(10);
/// The most writers remembered; past it, the oldest are forgotten first, then all.
const MAX: usize = 65_536;

#[derive(Default)]
pub struct Writers {
    wrote: Mutex<HashMap<IpAddr, Instant>>,
}

impl Writers {
    /// `client` has just written.
    pub fn wrote(&self, client: IpAddr) {
        let mut wrote = self.wrote.lock().unwrap_or_else(|e| e.into_inner());
        if wrote.len() >= MAX {
            wrote.retain(|_, at| at.elapsed() < FRESH);
            if wrote.len() >= MAX {
                wrote.clear();
            }
        }
        wrote.insert(super::listener::peer_key(client), Instant::now());
    }

    /// Whether `client` wrote within [`FRESH`].
    pub fn fresh(&self, client: IpAddr) -> bool {
        let wrote = self.wrote.lock().unwrap_or_else(|e| e.into_inner());
        wrote
            .get(&super::listener::peer_key(client))
            .is_some_and(|at| at.elapsed() < FRESH)
    }
}

/// Marks a request whose reads go to the primary (the cache is not read for it either).
#[derive(Clone, Copy)]
pub struct Fresh;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_is_fresh_and_others_are_not() {
        let writers = Writers::default();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(!writers.fresh(a));
        writers.wrote(a);
        assert!(writers.fresh(a));
        assert!(!writers.fresh(b));
    }

    #[test]
    fn a_flood_of_writers_stays_bounded() {
        let writers = Writers::default();
        for i in 0..(MAX as u32 + 10) {
            writers.wrote(IpAddr::from(i.to_be_bytes()));
        }
        assert!(writers.wrote.lock().unwrap().len() <= MAX);
    }
}
