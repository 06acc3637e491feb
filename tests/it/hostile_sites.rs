//! What a site answers `iomark submit` with is shown, never obeyed, and kept only when it is a
//! receipt: a hostile or broken site at the address a user gave (the twelfth attack pass: a
//! receipt's address and a refusal carried escape sequences that set the terminal's title and
//! cleared its screen).

use std::io::{Read, Write};
use std::net::TcpListener;

use serde_json::json;

use crate::common::site::{device_doc, ulid};
use crate::common::{iomark, ok, write_doc};

/// A site at a port of its own that answers every request with `status` and `body` (`TOKEN`
/// in it the request's bearer token, as a site echoes the client's), until the test ends; its
/// address.
fn answering(status: u16, body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            let _ = client.set_read_timeout(Some(std::time::Duration::from_secs(5)));
            // The request's head, and its body as its length says.
            let mut seen = Vec::new();
            let mut buf = [0u8; 65536];
            while let Ok(n @ 1..) = client.read(&mut buf) {
                seen.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&seen).to_ascii_lowercase();
                let Some(end) = text.find("\r\n\r\n") else {
                    continue;
                };
                let length = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if seen.len() >= end + 4 + length {
                    break;
                }
            }
            let text = String::from_utf8_lossy(&seen).to_string();
            let token = text
                .lines()
                .find_map(|l| l.strip_prefix("authorization: Bearer "))
                .unwrap_or("")
                .trim()
                .to_string();
            let body = body.replace("TOKEN", &token);
            let _ = write!(
                client,
                "HTTP/1.1 {status} Answered\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    address
}

/// Sends the stored result to `site`; (success, standard output and error together).
fn submit(home: &std::path::Path, site: &str) -> (bool, String) {
    let sent = iomark(home)
        .args(["submit", "latest", "--server", site, "--yes"])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&sent.stdout),
        String::from_utf8_lossy(&sent.stderr)
    );
    (sent.status.success(), said)
}

const HOSTILE: &str = "\u{1b}]0;TITLE\u{7}\u{1b}[2J\u{1b}[31mRED\u{9b}1m\u{202e}desrever";

/// Nothing a terminal obeys: no ESC, BEL, CSI or mark that reorders text.
fn inert(said: &str) {
    for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(!said.contains(c), "{c:?} reached the terminal: {said:?}");
    }
}

#[test]
fn a_hostile_sites_answers_are_shown_never_obeyed_nor_kept() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let doc = device_doc(5, "SanDisk", "Extreme", 0.1, "Raspberry Pi 4 Model B");
    ok(iomark(home).arg("import").arg(write_doc(home, &doc)));

    // A refusal whose words hold escapes: shown escaped.
    let refusing = answering(
        422,
        json!({ "error": format!("no: {HOSTILE}") }).to_string(),
    );
    let (sent, said) = submit(home, &refusing);
    assert!(!sent, "{said}");
    assert!(said.contains("answered 422: no: \\u{1b}]0;TITLE"), "{said}");
    inert(&said);

    // A receipt whose address holds them, with a token of the site's own: no receipt.
    let receipt = json!({
        "id": ulid(5),
        "url": format!("http://example.test/results/{HOSTILE}"),
        "token": "a-token-the-client-never-sent-0123456789",
        "flag": HOSTILE,
    });
    let (sent, said) = submit(home, &answering(201, receipt.to_string()));
    assert!(!sent, "{said}");
    assert!(said.contains("with a receipt that is none"), "{said}");
    inert(&said);
    let forgotten = iomark(home)
        .args(["submit", "--delete", "latest", "--server", &refusing])
        .output()
        .unwrap();
    let forgotten = String::from_utf8_lossy(&forgotten.stderr).to_string();
    assert!(forgotten.contains("no receipt for"), "{forgotten}");

    // A receipt that is one, its flag holding them: sent, and its flag shown escaped.
    let receipt = json!({
        "id": ulid(5),
        "url": format!("http://example.test/results/{}", ulid(5)),
        "token": "TOKEN",
        "flag": HOSTILE,
    });
    let (sent, said) = submit(home, &answering(201, receipt.to_string()));
    assert!(sent, "{said}");
    assert!(
        said.contains("Kept out of the rankings: \\u{1b}]0;TITLE"),
        "{said}"
    );
    assert!(said.contains("\\u{202e}desrever"), "{said}");
    inert(&said);
}
