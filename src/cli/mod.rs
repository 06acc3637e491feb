//! Command-line definitions (clap). Values are parsed and checked here, so the commands get
//! typed options; a bad value is one `Error:` line that names the flag.

mod values;
mod verify;

pub use verify::VerifyArgs;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::engine::{Data, EngineChoice};
use crate::suite::{Options, Profile};
pub use values::LoopsArg;
use values::{
    one_line, parse_class, parse_label, parse_lang, parse_loops, parse_positive_duration,
    parse_size_arg, profile_parser,
};

#[derive(Debug, Parser)]
#[command(
    name = "iomark",
    version,
    about = "How fast is this disk, SD card, USB stick or SSD, really?",
    long_about = "How fast is this disk, SD card, USB stick or SSD, really?\n\n\
        iomark measures a filesystem with direct I/O, the way CrystalDiskMark and KDiskMark do, \
        and reports MB/s (10^6 bytes per second), IOPS and latency percentiles that agree with \
        fio. It needs no root and nothing installed.",
    after_help = "Run `iomark run --help` for the benchmark's options.",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure the filesystem PATH lives on (default: the current directory)
    Run(RunArgs),
    /// Show the machine and the storage PATH lives on, and warn about bottlenecks
    Info(InfoArgs),
    /// Write and read a file one byte at a time in C, C++, Go, Rust, Java, Scala, Python, Ruby
    /// and Node, beside the device's own rate
    Langs(LangsArgs),
    /// Check that a device holds what it claims and gives back what it was given (fake
    /// capacity, corruption): fills a filesystem's free space, or probes a raw device
    Verify(VerifyArgs),
    /// List saved runs, newest first
    History(HistoryArgs),
    /// Show the full report of a saved run
    Show(ShowArgs),
    /// Compare saved runs side by side: the first is the baseline
    Compare(CompareArgs),
    /// Write a saved run as JSON, CSV, Markdown or a self-contained HTML report
    Export(ExportArgs),
    /// Draw a chart of saved runs as SVG or PNG
    Plot(PlotArgs),
    /// Add a result document (from `iomark run --json`) to the store
    Import(ImportArgs),
    /// Remove a saved run
    Delete(DeleteArgs),
    /// Serve the results site (leaderboard, device and result pages, JSON API) over a store
    Serve(ServeArgs),
    /// Send a saved run to a results site (showing first exactly what is sent), or delete it there
    Submit(SubmitArgs),
    /// Print a shell's completion script: `iomark completions bash > /etc/bash_completion.d/iomark`
    Completions(CompletionsArgs),
    /// Print the manual page (roff): `iomark man > iomark.1`, `iomark man run > iomark-run.1`
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A subcommand's own page, e.g. run [default: the main page, which lists them all]
    pub command: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Each language's program writes the bytes 0,1,…,255,0,… one call per byte through its standard \
buffered stream, closes the file, reads it back one call per byte and checks every byte; the \
harness checks the file and the checksum again. The first repetition warms up JIT runtimes and \
is dropped. Compiled programs are built once into ~/.cache/iomark/langs. A language whose \
toolchain is missing is skipped with a note.

Examples:
  iomark langs                          every language found, 256 MiB, 6 repetitions
  iomark langs --only c,python --bytes 16MiB --reps 3
  iomark langs --cold                   reads come from the device, not the page cache")]
pub struct LangsArgs {
    /// Directory on the filesystem to write to [default: .]
    pub path: Option<PathBuf>,

    /// Bytes written and read per repetition, e.g. 256MiB, 16MiB
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size_arg)]
    pub bytes: u64,

    /// Repetitions per program, in one process; the first is dropped when there are several
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub reps: u32,

    /// Only these languages, e.g. c,go,python [default: every language whose toolchain is found]
    #[arg(long, value_name = "LANG,…", value_delimiter = ',', value_parser = parse_lang)]
    pub only: Vec<String>,

    /// Only these variants, e.g. default,bigbuf [default: every variant]
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    pub variants: Vec<String>,

    /// Sync the file and drop it from the page cache between each write and its read, so that
    /// reads come from the device
    #[arg(long)]
    pub cold: bool,

    /// Pin each program (and only it) to this CPU, e.g. 1: the scheduler moving it between
    /// cores, and the harness's own work, no longer move its figures
    #[arg(long, value_name = "N")]
    pub cpu: Option<usize>,

    /// Write the result document (JSON) to FILE; `-` writes it to standard output
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// A label for this result
    #[arg(long, value_name = "TEXT", value_parser = parse_label)]
    pub label: Option<String>,

    /// Do not save the result to the store
    #[arg(long)]
    pub no_save: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// Which store: the local history unless told otherwise.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The result store: a SQLite file, or a postgres:// URL [default:
    /// $XDG_DATA_HOME/iomark/results.db, else ~/.local/share/iomark/results.db]
    #[arg(long, value_name = "PATH|URL", env = "IOMARK_DB")]
    pub db: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Ids are shown shortened; any unique beginning of an id names a run.")]
