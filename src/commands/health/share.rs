//! `iomark health PATH --share URL`: the card's checks told to a results site, which says on the
//! device's page how many cards of its model are watched, for how long, and how many failed.
//! Opt-in, and the card's own: each site gets a key of the card's, made at the first share and
//! kept in its folder (`iomark-health/share.json`, readable by its owner alone) with the last
//! check the site acknowledged. Every check since then is sent at each share (oldest first, a
//! hundred at a time), so a share that failed is made good by the next. `--unshare URL`
//! withdraws the card from the site with its key, and forgets both.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::super::client::{answer, reason, request, server_url};
use super::super::destination::Destination;
use super::super::{say, with_store};
use crate::cli::HealthArgs;
use iomark_result::result::ResultDoc;
use iomark_site::answers;

/// The most checks, and bytes of them, sent in one request (the site takes 100 and 1 MiB).
const MOST: usize = 100;
const MOST_BYTES: usize = 512 << 10;

/// What a folder remembers of the sites its card is shared with.
#[derive(Default, Serialize, Deserialize)]
struct Shares {
    sites: Vec<Site>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Site {
    server: String,
    /// The card's key on this site: who holds it adds to the card or withdraws it.
    key: String,
    /// The newest check the site acknowledged.
    sent_up_to: Option<String>,
}

/// Where the card is shared, checked before the check: the site's address, and a folder to
/// keep the key in.
pub struct Share {
    server: String,
    file: PathBuf,
}

impl Share {
    pub fn settle(args: &HealthArgs, dir: &Path) -> anyhow::Result<Option<Share>> {
        let Some(url) = &args.share else {
            return Ok(None);
        };
        Ok(Some(Share {
            server: server_url("--share", url)?,
            file: file(dir),
        }))
    }

    /// Sends the card's checks the site has not acknowledged (this one last): how many the
    /// site took, in a line; an error names what failed, the checks kept to send next time.
    pub fn send(&self, args: &HealthArgs, dir: &Path, doc: &ResultDoc) -> anyhow::Result<()> {
        if doc.identity().device_key.is_none() {
            bail!(
                "--share: not shared: the disk under {} tells no model (a virtual disk, a loop \
                 device, a card behind a reader that hides it), so no site can say which cards \
                 it is among",
                dir.display()
            );
        }
        let mut shares = read(&self.file)?;
        let site = match shares.sites.iter().position(|s| s.server == self.server) {
            Some(i) => i,
            None => {
                let key = iomark_result::result::token::new_token()
                    .context("--share: cannot make the card's key")?;
                shares.sites.push(Site {
                    server: self.server.clone(),
                    key,
                    sent_up_to: None,
                });
                // Kept before it is first sent: a check the site took is always the key's.
                write(&self.file, &shares)?;
                shares.sites.len() - 1
            }
        };
        let path = dir.to_string_lossy();
        let saved = with_store(&args.result.store, async |s| {
            s.history().health_checks().await
        })?;
        let since = shares.sites[site].sent_up_to.clone();
        let unsent: Vec<ResultDoc> = this_cards(saved, &path, doc)
            .into_iter()
            .filter(|d| since.as_ref().is_none_or(|since| d.id > *since))
            .map(public)
            .collect();
        let installation = with_store(&args.result.store, async |s| {
            s.history().installation_key().await
        })?;
        let (mut added, mut url) = (0, None);
        for batch in batches(&unsent)? {
            let answer = post(
                &self.server,
                &shares.sites[site].key,
                &installation,
                &batch.1,
            )?;
            added += answer.added;
            url = Some(answer.url);
            shares.sites[site].sent_up_to = Some(batch.0);
            write(&self.file, &shares)?;
        }
        match url {
            Some(url) => say!(
                "Shared with {}: {added} new check(s); the card's model: {}",
                self.server,
                crate::output::printable(&url)
            )?,
            None => say!("Shared with {}: nothing new to send", self.server)?,
        }
        Ok(())
    }
}

/// `--unshare URL`: the card withdrawn from the site with its key, then forgotten here.
pub fn withdraw(url: &str, dir: &Path) -> anyhow::Result<()> {
    let server = server_url("--unshare", url)?;
    let file = file(dir);
    let mut shares = read(&file)?;
    let Some(site) = shares.sites.iter().position(|s| s.server == server) else {
        bail!(
            "--unshare: {} is not shared with {server} (no key for it in {})",
            dir.display(),
            file.display()
        );
    };
    let (status, text) = request(
        "DELETE",
        &format!("{server}/api/v1/card-health"),
        Some(&shares.sites[site].key),
        None,
    )
    .with_context(|| format!("--unshare: not withdrawn from {server}"))?;
    match status {
        200 => match answer::<answers::Withdrawn>(&text) {
            Some(withdrawn) => say!(
                "Withdrawn from {server}: its {} check(s) of this card are gone",
                withdrawn.checks
            )?,
            None => say!("Withdrawn from {server}: its checks of this card are gone")?,
        },
        404 => say!("{server} had no check of this card; its key is forgotten")?,
        _ => bail!(
            "--unshare: not withdrawn: {server} answered {status}: {}",
            reason(&text)
        ),
    }
    shares.sites.remove(site);
    write(&file, &shares)
}

/// The checks of the card in the folder now, oldest first, `doc` last (whether the store kept
/// it or not, `--no-save`): the store's checks of its path since the folder's first check. A
/// card that replaced another at the same path (a new card in the Pi, a folder made anew) is
/// a card of its own: the checks before are the other card's, and sent under this one's key
/// they were refused as another card's (409) at every share.
fn this_cards(saved: Vec<ResultDoc>, path: &str, doc: &ResultDoc) -> Vec<ResultDoc> {
    let mut checks: Vec<ResultDoc> = saved
        .into_iter()
        .filter(|d| d.target.path == path && d.id != doc.id)
        .collect();
    checks.sort_by(|a, b| a.id.cmp(&b.id));
    checks.push(doc.clone());
    let first = checks
        .iter()
        .rposition(|d| d.health.as_ref().is_none_or(|h| h.checks <= 1))
        .unwrap_or(0);
    checks.split_off(first)
}

fn file(dir: &Path) -> PathBuf {
    dir.join(iomark_core::health::folder::NAME)
        .join("share.json")
}

/// A check as it leaves the machine: without where it ran (the site keeps none), the home
/// folder written `~` wherever else it appears (a loop device's backing file).
fn public(doc: ResultDoc) -> ResultDoc {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut doc = doc.for_submission(home.as_deref());
    doc.target.path.clear();
    doc
}

/// The checks in requests the site takes: each with the id of its newest check.
fn batches(checks: &[ResultDoc]) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut batch: Vec<String> = Vec::new();
    let mut bytes = 0;
    for (i, doc) in checks.iter().enumerate() {
        let text = serde_json::to_string(doc)?;
        if !batch.is_empty() && (batch.len() == MOST || bytes + text.len() > MOST_BYTES) {
            out.push((checks[i - 1].id.clone(), format!("[{}]", batch.join(","))));
            batch.clear();
            bytes = 0;
        }
        bytes += text.len() + 1;
        batch.push(text);
    }
    if let Some(last) = checks.last() {
        out.push((last.id.clone(), format!("[{}]", batch.join(","))));
    }
    Ok(out)
}

