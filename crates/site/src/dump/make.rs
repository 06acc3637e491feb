//! Making a dump: the store read a page at a time, the two files written on a thread of their
//! own under new names, synced, and put in place of the last dump's (see `mod.rs`).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::columns::{cell, CARD_COLUMNS, COLUMNS};
use super::{stored_name, DumpFile, Made, FILES, INDEX, MAKING, PAGE};
use crate::Shared;
use iomark_result::result::metric::METRICS;
use iomark_store::{Entry, PublicCheck};

/// Makes a dump of every public result now, in the dump folder, and says what it made.
pub async fn make(state: &Shared) -> Result<Made, String> {
    let dumps = &state.dumps;
    let made_at = iomark_result::result::now_rfc3339();
    let about = Heading {
        site: state.public_url.clone(),
        made_at: made_at.clone(),
        licence: dumps.licence.clone(),
    };
    // The store is read here, a page at a time; the files are written on a thread of their own.
    // A page, the end (`Ok(None)`), or why the dump stops; a dump whose end never comes (the
    // server stopped) is discarded.
    let (pages, mut taken) = tokio::sync::mpsc::channel::<Result<Option<Part>, String>>(2);
    let dir = dumps.dir.clone();
    let writer = tokio::task::spawn_blocking(move || {
        let mut files = Writing::begin(&dir, &about)?;
        let written = (|| loop {
            match taken.blocking_recv() {
                Some(Ok(Some(Part::Results(page)))) => files.add(&page)?,
                Some(Ok(Some(Part::Cards(page)))) => files.add_cards(&page)?,
                Some(Ok(None)) => return files.finish(&dir),
                Some(Err(e)) => return Err(e),
                None => return Err("the server stopped before the dump was whole".into()),
            }
        })();
        if written.is_err() {
            files.discard();
        }
        written
    });
    // The results, then the cards' shared health checks, a page at a time; then the end.
    let mut after = String::new();
    loop {
        let page = state
            .store
            .site()
            .documents_after(&after, PAGE, state.config.show_synthetic)
            .await;
        let Some(next) = send(
            &pages,
            page.map(|p| (p.last().map(|(e, _)| e.id.clone()), Part::Results(p))),
        )
        .await
        else {
            break;
        };
        after = next;
    }
    let mut after = String::new();
    loop {
        let page = state.store.cards().page_after(&after, PAGE.into()).await;
        let Some(next) = send(
            &pages,
            page.map(|p| (p.last().map(|c| c.id.clone()), Part::Cards(p))),
        )
        .await
        else {
            break;
        };
        after = next;
    }
    let _ = pages.send(Ok(None)).await;
    drop(pages);
    let (sizes, results, card_checks) = writer
        .await
        .map_err(|e| format!("the dump's writer stopped: {e}"))??;
    let made = Made {
        made_at,
        every_seconds: dumps.every.as_secs(),
        results,
        card_checks,
        licence: dumps.licence.clone(),
        patched_at: None,
        files: FILES
            .iter()
            .zip(sizes)
            .map(|(name, (bytes, sha256))| DumpFile {
                name: name.to_string(),
                path: super::served_path(name, &sha256),
                bytes,
                sha256,
            })
            .collect(),
    };
    let index = serde_json::to_vec_pretty(&made).map_err(|e| e.to_string())?;
    let dir = dumps.dir.clone();
    let new: Vec<String> = made.files.iter().map(DumpFile::stored).collect();
    tokio::task::spawn_blocking(move || {
        // Once the index is put, the files it names are kept and so are the last dump's (a
        // download begun from its index ends whole), and those before go; where it could not
        // be put, the new files go and the last dump's stay.
        let last = named_by_index(&dir);
        let put = put(&dir, INDEX, &index);
        let kept = match put {
            Ok(()) => new.into_iter().chain(last).collect(),
            Err(_) => last,
        };
        remove_others(&dir, &kept);
        put
    })
    .await
    .map_err(|e| e.to_string())??;
    Ok(made)
}

/// The files the index in `dir` names, as they are kept (none where it is missing, unreadable
/// or not a regular file).
pub(super) fn named_by_index(dir: &Path) -> Vec<String> {
    let index = dir.join(INDEX);
    std::fs::symlink_metadata(&index)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(&index).ok())
        .and_then(|text| serde_json::from_slice::<Made>(&text).ok())
        .map(|made| made.files.iter().map(DumpFile::stored).collect())
        .unwrap_or_default()
}

