//! Issue 49: `iomark ui`, the local app, for real: its guard refuses what a page of another
//! site or another machine could send (no key, another Host, another Origin, a cross-site
//! form), it listens on loopback alone, and a person in Chromium picks a folder, runs quick,
//! watches the table fill, reads the result, and stops a second run midway (its test file
//! gone), on a phone's width and a laptop's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::common::cdp::Browser;
use crate::common::{entries, iomark};

/// `iomark ui --no-open` with its store in `home`, stopped (SIGINT) when dropped.
struct App {
    child: Option<Child>,
    port: u16,
    key: String,
}

impl App {
    fn start(home: &Path) -> App {
        App::start_with(home, &[])
    }

    fn start_with(home: &Path, more: &[&str]) -> App {
        let mut command = iomark(home);
        command
            .args(["ui", "--no-open"])
            .args(more)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
        App::spawn(home, &mut command)
    }

    /// `command` (an `iomark ui`) started with its runs' folder in `home`, once it says where.
    fn spawn(home: &Path, command: &mut std::process::Command) -> App {
        let mut child = command
            .env("XDG_RUNTIME_DIR", home)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in: {line}"));
        // http://ADDRESS:PORT/?key=KEY (127.0.0.1, or the address --listen gave).
        let rest = url.trim_start_matches("http://");
        let rest = rest.split_once(':').map_or(rest, |(_, r)| r);
        let (port, key) = rest.split_once("/?key=").unwrap_or_else(|| panic!("{url}"));
        App {
            child: Some(child),
            port: port.parse().unwrap(),
            key: key.to_string(),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?key={}", self.port, self.key)
    }

    fn cookie(&self) -> String {
        format!("Cookie: iomark_ui_{}={}", self.port, self.key)
    }

    /// SIGINT, then the exit status.
    fn stop(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        child.wait().unwrap()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if self.child.is_some() {
            self.stop();
        }
    }
}

/// A request as a browser (or an attacker's page) could send it, its headers as given: the
/// status, the headers and the body.
fn raw(port: u16, method: &str, path: &str, headers: &[&str], body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    let host = if headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("host:"))
    {
        String::new()
    } else {
        format!("Host: 127.0.0.1:{port}\r\n")
    };
    write!(
        stream,
        "{method} {path} HTTP/1.0\r\n{host}{extra}Content-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    let answer = String::from_utf8_lossy(&bytes);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

#[test]
fn the_app_answers_only_its_own_pages_with_its_key_at_its_address() {
    let home = tempfile::tempdir().unwrap();
    let mut app = App::start(home.path());
    let port = app.port;
    let cookie = app.cookie();
    // No key, a wrong one: refused, saying where the key is.
    let (status, _, body) = raw(port, "GET", "/", &[], "");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("the address `iomark ui` printed"), "{body}");
    assert_eq!(
        raw(
            port,
            "GET",
            "/?key=not-the-key-0000000000000000000000",
            &[],
            ""
        )
        .0,
        403
    );
    // The key: a cookie of the app's own, and the address without it.
    let (status, head, _) = raw(port, "GET", &format!("/?key={}", app.key), &[], "");
    assert_eq!(status, 303, "{head}");
    assert!(head.contains("location: /\r\n"), "{head}");
    let set = format!(
        "set-cookie: iomark_ui_{port}={}; Path=/; HttpOnly; SameSite=Strict",
        app.key
    );
    assert!(
        head.to_ascii_lowercase()
            .contains(&set.to_ascii_lowercase()),
        "{head}"
    );
    let (status, head, body) = raw(port, "GET", "/", &[&cookie], "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("What to measure"));
    assert!(
        head.contains("content-security-policy: default-src 'none'; script-src 'self'"),
        "{head}"
    );
    // Another name for this machine (DNS rebinding): refused, key or not.
    let (status, _, body) = raw(
        port,
        "GET",
        "/",
        &[&format!("Host: attacker.example:{port}"), &cookie],
        "",
    );
    assert_eq!(status, 421, "{body}");
    // Its own port only; localhost or an address by number, never a name.
    let other_port = format!("Host: 127.0.0.1:{}", port.wrapping_add(1));
    assert_eq!(raw(port, "GET", "/", &[&other_port, &cookie], "").0, 421);
    for host in [format!("localhost:{port}"), format!("[::1]:{port}")] {
        let (status, _, body) = raw(
            port,
            "GET",
            "/history",
            &[&format!("Host: {host}"), &cookie],
            "",
        );
        assert_eq!(status, 200, "{host}: {body}");
    }
    // Actions only from the app's own pages.
    let dir = tempfile::tempdir().unwrap();
    let form = format!("path={}&profile=quick", dir.path().display());
    for (headers, why) in [
        (
            vec![cookie.as_str(), "Origin: http://attacker.example"],
            "another origin",
        ),
        (vec![cookie.as_str()], "no origin at all"),
        (
            vec![cookie.as_str(), "Sec-Fetch-Site: cross-site"],
            "a cross-site fetch",
        ),
        // A form posted from another site: the browser sends no SameSite=Strict cookie.
        (
            vec!["Origin: http://attacker.example"],
            "a cross-site form, without the cookie",
        ),
    ] {
        let (status, _, body) = raw(port, "POST", "/runs", &headers, &form);
        assert_eq!(status, 403, "{why}: {body}");
    }
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "a refused action ran nothing"
    );
    // A bad folder is refused with why, before anything runs.
    let origin = format!("Origin: http://127.0.0.1:{port}");
    let (status, _, body) = raw(
        port,
        "POST",
        "/runs",
        &[&cookie, &origin],
        "path=relative/dir&profile=quick",
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("is no folder on this machine"), "{body}");
    // Every refusal is a page in the app's frame, in its words (no flags), with the form as
    // it was filled in (issue 60: a bare plain-text 400, "invalid value for '--size <SIZE>'").
    let filled = format!(
        "path=other&other={}&profile=sdcard&size=lots&loops=2&claimed=U3",
        dir.path().display()
    );
    let (status, _, body) = raw(port, "POST", "/runs", &[&cookie, &origin], &filled);
    assert_eq!(status, 400, "{body}");
    for kept in [
        "<header>",
        "Test file size: &#39;lots&#39; is not a size",
        "value=\"lots\"",
        "value=\"2\"",
        "value=\"U3\"",
        &format!("value=\"{}\"", dir.path().display()),
        "<option selected>sdcard</option>",
    ] {
        assert!(body.contains(kept), "{kept}: {body}");
    }
    assert!(!body.contains("--size"), "{body}");
    let bad_class = filled.replace("size=lots", "size=8MiB").replace("U3", "U9");
    let (status, _, body) = raw(port, "POST", "/runs", &[&cookie, &origin], &bad_class);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("&#39;U9&#39; is no SD class"), "{body}");
    // The browser's question on every page, answered plainly.
    assert_eq!(raw(port, "GET", "/favicon.ico", &[&cookie], "").0, 204);
    for (path, status, back) in [
        ("/compare?ids=01ABC", 400, "Back to the history"),
        ("/no/such/page", 404, "Back to measuring"),
        ("/runs/99", 404, "Back to measuring"),
    ] {
        let (got, _, body) = raw(port, "GET", path, &[&cookie], "");
        assert_eq!(got, status, "{path}: {body}");
        assert!(
            body.contains("<header>") && body.contains(back),
            "{path}: {body}"
        );
    }
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "a refused start ran nothing"
    );
    // A folder the run cannot write in: it fails, and its page says what the run said.
    let (status, head, _) = raw(
        port,
        "POST",
        "/runs",
        &[&cookie, &origin],
        "path=/proc&profile=quick",
    );
    assert_eq!(status, 303, "{head}");
    let failed = (0..300).find_map(|_| {
        let (_, _, body) = raw(port, "GET", "/runs/1", &[&cookie], "");
        if body.contains("id=\"failed\"") {
            return Some(body);
        }
        std::thread::sleep(Duration::from_millis(100));
        None
    });
    let failed = failed.expect("the run failed within 30 s");
    assert!(failed.contains("/proc"), "{failed}");
    // The options people change reach the run: two threads make RND4K Q32T2.
    let options = format!(
        "path={}&profile=quick&size=8MiB&loops=1&duration=0.2s&threads=2",
        dir.path().display()
    );
    let (status, head, _) = raw(port, "POST", "/runs", &[&cookie, &origin], &options);
    assert_eq!(status, 303, "{head}");
    let page = (0..600).find_map(|_| {
        let (_, _, body) = raw(port, "GET", "/runs/2", &[&cookie], "");
        if body.contains("id=\"done\"") || body.contains("id=\"failed\"") {
            return Some(body);
        }
        std::thread::sleep(Duration::from_millis(100));
        None
    });
    let page = page.expect("the run ended within 60 s");
    assert!(
        page.contains("data-row=\"RND4K_Q32T2\"") && page.contains("id=\"done\""),
        "{page}"
    );
    // Two runs started at once on one device (issue 60): one runs, the other is told which
    // run is going there, and where (two at once would each halve the other's figures).
    let started: Vec<(u16, String, String)> = std::thread::scope(|s| {
        let starts: Vec<_> = (0..2)
            .map(|_| {
                let (cookie, origin, options) = (&cookie, &origin, &options);
                s.spawn(move || raw(port, "POST", "/runs", &[cookie, origin], options))
            })
            .collect();
        starts.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut statuses: Vec<u16> = started.iter().map(|(status, _, _)| *status).collect();
    statuses.sort();
    assert_eq!(statuses, [303, 409], "{started:?}");
    let place = started
        .iter()
        .find_map(|(_, head, _)| head.lines().find_map(|l| l.strip_prefix("location: ")))
        .unwrap()
        .to_string();
    assert_eq!(place, "/runs/3", "{started:?}");
    let told = &started
        .iter()
        .find(|(status, _, _)| *status == 409)
        .unwrap()
        .2;
    assert!(told.contains("Run 3 is measuring this disk"), "{told}");
    assert!(told.contains("href=\"/runs/3\""), "{told}");
    // While it goes, every other page says so, with the way to it and Stop; its own does not.
    for path in ["/", "/history", "/health", "/no/such/page"] {
        let (_, _, body) = raw(port, "GET", path, &[&cookie], "");
        assert!(
            body.contains("id=\"going\"")
                && body.contains("Run 3 is measuring")
                && body.contains("action=\"/runs/3/stop\"")
                && body.contains("href=\"/runs/3\""),
            "{path}: {body}"
        );
    }
    let (_, _, own) = raw(port, "GET", "/runs/3", &[&cookie], "");
    assert!(!own.contains("id=\"going\""), "{own}");
    // Another folder of the same disk is the same device.
    let other = tempfile::tempdir_in(dir.path().parent().unwrap()).unwrap();
    let again = format!("path={}&profile=quick&size=8MiB", other.path().display());
    let (status, _, body) = raw(port, "POST", "/runs", &[&cookie, &origin], &again);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("href=\"/runs/3\""), "{body}");
    let done = (0..600).any(|_| {
        let (_, _, body) = raw(port, "GET", &place, &[&cookie], "");
        std::thread::sleep(Duration::from_millis(100));
        body.contains("id=\"done\"")
    });
    assert!(done, "{place} did not end with its result");
    // Once it ended, the device is free again.
    let (status, head, _) = raw(port, "POST", "/runs", &[&cookie, &origin], &again);
    assert_eq!(status, 303, "{head}");
    let done = (0..600).any(|_| {
        let (_, _, body) = raw(port, "GET", "/runs/4", &[&cookie], "");
        std::thread::sleep(Duration::from_millis(100));
        body.contains("id=\"done\"")
    });
    assert!(done, "/runs/4 did not end with its result");
    // An SD card's result: the verdict Pi owners know, Raspberry Pi's own SD Card Speed Test.
    let mut card = crate::common::doc(
        &crate::common::site::ulid(3),
        "2026-11-01T00:00:00Z",
        &[("RND4K_Q1T1_read", 0.1)],
        0.0,
    );
    card["target"]["device"] = json!({"name": "mmcblk0", "model": "SN64G", "transport": "mmc",
        "size_bytes": 63_864_569_856u64, "sd": {"kind": "SD"}});
    crate::common::ok(
        iomark(home.path())
            .arg("import")
            .arg(crate::common::write_doc(home.path(), &card)),
    );
    let (status, head, body) = raw(
        port,
        "GET",
        &format!("/results/{}", crate::common::site::ulid(3)),
        &[&cookie],
        "",
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("Raspberry Pi's SD Card Speed Test: fail (random read under 1500 IOPS)"),
        "{body}"
    );
    assert!(head.contains("style-src 'unsafe-inline'"), "{head}");
    // Loopback alone: another address of this machine does not answer.
    assert!(TcpStream::connect(("127.0.0.2", port)).is_err());
    // Ctrl-C: the app ends well, its work folder gone.
    let status = app.stop();
    assert!(status.success(), "{status:?}");
    assert!(
        !entries(home.path())
            .iter()
            .any(|e| e.starts_with("iomark-ui-")),
        "{:?}",
        entries(home.path())
    );
}

