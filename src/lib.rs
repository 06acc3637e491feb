//! iomark: a storage benchmark whose every figure survives a side-by-side check against fio.
//!
//! Data flows one way: `cli → suite → engine → Measurement → suite (aggregate, verdicts) →
//! result → {output, export, store}`. The binary (`main.rs`) only parses arguments and dispatches; the command
//! that ties a run together is in `commands`.

pub mod cli;
pub mod commands;
pub mod compare;
pub mod dirs;
pub mod engine;
pub mod export;
pub mod interrupt;
pub mod langs;
pub mod output;
pub mod probe;
pub mod result;
pub mod stats;
pub mod store;
pub mod suite;
pub mod units;
