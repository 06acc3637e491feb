//! Answers to GET requests kept for a few seconds: every visitor sees the same leaderboard and
//! device pages, so a busy site draws each once per period instead of once per visitor. A
//! submission or a deletion through this process, or the background refresh of a busy device,
//! forgets at once every answer it may change: all but the other devices' pages (a device's
//! page shows its own results alone); a moderator's change, every answer. Another process's
//! writes are seen within the period (`--cache-seconds`; 0 turns the cache off). Bounded in
//! bytes.
//!
//! One render per missing answer: the requests that miss while the same answer is being
//! drawn wait for it (single flight) instead of each asking the store the same queries.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Shared;

/// At most this many bytes of answers are kept.
const MAX_BYTES: usize = 16 << 20;
/// An answer larger than this is not kept.
const MAX_ANSWER: usize = 1 << 20;

pub struct Cache {
    ttl: Duration,
    /// At most this many bytes of answers are kept ([`MAX_BYTES`] on a site).
    most: usize,
    entries: Mutex<Entries>,
    /// The answers being drawn now: a receiver ends when its render does.
    drawing: Mutex<HashMap<String, tokio::sync::watch::Receiver<()>>>,
}

/// A render in flight, which others wait for; it ends, kept or not, when this is dropped
/// (also when its client goes away and its handler with it).
struct Drawing<'a> {
    cache: &'a Cache,
    key: String,
    _done: tokio::sync::watch::Sender<()>,
}

impl Drop for Drawing<'_> {
    fn drop(&mut self) {
        let mut drawing = self.cache.drawing.lock().unwrap_or_else(|e| e.into_inner());
        drawing.remove(&self.key);
    }
}

/// What a request that missed the cache does.
enum Miss<'a> {
    /// Draws the answer, others waiting for it.
    Draw(Drawing<'a>),
    /// Waits for another request's render to end.
    Wait(tokio::sync::watch::Receiver<()>),
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Kept>,
    bytes: usize,
}

struct Kept {
    at: Instant,
    /// How many requests it has answered since it was drawn.
    hits: u32,
    headers: HeaderMap,
    body: Bytes,
}

impl Cache {
    pub fn new(ttl: Duration) -> Cache {
        Cache::holding(ttl, MAX_BYTES)
    }

    fn holding(ttl: Duration, most: usize) -> Cache {
        Cache {
            ttl,
            most,
            entries: Mutex::new(Entries::default()),
            drawing: Mutex::new(HashMap::new()),
        }
    }

