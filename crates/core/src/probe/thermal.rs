//! Temperatures: the drive's own sensor where the kernel exposes one (hwmon `nvme`,
//! `drivetemp`), else the hottest thermal zone (the SoC on a Raspberry Pi). Values are in
//! millidegrees Celsius (Documentation/ABI/testing/sysfs-class-hwmon, sysfs-class-thermal).

use std::path::Path;

use super::sysfs::read;

/// Hwmon drivers that report the storage device itself.
const DRIVE_SENSORS: [&str; 2] = ["nvme", "drivetemp"];

/// The most telling temperature under `root`, in °C: the hottest drive sensor, else the
/// hottest thermal zone; `None` where the kernel exposes neither.
pub fn hottest(root: &Path) -> Option<f64> {
    let millis = |path: &Path| read(path).as_deref().and_then(celsius);
    let entries = |dir: &str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(root.join(dir))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    let drive = entries("sys/class/hwmon")
        .iter()
        .filter(|h| read(&h.join("name")).is_some_and(|n| DRIVE_SENSORS.contains(&n.as_str())))
        .filter_map(|h| millis(&h.join("temp1_input")))
        .reduce(f64::max);
    drive.or_else(|| {
        entries("sys/class/thermal")
            .iter()
            .filter(|z| {
                z.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("thermal_zone"))
            })
            .filter_map(|z| millis(&z.join("temp")))
            .reduce(f64::max)
    })
}

/// A sensor's reading in °C from its text: whole millidegrees, as the kernel writes them
/// (a float parser would take "nan" and "inf", which no result can hold).
pub fn celsius(text: &str) -> Option<f64> {
    text.trim().parse::<i64>().ok().map(|m| m as f64 / 1000.0)
}

/// Reads the real machine's sensors.
pub fn local() -> Option<f64> {
    hottest(Path::new("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, value: &str) {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, value).unwrap();
    }

    #[test]
    fn drive_sensor_first_then_the_hottest_zone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(hottest(root), None);
        write(root, "sys/class/thermal/thermal_zone0/temp", "61835\n");
        write(root, "sys/class/thermal/thermal_zone1/temp", "48000\n");
        write(root, "sys/class/thermal/cooling_device0/cur_state", "1\n");
        assert_eq!(hottest(root), Some(61.835));
        write(root, "sys/class/hwmon/hwmon0/name", "cpu_thermal\n");
        write(root, "sys/class/hwmon/hwmon0/temp1_input", "90000\n");
        assert_eq!(
            hottest(root),
            Some(61.835),
            "a CPU hwmon is not a drive sensor"
        );
        write(root, "sys/class/hwmon/hwmon1/name", "nvme\n");
        write(root, "sys/class/hwmon/hwmon1/temp1_input", "44850\n");
        assert_eq!(hottest(root), Some(44.85));
    }

    #[test]
    fn a_reading_is_whole_millidegrees() {
        assert_eq!(celsius("44850\n"), Some(44.85));
        assert_eq!(celsius("-5000"), Some(-5.0));
        // A float parser takes these; no result can hold them (JSON has no NaN).
        for odd in ["nan", "inf", "-inf", "4.2e3", ""] {
            assert_eq!(celsius(odd), None, "{odd}");
        }
    }
}
