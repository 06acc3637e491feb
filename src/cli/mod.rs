//! Command-line definitions (clap). Values are parsed and checked here, so the commands get
//! typed options; a bad value is one `Error:` line that names the flag.

pub mod health;
mod outputs;
mod run;
mod values;
mod verify;

pub use health::HealthArgs;
use outputs::parse_replica;
pub use outputs::{ResultArgs, StoreArgs};
pub use run::{DataArg, EngineArg, ProgressArg, RunArgs};
pub use verify::VerifyArgs;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use values::LoopsArg;
use values::{one_line, parse_every, parse_label, parse_lang, parse_size_arg, parse_sold_as};

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
The site ranks devices by the median of their results, among results of the same profile, I/O
mode and data only. Pages work without JavaScript; the JSON API is under /api/v1/, described
at /api/v1/openapi.json (OpenAPI 3.1). A submitter deletes a result with the token they were
given; moderators hide, restore and merge with --admin-token-file.

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
    /// forgets at once those it changes); 0 turns this off
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub cache_seconds: u64,

    /// Behind a proxy: limit each client by the address the proxy puts last in
    /// X-Forwarded-For, not by the proxy's own (never set this without such a proxy: clients
    /// could then name any address)
    #[arg(long)]
    pub trust_forwarded_for: bool,

    /// Turn on the moderators' API (/api/v1/admin/: hide and restore results, the audit, the
    /// results to review), for whoever presents the secret in this file (at least 32
    /// characters; readable by its owner alone) as `Authorization: Bearer SECRET`
    #[arg(long, value_name = "FILE")]
    pub admin_token_file: Option<std::path::PathBuf>,

    /// The licence the site's results are published under, shown on /about and in every dump
    /// (an SPDX name, or a short sentence)
    #[arg(long, value_name = "TEXT", default_value = "CC-BY-4.0", value_parser = parse_label)]
    pub data_licence: String,

    /// Make a dump of every public result (gzip JSON lines and CSV, at /api/v1/dump) this
    /// often, in the background, e.g. 24h, 1h; 0 for none
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = parse_every)]
    pub dump_every: std::time::Duration,

    /// The folder the dumps are made in [default: $XDG_DATA_HOME/iomark/dump, else
    /// ~/.local/share/iomark/dump]
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,

    /// What is written to standard error: a line per request (method, route, path, status,
    /// milliseconds, whether from the cache, the client's address) and the site's own events,
    /// as text or JSON lines; quiet leaves out the line per request
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogArg::Text)]
    pub log: LogArg,

    /// Threads answering requests [default: the CPUs iomark may use]. Processes sharing one
    /// machine share its cores: give each its part (two processes on 4 CPUs: 2 each)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub workers: Option<u16>,

    /// A PostgreSQL streaming replica of --db to read pages and API answers from (repeatable:
    /// taken in turn). Writes, and the reads of a client that wrote in the last 10 s, go to
    /// --db; a replica that fails has its reads made on --db until it answers again (tried
    /// every 5 s)
    #[arg(long, value_name = "URL", value_parser = parse_replica)]
    pub read_db: Vec<iomark_store::Location>,

    /// A replica further behind --db than this takes no reads until it has caught up (0: read
    /// from it whatever its lag)
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_every)]
    pub read_db_max_lag: std::time::Duration,

    /// A device with more ranked results than N has its aggregates refreshed in the
    /// background, within a second or so, rather than in each submission (whose cost would
    /// otherwise grow with them)
    #[arg(long, value_name = "N", default_value_t = iomark_store::INLINE)]
    pub refresh_inline_up_to: i64,

    /// The most of a group's latest results a submission's standing, and a device's page, weigh
    #[arg(long, value_name = "N", default_value_t = iomark_store::SAMPLE, hide = true)]
    pub standing_sample: i64,

    /// Show results marked synthetic (made by the benchmarks' generator), which a real site hides
    #[arg(long, hide = true)]
    pub show_synthetic: bool,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// `iomark serve --log`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogArg {
    Text,
    Json,
    Quiet,
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
            // A monitor reads 2 as "critical": for it, arguments it cannot take are "unknown".
            let monitor = std::env::args_os().any(|a| a == "--monitor");
            Err((line, if monitor { 3 } else { 2 }))
        }
    }
}
