//! The fastest a device's figures can be: the narrowest link the document names between the
//! device and the host (a USB link, an SD bus, SATA, PCIe), and the fastest interface its kind
//! of device is sold with, whatever the document names. A figure beyond it is not a measure of
//! the device: a cache answered, or the document is wrong.

use super::reason::{Link, Reason};
use super::{ResultDoc, TestResult};

/// The most random reads at queue depth 1 a rotating disk's platters give a turn: one on
/// average waits half a turn; four leave room for short seeks over a small file.
pub const READS_PER_TURN: f64 = 4.0;
/// How many times that a queue of reads may bring: the disk serves them in the order its
/// heads pass them (NCQ), a few more a turn than one at a time, each still waiting for its
/// sector to come round. Sixteen a turn (1,920 a second at 7,200 rpm) is a bound chosen well
/// beyond that, not a measured figure.
pub const QUEUED_TURNS: f64 = 4.0;

/// The most any rotating disk streams, MB/s: the fastest, with two actuators (Seagate's
/// Mach.2), reads 554 MB/s; one actuator about 300.
pub const PLATTERS_MB_S: f64 = 600.0;
/// The most one actuator's heads stream at 7,200 rpm, in MB/s: the fastest single-actuator
/// disks of 2026 give about 290 on their outer tracks by their datasheets (Seagate's Exos X24:
/// 285), with a margin;
/// a disk turning slower streams that share of it (bits pass the head at the platter's speed).
pub const ONE_ACTUATOR_MB_S: f64 = 340.0;

impl ResultDoc {
    /// Figures or a size no device of this one's link, platters or kind gives, as a flag.
    pub(super) fn beyond_physics(&self) -> Option<Reason> {
        self.beyond_link()
            .or_else(|| self.beyond_platter())
            .or_else(|| self.beyond_kind())
    }

