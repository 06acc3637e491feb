//! `/compare?ids=A&ids=B…`: saved runs side by side with the verdicts `iomark compare` gives
//! (its JSON, read from a child), the oldest the baseline, and what the verdicts mean.

use std::time::Duration;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::Shared;

struct Row {
    test: String,
    unit: String,
    /// Each run's figure, then (but the baseline's) its difference and verdict.
    cells: Vec<(String, String, String)>,
}

#[derive(Template)]
#[template(path = "compare.html")]
struct Page {
    title: String,
    runs: Vec<(char, String, String)>,
    rows: Vec<Row>,
    differences: Vec<String>,
    method: &'static str,
    spread: String,
    within_noise: String,
}

pub async fn compare(State(app): State<Shared>, RawQuery(query): RawQuery) -> Response {
    // The oldest is the baseline: ids sort by the time they were made.
    let mut ids: Vec<String> = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .filter(|(k, _)| k == "ids")
        .map(|(_, v)| v.into_owned())
        .filter(|v| !v.is_empty() && v.len() <= 40 && v.chars().all(|c| c.is_ascii_alphanumeric()))
        .collect();
    ids.sort();
    ids.dedup();
    if ids.len() < 2 {
        return (
            StatusCode::BAD_REQUEST,
            "tick two runs or more in the history to compare them",
        )
            .into_response();
    }
    let mut args = vec!["compare"];
    args.extend(ids.iter().map(String::as_str));
    args.push("--json");
    let json = match crate::iomark(&app, &args, Duration::from_secs(60)).await {
        Ok((out, _)) => out,
        Err(why) => return (StatusCode::BAD_REQUEST, why).into_response(),
    };
    let Ok(answer) = serde_json::from_str::<Value>(&json) else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "iomark compare answered no comparison",
        )
            .into_response();
    };
    crate::pages::page(&of(&answer))
}

fn of(answer: &Value) -> Page {
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let runs = list(&answer["runs"])
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let label = r["label"]
                .as_str()
                .map(|l| format!(" · {l}"))
                .unwrap_or_default();
            (
                iomark_result::compare::letter(i),
                text(&r["id"]),
                format!(
                    "{} · {}{label}",
                    text(&r["started_at"]).replace('T', " "),
                    text(&r["device"])
                ),
            )
        })
        .collect();
    let rows: Vec<Row> = list(&answer["rows"])
        .iter()
        .map(|row| Row {
            test: text(&row["test"]).replace('_', " "),
            unit: text(&row["unit"]),
            cells: list(&row["cells"]).iter().map(cell).collect(),
        })
        .collect();
    let spread = text(&answer["spread"]);
    let within_noise = text(&answer["within_noise"]);
    Page {
        title: "Compare".into(),
        runs,
        rows,
        differences: list(&answer["differences"]).iter().map(text).collect(),
        method: iomark_result::compare::METHOD,
        spread,
        within_noise,
    }
}

/// A run's figure, its difference from the baseline's and the verdict, in words.
fn cell(c: &Value) -> (String, String, String) {
    let value = c["value"].as_f64().map_or("–".into(), |v| {
        if v >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    });
    let diff = c["diff_pct"]
        .as_f64()
        .map_or(String::new(), |d| format!("{d:+.1}%"));
    let verdict = match c["verdict"].as_str() {
        None => String::new(),
        Some("cant_tell") => "can't tell".into(),
        Some(v) => v.replace('_', " "),
    };
    (value, diff, verdict)
}
