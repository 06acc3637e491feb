//! Command-line definitions (clap). Values are parsed and checked here, so the commands get
//! typed options; a bad value is one `Error:` line that names the flag.

pub mod health;
mod outputs;
mod run;
mod serve;
mod ui;
mod values;
mod verify;

pub use health::HealthArgs;
pub use outputs::{ResultArgs, StoreArgs};
pub use run::{DataArg, EngineArg, ProgressArg, RunArgs};
pub use serve::{LogArg, ServeArgs};
pub use ui::UiArgs;
pub use verify::VerifyArgs;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use values::LoopsArg;
use values::{one_line, parse_lang, parse_size_arg, parse_sold_as};

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
    /// Check whether a card or disk still keeps what it is given (canaries, a fresh write,
    /// its timings, what the system knows), gently: about 100 KiB written a check
    Health(HealthArgs),
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
    /// Open iomark in the desktop's browser: measure, watch it run, keep and compare results,
    /// for people who never open a terminal
    Ui(UiArgs),
    /// Look after the result store: `iomark store backup FILE` copies it while it is in use
    Store(StoreCommandArgs),
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
    /// Write every page into this folder instead (iomark.1, iomark-run.1, …), as a package
    /// installs them
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<std::path::PathBuf>,
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

    #[command(flatten)]
    pub result: ResultArgs,
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
#[command(after_help = iomark_result::compare::HELP)]
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
    /// MB/s over time: each second, or each tenth of one for a test under 10 s
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
    /// Health checks over time: read and write latency, what the device wrote per day
    Health,
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
What is sent is the result document, less what could identify you: no hostname (iomark never
records one), your home folder written as ~, serial numbers only as a salted hash. --dry-run
prints it. The site answers with the result's address and a deletion token, which are kept in
your store, so that `iomark submit --delete ID --server URL` works later.

A card names itself only by a code in its registers (a SanDisk says SN64G): --model says what it
is sold as, so that people find it by that name; asked for, where a card's code is all it says.

Examples:
  iomark submit --server https://example.org --dry-run    what would be sent
  iomark submit latest --server https://example.org --yes
  iomark submit --server https://example.org --model \"SanDisk Extreme 64GB A2\"
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

    /// What the device is sold as, e.g. "SanDisk Extreme 64GB A2" (at most 80 characters):
    /// the site finds the device by it, and names the device so once several results agree
    #[arg(long, value_name = "NAME", value_parser = parse_sold_as, conflicts_with = "delete")]
    pub model: Option<String>,

    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Debug, Args)]
pub struct StoreCommandArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Copy a SQLite store to FILE, consistent while a server or a run writes to it, and check
    /// the copy before it replaces FILE
    #[command(after_help = "\
The copy is one snapshot of the store (SQLite's VACUUM INTO): a server goes on taking \
submissions meanwhile, and those that came after the snapshot are not in it. It is checked \
(SQLite's integrity check, and its results counted) before it is put at FILE; a copy that fails \
leaves FILE as it was. FILE is readable by its owner alone. To restore, stop the server and \
put the copy where its --db points (or point --db at the copy).

A PostgreSQL store is copied with PostgreSQL's own tools: pg_dump -Fc -f FILE URL, and \
pg_restore to bring it back.

Examples:
  iomark store backup results-$(date +%F).db
  iomark store backup /backups/site.db --db /var/lib/iomark/results.db")]
    Backup(BackupArgs),
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Where the copy goes (a new file, or one this replaces whole)
    pub file: PathBuf,

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

/// The command a command line names: its first word that is no option (`--color` takes the
/// word after it).
fn command_word(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<std::ffi::OsString> {
    while let Some(arg) = args.next() {
        if arg == "--color" {
            args.next();
        } else if !arg.to_string_lossy().starts_with('-') {
            return Some(arg);
        }
    }
    None
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
            // A health check's 2 is "critical": for it, arguments it cannot take are "unknown".
            let health = command_word(std::env::args_os().skip(1)).is_some_and(|w| w == "health");
            Err((line, if health { 3 } else { 2 }))
        }
    }
}
