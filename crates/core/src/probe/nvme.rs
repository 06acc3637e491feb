//! NVMe: model and firmware from the controller, PCIe link speed and width (current and
//! maximum) from the PCI function (Documentation/ABI/testing/sysfs-bus-pci).
//!
//! `nvme0n1/device` is the controller `nvme0`; the controller's `device` is the PCI function.

use std::path::Path;

use super::sysfs::{parse_u64, trim};
use iomark_result::result::Nvme;

pub fn probe(node: &Path) -> Option<Nvme> {
    let controller = node.join("device");
    if !controller.exists() {
        return None;
    }
    let pci = controller.join("device");
    Some(decode(
        &|name| std::fs::read_to_string(controller.join(name)).ok(),
        &|name| std::fs::read_to_string(pci.join(name)).ok(),
    ))
}

/// The drive from its controller's and its PCI function's attributes' text (`None` where
/// missing): what [`probe`] makes of a real drive, of any bytes alike.
pub fn decode(
    controller: &dyn Fn(&str) -> Option<String>,
    pci: &dyn Fn(&str) -> Option<String>,
) -> Nvme {
    let text =
        |attr: &dyn Fn(&str) -> Option<String>, name: &str| attr(name).as_deref().and_then(trim);
    let width = |name: &str| {
        text(pci, name)
            .as_deref()
            .and_then(parse_u64)
            .and_then(|w| u32::try_from(w).ok())
    };
    Nvme {
        extra: Default::default(),
        model: text(controller, "model"),
        firmware: text(controller, "firmware_rev"),
        link_speed: text(pci, "current_link_speed"),
        link_width: width("current_link_width"),
        max_link_speed: text(pci, "max_link_speed"),
        max_link_width: width("max_link_width"),
    }
}