/// Opens `path` of the app on `port`.
fn go(browser: &mut Browser, port: u16, path: &str) {
    let url = format!("http://127.0.0.1:{port}{path}");
    browser.call("Page.navigate", json!({ "url": url }), true);
}

/// Picks the test's folder as a person would (another folder, typed), chooses the profile and
/// options, and starts.
fn start_run(browser: &mut Browser, dir: &Path, profile: &str, loops: &str, duration: &str) {
    browser.wait_for("document.getElementById('start') !== null");
    let script = format!(
        "(() => {{ const f = document.getElementById('start'); \
         f.querySelector('input[value=other]').checked = true; \
         f.elements.other.value = {dir}; f.elements.profile.value = {profile}; \
         f.elements.size.value = '8MiB'; f.elements.loops.value = {loops}; \
         f.elements.duration.value = {duration}; \
         f.querySelector('button[type=submit]').click(); return true; }})()",
        dir = json!(dir.display().to_string()),
        profile = json!(profile),
        loops = json!(loops),
        duration = json!(duration),
    );
    assert_eq!(browser.eval(&script), json!(true));
    browser.wait_for("location.pathname !== '/'");
    let at = browser.eval("location.pathname");
    assert!(
        at.as_str().is_some_and(|p| p.starts_with("/runs/")),
        "the run did not start: {}",
        browser.eval("document.body.innerText")
    );
}

