//! The mount table, from `/proc/self/mountinfo` (proc(5)).

use std::io;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub mount_point: PathBuf,
    /// `major:minor` of the device behind the mount.
    pub device: String,
    pub fstype: String,
    pub source: String,
    /// Per-mount options, then the superblock's (`rw,relatime,errors=remount-ro`).
    pub options: String,
}

pub fn read(root: &Path) -> io::Result<Vec<Mount>> {
    Ok(parse(&std::fs::read_to_string(
        root.join("proc/self/mountinfo"),
    )?))
}

/// The table from mountinfo's text; lines that are not mounts are passed over.
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// One line: `id parent major:minor root mount-point options [optional…] - fstype source super`.
fn parse_line(line: &str) -> Option<Mount> {
    let (before, after) = line.split_once(" - ")?;
    let fields: Vec<&str> = before.split(' ').collect();
    let rest: Vec<&str> = after.split(' ').collect();
    if fields.len() < 6 || rest.len() < 2 {
        return None;
    }
    let mut options = fields[5].to_string();
    if let Some(super_options) = rest.get(2) {
        for option in super_options.split(',') {
            if !options.split(',').any(|o| o == option) {
                options.push(',');
                options.push_str(option);
            }
        }
    }
    Some(Mount {
        mount_point: PathBuf::from(unescape(fields[4])),
        device: fields[2].to_string(),
        fstype: rest[0].to_string(),
        source: unescape(rest[1]),
        options,
    })
}

/// mountinfo writes space, tab, newline and backslash as octal escapes (`\040`).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // Three octal digits make a byte up to \377; past it (\777) they are text as written.
        let escaped = (bytes[i] == b'\\' && i + 3 < bytes.len())
            .then(|| &bytes[i + 1..i + 4])
            .filter(|digits| digits.iter().all(|b| (b'0'..=b'7').contains(b)))
            .and_then(|digits| {
                let value = digits
                    .iter()
                    .fold(0u32, |value, digit| value * 8 + u32::from(digit - b'0'));
                u8::try_from(value).ok()
            });
        if let Some(byte) = escaped {
            out.push(byte);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mount `path` (already resolved) lives on: the last-mounted one with the longest
/// matching mount point.
pub fn containing<'a>(table: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    let mut best: Option<&Mount> = None;
    for mount in table {
        if path.starts_with(&mount.mount_point) {
            let longer = best.is_none_or(|b| {
                mount.mount_point.as_os_str().len() >= b.mount_point.as_os_str().len()
            });
            if longer {
                best = Some(mount);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
30 22 0:26 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=24684112k
41 22 179:2 / /media/my\\040card rw,noatime - vfat /dev/mmcblk0p2 rw,fmask=0022
";

    #[test]
    fn parses_mountinfo_and_finds_the_mount() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proc/self")).unwrap();
        std::fs::write(dir.path().join("proc/self/mountinfo"), SAMPLE).unwrap();
        let table = read(dir.path()).unwrap();
        assert_eq!(table.len(), 3);
        assert_eq!(table[0].options, "rw,relatime,discard");
        assert_eq!(table[2].mount_point, PathBuf::from("/media/my card"));
        let on = |p: &str| containing(&table, Path::new(p)).unwrap().fstype.clone();
        assert_eq!(on("/home/user"), "ext4");
        assert_eq!(on("/dev/shm/x"), "tmpfs");
        assert_eq!(on("/media/my card/dir"), "vfat");
        assert_eq!(on("/dev/shmx"), "ext4");
        assert_eq!(
            containing(&table, Path::new("/media/my card"))
                .unwrap()
                .device,
            "179:2"
        );
    }

    #[test]
    fn an_escape_past_a_byte_is_text() {
        // Found by the fuzz target probe: \777 overflowed the byte it was read into.
        assert_eq!(unescape("a\\777b"), "a\\777b");
        assert_eq!(unescape("a\\377"), "a\u{fffd}");
        assert_eq!(unescape("my\\040card\\134"), "my card\\");
    }
}