    /// The fastest test beyond the narrowest link the document names, as a flag.
    fn beyond_link(&self) -> Option<Reason> {
        let (ceiling, link) = self.link_ceiling()?;
        let fastest: &TestResult = self
            .tests
            .iter()
            .filter(|t| t.mb_per_s > ceiling)
            .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))?;
        Some(Reason::BeyondLink {
            test: fastest.name.clone(),
            mb_per_s: fastest.mb_per_s,
            link,
            ceiling,
        })
    }

    /// A rotating disk's random reads beyond what its platters allow, as a flag: at queue
    /// depth 1 each waits for the sector to come round, half a turn on average, so a disk
    /// answers about two a revolution (a 7,200 rpm disk turns 120 times a second); more than
    /// [`READS_PER_TURN`] a turn (with a queue, [`QUEUED_TURNS`] times that) come from its
    /// cache, which a small test file fits in, and rank no disk (issue 59's second attack pass
    /// ranked a 7,200 rpm disk first of every device, at 2,300 such reads a second). A speed
    /// not given (or given as 0 by a drive whose model number is a disk's) is taken as the
    /// fastest disks' of its bus: 15,000 rpm over SCSI (SAS), 10,000 rpm over any other (the
    /// fastest SATA disks'; the fourteenth attack pass ranked a 5,400 rpm SATA disk first at
    /// 900 reads a second at queue depth 1, under 15,000 rpm's 1,000); hybrid drives ("SSHD", with flash beside the platters) are not
    /// judged.
    fn beyond_platter(&self) -> Option<Reason> {
        let device = self.target.device.as_ref()?;
        // A disk by its kind, not by the kernel's flag alone: a USB stick's `rotational` is 1
        // by default, and its queued reads are thousands (the fourth attack pass's stick was
        // flagged as a platter once queued reads were judged).
        // And by its model number, whatever it says of its rotation (the eleventh attack pass
        // ranked a `WDC WD40EFRX` sent as not rotating at an SSD's random reads): the drive's
        // own over ATA or SCSI, or the one behind a USB bridge (a stick's product string is
        // its maker's fancy).
        // Or by a line sold only spinning (`Seagate IronWolf 8TB`: the sixteenth).
        // Any bus but USB's (whose model is a product's string) and an SD card's: a word
        // iomark never writes (`sas`, the seventeenth) is no way out.
        let on_its_bus = !matches!(
            device.transport,
            Some(super::Transport::Usb | super::Transport::Mmc)
        );
        let numbered = [
            on_its_bus.then_some(&device.model),
            Some(&device.drive_model),
        ]
        .into_iter()
        .flatten()
        .flatten()
        .map(|m| m.to_lowercase())
        .any(|m| super::drive::disk_number(&m) || super::drive::disk_line(&m));
        let spinning = device.kind().ends_with("HDD")
            || device.rotation_rpm.is_some_and(|r| r > 0)
            || numbered;
        let hybrid = [&device.model, &device.drive_model]
            .into_iter()
            .flatten()
            .any(|m| m.to_ascii_uppercase().contains("SSHD"));
        if !spinning || hybrid {
            return None;
        }
        // Nor faster than any platters stream, whatever the bus (the fifteenth attack pass
        // ranked a WD40EFRX behind USB at 1,713 MB/s); nor, where it turns slower than 7,200
        // rpm (no disk of two actuators does), than one actuator at its speed can (the
        // sixteenth ranked a 5,400 rpm disk at 345 MB/s; its kind stream about 200).
        let (streams, why) = match device.rotation_rpm.filter(|r| (1..7200).contains(r)) {
            Some(rpm) => (
                ONE_ACTUATOR_MB_S * f64::from(rpm) / 7200.0,
                format!("platters at {rpm} rpm: one actuator, {ONE_ACTUATOR_MB_S} MB/s at 7,200"),
            ),
            None => (
                PLATTERS_MB_S,
                "platters: two actuators at 554 MB/s, the fastest disk's".to_string(),
            ),
        };
        if let Some(t) = self
            .tests
            .iter()
            .filter(|t| t.mb_per_s > streams)
            .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))
        {
            return Some(Reason::BeyondLink {
                test: t.name.clone(),
                mb_per_s: t.mb_per_s,
                link: Link::Kind { interface: why },
                ceiling: streams,
            });
        }
        let fastest = match device.transport {
            Some(super::Transport::Scsi) => 15_000,
            _ => 10_000,
        };
        let rpm = device.rotation_rpm.filter(|r| *r > 0).unwrap_or(fastest);
        // A queue of reads at any depth too (the fourth attack pass ranked a disk at 11,000
        // RND4K Q32T1 reads a second, its Q1 kept modest).
        let most = |t: &TestResult| {
            let queued = t.queue_depth.max(1) * t.threads.max(1) > 1;
            f64::from(rpm) / 60.0 * READS_PER_TURN * if queued { QUEUED_TURNS } else { 1.0 }
        };
        let test = self
            .tests
            .iter()
            .find(|t| t.kind == "rand" && t.op == "read" && t.iops > most(t))?;
        Some(Reason::BeyondPlatters {
            test: test.name.clone(),
            iops: test.iops,
            rpm,
            most: most(test),
        })
    }

    /// A device larger than its kind can be, or random reads at queue depth 1 faster than
    /// its kind's bus can turn one round, as a flag (the fifth attack pass ranked an SD card
    /// of 1 PB, a USB stick of 256 TB, and a stick at 33,650 such reads a second, 30 µs each).
    fn beyond_kind(&self) -> Option<Reason> {
        let device = self.target.device.as_ref()?;
        let kind = device.kind();
        if let (Some(size), Some((most, why))) = (device.size_bytes, kind_capacity(kind)) {
            if size > most {
                return Some(Reason::LargerThanKind {
                    kind: kind.to_string(),
                    size_bytes: size,
                    most_bytes: most,
                    bound: why.to_string(),
                });
            }
        }
        let known = qd1_floor(kind, false).is_some();
        let (test, (floor_us, why)) = self.tests.iter().find_map(|t| {
            // Through the page cache, a device of no known kind may be the cache itself.
            let floor = qd1_floor(kind, t.op == "write").or(self.settings.direct.then_some(ANY))?;
            let one = t.kind == "rand" && t.queue_depth.max(1) * t.threads.max(1) == 1;
            (one && t.iops > 1e6 / floor.0).then_some((t, floor))
        })?;
        Some(Reason::OneAtATime {
            test: test.name.clone(),
            iops: test.iops,
            op: test.op.clone(),
            kind: known.then(|| kind.to_string()),
            floor_us,
            basis: why.to_string(),
        })
    }

    /// The raw rate, in MB/s (10^6 bytes), of the narrowest link between the device and the
    /// host that the document names, or of the fastest interface its kind of device has where
    /// that is narrower (whatever the document names: issue 44's 120,000 MB/s NVMe drive named
    /// no link), and the link: no figure can be above it.
    pub fn link_ceiling(&self) -> Option<(f64, Link)> {
        let device = self.target.device.as_ref()?;
        let mut links: Vec<(f64, Link)> = Vec::new();
        if let Some((ceiling, interface)) = kind_ceiling(device.kind()) {
            let interface = interface.to_string();
            links.push((ceiling, Link::Kind { interface }));
        }
        if let Some(mbps) = device.usb.as_ref().and_then(|u| u.speed_mbps) {
            if mbps > 0.0 {
                // 480 Mbit/s is 60 MB/s before any overhead.
                links.push((mbps / 8.0, Link::Usb { mbit_s: mbps }));
            }
        }
        if let Some(sd) = &device.sd {
            links.extend(sd_bus(sd));
        }
        // A drive sold only with SATA is on SATA inside whatever it is sent as (an enclosure's
        // USB, or a document's NVMe: the sixteenth attack pass).
        let sata_inside = [&device.model, &device.drive_model]
            .into_iter()
            .flatten()
            .any(|m| super::drive::sata_only(&m.to_lowercase()));
        if device.transport == Some(super::Transport::Sata) || sata_inside {
            // SATA III: 6 Gbit/s with 8b/10b coding.
            links.push((600.0, Link::Sata));
        }
        if let Some(nvme) = &device.nvme {
            links.extend(pcie(nvme));
        }
        links.into_iter().min_by(|a, b| a.0.total_cmp(&b.0))
    }
}

