//! Runs of a profile: its tests carried out on the engine, their loops combined, and what is
//! concluded from them.
//!
//! A profile is data, in its own crate (`iomark_profiles`: its tests and defaults, its score,
//! its verdicts and its words; [`Profile`] names it). The user's [`Options`] turn a profile into
//! a checked [`Plan`] (`plan.rs`); [`run`] carries the plan out on the engine (`runner.rs`),
//! `aggregate` turns each measurement into a [`iomark_result::result::TestResult`], and `verdicts`
//! says what the figures call for. Progress goes to an [`Observer`]; the suite never prints.
//!
//! What lives where: `scan.rs` is the surface profile's reads (the one profile that reads by
//! itself, one timed read per position, over the test file or a raw device: `runner::run_device`);
//! `plan.rs` checks options into a `Plan` and estimates the time left from `rates.rs` (the rates
//! measured so far, drains included); `select.rs` keeps the tests `--test` names (a table also runs
//! any CrystalDiskMark name, `RND4K_Q32T16_read`, parsed by `TestSpec::parse`) and puts `--threads`
//! on a table's tests; `runner.rs` carries it out; `aggregate.rs` turns measurements into figures
//! (and picks the timeline's step: whole seconds for a test of 10 s or more, else the finest of
//! 0.1/0.2/0.5 s holding ten I/Os); `verdicts.rs` holds the warnings any profile can raise;
//! `fio.rs` writes the equivalent fio job (iomark's way of waiting, where fio's defaults differ, in
//! marked blocks of the fio options that reproduce it). It knows nothing of terminals, databases.

pub mod aggregate;
pub mod fio;
pub mod plan;
pub mod rates;
pub mod runner;
pub mod scan;
pub mod select;
pub mod verdicts;

pub use iomark_profiles::spec::{Defaults, FileSize, TestSpec};
pub use iomark_profiles::Profile;
pub use plan::{Options, Plan, PlanError};
pub use rates::Rates;
pub use runner::{run, Outcome, SuiteError};
