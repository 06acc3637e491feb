//! How far behind the primary each read replica is, in time: every [`CHECK`] the primary's
//! write position (`pg_current_wal_lsn`) is noted with the time it was seen, and each
//! replica's replayed position (`pg_last_wal_replay_lsn`) is compared with the notes: a replica
//! is as far behind as the oldest note it has not replayed is old (none: not behind). A
//! replica more than the server's `--read-db-max-lag` behind takes no reads until it has
//! caught up, so that a replica whose replay stopped is not served as if it were the site.
//! The lag is `/metrics`' `iomark_replica_lag_seconds`, by the replica's place in the list.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::{AnyPool, Row};

/// How often positions are read.
pub const CHECK: Duration = Duration::from_secs(1);
/// The most notes kept (a replica that never replays is behind by the oldest of them).
const NOTES: usize = 4096;

/// A replica as the watch sees it.
pub(super) struct Watched {
    pub pool: AnyPool,
    pub shown: String,
    /// Set while it is too far behind to read from.
    pub behind: Arc<AtomicBool>,
}

/// Watches `replicas` against `primary` until the primary's pool is closed; `max` zero never
/// takes a replica out of turn (the lag is still measured).
pub(super) fn watch(primary: AnyPool, replicas: Vec<Watched>, max: Duration) {
    tokio::spawn(async move {
        let mut notes: VecDeque<(u64, Instant)> = VecDeque::new();
        let mut ticks = tokio::time::interval(CHECK);
        loop {
            ticks.tick().await;
            if primary.is_closed() {
                return;
            }
            let Ok(Some(written)) = position(&primary, "pg_current_wal_lsn()").await else {
                continue;
            };
            if notes.back().is_none_or(|(at, _)| *at != written) {
                notes.push_back((written, Instant::now()));
            }
            let mut least = written;
            for (place, replica) in replicas.iter().enumerate() {
                // Not answering: the reads' own failures rest it. Not replaying: not a standby.
                let Ok(Some(replayed)) = position(&replica.pool, "pg_last_wal_replay_lsn()").await
                else {
                    continue;
                };
                least = least.min(replayed);
                let lag = notes
                    .iter()
                    .find(|(at, _)| *at > replayed)
                    .map_or(Duration::ZERO, |(_, seen)| seen.elapsed());
                metrics::gauge!("iomark_replica_lag_seconds", "replica" => place.to_string())
                    .set(lag.as_secs_f64());
                let behind = replica.behind.load(Ordering::Relaxed);
                if !behind && !max.is_zero() && lag > max {
                    replica.behind.store(true, Ordering::Relaxed);
                    tracing::warn!(
                        replica = %replica.shown,
                        "the replica is {:.0} s behind the primary; its reads go to the primary \
                         until it has caught up",
                        lag.as_secs_f64()
                    );
                } else if behind && lag.is_zero() {
                    replica.behind.store(false, Ordering::Relaxed);
                    tracing::info!(replica = %replica.shown, "the replica has caught up");
                }
            }
            // Forget what every replica has replayed (the newest note stays).
            while notes.len() > 1 && notes.front().is_some_and(|(at, _)| *at <= least) {
                notes.pop_front();
            }
            if notes.len() > NOTES {
                notes.pop_front();
            }
        }
    });
}

/// A WAL position (`X/Y` in hex) as a number; `None` where the function gives NULL.
async fn position(pool: &AnyPool, function: &str) -> Result<Option<u64>, sqlx::Error> {
    let row = sqlx::query(&format!("SELECT {function}::text"))
        .fetch_one(pool)
        .await?;
    let text: Option<String> = row.try_get(0)?;
    Ok(text.and_then(|t| parse(&t)))
}

fn parse(lsn: &str) -> Option<u64> {
    let (high, low) = lsn.split_once('/')?;
    Some((u64::from_str_radix(high, 16).ok()? << 32) | u64::from_str_radix(low, 16).ok()?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn positions_read_as_postgresql_writes_them() {
        assert_eq!(super::parse("0/3000148"), Some(0x3000148));
        assert_eq!(super::parse("16/B374D848"), Some((0x16 << 32) | 0xB374D848));
        assert_eq!(super::parse("nonsense"), None);
    }
}
