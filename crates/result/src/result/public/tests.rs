//! What leaves the machine, and what a site keeps: no folder, option or name of a person.

use super::{
    hide_private_paths, public_device_name, public_filesystem, public_kernel, public_mount_options,
    unescaped,
};
use crate::result::sample;
use std::path::Path;

#[test]
fn a_share_s_options_keep_how_it_behaves_and_not_whose_it_is() {
    assert_eq!(
        public_mount_options(
            "rw,relatime,vers=3.1.1,cache=strict,username=alice,domain=CORP,uid=1000,\
             addr=192.168.1.10,file_mode=0755,subvol=/home/alice,context=\"x\",rsize=4194304"
        ),
        "rw,relatime,vers=3.1.1,cache=strict,uid=1000,rsize=4194304"
    );
    assert_eq!(
        public_mount_options("compress=zstd:3,ssd"),
        "compress=zstd:3,ssd"
    );
    // A kept key with a value no option has.
    assert_eq!(public_mount_options("errors=/home/bob,ro"), "ro");
    // A kept key whose value is a word no option takes (the sixth attack pass).
    assert_eq!(
        public_mount_options(
            "uid=zorro,compress=hunter2,vers=quixhost,data=ordered,umask=0022,errors=remount-ro"
        ),
        "data=ordered,umask=0022,errors=remount-ro"
    );
    let mut doc = sample::doc();
    doc.target.mount_options = Some("rw,user=carol,noatime".into());
    let sent = doc.for_submission(None);
    assert_eq!(sent.target.mount_options.as_deref(), Some("rw,noatime"));
}

#[test]
fn a_path_encoded_twice_or_more_is_hidden_as_one_encoded_once() {
    for text in [
        "x %252Fhome%252Falice y",
        "x %25252fhome%25252Falice y",
        "x %2Fhome%2Falice y",
    ] {
        let shown = hide_private_paths(text);
        assert!(!shown.contains("alice"), "{text}: {shown}");
    }
    assert_eq!(unescaped("100%25 of %2"), "100% of %2");
    // Each code undoing the last, many deep: taken back whole in one pass.
    let deep = format!("/x%{}2fhome", "25".repeat(10_000));
    assert_eq!(unescaped(&deep), "/x/home");
}

/// Issue 59's attack pass: paths that name a person in every spelling it tried.
#[test]
fn no_spelling_of_a_persons_folder_is_sent() {
    for (text, shown) in [
        ("on /media/alice", "on [folder]"),
        ("on /media/alice.", "on [folder]"),
        ("/home//bob/x and /home/./u", "[folder] and [folder]"),
        ("/HOME/u", "[folder]"),
        ("C:\\Users\\u", "[folder]"),
        ("\\home\\u", "[folder]"),
        ("\u{ff0f}home\u{ff0f}dave", "[folder]"),
        ("/\u{210d}ome/u", "[folder]"),
        ("~erin", "[folder]"),
        (
            "/run/user/1000/gvfs/smb-share:server=nas,user=carol",
            "[folder]",
        ),
        ("(/home/\u{b4}u)", "[folder]"),
        ("file:///home/u/x", "[folder]"),
    ] {
        let hidden = super::hide_private_paths(text);
        assert_eq!(hidden, shown, "{text}");
    }
    // What is no one's stays: units, the system's folders, what was hidden already.
    for text in [
        "2000 MB/s and 4 I/O a read/write",
        "/dev/sda on /mnt/, /sys/block/sda/queue and /tmp",
        "~ and ~/[folder] and /media/USER/[folder]",
        "/dev/nvme0n1p2, /dev/mmcblk0 and /dev/dm-0",
        "a ratio of 1/3",
        "<script>alert(1)</script> \"><img src=x onerror=alert(2)>",
    ] {
        assert_eq!(super::hide_private_paths(text), text);
    }
    // Issue 59's third attack pass: a folder made under a shared one names its maker; a
    // path written percent-encoded is a path.
    for (text, shown) in [
        (
            "/dev/sda on /mnt/alice14-photos, and (/tmp/alice12-private)",
            "/dev/sda on /mnt/[folder], and (/tmp/[folder])",
        ),
        ("label %2Fhome%2Falice07%2Fx", "label [folder]"),
        ("from %2fopt%2Fbob", "from /opt/[folder]"),
        // Found by the fuzz target document: hidden once is hidden.
        ("/tmp/x]", "/tmp/[folder]]"),
    ] {
        assert_eq!(super::hide_private_paths(text), shown, "{text}");
        assert_eq!(super::hide_private_paths(shown), shown, "{shown}");
    }
}

