//! The surface profile for real: a read-only scan of a loop device (left byte-identical), and
//! the same scan over a test file.

use serde_json::Value;

use crate::common::devices::{sha256, Loop, ShmFile};
use crate::common::{iomark, ok, refused, stdout};

fn surface(doc: &Value) -> &Value {
    &doc["score"]["surface"]
}

fn check_series(s: &Value, samples: usize, accesses: usize) {
    let rates = s["samples"].as_array().unwrap();
    let access = s["access"].as_array().unwrap();
    assert_eq!(rates.len(), samples);
    assert_eq!(access.len(), accesses);
    let positions: Vec<f64> = rates
        .iter()
        .map(|r| r["position"].as_f64().unwrap())
        .collect();
    assert_eq!(positions[0], 0.0);
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    // The last sample ends at the end.
    let last = positions[samples - 1];
    assert!(last > 0.8 && last < 1.0, "{last}");
    for r in rates {
        assert!(r["mb_per_s"].as_f64().unwrap() > 0.0);
    }
    for a in access {
        let p = a["position"].as_f64().unwrap();
        assert!((0.0..1.0).contains(&p));
        assert!(a["ms"].as_f64().unwrap() > 0.0);
    }
    let (min, mean, max) = (
        s["min_mb_per_s"].as_f64().unwrap(),
        s["mean_mb_per_s"].as_f64().unwrap(),
        s["max_mb_per_s"].as_f64().unwrap(),
    );
    assert!(min <= mean && mean <= max);
}

#[test]
fn a_device_scan_reads_only_and_draws_its_surface() {
    let data = tempfile::tempdir().unwrap();
    let image = ShmFile::new(256 << 20);
    let Some(dev) = Loop::attach(&image.path, false) else {
        return;
    };
    let before = sha256(&dev.dev);
    let output = ok(iomark(data.path()).args([
        "run",
        "--device",
        dev.path(),
        "--profile",
        "surface",
        "--json",
        "-",
    ]));
    assert_eq!(
        sha256(&dev.dev),
        before,
        "a read-only scan changed the device"
    );
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["settings"]["profile"], "surface");
    let s = surface(&doc);
    assert_eq!(s["over"], "device");
    // 100 samples of 10 MiB do not fit in 256 MiB: each is its share, in whole 4 KiB.
    assert_eq!(s["sample_bytes"], (256u64 << 20) / 100 / 4096 * 4096);
    check_series(s, 100, 1000);
    assert!(doc["tests"].as_array().unwrap().is_empty());
    // The picture GNOME Disks users know.
    let png = data.path().join("surface.png");
    ok(iomark(data.path()).args([
        "plot",
        "latest",
        "--kind",
        "surface",
        "-o",
        png.to_str().unwrap(),
    ]));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // `--progress json` is honoured on a device as on a file (it drew bars, issue 23): every
    // line on standard error is a JSON event.
    let output = ok(iomark(data.path()).args([
        "run",
        "--device",
        dev.path(),
        "--profile",
        "surface",
        "--samples",
        "10",
        "--count",
        "50",
        "--progress",
        "json",
        "--no-save",
    ]));
    let stderr = String::from_utf8(output.stderr).unwrap();
    let events: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l:?}")))
        .collect();
    assert!(events.len() >= 2, "{stderr}");
    assert!(events.iter().all(|e| e["event"].is_string()), "{stderr}");
    // Another profile does not take --device; a chart kind without its data says so.
    let line =
        refused(iomark(data.path()).args(["run", "--device", dev.path(), "--profile", "standard"]));
    assert!(line.contains("only the surface profile"), "{line}");
    assert_eq!(sha256(&dev.dev), before);
}

#[test]
fn a_file_scan_says_its_positions_are_the_files() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = ok(iomark(data.path()).args([
        "run",
        dir.path().to_str().unwrap(),
        "--profile",
        "surface",
        "--size",
        "64MiB",
        "--samples",
        "12",
        "--count",
        "40",
        "--no-save",
        "--json",
        "-",
    ]));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let s = surface(&doc);
    assert_eq!(s["over"], "file");
    assert_eq!(s["sample_bytes"], (64u64 << 20) / 12 / 4096 * 4096);
    check_series(s, 12, 40);
    let kinds: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"surface_over_file"), "{kinds:?}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // The document it wrote is one iomark takes back (it has no table of tests: its figures
    // are the scan's), and a scan whose positions make no sense is refused.
    let saved = data.path().join("surface.json");
    std::fs::write(&saved, &output.stdout).unwrap();
    let line = stdout(&ok(
        iomark(data.path()).args(["import", saved.to_str().unwrap()])
    ));
    assert!(line.starts_with("imported"), "{line}");
    let mut bent = doc.clone();
    bent["id"] = "01M8300000000000000000BENT".into();
    bent["score"]["surface"]["samples"][3]["position"] = 1.5.into();
    std::fs::write(&saved, bent.to_string()).unwrap();
    let line = refused(iomark(data.path()).args(["import", saved.to_str().unwrap()]));
    assert!(line.contains("positions"), "{line}");
    // --samples belongs to the surface profile alone.
    let line =
        refused(iomark(data.path()).args(["run", dir.path().to_str().unwrap(), "--samples", "5"]));
    assert!(line.contains("--samples"), "{line}");
}
