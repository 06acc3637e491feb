//! `iomark info` for people: the host, the storage, and the bottlenecks, in a few lines each.

use std::fmt::Write as _;

use super::Style;
use iomark_result::result::Info;
use iomark_result::units::format_size;

pub fn render(info: &Info, style: Style) -> String {
    let h = &info.host;
    let t = &info.target;
    let mut text = format!("{}\n", style.bold("Host"));
    let row = |text: &mut String, label: &str, value: Option<String>| {
        if let Some(value) = value {
            let _ = writeln!(text, "  {:<16} {value}", label);
        }
    };
    row(&mut text, "board", h.board.clone());
    row(
        &mut text,
        "cpu",
        h.cpu_model.clone().map(|m| match h.cpu_cores {
            Some(n) => format!("{m} ({n} cores)"),
            None => m,
        }),
    );
    row(
        &mut text,
        "cpu frequency",
        h.cpu_max_mhz.map(|mhz| {
            format!(
                "{mhz} MHz max, governor {}",
                h.cpu_governor.as_deref().unwrap_or("?")
            )
        }),
    );
    row(&mut text, "memory", h.memory_bytes.map(format_size));
    row(
        &mut text,
        "kernel",
        h.kernel.clone().map(|k| format!("{k} ({})", h.arch)),
    );
    row(&mut text, "os", h.os.clone());
    row(&mut text, "throttling", h.throttled.clone());
    let _ = writeln!(text, "{}", style.bold("Storage"));
    row(&mut text, "path", Some(t.path.clone()));
    row(
        &mut text,
        "filesystem",
        t.filesystem
            .clone()
            .map(|fs| format!("{fs} ({})", t.mount_options.as_deref().unwrap_or(""))),
    );
    row(&mut text, "free", t.free_bytes.map(format_size));
    match &t.device {
        None => row(
            &mut text,
            "device",
            Some("none (no block device under this filesystem)".into()),
        ),
        Some(d) => {
            let mut name = d.name.clone().unwrap_or_default();
            if !d.stack.is_empty() {
                name = format!("{} on {name}", d.stack.join(" on "));
            }
            row(&mut text, "device", Some(name));
            row(&mut text, "transport", d.transport.clone());
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
            row(&mut text, "model", model);
            row(
                &mut text,
                "size",
                d.size_bytes
                    .map(|b| format!("{} ({:.1} GB)", format_size(b), b as f64 / 1e9)),
            );
            let kind = d.kind();
            let said = match (d.rotation_rpm, d.rotational) {
                _ if d.transport.as_deref() == Some("loop") => {
                    Some("a loop device: what holds its file decides".to_string())
                }
                (Some(0), _) => Some(format!("{kind}; solid state, as the drive says")),
                (Some(rpm), _) => Some(format!("{kind}; {rpm} rpm, as the drive says")),
                // A virtual disk reports whatever its hypervisor chose (virtio says
                // rotational by default), not what the host's storage is.
                (None, Some(_)) if d.transport.as_deref() == Some("virtio") => {
                    Some("a virtual disk: the host's storage may be anything".to_string())
                }
                // The kernel says rotational unless the device answers otherwise, and most USB
                // sticks and bridges do not answer.
                (None, Some(true)) if d.transport.as_deref() == Some("usb") => Some(format!(
                    "{kind}; the kernel's 'rotational' is only its default: the device did not say"
                )),
                (None, Some(true)) => Some(format!("{kind}; rotational, as the kernel reports it")),
                (None, Some(false)) => Some(format!("{kind}; non-rotational (flash or SSD)")),
                (None, None) => None,
            };
            row(&mut text, "kind", said);
            row(
                &mut text,
                "block size",
                d.logical_block_size.map(|l| {
                    format!(
                        "{l} logical, {} physical",
                        d.physical_block_size.unwrap_or(l)
                    )
                }),
            );
            row(&mut text, "scheduler", d.scheduler.clone());
            row(&mut text, "backing file", d.backing_file.clone());
            if let Some(u) = &d.usb {
                row(
                    &mut text,
                    "usb link",
                    u.speed_mbps.map(|s| {
                        format!("{s} Mbps, driver {}", u.driver.as_deref().unwrap_or("?"))
                    }),
                );
                let names: Vec<String> = [u.manufacturer.clone(), u.product.clone()]
                    .into_iter()
                    .flatten()
                    .collect();
                row(
                    &mut text,
                    "usb device",
                    Some(format!(
                        "{}:{} {}",
                        u.vendor_id.as_deref().unwrap_or("?"),
                        u.product_id.as_deref().unwrap_or("?"),
                        names.join(" ")
                    )),
                );
                row(&mut text, "usb bridge", u.bridge.clone());
            }
            if let Some(sd) = &d.sd {
                let who: Vec<String> = [
                    sd.manufacturer.clone(),
                    sd.product.clone(),
                    sd.revision.clone().map(|r| format!("rev {r}")),
                ]
                .into_iter()
                .flatten()
                .collect();
                row(
                    &mut text,
                    "card",
                    Some(format!(
                        "{} {}",
                        sd.kind.as_deref().unwrap_or("?"),
                        who.join(" ")
                    )),
                );
                row(
                    &mut text,
                    "card ids",
                    Some(format!(
                        "manfid {} oemid {} made {}",
                        sd.manfid.as_deref().unwrap_or("?"),
                        sd.oemid.as_deref().unwrap_or("?"),
                        sd.date.as_deref().unwrap_or("?")
                    )),
                );
                row(
                    &mut text,
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
                row(
                    &mut text,
                    "sd bus",
                    sd.bus_timing.clone().map(|t| {
                        format!("{t} at {} MHz", sd.bus_clock_hz.unwrap_or(0) / 1_000_000)
                    }),
                );
            }
            if let Some(n) = &d.nvme {
                row(
                    &mut text,
                    "nvme",
                    Some(format!(
                        "{} firmware {}",
                        n.model.as_deref().unwrap_or("?"),
                        n.firmware.as_deref().unwrap_or("?")
                    )),
                );
                row(
                    &mut text,
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
        }
    }
    for warning in &info.warnings {
        let _ = writeln!(text, "{} {}", style.yellow("warning:"), warning.message);
    }
    text
}