/// Issue 59: a card mounted by the desktop carries its user's name in its path.
#[test]
fn the_owner_of_a_desktop_s_mounts_is_not_sent() {
    let mut doc = sample::doc();
    doc.target.path = "/media/alice/SD CARD".into();
    doc.warnings.push(crate::result::Warning::new(
        crate::result::WarningKind::HighVariation,
        "loops of /run/media/bob/USB/.iomark-1.tmp varied; /media/CARD and /media/ too",
    ));
    let sent = doc.for_submission(None);
    // The card's label its owner gave (the ninth attack pass: `ALICE_WEDDING`) is not sent.
    assert_eq!(sent.target.path, "/media/USER/[folder]");
    assert_eq!(
        sent.warnings.last().unwrap().message,
        // A folder right under /media may be a user's own (`/media/alice`): hidden too.
        "loops of /run/media/USER/[folder] varied; [folder] and [folder] too"
    );
}

#[test]
fn paths_under_home_are_not_sent() {
    let mut doc = sample::doc();
    doc.target.path = "/home/alice/bench".into();
    doc.warnings.push(crate::result::Warning::new(
        crate::result::WarningKind::HighVariation,
        "loops of /home/alice/bench/.iomark-1.tmp varied",
    ));
    let sent = doc.for_submission(Some(Path::new("/home/alice")));
    assert_eq!(sent.target.path, "~/[folder]");
    assert_eq!(
        sent.warnings.last().unwrap().message,
        "loops of ~/[folder] varied"
    );
    let text = serde_json::to_string(&sent).unwrap();
    assert!(!text.contains("alice"), "{text}");
    // Anyone's home folder names them; a path elsewhere, or a home that is a prefix of
    // another name, stays.
    doc.target.path = "/home/alicex/bench".into();
    let sent = doc.for_submission(Some(Path::new("/home/alice")));
    assert_eq!(sent.target.path, "~/[folder]");
    doc.target.path = "/srv/alicex/bench".into();
    let sent = doc.for_submission(Some(Path::new("/srv/alice")));
    assert_eq!(
        sent.target.path, "[folder]",
        "another's folder, not the home"
    );
    doc.target.path = "/srv/alice/bench".into();
    let sent = doc.for_submission(Some(Path::new("/srv/alice")));
    assert_eq!(sent.target.path, "~/[folder]");
    doc.target.path = "/mnt/usb".into();
    assert_eq!(
        doc.for_submission(Some(Path::new("/"))).target.path,
        "/mnt/[folder]"
    );
}

/// The sixth attack pass: a folder written with HTML's character references.
#[test]
fn a_path_written_with_character_references_is_hidden() {
    for text in [
        "&#47;home&#47;zorro",
        "&#x2F;media&#x2f;zorro&#47;CARD",
        "&amp;#47;home&amp;#47;zorro",
    ] {
        let hidden = hide_private_paths(text);
        assert!(!hidden.contains("zorro"), "{text}: {hidden}");
    }
    assert_eq!(
        hide_private_paths("R&amp;D 4 &#x26; 5"),
        "R&amp;D 4 &#x26; 5"
    );
}

