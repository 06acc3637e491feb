//! `iomark health`'s arguments.

use std::path::PathBuf;

use clap::Args;

use super::outputs::ResultArgs;
use super::values::parse_size_arg;

#[derive(Debug, Args)]
#[command(after_help = "\
A check keeps a folder, PATH/iomark-health, on the filesystem it watches: at the first check it
writes 1 MiB of canaries there (files of known content), and at every check it reads them back
past the page cache, writes a new 64 KiB file, syncs it and reads it back, times 32 small reads
and 8 small synced writes, and reads what the system knows (a filesystem remounted read-only,
ext4's error count, the device's own count of bytes written). A check writes about 100 KiB
(1.1 MiB the first time); what the device counted written meanwhile is in the result.

Verdicts: healthy; watch (something changed: writes that stall, timings far from the first
checks', filesystem errors); failing (read-only, unreadable, gone); lying (the card
acknowledged writes it did not keep, or changed what it held). Each check is saved in the
history like a run.

Examples:
  iomark health /media/card           check the card mounted there
  iomark health                       check the filesystem of the current folder
  iomark health / --json -            the check as a result document, for scripts")]
pub struct HealthArgs {
    /// A folder on the filesystem to check [default: .]
    pub path: Option<PathBuf>,

    /// The most a check may write, e.g. 2MiB [default: 4MiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub budget: Option<u64>,

    #[command(flatten)]
    pub result: ResultArgs,
}
