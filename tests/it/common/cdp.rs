//! A small driver for headless Chromium over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: commands on fd 3, answers on fd 4, each a JSON text ended by a
//! NUL), so that browser tests can load pages, type, click, measure the layout and take
//! screenshots as a person's browser would. Nothing reaches the network but the pages asked for.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub fn chromium() -> PathBuf {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .expect("browser tests need Chromium: apt-get install chromium (tests/run installs it)")
}

/// Chromium, headless, with nothing that reaches out to the network, its profile in `profile`.
pub fn headless(profile: &Path) -> Command {
    let mut command = Command::new(chromium());
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

pub struct Browser {
    child: Child,
    commands: std::fs::File,
    answers: Receiver<Value>,
    next: u64,
    session: String,
    width: u32,
    _profile: tempfile::TempDir,
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    /// A new headless browser with one page of `width`×`height` CSS pixels (a phone's, with
    /// `mobile`).
    pub fn open(width: u32, height: u32, mobile: bool) -> Browser {
        use std::os::fd::AsRawFd;
        let profile = tempfile::tempdir().unwrap();
        let (their_in, our_out) = pipe();
        let (our_in, their_out) = pipe();
        let (fd_in, fd_out) = (their_in.as_raw_fd(), their_out.as_raw_fd());
        let mut command = headless(profile.path());
        command
            .arg("--remote-debugging-pipe")
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(if std::env::var_os("IOMARK_BROWSER_LOG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        unsafe {
            command.pre_exec(move || {
                // Out of the way of 3 and 4 first (either may be one of them), then onto them;
                // dup2 clears close-on-exec on the copies.
                let high_in = libc::fcntl(fd_in, libc::F_DUPFD, 10);
                let high_out = libc::fcntl(fd_out, libc::F_DUPFD, 10);
                if high_in < 0
                    || high_out < 0
                    || libc::dup2(high_in, 3) < 0
                    || libc::dup2(high_out, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(high_in);
                libc::close(high_out);
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        drop(their_in);
        drop(their_out);
        let (tx, answers) = std::sync::mpsc::channel();
        let mut reader = std::fs::File::from(our_in);
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&buf[..n]);
                while let Some(end) = pending.iter().position(|b| *b == 0) {
                    let message: Vec<u8> = pending.drain(..=end).collect();
                    if let Ok(value) = serde_json::from_slice(&message[..message.len() - 1]) {
                        if tx.send(value).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut browser = Browser {
            child,
            commands: std::fs::File::from(our_out),
            answers,
            next: 0,
            session: String::new(),
            width,
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}), false);
        let target_id = target["targetId"].as_str().unwrap().to_string();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
            false,
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        browser.call("Page.enable", json!({}), true);
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
            true,
        );
        browser
    }

    /// Sends one command (to the page's session if `page`) and waits up to 30 s for its answer.
    pub fn call(&mut self, method: &str, params: Value, page: bool) -> Value {
        self.next += 1;
        let id = self.next;
        let mut message = json!({"id": id, "method": method, "params": params});
        if page {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(answer) if answer["id"] == json!(id) => {
                    if let Some(error) = answer.get("error") {
                        return json!({"error": error});
                    }
                    return answer["result"].clone();
                }
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => panic!("{method}: no answer within 30 s"),
                Err(RecvTimeoutError::Disconnected) => panic!("{method}: the browser went away"),
            }
        }
    }

    /// Evaluates a JavaScript expression in the page (as the DevTools console does: the page's
    /// own policy forbids its scripts, not the person at the console) and returns its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
            true,
        );
        if result.get("error").is_some() || result.get("exceptionDetails").is_some() {
            return json!({"error": result});
        }
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true in a fully loaded page (across a navigation).
    pub fn wait_for(&mut self, expression: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let check = format!("document.readyState === 'complete' && ({expression})");
        while self.eval(&check) != json!(true) {
            assert!(
                Instant::now() < deadline,
                "not within 30 s: {expression}, at {}",
                self.eval("location.href")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}), true);
        self.wait_for(&format!("location.href === {}", json!(url)));
    }

    /// Whether the page is wider than the screen it was opened for (it would scroll sideways;
    /// a phone's browser widens its layout to such a page, so `innerWidth` cannot tell).
    pub fn overflows(&mut self) -> bool {
        let width =
            self.eval("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)");
        width.as_u64().is_none_or(|w| w > self.width as u64)
    }

    /// The elements whose content spills out of them sideways, for a failure's message.
    pub fn too_wide(&mut self) -> Value {
        self.eval(
            "Array.from(document.querySelectorAll('body, body *')).filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible').slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + e.scrollWidth + '>' + e.clientWidth)",
        )
    }

    /// A PNG of the whole page, written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true}),
            true,
        );
        let data = shot["data"].as_str().expect("a screenshot");
        std::fs::write(path, base64_decode(data)).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => 0,
    };
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= (value(*c) as u32) << (18 - 6 * i);
        }
        let take = chunk.len() * 6 / 8;
        for i in 0..take {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Width, height and number of distinct colours of a PNG.
pub fn png_facts(path: &Path) -> (u32, u32, usize) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let mut colours = std::collections::HashSet::new();
    for px in buf[..info.buffer_size()].chunks(channels) {
        colours.insert([px[0], px[1], px[2]]);
    }
    (info.width, info.height, colours.len())
}
