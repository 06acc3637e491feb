//! `/compare?ids=A&ids=B…`: saved runs side by side with the verdicts `iomark compare` gives
//! (its JSON, read from a child), the oldest the baseline, and what the verdicts mean.

use std::time::Duration;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::Shared;
use iomark_result::compare::{Cell, Comparison};

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
        return crate::pages::trouble(
            StatusCode::BAD_REQUEST,
            "Two runs to compare",
            "Comparing needs two runs or more: tick them in the history, then Compare.",
            ("/history", "Back to the history"),
        );
    }
    let mut args = vec!["compare"];
    args.extend(ids.iter().map(String::as_str));
    args.push("--json");
    let json = match crate::iomark(&app, &args, Duration::from_secs(60)).await {
        Ok((out, _)) => out,
        Err(why) => {
            return crate::pages::trouble(
                StatusCode::BAD_REQUEST,
                "These runs cannot be compared",
                &format!("iomark could not compare them: {why}"),
                ("/history", "Back to the history"),
            )
        }
    };
    let Ok(answer) = serde_json::from_str::<Comparison>(&json) else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "iomark compare answered no comparison",
        )
            .into_response();
    };
    crate::pages::page(&of(answer))
}

fn of(answer: Comparison) -> Page {
    let runs = answer
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let label = r
                .label
                .as_deref()
                .map(|l| format!(" · {l}"))
                .unwrap_or_default();
            (
                iomark_result::compare::letter(i),
                r.id.clone(),
                format!("{} · {}{label}", r.started_at.replace('T', " "), r.device),
            )
        })
        .collect();
    let rows: Vec<Row> = answer
        .rows
        .iter()
        .map(|row| Row {
            test: row.test.replace('_', " "),
            unit: row.unit.clone(),
            cells: row.cells.iter().map(cell).collect(),
        })
        .collect();
    Page {
        title: "Compare".into(),
        runs,
        rows,
        differences: answer.differences,
        method: iomark_result::compare::METHOD,
        spread: answer.spread.unwrap_or_default(),
        within_noise: answer.within_noise.unwrap_or_default(),
    }
}

/// A run's figure, its difference from the baseline's and the verdict, in words.
fn cell(c: &Option<Cell>) -> (String, String, String) {
    let Some(c) = c else {
        return ("–".into(), String::new(), String::new());
    };
    let value = iomark_result::units::figure(c.value).to_string();
    let diff = c.diff_pct.map_or(String::new(), |d| format!("{d:+.1}%"));
    let verdict = c.verdict.map_or(String::new(), |v| v.as_str().to_string());
    (value, diff, verdict)
}
