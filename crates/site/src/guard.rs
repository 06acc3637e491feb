//! What every request passes through: a per-client rate limit (a sliding minute, by the peer's
//! address), a time limit, and the security headers every answer carries.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::Failure;
use super::listener::Peer;
use crate::{Shared, REQUEST_TIMEOUT};

/// Pages: no script at all, styles and images from the site only, forms post to the site.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Requests per client per minute, over a sliding minute: this minute's count and the last
/// minute's, weighed by how much of it the last sixty seconds still cover. (Fixed windows let
/// a client straddling a minute's end make twice the limit at once: 58 submissions in 30 s
/// against 30 a minute, issue 59's second attack pass. Over a sliding minute a client that
/// sends a burst at a minute's end gets at most 43 in any 30 s; in any 60 s it may still get
/// 58, as the last minute is taken as spread evenly over it: an estimate, not a log of each
/// request.) Clients are kept in shards, each two maps (this minute, the last) turned over at
/// once when a new minute begins, so that admitting a request is one lookup whatever the
/// number of clients: forgetting old windows one by one under a global lock
/// cut the site from 22,908 to about 1,100 requests a second with 100,000 distinct forwarded
/// addresses (issue 22). An IPv6 client is its /64. Past [`MAX_CLIENTS`] in a minute, clients
/// not yet seen share one window.
pub struct Limiter {
    per_minute: u32,
    writes_per_minute: u32,
    started: Instant,
    shards: Vec<Mutex<Shard>>,
}

/// The most clients remembered in one minute.
pub const MAX_CLIENTS: usize = 256 * 1024;
const SHARDS: usize = 16;

#[derive(Default)]
struct Shard {
    minute: u64,
    clients: HashMap<IpAddr, Window>,
    last: HashMap<IpAddr, Window>,
}

#[derive(Clone, Copy, Default)]
struct Window {
    requests: u32,
    writes: u32,
}