#[test]
fn a_run_from_the_app_fills_its_table_and_stop_leaves_nothing() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::start(home.path());
    let shots = std::env::var_os("IOMARK_SHOTS").map(std::path::PathBuf::from);
    // Two health checks of a card in the store: the health screen draws them.
    let watched = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        crate::common::ok(iomark(home.path()).arg("health").arg(watched.path()));
    }
    let mut browser = Browser::open(1280, 900, false);
    browser.call("Page.navigate", json!({"url": app.url()}), true);
    browser.wait_for("location.pathname === '/' && location.search === ''");
    if let Some(shots) = &shots {
        browser.screenshot(&shots.join("ui-home-1280.png"));
    }
    // A quick run, its loops as long as the profile makes them (half a second, under the
    // once-a-second rate): the grid fills in test by test, the rate and the time left are
    // told all the same, then its result.
    start_run(&mut browser, dir.path(), "quick", "2", "");
    browser.wait_for("Array.from(document.querySelectorAll('#grid .fig')).some(f => /^[0-9.]+$/.test(f.textContent))");
    browser.wait_for("/MB\\/s.* s left/.test(document.getElementById('rate').textContent)");
    if let Some(shots) = &shots {
        browser.screenshot(&shots.join("ui-run-1280.png"));
    }
    browser.wait_for("location.pathname.startsWith('/results/')");
    let report = browser.eval("document.body.innerText");
    assert!(report.as_str().unwrap().contains("SEQ1M"), "{report}");
    // No flag is named on it: the app's words for its options.
    assert!(!report.as_str().unwrap().contains(" --"), "{report}");
    // The app's menu on it, as on every other page.
    assert_eq!(
        browser.eval("!!document.querySelector('nav.app-menu a[href=\"/history\"]')"),
        json!(true)
    );
    // Its grid, above the report: every figure as the saved document has it, as `iomark run`'s
    // table writes it.
    let first = browser.eval("location.pathname.split('/')[2]");
    let saved = crate::common::ok(iomark(home.path()).args([
        "export",
        first.as_str().unwrap(),
        "--format",
        "json",
    ]));
    let saved: serde_json::Value = serde_json::from_slice(&saved.stdout).unwrap();
    let shown = browser.eval("Object.fromEntries(Array.from(document.querySelectorAll('#grid td[data-test]')).map(td => [td.dataset.test, td.querySelector('.fig').textContent]))");
    for t in saved["tests"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let figure = format!("{:.2}", t["mb_per_s"].as_f64().unwrap());
        assert_eq!(shown[name], json!(figure), "{name}: {shown}");
    }
    assert!(
        report.as_str().unwrap().contains("The card to share"),
        "{report}"
    );
    let card = browser.eval("document.querySelector('a[download]').getAttribute('href')");
    let (status, head, _) = raw(
        app.port,
        "GET",
        card.as_str().unwrap(),
        &[&app.cookie()],
        "",
    );
    assert_eq!(status, 200);
    assert!(head.contains("content-type: image/png"), "{head}");
    if let Some(shots) = &shots {
        browser.screenshot(&shots.join("ui-result-1280.png"));
    }
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "the run removed its file"
    );
    // A longer one, stopped once it measures: its test file is gone, nothing saved.
    go(&mut browser, app.port, "/");
    start_run(&mut browser, dir.path(), "standard", "3", "5s");
    browser.wait_for("document.getElementById('rate') && document.getElementById('rate').textContent.includes('MB/s')");
    assert_eq!(
        browser.eval("document.getElementById('stop').click(), true"),
        json!(true)
    );
    browser.wait_for("document.getElementById('now').textContent.startsWith('stopped')");
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "a stopped run leaves nothing"
    );
    // A second quick run, then the two side by side with compare's verdicts.
    go(&mut browser, app.port, "/");
    start_run(&mut browser, dir.path(), "quick", "2", "");
    browser.wait_for("location.pathname.startsWith('/results/')");
    let second = browser.eval("location.pathname.split('/')[2]");
    go(&mut browser, app.port, "/history");
    browser.wait_for("location.pathname === '/history'");
    // The two runs, not the stopped one.
    assert_eq!(
        browser.eval("document.querySelectorAll('#runs tbody tr').length"),
        json!(2)
    );
    // Each run's figures as `iomark history` writes them on its line.
    let listed = crate::common::ok(iomark(home.path()).args(["history", "--color", "never"]));
    let listed = String::from_utf8(listed.stdout).unwrap();
    let found = browser.eval("Array.from(document.querySelectorAll('#runs tbody tr')).map(tr => [tr.querySelector('input').value, tr.lastElementChild.textContent])");
    for row in found.as_array().unwrap() {
        let (id, what) = (row[0].as_str().unwrap(), row[1].as_str().unwrap());
        let line = listed
            .lines()
            .find(|l| l.starts_with(&id[..10]))
            .unwrap_or_else(|| panic!("{id} not in `iomark history`: {listed}"));
        let figures: Vec<&str> = what
            .split_whitespace()
            .filter(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            .map(|w| w.trim_end_matches(','))
            .collect();
        assert_eq!(figures.len(), 2, "{what}");
        for figure in figures {
            assert!(
                line.split_whitespace().any(|w| w == figure),
                "the app's {figure} is not on `iomark history`'s line: {line}"
            );
        }
    }
    browser.eval("document.querySelectorAll('#runs input[type=checkbox]').forEach(c => c.checked = true), document.querySelector('#runs').closest('form').querySelector('button').click()");
    browser.wait_for("location.pathname === '/compare'");
    let compared = browser.eval("document.getElementById('comparison').innerText");
    let compared = compared.as_str().unwrap_or_default();
    assert!(compared.contains("SEQ1M Q8T1 read"), "{compared}");
    assert!(
        ["within noise", "faster", "slower", "can't tell"]
            .iter()
            .any(|v| compared.contains(v)),
        "{compared}"
    );
    if let Some(shots) = &shots {
        browser.screenshot(&shots.join("ui-compare-1280.png"));
    }
    // Every figure, difference and verdict as `iomark compare` writes them for the same runs,
    // in the same order.
    let ids = browser.eval("Array.from(document.querySelectorAll('#compared a')).map(a => a.getAttribute('href').split('/')[2])");
    let ids: Vec<&str> = ids
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    let cli = crate::common::ok(
        iomark(home.path())
            .arg("compare")
            .args(&ids)
            .args(["--color", "never"]),
    );
    let cli = String::from_utf8(cli.stdout).unwrap();
    let rows = browser.eval("Array.from(document.querySelectorAll('#comparison tbody tr')).map(tr => [tr.querySelector('th').firstChild.textContent.trim()].concat(Array.from(tr.querySelectorAll('td')).flatMap(td => [td.firstChild.textContent, (td.querySelector('.sub') || {}).textContent || '', (td.querySelector('.verdict') || {}).textContent || ''])).filter(w => w !== '').join(' '))");
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 8, "{rows:?}");
    for row in rows {
        let row = row.as_str().unwrap();
        // `SEQ1M Q8T1 read 7173 7044 -1.8% can't tell` against the terminal's line, its unit
        // column aside.
        let test: String = row.split(' ').take(3).collect::<Vec<_>>().join(" ");
        let line = cli
            .lines()
            .find(|l| l.starts_with(&format!("{test} ")))
            .unwrap_or_else(|| panic!("{test} not in `iomark compare`: {cli}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        let without_unit = [&words[..3], &words[4..]].concat().join(" ");
        assert_eq!(row, without_unit, "the app and `iomark compare` differ");
    }
    let compare_path = browser.eval("location.pathname + location.search");
    // Sent to a results site of the test's own: what leaves the machine first, then the
    // receipt, whose link opens the result there.
    let site_home = tempfile::tempdir().unwrap();
    let site = crate::common::site::Site::start(
        site_home.path().join("site.db").to_str().unwrap(),
        site_home.path(),
        &crate::common::site::NO_LIMITS,
    );
    let second = second.as_str().unwrap();
    browser.call("Page.navigate", json!({"url": format!("http://127.0.0.1:{}/results/{second}/submit?server={}", app.port, site.url)}), true);
    browser.wait_for(
        "document.getElementById('preview') !== null || document.getElementById('failed') !== null",
    );
    let preview = browser.eval("document.getElementById('preview') ? document.getElementById('preview').innerText : document.getElementById('failed').innerText");
    assert!(
        preview
            .as_str()
            .unwrap_or_default()
            .contains("\"schema\": \"iomark.result/1\""),
        "{preview}"
    );
    assert_eq!(
        browser.eval("document.getElementById('send').click(), true"),
        json!(true)
    );
    browser.wait_for(
        "document.getElementById('receipt') !== null || document.getElementById('failed') !== null",
    );
    let receipt = browser.eval(
        "(document.getElementById('receipt') || document.getElementById('failed')).innerText",
    );
    assert!(
        receipt
            .as_str()
            .unwrap_or_default()
            .contains(&format!("Submitted {second}")),
        "{receipt}"
    );
    let link = browser.eval("document.getElementById('link').href");
    let link = link.as_str().unwrap().to_string();
    assert_eq!(link, format!("{}/results/{second}", site.url));
    assert_eq!(crate::common::site::get(&link).status, 200);
    browser.eval("document.getElementById('link').click()");
    browser.wait_for(&format!("location.href === {}", json!(link)));
    // A phone's width: nothing wider than the screen, on every screen.
    let mut phone = Browser::open(375, 800, true);
    phone.call("Page.navigate", json!({"url": app.url()}), true);
    phone.wait_for("location.pathname === '/' && location.search === ''");
    let submit = format!("/results/{second}/submit?server={}", site.url);
    for path in [
        "/",
        "/runs/1",
        "/runs/2",
        "/history",
        "/health",
        compare_path.as_str().unwrap(),
        &submit,
        "/no/such/page",
    ] {
        go(&mut phone, app.port, path);
        phone.wait_for(&format!(
            "location.pathname + location.search === {}",
            json!(path)
        ));
        assert!(!phone.overflows(), "{path} at 375 px: {}", phone.too_wide());
        if let Some(shots) = &shots {
            let name: String = path
                .split('?')
                .next()
                .unwrap()
                .trim_matches('/')
                .replace('/', "-");
            phone.screenshot(&shots.join(format!(
                "ui-{}-375.png",
                if name.is_empty() { "home" } else { &name }
            )));
        }
    }
    // A result's charts at a phone's width: drawn at most a sixth smaller than they were
    // made (their 12 and 13 px labels at 10 px or more), in a figure that scrolls sideways,
    // the page itself no wider than the screen.
    go(&mut phone, app.port, &format!("/results/{second}"));
    phone.wait_for("document.querySelectorAll('figure.chart svg').length > 0");
    let scales = phone.eval("Array.from(document.querySelectorAll('figure.chart svg')).map(s => [s.getBoundingClientRect().width / s.viewBox.baseVal.width, getComputedStyle(s.parentElement).overflowX])");
    for scale in scales.as_array().unwrap() {
        assert!(
            scale[0].as_f64().unwrap() >= 0.83,
            "a chart drawn at {scale} at 375 px"
        );
        assert_eq!(scale[1], json!("auto"), "{scale}");
    }
    assert!(
        !phone.overflows(),
        "a result at 375 px: {}",
        phone.too_wide()
    );
    if let Some(shots) = &shots {
        phone.screenshot(&shots.join("ui-result-375.png"));
    }
    // The health screen: the card's checks over time, drawn.
    go(&mut browser, app.port, "/health");
    browser.wait_for("location.pathname === '/health'");
    let health = browser.eval("[document.querySelector('section.watched h2').textContent, document.querySelector('section.watched strong').textContent, document.querySelectorAll('section.watched svg').length]");
    assert_eq!(
        health,
        json!([
            watched.path().canonicalize().unwrap().display().to_string(),
            "healthy",
            1
        ]),
        "{health}"
    );
    // Check now, as a person would: the button, then the page with one check more.
    let checks = |b: &mut Browser| {
        browser_text(
            b,
            "document.querySelector('section.watched p .sub').textContent",
        )
    };
    let before = checks(&mut browser);
    assert_eq!(
        browser.eval("document.querySelector('section.watched form[action=\"/health/check\"] button').click(), true"),
        json!(true)
    );
    browser.wait_for("location.pathname === '/health' && document.querySelector('section.watched p .sub').textContent.includes('3 checks')");
    let after = checks(&mut browser);
    assert_eq!(
        (before.as_str(), after.as_str()),
        ("(2 checks)", "(3 checks)")
    );
    // A start refused (a size no one writes), at a phone's width: the app's frame, the form as
    // it was filled in, nothing wider than the screen.
    go(&mut phone, app.port, "/");
    phone.wait_for("document.getElementById('start') !== null");
    let refused = format!(
        "(() => {{ const f = document.getElementById('start'); \
         f.querySelector('input[value=other]').checked = true; \
         f.elements.other.value = {}; f.elements.size.value = 'lots'; \
         f.querySelector('button[type=submit]').click(); return true; }})()",
        json!(dir.path().display().to_string())
    );
    assert_eq!(phone.eval(&refused), json!(true));
    phone.wait_for("document.getElementById('trouble') !== null");
    assert!(
        !phone.overflows(),
        "a refused start at 375 px: {}",
        phone.too_wide()
    );
    assert_eq!(
        phone.eval("document.getElementById('start').elements.size.value"),
        json!("lots")
    );
    if let Some(shots) = &shots {
        phone.screenshot(&shots.join("ui-refused-375.png"));
    }
    // A card checked (verify) from the home page: its steps, then its result.
    go(&mut browser, app.port, "/");
    browser.wait_for("document.getElementById('verify') !== null");
    let script = format!(
        "(() => {{ const f = document.getElementById('verify'); f.elements.path.value = 'other'; \
         f.elements.other.value = {}; f.elements.size.value = '256MiB'; \
         f.querySelector('button').click(); return true; }})()",
        json!(dir.path().display().to_string())
    );
    assert_eq!(browser.eval(&script), json!(true));
    browser.wait_for("location.pathname.startsWith('/results/')");
    let report = browser.eval("document.body.innerText");
    assert!(
        report.as_str().unwrap_or_default().contains("intact"),
        "{report}"
    );
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "verify removed its files"
    );
    // Ctrl-C to the app while a run goes: the run is stopped as Ctrl-C stops it, its file
    // removed, and the app ends well.
    go(&mut browser, app.port, "/");
    start_run(&mut browser, dir.path(), "standard", "3", "5s");
    browser.wait_for("document.getElementById('rate') && document.getElementById('rate').textContent.includes('MB/s')");
    let asked = std::time::Instant::now();
    let status = app.stop();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "the app's Ctrl-C left nothing"
    );
    // Not after the run would have ended (a watching page once held the app for its 2 minutes).
    assert!(
        asked.elapsed() < Duration::from_secs(30),
        "{:?}",
        asked.elapsed()
    );
}

