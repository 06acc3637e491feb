//! `iomark ui`: the local app (`iomark_app`, `crates/app/`) on a free port of 127.0.0.1, opened in
//! the desktop's browser with its one-time key, until Ctrl-C. The key never stands on a command
//! line, where every user of the machine reads it (`ps`): the browser is given a file only this
//! user can read, which carries it on to the app, as notebook servers do.

use std::path::PathBuf;

use anyhow::Context;

use crate::cli::UiArgs;
use iomark_app::{self as ui, Config};
use iomark_store::{Location, Pooling, Store};

pub fn run(args: &UiArgs) -> anyhow::Result<()> {
    let location = args.store.location().map_err(anyhow::Error::msg)?;
    let listen = args
        .listen
        .unwrap_or_else(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    let listener = std::net::TcpListener::bind(listen)
        .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
    if !listen.ip().is_loopback() {
        super::note!(
            "Warning: --listen {listen} lets other machines reach this app (with its key, over \
             plain HTTP): use it only on a network you trust"
        );
    }
    let secret = iomark_result::result::token::new_token().context("cannot make the app's key")?;
    let exe = std::env::current_exe().context("cannot find iomark's own program")?;
    let work = work_folder()?;
    let config = Config {
        exe,
        db: args.store.db.as_ref().map(db_arg),
        secret: secret.clone(),
        work: work.clone(),
        idle: (!args.idle_stop.is_zero()).then_some(args.idle_stop),
    };
    let no_open = args.no_open;
    let opener = work.join("open.html");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = runtime.block_on(async move {
        let store = Store::open_with(location, Pooling::COMMAND).await?;
        ui::serve(store, listener, config, |address| {
            let url = format!("http://{address}/?key={secret}");
            let _ = super::say!("iomark ui: {url} (Ctrl-C stops it)");
            if !desktop() && address.ip().is_loopback() {
                elsewhere(address.port());
            }
            if !no_open {
                open(&opener, &url);
            }
        })
        .await
        .context("the app stopped")
    });
    if let Ok(true) = served {
        // Said where it can be: a menu's app may have no one reading its output.
        let _ = super::say!(
            "iomark ui: stopped after {} without a visit",
            crate::output::progress::short_duration(args.idle_stop)
        );
    }
    let served = served.map(|_| ());
    let _ = std::fs::remove_dir_all(&work);
    served
}

/// Whether there is a desktop here to open a browser on.
fn desktop() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// On a machine without a desktop (most Pis), how to use the app from the computer beside
/// it: an SSH tunnel to the same port (the app answers only its own port, on this machine's
/// loopback), then the address above in that computer's browser.
fn elsewhere(port: u16) {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "you".into());
    let host = super::health::tell::hostname();
    let _ = super::say!(
        "From another computer: ssh -N -L {port}:127.0.0.1:{port} {user}@{host}\n\
         then open the address above in its browser (or start this with --listen ADDRESS:PORT \
         on a network you trust)."
    );
}

/// Opens `url` in the desktop's browser, where there is a desktop and `xdg-open`: through
/// `file`, a page only this user can read that sends the browser on to `url`, so that the key
/// is on no command line. `xdg-open` is waited for (on a thread of its own), never left a
/// zombie for the app's life.
fn open(file: &std::path::Path, url: &str) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if !desktop() {
        let _ =
            super::say!("No desktop here: open the address above in a browser on this machine.");
        return;
    }
    let page = format!(
        "<!DOCTYPE html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" content=\"0;url={url}\">\n\
         <title>iomark</title>\n<p><a href=\"{url}\">Open iomark</a></p>\n"
    );
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file)
        .and_then(|mut f| f.write_all(page.as_bytes()));
    if let Err(e) = written {
        let _ = super::say!(
            "Could not write {} ({e}): open the address above in a browser.",
            file.display()
        );
        return;
    }
    let opened = std::process::Command::new("xdg-open")
        .arg(file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match opened {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(_) => {
            let _ = super::say!("Could not start xdg-open: open the address above in a browser.");
        }
    }
}

/// `--db` as a child is given it.
fn db_arg(location: &Location) -> String {
    match location {
        Location::Sqlite(path) => path.to_string_lossy().into_owned(),
        Location::Postgres(url) => url.clone(),
    }
}

/// A folder of the app's own for the runs' documents, readable by its owner alone.
fn work_folder() -> anyhow::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let work = base.join(format!("iomark-ui-{}", std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&work)
        .with_context(|| format!("cannot make {}", work.display()))?;
    Ok(work)
}
