//! What talks to a results site: its address checked, and a request sent (`submit.rs` sends
//! runs, `health/share.rs` a card's checks).

use std::time::Duration;

use anyhow::bail;
use iomark_site::answers::Refusal;

/// The site's address given to `flag`, without a trailing slash; http(s) only.
pub fn server_url(flag: &str, text: &str) -> anyhow::Result<String> {
    let url = text.trim().trim_end_matches('/');
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => Ok(url.into()),
        _ => bail!("{flag}: '{text}' is not a site's address: give http://HOST or https://HOST"),
    }
}

/// Sends a request, with a body and the installation key for a POST.
pub fn request(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<(&str, &str)>,
) -> anyhow::Result<(u16, String)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .user_agent(format!("iomark/{}", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut response = match (method, body) {
        ("POST", Some((body, installation))) => {
            let mut request = agent
                .post(url)
                .header("content-type", "application/json")
                .header("x-iomark-installation", installation);
            if let Some(bearer) = &bearer {
                request = request.header("authorization", bearer);
            }
            request.send(body)
        }
        _ => {
            let mut request = agent.delete(url);
            if let Some(bearer) = &bearer {
                request = request.header("authorization", bearer);
            }
            request.call()
        }
    }
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    Ok((status, text))
}

/// Why a site said no: its refusal's words, else the first of what it answered; shown as
/// text, never obeyed ([`one_line`]).
pub fn reason(text: &str) -> String {
    match serde_json::from_str::<Refusal>(text) {
        Ok(refusal) => said(&refusal.error, 1000),
        Err(_) => one_line(text),
    }
}

/// What a site answered, read as the type it answers with; none where it is not that (another
/// program at the address, a proxy's page).
pub fn answer<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str(text).ok()
}

/// What a site said, as one line of at most 200 characters a terminal shows and never obeys:
/// its escape sequences and the marks that reorder text written out (`printable`; the twelfth
/// attack pass: a site's refusal set the terminal's title and cleared its screen).
pub fn one_line(text: &str) -> String {
    said(text, 200)
}

/// `text` as one line of at most `most` characters, shown as [`one_line`] shows it.
fn said(text: &str, most: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line: String = line.chars().take(most).collect();
    crate::output::printable(&line).into_owned()
}

/// Whether a receipt is one a site makes: its address an http(s) URL of printable characters,
/// its token the one sent (a hostile or broken site's receipt is neither kept nor shown).
pub fn a_receipt(url: &str, token: &str, sent: &str) -> bool {
    let address = (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() <= 2048
        && url.chars().all(|c| c.is_ascii_graphic());
    address && token == sent
}
