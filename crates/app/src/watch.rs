//! `/runs/N`: a run as it goes and how it ended: what it does now, its tests' figures in the
//! grid (`grid.rs`), its steps, Stop while it goes, and its result or what it said when it
//! failed. The page refreshes itself where scripts do not run; `ui.js` makes it live.

use askama::Template;
use axum::extract::{Path as UrlPath, State};
use axum::response::Response;

use crate::grid::Grid;
use crate::pages::{not_found, page};
use crate::Shared;
use iomark_result::events::{Ending, Event};
use iomark_result::units::Rate;

#[derive(Template)]
#[template(path = "run.html")]
struct RunPage {
    title: String,
    n: u64,
    path: String,
    profile: String,
    /// Its tests' figures so far, in the grid.
    grid: String,
    /// Its steps that are no test (writing the test file; verify's writing and reading back),
    /// each with its rate.
    steps: Vec<String>,
    /// What it is doing now, or how it ended.
    now: String,
    going: bool,
    result: Option<String>,
    failed: Option<String>,
}

pub async fn run(State(app): State<Shared>, UrlPath(n): UrlPath<u64>) -> Response {
    let Some(run) = app.runs.get(n) else {
        return not_found().await;
    };
    let state = run.state();
    let mut grid = Grid::default();
    let mut steps: Vec<String> = Vec::new();
    let mut now = "starting".to_string();
    for line in &state.lines {
        match line {
            Event::Start { phase } => now = phase.clone(),
            Event::Done(done) => {
                let (Some(test), Some(mb)) = (&done.test, done.mb_per_s) else {
                    let rate = done
                        .summary
                        .clone()
                        .or_else(|| done.mb_per_s.map(|mb| Rate(mb).to_string()));
                    steps.push(format!(
                        "{}: {}",
                        done.phase,
                        rate.unwrap_or_else(|| "done".into())
                    ));
                    continue;
                };
                grid.put(test, mb);
            }
            Event::Tick { .. } | Event::Note { .. } | Event::End(_) => {}
        }
    }
    let (going, result, failed) = match &state.end {
        None => (true, None, None),
        Some(Ending::Done { result }) => (false, Some(result.clone()), None),
        Some(Ending::Stopped) => (false, None, None),
        Some(Ending::Failed { message }) => (false, None, Some(message.clone())),
    };
    if let Some(end) = &state.end {
        now = match end {
            Ending::Done { .. } => "done: saved in your history".into(),
            Ending::Stopped => "stopped: its test file is removed".into(),
            Ending::Failed { .. } => "failed".into(),
        };
    }
    page(&RunPage {
        title: match run.profile.as_str() {
            "verify" => format!("Check {n}"),
            _ => format!("Run {n}"),
        },
        steps,
        n,
        path: run.path.clone(),
        profile: run.profile.clone(),
        grid: grid.render().unwrap_or_default(),
        now,
        going,
        result,
        failed,
    })
}