/// Started from a menu, the app has no terminal to be stopped from: it stops by itself after
/// its idle time without a visit, its folder gone; a visit keeps it.
#[test]
fn the_app_stops_by_itself_when_nobody_visits() {
    let home = tempfile::tempdir().unwrap();
    let mut app = App::start_with(home.path(), &["--idle-stop", "5s"]);
    let started = std::time::Instant::now();
    let mut child = app.child.take().unwrap();
    // Visits for 7 s keep it (each well inside the 5 s, however busy the machine).
    while started.elapsed() < Duration::from_secs(7) {
        assert_eq!(
            raw(app.port, "GET", "/history", &[&app.cookie()], "").0,
            200
        );
        assert!(child.try_wait().unwrap().is_none(), "stopped while visited");
        std::thread::sleep(Duration::from_millis(250));
    }
    let status = (0..300)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(100));
            child.try_wait().unwrap()
        })
        .expect("stopped within 30 s of the last visit");
    assert!(status.success(), "{status:?}");
    assert!(!entries(home.path())
        .iter()
        .any(|e| e.starts_with("iomark-ui-")));
    // Told to listen beyond this machine: it says so.
    let out = iomark(home.path())
        .args([
            "ui",
            "--no-open",
            "--listen",
            "0.0.0.0:0",
            "--idle-stop",
            "1s",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("lets other machines reach this app"),
        "{said}"
    );
}

