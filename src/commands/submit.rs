//! `iomark submit`: sends a saved run to a results site, after showing what leaves the
//! machine, and keeps the receipt (address and deletion token) in the local store; with
//! `--delete`, deletes it there with that token.

use std::io::IsTerminal;
use std::time::Duration;

use super::client::{answer, one_line, reason, request, server_url};
use super::{ask, say, with_store};
use crate::cli::SubmitArgs;
use crate::output::printable;
use anyhow::{bail, Context};
use iomark_result::result::{now_rfc3339, ResultDoc};
use iomark_site::answers;
use iomark_store::Receipt;
use iomark_store::StoreError;

pub fn run(args: &SubmitArgs) -> anyhow::Result<()> {
    let server = server_url("--server", &args.server)?;
    if args.delete {
        return delete(args, &server);
    }
    let (doc, short) = with_store(&args.store, async |s| {
        let doc = s.history().get(&args.id).await?;
        let short = super::short_id(s, &doc.id).await;
        Ok((doc, short))
    })?;
    let public = public_copy(args, &doc)?;
    let body = serde_json::to_string_pretty(&public)?;
    let removed = removed(&doc, &public);
    if args.dry_run {
        say!("{body}")?;
        super::note!(
            "Dry run: nothing was sent. This is the whole document `iomark submit {short} --server {server}` would send."
        );
        if !removed.is_empty() {
            super::note!("{}", removed.join("\n"));
        }
        return Ok(());
    }
    say!("{}", describe(&public, &server, body.len()))?;
    if !removed.is_empty() {
        say!("{}", removed.join("\n"))?;
    }
    if !args.yes && !confirmed()? {
        say!("Not sent.")?;
        return Ok(());
    }
    // The deletion token is ours, sent with the result: if the answer is lost on the way
    // (a dropped connection, a proxy's error), the same submission is sent again with it, and
    // a site that saved the first answers with the same receipt.
    let token =
        iomark_result::result::token::new_token().context("cannot make a deletion token")?;
    let installation = with_store(&args.store, async |s| s.history().installation_key().await)?;
    let sent = Sent {
        token: &token,
        installation: &installation,
    };
    let (status, text) = post_until_answered(&server, &body, sent).with_context(|| {
        format!(
            "no answer from {server} in {TRIES} tries: the result stays in your store, and the \
             site may or may not have it"
        )
    })?;
    if status == 409 {
        // Sent before: by hand, or from another machine's store (a lost answer to this
        // submission would have been answered with its receipt).
        bail!(
            "{server} has result {} already, from an earlier submission: {server}/results/{}; \
             without that submission's receipt only the site's moderators can delete it",
            public.id,
            public.id
        );
    }
    if status != 201 {
        bail!(
            "not submitted (the result stays in your store): {server} answered {status}: {}",
            reason(&text)
        );
    }
    let Some(answer) = answer::<answers::Receipt>(&text) else {
        bail!(
            "not submitted: {server} answered without a receipt: {}",
            one_line(&text)
        );
    };
    if !super::client::a_receipt(&answer.url, &answer.token, &token) {
        bail!(
            "{server} answered 201 with a receipt that is none (its address is no web \
             address, or its token is not the one sent): the result stays in your store, and \
             the site may or may not have it"
        );
    }
    let (url, token) = (answer.url.clone(), answer.token.clone());
    let receipt = Receipt {
        id: public.id.clone(),
        server: server.clone(),
        url: url.clone(),
        token: token.clone(),
        submitted_at: now_rfc3339(),
    };
    let kept = with_store(&args.store, async |s| {
        s.history().record_receipt(&receipt).await
    });
    say!("Submitted {}", public.id)?;
    // What the site was told the device is (issue 44: `--model` was not named back).
    if let Some(model) = &public.sold_as {
        say!("as: {}", printable(model))?;
    }
    say!("url: {url}")?;
    say!("token: {token}")?;
    if let Some(flag) = &answer.flag {
        say!("Kept out of the rankings: {}", printable(flag))?;
    }
    if let Some(standing) = &answer.standing {
        print_standing(standing, &server)?;
    }
    match kept {
        Ok(()) => say!(
            "The token is kept in your store: `iomark submit --delete {short} --server {server}` deletes the result there."
        )?,
        Err(e) => super::note!("Warning: the receipt could not be kept ({e}): note the token above to delete the result later."),
    }
    Ok(())
}

