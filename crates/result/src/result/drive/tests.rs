//! The drive as a buyer names it: its maker, its capacity said once, its kind.

use super::*;
use crate::result::Usb;

fn usb_device(vendor: &str, model: &str, usb: (&str, &str, &str, Option<&str>)) -> Device {
    let (id, manufacturer, product, bridge) = usb;
    Device {
        transport: Some(Transport::Usb),
        vendor: Some(vendor.into()),
        model: Some(model.into()),
        size_bytes: Some(500_107_862_016),
        usb: Some(Usb {
            vendor_id: Some(id.into()),
            manufacturer: Some(manufacturer.into()),
            product: Some(product.into()),
            bridge: bridge.map(str::to_string),
            ..Usb::default()
        }),
        ..Device::default()
    }
}

#[test]
fn the_capacity_is_said_once() {
    let gb = |n| Some(n);
    assert_eq!(without_capacity("SSD 860 EVO 500G", gb(500)), "SSD 860 EVO");
    assert_eq!(
        without_capacity("Samsung SSD 970 EVO Plus 1TB", gb(1000)),
        "Samsung SSD 970 EVO Plus"
    );
    assert_eq!(without_capacity("Extreme 64 GB", gb(64)), "Extreme");
    assert_eq!(without_capacity("Fake Card 500GB.", gb(500)), "Fake Card");
    assert_eq!(without_capacity("Fake Card 500 GB!", gb(500)), "Fake Card");
    assert_eq!(
        without_capacity("Samsung-SSD-870-EVO-500GB", gb(500)),
        "Samsung-SSD-870-EVO"
    );
    assert_eq!(without_capacity("SDCZ48-064G", gb(64)), "SDCZ48");
    assert_eq!(
        without_capacity("WD10JPVX-22JC3T0", gb(1000)),
        "WD10JPVX-22JC3T0"
    );
    // A number that is not this capacity, or that is the whole name, stays.
    assert_eq!(without_capacity("Extreme 32GB", gb(64)), "Extreme 32GB");
    assert_eq!(without_capacity("64GB", gb(64)), "64GB");
    assert_eq!(without_capacity("SN64G", gb(64)), "SN64G");
    assert_eq!(
        without_capacity("Samsung SSD 870 EVO264GB", gb(264)),
        "Samsung SSD 870 EVO"
    );
    assert_eq!(without_capacity("Ultra SN64G", gb(64)), "Ultra SN64G");
    // The sixteenth attack pass: digits spaced apart, a capacity glued to a model number.
    assert_eq!(
        without_capacity("Crucial MX 5 0 0 2TB", gb(2000)),
        "Crucial MX 5 0 0"
    );
    assert_eq!(
        without_capacity("Crucial MX5002TB", gb(2000)),
        "Crucial MX500"
    );
    assert_eq!(
        without_capacity("KINGSTON SA400S37240G", gb(240)),
        "KINGSTON SA400S37"
    );
    assert_eq!(without_capacity("Ultra SU08G", gb(8)), "Ultra SU08G");
    assert_eq!(without_capacity("Card SN128G", gb(128)), "Card SN128G");
    assert_eq!(
        without_capacity("CT1000MX500SSD1", gb(1000)),
        "CT1000MX500SSD1"
    );
    assert_eq!(
        without_capacity("WDC WDS500G2B0A", gb(500)),
        "WDC WDS500G2B0A"
    );
    assert_eq!(
        without_capacity("SSD 860 EVO 500G", None),
        "SSD 860 EVO 500G"
    );
}

#[test]
fn makers_from_the_model_itself() {
    assert_eq!(maker_in("Samsung SSD 860 EVO 500GB"), Some("Samsung"));
    assert_eq!(maker_in("WDC WD10JPVX-22JC3T0"), Some("WD"));
    assert_eq!(maker_in("ST1000LM035-1RK172"), Some("Seagate"));
    assert_eq!(maker_in("CT500MX500SSD1"), Some("Crucial"));
    assert_eq!(maker_in("Cruzer Blade"), None);
    assert_eq!(maker_in("STORE N GO"), None);
}

