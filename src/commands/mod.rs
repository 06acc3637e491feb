//! One module per subcommand: each ties the layers together for one job.

pub mod compare;
pub mod export;
pub mod history;
pub mod info;
pub mod run;
