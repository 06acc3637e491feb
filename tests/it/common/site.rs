//! A real `iomark serve` for the tests and a small HTTP client to speak to it: what the site's
//! tests (`site.rs`, `hostile_clients.rs`, `browser.rs`) share.

#![allow(dead_code)]

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{doc, iomark};

/// `iomark serve` on a port of its own, stopped (SIGTERM) when dropped.
pub struct Site {
    child: Option<Child>,
    pub url: String,
}

impl Site {
    pub fn start(db: &str, home: &Path, extra: &[&str]) -> Site {
        Site::launch(Site::command(db, home, extra))
    }

    /// The command `start` runs, to change before `launch`.
    pub fn command(db: &str, home: &Path, extra: &[&str]) -> Command {
        let mut command = iomark(home);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--db", db])
            .args(extra);
        // No line per request in the tests' output, unless a test asks for the log.
        if !extra.contains(&"--log") {
            command.args(["--log", "quiet"]);
        }
        command.stdout(Stdio::piped()).stderr(Stdio::inherit());
        command
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    pub fn launch(mut command: Command) -> Site {
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("serve printed its address within 60 s");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in: {line}"))
            .to_string();
        Site {
            child: Some(child),
            url,
        }
    }

    /// SIGKILL: the process dies with whatever it was doing.
    pub fn kill(&mut self) {
        let mut child = self.child.take().expect("running");
        let _ = child.kill();
        let _ = child.wait();
    }

    /// SIGTERM, then the exit status (within 30 s).
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("serve did not stop within 30 s of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        if self.child.is_some() {
            self.stop();
        }
    }
}

pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub fn http(method: &str, url: &str, body: Option<&[u8]>, token: Option<&str>) -> Answer {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let bearer = token.map(|t| format!("Bearer {t}"));
    let response = match method {
        "GET" => {
            let mut request = agent.get(url);
            if let Some(bearer) = &bearer {
                request = request.header("authorization", bearer);
            }
            request.call()
        }
        "DELETE" => {
            let mut request = agent.delete(url);
            if let Some(bearer) = &bearer {
                request = request.header("authorization", bearer);
            }
            request.call()
        }
        "POST" => {
            let mut request = agent.post(url).header("content-type", "application/json");
            if let Some(bearer) = &bearer {
                request = request.header("authorization", bearer);
            }
            request.send(body.unwrap_or_default())
        }
        other => panic!("{other}"),
    };
    match response {
        Ok(mut response) => {
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                .collect();
            let body = response
                .body_mut()
                .with_config()
                .limit(64 << 20)
                .read_to_string()
                .unwrap_or_default();
            Answer {
                status,
                headers,
                body,
            }
        }
        // The server may close the connection on an oversized body before reading it all.
        Err(e) => Answer {
            status: 0,
            headers: Vec::new(),
            body: e.to_string(),
        },
    }
}

/// A GET that does not follow a redirect: its status and `Location`.
pub fn redirect(url: &str) -> (u16, Option<String>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let answer = agent.get(url).call().unwrap();
    let location = answer
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .map(str::to_string);
    (answer.status().as_u16(), location)
}

/// A GET whose answer is bytes (an image): its status, content type and body.
pub fn get_bytes(url: &str) -> (u16, String, Vec<u8>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let mut response = agent.get(url).call().unwrap();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = response.body_mut().read_to_vec().unwrap();
    (response.status().as_u16(), content_type, body)
}

pub fn get(url: &str) -> Answer {
    http("GET", url, None, None)
}

pub fn post(url: &str, doc: &Value) -> Answer {
    http("POST", url, Some(doc.to_string().as_bytes()), None)
}

/// A submission from submitter `n`: sent from the loopback address 127.`n`.0.1, a household
/// (/24) and a neighbourhood (/16) of its own, as the site tells submitters apart
/// (`store::sender`).
pub fn post_as(n: u8, url: &str, doc: &Value) -> Answer {
    let (status, body) = from_address("POST", url, &format!("127.{n}.0.1"), Some(&doc.to_string()));
    Answer {
        status,
        headers: Vec::new(),
        body,
    }
}

/// Opens a connection to `url`'s server (`http://ADDRESS:PORT`, any path after it) from the
/// loopback address `from`.
pub fn connect_from(from: &str, url: &str) -> std::io::Result<std::net::TcpStream> {
    let host = url.trim_start_matches("http://").split('/').next().unwrap();
    let to: std::net::SocketAddr = host.parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(format!("{from}:0").parse().unwrap())?;
        let stream = socket.connect(to).await?;
        stream.into_std()
    })
}

/// A request over a connection of its own from the loopback address `from` (what a proxy tells
/// clients apart by), in HTTP/1.0 so that the answer ends with the connection: its status and
/// body.
pub fn from_address(method: &str, url: &str, from: &str, body: Option<&str>) -> (u16, String) {
    from_address_with(method, url, from, body, &[])
}

/// [`from_address`], with headers of the test's own (`Name: value` lines).
pub fn from_address_with(
    method: &str,
    url: &str,
    from: &str,
    body: Option<&str>,
    headers: &[&str],
) -> (u16, String) {
    use std::io::{Read, Write};
    let rest = url.trim_start_matches("http://");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = connect_from(from, url).unwrap_or_else(|e| panic!("{url} from {from}: {e}"));
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = body.unwrap_or("");
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    write!(
        stream,
        "{method} {} HTTP/1.0\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n{extra}\r\n{body}",
        if path.is_empty() { "/" } else { path },
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{method} {url} from {from}: {answer:?}"));
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// A ULID for test document `n`.
pub fn ulid(n: u32) -> String {
    format!("01JTEST{n:019}")
}

/// A server for load: no rate limit at all.
pub const NO_LIMITS: [&str; 4] = [
    "--submissions-per-minute",
    "0",
    "--requests-per-minute",
    "0",
];

pub const XSS: &str = "<script>alert(1)</script> \"><img src=x onerror=alert(2)>";

/// A constructed standard result of a device: `model` by `maker`, `scale` times the base
/// figures (SEQ1M Q8T1 read 2000 MB/s), on `board`.
pub fn device_doc(n: u32, maker: &str, model: &str, scale: f64, board: &str) -> Value {
    let started = format!("2026-03-{:02}T10:{:02}:00Z", 1 + n % 28, n % 60);
    let factors: Vec<(&str, f64)> = super::STANDARD_TESTS.iter().map(|n| (*n, scale)).collect();
    let mut d = doc(&ulid(n), &started, &factors, 0.01);
    d["host"]["board"] = json!(board);
    d["target"]["device"] = json!({
        "name": "sda", "model": model, "vendor": maker, "transport": "usb",
        "size_bytes": 128_035_676_160u64, "rotational": false, "stack": [],
        "usb": {"speed_mbps": 5000.0, "manufacturer": maker, "product": model}
    });
    d
}

/// Each file of the dump `index` describes, downloaded, checked against its size and SHA-256,
/// and unpacked: (name, text).
pub fn dump_files(url: &str, index: &Value) -> Vec<(String, String)> {
    index["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let (status, kind, bytes) = get_bytes(&format!("{url}{}", f["path"].as_str().unwrap()));
            assert_eq!(status, 200);
            assert_eq!(kind, "application/gzip");
            assert_eq!(bytes.len() as u64, f["bytes"].as_u64().unwrap());
            let digest: String = <sha2::Sha256 as sha2::Digest>::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(digest, f["sha256"], "{}", f["name"]);
            let mut text = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
                .unwrap();
            (f["name"].as_str().unwrap().to_string(), text)
        })
        .collect()
}
