//! Issue 27: the site as a service. A posted link to a result previews its card (Open Graph, at
//! the site's public address); the systemd unit the package installs is valid and hardened by
//! systemd's own offline audit.

use std::process::Command;

use crate::common::need;
use crate::common::site::{device_doc, get, get_bytes, post, ulid, Site, NO_LIMITS};

#[test]
fn a_posted_link_previews_the_result_card() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("site.db");
    let mut args = NO_LIMITS.to_vec();
    args.extend(["--public-url", "https://results.example/"]);
    let site = Site::start(db.to_str().unwrap(), dir.path(), &args);
    let doc = device_doc(
        1,
        "SanDisk",
        "Ultra \"Fit\" <b>",
        0.02,
        "Raspberry Pi 4 Model B",
    );
    assert_eq!(
        post(&format!("{}/api/v1/results", site.url), &doc).status,
        201
    );
    let page = get(&format!("{}/results/{}", site.url, ulid(1))).body;
    let head = &page[..page.find("</head>").expect("a head")];
    let image = format!(
        "<meta property=\"og:image\" content=\"https://results.example/results/{}/card.png\">",
        ulid(1)
    );
    assert!(head.contains(&image), "{head}");
    assert!(head.contains(&format!(
        "<meta property=\"og:url\" content=\"https://results.example/results/{}\">",
        ulid(1)
    )));
    assert!(head.contains("summary_large_image"), "{head}");
    // The device's name, escaped inside the attribute; its figures in the description.
    let escaped = [
        "Ultra &#34;Fit&#34; &#60;b&#62;",
        "Ultra &quot;Fit&quot; &lt;b&gt;",
    ];
    assert!(escaped.iter().any(|e| head.contains(e)), "{head}");
    assert!(!head.contains("<b>") && !head.contains("\"Fit\""), "{head}");
    assert!(head.contains("SEQ1M Q8T1 read"), "{head}");
    assert!(head.contains("on a Raspberry Pi 4 Model B"), "{head}");
    // The picture it names is there.
    let (status, kind, _) = get_bytes(&format!("{}/results/{}/card.png", site.url, ulid(1)));
    assert_eq!((status, kind.as_str()), (200, "image/png"));
}

/// The unit in `packaging/debian/`, its binary this build's: valid by `systemd-analyze verify`,
/// and its exposure by `systemd-analyze security --offline` at most 2.0 of 10.
#[test]
fn the_service_unit_is_valid_and_hardened() {
    need("systemd-analyze", "systemd");
    let dir = tempfile::tempdir().unwrap();
    let unit = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/packaging/debian/iomark.service"
    ))
    .unwrap();
    assert!(unit.contains("ExecStart=/usr/bin/iomark serve --listen 127.0.0.1:8080"));
    let local = dir.path().join("iomark.service");
    std::fs::write(
        &local,
        unit.replace("/usr/bin/iomark", env!("CARGO_BIN_EXE_iomark")),
    )
    .unwrap();
    let verify = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&local)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let audit = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--threshold=20"])
        .arg(&local)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&audit.stdout);
    assert!(audit.status.success(), "{said}");
    assert!(
        said.contains("Overall exposure level for iomark.service"),
        "{said}"
    );
}
