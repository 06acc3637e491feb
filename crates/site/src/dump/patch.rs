//! A dump less the results that left the store since it was made (issue 59): the last dump's
//! files read again, each result deleted or hidden since left out, written under new names
//! and put in place as a dump's files are (`make.rs`), the index last. The store is read for
//! the ids alone (`Site::buried_since`); the cards' file stays as it was.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use flate2::read::GzDecoder;

use super::make::{finished, put, remove_others, replace, replaceable, sync_dir, temp_file};
use super::{DumpFile, Made, FILES, INDEX};
use crate::Shared;

/// The last dump, `last`, patched: what it now holds.
pub async fn patch(state: &Shared, last: Made) -> Result<Made, String> {
    // Taken before the store is read: a result that leaves after it is taken out next time.
    let patched_at = iomark_result::result::now_rfc3339();
    let since = last
        .patched_at
        .clone()
        .unwrap_or_else(|| last.made_at.clone());
    let gone: HashSet<String> = state
        .store
        .site()
        .buried_since(&since)
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .collect();
    let dir = state.dumps.dir.clone();
    tokio::task::spawn_blocking(move || without(&dir, last, &gone, patched_at))
        .await
        .map_err(|e| format!("the dump's patch stopped: {e}"))?
}

/// `last`'s files in `dir` written again without the results in `gone`, put in place with a
/// new index.
fn without(
    dir: &Path,
    last: Made,
    gone: &HashSet<String>,
    patched_at: String,
) -> Result<Made, String> {
    let last_files = last.files.clone();
    let mut files = Vec::new();
    let mut temps = Vec::new();
    let mut removed = 0;
    let written = (|| {
        for file in &last.files {
            let kept = match file.name.as_str() {
                name if name == FILES[0] || name == FILES[1] => {
                    let (temp, made, left_out) = rewrite(dir, file, gone)?;
                    temps.push((temp, dir.join(made.stored())));
                    if name == FILES[0] {
                        removed = left_out;
                    }
                    made
                }
                _ => file.clone(),
            };
            files.push(kept);
        }
        Ok::<(), String>(())
    })();
    if let Err(e) = written {
        for (temp, _) in &temps {
            let _ = std::fs::remove_file(temp);
        }
        return Err(e);
    }
    for (_, target) in &temps {
        replaceable(target)?;
    }
    for (temp, target) in &temps {
        replace(temp, target)?;
    }
    sync_dir(dir);
    let made = Made {
        results: last.results.saturating_sub(removed),
        patched_at: Some(patched_at),
        files,
        ..last
    };
    let index = serde_json::to_vec_pretty(&made).map_err(|e| e.to_string())?;
    put(dir, INDEX, &index)?;
    // The files it replaced stay until the next dump or patch: a download begun from the
    // last index ends whole.
    let kept = made.files.iter().chain(&last_files).map(DumpFile::stored);
    remove_others(dir, &kept.collect::<Vec<_>>());
    Ok(made)
}

/// One file written again without the results in `gone`: its new file (under a temporary
/// name), what the index says of it, and how many results it left out. A line of the JSON
/// lines is a result by its `"id"`; a row of the CSV by its first cell; the lines about the
/// dump and the CSV's header stay.
fn rewrite(
    dir: &Path,
    file: &DumpFile,
    gone: &HashSet<String>,
) -> Result<(std::path::PathBuf, DumpFile, u64), String> {
    #[derive(serde::Deserialize)]
    struct Id {
        id: String,
    }
    let name = file.name.as_str();
    let source =
        std::fs::File::open(dir.join(file.stored())).map_err(|e| format!("{name}: {e}"))?;
    let (temp, mut out) = temp_file(dir, name)?;
    let mut left_out = 0;
    let outcome = (|| {
        let lines = BufReader::new(GzDecoder::new(source));
        let fail = |e: &dyn std::fmt::Display| format!("{name}: {e}");
        for line in lines.lines() {
            let line = line.map_err(|e| fail(&e))?;
            // A result's line by its id: the JSON's `"id"`, the CSV's first cell (an id holds
            // no comma or quote, and no cell a line's end: a document's texts hold no control
            // character). The lines about the dump and the CSV's header have none of `gone`.
            let id = match name == FILES[0] {
                true => serde_json::from_str::<Id>(&line).ok().map(|r| r.id),
                false => line.split(',').next().map(str::to_string),
            };
            if id.is_some_and(|id| gone.contains(&id)) {
                left_out += 1;
                continue;
            }
            writeln!(out, "{line}").map_err(|e| fail(&e))?;
        }
        finished(out, name)
    })();
    match outcome {
        Ok((bytes, sha256)) => {
            let made = DumpFile {
                name: name.to_string(),
                path: super::served_path(name, &sha256),
                bytes,
                sha256,
            };
            Ok((temp, made, left_out))
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}
