//! `iomark verify`'s arguments.

use std::path::PathBuf;

use clap::Args;

use super::outputs::ResultArgs;
use super::values::parse_size_arg;

#[derive(Debug, Args)]
#[command(after_help = "\
On a filesystem (safe: nothing but iomark's own files is written), iomark fills the free space
with files in PATH/iomark-verify whose every 512-byte sector says where it belongs, syncs them,
reads them back past the page cache and says how many bytes came back intact, wrong, unreadable,
or holding data written elsewhere (a counterfeit card that claims more than it holds). Ctrl-C
stops after the current block and keeps the files: --resume goes on from there.

On a raw device (--device, with --destructive: everything on it is lost), iomark needs root, a
device nothing uses (not mounted, nor any partition of it; not LVM, LUKS, RAID or swap), and the
device's size typed back unless --yes. By default it finds the real capacity in seconds by
writing samples across the device (f3probe's job); --full writes and reads every byte.

Examples:
  iomark verify /media/card              fill the card's free space and check it
  iomark verify . --size 4GiB            check 4 GiB only
  iomark verify /media/card --resume     go on with an interrupted verify
  sudo iomark verify --device /dev/sdb --destructive          real capacity, in seconds
  sudo iomark verify --device /dev/sdb --destructive --full   every byte")]
pub struct VerifyArgs {
    /// A folder on the filesystem to verify [default: .]
    #[arg(conflicts_with = "device")]
    pub path: Option<PathBuf>,

    /// Verify this much instead of all the free space, e.g. 4GiB
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg, conflicts_with_all = ["device", "resume"])]
    pub size: Option<u64>,

    /// Go on with an interrupted verify in PATH (its files and seed are kept in
    /// PATH/iomark-verify)
    #[arg(long, conflicts_with = "device")]
    pub resume: bool,

    /// Keep the files at the end (they are removed otherwise)
    #[arg(long, conflicts_with = "device")]
    pub keep: bool,

    /// A raw block device to verify instead of a filesystem, e.g. /dev/sdb (root; needs
    /// --destructive)
    #[arg(long, value_name = "DEV")]
    pub device: Option<PathBuf>,

    /// Allow writing to the raw device: everything on it is destroyed
    #[arg(long, requires = "device")]
    pub destructive: bool,

    /// Write and read back every byte of the device, not samples
    #[arg(long, requires = "destructive")]
    pub full: bool,

    /// Do not ask for the device's size to be typed back
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Progress on standard error: auto, json (a JSON object a line: each step as it starts and
    /// ends, and every second of it) or none
    #[arg(long, value_enum, default_value_t = super::ProgressArg::Auto)]
    pub progress: super::ProgressArg,

    #[command(flatten)]
    pub result: ResultArgs,
}