/// The fastest interface any device of a kind (as `drive::kind` files it) is sold with, as of
/// 2026, in MB/s (10^6 bytes) before any overhead, and its name. Sources: the SD Association's
/// SD Express (SD 7.1: PCIe 3.0 x1, 8 GT/s, 128b/130b; every microSD Express card on sale, at
/// up to about 880 MB/s; SD 8.0's PCIe 4.0 cards would raise it), JEDEC eMMC 5.1 (HS400:
/// 200 MHz DDR on 8 bits), SATA-IO's SATA III (6 Gbit/s, 8b/10b), the USB-IF's USB4 (40
/// Gbit/s, the fastest a USB drive is sold with; USB4 2.0's 80 Gbit/s has none), PCI-SIG's
/// PCIe 6.0 x4 (64 GT/s, FLIT 242/256: enterprise drives sample at about 28,000 MB/s).
/// Virtual disks and unknown devices have none.
fn kind_ceiling(kind: &str) -> Option<(f64, &'static str)> {
    Some(match kind {
        "microSD" | "SD" => (8000.0 * 128.0 / 130.0 / 8.0, "SD Express, PCIe 3.0 x1"),
        "eMMC" => (400.0, "eMMC HS400"),
        "SATA SSD" | "SATA HDD" => (600.0, "SATA III"),
        // A stick is its own flash controller on the bus; the fastest sold speak USB 3.2
        // Gen 2x2 (SanDisk's Extreme PRO, 2,000 MB/s on its datasheet: identity.rs's test),
        // none USB4: what is faster is an SSD behind a bridge (the fourth attack pass ranked a
        // stick at 3,000 MB/s under USB4's bound).
        "USB flash" => (20_000.0 * 128.0 / 132.0 / 8.0, "USB 3.2 Gen 2x2, 20 Gbit/s"),
        "USB SSD" | "USB HDD" => (5000.0, "USB4, 40 Gbit/s"),
        "NVMe" => (64_000.0 * 4.0 * 242.0 / 256.0 / 8.0, "PCIe 6.0 x4"),
        // A virtual disk, or one of no kind iomark knows, faster than the fastest drive sold
        // (PCIe 5.0 x4) is its host's memory or an array answering, not a device (issue 59's
        // third attack pass ranked a virtio disk at 30 and 97 GB/s first of every device).
        _ => (
            32_000.0 * 4.0 * 128.0 / 130.0 / 8.0,
            "fastest drive sold, PCIe 5.0 x4",
        ),
    })
}

