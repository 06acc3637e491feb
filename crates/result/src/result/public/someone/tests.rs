//! Private shapes in text, as the attack passes sent them, and what stays.

use crate::result::hide_private_paths as sent;

/// The fourteenth attack pass: a filesystem's UUID bare and after `by-uuid/`, a FAT
/// volume's id, a network card's address and an IPv6 address holding it, in a label.
#[test]
fn a_volume_s_id_and_a_machine_s_address_are_not_sent() {
    for (text, shown) in [
        ("by-uuid/6a2c1b9e-0f3d-4e5a-9b7c-1d2e3f4a5b6c", "[label]"),
        (
            "card 6A2C1B9E-0F3D-4E5A-9B7C-1D2E3F4A5B6C here",
            "card [label] here",
        ),
        ("vfat 1A2B-3C4D", "vfat [label]"),
        ("eth0 a8:bb:cc:dd:ee:f1", "eth0 [someone]"),
        ("mac A8-BB-CC-DD-EE-F1,", "mac [someone]"),
        ("cisco a8bb.ccdd.eef1", "cisco [someone]"),
        ("(fe80::a8bb:ccff:fedd:eeff)", "[someone]"),
        ("2001:db8:1:2:3:4:5:6", "[someone]"),
        // The fifteenth.
        ("disk 5f0c9e1a2b3d4e5f8a9b0c1d2e3f4a5b", "disk [label]"),
        ("root=PARTUUID=4f2e91ab-02", "[label]"),
        ("from 81.2.69.160", "from [someone]"),
        ("::ffff:81.2.69.161", "[someone]"),
        // Tried after it: with a port.
        ("at 81.2.69.160:8080", "at [someone]"),
        // The sixteenth.
        (
            "disk ata-Samsung_SSD_870_EVO_1TB_S6PUNX0T412345K",
            "disk [serial]",
        ),
        ("disk wwn-0x5002538f42b1c3d4", "disk [serial]"),
        ("nvme-eui.0025388b91b2c3d4e5", "[serial]"),
        ("usb-SanDisk_Ultra_4C530001-0:0-part1", "[serial]"),
        ("mmc-SN64G_0x1234abcd", "[serial]"),
        // Left by the sixteenth, read once only texts were.
        ("ntfs 01D9A2B3C4E5F607 here", "ntfs [label] here"),
        ("pool guid 12345678901234567890", "pool guid [label]"),
        ("mac a8bbccddeef1,", "mac [label]"),
        ("eui 0x5002538f42b1c3d4", "eui [label]"),
        // 16 hex figures are hidden, whatever they were (a hash kept here once).
        ("SHA 0123456789abcdef", "SHA [label]"),
        // The seventeenth.
        ("drive WD-WCC4N7KL1234 here", "drive [serial] here"),
        ("pv Xq3Z1t-aBcD-eFgH-iJkL-mNoP-qRsT-uVwXyZ", "pv [label]"),
        ("md a1b2c3d4:e5f6a7b8:c9d0e1f2:a3b4c5d6", "md [label]"),
        ("on Alices-MacBook-Pro", "on [someone]"),
        ("on alice-ThinkPad-T480.", "on [someone]"),
        ("bob-laptop", "[someone]"),
        // The eighteenth.
        (
            "Alice’s MacBook Pro, USB-C port",
            "[someone] MacBook Pro, USB-C port",
        ),
        ("Alice's MacBook Pro", "[someone] MacBook Pro"),
        ("Alice’s-MacBook-Pro", "[someone]"),
        ("my 970 EVO S4EWNX0R123456A", "my 970 EVO [serial]"),
        // The nineteenth.
        ("MacBook-Pro-de-Zorrokid", "[someone]"),
        ("on MacBook-Air-von-Zorrokid.", "on [someone]"),
        ("Zorrokid-no-MacBook-Pro", "[someone]"),
        ("Galaxy-S21-de-Zorrokid", "[someone]"),
        ("Zorrokid的MacBook Pro", "[someone] Pro"),
        ("Zorrokids-iPhone", "[someone]"),
        ("iPhone de Zorrokid", "iPhone de [someone]"),
        ("MacBook Pro von Zorrokid", "MacBook Pro von [someone]"),
        ("Zorrokid’s Raspberry Pi", "[someone] Raspberry Pi"),
        ("by-label/THEODORA_USB", "[serial]"),
        ("ID_SERIAL_SHORT=4C530001", "[serial]"),
        ("DESKTOP-7H3K2LQ", "[someone]"),
        ("from 081.002.069.163", "from [someone]"),
        ("sarjanumero 4C530001", "sarjanumero [serial]"),
        ("/Users/Jean-Luc de la Fontaine Smith/Desktop", "~/[folder]"),
    ] {
        assert_eq!(sent(text), shown, "{text}");
    }
    // Times, dates, years, versions and model numbers stay.
    for text in [
        "at 12:30:45 on 2026-11-28",
        "bought 2019-2020",
        "kernel 6.1.0-21-arm64",
        "WDC WD40EZAZ-00SF3B0",
        "SanDisk SDSQXA1-064G",
        "Samsung MZ-V8P1T0BW",
        "ratio 1:2:3",
        "SEQ1M Q8T1 1655.32 MB/s",
        "nas 192.168.1.20 over 10.0.0.1",
        "firmware 1.2.3.4",
        "firmware 4.19.128.1",
        "a USB-C stick over usb-c",
        "free 51093889024 bytes",
        "the desktop-class drive",
        "written 1099511627776 bytes in 0x1f00 blocks",
        "WDS500G2B0A ST4000DM004 MZVL21T0HCLR CT1000MX500SSD1",
        "a mini-pc, a gaming-laptop, a usb-c hub, a desktop-class drive",
        "the drive's cache, its pc's port, SNV2S1000G, SSDSC2KW512G8",
        "WD-40EFRX WD-Black",
        "01JTEST0000000000000000013",
    ] {
        assert_eq!(sent(text), text);
    }
}
