//! The runs the app started: each `iomark run PATH --progress json --json FILE` as a child,
//! its progress lines (one JSON object each on its standard error) kept and sent on to the
//! pages that watch it, Stop as Ctrl-C (SIGINT), and its end: the result it saved, stopped, or
//! what it said when it failed.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Form, Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::io::AsyncBufReadExt;
use tokio::sync::broadcast;

use crate::Shared;
use iomark_result::events::{self, Ending};
use iomark_result::result::ResultDoc;

/// The profiles a run may be started with, as `iomark run --profile` names them.
pub const PROFILES: [&str; 5] = ["standard", "quick", "nvme", "pi", "sdcard"];

/// What the start form sends: a run, or with `kind` verify, a check of what a card keeps.
#[derive(Deserialize)]
pub struct Start {
    #[serde(default)]
    pub kind: String,
    pub path: String,
    #[serde(default)]
    pub other: String,
    #[serde(default)]
    pub profile: String,
    #[serde(default)]
    pub size: String,
    #[serde(default)]
    pub loops: String,
    #[serde(default)]
    pub duration: String,
    #[serde(default)]
    pub claimed: String,
    #[serde(default)]
    pub threads: String,
}

#[derive(Default)]
pub struct Runs {
    runs: Mutex<HashMap<u64, Arc<Run>>>,
    /// The last run's number: each start takes the next (two at once never share one, nor
    /// their document's file).
    last: std::sync::atomic::AtomicU64,
}

pub struct Run {
    pub path: String,
    pub profile: String,
    /// The device it measures (`device_of`): one run at a time on each.
    device: String,
    pid: Option<u32>,
    state: Mutex<Progress>,
    events: broadcast::Sender<events::Event>,
}

/// A run's progress so far.
#[derive(Clone, Default)]
pub struct Progress {
    /// Its progress lines, as the run wrote them, and how it ended.
    pub lines: Vec<events::Event>,
    pub end: Option<Ending>,
}

impl Runs {
    pub fn get(&self, n: u64) -> Option<Arc<Run>> {
        self.runs.lock().unwrap().get(&n).cloned()
    }

    /// Whether a run is going.
    pub fn any_going(&self) -> bool {
        self.runs.lock().unwrap().values().any(|r| r.going())
    }

    /// Every run still going stopped as Ctrl-C stops it, and waited for (a test file is
    /// removed by the run itself).
    pub async fn stop_all(&self) {
        let going: Vec<Arc<Run>> = self.runs.lock().unwrap().values().cloned().collect();
        for run in &going {
            run.stop();
        }
        for run in going {
            for _ in 0..300 {
                if run.state().end.is_some() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

impl Run {
    pub fn state(&self) -> Progress {
        self.state.lock().unwrap().clone()
    }

    /// Whether it has not ended (without copying its lines).
    fn going(&self) -> bool {
        self.state.lock().unwrap().end.is_none()
    }

    /// Ctrl-C to the run, while it goes.
    pub fn stop(&self) {
        if let (Some(pid), None) = (self.pid, &self.state.lock().unwrap().end) {
            // SAFETY: a signal to our own child, which has not been waited for (its end is
            // not yet known), so the id is still its.
            unsafe { libc::kill(pid as i32, libc::SIGINT) };
        }
    }

    fn said(&self, line: events::Event) {
        let mut state = self.state.lock().unwrap();
        let _ = self.events.send(line.clone());
        state.lines.push(line);
    }

    fn ended(&self, end: Ending) {
        let mut state = self.state.lock().unwrap();
        let _ = self.events.send(events::Event::End(end.clone()));
        state.end = Some(end);
    }
}

/// `POST /runs`: a run started with the form's choices; its page follows.
pub async fn start(State(app): State<Shared>, Form(form): Form<Start>) -> Response {
    let path = match form.path.as_str() {
        "other" => form.other.trim().to_string(),
        chosen => chosen.to_string(),
    };
    let args = match arguments(&app, &form, &path) {
        Ok(args) => args,
        Err(why) => return (StatusCode::BAD_REQUEST, why).into_response(),
    };
    let device = device_of(Path::new(&path));
    // Checked and taken under one lock: two starts at once on one device cannot both pass.
    let mut runs = app.runs.runs.lock().unwrap();
    let going = runs.iter().find(|(_, r)| r.device == device && r.going());
    if let Some((going, _)) = going {
        return (
            StatusCode::CONFLICT,
            format!(
                "a run is going on this device ({device}) already: run {going}, at /runs/{going}. \
                 Two at once would each halve the other's figures: wait for it, or stop it there."
            ),
        )
            .into_response();
    }
    let n = app
        .runs
        .last
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        + 1;
    let document = app.config.work.join(format!("run-{n}.json"));
    let mut command = tokio::process::Command::new(&app.config.exe);
    command
        .args(&args)
        .arg("--json")
        .arg(&document)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the run could not start: {e}"),
            )
                .into_response()
        }
    };
    let (events, _) = broadcast::channel(1024);
    let run = Arc::new(Run {
        path,
        device,
        profile: match form.kind == "verify" {
            true => "verify".into(),
            false => form.profile.clone(),
        },
        pid: child.id(),
        state: Default::default(),
        events,
    });
    runs.insert(n, run.clone());
    drop(runs);
    let stderr = child.stderr.take();
    tokio::spawn(async move {
        let mut notes = Vec::new();
        if let Some(stderr) = stderr {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                // A line that is no progress event is what the run said (a warning, its error).
                match serde_json::from_str::<events::Event>(&line) {
                    Ok(events::Event::End(_)) => notes.push(line),
                    Ok(event) => run.said(event),
                    Err(_) if !line.trim().is_empty() => notes.push(line),
                    Err(_) => {}
                }
            }
        }
        let status = child.wait().await;
        run.ended(ending(status, &document, &notes));
        let _ = std::fs::remove_file(&document);
    });
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, format!("/runs/{n}"))],
    )
        .into_response()
}

