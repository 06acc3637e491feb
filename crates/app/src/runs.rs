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
use tokio::io::AsyncBufReadExt;
use tokio::sync::broadcast;

use crate::form::{Start, PROFILES};
use crate::Shared;
use iomark_result::events::{self, Ending};
use iomark_result::result::ResultDoc;

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

    /// The runs going, by number.
    pub fn going(&self) -> Vec<(u64, Arc<Run>)> {
        let runs = self.runs.lock().unwrap();
        let mut going: Vec<(u64, Arc<Run>)> = runs
            .iter()
            .filter(|(_, r)| r.going())
            .map(|(n, r)| (*n, r.clone()))
            .collect();
        going.sort_by_key(|(n, _)| *n);
        going
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
        Err(why) => return crate::pages::home_page(&app, form, Some(why)).await,
    };
    let device = device_of(Path::new(&path));
    // Checked and taken under one lock: two starts at once on one device cannot both pass.
    let mut runs = app.runs.runs.lock().unwrap();
    let going = runs.iter().find(|(_, r)| r.device == device && r.going());
    if let Some((going, _)) = going {
        let going = *going;
        drop(runs);
        return crate::pages::trouble(
            StatusCode::CONFLICT,
            "A run is going on this disk",
            &format!(
                "Run {going} is measuring this disk ({device}) now. Two runs at once would each \
                 halve the other's figures: wait for it to end, or stop it."
            ),
            (
                &format!("/runs/{going}"),
                &format!("To run {going}, where it can be stopped"),
            ),
        );
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
            drop(runs);
            return crate::pages::trouble(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The run could not start",
                &format!(
                    "iomark could not be started for it ({e}). Starting the app again may help."
                ),
                ("/", "Back to measuring"),
            );
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
    if path.is_empty() {
        return Err(
            "Choose where to measure: a filesystem in the list, or another folder with \
                    its full path typed in."
                .into(),
        );
    }
    if !Path::new(path).is_absolute() || !Path::new(path).is_dir() {
        return Err(format!(
            "'{path}' is no folder on this machine. Choose a filesystem in the list, or type the \
             full path of a folder you can write to, such as /media/pi/CARD."
        ));
    }
    let verify = form.kind == "verify";
    if !verify && !PROFILES.contains(&form.profile.as_str()) {
        return Err(format!(
            "There is no way of measuring called '{}': choose one in the list.",
            form.profile
        ));
    }
    plain_values(form)?;
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
            return Err(format!("'{value}' is not something iomark can use here."));
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

/// Each option the form holds, checked as `iomark run` would check it, and said in the form's
/// words where it is refused (the command's own words name its flags).
fn plain_values(form: &Start) -> Result<(), String> {
    use iomark_result::units::{parse_duration, parse_size};
    let given = |v: &str| Some(v.trim()).filter(|v| !v.is_empty()).map(str::to_string);
    if let Some(size) = given(&form.size) {
        if parse_size(&size).is_err() {
            return Err(format!(
                "Test file size: '{size}' is not a size. Write a number and a unit, such as 1GiB \
                 or 512MiB, or leave it empty for the profile's own."
            ));
        }
    }
    if let Some(loops) = given(&form.loops) {
        if loops != "auto" && !loops.parse::<u32>().is_ok_and(|n| (1..=1000).contains(&n)) {
            return Err(format!(
                "Loops: '{loops}' is not a number of loops. Write a whole number from 1 to 1000, \
                 or leave it empty for the profile's own."
            ));
        }
    }
    if let Some(each) = given(&form.duration) {
        if parse_duration(&each).is_err() {
            return Err(format!(
                "Each loop: '{each}' is not a length of time. Write one such as 5s or 500ms, or \
                 leave it empty for the profile's own."
            ));
        }
    }
    if let Some(threads) = given(&form.threads) {
        if !threads.parse::<u32>().is_ok_and(|n| (1..=256).contains(&n)) {
            return Err(format!(
                "Threads: '{threads}' is not a number of threads. Write a whole number from 1 to \
                 256, or leave it empty for one."
            ));
        }
    }
    if let Some(claimed) = given(&form.claimed).filter(|_| form.profile == "sdcard") {
        let known = |c: &str| {
            iomark_profiles::sdcard::CLASSES
                .iter()
                .any(|k| k.name.eq_ignore_ascii_case(c))
        };
        if let Some(odd) = claimed
            .split([',', ' '])
            .filter(|c| !c.is_empty())
            .find(|c| !known(c))
        {
            return Err(format!(
                "Classes the card claims: '{odd}' is no SD class. Write them as the card prints \
                 them, such as U3, V30, A2."
            ));
        }
    }
    Ok(())
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
        None => crate::pages::not_found().await,
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
