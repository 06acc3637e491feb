//! What the probe makes of the files a kernel gives it, from any bytes: a tree as
//! `tests/fixtures/*.tree` writes one (`path = text`, `path =hex 00 89 …`, `path -> link`), the
//! fixtures themselves the seeds. Each file is handed to the decoder that reads it on a real
//! machine (the host's, the disk's, the SD card's, the USB bridge's, the NVMe drive's, the
//! ATA pages, the mount table, the sensors'), what they made is cleaned as the probe cleans it
//! (`fit_text`), and a result holding it must be one iomark accepts: saved, imported and
//! submitted alike. (Walking the tree's links from a path to its disk is left to the fixtures'
//! own test, `tests/it/probe_fixtures.rs`: it needs the files on a disk.)
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use iomark_core::probe::{ata, block, bottleneck, host, mmc, mounts, nvme, thermal, usb};
use iomark_result::result::{fit_text, ResultDoc, Target};
use libfuzzer_sys::fuzz_target;

/// At most this many bytes a file (a run such as `00*99999999` is cut there).
const MOST: usize = 1 << 16;

/// The tree's files: text and bytes by path, a link by the path it is at.
fn files(tree: &str) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for line in tree.lines() {
        if let Some((path, hex)) = line.split_once(" =hex ") {
            let mut bytes = Vec::new();
            for item in hex.split_whitespace() {
                let (byte, count) = item.split_once('*').unwrap_or((item, "1"));
                let (Ok(byte), Ok(count)) = (u8::from_str_radix(byte, 16), count.parse::<usize>())
                else {
                    continue;
                };
                bytes.extend(std::iter::repeat_n(byte, count.min(MOST - bytes.len())));
            }
            files.insert(path.trim().to_string(), bytes);
        } else if let Some((path, target)) = line.split_once(" -> ") {
            files.insert(path.trim().to_string(), target.trim().as_bytes().to_vec());
        } else if let Some((path, value)) = line.split_once(" = ") {
            let value = value
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\0", "\0");
            files.insert(path.trim().to_string(), value.into_bytes());
        }
    }
    files
}

fuzz_target!(|bytes: &[u8]| {
    let tree = String::from_utf8_lossy(bytes);
    let files = files(&tree);
    // A file by its exact path (under the root), or the first whose path ends in `/name`.
    let exact = |path: &str| {
        files
            .get(path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    let ending = |name: &str| {
        let suffix = format!("/{name}");
        files
            .iter()
            .find(|(path, _)| path.ends_with(&suffix))
            .map(|(_, b)| b.as_slice())
    };
    let text = |name: &str| ending(name).map(|b| String::from_utf8_lossy(b).into_owned());

    let host = fit_text(host::decode(&exact));
    for word in host.throttled.iter() {
        host::throttling_events(word);
    }
    let table = exact("proc/self/mountinfo")
        .map(|t| mounts::parse(&t))
        .unwrap_or_default();
    let probed = tree
        .lines()
        .find_map(|l| l.strip_prefix("# probe:"))
        .unwrap_or("/");
    let mount = mounts::containing(&table, Path::new(probed.trim()));

    let name = text("uevent").unwrap_or_else(|| "sda".into());
    let transport = block::transport(Path::new(&format!("/sys/devices/{name}")));
    let mut device = block::decode(&name, transport, &|path| text(path));
    let answers = ata::decode(ending("vpd_pg89"), ending("vpd_pgb1"));
    device.drive_model = answers.model;
    device.rotation_rpm = answers.rotation_rpm;
    let size = text("size").as_deref().and_then(|s| s.trim().parse().ok());
    device.sd = mmc::decode(&|a| text(a), size, text("ios").as_deref());
    let driver = ending("driver").and_then(|link| {
        let link = String::from_utf8_lossy(link);
        link.rsplit('/').next().map(str::to_string)
    });
    device.usb = Some(usb::decode(&|a| text(a), driver));
    device.nvme = Some(nvme::decode(&|a| text(a), &|a| text(a)));
    for sensor in ["temp", "temp1_input"] {
        if let Some(celsius) = text(sensor).as_deref().and_then(thermal::celsius) {
            assert!(celsius.is_finite());
        }
    }
    let target = fit_text(Target {
        extra: Default::default(),
        path: probed.trim().to_string(),
        filesystem: mount.map(|m| m.fstype.clone()),
        mount_options: mount.map(|m| m.options.clone()),
        free_bytes: None,
        device: Some(device),
    });
    bottleneck::warnings(&host, &target);

    // A result (the smallest of the seeds: a verify run's) on this host and storage.
    static SEED: OnceLock<ResultDoc> = OnceLock::new();
    let mut doc = SEED
        .get_or_init(|| {
            ResultDoc::from_json(include_str!("../corpus/document/verify.json")).unwrap()
        })
        .clone();
    doc.host = host;
    doc.target = target;
    let json = serde_json::to_string(&doc).unwrap();
    if let Err(e) = ResultDoc::from_json(&json) {
        panic!("iomark refuses a result of its own probe: {e}\n{json}");
    }
});