/// The menu entry the .deb installs, as desktops read it: valid, starting `iomark ui`, with
/// its icon, both named in the package's assets.
#[test]
fn the_menu_entry_is_valid_and_starts_the_app() {
    crate::common::need("desktop-file-validate", "desktop-file-utils");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let entry = root.join("packaging/desktop/iomark.desktop");
    let out = std::process::Command::new("desktop-file-validate")
        .arg(&entry)
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(
        text.contains("\nExec=iomark ui\n") && text.contains("\nIcon=iomark\n"),
        "{text}"
    );
    assert!(text.contains("\nCategories=System;\n"), "{text}");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for asset in [
        "packaging/desktop/iomark.desktop",
        "packaging/desktop/iomark.svg",
    ] {
        assert!(
            manifest.contains(asset),
            "{asset} is not among the .deb's assets"
        );
    }
}

/// Issue 60: the key reaches no other user of the machine. The browser is opened with a file
/// only this user can read (never the keyed address on a command line, which `ps` shows
/// everyone), the file carries the key on, `xdg-open` is waited for (no zombie), and no
/// process's command line or environment holds the key; as another user, the file cannot be
/// read and a request without the key is refused.
#[test]
fn the_key_is_on_no_command_line_and_in_no_file_another_user_reads() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let seen = bin.path().join("seen");
    // A stand-in for the desktop's opener: it says what it was given and what the file holds.
    let opener = bin.path().join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}.args'\ncat \"$1\" > '{0}.page'\nmv '{0}.page' '{0}'\n",
            seen.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap()
    );
    let mut command = iomark(home.path());
    command.arg("ui").env("DISPLAY", ":99").env("PATH", path);
    let mut app = App::spawn(home.path(), &mut command);
    let (pid, key) = (app.child.as_ref().unwrap().id(), app.key.clone());
    let began = std::time::Instant::now();
    while !seen.exists() && began.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let args = std::fs::read_to_string(seen.with_extension("args")).unwrap();
    assert!(
        !args.contains(&key),
        "the opener's command line holds the key: {args}"
    );
    let file = Path::new(args.trim());
    let page = std::fs::read_to_string(&seen).unwrap();
    assert!(page.contains(&format!("?key={key}")), "{page}");
    let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}", file.display());
    // The opener, done, is not left a zombie.
    std::thread::sleep(Duration::from_millis(500));
    let zombies: Vec<String> = children(pid)
        .into_iter()
        .filter(|stat| stat.contains(") Z "))
        .collect();
    assert!(zombies.is_empty(), "{zombies:?}");
    // No process of the machine holds the key where others can read it.
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        for part in ["cmdline", "environ"] {
            let text = std::fs::read(entry.path().join(part)).unwrap_or_default();
            let text = String::from_utf8_lossy(&text);
            assert!(
                !text.contains(&key),
                "{} holds the key: {text}",
                entry.path().join(part).display()
            );
        }
    }
    if crate::common::is_root() {
        let nobody = |args: &[&str]| {
            std::process::Command::new("setpriv")
                .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
                .args(args)
                .output()
                .unwrap()
        };
        let read = nobody(&["cat", file.to_str().unwrap()]);
        assert!(!read.status.success(), "another user read the key's file");
        let listed = nobody(&["ls", home.path().to_str().unwrap()]);
        let text = String::from_utf8_lossy(&listed.stdout);
        assert!(!text.contains(&key));
    } else {
        crate::common::skip("another user's view needs root to become nobody");
    }
    assert!(app.stop().code().is_some());
}