#[test]
fn a_drive_behind_a_bridge_is_the_drive() {
    let asm = Some("ASMedia ASM1051E/ASM1053E/ASM1153E (SATA)");
    // The bridge passes the drive's vendor and model on (cut to 16 characters).
    let d = usb_device(
        "Samsung",
        "SSD 860 EVO 500G",
        ("174c", "ASMedia", "ASM1153E", asm),
    );
    assert_eq!(named(&d).model.as_deref(), Some("Samsung SSD 860 EVO"));
    // The bridge's own names: no model, and never the bridge's.
    let d = usb_device("ASMT", "2115", ("174c", "ASMedia", "ASM1153E", asm));
    assert_eq!(named(&d).model, None);
    // … unless the drive answered for itself.
    let mut d = d;
    d.drive_model = Some("Samsung SSD 860 EVO 500GB".into());
    assert_eq!(named(&d).model.as_deref(), Some("Samsung SSD 860 EVO"));
    d.drive_model = Some("ST1000LM035-1RK172".into());
    assert_eq!(
        named(&d).model.as_deref(),
        Some("Seagate ST1000LM035-1RK172")
    );
}

#[test]
fn sticks_are_flash_and_disks_spin() {
    let mut stick = usb_device(
        "SanDisk",
        "Cruzer Blade",
        ("0781", "SanDisk", "Cruzer Blade", None),
    );
    stick.rotational = Some(true);
    assert_eq!(kind(&stick), "USB flash");
    assert_eq!(named(&stick).model.as_deref(), Some("SanDisk Cruzer Blade"));
    let mut passport = usb_device(
        "WD",
        "My Passport 25E2",
        ("1058", "Western Digital", "My Passport 25E2", None),
    );
    passport.rotational = Some(true);
    assert_eq!(kind(&passport), "USB HDD");
    // A drive that says it does not spin is no disk, whatever the kernel's flag.
    let mut ssd = usb_device(
        "ASMT",
        "2115",
        ("174c", "ASMedia", "ASM1153E", Some("ASMedia (SATA)")),
    );
    ssd.rotational = Some(true);
    ssd.rotation_rpm = Some(0);
    assert_eq!(kind(&ssd), "USB SSD");
    ssd.rotation_rpm = Some(5400);
    assert_eq!(kind(&ssd), "USB HDD");
    // A SATA disk that says it spins at 7200 rpm while the kernel was told otherwise.
    let sata = Device {
        transport: Some(Transport::Sata),
        rotational: Some(false),
        rotation_rpm: Some(7200),
        ..Device::default()
    };
    assert_eq!(kind(&sata), "SATA HDD");
}

/// The eighth attack pass: WD's and HGST's SATA and SAS SSDs were filed as disks by their
/// makers' prefixes, and so held to platters they have not.
#[test]
fn a_drive_that_says_it_does_not_spin_is_no_disk_whatever_its_prefix() {
    let drive = |model: &str, transport: Transport, rotational: Option<bool>| {
        let mut d: Device = serde_json::from_value(serde_json::json!({})).unwrap();
        d.model = Some(model.into());
        d.transport = Some(transport);
        d.rotational = rotational;
        kind(&d)
    };
    assert_eq!(
        drive("WDC WDS500G2B0A-00SM50", Transport::Sata, Some(false)),
        "SATA SSD"
    );
    assert_eq!(
        drive("WDC WDS240G2G0A-00JH30", Transport::Sata, None),
        "SATA SSD"
    );
    assert_eq!(
        drive("HGST HUSMM1640ASS204", Transport::Scsi, Some(false)),
        "other"
    );
    assert_eq!(
        drive("WDC WD10EZEX-08WN4A0", Transport::Sata, Some(true)),
        "SATA HDD"
    );
    assert_eq!(
        drive("WDC WD10EZEX-08WN4A0", Transport::Sata, None),
        "SATA HDD"
    );
    assert_eq!(
        drive("ST2000DM008-2FR102", Transport::Sata, None),
        "SATA HDD"
    );
}
