//! `iomark run`'s arguments, and the options they give the suite.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::outputs::ResultArgs;
use super::values::{
    parse_class, parse_loops, parse_positive_duration, parse_size_arg, profile_parser, LoopsArg,
};
use iomark_core::engine::{Data, EngineChoice};
use iomark_core::suite::{Options, Profile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// Bars on a terminal, a line per finished step elsewhere
    Auto,
    /// One JSON object per line on standard error: each step as it starts and ends, and every
    /// second of a step, for dashboards and fleets
    Json,
    /// Nothing
    None,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  iomark run                          the standard table on the current directory (about a minute)
  iomark run /mnt/usb --profile quick a first look in seconds
  iomark run --test RND4K_Q1T1 --loops 5 --duration 5s
  iomark run --json result.json       also write the result document
  iomark run --print-fio > job.fio    the same tests as a fio job file, to check any figure

Every run is saved to the local history (see `iomark history`, `show`, `compare`, `export`), \
unless --no-save is given.

The test file is created anew under a unique name (.iomark-PID-RANDOM.tmp), filled with \
incompressible data, and removed at the end, on error and on Ctrl-C. Nothing else is touched.")]
pub struct RunArgs {
    /// Directory on the filesystem to measure [default: .]
    pub path: Option<PathBuf>,

    /// Which tests: standard (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, each read and
    /// write; 1 GiB, 3 loops of 2 s); quick (the same, 64 MiB, one 0.5 s loop); nvme
    /// (CrystalDiskMark's NVMe SSD preset: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1;
    /// the default on an NVMe drive, else standard is); latency (1000
    /// single 4 KiB random reads, like ioping); sweep (sequential read and write, 4 KiB to 16 MiB
    /// blocks, and where throughput saturates); sustained (one long write over fresh space, the
    /// smaller of 16 GiB and half the free space, stopping at 5 minutes, and where its cache runs
    /// out); sdcard (that write plus 4 KiB random IOPS, judged against every SD class); pi
    /// (PiBenchmarks' dd, fio and iozone steps and its score); surface (GNOME Disks' benchmark:
    /// 100 reads of 10 MiB spread across the device and 1000 random 4 KiB access times, over a
    /// test file or, with --device, a raw device, read-only)
    #[arg(long, short, value_parser = profile_parser())]
    pub profile: Option<Profile>,

    /// Scan this raw block device instead of a test file, read-only, with the surface profile
    /// (the one that reads a device, so the default with --device; root; it must not be mounted
    /// or in use), e.g. /dev/sdb
    #[arg(long, value_name = "DEV", conflicts_with = "path")]
    pub device: Option<PathBuf>,

    /// Surface profile: how many rate samples to spread across the device [default: 100]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub samples: Option<u32>,

    /// Test file size, e.g. 1GiB, 256MiB, 512MB (K/M/G alone mean KiB/MiB/GiB)
    /// [default: from the profile]
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,

    /// Timed loops per test; the median loop is reported. `auto` adds loops (at least 3, at
    /// most 20) until the 95% confidence interval of their mean is within ±2.5%, and reports
    /// it [default: from the profile]
    #[arg(long, value_name = "N|auto", value_parser = parse_loops)]
    pub loops: Option<LoopsArg>,

    /// Length of each timed loop, e.g. 2s, 500ms; for sustained and sdcard, the bound on the
    /// long write instead (sdcard's random tests keep their 2 s loops) [default: from the
    /// profile; the long write's 5 min]
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration)]
    pub duration: Option<Duration>,

    /// Unscored warm-up before each test, e.g. 1s, 0 [default: from the profile]
    #[arg(long, value_name = "DUR", value_parser = iomark_result::units::parse_duration)]
    pub warmup: Option<Duration>,

    /// Latency profile: how many samples to take; surface profile: how many access times
    /// [default: 1000]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub count: Option<u64>,

    /// sdcard profile: the classes the card claims, e.g. V30,A1 [default: as the card reports
    /// them, where the kernel exposes its SD Status]
    #[arg(long, value_name = "CLASSES", value_delimiter = ',', value_parser = parse_class)]
    pub claimed: Vec<String>,

    /// Print each I/O's latency as it completes (for the latency profile)
    #[arg(long)]
    pub live: bool,

    /// Run only this test (repeatable), e.g. RND4K_Q32T1_read; a row name such as SEQ1M_Q8T1
    /// selects its read and write tests. The standard, quick and nvme tables also run any
    /// test such a name states: RND4K_Q32T16_read is 4 KiB random reads from 16 threads, each
    /// with 32 in flight
    #[arg(long = "test", value_name = "NAME")]
    pub tests: Vec<String>,

    /// Threads for every test of the standard, quick or nvme table, each with its own queue
    /// over the file (fio's numjobs): RND4K_Q32T1 becomes RND4K_Q32T4 [default: the table's]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(iomark_profiles::spec::MAX_THREADS)))]
    pub threads: Option<u32>,

    /// At queue depth 1 on one thread, poll for each I/O (up to 200 µs) instead of sleeping
    /// until it completes, so the CPU's wake-up is not counted as the device's. Q1T1 figures
    /// then exceed fio's and CrystalDiskMark's defaults (which sleep) on a fast device; the
    /// result says so, and the site ranks such results apart (fio:
    /// iodepth_batch_complete_min=0)
    #[arg(long)]
    pub poll: bool,

    /// I/O engine: auto (io_uring where the kernel allows it, else psync), io_uring, psync
    /// (pread/pwrite, threads for queue depth > 1), or null (no I/O: measures iomark itself)
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Data written: random (incompressible) or zero (shows what compression gains)
    #[arg(long, value_enum, default_value_t = DataArg::Random)]
    pub data: DataArg,

    /// Use buffered I/O instead of direct I/O (measures the page cache as much as the device)
    #[arg(long)]
    pub buffered: bool,

    #[command(flatten)]
    pub result: ResultArgs,

    /// What the device cost, in US dollars: the results site shows price per GB and MB/s per
    /// dollar from it
    #[arg(long, value_name = "USD", value_parser = iomark_result::units::parse_price)]
    pub price: Option<f64>,

    /// Print the equivalent fio job file for the chosen profile and options, and exit
    #[arg(long)]
    pub print_fio: bool,

    /// Progress on standard error: auto, json or none
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,

    /// Print only the table, or only the document with --json -: no progress, no notes
    #[arg(long, short)]
    pub quiet: bool,
}

