//! Fields whose values come from the kernel's own vocabulary: a disk's kernel name and a
//! filesystem's type. Anything else in them was written by someone (the tenth attack pass sent
//! a disk named `zorroqx-disk` and a filesystem `fuse.zorroqx-sshfs`, both published): it
//! is replaced, here and in every text of the document.

/// A disk's kernel name as the kernel gives it (`sda`, `nvme0n1`, `mmcblk0`, `vdb`, `loop3`,
/// `dm-0`, `md127`, `mmcblk0boot0`, `ubiblock0_1`), else `[device]`.
pub fn public_device_name(name: &str) -> String {
    match kernel_name(name) {
        true => name.to_string(),
        false => "[device]".to_string(),
    }
}

/// The disks named by letters (`sda`, `vdb`, `xvdaa`): the prefix, then one to three letters
/// and a partition's number.
const LETTERED: [&str; 4] = ["sd", "hd", "vd", "xvd"];
/// The disks named by numbers (`nvme0n1p2`, `mmcblk0`, `loop3`), longest first.
#[rustfmt::skip]
const NUMBERED: [&str; 19] = [
    "mmcblk", "mtdblock", "ubiblock", "bcache", "nullb", "ublkb", "nvme", "loop", "zram",
    "pmem", "drbd", "dm-", "nbd", "rbd", "ram", "md", "sr", "zd", "disk",
];
/// What may stand between a numbered disk's numbers (`nvme0n1p2`, `mmcblk0boot1`,
/// `ubiblock0_1`, `nvme0c0n1`, `pmem0s`, `disk2s1`).
const BETWEEN: [&str; 7] = ["n", "p", "c", "s", "boot", "rpmb", "_"];

fn kernel_name(name: &str) -> bool {
    if name.len() > 24 {
        return false;
    }
    let lettered = LETTERED.iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            let letters = rest.chars().take_while(char::is_ascii_lowercase).count();
            (1..=3).contains(&letters) && rest[letters..].chars().all(|c| c.is_ascii_digit())
        })
    });
    lettered
        || NUMBERED.iter().any(|prefix| {
            name.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()) && numbers(rest))
        })
}

/// Whether `rest` is numbers joined by what `BETWEEN` allows (`0n1p2`), ending in a number
/// or a lone `s` (`pmem0s`) or `rpmb`.
fn numbers(rest: &str) -> bool {
    let mut rest = rest;
    while !rest.is_empty() {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        rest = &rest[digits..];
        if rest.is_empty() {
            return true;
        }
        let letters = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .count();
        if digits == 0 || !BETWEEN.contains(&&rest[..letters]) {
            return false;
        }
        rest = &rest[letters..];
    }
    true
}

/// The filesystem types Linux and FUSE give (`/proc/self/mountinfo`'s third field from its
/// end), as a results site groups them.
#[rustfmt::skip]
const FILESYSTEMS: [&str; 52] = [
    "ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "f2fs", "jfs", "reiserfs", "nilfs2",
    "zfs", "vfat", "msdos", "exfat", "ntfs", "ntfs3", "fuseblk", "fuse", "hfs", "hfsplus",
    "apfs", "udf", "iso9660", "squashfs", "erofs", "cramfs", "romfs", "tmpfs", "ramfs",
    "devtmpfs", "overlay", "aufs", "nfs", "nfs4", "cifs", "smb3", "9p", "virtiofs", "ceph",
    "glusterfs", "ocfs2", "gfs2", "lustre", "orangefs", "ubifs", "jffs2", "yaffs2", "ecryptfs",
    "minix", "ufs", "befs", "vboxsf",
];
/// FUSE filesystems by their subtype (`fuse.sshfs`).
#[rustfmt::skip]
const FUSE: [&str; 20] = [
    "sshfs", "rclone", "mergerfs", "s3fs", "gvfsd-fuse", "ntfs-3g", "exfat", "encfs",
    "gocryptfs", "cryfs", "bindfs", "unionfs", "lxcfs", "portal", "glusterfs", "jmtpfs",
    "rar2fs", "borgfs", "mhddfs", "dislocker",
];

/// A filesystem's type as Linux names it (`ext4`, `fuse.sshfs`); a FUSE filesystem of
/// another subtype is `fuse`, and a type no kernel gives `other`.
pub fn public_filesystem(fs: &str) -> String {
    if FILESYSTEMS.contains(&fs) {
        return fs.to_string();
    }
    match fs.strip_prefix("fuse.") {
        Some(subtype) if FUSE.contains(&subtype) => fs.to_string(),
        Some(_) => "fuse".to_string(),
        None => "other".to_string(),
    }
}
