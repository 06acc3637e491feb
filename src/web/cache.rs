//! Answers to GET requests kept for a few seconds: every visitor sees the same leaderboard and
//! device pages, so a busy site draws each once per period instead of once per visitor. A
//! submission or deletion through this process empties the cache at once; another process's
//! is seen within the period (`--cache-seconds`; 0 turns the cache off). Bounded in bytes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::Shared;

/// At most this many bytes of answers are kept.
const MAX_BYTES: usize = 16 << 20;
/// An answer larger than this is not kept.
const MAX_ANSWER: usize = 1 << 20;

pub struct Cache {
    ttl: Duration,
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Kept>,
    bytes: usize,
}

struct Kept {
    at: Instant,
    headers: HeaderMap,
    body: Bytes,
}

impl Cache {
    pub fn new(ttl: Duration) -> Cache {
        Cache {
            ttl,
            entries: Mutex::new(Entries::default()),
        }
    }

    fn get(&self, key: &str) -> Option<Response> {
        if self.ttl.is_zero() {
            return None;
        }
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let kept = entries.map.get(key)?;
        if kept.at.elapsed() >= self.ttl {
            return None;
        }
        let mut response = Response::new(Body::from(kept.body.clone()));
        *response.headers_mut() = kept.headers.clone();
        // How long ago it was drawn (RFC 9111, 5.1): what a proxy would say of a kept answer.
        response.headers_mut().insert(
            header::AGE,
            header::HeaderValue::from(kept.at.elapsed().as_secs()),
        );
        Some(response)
    }

    fn put(&self, key: String, headers: HeaderMap, body: Bytes) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.bytes + body.len() > MAX_BYTES {
            // Drop what has expired; if that is not enough, everything (simple and bounded).
            let ttl = self.ttl;
            entries.map.retain(|_, k| k.at.elapsed() < ttl);
            entries.bytes = entries.map.values().map(|k| k.body.len()).sum();
            if entries.bytes + body.len() > MAX_BYTES {
                entries.map.clear();
                entries.bytes = 0;
            }
        }
        entries.bytes += body.len();
        if let Some(old) = entries.map.insert(
            key,
            Kept {
                at: Instant::now(),
                headers,
                body,
            },
        ) {
            entries.bytes -= old.body.len();
        }
    }

    /// Forgets every answer (after a write).
    pub fn clear(&self) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.map.clear();
        entries.bytes = 0;
    }
}

/// The query parameters some page reads; any other is ignored by every page, and so by the
/// cache's key too (a parameter made up for each request drew each page anew, and cut other
/// clients' device pages from 1,202 to 42 a second, issue 22).
pub const KNOWN: [&str; 14] = [
    "profile",
    "sort",
    "kind",
    "transport",
    "board",
    "fs",
    "q",
    "limit",
    "ids",
    "devices",
    "mine",
    "after",
    "device",
    "documents",
];

/// A request's key: its path and the parameters pages read, in the order given.
fn key_of(uri: &axum::http::Uri) -> String {
    let mut key = uri.path().to_string();
    let query = uri.query().unwrap_or("");
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or("");
            KNOWN.contains(&name)
        })
        .collect();
    if !kept.is_empty() {
        key.push('?');
        key.push_str(&kept.join("&"));
    }
    key
}

pub async fn layer(State(state): State<Shared>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path();
    // HEAD is answered as GET (the server sends the head alone), from and into the cache.
    let head = request.method() == Method::HEAD;
    // The moderators' answers and page depend on who asks: never kept, never served from the
    // cache. A dump's files are streamed from disk: kept here, each would be held whole in memory.
    let cacheable = (head || request.method() == Method::GET)
        && path != "/api/v1/health"
        && !path.starts_with("/api/v1/admin/")
        && !path.starts_with("/moderate")
        && path != "/metrics"
        && !path.starts_with("/api/v1/dump");
    if head {
        *request.method_mut() = Method::GET;
    }
    let write = matches!(*request.method(), Method::POST | Method::DELETE);
    let key = key_of(request.uri());
    // A client that has just written is answered from the primary, never from here.
    let fresh = request
        .extensions()
        .get::<super::writers::Fresh>()
        .is_some();
    if cacheable && !fresh {
        if let Some(hit) = state.cache.get(&key) {
            metrics::counter!("iomark_cache_total", "result" => "hit").increment(1);
            return hit;
        }
        metrics::counter!("iomark_cache_total", "result" => "miss").increment(1);
    }
    let response = next.run(request).await;
    if write && response.status().is_success() {
        state.cache.clear();
    }
    if !cacheable || response.status() != StatusCode::OK || state.cache.ttl.is_zero() {
        return response;
    }
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => {
            if bytes.len() <= MAX_ANSWER {
                state.cache.put(key, parts.headers.clone(), bytes.clone());
            }
            Response::from_parts(parts, Body::from(bytes))
        }
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the answer could not be read: {e}"),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_parameters_make_no_new_key() {
        let key = |u: &str| key_of(&u.parse().unwrap());
        assert_eq!(key("/?kind=NVMe&x=123"), key("/?kind=NVMe&x=456"));
        assert_eq!(key("/?kind=NVMe&x=123"), "/?kind=NVMe");
        assert_ne!(key("/?kind=NVMe"), key("/?kind=SD"));
        assert_eq!(key("/devices/a?cachebust=1"), "/devices/a");
    }
}
