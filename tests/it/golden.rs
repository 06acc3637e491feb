//! The result document of every profile, kept field by field: each profile is run on the null
//! engine, and its document, with what varies from run to run masked (ids, times, the host, the
//! figures), must equal the skeleton in `tests/golden/PROFILE.json`.
//!
//! The skeletons were written by the code before the house was reshaped (issue 10), so they
//! prove the reshaping kept the document contract. `IOMARK_BLESS=1 cargo test golden` rewrites
//! them; do that only for a change to the document that is meant.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

const PROFILES: [&str; 9] = [
    "standard",
    "quick",
    "nvme",
    "latency",
    "sweep",
    "sustained",
    "sdcard",
    "pi",
    "surface",
];

fn golden_path(profile: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{profile}.json"))
}

/// Numbers kept as they are: settings, and what names a test.
fn keeps_numbers(path: &[String]) -> bool {
    let last = path.last().map(String::as_str).unwrap_or("");
    path.first().is_some_and(|p| p == "settings")
        || (path.first().is_some_and(|p| p == "tests")
            && path.len() == 3
            && matches!(last, "block_size" | "queue_depth" | "threads"))
        || path.iter().any(|p| p == "required")
}

/// The document with everything that varies between two runs of one command masked.
fn skeleton(value: &Value, path: &mut Vec<String>) -> Value {
    let last = path.last().cloned().unwrap_or_default();
    if path.len() == 1 && matches!(last.as_str(), "id" | "started_at" | "finished_at") {
        return json!("<masked>");
    }
    if path.len() == 1 && matches!(last.as_str(), "host" | "target") {
        return json!("<machine>");
    }
    // What the disk is, where it is no SD card (this machine's: a virtual disk, an SSD…).
    if path.len() == 2 && path[0] == "score" && last == "not_a_card" {
        return json!("<machine>");
    }
    if path.len() == 1 && last == "warnings" {
        // Which kinds were raised; loop-to-loop variation on the null engine comes and goes.
        let mut kinds: Vec<String> = value
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["kind"].as_str().unwrap().to_string())
            .filter(|k| k != "high_variation")
            .collect();
        kinds.sort();
        kinds.dedup();
        return json!(kinds);
    }
    match value {
        Value::Number(_) if keeps_numbers(path) => value.clone(),
        Value::Number(_) => json!("<number>"),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map {
                path.push(key.clone());
                out.insert(key.clone(), skeleton(item, path));
                path.pop();
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            // How many per-second samples or histogram buckets there are depends on timing,
            // and a surface scan's series are long: only the first one's shape is kept.
            let varies = matches!(
                last.as_str(),
                "timeline" | "histogram" | "samples" | "access"
            );
            let take = if varies {
                items.len().min(1)
            } else {
                items.len()
            };
            let mut out = Vec::new();
            for (index, item) in items.iter().take(take).enumerate() {
                path.push(index.to_string());
                out.push(skeleton(item, path));
                path.pop();
            }
            Value::Array(out)
        }
        _ => value.clone(),
    }
}

#[test]
fn every_profile_keeps_its_document() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bless = std::env::var_os("IOMARK_BLESS").is_some();
    for profile in PROFILES {
        let json = dir.path().join(format!("{profile}.json"));
        crate::common::ok(crate::common::iomark(data.path()).args([
            "run",
            dir.path().to_str().unwrap(),
            "--engine",
            "null",
            "--profile",
            profile,
            "--no-save",
            "--size",
            "64MiB",
            "--duration",
            "200ms",
            "--warmup",
            "0s",
            "--json",
            json.to_str().unwrap(),
        ]));
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let got = skeleton(&doc, &mut Vec::new());
        let path = golden_path(profile);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let mut text = serde_json::to_string_pretty(&got).unwrap();
            text.push('\n');
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let want: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            got,
            want,
            "{profile}: the document differs from tests/golden/{profile}.json:\n{}",
            serde_json::to_string_pretty(&got).unwrap()
        );
    }
}