/// The document as it will leave the machine: less what could point at its owner, with what
/// the device is sold as (`--model`, or asked for when a card names itself only by a code).
fn public_copy(args: &SubmitArgs, doc: &ResultDoc) -> anyhow::Result<ResultDoc> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let mut public = doc.for_submission(home.as_deref());
    if args.model.is_some() {
        public.sold_as = args.model.clone();
    }
    let code_only = public.sold_as.is_none() && public.named_by_code();
    if code_only && !args.yes && !args.dry_run && std::io::stdin().is_terminal() {
        public.sold_as = ask_sold_as(&public)?;
    } else if code_only {
        super::note!(
            "Note: the card names itself only '{}' (a code in its registers), which nobody \
             searches for: --model \"…\" says what it is sold as.",
            printable(&public.identity().device_name)
        );
    }
    Ok(public)
}

/// Asks whether to send; with nobody at a terminal to answer, refuses rather than sends.
fn confirmed() -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("not sent: nobody can answer the question here; give --yes to send without asking");
    }
    ask!("Send it? [y/N] ")?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

/// Where it stands, as the site says it: a sentence per ranked figure, and its advice.
fn print_standing(standing: &answers::Standing, server: &str) -> anyhow::Result<()> {
    if !standing.figures.is_empty() {
        say!("Where it stands on {server}:")?;
        for figure in &standing.figures {
            say!("  {}", printable(&figure.sentence))?;
        }
        if let Some(advice) = &standing.advice {
            say!("{}", printable(advice))?;
        }
    }
    Ok(())
}

fn delete(args: &SubmitArgs, server: &str) -> anyhow::Result<()> {
    // The run may be gone from the local store: then the id is taken as given.
    let id = match with_store(&args.store, async |s| s.history().resolve(&args.id).await) {
        Ok(id) => id,
        Err(StoreError::NotFound(_)) => args.id.trim().to_ascii_uppercase(),
        Err(e) => return Err(e.into()),
    };
    let receipts = with_store(&args.store, async |s| s.history().receipts(&id).await)?;
    let Some(receipt) = receipts.into_iter().find(|r| r.server == server) else {
        bail!("no receipt for {id} from {server} in this store: it was not submitted from here, or with another --db");
    };
    let url = format!("{server}/api/v1/results/{}", receipt.id);
    let (status, text) = request("DELETE", &url, Some(&receipt.token), None)
        .with_context(|| format!("not deleted: {server}"))?;
    match status {
        200 | 404 => {
            with_store(&args.store, async |s| {
                s.history().forget_receipt(&id, server).await
            })?;
            if status == 200 {
                say!("Deleted {id} from {server}")?;
            } else {
                say!("{server} no longer has {id}; its receipt is forgotten")?;
            }
            Ok(())
        }
        _ => bail!("not deleted: {server} answered {status}: {}", reason(&text)),
    }
}

/// What the card is sold as, asked of the person at the terminal; None if they leave it out.
fn ask_sold_as(doc: &ResultDoc) -> anyhow::Result<Option<String>> {
    say!(
        "The card names itself only '{}' (a code in its registers), which nobody searches for.",
        printable(&doc.identity().device_name)
    )?;
    loop {
        ask!("What is it sold as? e.g. SanDisk Extreme 64GB A2 (Enter to leave it out): ")?;
        let mut answer = String::new();
        if std::io::stdin().read_line(&mut answer)? == 0 {
            say!()?;
            return Ok(None);
        }
        let answer = answer.trim();
        if answer.is_empty() {
            return Ok(None);
        }
        match iomark_result::result::check_sold_as(answer) {
            Ok(()) => return Ok(Some(answer.to_string())),
            Err(e) => say!("{e}.")?,
        }
    }
}