/// The most bytes a device of a kind can hold, and why: an SD card's addressing ends at SDUC's
/// 128 TB (SD 7.0), an eMMC's at 2^32 sectors of 512 bytes (JEDEC's SEC_COUNT); the rest
/// are bounds well beyond the largest sold in 2026 (a stick's case holds a few flash packages
/// of at most 4 TB; disks reach 36 TB; SSDs 246 TB), chosen, not measured. Virtual disks and
/// unknown devices have none beyond each number's own range.
fn kind_capacity(kind: &str) -> Option<(u64, &'static str)> {
    Some(match kind {
        "microSD" | "SD" => (128_000_000_000_000, "SDUC's addressing"),
        "eMMC" => (1 << 41, "eMMC's sector count"),
        "USB flash" => (
            16_000_000_000_000,
            "four flash packages of 4 TB, the most a stick holds",
        ),
        "SATA HDD" | "USB HDD" => (50_000_000_000_000, "beyond the largest disk made, 36 TB"),
        "SATA SSD" => (64_000_000_000_000, "beyond the largest SATA SSD made"),
        "NVMe" | "USB SSD" => (512_000_000_000_000, "beyond the largest SSD made, 246 TB"),
        _ => return None,
    })
}

/// The least time, in µs, a device of a kind takes to answer one 4 KiB read (or, `write`, a
/// write), and why. A read: the bus carries the command and the 4 KiB and the flash reads its
/// page (tR, 20 µs and more). An SD card's 4-bit bus at UHS-I's 104 MB/s takes 39 µs for the
/// data alone; an eMMC's at HS400 10; a USB command is three bulk transfers (command, data,
/// status) through the host controller; SATA's AHCI and NVMe's queues take a few µs (Optane
/// answers in about 5). A write may end in the drive's cache, not its flash, but crosses the
/// same bus (the sixth attack pass ranked USB sticks at 500,000 writes a second, one at a
/// time). Any device, of any kind or none ([`ANY`]): the kernel's block layer and a system call
/// take about a µs (its own null device answers in no less; the sixth pass ranked a virtual
/// disk at 3,000,000 reads a second). A rotating disk's reads are its platters'. Bounds chosen
/// below the fastest device of each kind (the fastest USB SSDs take about 200 µs:
/// ../shared/reference/usb-storage-2020.csv), not measured figures.
fn qd1_floor(kind: &str, write: bool) -> Option<(f64, &'static str)> {
    Some(match (kind, write) {
        ("microSD" | "SD", false) => (
            50.0,
            "an SD bus moves 4 KiB in 39 µs, and the flash reads it",
        ),
        ("microSD" | "SD", true) => (40.0, "an SD bus moves 4 KiB in 39 µs"),
        ("eMMC", false) => (
            30.0,
            "an eMMC bus moves 4 KiB in 10 µs, and the flash reads it",
        ),
        ("eMMC", true) => (
            15.0,
            "an eMMC bus moves 4 KiB in 10 µs, and its command before",
        ),
        ("USB flash" | "USB SSD" | "USB HDD", _) => {
            (40.0, "a USB command is three transfers through the host")
        }
        ("SATA SSD", false) => (25.0, "AHCI's command round and the flash's read"),
        ("SATA SSD" | "SATA HDD", true) => {
            (15.0, "SATA moves 4 KiB in 7 µs, and AHCI's command round")
        }
        ("NVMe", _) => (5.0, "the fastest memory, Optane, answers in about that"),
        _ => return None,
    })
}