pub struct HistoryArgs {
    /// Show at most N runs
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,

    /// Print the list as JSON
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The run (any unique beginning of its id; `latest` for the newest, `latest~1` the one before)
    pub id: String,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Each figure is compared with the baseline's. The verdict takes both runs' loop-to-loop spread \
(their coefficient of variation) into account: a difference within twice the combined spread \
(and at least 2%) is within noise. A run of one loop has its per-second timeline as samples \
when it spans 3 s or more; with less, its spread is unknown and the verdict is \"can't tell\" \
unless the difference exceeds 50%.")]
pub struct CompareArgs {
    /// Two or more runs; the first is the baseline
    #[arg(value_name = "ID", num_args = 2.., required = true)]
    pub ids: Vec<String>,

    /// Print the comparison as JSON
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Json,
    Csv,
    Md,
    Html,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The run (any unique beginning of its id; `latest` for the newest, `latest~1` the one before)
    pub id: String,

    /// json (the result document), csv (one row per test), md (a Markdown table to paste) or
    /// html (a report with its charts, in one file)
    #[arg(long, value_enum)]
    pub format: FormatArg,

    /// Write to FILE instead of standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotKind {
    /// MB/s of every test, CrystalDiskMark style
    Bars,
    /// MB/s over time, second by second
    Timeline,
    /// Latency percentiles (p50 to max)
    Latency,
    /// How many I/Os took how long (the latency profile)
    Histogram,
    /// MB/s against block size (the sweep profile)
    Sweep,
    /// Read rate and access time against position (the surface profile), as GNOME Disks
    Surface,
    /// One run as a card to post, as CrystalDiskMark's window: a row per test, read and write
    Card,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Several ids draw one comparison chart. The format follows the file name: .svg or .png."
)]
pub struct PlotArgs {
    /// One or more runs
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,

    /// What to draw
    #[arg(long, value_enum, default_value_t = PlotKind::Bars)]
    pub kind: PlotKind,

    /// The chart file: FILE.svg or FILE.png
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Result documents (iomark.result/1 JSON) to add
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The run (any unique beginning of its id)
    pub id: String,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "\
The site ranks devices by the median of their results, among results of the same profile, I/O
mode and data only. Pages work without JavaScript; the JSON API is under /api/v1/ (see the
README). There is no admin route: a result is deleted with the token its submitter was given.

Examples:
  iomark serve                                   your own history, at http://127.0.0.1:8080
  iomark serve --listen 0.0.0.0:80 --db postgres://iomark@db/iomark --public-url https://example.org")]
pub struct ServeArgs {
    /// Address and port to listen on (port 0: any free port, printed at start)
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,

    /// The address people reach the site at, for the links in receipts [default: http://LISTEN]
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,

    /// Submissions (POST and DELETE) one client may make per minute; 0 for no limit
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub submissions_per_minute: u32,

    /// Requests of any kind one client may make per minute; 0 for no limit
    #[arg(long, value_name = "N", default_value_t = 1200)]
    pub requests_per_minute: u32,

    /// Serve a page or API answer again for up to N seconds (a submission or deletion here
    /// clears them at once); 0 turns this off
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub cache_seconds: u64,

    /// Behind a proxy: limit each client by the address the proxy puts last in
    /// X-Forwarded-For, not by the proxy's own (never set this without such a proxy: clients
    /// could then name any address)
    #[arg(long)]
    pub trust_forwarded_for: bool,

