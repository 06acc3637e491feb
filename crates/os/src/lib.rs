//! What iomark asks of the system it runs on, and nothing else: where its folders are
//! (`dirs`: the XDG base directories, with their usual fallbacks) and a fast random generator
//! seeded from the kernel (`rng`). Below every other crate, so that the document crate
//! (`iomark_result`) makes no call to the system: the core, the store and the site each ask
//! here. The map is docs/ARCHITECTURE.md.

pub mod dirs;
pub mod rng;