/// The `stat` lines of `pid`'s children.
fn children(pid: u32) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            stat.rsplit_once(") ")
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .is_some_and(|ppid| ppid == pid.to_string())
        })
        .collect()
}

/// Issue 60: "Is my card dying?" needed a terminal; the health page only said which command to
/// type. From the app: a check now, of a folder already watched or a new one, and a schedule
/// made only with the consent the form asks for, and removed, each the command itself.
#[test]
fn health_from_the_app_checks_now_and_schedules_with_consent() {
    crate::common::need("systemctl", "systemd");
    if std::path::Path::new("/run/systemd/system").is_dir() {
        crate::common::skip("systemd runs this machine: enabling a timer would start a real one");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let card = tempfile::tempdir().unwrap();
    let mut command = iomark(home.path());
    command
        .args(["ui", "--no-open"])
        .env("XDG_CONFIG_HOME", config.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let app = App::spawn(home.path(), &mut command);
    let (port, cookie) = (app.port, app.cookie());
    let origin = format!("Origin: http://127.0.0.1:{port}");
    let post = |path: &str, form: &str| raw(port, "POST", path, &[&cookie, &origin], form);
    let folder = card.path().canonicalize().unwrap().display().to_string();
    // A first check, of a folder typed in: the page then shows it with its verdict.
    let (status, head, body) = post("/health/check", &format!("path=other&other={folder}"));
    assert_eq!(status, 303, "{head}{body}");
    let (_, _, page) = raw(port, "GET", "/health", &[&cookie], "");
    assert!(page.contains(&format!("<h2>{folder}</h2>")), "{page}");
    assert!(
        page.contains("(1 checks)") && page.contains("healthy"),
        "{page}"
    );
    assert!(card.path().join("iomark-health").is_dir());
    // Check now, from its own section.
    assert_eq!(post("/health/check", &format!("path={folder}")).0, 303);
    let (_, _, page) = raw(port, "GET", "/health", &[&cookie], "");
    assert!(page.contains("(2 checks)"), "{page}");
    // No folder, or a schedule without consent: a page saying why, nothing written.
    let (status, _, body) = post("/health/check", "path=other&other=/no/such/card");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("is no folder") && body.contains("<header>"),
        "{body}"
    );
    let (status, _, body) = post("/health/schedule", &format!("path={folder}&action=make"));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("tick that you agree"), "{body}");
    let units = config.path().join("systemd/user");
    let timers = || -> Vec<String> {
        if !units.is_dir() {
            return Vec::new();
        }
        entries(&units)
            .into_iter()
            .filter(|e| e.ends_with(".timer"))
            .collect()
    };
    assert!(timers().is_empty(), "{:?}", entries(&units));
    // With consent: a timer of the user's, said in the app's words; then removed.
    let (status, _, body) = post(
        "/health/schedule",
        &format!("path={folder}&action=make&consent=yes"),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("checked every 6 hours"), "{body}");
    assert!(!body.contains("--remove-timer"), "{body}");
    assert_eq!(timers().len(), 1, "{:?}", entries(&units));
    let (status, _, body) = post("/health/schedule", &format!("path={folder}&action=remove"));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("no longer checked on a schedule"), "{body}");
    assert!(timers().is_empty(), "{:?}", entries(&units));
}