impl Limiter {
    pub fn new(per_minute: u32, writes_per_minute: u32) -> Limiter {
        Limiter {
            per_minute,
            writes_per_minute,
            started: Instant::now(),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    /// Whether `client` may make one more request (a write if `write`); if not, how many
    /// seconds until it may.
    fn admit(&self, client: IpAddr, write: bool) -> Result<(), u64> {
        self.admit_at(client, write, self.started.elapsed().as_secs())
    }

    /// [`Limiter::admit`], `elapsed` seconds after the limiter began.
    fn admit_at(&self, client: IpAddr, write: bool, elapsed: u64) -> Result<(), u64> {
        if self.per_minute == 0 && (self.writes_per_minute == 0 || !write) {
            return Ok(());
        }
        let (minute, wait) = (elapsed / 60, 60 - elapsed % 60);
        let key = super::listener::peer_key(client);
        let shard = &self.shards[shard_of(&key)];
        let mut shard = shard.lock().unwrap_or_else(|e| e.into_inner());
        let old = if shard.minute != minute {
            let next = shard.minute + 1 == minute;
            shard.minute = minute;
            let this = std::mem::take(&mut shard.clients);
            let last = std::mem::replace(&mut shard.last, if next { this } else { HashMap::new() });
            Some(last)
        } else {
            None
        };
        // How much of the last minute the sliding minute still covers.
        let weight = (60 - elapsed % 60) as f64 / 60.0;
        let key =
            if shard.clients.len() >= MAX_CLIENTS / SHARDS && !shard.clients.contains_key(&key) {
                IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED)
            } else {
                key
            };
        let last = shard.last.get(&key).copied().unwrap_or_default();
        let window = shard.clients.entry(key).or_default();
        let count = |now: u32, then: u32| f64::from(now) + f64::from(then) * weight;
        let over_all = self.per_minute > 0
            && count(window.requests, last.requests) >= f64::from(self.per_minute);
        let over_writes = write
            && self.writes_per_minute > 0
            && count(window.writes, last.writes) >= f64::from(self.writes_per_minute);
        let verdict = if over_all || over_writes {
            Err(wait)
        } else {
            window.requests += 1;
            window.writes += write as u32;
            Ok(())
        };
        drop(shard);
        // The minute before last's clients are freed outside the lock.
        drop(old);
        verdict
    }
}

fn shard_of(key: &IpAddr) -> usize {
    use std::hash::BuildHasher;
    static SEED: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    SEED.get_or_init(Default::default).hash_one(key) as usize % SHARDS
}

pub async fn guard(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let peer = request
        .extensions()
        .get::<ConnectInfo<Peer>>()
        .map(|c| c.0 .0.ip());
    // Behind a proxy every request comes from the proxy: the client is the address it
    // appended last to X-Forwarded-For (earlier ones are whatever the client claimed).
    let forwarded = state
        .config
        .trust_forwarded_for
        .then(|| forwarded_for(request.headers()))
        .flatten();
    let client = forwarded.or(peer);
    let write = matches!(*request.method(), Method::POST | Method::DELETE);
    if let Some(client) = client {
        if let Err(wait) = state.limiter.admit(client, write) {
            let mut response = Failure::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many {} from this address: try again in {wait} s",
                    if write { "submissions" } else { "requests" }
                ),
            )
            .respond(api);
            if let Ok(value) = HeaderValue::from_str(&wait.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
            return told(secured(response), Some(client));
        }
    }
    if let Err(failure) = plain_address(request.uri()) {
        return told(secured(failure.respond(api)), client);
    }
    // A client that has just written reads on the primary (`writers.rs`).
    let fresh = state.store.has_replicas() && client.is_some_and(|c| state.writers.fresh(c));
    let mut request = request;
    if fresh {
        request.extensions_mut().insert(super::writers::Fresh);
    }
    // Who sent a submission, for the store to count its submitter (`api::submit`).
    if let Some(client) = client {
        request
            .extensions_mut()
            .insert(super::metrics::Client(client));
    }
    let handled = async {
        if fresh {
            iomark_store::on_primary(next.run(request)).await
        } else {
            next.run(request).await
        }
    };
    // The body (`WholeBody`, for the handlers that take one) and the handler, together.
    let response = match tokio::time::timeout(REQUEST_TIMEOUT, handled).await {
        Ok(response) => response,
        Err(_) => Failure::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the request took over {} s: the store is slow or away",
                REQUEST_TIMEOUT.as_secs()
            ),
        )
        .respond(api),
    };
    if write && response.status().is_success() && state.store.has_replicas() {
        if let Some(client) = client {
            state.writers.wrote(client);
        }
    }
    told(secured(uniform(response, api).await), client)
}

/// The answer, with whom it answers for the log line (`metrics::layer`).
fn told(mut response: Response, client: Option<std::net::IpAddr>) -> Response {
    if let Some(client) = client {
        response
            .extensions_mut()
            .insert(super::metrics::Client(client));
    }
    response
}

/// An address with a control character escaped in it (`%00`…`%1F`, `%7F`) names nothing here:
/// refused before it reaches the store (PostgreSQL refused a NUL with an error that carried its
/// connection string into the answer, issue 22).
fn plain_address(uri: &axum::http::Uri) -> Result<(), Failure> {
    let text = uri.path_and_query().map_or("", |p| p.as_str()).as_bytes();
    let control = text.windows(3).any(|w| {
        w[0] == b'%'
            && std::str::from_utf8(&w[1..])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .is_some_and(|b| b < 0x20 || b == 0x7f)
    });
    if control {
        return Err(Failure::bad(
            "the address holds a control character: nothing here is named so",
        ));
    }
    Ok(())
}

/// A POST's body, read whole before its handler runs: an extractor, so that a method a route
/// does not take is answered 405 before any body is read.
pub struct WholeBody(pub axum::body::Bytes);

