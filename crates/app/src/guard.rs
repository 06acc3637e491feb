//! What every request to the app passes: a local app runs measurements and reads the history,
//! so a page of another site in the same browser must not be able to drive it.
//!
//! - **Host**: an address (an IP literal) or `localhost`, with the app's port; a name that
//!   resolves here from elsewhere (DNS rebinding) is refused.
//! - **The secret**: made at start and carried by the address the app opens (`?key=…`); the
//!   first request with it is answered with a cookie of this app's own (HttpOnly, SameSite
//!   Strict: a page of another site never sends it) and sent on without it, so the secret leaves
//!   the address bar. Every request needs the cookie or the key.
//! - **Actions** (every POST): an Origin of this app at the Host asked, or where a browser
//!   sends none, a `Sec-Fetch-Site` of same-origin; a form posted from another site has neither.
//! - Answers carry a Content-Security-Policy allowing only this app's own script and styles.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Shared;

/// The app's pages: its own script and styles, images of its own, forms to itself.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
     connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The cookie's name: one per port, so that two apps on one machine keep their own.
pub fn cookie_name(port: u16) -> String {
    format!("iomark_ui_{port}")
}

pub(super) async fn guard(State(app): State<Shared>, request: Request, next: Next) -> Response {
    app.seen.store(
        app.started.elapsed().as_secs(),
        std::sync::atomic::Ordering::Relaxed,
    );
    let port = app.address.port();
    let headers = request.headers();
    let Some(host) = our_host(headers, &app).map(str::to_string) else {
        return refused(
            StatusCode::MISDIRECTED_REQUEST,
            "this app answers only at its own address (127.0.0.1 or localhost): open the \
             address `iomark ui` printed",
        );
    };
    let secret = app.config.secret.as_bytes();
    let cookie = cookie_name(port);
    let by_cookie = cookies(headers).any(|(name, value)| {
        name == cookie && iomark_store::constant_time_eq(value.as_bytes(), secret)
    });
    let by_key = request.uri().query().is_some_and(|q| {
        form_urlencoded::parse(q.as_bytes())
            .any(|(k, v)| k == "key" && iomark_store::constant_time_eq(v.as_bytes(), secret))
    });
    if !by_cookie && !by_key {
        return refused(
            StatusCode::FORBIDDEN,
            "this app opens from the address `iomark ui` printed, which carries its key: open \
             that address (or start `iomark ui` again)",
        );
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        if !same_origin(headers, &host) {
            return refused(
                StatusCode::FORBIDDEN,
                "an action is taken only from this app's own pages",
            );
        }
    } else if by_key && !by_cookie {
        // The key leaves the address bar for a cookie of this app's own.
        let path = request.uri().path().to_string();
        let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, path)]).into_response();
        if let Ok(value) = HeaderValue::from_str(&format!(
            "{cookie}={}; Path=/; HttpOnly; SameSite=Strict",
            app.config.secret
        )) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        return secured(response);
    }
    secured(next.run(request).await)
}

/// The request's Host where it is this app's: an address (an IP literal, which DNS rebinding
/// cannot forge: it needs a name) or `localhost`, with the app's port.
fn our_host<'h>(headers: &'h HeaderMap, app: &Shared) -> Option<&'h str> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let port = app.address.port().to_string();
    let (name, given) = host.rsplit_once(':')?;
    if given != port {
        return None;
    }
    let name = name.trim_start_matches('[').trim_end_matches(']');
    (name == "localhost" || name.parse::<std::net::IpAddr>().is_ok()).then_some(host)
}

/// Whether a request comes from this app's own pages: its Origin is the app's at the Host it
/// was sent to, or (a browser that sends none, or "null") the browser says it is same-origin.
fn same_origin(headers: &HeaderMap, host: &str) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    match text(header::ORIGIN.as_str()) {
        Some("null") | None => text("sec-fetch-site") == Some("same-origin"),
        Some(origin) => origin == format!("http://{host}"),
    }
}

/// The cookies of a request, as name and value.
fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (&str, &str)> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
}

fn refused(status: StatusCode, why: &'static str) -> Response {
    secured(
        (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            why,
        )
            .into_response(),
    )
}

/// The site's security headers with the app's policy; its own address to itself (a form's
/// Origin), nothing to another site; never kept by a cache.
fn secured(response: Response) -> Response {
    let mut response = iomark_site::secured_with(response, CSP, "same-origin");
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
