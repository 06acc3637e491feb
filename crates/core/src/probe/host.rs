//! The machine: board, CPU, memory, kernel, OS.

use std::path::Path;

use iomark_result::result::Host;

use super::sysfs::{read as read_trimmed, read_u64};

/// Where Raspberry Pi kernels expose the firmware's throttling word.
const PI_THROTTLED: &str = "sys/devices/platform/soc/soc:firmware/get_throttled";

/// Reads `proc/cpuinfo`, `proc/meminfo`, `proc/sys/kernel/osrelease`, `etc/os-release` and the
/// board name (device tree on ARM boards, DMI elsewhere) under `root`.
pub fn probe(root: &Path) -> Host {
    let cpuinfo = std::fs::read_to_string(root.join("proc/cpuinfo")).unwrap_or_default();
    let field = |name: &str| {
        cpuinfo.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name && !value.trim().is_empty()).then(|| value.trim().to_string())
        })
    };
    let cores = cpuinfo
        .lines()
        .filter(|l| l.split(':').next().map(str::trim) == Some("processor"))
        .count() as u32;
    let memory_bytes = std::fs::read_to_string(root.join("proc/meminfo"))
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        });
    let os = std::fs::read_to_string(root.join("etc/os-release"))
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("PRETTY_NAME="))?;
            Some(line["PRETTY_NAME=".len()..].trim_matches('"').to_string())
        });
    let board = read_trimmed(&root.join("proc/device-tree/model")).or_else(|| {
        let vendor = read_trimmed(&root.join("sys/class/dmi/id/sys_vendor"));
        let product = read_trimmed(&root.join("sys/class/dmi/id/product_name"))?;
        Some(match vendor {
            Some(vendor) if !product.starts_with(&vendor) => format!("{vendor} {product}"),
            _ => product,
        })
    });
    Host {
        extra: Default::default(),
        board,
        // x86 says "model name"; ARM kernels say "Model" (the board) or only "Hardware".
        // ARM cores by their part number (more telling than "ARMv7 Processor rev 4"); x86 says
        // "model name"; some ARM kernels give only "Hardware" (the SoC family).
        cpu_model: arm_core(field("CPU implementer"), field("CPU part"))
            .or_else(|| field("model name"))
            .or_else(|| field("Hardware")),
        cpu_cores: (cores > 0).then_some(cores),
        memory_bytes,
        kernel: read_trimmed(&root.join("proc/sys/kernel/osrelease")),
        os,
        // The kernel's own word (Linux 6.1+), else the architecture this binary was built for.
        arch: read_trimmed(&root.join("proc/sys/kernel/arch"))
            .unwrap_or_else(|| std::env::consts::ARCH.to_string()),
        cpu_governor: read_trimmed(
            &root.join("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        ),
        cpu_max_mhz: read_u64(&root.join("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
            .map(|khz| khz / 1000),
        throttled: read_trimmed(&root.join(PI_THROTTLED))
            .map(|t| format!("0x{t}").replace("0x0x", "0x")),
    }
}

/// Arm Ltd's own cores (implementer 0x41) by part number, from Arm's technical reference
/// manuals: the cores of every Raspberry Pi and most other boards.
fn arm_core(implementer: Option<String>, part: Option<String>) -> Option<String> {
    if implementer.as_deref() != Some("0x41") {
        return None;
    }
    let name = match part?.as_str() {
        "0xb76" => "ARM1176JZF-S",
        "0xc07" => "Cortex-A7",
        "0xd03" => "Cortex-A53",
        "0xd04" => "Cortex-A35",
        "0xd05" => "Cortex-A55",
        "0xd07" => "Cortex-A57",
        "0xd08" => "Cortex-A72",
        "0xd09" => "Cortex-A73",
        "0xd0b" => "Cortex-A76",
        _ => return None,
    };
    Some(format!("ARM {name}"))
}

/// The throttling word's bits (Raspberry Pi firmware documentation, `vcgencmd get_throttled`).
pub fn throttling_events(word: &str) -> Vec<&'static str> {
    let value = u64::from_str_radix(word.trim_start_matches("0x"), 16).unwrap_or(0);
    const BITS: [(u32, &str); 8] = [
        (0, "under-voltage now"),
        (1, "ARM frequency capped now"),
        (2, "throttled now"),
        (3, "soft temperature limit now"),
        (16, "under-voltage has occurred"),
        (17, "ARM frequency capping has occurred"),
        (18, "throttling has occurred"),
        (19, "soft temperature limit has occurred"),
    ];
    BITS.iter()
        .filter(|(bit, _)| value >> bit & 1 == 1)
        .map(|(_, name)| *name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_raspberry_pi_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["proc/sys/kernel", "proc/device-tree", "etc"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(
            root.join("proc/cpuinfo"),
            "processor\t: 0\nBogoMIPS\t: 108.00\n\nprocessor\t: 1\n\nprocessor\t: 2\n\nprocessor\t: 3\n\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n",
        )
        .unwrap();
        std::fs::write(
            root.join("proc/meminfo"),
            "MemTotal:        3882924 kB\nMemFree: 1 kB\n",
        )
        .unwrap();
        std::fs::write(root.join("proc/sys/kernel/osrelease"), "6.1.21-v8+\n").unwrap();
        std::fs::write(
            root.join("proc/device-tree/model"),
            "Raspberry Pi 4 Model B Rev 1.4\0",
        )
        .unwrap();
        std::fs::write(
            root.join("etc/os-release"),
            "NAME=\"Debian\"\nPRETTY_NAME=\"Raspbian GNU/Linux 11 (bullseye)\"\n",
        )
        .unwrap();
        let host = probe(root);
        assert_eq!(
            host.board.as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(host.cpu_model.as_deref(), Some("BCM2835"));
        assert_eq!(host.cpu_cores, Some(4));
        assert_eq!(host.memory_bytes, Some(3882924 * 1024));
        assert_eq!(host.kernel.as_deref(), Some("6.1.21-v8+"));
        assert_eq!(host.os.as_deref(), Some("Raspbian GNU/Linux 11 (bullseye)"));
    }

    #[test]
    fn an_empty_tree_gives_nulls_not_errors() {
        let dir = tempfile::tempdir().unwrap();
        let host = probe(dir.path());
        assert!(host.board.is_none() && host.cpu_model.is_none() && host.memory_bytes.is_none());
        assert_eq!(host.cpu_cores, None);
    }
}
