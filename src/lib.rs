//! iomark: a storage benchmark whose every figure survives a side-by-side check against fio.
//!
//! This crate is the `iomark` binary's own floor: the command line (`cli`), one module per
//! command (`commands`) and the terminal (`output`). The floors below it are crates of the
//! workspace, re-exported here under the names the rooms have always had, so that tests,
//! examples and benches reach every room as `iomark::ROOM`:
//!
//! `iomark_result` (the document) is below all; `iomark_core` (measuring), `iomark_store` and
//! `iomark_export` each stand on it alone; `iomark_site` on the store and the exports; this
//! crate on all of them. The map is docs/ARCHITECTURE.md.
//!
//! In `cli/`: clap definitions (`mod.rs`; `run.rs` for `iomark run`, whose
//! `RunArgs::options()` turns arguments into `suite::Options`; `verify.rs`); `outputs.rs` declares
//! once where a result goes: `StoreArgs` (`--db`, parsed to a `store::Location` as the arguments
//! are read) and `ResultArgs` (`--json`, `--label`, `--no-save`, the store), flattened into `run`,
//! `langs` and `verify`; the value parsers and the one-line usage errors (`values.rs`). It knows
//! nothing of files, devices.

pub mod cli;
pub mod commands;
pub mod output;

pub use iomark_core::{engine, interrupt, langs, probe, progress, space, suite, verify};
pub use iomark_export as export;
pub use iomark_os::{dirs, rng};
pub use iomark_result::{compare, reference, result, stats, units};
pub use iomark_site as web;
pub use iomark_store as store;
