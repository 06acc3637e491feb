//! Bottlenecks, in plain words, each with what to do. Derived from what the probe found; no I/O.

use iomark_result::result::{Host, Target, Warning, WarningKind};

fn warning(kind: WarningKind, message: String) -> Warning {
    Warning::new(kind, message)
}

pub fn warnings(host: &Host, target: &Target) -> Vec<Warning> {
    let mut out = Vec::new();
    let fs = target.filesystem.as_deref().unwrap_or("");
    let options = target.mount_options.as_deref().unwrap_or("");
    if super::is_ram_filesystem(fs) {
        out.push(warning(WarningKind::RamFilesystem, format!("{} is on {fs}, in memory: figures measure RAM, not storage; give a path on the disk to measure", target.path)));
    }
    if fs == "overlay" {
        out.push(warning(WarningKind::OverlayFilesystem, format!("{} is on an overlay filesystem (a container?): writes go to its upper layer, which may not be the disk you mean; test a mounted volume instead", target.path)));
    }
    if matches!(
        fs,
        "nfs" | "nfs4" | "cifs" | "smb3" | "9p" | "virtiofs" | "fuse.sshfs" | "ceph" | "glusterfs"
    ) {
        out.push(warning(WarningKind::NetworkFilesystem, format!("{} is on {fs}, a network or host-shared filesystem: figures include the network and the server", target.path)));
    }
    if matches!(fs, "btrfs" | "zfs" | "bcachefs") {
        out.push(warning(WarningKind::CopyOnWrite, format!("{fs} is copy-on-write: random writes relocate blocks and direct I/O may be emulated; compare with ext4 or xfs on the same device")));
    }
    if options.split(',').any(|o| o.starts_with("compress")) {
        out.push(warning(WarningKind::Compression, "the filesystem compresses data: iomark writes incompressible data, so real files may be faster to store".into()));
    }
    if let Some(device) = &target.device {
        if device
            .stack
            .iter()
            .any(|layer| layer.contains("LUKS") || layer.contains("dm-crypt"))
        {
            out.push(warning(WarningKind::Encryption, "the filesystem is on an encrypted volume: the CPU's encryption speed can be the limit, not the disk".into()));
        }
        if let Some(usb) = &device.usb {
            match usb.speed_mbps {
                Some(speed) if speed <= 480.0 => out.push(warning(WarningKind::Usb2Link, format!(
                    "the USB link runs at {speed} Mbps (USB 2.0 or slower), which caps transfers near 40 MB/s; use a USB 3 port (blue) and a USB 3 cable"))),
                _ => {}
            }
            if usb.driver.as_deref() == Some("usb-storage")
                && usb.speed_mbps.is_some_and(|s| s >= 5000.0)
            {
                out.push(warning(WarningKind::NoUas, "the USB drive uses the usb-storage driver, not UAS: one command at a time, which slows random I/O; the bridge may be quirked off UAS (see usb-storage.quirks) or not support it".into()));
            }
        }
        if let Some(sd) = &device.sd {
            if let Some(timing) = &sd.bus_timing {
                if sd.kind.as_deref() == Some("SD") && !timing.contains("uhs") {
                    out.push(warning(WarningKind::SdBusNotUhs, format!(
                        "the SD bus runs in '{timing}' mode, not UHS: transfers are capped near 22 MB/s (50 MHz); the host or card may not support UHS-I, or the kernel's device tree limits it")));
                }
            }
        }
        if let Some(nvme) = &device.nvme {
            let below = match (&nvme.link_speed, &nvme.max_link_speed) {
                (Some(now), Some(max)) => now != max,
                _ => false,
            } || matches!((nvme.link_width, nvme.max_link_width), (Some(now), Some(max)) if now < max);
            if below {
                out.push(warning(WarningKind::PcieLinkDegraded, format!(
                    "the NVMe drive's PCIe link runs at {} x{} of a possible {} x{}: check the slot, riser or adapter",
                    nvme.link_speed.as_deref().unwrap_or("?"), nvme.link_width.unwrap_or(0),
                    nvme.max_link_speed.as_deref().unwrap_or("?"), nvme.max_link_width.unwrap_or(0))));
            }
        }
    }
    let small_board = host
        .board
        .as_deref()
        .is_some_and(|b| b.contains("Raspberry Pi"))
        || host.arch.starts_with("arm")
        || host.arch == "aarch64";
    if small_board {
        if let Some(governor) = host.cpu_governor.as_deref().filter(|g| *g != "performance") {
            out.push(warning(WarningKind::CpuGovernor, format!(
                "the CPU frequency governor is '{governor}': on small boards the CPU's clock limits fast storage; for a benchmark, set 'performance'")));
        }
    }
    if let Some(word) = &host.throttled {
        let events = super::host::throttling_events(word);
        if !events.is_empty() {
            out.push(warning(WarningKind::Throttled, format!("the board reports {} ({word}): use a stronger power supply and cooling; figures taken now are lowered", events.join(", "))));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::{Device, Sd, Usb};

    fn kinds(host: &Host, target: &Target) -> Vec<String> {
        warnings(host, target).into_iter().map(|w| w.kind).collect()
    }

    fn on(fs: &str, device: Option<Device>) -> Target {
        Target {
            extra: Default::default(),
            path: "/x".into(),
            filesystem: Some(fs.into()),
            mount_options: Some("rw".into()),
            free_bytes: None,
            device,
        }
    }

    #[test]
    fn usb3_drive_on_usb_storage_and_sd_outside_uhs() {
        let host = Host {
            arch: "aarch64".into(),
            ..Host::default()
        };
        let usb = Device {
            usb: Some(Usb {
                speed_mbps: Some(5000.0),
                driver: Some("usb-storage".into()),
                ..Usb::default()
            }),
            ..Device::default()
        };
        assert_eq!(kinds(&host, &on("ext4", Some(usb))), ["no_uas"]);
        let card = |timing: &str| Device {
            sd: Some(Sd {
                kind: Some("SD".into()),
                bus_timing: Some(timing.into()),
                ..Sd::default()
            }),
            ..Device::default()
        };
        assert_eq!(
            kinds(&host, &on("ext4", Some(card("sd high-speed")))),
            ["sd_bus_not_uhs"]
        );
        assert!(kinds(&host, &on("ext4", Some(card("sd uhs SDR104")))).is_empty());
    }

    #[test]
    fn filesystems_that_are_not_a_plain_disk() {
        let host = Host {
            arch: "x86_64".into(),
            cpu_governor: Some("powersave".into()),
            ..Host::default()
        };
        assert_eq!(kinds(&host, &on("overlay", None)), ["overlay_filesystem"]);
        assert_eq!(kinds(&host, &on("nfs4", None)), ["network_filesystem"]);
        assert_eq!(kinds(&host, &on("zfs", None)), ["copy_on_write"]);
        // A governor other than performance matters on small boards, not on this x86 host.
        assert!(kinds(&host, &on("ext4", None)).is_empty());
        let pi = Host {
            board: Some("Raspberry Pi 5 Model B Rev 1.0".into()),
            arch: "aarch64".into(),
            cpu_governor: Some("ondemand".into()),
            throttled: Some("0x0".into()),
            ..Host::default()
        };
        assert_eq!(kinds(&pi, &on("ext4", None)), ["cpu_governor"]);
    }
}
