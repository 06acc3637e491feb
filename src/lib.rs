//! iomark: a storage benchmark whose every figure survives a side-by-side check against fio.
//!
//! Data flows one way: `cli → commands → suite → engine → Measurement → suite (aggregate,
//! score, verdicts) → result → {output, export, store}`. The binary (`main.rs`) only parses
//! arguments and dispatches; each command ties the rooms together for one job. The map is
//! `docs/ARCHITECTURE.md`.

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
pub mod progress;
pub mod reference;
pub mod result;
pub mod rng;
pub mod space;
pub mod stats;
pub mod store;
pub mod suite;
pub mod units;
pub mod verify;
pub mod web;
