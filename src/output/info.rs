//! `iomark info` for people: the host, the storage, and the bottlenecks, in a few lines each.

use std::fmt::Write as _;

use super::Style;
use iomark_result::result::{Device, Host, Info, Nvme, Sd, Target, Transport, Usb};
use iomark_result::units::format_size;

/// Labelled lines, a value each where one is known; a line whose value is unknown is left out.
struct Rows(String);

impl Rows {
    fn row(&mut self, label: &str, value: Option<String>) {
        if let Some(value) = value {
            let _ = writeln!(self.0, "  {:<16} {value}", label);
        }
    }
}

pub fn render(info: &Info, style: Style) -> String {
    let mut rows = Rows(format!("{}\n", style.bold("Host")));
    host(&mut rows, &info.host);
    let _ = writeln!(rows.0, "{}", style.bold("Storage"));
    storage(&mut rows, &info.target);
    for warning in &info.warnings {
        let _ = writeln!(rows.0, "{} {}", style.yellow("warning:"), warning.message);
    }
    rows.0
}

fn host(rows: &mut Rows, h: &Host) {
    rows.row("board", h.board.clone());
    rows.row(
        "cpu",
        h.cpu_model.clone().map(|m| match h.cpu_cores {
            Some(n) => format!("{m} ({n} cores)"),
            None => m,
        }),
    );
    rows.row(
        "cpu frequency",
        h.cpu_max_mhz.map(|mhz| {
            format!(
                "{mhz} MHz max, governor {}",
                h.cpu_governor.as_deref().unwrap_or("?")
            )
        }),
    );
    rows.row("memory", h.memory_bytes.map(format_size));
    rows.row(
        "kernel",
        h.kernel.clone().map(|k| format!("{k} ({})", h.arch)),
    );
    rows.row("os", h.os.clone());
    rows.row("throttling", h.throttled.clone());
}

fn storage(rows: &mut Rows, t: &Target) {
    rows.row("path", Some(t.path.clone()));
    rows.row(
        "filesystem",
        t.filesystem
            .clone()
            .map(|fs| format!("{fs} ({})", t.mount_options.as_deref().unwrap_or(""))),
    );
    rows.row("free", t.free_bytes.map(format_size));
    let Some(d) = &t.device else {
        rows.row(
            "device",
            Some("none (no block device under this filesystem)".into()),
        );
        return;
    };
    device(rows, d);
    if let Some(u) = &d.usb {
        usb(rows, u);
    }
    if let Some(sd) = &d.sd {
        card(rows, sd);
    }
    if let Some(n) = &d.nvme {
        nvme(rows, n);
    }
}

fn device(rows: &mut Rows, d: &Device) {
    let mut name = d.name.clone().unwrap_or_default();
    if !d.stack.is_empty() {
        name = format!("{} on {name}", d.stack.join(" on "));
    }
    rows.row("device", Some(name));
    rows.row("transport", d.transport.map(|t| t.to_string()));
    let identity: Vec<String> = [d.vendor.clone(), d.model.clone()]
        .into_iter()
        .flatten()
        .collect();
    let reported = (!identity.is_empty()).then(|| identity.join(" "));
    // The drive's own name where a bridge or libata gave another or cut it short.
    let model = match (&d.drive_model, reported) {
        (Some(drive), Some(reported)) if *drive != reported => {
            Some(format!("{drive} (reported as '{reported}')"))
        }
        (Some(drive), _) => Some(drive.clone()),
        (None, reported) => reported,
    };
    rows.row("model", model);
    rows.row(
        "size",
        d.size_bytes
            .map(|b| format!("{} ({:.1} GB)", format_size(b), b as f64 / 1e9)),
    );
    rows.row("kind", kind(d));
    rows.row(
        "block size",
        d.logical_block_size.map(|l| {
            format!(
                "{l} logical, {} physical",
                d.physical_block_size.unwrap_or(l)
            )
        }),
    );
    rows.row("scheduler", d.scheduler.clone());
    rows.row("backing file", d.backing_file.clone());
}

