//! One module per subcommand: each ties the layers together for one job.

pub mod info;
pub mod run;
