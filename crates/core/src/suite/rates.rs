//! What a run has measured so far, for the time left: the rates of its directions and of its
//! random tests, and how long its timed tests took against their plan (`Plan::time_from`).

use crate::engine::{Op, Pattern};
use std::time::Duration;

/// How much slower than sequential I/O random I/O is taken to be before a random test ran.
const RANDOM_PRIOR: f64 = 4.0;

/// Rates measured so far in a run (bytes per second), and how long its timed tests took
/// against their plan, to estimate what is left.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    pub read: Option<f64>,
    pub write: Option<f64>,
    /// The random tests' rates so far, read and write: their drains go at these.
    pub random: (Option<f64>, Option<f64>),
    /// The timed tests so far: seconds planned (warm-up, loops and drains) and seconds taken,
    /// for what else a test costs (setting up, a sync at the end).
    pub timed: (f64, f64),
}

impl Rates {
    /// The rate of that direction, else the other's (better than nothing), else none.
    pub fn for_op(self, op: Op) -> Option<f64> {
        let (own, other) = match op {
            Op::Read => (self.read, self.write),
            _ => (self.write, self.read),
        };
        own.or(other).filter(|r| *r > 0.0)
    }

    /// The rate a test's drains go at: its own kind's where one ran (random tests), else its
    /// direction's or the other's.
    pub fn for_test(self, op: Op, pattern: Pattern) -> Option<f64> {
        // A random test of the other direction, scaled as the sequential ones differ: random
        // writes on a card are as much slower than its random reads as its writes are.
        let scaled = |other: Option<f64>, own_seq: Option<f64>, other_seq: Option<f64>| {
            Some(other? * own_seq? / other_seq?)
        };
        let random = match op {
            Op::Read => self
                .random
                .0
                .or_else(|| scaled(self.random.1, self.read, self.write)),
            _ => self
                .random
                .1
                .or_else(|| scaled(self.random.0, self.write, self.read)),
        };
        match pattern {
            // None yet: a quarter of the sequential rate. A card's 4 KiB writes are slower
            // still, an NVMe drive's nearly as fast, where drains take milliseconds anyway.
            Pattern::Random => random.or(self.for_op(op).map(|r| r / RANDOM_PRIOR)),
            Pattern::Sequential => self.for_op(op),
        }
        .filter(|r| *r > 0.0)
    }

    /// A timed test's rate, and how long it was planned to take (drains included) and took.
    pub fn record_test(&mut self, op: Op, pattern: Pattern, bytes_per_s: f64) {
        match (pattern, op) {
            (Pattern::Random, Op::Read) => self.random.0 = Some(bytes_per_s),
            (Pattern::Random, _) => self.random.1 = Some(bytes_per_s),
            (Pattern::Sequential, _) => self.record(op, bytes_per_s),
        }
    }

    /// A timed test planned to take `planned` that took `taken`.
    pub fn record_timed(&mut self, planned: Duration, taken: Duration) {
        self.timed.0 += planned.as_secs_f64();
        self.timed.1 += taken.as_secs_f64();
    }

    /// How much longer than planned the timed tests took so far (1 before any did).
    pub fn stretch(self) -> f64 {
        match self.timed.0 > 0.0 {
            true => (self.timed.1 / self.timed.0).clamp(1.0, 10.0),
            false => 1.0,
        }
    }

    pub fn record(&mut self, op: Op, bytes_per_s: f64) {
        match op {
            Op::Read => self.read = Some(bytes_per_s),
            _ => self.write = Some(bytes_per_s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 45: a random test's drains go at its own kind's rate, else the other direction's
    /// scaled as the sequential ones differ, else a quarter of the sequential rate.
    #[test]
    fn random_tests_drain_at_their_own_kind_s_rate() {
        let mut rates = Rates {
            write: Some(10e6),
            ..Rates::default()
        };
        assert_eq!(rates.for_test(Op::Write, Pattern::Random), Some(2.5e6));
        rates.record_test(Op::Read, Pattern::Sequential, 20e6);
        rates.record_test(Op::Read, Pattern::Random, 6e6);
        assert_eq!(rates.for_test(Op::Write, Pattern::Random), Some(3e6));
        rates.record_test(Op::Write, Pattern::Random, 2e6);
        assert_eq!(rates.for_test(Op::Write, Pattern::Random), Some(2e6));
        assert_eq!(rates.for_test(Op::Write, Pattern::Sequential), Some(10e6));
        // Quicker than planned is never promised.
        rates.record_timed(Duration::from_secs(10), Duration::from_secs(5));
        assert_eq!(rates.stretch(), 1.0);
    }
}