/// The least time any device takes, of any kind or none, for direct I/O.
const ANY: (f64, &str) = (
    1.0,
    "the kernel's block layer and a system call alone take about that",
);

/// An SD card's or eMMC's bus: its clock (else its timing mode's) times its width, doubled
/// where data moves on both clock edges. An SD card's bus is 4 bits wide, an eMMC's up to 8.
fn sd_bus(sd: &super::Sd) -> Option<(f64, Link)> {
    let timing = sd.bus_timing.as_deref()?.to_ascii_lowercase();
    let ddr = timing.contains("ddr") || timing.contains("hs400");
    let bits = if sd
        .kind
        .as_deref()
        .is_some_and(|k| k.eq_ignore_ascii_case("mmc"))
    {
        8.0
    } else {
        4.0
    };
    let mhz = match sd.bus_clock_hz.filter(|hz| *hz > 0) {
        Some(hz) => hz as f64 / 1e6,
        None => {
            let by_mode = [
                ("sdr104", 208.0),
                ("sdr50", 100.0),
                ("ddr50", 50.0),
                ("sdr25", 50.0),
                ("high-speed", 50.0),
                ("hs400", 200.0),
                ("hs200", 200.0),
                ("sdr12", 25.0),
                ("legacy", 25.0),
            ];
            by_mode
                .iter()
                .find(|(mode, _)| timing.contains(mode))
                .map(|(_, mhz)| *mhz)?
        }
    };
    let ceiling = mhz * bits * if ddr { 2.0 } else { 1.0 } / 8.0;
    let timing = sd.bus_timing.clone().unwrap_or_default();
    Some((ceiling, Link::SdBus { timing, mhz }))
}

/// A PCIe link's rate: per lane, the transfer rate less its coding (8b/10b up to 5 GT/s,
/// 128b/130b from 8 GT/s, about 242/256 in PCIe 6.0's flits), times the lanes.
fn pcie(nvme: &super::Nvme) -> Option<(f64, Link)> {
    let text = nvme.link_speed.as_deref()?;
    let gt: f64 = text.split_whitespace().next()?.parse().ok()?;
    if !gt.is_finite() || gt <= 0.0 {
        return None;
    }
    let coding = if gt <= 5.0 {
        0.8
    } else if gt < 64.0 {
        128.0 / 130.0
    } else {
        242.0 / 256.0
    };
    // A width the document does not give is taken as the widest, so nothing is flagged on a
    // guess.
    let lanes = nvme.link_width.filter(|w| *w > 0).unwrap_or(16);
    let ceiling = gt * 1000.0 * coding / 8.0 * lanes as f64;
    Some((ceiling, Link::Pcie { gt_s: gt, lanes }))
}

#[cfg(test)]
mod tests {
    use crate::result::reason::Reason;
    use crate::result::{sample, ResultDoc, Transport};

    fn of(transport: &str, sd: bool, size: u64) -> ResultDoc {
        let mut doc = sample::doc();
        let device = doc.target.device.get_or_insert_with(Default::default);
        device.transport = Some(Transport::of(transport));
        device.size_bytes = Some(size);
        device.rotation_rpm = Some(0);
        device.usb = None;
        device.nvme = None;
        device.sd = sd.then(|| serde_json::from_value(serde_json::json!({"kind": "SD"})).unwrap());
        doc
    }

