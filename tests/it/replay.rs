//! A submission whose answer was lost on the way: saved by the site, its 201 never reaching the
//! client. Sent again with the client's own token, it is answered with the same receipt; by
//! anyone else, or changed, it is refused. Through a real connection that drops the first
//! answer, `iomark submit` ends with a receipt whose token deletes the result.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::common::site::{device_doc, get, http, ulid, Site};
use crate::common::{iomark, ok, write_doc};

const TOKEN: &str = "k3y-of-my-own_0123456789abcdef0123456789abcdef";

#[test]
fn the_same_submission_with_its_own_token_is_answered_with_its_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let site = Site::start(db.to_str().unwrap(), dir.path(), &[]);
    let results = format!("{}/api/v1/results", site.url);
    let doc = device_doc(1, "SanDisk", "Extreme", 0.1, "Raspberry Pi 4 Model B");
    let body = doc.to_string();
    let send =
        |body: &str, token: Option<&str>| http("POST", &results, Some(body.as_bytes()), token);

    let first = send(&body, Some(TOKEN));
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.json()["token"], TOKEN, "the client's own token");
    let again = send(&body, Some(TOKEN));
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.json()["id"], ulid(1));
    assert_eq!(again.json()["token"], TOKEN);
    assert_eq!(again.json()["url"], first.json()["url"]);
    assert_eq!(again.header("location"), first.header("location"));

    // Anyone else sending it, or its submitter sending it changed: refused, and nothing moves.
    let other = "another-token-0123456789abcdef0123456789";
    assert_eq!(send(&body, Some(other)).status, 409);
    assert_eq!(send(&body, None).status, 409);
    let mut changed = doc.clone();
    changed["label"] = json!("not what was saved");
    assert_eq!(send(&changed.to_string(), Some(TOKEN)).status, 409);
    let saved = get(&format!("{results}/{}", ulid(1))).json();
    assert_eq!(saved["document"]["label"], doc["label"]);
    assert_eq!(
        http(
            "DELETE",
            &format!("{results}/{}", ulid(1)),
            None,
            Some(other)
        )
        .status,
        403,
        "the other token deletes nothing"
    );

    // A token of one's own that could be guessed, or that holds other characters: refused.
    let second = device_doc(2, "SanDisk", "Extreme", 0.1, "Raspberry Pi 4 Model B").to_string();
    for bad in [
        "short",
        &"x".repeat(129),
        "spaces are not allowed in a token at all",
    ] {
        let refused = send(&second, Some(bad));
        assert_eq!(refused.status, 400, "{bad}: {}", refused.body);
        assert!(refused.json()["error"]
            .as_str()
            .unwrap()
            .contains("32 to 128 letters"));
    }
    assert_eq!(get(&format!("{results}/{}", ulid(2))).status, 404);

    let metrics = get(&format!("{}/metrics", site.url)).body;
    assert!(
        metrics.contains("iomark_submissions_replayed_total 1"),
        "{metrics}"
    );
    assert_eq!(
        http(
            "DELETE",
            &format!("{results}/{}", ulid(1)),
            None,
            Some(TOKEN)
        )
        .status,
        200
    );
}

/// A proxy on loopback that passes the first connection's request on to `upstream` and drops
/// the connection instead of passing the answer back (as a proxy whose server died after
/// committing would); every later connection is passed on both ways. Its address, and how
/// many connections it took.
fn dropping_proxy(upstream: String) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let taken = Arc::new(AtomicUsize::new(0));
    let counted = taken.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let n = counted.fetch_add(1, Ordering::SeqCst);
            let Ok(server) = TcpStream::connect(&upstream) else {
                return;
            };
            let (mut from_client, mut to_server) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_client, &mut to_server);
            });
            let (mut from_server, mut to_client) = (server, client);
            std::thread::spawn(move || {
                if n == 0 {
                    // The whole answer read from the server, none of it passed on.
                    let mut answer = [0u8; 4096];
                    let _ = from_server.set_read_timeout(Some(Duration::from_secs(30)));
                    let _ = from_server.read(&mut answer);
                    let _ = to_client.shutdown(std::net::Shutdown::Both);
                } else {
                    let _ = std::io::copy(&mut from_server, &mut to_client);
                    let _ = to_client.flush();
                    let _ = to_client.shutdown(std::net::Shutdown::Both);
                }
            });
        }
    });
    (address, taken)
}

#[test]
fn submit_whose_answer_is_lost_sends_it_again_and_keeps_the_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let db = home.join("site.db");
    let site = Site::start(db.to_str().unwrap(), home, &[]);
    let (proxy, taken) = dropping_proxy(site.url.trim_start_matches("http://").to_string());
    let doc = device_doc(3, "SanDisk", "Extreme", 0.1, "Raspberry Pi 4 Model B");
    ok(iomark(home).arg("import").arg(write_doc(home, &doc)));

    let sent = iomark(home)
        .args(["submit", "latest", "--server", &proxy, "--yes"])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&sent.stdout),
        String::from_utf8_lossy(&sent.stderr),
    );
    assert!(sent.status.success(), "{out}\n{err}");
    assert!(
        err.contains("sending it again with the same token"),
        "{err}"
    );
    assert!(taken.load(Ordering::SeqCst) >= 2, "sent twice");
    assert!(out.contains(&format!("Submitted {}", ulid(3))), "{out}");
    let metrics = get(&format!("{}/metrics", site.url)).body;
    assert!(
        metrics.contains("iomark_submissions_saved_total 1"),
        "saved once: {metrics}"
    );
    assert!(
        metrics.contains("iomark_submissions_replayed_total 1"),
        "{metrics}"
    );

    // The receipt kept is the one that deletes it.
    let deleted = ok(iomark(home).args(["submit", "--delete", "latest", "--server", &proxy]));
    assert!(String::from_utf8_lossy(&deleted.stdout).contains("Deleted"));
    assert_eq!(
        get(&format!("{}/api/v1/results/{}", site.url, ulid(3))).status,
        404
    );
}