impl<S: Send + Sync> axum::extract::FromRequest<S> for WholeBody {
    type Rejection = super::error::Api;

    async fn from_request(request: Request, _: &S) -> Result<WholeBody, Self::Rejection> {
        Ok(WholeBody(whole_body(request).await?))
    }
}

/// A body, read whole: JSON only (415 otherwise), at most [`BODY_LIMIT`](super::BODY_LIMIT)
/// bytes (413), all of it within [`BODY_TIME`] (408: a client that sends slowly ties up a
/// connection, not the store).
async fn whole_body(request: Request) -> Result<axum::body::Bytes, Failure> {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(Failure::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be JSON, sent as Content-Type: application/json",
        ));
    }
    let read = axum::body::to_bytes(request.into_body(), super::BODY_LIMIT);
    let bytes = match tokio::time::timeout(BODY_TIME, read).await {
        Err(_) => {
            return Err(Failure::new(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the body did not arrive within {} s: send it whole, at once",
                    BODY_TIME.as_secs()
                ),
            ))
        }
        Ok(Err(e)) => {
            // axum reports the limit as a LengthLimitError of http-body-util, whose text is
            // all it exposes.
            let too_large = format!("{e:#}").contains("length limit");
            return Err(if too_large {
                Failure::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "the body is over {} MiB; a result document is tens of KiB",
                        super::BODY_LIMIT >> 20
                    ),
                )
            } else {
                Failure::bad(format!("the body could not be read: {e}"))
            });
        }
        Ok(Ok(bytes)) => bytes,
    };
    Ok(bytes)
}

/// How long a submission's body may take to arrive.
pub const BODY_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// Every failure in one shape: `{"error": …}` under `/api/`, the site's error page elsewhere,
/// including those axum answers by itself in plain text (a query that does not parse, a
/// method a route does not take).
async fn uniform(response: Response, api: bool) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.starts_with("text/plain"));
    if !plain {
        return response;
    }
    let allow = response.headers().get(header::ALLOW).cloned();
    let text = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let reason = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_lowercase()
    } else {
        text
    };
    let mut response = Failure::new(status, reason).respond(api);
    if let Some(allow) = allow {
        response.headers_mut().insert(header::ALLOW, allow);
    }
    response
}