    /// The fifth attack pass ranked an SD card of 1 PB and a USB stick of 256 TB.
    #[test]
    fn a_device_larger_than_its_kind_can_be_is_flagged() {
        for (transport, sd, size) in [
            ("mmc", true, 1_000_000_000_000_000),
            ("usb", false, 256e12 as u64),
        ] {
            let flag = of(transport, sd, size).beyond_kind();
            assert!(
                matches!(flag, Some(Reason::LargerThanKind { size_bytes, .. }) if size_bytes == size),
                "{flag:?}"
            );
        }
        // The largest sold: a 2 TB SD card, a 2 TB stick, a 122.88 TB NVMe drive.
        for (transport, sd, size) in [
            ("mmc", true, 2_000_000_000_000),
            ("usb", false, 2e12 as u64),
            ("nvme", false, 122_880_000_000_000),
        ] {
            assert_eq!(
                of(transport, sd, size).beyond_kind(),
                None,
                "{transport} {size}"
            );
        }
    }

    /// The fifth attack pass ranked a USB stick at 33,650 random reads a second at queue
    /// depth 1 (a mean of 30 µs); the fastest USB SSD of the reference reads 4,740.
    #[test]
    fn reads_one_at_a_time_faster_than_the_kinds_bus_are_flagged() {
        let at = |transport: &str, sd: bool, iops: f64| {
            let mut doc = of(transport, sd, 64_000_000_000);
            let t = doc
                .tests
                .iter_mut()
                .find(|t| t.name == "RND4K_Q1T1_read")
                .unwrap();
            t.iops = iops;
            t.mb_per_s = iops * 4096.0 / 1e6;
            doc.beyond_kind()
        };
        let flag = at("usb", false, 33_650.0);
        assert!(
            matches!(&flag, Some(Reason::OneAtATime { kind: Some(k), floor_us, .. })
                if k == "USB flash" && *floor_us == 40.0),
            "{flag:?}"
        );
        assert!(at("mmc", true, 25_000.0).is_some());
        assert_eq!(at("usb", false, 4_740.0), None);
        assert_eq!(at("mmc", true, 3_500.0), None);
        assert_eq!(at("nvme", false, 100_000.0), None);
    }

    /// The sixth attack pass ranked writes one at a time of 500,000 a second on a USB stick
    /// and 1,000,000 on NVMe, and 3,000,000 reads a second of a virtual disk.
    #[test]
    fn writes_one_at_a_time_and_any_kinds_reads_have_a_floor_too() {
        let at = |transport: &str, test: &str, iops: f64, direct: bool| {
            let mut doc = of(transport, false, 64_000_000_000);
            doc.settings.direct = direct;
            let t = doc.tests.iter_mut().find(|t| t.name == test).unwrap();
            t.iops = iops;
            t.mb_per_s = iops * 4096.0 / 1e6;
            doc.beyond_kind()
        };
        let write = "RND4K_Q1T1_write";
        for (transport, iops) in [
            ("usb", 500_000.0),
            ("nvme", 1_000_000.0),
            ("sata", 140_000.0),
        ] {
            let flag = at(transport, write, iops, true);
            assert!(
                matches!(&flag, Some(Reason::OneAtATime { op, .. }) if op == "write"),
                "{flag:?}"
            );
        }
        // The fastest sold: a USB SSD's 7,800, a 990 PRO's 56,000, a SATA SSD's 24,000.
        for (transport, iops) in [("usb", 7_800.0), ("nvme", 56_000.0), ("sata", 24_000.0)] {
            assert_eq!(at(transport, write, iops, true), None, "{transport}");
        }
        let read = "RND4K_Q1T1_read";
        let any = at("virtio", read, 3_000_000.0, true);
        assert!(
            matches!(any, Some(Reason::OneAtATime { kind: None, floor_us, .. }) if floor_us == 1.0),
            "{any:?}"
        );
        assert_eq!(at("virtio", read, 200_000.0, true), None);
        // Through the page cache a virtual disk's reads are the cache's, and said to be.
        assert_eq!(at("virtio", read, 3_000_000.0, false), None);
    }
}