/// Removes the files of every dump but those whose files are `kept`: regular files named
/// as a dump's files are (and, from before files were named by their content, at the names
/// they are served as); links and the rest stay untouched.
pub(super) fn remove_others(dir: &Path, kept: &[String]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let a_dumps = FILES.iter().any(|file| {
            name == *file
                || name
                    .strip_suffix(file)
                    .and_then(|s| s.strip_suffix('-'))
                    .is_some_and(|hash| {
                        hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
                    })
        });
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if a_dumps && regular && !kept.contains(&name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Results with their documents, as the store gives them a page at a time.
type Page = Vec<(Entry, String)>;

/// What the writer is given: a page of results or of shared checks.
enum Part {
    Results(Page),
    Cards(Vec<PublicCheck>),
}

/// A page sent to the writer: the id to read after next, or none where the pages are done
/// (an empty one), the store failed (the writer is told why) or the writer stopped.
async fn send<E: std::fmt::Display>(
    pages: &tokio::sync::mpsc::Sender<Result<Option<Part>, String>>,
    page: Result<(Option<String>, Part), E>,
) -> Option<String> {
    match page {
        Ok((Some(next), part)) => pages.send(Ok(Some(part))).await.ok().map(|()| next),
        Ok((None, _)) => None,
        Err(e) => {
            let _ = pages.send(Err(e.to_string())).await;
            None
        }
    }
}

/// What a dump's first line says of it.
#[derive(Serialize)]
struct Heading {
    site: String,
    made_at: String,
    licence: String,
}

/// The bytes written to a file and their SHA-256, as they pass.
pub(super) struct Counted {
    file: File,
    hash: Sha256,
    bytes: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

pub(super) type Gz = GzEncoder<BufWriter<Counted>>;

/// A dump being written: its two files under names of their own.
struct Writing {
    temps: Vec<PathBuf>,
    lines: Option<Gz>,
    table: Option<csv::Writer<Gz>>,
    cards: Option<csv::Writer<Gz>>,
    results: u64,
    checks: u64,
}

impl Writing {
    fn begin(dir: &Path, about: &Heading) -> Result<Writing, String> {
        let mut writing = Writing {
            temps: Vec::new(),
            lines: None,
            table: None,
            cards: None,
            results: 0,
            checks: 0,
        };
        let opened = (|| {
            let mut lines = writing.create(dir, FILES[0])?;
            let heading = serde_json::json!({ "iomark_dump": "results", "about": about,
                "then": "one result document (iomark.result/1) per line" });
            writeln!(lines, "{heading}").map_err(|e| e.to_string())?;
            let mut table = writing.create(dir, FILES[1])?;
            writeln!(
                table,
                "# iomark results from {}, made {}; licence: {}",
                about.site, about.made_at, about.licence
            )
            .map_err(|e| e.to_string())?;
            let mut table = csv::Writer::from_writer(table);
            let head = COLUMNS.iter().map(|(name, _)| *name);
            table
                .write_record(head.chain(METRICS.iter().map(|m| m.column)))
                .map_err(|e| e.to_string())?;
            let mut cards = writing.create(dir, FILES[2])?;
            writeln!(
                cards,
                "# iomark cards' health checks shared with {}, made {}; licence: {}",
                about.site, about.made_at, about.licence
            )
            .map_err(|e| e.to_string())?;
            let mut cards = csv::Writer::from_writer(cards);
            cards
                .write_record(CARD_COLUMNS)
                .map_err(|e| e.to_string())?;
            writing.lines = Some(lines);
            writing.table = Some(table);
            writing.cards = Some(cards);
            Ok(())
        })();
        match opened {
            Ok(()) => Ok(writing),
            Err(e) => {
                writing.discard();
                Err(e)
            }
        }
    }

    /// A new file of ours in `dir`, to be renamed to `name` once whole.
    fn create(&mut self, dir: &Path, name: &str) -> Result<Gz, String> {
        let (temp, gz) = temp_file(dir, name)?;
        self.temps.push(temp);
        Ok(gz)
    }

    fn add(&mut self, page: &[(Entry, String)]) -> Result<(), String> {
        let (Some(lines), Some(table)) = (self.lines.as_mut(), self.table.as_mut()) else {
            return Err("the dump's files are closed".into());
        };
        for (entry, document) in page {
            // A document kept over several lines is put on one.
            if document.contains('\n') {
                let value: serde_json::Value =
                    serde_json::from_str(document).map_err(|e| format!("{}: {e}", entry.id))?;
                writeln!(lines, "{value}")
            } else {
                writeln!(lines, "{document}")
            }
            .map_err(|e| format!("{}: {e}", FILES[0]))?;
            let facts = COLUMNS.iter().map(|(_, cell)| cell(entry));
            let figures = METRICS.iter().map(|m| {
                entry
                    .figures
                    .get(m.column)
                    .map(|v| v.to_string())
                    .unwrap_or_default()
            });
            table
                .write_record(facts.chain(figures))
                .map_err(|e| format!("{}: {e}", FILES[1]))?;
            self.results += 1;
        }
        Ok(())
    }

    /// A page of shared health checks, a row each: the card by its key's hash (so a card's
    /// checks can be followed), never who shared it.
    fn add_cards(&mut self, page: &[PublicCheck]) -> Result<(), String> {
        let cards = self.cards.as_mut().ok_or("the dump's files are closed")?;
        for c in page {
            let at = iomark_result::result::unix_rfc3339(c.checked_s.max(0) as u64);
            let written = c.written_total.map(|w| w.to_string()).unwrap_or_default();
            let (card, device, name) = (cell(&c.card), cell(&c.device_key), cell(&c.device_name));
            cards
                .write_record([
                    c.id.as_str(),
                    &card,
                    &device,
                    &name,
                    &at,
                    c.verdict.as_str(),
                    &written,
                ])
                .map_err(|e| format!("{}: {e}", FILES[2]))?;
            self.checks += 1;
        }
        Ok(())
    }

    /// Each file whole and synced, then named by its content beside the last dump's: their
    /// sizes and hashes, and how many results they hold.
    fn finish(&mut self, dir: &Path) -> Result<Written, String> {
        let lines = self.lines.take().ok_or("the dump's files are closed")?;
        let table = self.table.take().ok_or("the dump's files are closed")?;
        let table = table.into_inner().map_err(|e| e.error().to_string())?;
        let cards = self.cards.take().ok_or("the dump's files are closed")?;
        let cards = cards.into_inner().map_err(|e| e.error().to_string())?;
        let mut sizes = Vec::new();
        for (gz, name) in [lines, table, cards].into_iter().zip(FILES) {
            sizes.push(finished(gz, name)?);
        }
        let stored: Vec<PathBuf> = sizes
            .iter()
            .zip(FILES)
            .map(|((_, sha256), name)| dir.join(stored_name(name, sha256)))
            .collect();
        // Every target is looked at before any is put in place: a link at the second name
        // would otherwise be found with the first file put already.
        for target in &stored {
            replaceable(target)?;
        }
        for (temp, target) in self.temps.clone().iter().zip(&stored) {
            replace(temp, target)?;
        }
        self.temps.clear();
        sync_dir(dir);
        Ok((sizes, self.results, self.checks))
    }

    /// Removes what was written; the last dump stays as it was.
    fn discard(&mut self) {
        self.lines = None;
        self.table = None;
        self.cards = None;
        for temp in self.temps.drain(..) {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// A new file of ours in `dir` (its name, and it as gzip counted as it is written), to be
/// renamed to `name`'s stored name once whole.
pub(super) fn temp_file(dir: &Path, name: &str) -> Result<(PathBuf, Gz), String> {
    let temp = dir.join(format!(
        "{MAKING}{}-{:x}-{name}",
        std::process::id(),
        iomark_os::rng::Rng::from_entropy().next_u64()
    ));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&temp)
        .map_err(|e| format!("{}: {e}", temp.display()))?;
    let counted = Counted {
        file,
        hash: Sha256::new(),
        bytes: 0,
    };
    let gz = GzEncoder::new(
        BufWriter::with_capacity(1 << 16, counted),
        flate2::Compression::default(),
    );
    Ok((temp, gz))
}

/// `gz` finished and synced: its size and SHA-256.
pub(super) fn finished(gz: Gz, name: &str) -> Result<(u64, String), String> {
    let fail = |e: std::io::Error| format!("{name}: {e}");
    let counted = gz
        .finish()
        .map_err(fail)?
        .into_inner()
        .map_err(|e| fail(e.into_error()))?;
    counted.file.sync_all().map_err(fail)?;
    Ok((counted.bytes, hex(&counted.hash.finalize())))
}

/// What a dump's writer made: each file's size and SHA-256, and how many results and shared
/// checks they hold.
type Written = (Vec<(u64, String)>, u64, u64);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Renames `temp` to `target`, which must be absent or a regular file (never a link, a folder
/// or a device someone put there).
pub(super) fn replace(temp: &Path, target: &Path) -> Result<(), String> {
    replaceable(target)?;
    std::fs::rename(temp, target).map_err(|e| format!("{}: {e}", target.display()))
}

/// Whether a dump may be put at `target`: nothing is there, or a regular file is.
pub(super) fn replaceable(target: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(target) {
        Ok(meta) if !meta.is_file() => Err(format!(
            "{} is not a regular file: no dump is put in its place",
            target.display()
        )),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `name` in `dir` through a new file, synced and renamed.
pub(super) fn put(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let temp = dir.join(format!("{MAKING}{}-{name}", std::process::id()));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    let done = written
        .map_err(|e| format!("{}: {e}", temp.display()))
        .and_then(|()| replace(&temp, &dir.join(name)));
    if done.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    sync_dir(dir);
    done
}

/// The folder's own entry synced, so that a rename outlives a power cut.
pub(super) fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}