fn post(
    server: &str,
    key: &str,
    installation: &str,
    body: &str,
) -> anyhow::Result<answers::CardReceipt> {
    let (status, text) = request(
        "POST",
        &format!("{server}/api/v1/card-health"),
        Some(key),
        Some((body, installation)),
    )
    .with_context(|| format!("--share: no answer from {server}: the checks stay here and the next --share sends them"))?;
    if status != 201 {
        bail!(
            "--share: {server} answered {status}: {} (the checks stay here, and the next --share sends them)",
            reason(&text)
        );
    }
    answer(&text).with_context(|| {
        format!(
            "--share: {server} answered 201 without a receipt: {} (the next --share sends the checks again)",
            super::super::client::one_line(&text)
        )
    })
}

/// The folder's shares; none where it has none yet. Only a regular file is read.
fn read(file: &Path) -> anyhow::Result<Shares> {
    match std::fs::symlink_metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Shares::default()),
        Err(e) => bail!("{}: {e}", file.display()),
        Ok(meta) if !meta.is_file() => bail!(
            "{} is not a regular file: it was left as it is",
            file.display()
        ),
        Ok(_) => {}
    }
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not what iomark keeps there", file.display()))
}

/// The shares written whole (beside, then renamed), readable by the owner alone.
fn write(file: &Path, shares: &Shares) -> anyhow::Result<()> {
    let destination = Destination::check("--share", file)?;
    destination.partial_path();
    destination.write(&serde_json::to_vec_pretty(shares)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder made anew at the same path (another card) starts the card's checks again: its
    /// first check and the ones after, never the other card's.
    #[test]
    fn a_cards_checks_begin_at_its_folders_first() {
        let check = |n: u32, checks: u64, path: &str| {
            let mut doc = iomark_result::result::sample::doc();
            doc.id = format!("01KCHECK{n:018}");
            doc.target.path = path.into();
            doc.health = Some(
                serde_json::from_value(serde_json::json!({
                    "verdict": "healthy", "sentence": "", "signals": [], "checks": checks,
                    "canary_bytes": 0, "canary_bad_bytes": 0, "canary_unreadable_bytes": 0,
                    "fresh_write_kept": true, "read_latency_us": null, "synced_write_ms": null,
                    "baseline_read_p99_us": null, "baseline_synced_write_p99_ms": null,
                    "budget_bytes": 0, "device_written_bytes": null,
                    "written_per_day_bytes": null, "direct": true
                }))
                .unwrap(),
            );
            doc
        };
        let saved = vec![
            check(1, 1, "/media/card"),
            check(2, 2, "/media/card"),
            check(3, 1, "/mnt/other"),
            check(4, 1, "/media/card"),
            check(5, 2, "/media/card"),
        ];
        let ids = |docs: Vec<ResultDoc>| docs.iter().map(|d| d.id.clone()).collect::<Vec<_>>();
        let now = check(6, 3, "/media/card");
        assert_eq!(
            ids(this_cards(saved.clone(), "/media/card", &now)),
            [4, 5, 6].map(|n| format!("01KCHECK{n:018}"))
        );
        // The first check of yet another card: itself alone.
        let fresh = check(7, 1, "/media/card");
        assert_eq!(
            ids(this_cards(saved, "/media/card", &fresh)),
            [format!("01KCHECK{:018}", 7)]
        );
    }
}