/// The last address in the X-Forwarded-For headers, if it is one: bare, bracketed or with
/// its port (`203.0.113.7:51234`, `[2001:db8::1]:443`, as some proxies write it: read as none,
/// every client behind such a proxy was the proxy, one submitter: the seventeenth attack pass).
fn forwarded_for(headers: &axum::http::HeaderMap) -> Option<IpAddr> {
    let last = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .last()?
        .trim();
    last.parse()
        .ok()
        .or_else(|| last.parse::<std::net::SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| last.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
}

fn secured(response: Response) -> Response {
    secured_with(response, CSP, "no-referrer")
}

/// The security headers every answer carries, with `csp` where the answer says no policy of
/// its own (a page with inline styles says its own) and the referrer policy given: the site's,
/// and the local app's (`crates/app/src/guard.rs`).
pub fn secured_with(mut response: Response, csp: &'static str, referrer: &'static str) -> Response {
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        );
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static(referrer));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forwarded_address_is_read_with_its_port_or_brackets() {
        for (sent, ip) in [
            ("203.0.113.7", "203.0.113.7"),
            ("10.0.0.1, 203.0.113.7:51234", "203.0.113.7"),
            ("[2001:db8::1]:443", "2001:db8::1"),
            ("[2001:db8::2]", "2001:db8::2"),
            ("2001:db8::3", "2001:db8::3"),
        ] {
            let mut headers = axum::http::HeaderMap::new();
            headers.insert("x-forwarded-for", sent.parse().unwrap());
            assert_eq!(forwarded_for(&headers), ip.parse().ok(), "{sent}");
        }
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("x-forwarded-for", "unknown".parse().unwrap());
        assert_eq!(forwarded_for(&headers), None);
    }

    /// Issue 59's second attack pass: a client that straddled a minute's end made twice the
    /// limit in 30 s. Over a sliding minute, the 15 s after a full minute's end give 7 more,
    /// where fixed windows gave 30. (The last minute is taken as spread evenly over it, so a
    /// client that sent all of it at its end gets a little more than the limit, never twice.)
    #[test]
    fn a_client_at_a_minute_s_end_gets_no_second_allowance() {
        let limiter = Limiter::new(0, 30);
        let client: IpAddr = "192.0.2.1".parse().unwrap();
        let taken = |from: u64| {
            (from..from + 15)
                .flat_map(|t| [t, t])
                .filter(|t| limiter.admit_at(client, true, *t).is_ok())
                .count()
        };
        assert_eq!(taken(45), 30, "the first minute's last 15 s");
        assert_eq!(taken(60), 7, "the next minute's first 15 s");
        // A minute later the last minute has passed: its allowance again.
        assert_eq!(taken(180), 30);
    }

    #[test]
    fn the_proxy_s_last_address_is_the_client() {
        let mut headers = axum::http::HeaderMap::new();
        assert_eq!(forwarded_for(&headers), None);
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.7".parse().unwrap(),
        );
        assert_eq!(
            forwarded_for(&headers),
            Some("198.51.100.7".parse().unwrap())
        );
        headers.append("x-forwarded-for", "2001:db8::1".parse().unwrap());
        assert_eq!(
            forwarded_for(&headers),
            Some("2001:db8::1".parse().unwrap())
        );
        headers.insert("x-forwarded-for", "not an address".parse().unwrap());
        assert_eq!(forwarded_for(&headers), None);
    }

    #[test]
    fn a_client_over_its_limit_waits_and_others_do_not() {
        let limiter = Limiter::new(5, 2);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        assert!(limiter.admit(a, true).is_ok());
        assert!(limiter.admit(a, true).is_ok());
        assert!(limiter.admit(a, true).is_err(), "a third write in a minute");
        assert!(limiter.admit(a, false).is_ok(), "reads still go");
        assert!(limiter.admit(a, false).is_ok());
        assert!(limiter.admit(a, false).is_ok());
        let wait = limiter.admit(a, false).unwrap_err();
        assert!((1..=60).contains(&wait));
        assert!(limiter.admit(b, true).is_ok(), "another client is not held");
        let open = Limiter::new(0, 0);
        for _ in 0..1000 {
            assert!(open.admit(a, true).is_ok());
        }
        // An IPv6 client is its /64: another address of it shares its window.
        let v6 = Limiter::new(2, 0);
        assert!(v6.admit("2001:db8::1".parse().unwrap(), false).is_ok());
        assert!(v6.admit("2001:db8::2".parse().unwrap(), false).is_ok());
        assert!(v6.admit("2001:db8::3".parse().unwrap(), false).is_err());
        assert!(v6.admit("2001:db8:0:1::1".parse().unwrap(), false).is_ok());
    }

    #[test]
    fn a_flood_of_addresses_stays_bounded() {
        // Issue 22: 100,000 distinct forwarded addresses made every request scan them all.
        let limiter = Limiter::new(1, 0);
        for n in 0..(MAX_CLIENTS as u32 + 50_000) {
            let _ = limiter.admit(IpAddr::V4(n.into()), false);
        }
        for shard in &limiter.shards {
            let shard = shard.lock().unwrap();
            assert!(shard.clients.len() <= MAX_CLIENTS / SHARDS + 1);
        }
        // Past the bound, new clients share one window: the flood cannot buy itself room.
        assert!(
            limiter
                .admit("203.0.113.250".parse().unwrap(), false)
                .is_err()
                || limiter
                    .admit("203.0.113.251".parse().unwrap(), false)
                    .is_err()
        );
    }
}
