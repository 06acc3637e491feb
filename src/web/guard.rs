//! What every request passes through: a per-client rate limit (fixed one-minute windows, by
//! the peer's address), a time limit, and the security headers every answer carries.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::views::Failure;
use super::{Shared, REQUEST_TIMEOUT};

/// Pages: no script at all, styles and images from the site only, forms post to the site.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

pub struct Limiter {
    per_minute: u32,
    writes_per_minute: u32,
    clients: Mutex<HashMap<IpAddr, Window>>,
}

struct Window {
    start: Instant,
    requests: u32,
    writes: u32,
}

impl Limiter {
    pub fn new(per_minute: u32, writes_per_minute: u32) -> Limiter {
        Limiter {
            per_minute,
            writes_per_minute,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `client` may make one more request (a write if `write`); if not, how many
    /// seconds until it may.
    fn admit(&self, client: IpAddr, write: bool) -> Result<(), u64> {
        if self.per_minute == 0 && (self.writes_per_minute == 0 || !write) {
            return Ok(());
        }
        let now = Instant::now();
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if clients.len() > 100_000 {
            // Forget windows that have ended, so that the map stays bounded.
            clients.retain(|_, w| now.duration_since(w.start).as_secs() < 60);
        }
        let window = clients.entry(client).or_insert(Window {
            start: now,
            requests: 0,
            writes: 0,
        });
        let age = now.duration_since(window.start).as_secs();
        if age >= 60 {
            *window = Window {
                start: now,
                requests: 0,
                writes: 0,
            };
        }
        let over_all = self.per_minute > 0 && window.requests >= self.per_minute;
        let over_writes =
            write && self.writes_per_minute > 0 && window.writes >= self.writes_per_minute;
        if over_all || over_writes {
            return Err(60 - age.min(59));
        }
        window.requests += 1;
        window.writes += write as u32;
        Ok(())
    }
}

pub async fn guard(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
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
            return secured(response);
        }
    }
    let response = match tokio::time::timeout(REQUEST_TIMEOUT, next.run(request)).await {
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
    secured(response)
}

/// The last address in the X-Forwarded-For headers, if it is one.
fn forwarded_for(headers: &axum::http::HeaderMap) -> Option<IpAddr> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .last()
        .and_then(|last| last.trim().parse().ok())
}

fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