    /// Show results marked synthetic (made by the benchmarks' generator), which a real site hides
    #[arg(long, hide = true)]
    pub show_synthetic: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "\
What is sent is the result document, less what could identify you: no hostname (iomark never
records one), your home folder written as ~, serial numbers only as a salted hash. --dry-run
prints it. The site answers with the result's address and a deletion token, which are kept in
your store, so that `iomark submit --delete ID --server URL` works later.

Examples:
  iomark submit --server https://example.org --dry-run    what would be sent
  iomark submit latest --server https://example.org --yes
  iomark submit --delete 01J9ZQ --server https://example.org")]
pub struct SubmitArgs {
    /// The run (any unique beginning of its id, or latest, latest~N)
    #[arg(default_value = "latest")]
    pub id: String,

    /// The results site, e.g. https://example.org
    #[arg(long, value_name = "URL", env = "IOMARK_SERVER")]
    pub server: String,

    /// Print what would be sent, and send nothing
    #[arg(long, conflicts_with = "delete")]
    pub dry_run: bool,

    /// Send without asking
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Delete the run from the site, with the token kept when it was submitted
    #[arg(long)]
    pub delete: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// A path on the storage to describe [default: .]
    pub path: Option<PathBuf>,

    /// Print the `host` and `target` objects of the result document (and the warnings) as JSON
    #[arg(long)]
    pub json: bool,
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
    /// write; 1 GiB, 3 loops of 2 s); quick (the same, 64 MiB, one 0.5 s loop); latency (1000
    /// single 4 KiB random reads, like ioping); sweep (sequential read and write, 4 KiB to 16 MiB
    /// blocks, and where throughput saturates); sustained (one long write over fresh space, the
    /// smaller of 16 GiB and half the free space, stopping at 5 minutes, and where its cache runs
    /// out); sdcard (that write plus 4 KiB random IOPS, judged against every SD class); pi
    /// (PiBenchmarks' dd, fio and iozone steps and its score); surface (GNOME Disks' benchmark:
    /// 100 reads of 10 MiB spread across the device and 1000 random 4 KiB access times, over a
    /// test file or, with --device, a raw device, read-only)
    #[arg(long, default_value = "standard", value_parser = profile_parser())]
    pub profile: Profile,

    /// Surface profile: scan this raw block device instead of a test file, read-only (root; it
    /// must not be mounted or in use), e.g. /dev/sdb
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
    /// long write [default: from the profile; sustained's 5 min]
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration)]
    pub duration: Option<Duration>,

    /// Unscored warm-up before each test, e.g. 1s, 0 [default: from the profile]
    #[arg(long, value_name = "DUR", value_parser = crate::units::parse_duration)]
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
    /// selects its read and write tests
    #[arg(long = "test", value_name = "NAME")]
    pub tests: Vec<String>,

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

    /// Write the result document (JSON) to FILE; `-` writes it to standard output and the table
    /// to standard error
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Do not save the result to the store (see `iomark history`)
    #[arg(long)]
    pub no_save: bool,

    #[command(flatten)]
    pub store: StoreArgs,

    /// A label for this result, e.g. "SanDisk Extreme 64GB in USB 3 reader" (at most 200
    /// characters, no control characters)
    #[arg(long, value_name = "TEXT", value_parser = parse_label)]
    pub label: Option<String>,

    /// What the device cost, in US dollars: the results site shows price per GB and MB/s per
    /// dollar from it
    #[arg(long, value_name = "USD", value_parser = values::parse_price)]
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
    /// The choices that shape the plan, for the suite.
    pub fn options(&self) -> Options {
        Options {
            profile: self.profile,
            size: self.size,
            loops: match self.loops {
                Some(LoopsArg::Count(n)) => Some(n),
                Some(LoopsArg::Auto) => Some(crate::suite::plan::AUTO_MAX_LOOPS),
                None => None,
            },
            auto_loops: self.loops == Some(LoopsArg::Auto),
            duration: self.duration,
            warmup: self.warmup,
            count: self.count,
            samples: self.samples,
            tests: self.tests.clone(),
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

/// Parses the command line; on a usage error returns the one line to print and the exit code
/// (2), folding clap's multi-line message into one line that names the flag.
pub fn parse() -> Result<Cli, (String, i32)> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = error.print();
                return Err((String::new(), error.exit_code()));
            }
            let line = one_line(&error.render().to_string());
            Err((line, 2))
        }
    }
}
