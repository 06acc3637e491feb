//! What can be measured: the filesystems mounted from a device (from `/proc/self/mounts`) and
//! the home folder, each with what `iomark info --json` knows of it (device, model, transport,
//! free space, warnings such as a USB 2 port), read at most every 30 s.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use iomark_result::result::Info;

use crate::Shared;

/// How long a list read is shown before it is read again.
const FRESH: Duration = Duration::from_secs(30);
/// How long `iomark info` may take for one filesystem.
const INFO_TIME: Duration = Duration::from_secs(10);

#[derive(Default)]
pub struct Mounts {
    read: tokio::sync::Mutex<Option<(Instant, Vec<Place>)>>,
}

/// A folder that can be measured, and what is known of it.
#[derive(Clone)]
pub struct Place {
    pub path: String,
    /// What it is to a person: "your home folder", the mount point.
    pub label: String,
    pub filesystem: String,
    /// The device, by the names it gives (model, transport), or its node.
    pub device: String,
    pub free: String,
    /// Whether this user may write there (a run needs to).
    pub writable: bool,
    pub warnings: Vec<String>,
}

impl Mounts {
    pub async fn list(&self, app: &Shared) -> Vec<Place> {
        let mut read = self.read.lock().await;
        if let Some((at, places)) = read.as_ref() {
            if at.elapsed() < FRESH {
                return places.clone();
            }
        }
        let mut paths = mounted(&std::fs::read_to_string("/proc/self/mounts").unwrap_or_default());
        if let Some(home) = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_dir())
        {
            paths.insert(
                0,
                (
                    home.to_string_lossy().into_owned(),
                    "your home folder".into(),
                ),
            );
        }
        let places = futures_util::future::join_all(
            paths
                .into_iter()
                .map(|(path, label)| place(app, path, label)),
        )
        .await;
        *read = Some((Instant::now(), places.clone()));
        places
    }
}

/// The mount points of filesystems on a device, from the text of `/proc/self/mounts`, each
/// once, with the kind of filesystem as a label.
pub fn mounted(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [source, at, kind, ..] = fields[..] else {
            continue;
        };
        // Read-only images (a snap's squashfs, a CD) cannot be written to.
        if !source.starts_with("/dev/") || matches!(kind, "squashfs" | "iso9660" | "udf") {
            continue;
        }
        let at = unescape(at);
        if !out.iter().any(|(p, _)| *p == at) {
            out.push((at, format!("{kind} from {source}")));
        }
    }
    out
}

/// A path as the kernel writes it in a mount table: space, tab, newline and backslash as
/// three octal digits after a backslash.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (bytes[i], octal) {
            (b'\\', Some(d)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What `iomark info --json` knows of `path`; where it says nothing in time, the path alone.
async fn place(app: &Shared, path: String, label: String) -> Place {
    let mut command = tokio::process::Command::new(&app.config.exe);
    command
        .args(["info", "--json"])
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    // Where it says nothing in time, or nothing iomark reads, the path alone.
    let info: Option<Info> = match tokio::time::timeout(INFO_TIME, command.output()).await {
        // Read as text: the document's readers are built for text once, not again for bytes.
        Ok(Ok(out)) => String::from_utf8(out.stdout)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok()),
        _ => None,
    };
    let target = info.as_ref().map(|i| &i.target);
    let device = target.and_then(|t| t.device.as_ref());
    let name = device
        .map(|d| [&d.vendor, &d.model].into_iter().flatten().cloned())
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let node = device
        .and_then(|d| d.name.as_ref())
        .map(|n| format!("/dev/{n}"));
    let transport = device.and_then(|d| d.transport);
    let device = match (name.is_empty(), node, transport) {
        (false, _, Some(t)) => format!("{name} ({t})"),
        (false, _, None) => name,
        (true, Some(node), Some(t)) => format!("{node} ({t})"),
        (true, Some(node), None) => node,
        (true, None, _) => "a device iomark cannot name".into(),
    };
    Place {
        writable: writable(Path::new(&path)),
        filesystem: target
            .and_then(|t| t.filesystem.clone())
            .unwrap_or_default(),
        free: target
            .and_then(|t| t.free_bytes)
            .map(|b| format!("{:.1} GB free", b as f64 / 1e9))
            .unwrap_or_default(),
        warnings: info
            .map(|i| i.warnings.into_iter().map(|w| w.message).collect())
            .unwrap_or_default(),
        device,
        label,
        path,
    }
}

fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path, read only.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mount_table_gives_its_device_filesystems_once() {
        let table = "\
/dev/mmcblk0p2 / ext4 rw,noatime 0 0
proc /proc proc rw 0 0
/dev/mmcblk0p1 /boot/firmware vfat rw 0 0
/dev/sda1 /media/pi/My\\040Card exfat rw 0 0
/dev/loop3 /snap/core/1 squashfs ro 0 0
/dev/mmcblk0p2 / ext4 rw 0 0
tmpfs /run tmpfs rw 0 0";
        let found: Vec<String> = mounted(table).into_iter().map(|(p, _)| p).collect();
        assert_eq!(found, ["/", "/boot/firmware", "/media/pi/My Card"]);
        assert_eq!(unescape("a\\134b\\011c"), "a\\b\tc");
    }
}
