//! NVMe: model and firmware from the controller, PCIe link speed and width (current and
//! maximum) from the PCI function (Documentation/ABI/testing/sysfs-bus-pci).
//!
//! `nvme0n1/device` is the controller `nvme0`; the controller's `device` is the PCI function.

use std::path::Path;

use super::sysfs::{read, read_u64};
use iomark_result::result::Nvme;

pub fn probe(node: &Path) -> Option<Nvme> {
    let controller = node.join("device");
    if !controller.exists() {
        return None;
    }
    let pci = controller.join("device");
    let width = |file: &str| read_u64(&pci.join(file)).map(|w| w as u32);
    Some(Nvme {
        extra: Default::default(),
        model: read(&controller.join("model")),
        firmware: read(&controller.join("firmware_rev")),
        link_speed: read(&pci.join("current_link_speed")),
        link_width: width("current_link_width"),
        max_link_speed: read(&pci.join("max_link_speed")),
        max_link_width: width("max_link_width"),
    })
}
