//! Every number of a document inside the range its unit allows. A field's unit is in its name
//! (`mb_per_s`, `p99` under `latency_us`, `duration_s`, `size_bytes`, `speed_mbps`…), so the
//! rule is one table read against every number the document holds, whatever field it is in:
//! a field added later is held to its unit's range by its name alone, and any other number
//! to [`ANY`]. A result whose latency held 1e308 was accepted and drawn forever, a negative
//! USB link speed turned the link check off, a 32 GB card "wrote 330,840 TB" (issue 59).

use super::rules::MAX_MB_PER_S;

/// One unit: the names of the fields that carry it (a name beginning `_` ends theirs), and
/// its range.
struct Unit {
    ends: &'static [&'static str],
    low: f64,
    high: f64,
    /// What the range is, for the sender.
    why: &'static str,
}

/// An hour in microseconds: the longest any profile measures (the pi profile's bound).
const HOUR_US: f64 = 3.6e9;
/// The fewest bytes an I/O moves (a sector).
const SECTOR: f64 = 512.0;

/// Every unit, by the end of its fields' names; the first that matches is the field's.
const UNITS: &[Unit] = &[
    Unit {
        ends: &["mb_per_s", "_mb_per_s", "mib_per_s", "_mib_per_s"],
        low: 0.0,
        high: MAX_MB_PER_S,
        why: "no storage interface carries more (PCIe 6.0 x16, about 121,000 MB/s)",
    },
    Unit {
        ends: &["_kb_per_s"],
        low: 0.0,
        high: MAX_MB_PER_S * 1e3,
        why: "no storage interface carries more",
    },
    Unit {
        ends: &["iops", "_iops", "_iops_4k"],
        low: 0.0,
        high: MAX_MB_PER_S * 1e6 / SECTOR,
        why: "the fastest interface moving one sector an I/O",
    },
    Unit {
        ends: &["_us"],
        low: 0.0,
        high: HOUR_US,
        why: "an hour, the longest any profile measures",
    },
    Unit {
        ends: &["ms", "_ms"],
        low: 0.0,
        high: HOUR_US / 1e3,
        why: "an hour, the longest any profile measures",
    },
    Unit {
        ends: &["_s", "seconds", "t"],
        low: 0.0,
        high: 7.0 * 86_400.0,
        why: "a week, far past any profile",
    },
    Unit {
        ends: &["ns_per_byte", "_ns_per_byte"],
        low: 0.0,
        high: 1e9,
        why: "a second a byte",
    },
    Unit {
        ends: &["_mbps"],
        low: 0.0,
        high: 2e6,
        why: "no link is faster (PCIe 6.0 x16, about 1,000,000 Mb/s)",
    },
    Unit {
        ends: &["_hz"],
        low: 0.0,
        high: 1e11,
        why: "no bus or core clock is faster",
    },
    Unit {
        ends: &["_mhz"],
        low: 0.0,
        high: 1e5,
        why: "no core clock is faster",
    },
    Unit {
        ends: &["_c"],
        low: -100.0,
        high: 200.0,
        why: "where electronics work",
    },
    Unit {
        ends: &["_percent"],
        low: 0.0,
        high: 255.0,
        why: "what a drive reports (NVMe counts past 100, to 255)",
    },
    Unit {
        ends: &["_hours"],
        low: 0.0,
        // 1e6 hours, said to be "a century", let 114 years by (the tenth attack pass).
        high: 438_000.0,
        why: "50 years, longer than any drive has run",
    },
    Unit {
        ends: &["_per_day_bytes"],
        low: 0.0,
        high: 1e15,
        why: "a petabyte a day, 11.6 GB/s all day",
    },
    Unit {
        ends: &["cpu_cores"],
        low: 0.0,
        high: 8192.0,
        why: "the most CPUs Linux runs on (NR_CPUS)",
    },
    Unit {
        ends: &["size_bytes", "_size_bytes"],
        low: 0.0,
        high: 1e15,
        why: "a petabyte, several times the largest drive sold",
    },
    Unit {
        ends: &["price_usd"],
        low: 0.0,
        high: 1e6,
        why: "what storage sells for",
    },
];