/// Issue 60: most Pis are headless, and nothing said how to use the app from the laptop beside
/// it. Without a desktop, `iomark ui` prints the SSH tunnel to copy; with `--listen` on the
/// Pi's own address, a computer on another network stack (a second network namespace, as a
/// laptop on the LAN) reaches it with the key, and without the key is refused.
#[test]
fn a_headless_pi_is_reached_from_the_laptop_beside_it() {
    // Without a desktop, on loopback: the tunnel to copy, to the same port.
    let home = tempfile::tempdir().unwrap();
    let mut command = iomark(home.path());
    command
        .args(["ui", "--no-open"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("USER", "pi");
    let mut child = command
        .env("XDG_RUNTIME_DIR", home.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        out.read_line(&mut said).unwrap();
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait().unwrap();
    let port = said
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        said.contains(&format!("ssh -N -L {port}:127.0.0.1:{port} pi@")),
        "{said}"
    );
    // The LAN, as a second network namespace joined to this one by a veth pair.
    if !crate::common::root_for("a second network namespace") {
        return;
    }
    crate::common::need("ip", "iproute2");
    crate::common::need("curl", "curl");
    let ns = format!("iomark-laptop-{}", std::process::id());
    let ip = |args: &[&str]| {
        std::process::Command::new("ip")
            .args(args)
            .status()
            .unwrap()
            .success()
    };
    struct Gone(String);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::process::Command::new("ip")
                .args(["netns", "delete", &self.0])
                .status();
        }
    }
    assert!(ip(&["netns", "add", &ns]), "ip netns add");
    let _gone = Gone(ns.clone());
    let (pi, laptop) = (
        format!("veth-pi{}", std::process::id() % 10000),
        format!("veth-lt{}", std::process::id() % 10000),
    );
    assert!(ip(&[
        "link", "add", &pi, "type", "veth", "peer", "name", &laptop
    ]));
    assert!(ip(&["link", "set", &laptop, "netns", &ns]));
    assert!(ip(&["addr", "add", "10.213.77.1/30", "dev", &pi]));
    assert!(ip(&["link", "set", &pi, "up"]));
    assert!(ip(&[
        "netns",
        "exec",
        &ns,
        "ip",
        "addr",
        "add",
        "10.213.77.2/30",
        "dev",
        &laptop
    ]));
    assert!(ip(&[
        "netns", "exec", &ns, "ip", "link", "set", &laptop, "up"
    ]));
    let app = App::start_with(home.path(), &["--listen", "10.213.77.1:0"]);
    let from_laptop = |path: &str| -> String {
        let out = std::process::Command::new("ip")
            .args([
                "netns",
                "exec",
                &ns,
                "curl",
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
            ])
            .arg(format!("http://10.213.77.1:{}{path}", app.port))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(from_laptop(&format!("/?key={}", app.key)), "303");
    assert_eq!(from_laptop("/"), "403");
    assert_eq!(from_laptop("/?key=not-the-key"), "403");
    drop(app);
    let _ = std::process::Command::new("ip")
        .args(["link", "delete", &pi])
        .status();
}

/// The text `script` evaluates to in `browser`.
fn browser_text(browser: &mut Browser, script: &str) -> String {
    browser
        .eval(script)
        .as_str()
        .unwrap_or_default()
        .to_string()
}
