//! `iomark store`: looking after the result store. `backup` copies a SQLite store while it is
//! in use (one consistent snapshot), checks the copy, and only then puts it at the file named.

use anyhow::Context;

use super::destination::Destination;
use super::{say, with_store};
use crate::cli::BackupArgs;
use iomark_store::Location;

pub fn backup(args: &BackupArgs) -> anyhow::Result<()> {
    let from = args.store.location().map_err(anyhow::Error::msg)?;
    if let Location::Postgres(_) = from {
        anyhow::bail!(
            "{} is on PostgreSQL: back it up with pg_dump -Fc -f FILE URL (pg_restore brings it back)",
            from.display()
        );
    }
    let destination = Destination::check("FILE", &args.file)?;
    let Some(partial) = destination.partial_path().map(|p| p.to_path_buf()) else {
        anyhow::bail!(
            "FILE: {} is not a regular file of yours: a backup goes in a file of its own",
            args.file.display()
        );
    };
    if same_file(&from, &args.file) {
        anyhow::bail!("FILE: {} is the store itself", args.file.display());
    }
    with_store(&args.store, async |s| {
        s.history().backup_into(&partial).await
    })
    .with_context(|| format!("no backup was made; {} is as it was", args.file.display()))?;
    let copy = crate::cli::StoreArgs {
        db: Some(Location::Sqlite(partial.clone())),
    };
    let results = with_store(&copy, async |s| s.history().check().await).with_context(|| {
        format!(
            "the copy did not check out; {} is as it was",
            args.file.display()
        )
    })?;
    let bytes = std::fs::metadata(&partial).map(|m| m.len()).unwrap_or(0);
    destination.finish()?;
    say!(
        "Backed up {results} results from {} to {} ({:.1} MB), checked.",
        from.display(),
        args.file.display(),
        bytes as f64 / 1e6
    )?;
    Ok(())
}

/// Whether `file` is the store's own file (copying a store over itself would destroy it).
fn same_file(store: &Location, file: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Location::Sqlite(path) = store else {
        return false;
    };
    match (std::fs::metadata(path), std::fs::metadata(file)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
