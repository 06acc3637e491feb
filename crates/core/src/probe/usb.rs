//! USB storage: the link speed, the driver (`uas` or `usb-storage`), ids and names, and the
//! bridge chip where its ids are known.
//!
//! A USB disk's node sits below its USB device in the device tree:
//! `…/usb2/2-2/2-2:1.0/host0/target0:0:0/0:0:0:0/block/sda`. The USB device (`2-2`) holds
//! `speed`, `idVendor`, `idProduct`, `manufacturer`, `product`, `serial`; the interface
//! (`2-2:1.0`) links to its `driver` (Documentation/ABI/stable/sysfs-bus-usb).

use std::path::Path;

use super::sysfs::{link_name, read, trim};
use iomark_result::result::Usb;

/// Widely used USB-to-SATA/NVMe bridges, by `vendor:product` id (as published in the USB id
/// database and the bridges' data sheets).
const BRIDGES: &[(&str, &str)] = &[
    ("174c:55aa", "ASMedia ASM1051E/ASM1053E/ASM1153E (SATA)"),
    ("174c:1153", "ASMedia ASM1153 (SATA)"),
    ("174c:2362", "ASMedia ASM2362 (NVMe)"),
    ("152d:0567", "JMicron JMS567 (SATA)"),
    ("152d:0578", "JMicron JMS578 (SATA)"),
    ("152d:0583", "JMicron JMS583 (NVMe)"),
    ("0bda:9210", "Realtek RTL9210 (NVMe)"),
    ("2109:0715", "VIA VL715/VL716 (SATA)"),
];

/// The USB device above `node`, and the interface just below it on the path.
fn usb_device(node: &Path) -> Option<(&Path, &Path)> {
    let mut below = node;
    for dir in node.ancestors().skip(1) {
        if dir.join("idVendor").exists() && dir.join("speed").exists() {
            return Some((dir, below));
        }
        below = dir;
    }
    None
}

pub fn probe(node: &Path) -> Option<Usb> {
    let (device, interface) = usb_device(node)?;
    Some(decode(
        &|name| std::fs::read_to_string(device.join(name)).ok(),
        link_name(&interface.join("driver")),
    ))
}

/// The USB device from its attributes' text (`attr("idVendor")`, `None` where missing) and
/// its interface's driver: what [`probe`] makes of a real device, of any bytes alike.
pub fn decode(attr: &dyn Fn(&str) -> Option<String>, driver: Option<String>) -> Usb {
    let text = |name: &str| attr(name).as_deref().and_then(trim);
    let vendor_id = text("idVendor");
    let product_id = text("idProduct");
    let bridge = match (&vendor_id, &product_id) {
        (Some(v), Some(p)) => {
            let id = format!("{v}:{p}").to_ascii_lowercase();
            BRIDGES
                .iter()
                .find(|(known, _)| *known == id)
                .map(|(_, name)| name.to_string())
        }
        _ => None,
    };
    Usb {
        extra: Default::default(),
        speed_mbps: text("speed").and_then(|s| s.parse().ok()),
        driver,
        vendor_id,
        product_id,
        product: text("product"),
        manufacturer: text("manufacturer"),
        bridge,
    }
}

/// The USB device's serial number (hashed by the caller).
pub fn serial(node: &Path) -> Option<String> {
    let (device, _) = usb_device(node)?;
    read(&device.join("serial"))
}