/// The seventh attack pass: a user name with a space, a folder below a home, a prompt, a
/// drive's serial and names people gave, under system folders.
#[test]
fn no_name_a_person_gave_or_has_is_sent_whatever_folder_holds_it() {
    for (text, shown) in [
        (
            "/Users/Alice Smith/Desktop and /home/alice smith/x",
            "~/[folder] and ~/[folder]",
        ),
        ("/home/alice/acme-merger-2026/bench", "~/[folder]"),
        ("alice@bobpc:~$ iomark run", "[someone] iomark run"),
        ("mail alice@example.org", "mail [someone]"),
        (
            "/dev/disk/by-id/ata-Samsung_SSD_870_EVO_1TB_S5Y1NX0R123456X",
            "/dev/[folder]",
        ),
        ("/dev/disk/by-label/alice-photos", "/dev/[folder]"),
        ("/dev/mapper/alice--vg-root", "/dev/[folder]"),
        ("(/var/lib/alice)", "(/var/lib/[folder])"),
        ("/mnt/My Photos/alice x", "/mnt/[folder] [folder] x"),
    ] {
        assert_eq!(super::hide_private_paths(text), shown, "{text}");
        assert_eq!(super::hide_private_paths(shown), shown, "{shown}");
    }
    // A name of many words (six and more) is no name: the words stay, the path is hidden.
    assert_eq!(
        super::hide_private_paths("/home/alice and then some more words/x"),
        "~ and then some more words/x"
    );
}