impl RunArgs {
    /// The choices that shape the plan, for the suite; `default` is the profile when none was
    /// asked for.
    pub fn options(&self, default: Profile) -> Options {
        Options {
            profile: self.profile.unwrap_or(default),
            size: self.size,
            loops: match self.loops {
                Some(LoopsArg::Count(n)) => Some(n),
                Some(LoopsArg::Auto) => Some(iomark_core::suite::plan::AUTO_MAX_LOOPS),
                None => None,
            },
            auto_loops: self.loops == Some(LoopsArg::Auto),
            duration: self.duration,
            warmup: self.warmup,
            count: self.count,
            samples: self.samples,
            tests: self.tests.clone(),
            threads: self.threads,
            poll: self.poll,
            claimed: self.claimed.clone(),
            data: self.data.into(),
            direct: !self.buffered,
            live: self.live,
            thermometer: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    Auto,
    #[value(name = "io_uring")]
    IoUring,
    Psync,
    Null,
}

impl From<EngineArg> for EngineChoice {
    fn from(arg: EngineArg) -> Self {
        match arg {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::IoUring => EngineChoice::IoUring,
            EngineArg::Psync => EngineChoice::Psync,
            EngineArg::Null => EngineChoice::Null,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DataArg {
    Random,
    Zero,
}

impl From<DataArg> for Data {
    fn from(arg: DataArg) -> Self {
        match arg {
            DataArg::Random => Data::Random,
            DataArg::Zero => Data::Zero,
        }
    }
}
