//! `iomark ui`'s arguments.

use clap::Args;

use super::outputs::StoreArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
The app is this machine's own: it listens on 127.0.0.1 (a free port) and opens in the desktop's
browser; the address it opens carries a one-time key (handed to the browser in a file only you
can read, never on a command line), and every request needs it (then a cookie of the app's own), comes to 127.0.0.1 or localhost by name, and every action comes from the
app's own pages. A run is `iomark run` itself, its progress shown as it goes; Stop is Ctrl-C.
Ctrl-C here stops the app, and the runs still going as Ctrl-C stops them; so does half an hour
without a visit while no run goes (--idle-stop).

Examples:
  iomark ui                      open the app in the desktop's browser
  iomark ui --no-open            print its address only (to open it yourself)")]
pub struct UiArgs {
    /// Print the address without opening a browser
    #[arg(long)]
    pub no_open: bool,

    /// Stop after this long without a visit while no run goes (a menu's app has no terminal
    /// to stop it from); 0 for never
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = iomark_result::units::parse_duration)]
    pub idle_stop: std::time::Duration,

    /// Address and port to listen on [default: 127.0.0.1 and a free port]. Anything but a
    /// loopback address lets other machines reach the app (with its key): said at start
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<std::net::SocketAddr>,

    #[command(flatten)]
    pub store: StoreArgs,
}
