//! `iomark serve`: the results site over a store (see `web/`).

use std::io::Write;

use crate::cli::ServeArgs;
use crate::store::{Pooling, Store};
use crate::web::{self, Config};

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let location = args.store.location().map_err(anyhow::Error::msg)?;
    let public_url = match &args.public_url {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            Some(url.trim_end_matches('/').to_string())
        }
        Some(url) => anyhow::bail!("--public-url: '{url}' is not an http:// or https:// URL"),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let store = Store::open_with(location.clone(), Pooling::SERVER).await?;
        let config = Config {
            listen: args.listen,
            public_url,
            submissions_per_minute: args.submissions_per_minute,
            requests_per_minute: args.requests_per_minute,
            show_synthetic: args.show_synthetic,
            cache: std::time::Duration::from_secs(args.cache_seconds.min(3600)),
            trust_forwarded_for: args.trust_forwarded_for,
        };
        web::serve(store, config, |address| {
            // One line, flushed: scripts and tests read the address from it.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "iomark serve: listening on http://{address} (store: {}); Ctrl-C stops",
                location.display(),
            );
            let _ = out.flush();
        })
        .await
        .map_err(|e| anyhow::anyhow!("cannot serve on {}: {e}", args.listen))?;
        Ok(())
    })
}