/// The submission sent, and sent again (up to [`TRIES`] times, with the same token) while no
/// answer comes or a proxy answers that the site did not: the status and text of the answer.
fn post_until_answered(server: &str, body: &str, sent: Sent) -> anyhow::Result<(u16, String)> {
    let url = format!("{server}/api/v1/results");
    let mut tries = 1;
    loop {
        let answer = request(
            "POST",
            &url,
            Some(sent.token),
            Some((body, sent.installation)),
        );
        let problem = match &answer {
            Ok((status @ (502..=504), text)) => format!("it answered {status}: {}", one_line(text)),
            Err(e) => format!("{e:#}"),
            Ok(_) => return answer,
        };
        if tries == TRIES {
            return answer;
        }
        super::note!("No answer from {server} ({problem}): sending it again with the same token.");
        std::thread::sleep(Duration::from_secs(tries));
        tries += 1;
    }
}

/// How many times a submission is sent before giving up.
const TRIES: u64 = 3;

/// What goes with a submission: its deletion token, and this installation's key (by which a
/// site counts this store's results as one submitter's, `History::installation_key`).
#[derive(Clone, Copy)]
struct Sent<'s> {
    token: &'s str,
    installation: &'s str,
}

/// What the public copy left out or rewrote, as the sender is shown it before anything is sent
/// (the fifth attack pass: a share's `username=` and `domain=` were dropped unsaid): a mount
/// option by its name, a text as it was and as it goes. Nothing when nothing changed.
fn removed(doc: &ResultDoc, public: &ResultDoc) -> Vec<String> {
    let changed = iomark_result::result::changed_texts(doc, public);
    if changed.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["Removed before sending (shown only here):".to_string()];
    for (at, was, goes) in changed.iter().take(12) {
        if at == "target.mount_options" {
            let kept: Vec<&str> = goes.split(',').collect();
            let dropped: Vec<&str> = was
                .split(',')
                .filter(|o| !kept.contains(o))
                .map(|o| o.split('=').next().unwrap_or(o))
                .collect();
            lines.push(format!(
                "  {at}: {} (they name a person, a server or a secret, not how the filesystem behaves)",
                printable(&dropped.join(", "))
            ));
        } else {
            lines.push(format!("  {at}: {} -> {}", printable(was), printable(goes)));
        }
    }
    if changed.len() > 12 {
        lines.push(format!(
            "  and {} more texts (--dry-run shows what is sent)",
            changed.len() - 12
        ));
    }
    lines
}

/// What identifies the machine or the person in what is sent, in a few lines.
fn describe(doc: &ResultDoc, server: &str, bytes: usize) -> String {
    let device = doc.target.device.as_ref();
    let mut lines = vec![
        format!(
            "About to send result {} to {server} ({bytes} bytes of JSON):",
            doc.id
        ),
        format!("  device:   {}", doc.identity().device_name),
        format!(
            "  serial:   {}",
            device
                .and_then(|d| d.serial_hash.as_deref())
                .map(|h| format!("{h} (a salted hash; the serial itself is never sent)"))
                .unwrap_or_else(|| "none".into())
        ),
        format!(
            "  host:     {} · {} · {} · {}",
            doc.host.board.as_deref().unwrap_or("unknown board"),
            doc.host.cpu_model.as_deref().unwrap_or("unknown CPU"),
            doc.host.os.as_deref().unwrap_or("unknown OS"),
            doc.host.kernel.as_deref().unwrap_or("unknown kernel")
        ),
        format!("  path:     {}", doc.target.path),
        format!("  profile:  {}", doc.settings.profile),
    ];
    if let Some(label) = &doc.label {
        lines.push(format!("  label:    {label}"));
    }
    if let Some(name) = &doc.sold_as {
        lines.push(format!("  sold as:  {name}"));
    }
    if let Some(price) = doc.price_usd {
        lines.push(format!("  price:    ${price:.2}"));
    }
    lines.push("No hostname and no user name are in it: your home folder is written ~, and a desktop's mounts /media/USER/… (/run/media/USER/…). --dry-run prints all of it.".into());
    lines.push("With it goes this installation's key, by which the site counts all you send as one submitter's (it keeps only a keyed hash of the key and of your network).".into());
    lines.join("\n")
}
