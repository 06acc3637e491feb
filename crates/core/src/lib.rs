//! The measuring core: who is tested (`probe`), the I/O engine (`engine`), the profiles and
//! their runs (`suite`), `verify`, `health` and the `langs` experiment, with the progress protocol they
//! report through, the signals that clean up after them (`interrupt`) and how much room a
//! filesystem has (`space`).
//!
//! It knows nothing of terminals, stores or the site: a job goes in, a result document comes
//! out (`iomark_result`). Its tests need no database, browser, toolchain or root. The map is
//! docs/ARCHITECTURE.md.

pub mod engine;
pub mod health;
pub mod interrupt;
pub mod langs;
pub mod probe;
pub mod progress;
pub mod space;
pub mod suite;
pub mod verify;
