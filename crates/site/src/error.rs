//! How a request fails, and how an answer is written: a [`Failure`] (a status and the reason a
//! person or a program is shown), answered as JSON by the API ([`Api`]) and as a small page
//! otherwise ([`Page`]): one type, the format its parameter. The store's errors become failures
//! here, never naming where the store is.

use askama::Template;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use serde::Serialize;

use iomark_store::{Problem, StoreError};

/// A request that cannot be answered, with the reason a person or a program is shown.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub reason: String,
    /// Where what was asked for is now (a redirect).
    pub location: Option<String>,
}

impl Failure {
    pub fn new(status: StatusCode, reason: impl Into<String>) -> Failure {
        Failure {
            status,
            reason: reason.into(),
            location: None,
        }
    }

    /// What was asked for is for good at `location` (a merged or renamed device).
    pub fn moved(location: String) -> Failure {
        Failure {
            status: StatusCode::MOVED_PERMANENTLY,
            reason: format!("moved to {location}"),
            location: Some(location),
        }
    }

    pub fn bad(reason: impl Into<String>) -> Failure {
        Failure::new(StatusCode::BAD_REQUEST, reason)
    }

    pub fn not_found(reason: impl Into<String>) -> Failure {
        Failure::new(StatusCode::NOT_FOUND, reason)
    }

    /// As JSON (`{"error": …}`) for the API, as a small page otherwise.
    pub fn respond(self, api: bool) -> Response {
        let location = self.location.clone();
        let mut response = self.answer(api);
        if let Some(value) = location.and_then(|l| header::HeaderValue::from_str(&l).ok()) {
            response.headers_mut().insert(header::LOCATION, value);
        }
        response
    }

    fn answer(self, api: bool) -> Response {
        if api {
            let mut response = Json(Refusal { error: self.reason }).into_response();
            *response.status_mut() = self.status;
            response
        } else {
            let page = ErrorPage {
                title: self
                    .status
                    .canonical_reason()
                    .unwrap_or("Error")
                    .to_string(),
                reason: self.reason,
            };
            let body = page
                .render()
                .unwrap_or_else(|_| "iomark: the page could not be drawn".into());
            (self.status, Html(body)).into_response()
        }
    }
}

/// How the API says no: `{"error": "…"}`, the reason in words (its clients read it as this
/// type).
#[derive(Debug, PartialEq, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Refusal {
    /// Why, in a sentence a person can act on.
    pub error: String,
}

/// A failure answered as JSON (`API = true`, [`Api`]) or as a page ([`Page`]).
pub struct Failed<const API: bool>(pub Failure);

/// A failure answered as JSON.
pub type Api = Failed<true>;
/// A failure answered as a page.
pub type Page = Failed<false>;

impl<const API: bool, E: Into<Failure>> From<E> for Failed<API> {
    fn from(e: E) -> Failed<API> {
        Failed(e.into())
    }
}

impl<const API: bool> IntoResponse for Failed<API> {
    fn into_response(self) -> Response {
        self.0.respond(API)
    }
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    pub title: String,
    pub reason: String,
}

/// A JSON answer in which `<`, `>` and `&` are written as `\u003c`, `\u003e` and `\u0026`:
/// the same JSON to a program, and no markup to a browser that is tricked into showing it.
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        match serde_json::to_string(&self.0) {
            Ok(text) => {
                let mut safe = String::with_capacity(text.len());
                for c in text.chars() {
                    match c {
                        '<' => safe.push_str("\\u003c"),
                        '>' => safe.push_str("\\u003e"),
                        '&' => safe.push_str("\\u0026"),
                        c => safe.push(c),
                    }
                }
                ([(header::CONTENT_TYPE, "application/json")], safe).into_response()
            }
            Err(e) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("cannot encode the answer: {e}"),
            )
                .into_response(),
        }
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        match e {
            StoreError::NotFound(_) => Failure::not_found(e.to_string()),
            StoreError::Duplicate(_) => Failure::new(StatusCode::CONFLICT, e.to_string()),
            StoreError::Buried(_) => Failure::new(StatusCode::GONE, e.to_string()),
            StoreError::Invalid(_) => Failure::bad(e.to_string()),
            StoreError::Ambiguous(..) => Failure::bad(e.to_string()),
            StoreError::Unavailable { problem, .. } => {
                // The whole error (where the store is, what its driver said) goes to the
                // operator's log, never into an answer: it named the database URL, with a
                // password given as a query parameter (issue 22).
                tracing::error!("{e}");
                let why = match problem {
                    Problem::Full => " (its disk is full)",
                    Problem::Locked => " (it is busy)",
                    Problem::Unreachable => " (its database cannot be reached)",
                    _ => "",
                };
                Failure::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("the results store is unavailable{why}, try again shortly"),
                )
            }
        }
    }
}
