//! What of a run's mount options and kernel may be shown: the words that say how it behaves
//! or which build it is, none that its owner chose.

/// Mount options as they may be shown: only those that say how the filesystem behaves, each
/// value a short word or number. A share's options name its user, domain and server
/// (`username=alice,domain=CORP,addr=192.168.1.10` on CIFS: the fourth attack pass found them
/// on a result's page), a subvolume its folder, a security context its labels; no option not
/// known here is kept, whatever a filesystem invents next.
pub fn public_mount_options(options: &str) -> String {
    #[rustfmt::skip]
    const KEPT: &[&str] = &[
        "rw", "ro", "sync", "async", "dirsync", "atime", "noatime", "relatime", "strictatime",
        "lazytime", "nodiratime", "diratime", "dev", "nodev", "suid", "nosuid", "exec", "noexec",
        "discard", "nodiscard", "barrier", "nobarrier", "data", "commit", "errors",
        "journal_checksum", "journal_async_commit", "delalloc", "nodelalloc", "inline_data",
        "dax", "compress", "compress-force", "ssd", "nossd", "ssd_spread", "space_cache",
        "autodefrag", "noautodefrag", "datacow", "nodatacow", "datasum", "nodatasum",
        "flushoncommit", "inode64", "logbufs", "logbsize", "allocsize", "largeio", "swalloc",
        "noquota", "flush", "noflush", "iocharset", "codepage", "shortname", "utf8", "fmask",
        "dmask", "umask", "uid", "gid", "mode", "size", "nr_inodes", "huge", "cache", "vers",
        "nfsvers", "proto", "rsize", "wsize", "hard", "soft", "timeo", "retrans", "sec",
        "actimeo", "fsc", "background_gc", "active_logs", "stripe", "sunit", "swidth", "noload",
        "user_xattr", "nouser_xattr", "acl", "noacl", "trans", "msize", "version",
    ];
    // The words option values are made of; any other word may name someone (the sixth attack
    // pass published `uid=zorro`, `compress=hunter2`, `vers=quixhost`).
    #[rustfmt::skip]
    const WORDS: &[&str] = &[
        "ordered", "writeback", "journal", "continue", "remount-ro", "panic", "zlib", "lzo",
        "zstd", "no", "none", "strict", "loose", "fscache", "sys", "krb5", "krb5i", "krb5p",
        "ntlmssp", "ntlmv2", "ntlm", "tcp", "udp", "rdma", "tcp6", "udp6", "utf8", "utf-8",
        "iso8859-1", "iso8859-15", "cp437", "cp850", "ascii", "lower", "win95", "winnt", "mixed",
        "never", "always", "within_size", "advise", "deny", "force", "virtio", "fd", "unix",
        "xen", "v1", "v2", "on", "off", "9p2000", "9p2000.l", "9p2000.u", "adaptive", "lfs",
        "default", "mmap",
    ];
    // Each part of a value (`zstd:3`) a number (`3.1.1`, `0022`, `0x1f`) or such a word.
    let short_word = |v: &str| {
        let number = |p: &str| {
            let digits = p.strip_prefix("0x").unwrap_or(p);
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_hexdigit() || b == b'.')
                && p.bytes().next().is_some_and(|b| b.is_ascii_digit())
        };
        (1..=16).contains(&v.len())
            && v.split(':')
                .all(|p| number(p) || WORDS.contains(&p.to_ascii_lowercase().as_str()))
    };
    options
        .split(',')
        .filter(|option| match option.split_once('=') {
            Some((key, value)) => KEPT.contains(&key) && short_word(value),
            None => KEPT.contains(option),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A kernel's release as it may be shown: its numbers and the words distributions and boards
/// build theirs with (`6.1.0-21-arm64`, `6.6.31+rpt-rpi-v8`, `4.19.66-v7+`,
/// `4.14.35-1902.0.18.el7uek.aarch64`); any other word, which its builder chose and which may
/// name them (`6.1.0-alicesmith`, the eighth attack pass), is left out with what joins it.
pub fn public_kernel(kernel: &str) -> String {
    #[rustfmt::skip]
    const WORDS: &[&str] = &[
        "generic", "lowlatency", "arm64", "amd64", "armmp", "lpae", "rpi", "rpt", "raspi", "v6",
        "v7", "v7l", "v8", "16k", "lts", "rt", "cloud", "aws", "azure", "gcp", "gke", "oracle",
        "kvm", "uek", "x86_64", "aarch64", "armv7l", "armv6l", "pve", "zen", "arch", "hardened",
        "xanmod", "bpo", "deb", "microsoft", "standard", "wsl2", "default", "server", "pae",
        "sunxi", "sunxi64", "rockchip", "rockchip64", "meson64", "odroid", "current", "edge",
        "legacy", "tegra", "imx", "bone", "rc", "el", "fc", "elrepo", "lt", "ml", "rpi4", "rpi5",
        "bcm2711", "bcm2712", "2711", "2712", "android", "ti", "qcom", "mtk", "nvidia", "gnu",
        "linux", "virt", "grsec", "desktop", "dirty",
    ];
    let known = |word: &str| {
        let lower = word.to_ascii_lowercase();
        let letters = lower.trim_end_matches(|c: char| c.is_ascii_digit());
        word.chars().all(|c| c.is_ascii_digit())
            || WORDS.contains(&lower.as_str())
            || WORDS.contains(&letters)
            || (lower.starts_with("el")
                && lower[2..].chars().all(|c| c.is_ascii_alphanumeric())
                && WORDS.iter().any(|w| lower.ends_with(w)))
    };
    let mut out = String::with_capacity(kernel.len());
    let mut word = String::new();
    let mut joint = String::new();
    for c in kernel.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if word.is_empty() || known(&word) {
            // After a sign that joins no release (`6.18.44/fc`), a word is joined as releases
            // join words: glued to the number before (`6.18.44fc`), it read as another word
            // the next time (`6.18`: the fuzz target `document` found the intake not giving
            // back what it kept).
            if joint.is_empty() && !out.is_empty() && !word.is_empty() {
                joint.push('-');
            }
            out.push_str(&joint);
            out.push_str(&word);
        }
        // A word left out goes with what joined it.
        joint.clear();
        word.clear();
        // Only what releases are joined by: any other sign is no part of one (and a text's
        // rules would read it again: the fuzz target's `[folder]]`).
        if matches!(c, '.' | '-' | '+') {
            joint.push(c);
        }
    }
    out.push_str(joint.trim_end_matches(|c: char| c != '+'));
    out
}