/// What kind of device it is, and on whose word.
fn kind(d: &Device) -> Option<String> {
    let kind = d.kind();
    match (d.rotation_rpm, d.rotational) {
        _ if d.transport == Some(Transport::Loop) => {
            Some("a loop device: what holds its file decides".to_string())
        }
        (Some(0), _) => Some(format!("{kind}; solid state, as the drive says")),
        (Some(rpm), _) => Some(format!("{kind}; {rpm} rpm, as the drive says")),
        // A virtual disk reports whatever its hypervisor chose (virtio says
        // rotational by default), not what the host's storage is.
        (None, Some(_)) if d.transport == Some(Transport::Virtio) => {
            Some("a virtual disk: the host's storage may be anything".to_string())
        }
        // The kernel says rotational unless the device answers otherwise, and most USB
        // sticks and bridges do not answer.
        (None, Some(true)) if d.transport == Some(Transport::Usb) => Some(format!(
            "{kind}; the kernel's 'rotational' is only its default: the device did not say"
        )),
        (None, Some(true)) => Some(format!("{kind}; rotational, as the kernel reports it")),
        (None, Some(false)) => Some(format!("{kind}; non-rotational (flash or SSD)")),
        (None, None) => None,
    }
}

fn usb(rows: &mut Rows, u: &Usb) {
    rows.row(
        "usb link",
        u.speed_mbps
            .map(|s| format!("{s} Mbps, driver {}", u.driver.as_deref().unwrap_or("?"))),
    );
    let names: Vec<String> = [u.manufacturer.clone(), u.product.clone()]
        .into_iter()
        .flatten()
        .collect();
    rows.row(
        "usb device",
        Some(format!(
            "{}:{} {}",
            u.vendor_id.as_deref().unwrap_or("?"),
            u.product_id.as_deref().unwrap_or("?"),
            names.join(" ")
        )),
    );
    rows.row("usb bridge", u.bridge.clone());
}

fn card(rows: &mut Rows, sd: &Sd) {
    let who: Vec<String> = [
        sd.manufacturer.clone(),
        sd.product.clone(),
        sd.revision.clone().map(|r| format!("rev {r}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    rows.row(
        "card",
        Some(format!(
            "{} {}",
            sd.kind.as_deref().unwrap_or("?"),
            who.join(" ")
        )),
    );
    rows.row(
        "card ids",
        Some(format!(
            "manfid {} oemid {} made {}",
            sd.manfid.as_deref().unwrap_or("?"),
            sd.oemid.as_deref().unwrap_or("?"),
            sd.date.as_deref().unwrap_or("?")
        )),
    );
    rows.row(
        "card class",
        Some(format!(
            "{} SD {} claims {}",
            sd.capacity_class.as_deref().unwrap_or("?"),
            sd.spec_version.as_deref().unwrap_or("?"),
            if sd.claimed_classes.is_empty() {
                "no classes (or not readable)".into()
            } else {
                sd.claimed_classes.join(" ")
            }
        )),
    );
    rows.row(
        "sd bus",
        sd.bus_timing
            .clone()
            .map(|t| format!("{t} at {} MHz", sd.bus_clock_hz.unwrap_or(0) / 1_000_000)),
    );
}

fn nvme(rows: &mut Rows, n: &Nvme) {
    rows.row(
        "nvme",
        Some(format!(
            "{} firmware {}",
            n.model.as_deref().unwrap_or("?"),
            n.firmware.as_deref().unwrap_or("?")
        )),
    );
    rows.row(
        "pcie link",
        n.link_speed.clone().map(|s| {
            format!(
                "{s} x{} (max {} x{})",
                n.link_width.unwrap_or(0),
                n.max_link_speed.as_deref().unwrap_or("?"),
                n.max_link_width.unwrap_or(0)
            )
        }),
    );
}
