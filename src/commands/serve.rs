//! `iomark serve`: the results site over a store (see `crates/site/`).

use std::io::Write;

use crate::cli::{LogArg, ServeArgs};
use iomark_site::{self as web, Config};
use iomark_store::{Pooling, Store};

/// Why a port could not be bound, in words that say what to do.
fn plainly_bind(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => {
            "the address is in use (another server listens there: stop it or choose --listen)"
                .into()
        }
        std::io::ErrorKind::PermissionDenied => {
            "permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)".into()
        }
        std::io::ErrorKind::AddrNotAvailable => {
            "no interface of this machine has that address".into()
        }
        _ => error.to_string(),
    }
}

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let location = args.store.location().map_err(anyhow::Error::msg)?;
    // Before anything is made (a store, its log, the dump folder): a port in use is said first.
    let listener = std::net::TcpListener::bind(args.listen)
        .map_err(|e| anyhow::anyhow!("cannot serve on {}: {}", args.listen, plainly_bind(&e)))?;
    let public_url = match &args.public_url {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            Some(url.trim_end_matches('/').to_string())
        }
        Some(url) => anyhow::bail!("--public-url: '{url}' is not an http:// or https:// URL"),
        None => None,
    };
    let admin_token = args
        .admin_token_file
        .as_deref()
        .map(admin_token)
        .transpose()?;
    let dump_dir = match &args.dump_dir {
        Some(dir) => dir.clone(),
        None => iomark_os::dirs::xdg("XDG_DATA_HOME", ".local/share")
            .map_err(|e| anyhow::anyhow!("--dump-dir: {e}: name the folder"))?
            .join("dump"),
    };
    web::install_log(match args.log {
        LogArg::Text => web::Log::Text,
        LogArg::Json => web::Log::Json,
        LogArg::Quiet => web::Log::Quiet,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(match args.workers {
            Some(n) => n.into(),
            None => std::thread::available_parallelism().map_or(2, |n| n.get()),
        })
        .enable_all()
        .build()?;
    let served = runtime.block_on(async move {
        let store = Store::open_with(location.clone(), Pooling::SERVER)
            .await?
            .with_replicas(&args.read_db, Pooling::SERVER, args.read_db_max_lag)
            .await?
            .refreshing_inline_up_to(args.refresh_inline_up_to.max(0));
        let config = Config {
            listen: args.listen,
            public_url,
            submissions_per_minute: args.submissions_per_minute,
            requests_per_minute: args.requests_per_minute,
            show_synthetic: args.show_synthetic,
            cache: std::time::Duration::from_secs(args.cache_seconds.min(3600)),
            trust_forwarded_for: args.trust_forwarded_for,
            admin_token,
            data_licence: args.data_licence.clone(),
            dump_dir,
            dump_every: args.dump_every,
            standing_sample: args.standing_sample.max(1),
            // Your own history's results were saved on this machine, not sent by strangers.
            corroboration: args.corroboration.unwrap_or(if args.store.db.is_none() {
                1
            } else {
                2
            }),
        };
        web::serve(store, listener, config, |address| {
            // One line, flushed: scripts and tests read the address from it.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "iomark serve: listening on http://{address} (store: {}{}); Ctrl-C stops",
                location.display(),
                match args.read_db.len() {
                    0 => String::new(),
                    1 => ", reading from 1 replica".to_string(),
                    n => format!(", reading from {n} replicas"),
                },
            );
            let _ = out.flush();
        })
        .await
        .map_err(|e| anyhow::anyhow!("cannot serve on {}: {e}", args.listen))?;
        Ok(())
    });
    // A drawing cut off at the stop (web::DRAIN) is not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// The moderators' secret from `path`: refused where others could read it or guess it.
fn admin_token(path: &std::path::Path) -> anyhow::Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let meta =
        std::fs::metadata(path).map_err(|e| anyhow::anyhow!("--admin-token-file: {shown}: {e}"))?;
    if !meta.is_file() {
        anyhow::bail!("--admin-token-file: {shown} is not a regular file");
    }
    if meta.permissions().mode() & 0o077 != 0 {
        anyhow::bail!(
            "--admin-token-file: {shown} can be read by others than its owner (chmod 600 it)"
        );
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("--admin-token-file: {shown}: {e}"))?;
    let token = text.trim();
    if token.chars().count() < 32 || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        anyhow::bail!(
            "--admin-token-file: {shown} must hold one secret of at least 32 characters, no spaces"
        );
    }
    Ok(token.to_string())
}
