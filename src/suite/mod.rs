//! Profiles: lists of tests, how their loops are combined, and what is concluded from them.
//!
//! A profile is data: its file (`standard.rs`, `pi.rs`, …) gives its tests and defaults, its
//! score and its verdicts, and [`Profile`] names it. The user's [`Options`] turn a profile into
//! a checked [`Plan`] (`plan.rs`); [`run`] carries the plan out on the engine (`runner.rs`),
//! `aggregate` turns each measurement into a [`crate::result::TestResult`], and `verdicts`
//! says what the figures call for. Progress goes to an [`Observer`]; the suite never prints.

pub mod aggregate;
pub mod fio;
pub mod latency;
pub mod pi;
pub mod plan;
pub mod profile;
pub mod runner;
pub mod sdcard;
pub mod select;
pub mod spec;
pub mod standard;
pub mod surface;
pub mod sustained;
pub mod sweep;
pub mod verdicts;

pub use plan::{Options, Plan, PlanError, Rates};
pub use profile::{Defaults, FileSize, Profile};
pub use runner::{run, Outcome, SuiteError};
pub use spec::TestSpec;