    /// Whether to draw the answer `key` names, or wait for the request drawing it.
    fn miss(&self, key: &str) -> Miss<'_> {
        let mut drawing = self.drawing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(receiver) = drawing.get(key) {
            return Miss::Wait(receiver.clone());
        }
        let (done, receiver) = tokio::sync::watch::channel(());
        drawing.insert(key.to_string(), receiver);
        Miss::Draw(Drawing {
            cache: self,
            key: key.to_string(),
            _done: done,
        })
    }

    fn get(&self, key: &str) -> Option<Response> {
        if self.ttl.is_zero() {
            return None;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let kept = entries.map.get_mut(key)?;
        if kept.at.elapsed() >= self.ttl {
            return None;
        }
        kept.hits = kept.hits.saturating_add(1);
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
        // When full: drop what has expired, then what nobody asked for again (searches made
        // once, which filled 16 MiB in under a second and emptied it of every device page,
        // bench/site-load), and if that is not enough, everything (simple and bounded).
        let ttl = self.ttl;
        let keeps: [&dyn Fn(&Kept) -> bool; 3] =
            [&|k| k.at.elapsed() < ttl, &|k| k.hits > 0, &|_| false];
        for keep in keeps {
            if entries.bytes + body.len() <= self.most {
                break;
            }
            entries.map.retain(|_, k| keep(k));
            entries.bytes = entries.map.values().map(|k| k.body.len()).sum();
        }
        entries.bytes += body.len();
        if let Some(old) = entries.map.insert(
            key,
            Kept {
                at: Instant::now(),
                hits: 0,
                headers,
                body,
            },
        ) {
            entries.bytes -= old.body.len();
        }
    }

    /// Forgets every answer that new figures of `devices` (a new result, a refresh of their
    /// aggregates) may change: all but the other devices' pages.
    pub fn forget(&self, devices: &[impl AsRef<str>]) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.map.retain(|key, _| {
            device_of(key).is_some_and(|d| devices.iter().all(|changed| changed.as_ref() != d))
        });
        entries.bytes = entries.map.values().map(|k| k.body.len()).sum();
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

/// What a write changed, where the handler knows: a result of these devices (their keys), or
/// of none. Without it, a write forgets every answer.
#[derive(Clone)]
pub struct Changed(pub Vec<String>);

/// The device whose page (or API answer) a cache key is, if it is one.
fn device_of(key: &str) -> Option<std::borrow::Cow<'_, str>> {
    let path = key.split('?').next()?;
    let device = path
        .strip_prefix("/devices/")
        .or_else(|| path.strip_prefix("/api/v1/devices/"))
        .filter(|d| !d.is_empty() && !d.contains('/'))?;
    percent_encoding::percent_decode_str(device)
        .decode_utf8()
        .ok()
}

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
    let mut drawing = None;
    if cacheable && !fresh && !state.cache.ttl.is_zero() {
        if let Some(hit) = state.cache.get(&key) {
            metrics::counter!("iomark_cache_total", "result" => "hit").increment(1);
            return hit;
        }
        match state.cache.miss(&key) {
            Miss::Draw(mine) => drawing = Some(mine),
            Miss::Wait(mut theirs) => {
                // Ends when their render does (its sender dropped), kept or not.
                let _ = theirs.changed().await;
                if let Some(hit) = state.cache.get(&key) {
                    metrics::counter!("iomark_cache_total", "result" => "waited").increment(1);
                    return hit;
                }
                // Not kept (not a 200, too large, or its client went away): drawn here too.
            }
        }
        metrics::counter!("iomark_cache_total", "result" => "miss").increment(1);
    }
    let response = next.run(request).await;
    if write && response.status().is_success() {
        match response.extensions().get::<Changed>() {
            Some(Changed(devices)) => state.cache.forget(devices),
            None => state.cache.clear(),
        }
        // The menus' counts too (issue 44: "standard · 0 devices" beside a table of one).
        state.choices.written();
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
            // Kept: those waiting find it now.
            drop(drawing);
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

    #[tokio::test]
    async fn one_draws_a_missing_answer_and_the_others_wait_for_it() {
        let cache = Cache::new(Duration::from_secs(5));
        let Miss::Draw(first) = cache.miss("/a") else {
            panic!("the first to miss draws");
        };
        let Miss::Wait(mut waiting) = cache.miss("/a") else {
            panic!("the second waits");
        };
        assert!(matches!(cache.miss("/b"), Miss::Draw(_)), "another answer");
        let waited = tokio::spawn(async move {
            let _ = waiting.changed().await;
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waited.is_finished(), "waits while the answer is drawn");
        cache.put("/a".into(), HeaderMap::new(), Bytes::from_static(b"drawn"));
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), waited)
            .await
            .expect("the waiter is woken when the render ends")
            .unwrap();
        assert!(cache.get("/a").is_some());
        assert!(
            matches!(cache.miss("/a"), Miss::Draw(_)),
            "a render that ended (or was dropped with its client) leaves nobody waiting"
        );
    }

    #[test]
    fn when_full_what_was_asked_for_again_is_kept() {
        let cache = Cache::holding(Duration::from_secs(60), 100);
        let page = Bytes::from_static(&[b'x'; 30]);
        cache.put("/devices/a".into(), HeaderMap::new(), page.clone());
        assert!(cache.get("/devices/a").is_some());
        for search in 0..10 {
            cache.put(format!("/?q={search}"), HeaderMap::new(), page.clone());
        }
        assert!(cache.get("/devices/a").is_some(), "asked for again: kept");
        assert!(cache.get("/?q=9").is_some(), "the newest is kept");
        assert!(cache.get("/?q=0").is_none(), "drawn once, made room");
        let entries = cache.entries.lock().unwrap();
        assert!(entries.bytes <= 100);
        assert_eq!(
            entries.bytes,
            entries.map.values().map(|k| k.body.len()).sum::<usize>()
        );
    }

    #[test]
    fn when_nothing_else_makes_room_everything_goes() {
        let cache = Cache::holding(Duration::from_secs(60), 100);
        let page = Bytes::from_static(&[b'x'; 40]);
        for key in ["/a", "/b"] {
            cache.put(key.into(), HeaderMap::new(), page.clone());
            assert!(cache.get(key).is_some());
        }
        cache.put("/c".into(), HeaderMap::new(), page.clone());
        assert!(cache.get("/a").is_none() && cache.get("/b").is_none());
        assert!(cache.get("/c").is_some());
    }

    #[test]
    fn a_new_result_keeps_only_the_other_devices_pages() {
        let cache = Cache::new(Duration::from_secs(60));
        let keys = [
            "/devices/a",
            "/devices/b",
            "/devices/b%2Dc?profile=pi",
            "/api/v1/devices/b?mine=X",
            "/api/v1/devices/a",
            "/?sort=score",
            "/results/01J",
            "/compare?devices=a,b",
            "/api/v1/leaderboard",
        ];
        let fill = || {
            for key in keys {
                cache.put(key.into(), HeaderMap::new(), Bytes::from_static(b"page"));
            }
        };
        let kept = || -> Vec<&str> {
            keys.into_iter()
                .filter(|k| cache.get(k).is_some())
                .collect()
        };
        fill();
        cache.forget(&["a"]);
        assert_eq!(
            kept(),
            [
                "/devices/b",
                "/devices/b%2Dc?profile=pi",
                "/api/v1/devices/b?mine=X"
            ]
        );
        fill();
        cache.forget(&["b-c"]);
        assert_eq!(
            kept(),
            [
                "/devices/a",
                "/devices/b",
                "/api/v1/devices/b?mine=X",
                "/api/v1/devices/a"
            ]
        );
        fill();
        cache.forget(&["a", "b"]);
        assert_eq!(
            kept(),
            ["/devices/b%2Dc?profile=pi"],
            "two devices refreshed at once"
        );
        fill();
        cache.forget(&[] as &[&str]);
        assert_eq!(
            kept().len(),
            5,
            "a result of no device: every device's page kept"
        );
        assert_eq!(cache.entries.lock().unwrap().bytes, 5 * 4);
    }

    #[test]
    fn unknown_parameters_make_no_new_key() {
        let key = |u: &str| key_of(&u.parse().unwrap());
        assert_eq!(key("/?kind=NVMe&x=123"), key("/?kind=NVMe&x=456"));
        assert_eq!(key("/?kind=NVMe&x=123"), "/?kind=NVMe");
        assert_ne!(key("/?kind=NVMe"), key("/?kind=SD"));
        assert_eq!(key("/devices/a?cachebust=1"), "/devices/a");
    }
}
