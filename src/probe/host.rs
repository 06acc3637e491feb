//! The machine: board, CPU, memory, kernel, OS.

use std::path::Path;

use crate::result::Host;

fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!text.is_empty()).then(|| text.to_string())
}

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
        board,
        // x86 says "model name"; ARM kernels say "Model" (the board) or only "Hardware".
        cpu_model: field("model name")
            .or_else(|| field("Hardware"))
            .or_else(|| field("Model")),
        cpu_cores: (cores > 0).then_some(cores),
        memory_bytes,
        kernel: read_trimmed(&root.join("proc/sys/kernel/osrelease")),
        os,
        arch: std::env::consts::ARCH.to_string(),
    }
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