/// Any other number: not negative, and at most an exabyte's count of anything.
const ANY: Unit = Unit {
    ends: &[],
    low: 0.0,
    high: 1e18,
    why: "no count a run makes is larger",
};

/// The unit of a field named `key`.
fn unit(key: &str) -> &'static Unit {
    UNITS
        .iter()
        .find(|u| {
            u.ends
                .iter()
                .any(|end| key == *end || (end.starts_with('_') && key.ends_with(end)))
        })
        .unwrap_or(&ANY)
}

/// A figure as the sender may read it: whole digits where short, else in powers of ten.
fn shown(v: f64) -> String {
    match v.abs() < 1e9 {
        true => format!("{v}"),
        false => format!("{v:.3e}"),
    }
}

/// Whether every number in `value` is inside its unit's range; if not, one line naming the
/// first that is not, where it is and why.
pub fn within(value: &serde_json::Value) -> Result<(), String> {
    walk(value, "", "")
}

fn walk(value: &serde_json::Value, key: &str, at: &str) -> Result<(), String> {
    match value {
        serde_json::Value::Number(n) => {
            let v = n.as_f64().unwrap_or(f64::INFINITY);
            let u = unit(key);
            if !(v.is_finite() && u.low <= v && v <= u.high) {
                return Err(format!(
                    "{at}: {} is outside what it can be ({} to {}: {})",
                    shown(v),
                    shown(u.low),
                    shown(u.high),
                    u.why
                ));
            }
            Ok(())
        }
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| walk(v, key, &format!("{at}[{i}]"))),
        serde_json::Value::Object(map) => map.iter().try_for_each(|(k, v)| {
            let path = match at.is_empty() {
                true => k.clone(),
                false => format!("{at}.{k}"),
            };
            // A section's unit names its figures: `latency_us.p99`, `synced_write_ms.max`.
            let named = match v.is_number() && unit(key).ends.iter().any(|e| e.starts_with('_')) {
                true => key,
                false => k,
            };
            walk(v, named, &path)
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;

    #[test]
    fn every_figure_of_a_real_run_is_inside_its_range() {
        for doc in [sample::doc(), sample::ssd_doc(), sample::surface_doc(8, 16)] {
            within(&serde_json::to_value(doc).unwrap()).unwrap();
        }
        for text in [
            include_str!("../../../../tests/golden/pi.json"),
            include_str!("../../../../tests/golden/sdcard.json"),
            include_str!("../../../../tests/golden/sweep.json"),
            include_str!("../../../../tests/golden/sustained.json"),
            include_str!("../../../../tests/golden/latency.json"),
            include_str!("../../../../tests/golden/nvme.json"),
            include_str!("../../../../tests/golden/surface.json"),
        ] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            within(&value).unwrap();
        }
    }

    #[test]
    fn a_figure_past_its_unit_is_named_where_it_is() {
        let doc = serde_json::to_value(sample::doc()).unwrap();
        let refused = |path: &[&str], v: f64, says: &str| {
            let mut d = doc.clone();
            let mut at = &mut d;
            for p in path {
                at = match p.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*p],
                };
            }
            *at = serde_json::json!(v);
            let e = within(&d).unwrap_err();
            assert!(e.contains(says), "{path:?} = {v}: {e}");
        };
        refused(
            &["tests", "0", "latency_us", "p99"],
            1e308,
            "tests[0].latency_us.p99: 1.000e308",
        );
        refused(
            &["tests", "0", "latency_us", "max"],
            -1.0,
            "latency_us.max: -1",
        );
        refused(
            &["tests", "1", "timeline", "0", "mb_per_s"],
            1e15,
            "PCIe 6.0",
        );
        refused(&["tests", "0", "loops", "0", "seconds"], 1e300, "a week");
        refused(&["tests", "0", "iops"], 1e12, "one sector an I/O");
        refused(&["settings", "duration_s"], 1e9, "a week");
        refused(&["tests", "0", "cpu", "user_s"], -0.5, "cpu.user_s");
        refused(&["host", "cpu_cores"], -2.0, "host.cpu_cores");
        // Issue 59's third attack pass: 100,000 cores; an exabyte SATA SSD.
        refused(&["host", "cpu_cores"], 1e5, "host.cpu_cores");
    }
}
