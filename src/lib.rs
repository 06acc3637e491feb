//! iomark: a storage benchmark whose every figure survives a side-by-side check against fio.
//!
//! Data flows one way: `cli → suite → engine → Measurement → suite (aggregate, verdicts) →
//! result → output`. The binary (`main.rs`) only parses arguments and dispatches; the command
//! that ties a run together is in `commands`.

pub mod cli;
pub mod commands;
pub mod engine;
pub mod interrupt;
pub mod output;
pub mod probe;
pub mod result;
pub mod suite;
pub mod units;
