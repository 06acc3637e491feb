//! The API's description against the API itself: schemathesis, a tool nobody here wrote, reads
//! `/api/v1/openapi.json` from a real `iomark serve` (with results in it and the moderators'
//! API on) and fuzzes every operation, on SQLite and on a private PostgreSQL. No answer may be
//! a 5xx, and every answer must have a status, content type, headers and body the document
//! allows; schema-valid requests must not be refused for their form, invalid ones must be.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use serde_json::Value;

use crate::common::site::{device_doc, get, post, ulid, Site};
use crate::common::Postgres;

/// The version `tests/run` installs.
const SCHEMATHESIS: &str = "4.32.5";

const SECRET: &str = "a-moderators-secret-of-forty-characters!";

/// What schemathesis is told beyond its defaults (schemathesis.toml, its own format): the
/// moderators' secret, so that their routes are fuzzed past the door too (and without it,
/// that they refuse). A request of the right form may still be refused for what it says: a
/// result document that is an object but no result (422), a moderator's action already done
/// (409); and a comparison needs one of two lists, with two to four ids after duplicates go,
/// which OpenAPI cannot say of parameters (400). A deletion token is its own result's, and which
/// ids are here is public (GET says so): deleting an id that is not here answers 404 whatever
/// the token. Schemathesis's ignored_auth, after a deletion, sends it again with a wrong token
/// and expects 401 or 403 (the result is gone by then), and does not take being turned off for
/// one operation in 4.32.5: it is left out (`moderation.rs` has the moderators' routes refuse
/// a missing or a wrong secret, `site.rs` a deletion's).
const CONFIG: &str = r#"
[auth.openapi.moderator]
bearer = "${IOMARK_SECRET}"

[auth.openapi.token]
bearer = "${IOMARK_TOKEN}"

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "409", "422"]

[[operations]]
include-path = "/api/v1/compare"
checks.positive_data_acceptance.expected-statuses = ["200", "400", "404"]
parameters = { ids = "${IOMARK_IDS}" }
"#;

fn schemathesis_present() {
    let version = Command::new("schemathesis").arg("--version").output();
    let found = version
        .as_ref()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(SCHEMATHESIS));
    assert!(
        found,
        "this test needs schemathesis {SCHEMATHESIS} on the PATH: tests/run installs it into \
         target/venv and puts target/venv/bin on the PATH"
    );
}

fn fuzz(db: &str) {
    schemathesis_present();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let secret = home.join("admin-token");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let secret = secret.display().to_string();
    let args = [
        "--submissions-per-minute",
        "0",
        "--requests-per-minute",
        "0",
        "--admin-token-file",
        &secret,
    ];
    let site = Site::start(db, home, &args);
    let url = &site.url;
    // Results to find, compare and delete (with the last one's token).
    let mut token = String::new();
    for (n, scale) in [(81, 0.10), (82, 0.12), (83, 0.14)] {
        let doc = device_doc(n, "Fuzzed", "Card", scale, "Raspberry Pi 4 Model B");
        let receipt = post(&format!("{url}/api/v1/results"), &doc);
        assert_eq!(receipt.status, 201);
        token = receipt.json()["token"].as_str().unwrap().to_string();
    }

    // The document is OpenAPI 3.1, names every route of the API, and says what each refuses.
    let described: Value = get(&format!("{url}/api/v1/openapi.json")).json();
    assert_eq!(described["openapi"], "3.1.0");
    let paths = described["paths"].as_object().expect("paths");
    for path in [
        "/api/v1/leaderboard",
        "/api/v1/results",
        "/api/v1/results/{id}",
        "/api/v1/devices/{key}",
        "/api/v1/compare",
        "/api/v1/health",
        "/api/v1/admin/results/{id}/hide",
        "/api/v1/admin/devices/{key}/merge",
        "/api/v1/admin/review",
    ] {
        assert!(paths.contains_key(path), "{path} is not described");
    }
    let submit = &paths["/api/v1/results"]["post"]["responses"];
    for status in ["201", "413", "415", "422", "429", "503"] {
        assert!(submit.get(status).is_some(), "POST results lacks {status}");
    }
    let review = &paths["/api/v1/admin/review"]["get"]["responses"];
    assert!(review.get("401").is_some(), "the review lacks its 401");

    // /about tells people where the data and its description are, and how to get iomark.
    let about = get(&format!("{url}/about")).body;
    assert!(about.contains(r#"href="/api/v1/openapi.json""#), "{about}");
    let install = format!(
        "curl -fsSL {}/releases/latest/download/install.sh | sh",
        env!("CARGO_PKG_REPOSITORY")
    );
    assert!(about.contains(&install), "{about}");

    std::fs::write(home.join("schemathesis.toml"), CONFIG).unwrap();
    let output = Command::new("schemathesis")
        .current_dir(home)
        .args([
            "run",
            &format!("{url}/api/v1/openapi.json"),
            "--checks",
            "all",
            "--exclude-checks",
            "ignored_auth",
            "--max-examples",
            "40",
            "--seed",
            "20261124",
            "--generation-database",
            "none",
            // One worker: CPython 3.11.7's compiler fails when two threads compile at once
            // ("AST constructor recursion depth mismatch"), which schemathesis then reports.
            "--workers",
            "1",
            "--request-timeout",
            "30",
            "--no-color",
        ])
        .env("HOME", home)
        .env("IOMARK_SECRET", SECRET)
        .env("IOMARK_TOKEN", &token)
        .env("IOMARK_IDS", format!("{},{}", ulid(81), ulid(82)))
        .output()
        .expect("schemathesis runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "schemathesis found faults:\n{text}"
    );
    // It did test: every operation, none skipped or errored.
    assert!(
        text.contains("passed") && !text.contains("errored"),
        "schemathesis tested nothing:\n{text}"
    );
    eprintln!("{text}");
    drop(site);
}

#[test]
fn the_api_answers_as_its_openapi_document_says_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    fuzz(&dir.path().join("site.db").display().to_string());
}

#[test]
fn the_api_answers_as_its_openapi_document_says_on_postgres() {
    let pg = Postgres::start();
    fuzz(&pg.database());
}