/// The eighth attack pass: an address written as a character reference or percent-encoded, a
/// machine's local name, a serial number in a label, a path without its first slash, a kernel
/// its builder named.
#[test]
fn no_address_machine_serial_or_builder_s_name_is_sent() {
    for (text, shown) in [
        ("mail gil&#64;example.com", "mail [someone]"),
        ("hal%40example.com", "[someone]"),
        ("on chris-desktop.local today", "on [someone] today"),
        ("S/N S4EWNX0R123456X", "S/N [serial]"),
        ("Serial No. S4EWNX0R123456X", "Serial No. [serial]"),
        ("home/sybil/bench", "[folder]"),
        ("disk/by-id/nvme-Samsung_SSD_S4EWNX0R123456X", "[folder]"),
    ] {
        assert_eq!(hide_private_paths(text), shown, "{text}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
    for text in [
        "SN770M 1TB",
        "no. 1 of 3",
        "a read/write test",
        "SD/MMC/MS PRO",
    ] {
        assert_eq!(hide_private_paths(text), text);
    }
    for (kernel, shown) in [
        ("6.1.0-alicesmith", "6.1.0"),
        ("6.1.0-21-arm64", "6.1.0-21-arm64"),
        ("6.6.31+rpt-rpi-v8", "6.6.31+rpt-rpi-v8"),
        ("4.19.66-v7+", "4.19.66-v7+"),
        (
            "4.14.35-1902.0.18.el7uek.aarch64",
            "4.14.35-1902.0.18.el7uek.aarch64",
        ),
        ("6.8.0-45-generic", "6.8.0-45-generic"),
        ("6.1.0-alice-arm64", "6.1.0-arm64"),
        ("6.12.1-arch1-1", "6.12.1-arch1-1"),
        // Found by the fuzz target document: a kernel of signs is none, and stays none.
        ("[folder]]", ""),
        ("~erin/6.1", "6.1"),
        ("6.18.44/fc-v595", "6.18.44-fc"),
    ] {
        assert_eq!(public_kernel(kernel), shown, "{kernel}");
        assert_eq!(public_kernel(shown), shown, "{shown}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
}

/// The ninth attack pass: serials glued to their mark, names on home networks and dynamic DNS,
/// an address spelt out, a folder's name of several words, a card's label.
#[test]
fn marks_of_serials_home_networks_and_spelt_addresses_are_read() {
    for (text, shown) in [
        (
            "s/n:2049E4A1B2C3 and SN#S4EWNX0R12",
            "[serial] and [serial]",
        ),
        (
            "serial=S4EWNX0R123456 SerialNumber:XYZ12345",
            "[serial] [serial]",
        ),
        ("on alice-pc.fritz.box", "on [someone]"),
        ("nas.corp and alice.duckdns.org", "[someone] and [someone]"),
        (
            "alice (at) example (dot) com today",
            "[someone] [someone] [someone] today",
        ),
        ("alice(at)example.com", "[someone]"),
        // Found reading the change again: bare words, in that order only.
        (
            "mail alice at example dot com",
            "mail [someone] [someone] [someone]",
        ),
        (
            "/mnt/photos of Alice Smith/x is slow",
            "/mnt/[folder] [folder] is slow",
        ),
        ("/media/USER/ALICE_WEDDING", "/media/USER/[folder]"),
    ] {
        assert_eq!(hide_private_paths(text), shown, "{text}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
    for text in [
        "WD SN770M 1TB",
        "/mnt/x is slow, then a/b",
        "a mount at /mnt/ and more",
        "at 4 KiB a dot is drawn",
    ] {
        assert_eq!(
            hide_private_paths(text),
            text.replace("/mnt/x", "/mnt/[folder]")
        );
    }
}

/// The tenth attack pass: a serial after other words that say so.
#[test]
fn a_serial_after_any_word_for_it_is_not_sent() {
    for (text, shown) in [
        ("serial number ZQX88AB1234", "serial number [serial]"),
        ("Serial Number ZQX88AB1234", "Serial Number [serial]"),
        ("serial-number: ZQX88AB1234", "serial-number: [serial]"),
        ("SerialNo ZQX88AB1234 ok", "SerialNo [serial] ok"),
        ("SerialNo:ZQX88AB1234", "[serial]"),
        ("Seriennummer ZQX88AB1234", "Seriennummer [serial]"),
        ("Serien-Nr. ZQX88AB1234", "Serien-Nr. [serial]"),
        (
            "numéro de série : ZQX88AB1234",
            "numéro de série : [serial]",
        ),
        ("Serial No. 2049E4A1", "Serial No. [serial]"),
        // Reading the change again: a sign between the tag and its serial.
        ("S/N - ABC12345", "S/N - [serial]"),
        ("SN — ABC12345", "SN — [serial]"),
        ("Serial # : ABC12345", "Serial # : [serial]"),
    ] {
        assert_eq!(hide_private_paths(text), shown, "{text}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
    for text in [
        "Samsung 990 EVO series 2024",
        "no 4 KiB reads",
        "WD SN770M 1TB",
    ] {
        assert_eq!(hide_private_paths(text), text);
    }
}

/// A disk's name and a filesystem's type are the kernel's words or nothing: someone's words
/// in them are replaced, wherever the document repeats them.
#[test]
fn a_disk_and_a_filesystem_are_named_in_the_kernel_s_words_only() {
    for name in [
        "sda",
        "sdab",
        "vdb",
        "xvda",
        "hdc",
        "nvme0n1",
        "nvme1c2n1",
        "mmcblk0",
        "mmcblk0boot1",
        "mmcblk0rpmb",
        "loop3",
        "dm-0",
        "md127",
        "zram0",
        "nbd0",
        "sr0",
        "ubiblock0_1",
        "pmem0s",
    ] {
        assert_eq!(public_device_name(name), name);
    }
    for name in [
        "zorroqx-disk",
        "sdalice1x",
        "loop0alice",
        "alice",
        "md-home",
        "nvme0n1-bob",
        "",
    ] {
        assert_eq!(public_device_name(name), "[device]", "{name}");
    }
    for (fs, shown) in [
        ("ext4", "ext4"),
        ("fuse.sshfs", "fuse.sshfs"),
        ("fuseblk", "fuseblk"),
        ("fuse.zorroqx-sshfs", "fuse"),
        ("zorroqxfs", "other"),
    ] {
        assert_eq!(public_filesystem(fs), shown);
    }
    let mut doc = sample::ssd_doc();
    doc.target.filesystem = Some("fuse.zorroqx-sshfs".into());
    if let Some(device) = doc.target.device.as_mut() {
        device.name = Some("zorroqx-disk".into());
    }
    doc.warnings.push(crate::result::Warning::new(
        crate::result::WarningKind::NetworkFilesystem,
        "/srv is on fuse.zorroqx-sshfs, zorroqx-disk",
    ));
    let sent = serde_json::to_string(&doc.for_submission(None)).unwrap();
    assert!(!sent.contains("zorroqx"), "{sent}");
    assert!(sent.contains("\"filesystem\":\"fuse\""), "{sent}");
    assert!(sent.contains("\"name\":\"[device]\""), "{sent}");
}

/// The eleventh attack pass: a VPN's machine name, `Ser.-Nr.`, a product's serial number.
#[test]
fn a_machine_s_full_name_and_other_serials_are_not_sent() {
    for (text, shown) in [
        (
            "run on zqx-laptop.tail1a2b3.ts.net today",
            "run on [someone] today",
        ),
        ("Ser.-Nr. ZQ1445CAABD1", "Ser.-Nr. [serial]"),
        ("PSN ZQ95F0721408", "PSN [serial]"),
        (
            "SanDisk Ultra 64GB PSN ZQzqfkbgbg",
            "SanDisk Ultra 64GB PSN [serial]",
        ),
        ("serial number: unknown", "serial number: [serial]"),
        (
            "SanDisk Ultra zqX-pc.tail1a2b3.ts.net 64GB",
            "SanDisk Ultra [someone] 64GB",
        ),
    ] {
        assert_eq!(hide_private_paths(text), shown, "{text}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
    for text in [
        "Samsung 990 EVO M.2 2280",
        "E.V.O. 1TB",
        "v1.2.3 and 6.1.0-21-arm64",
        "a PCIe 4.0 x4 link",
    ] {
        assert_eq!(hide_private_paths(text), text);
    }
}

/// The twelfth attack pass: an address with its `@` spaced apart, a serial after a dash or
/// after a word for it in other languages, a disk's label as the system writes it.
#[test]
fn spaced_addresses_foreign_serials_and_disk_labels_are_not_sent() {
    for (text, shown) in [
        ("Zqfbcjc72 @ example.com", "[someone] [someone]"),
        ("mail zq ＠ example.com now", "mail [someone] [someone] now"),
        ("SN-Zqfbcjc72", "[serial]"),
        ("card SN_ZQFBCJCX ok", "card [serial] ok"),
        ("シリアル番号 Zqfbcjc72", "シリアル番号 [serial]"),
        ("序列号 Zqfbcjc72", "序列号 [serial]"),
        ("número de serie Zqfbcjc72", "número de serie [serial]"),
        ("numero di serie Zqfbcjc72", "numero di serie [serial]"),
        ("серийный номер Zqfbcjc72", "серийный номер [serial]"),
        ("일련번호 Zqfbcjc72", "일련번호 [serial]"),
        ("LABEL=Zqfbcjc72", "[label]"),
        ("on PARTLABEL=alice-usb", "on [label]"),
        ("(UUID=2f1e-77ab)", "[label]"),
    ] {
        assert_eq!(hide_private_paths(text), shown, "{text}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
    for text in [
        "WD Black SN-850X 2TB",
        "Samsung Serie 9 SSD",
        "a label = fast",
        "1 @ 2 GB/s",
        "SN-7100",
    ] {
        assert_eq!(hide_private_paths(text), text);
    }
}

/// The thirteenth attack pass: a Windows path a space broke, an address with its host in
/// brackets, a serial after a word for it in seven more languages, a phone's IMEI, a UUID, a
/// mount's name for it.
#[test]
fn more_serials_addresses_and_broken_paths_are_not_sent() {
    for (text, shown) in [
        (
            "C:\\Documents and Settings\\Zqxname\\bench",
            "[folder] [folder]",
        ),
        ("mail Zqxname@[192.168.1.5] now", "mail [someone] now"),
        ("UUID: X-2fa1-11d2", "UUID: [serial]"),
        ("x-gvfs-name=Zqxname", "[label]"),
        ("numer seryjny Zqx12345", "numer seryjny [serial]"),
        ("seri numarası Zqx12345", "seri numarası [serial]"),
        ("sériové číslo Zqx12345", "sériové číslo [serial]"),
        ("серійний номер Zqx12345", "серійний номер [serial]"),
        ("с/н Zqx12345", "с/н [serial]"),
        ("σειριακός αριθμός Zqx12345", "σειριακός αριθμός [serial]"),
        ("số sê-ri Zqx12345", "số sê-ri [serial]"),
        ("IMEI 356938035643809", "IMEI [serial]"),
    ] {
        assert_eq!(hide_private_paths(text), shown, "{text}");
        assert_eq!(hide_private_paths(shown), shown, "{shown}");
    }
    for text in [
        "Samsung 990 EVO",
        "a 4 KiB read @ 2 GB/s",
        "WD Blue SN580",
        "Samsung Seri 9 SSD",
        "sê-ri 5 mới",
    ] {
        assert_eq!(hide_private_paths(text), text);
    }
}
