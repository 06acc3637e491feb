//! `iomark serve`'s arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::outputs::{parse_replica, StoreArgs};
use super::values::{parse_every, parse_label};

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

    /// Rank a device once results of it came from N independent networks that agree (each an
    /// IPv4 /16 or an IPv6 /32, its figures within 1.5 times the device's median), listing the others after every ranked one, unranked: never one
    /// household's word above others' [default: 2; 1 where the store is your own history,
    /// without --db]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub corroboration: Option<u32>,

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