/// The device a folder is on, as one run at a time sees it: the disk the probe names below
/// any partition, LUKS, LVM or md layer (what `iomark run` would measure); a filesystem of no
/// block device (tmpfs) by its own number.
fn device_of(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let target = iomark_core::probe::local_target(path);
    match target.device.and_then(|d| d.name) {
        Some(name) => name,
        None => std::fs::metadata(path)
            .map(|m| format!("{}:{}", libc::major(m.dev()), libc::minor(m.dev())))
            .unwrap_or_else(|_| path.display().to_string()),
    }
}

/// How a run ended, from its exit status, its document and what it said.
fn ending(
    status: std::io::Result<std::process::ExitStatus>,
    document: &Path,
    notes: &[String],
) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    let said = || {
        let last: Vec<&str> = notes
            .iter()
            .rev()
            .take(6)
            .rev()
            .map(String::as_str)
            .collect();
        last.join("\n")
    };
    match status {
        Ok(s) if s.success() => {
            // Read as text: the document's readers are built for text once, not again for bytes.
            let saved = std::fs::read_to_string(document)
                .ok()
                .and_then(|text| serde_json::from_str::<ResultDoc>(&text).ok());
            match saved {
                Some(doc) => Ending::Done { result: doc.id },
                None => Ending::Failed {
                    message: format!("the run ended without its result. {}", said()),
                },
            }
        }
        // Ctrl-C: iomark's own 130, or the signal itself.
        Ok(s) if s.code() == Some(130) || s.signal() == Some(libc::SIGINT) => Ending::Stopped,
        Ok(_) => Ending::Failed { message: said() },
        Err(e) => Ending::Failed {
            message: format!("the run could not be waited for: {e}"),
        },
    }
}

/// The run's arguments from the form, each checked: a folder that is one, a profile iomark
/// has, sizes and counts as `iomark run` reads them (it checks them again).
fn arguments(app: &Shared, form: &Start, path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() || !Path::new(path).is_absolute() || !Path::new(path).is_dir() {
        return Err(format!(
            "'{path}' is not a folder: choose a filesystem or give a folder's full path"
        ));
    }
    let verify = form.kind == "verify";
    if !verify && !PROFILES.contains(&form.profile.as_str()) {
        return Err(format!("no profile '{}'", form.profile));
    }
    let mut args: Vec<String> = match verify {
        true => vec!["verify".into(), path.into()],
        false => vec![
            "run".into(),
            path.into(),
            "--profile".into(),
            form.profile.clone(),
        ],
    };
    args.extend(["--progress".into(), "json".into()]);
    for (flag, value) in [
        ("--size", &form.size),
        ("--loops", &form.loops),
        ("--duration", &form.duration),
        ("--claimed", &form.claimed),
        ("--threads", &form.threads),
    ] {
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        if value.starts_with('-') || value.len() > 64 || value.contains(char::is_control) {
            return Err(format!("{flag}: '{value}' is not a value"));
        }
        if (flag == "--claimed" && form.profile != "sdcard") || (verify && flag != "--size") {
            continue;
        }
        args.extend([flag.to_string(), value.to_string()]);
    }
    if let Some(db) = &app.config.db {
        args.extend(["--db".to_string(), db.clone()]);
    }
    Ok(args)
}

/// `POST /runs/N/stop`: Ctrl-C to the run; its page follows.
pub async fn stop(State(app): State<Shared>, UrlPath(n): UrlPath<u64>) -> Response {
    match app.runs.get(n) {
        Some(run) => {
            run.stop();
            (
                StatusCode::SEE_OTHER,
                [(header::LOCATION, format!("/runs/{n}"))],
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, "no such run").into_response(),
    }
}

/// `GET /runs/N/events`: the run's progress lines so far, then each as it comes, then its end
/// (server-sent events, a JSON object each).
pub async fn events(State(app): State<Shared>, UrlPath(n): UrlPath<u64>) -> Response {
    let Some(run) = app.runs.get(n) else {
        return (StatusCode::NOT_FOUND, "no such run").into_response();
    };
    // Subscribed before the lines so far are read: none falls between.
    let receiver = run.events.subscribe();
    let state = run.state();
    let mut first = state.lines.clone();
    if let Some(end) = &state.end {
        first.push(events::Event::End(end.clone()));
    }
    let ended = state.end.is_some();
    let stream = futures_util::stream::unfold(
        (first.into_iter(), receiver, ended),
        |(mut first, mut receiver, ended)| async move {
            if let Some(line) = first.next() {
                return Some((
                    Ok::<_, std::convert::Infallible>(Event::default().data(line.line())),
                    (first, receiver, ended),
                ));
            }
            if ended {
                return None;
            }
            loop {
                match receiver.recv().await {
                    Ok(line) => {
                        let last = matches!(line, events::Event::End(_));
                        let data = Event::default().data(line.line());
                        return Some((Ok(data), (first, receiver, last)));
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
