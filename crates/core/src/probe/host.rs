//! The machine: board, CPU, memory, kernel, OS.

use std::path::Path;

use iomark_result::result::Host;

use super::sysfs::{parse_u64, trim};

/// Where Raspberry Pi kernels expose the firmware's throttling word.
const PI_THROTTLED: &str = "sys/devices/platform/soc/soc:firmware/get_throttled";

/// Reads `proc/cpuinfo`, `proc/meminfo`, `proc/sys/kernel/osrelease`, `etc/os-release` and the
/// board name (device tree on ARM boards, DMI elsewhere) under `root`.
pub fn probe(root: &Path) -> Host {
    iomark_result::result::fit_text(decode(&|file| {
        std::fs::read_to_string(root.join(file)).ok()
    }))
}

/// The machine from its files' text, `file` giving each by its path under the root (`None`
/// where it is missing): what [`probe`] makes of a real machine, of any bytes alike.
pub fn decode(file: &dyn Fn(&str) -> Option<String>) -> Host {
    let trimmed = |name: &str| file(name).as_deref().and_then(trim);
    let cpuinfo = file("proc/cpuinfo").unwrap_or_default();
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
    let memory_bytes = file("proc/meminfo").and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    });
    let os = file("etc/os-release").and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("PRETTY_NAME="))?;
        Some(line["PRETTY_NAME=".len()..].trim_matches('"').to_string())
    });
    let board = trimmed("proc/device-tree/model").or_else(|| {
        let vendor = trimmed("sys/class/dmi/id/sys_vendor");
        let product = trimmed("sys/class/dmi/id/product_name")?;
        Some(match vendor {
            Some(vendor) if !product.starts_with(&vendor) => format!("{vendor} {product}"),
            _ => product,
        })
    });
    Host {
        extra: Default::default(),
        board,
        // ARM cores by their part number (more telling than "ARMv7 Processor rev 4"); x86 says
        // "model name"; some ARM kernels give only "Hardware" (the SoC family).
        cpu_model: arm_core(field("CPU implementer"), field("CPU part"))
            .or_else(|| field("model name"))
            .or_else(|| field("Hardware")),
        cpu_cores: (cores > 0).then_some(cores),
        memory_bytes,
        kernel: trimmed("proc/sys/kernel/osrelease"),
        os,
        // The kernel's own word (Linux 6.1+), else the architecture this binary was built for.
        arch: trimmed("proc/sys/kernel/arch").unwrap_or_else(|| std::env::consts::ARCH.to_string()),
        cpu_governor: trimmed("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        cpu_max_mhz: trimmed("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
            .as_deref()
            .and_then(parse_u64)
            .map(|khz| khz / 1000),
        throttled: trimmed(PI_THROTTLED).map(|t| format!("0x{t}").replace("0x0x", "0x")),
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
    fn odd_files_make_no_figure_and_no_panic() {
        let files = |name: &str| match name {
            // 2^64 / 1024 KiB: in bytes, past what a u64 holds.
            "proc/meminfo" => Some("MemTotal: 18014398509481984 kB\n".to_string()),
            "proc/cpuinfo" => Some("model name\t: Evil\u{1b}[2J CPU\n".to_string()),
            _ => None,
        };
        let host = iomark_result::result::fit_text(decode(&files));
        assert_eq!(host.memory_bytes, None);
        // Shown, never obeyed: the escape is written out.
        assert_eq!(host.cpu_model.as_deref(), Some("Evil\\u{1b}[2J CPU"));
    }

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
