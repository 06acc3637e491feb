//! Sizes, durations and rates as users type and read them.
//!
//! Rates are always decimal (MB/s = 10^6 bytes per second, as fio's `bw_bytes` and
//! CrystalDiskMark report them). Sizes accept both families and never mix them silently:
//! `KiB/MiB/GiB/TiB` are powers of 1024, `KB/MB/GB/TB` powers of 1000, and the bare
//! letters `K/M/G/T` mean the binary units, as they do in fio and dd.

use std::time::Duration;

/// Parses a byte size such as `1GiB`, `512MB`, `64k` or `4096`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    // What was typed, shown on one line: a refusal is one line.
    let shown = text.escape_debug();
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    if number.is_empty() {
        return Err(format!(
            "'{shown}' is not a size (examples: 1GiB, 512MB, 64KiB)"
        ));
    }
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "'{shown}': unknown unit '{}' (use KiB, MiB, GiB, TiB or KB, MB, GB, TB)",
                other.escape_debug()
            ))
        }
    };
    let too_large = || format!("'{shown}' is too large");
    // A whole number counts in whole numbers: as a float, 2^53 + 1 bytes would become 2^53.
    if !number.contains('.') {
        return number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(multiplier))
            .filter(|&bytes| bytes <= u64::MAX / 2)
            .ok_or_else(too_large);
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{shown}' is not a size (examples: 1GiB, 512MB, 64KiB)"))?;
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes > u64::MAX as f64 / 2.0 {
        return Err(too_large());
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{shown}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// A price in US dollars: a positive number below a million, as `--price 12.99` or `$12.99`.
pub fn parse_price(text: &str) -> Result<f64, String> {
    // What was typed, shown on one line: a refusal is one line.
    let shown = text.escape_debug();
    let number = text.trim().trim_start_matches('$');
    match number.parse::<f64>() {
        Ok(p) if is_price(p) => Ok(p),
        _ => Err(format!(
            "'{shown}' is not a price: give US dollars above 0, e.g. 12.99"
        )),
    }
}

/// Whether `usd` can be a price: above 0, below a million dollars.
pub fn is_price(usd: f64) -> bool {
    usd.is_finite() && usd > 0.0 && usd < 1e6
}

/// Parses a duration such as `2s`, `500ms` or `1m`; a bare number means seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    // What was typed, shown on one line: a refusal is one line.
    let shown = text.escape_debug();
    let trimmed = text.trim();
    let not_a_duration = || format!("'{shown}' is not a duration (examples: 2s, 500ms, 1m)");
    let duration = match trimmed.parse::<f64>() {
        Ok(seconds) if (0.0..=MAX_DURATION.as_secs_f64()).contains(&seconds) => {
            Duration::from_secs_f64(seconds)
        }
        Ok(seconds) if seconds > 0.0 => Duration::MAX,
        Ok(_) => return Err(not_a_duration()),
        Err(_) => humantime::parse_duration(trimmed).map_err(|e| match e {
            humantime::DurationError::NumberOverflow => {
                format!("'{shown}' is longer than the longest allowed, 7 days")
            }
            _ => not_a_duration(),
        })?,
    };
    if duration > MAX_DURATION {
        return Err(format!(
            "'{shown}' is longer than the longest allowed, 7 days"
        ));
    }
    Ok(duration)
}

/// A duration as `--every` takes one back, largest units first: `6h`, `1h 30m`, `10m`, `45s`.
pub fn format_every(duration: Duration) -> String {
    let mut left = duration.as_secs();
    let mut parts = Vec::new();
    for (unit, seconds) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        if left >= seconds {
            parts.push(format!("{}{unit}", left / seconds));
            left %= seconds;
        }
    }
    match parts.is_empty() {
        true => "0s".into(),
        false => parts.join(" "),
    }
}

/// The longest duration any option takes: a week. It keeps every sum of durations (loops,
/// tests, the time left) far from overflowing.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// A size in the largest binary unit that keeps it readable: `1 GiB`, `1.5 MiB`, `4 KiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{} {}", value as u64, UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A block size as benchmark names spell it: `4K`, `1M`, `512` (binary units).
pub fn block_label(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}M", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{}K", bytes >> 10)
    } else {
        bytes.to_string()
    }
}

/// MB/s with the decimal megabyte: bytes / seconds / 10^6.
pub fn mb_per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds / 1e6
    } else {
        0.0
    }
}

/// Operations per second.
pub fn per_second(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// A figure as people read it, one rule for every output (the terminal, HTML, Markdown, the
/// card, the site, the app): the digits its size earns, two decimals under 10, one under 100,
/// whole numbers from 100 (`4.52`, `58.2`, `1143`), and `–` where it is no number. Shown with
/// `{}`; padding and alignment (`{:>8}`) apply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    value: f64,
    /// Thousands set apart (`86,881`), as the site's tables write them.
    grouped: bool,
}

/// `value` as a figure: [`Figure`]'s rule.
pub fn figure(value: f64) -> Figure {
    Figure {
        value,
        grouped: false,
    }
}

/// `value` as a figure with its thousands set apart (`86,881`), for a table's columns.
pub fn grouped(value: f64) -> Figure {
    Figure {
        value,
        grouped: true,
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.value;
        let text = match v.abs() {
            a if !a.is_finite() => "–".to_string(),
            a if a >= 1000.0 && self.grouped => {
                let whole = format!("{:.0}", a);
                let mut out = String::from(if v < 0.0 { "-" } else { "" });
                for (i, c) in whole.chars().enumerate() {
                    if i > 0 && (whole.len() - i) % 3 == 0 {
                        out.push(',');
                    }
                    out.push(c);
                }
                out
            }
            a if a >= 100.0 => format!("{v:.0}"),
            a if a >= 10.0 => format!("{v:.1}"),
            _ => format!("{v:.2}"),
        };
        f.pad(&text)
    }
}

/// A rate as a sentence, a step or a progress line says it: `91.5 MB/s` (MB = 10^6 bytes), to
/// a tenth whatever its size (a table gives its figures as [`Figure`]s under its own heading).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub f64);

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&format!("{:.1} MB/s", self.0))
    }
}

/// A duration in microseconds, readable: `85 µs`, `1.25 ms`, `2.0 s`.
pub fn format_micros(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.2} ms", us / 1_000.0)
    } else {
        format!("{:.2} s", us / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_earn_the_digits_of_their_size() {
        let shown = |v: f64| figure(v).to_string();
        assert_eq!(shown(4.5237), "4.52");
        assert_eq!(shown(58.16), "58.2");
        assert_eq!(shown(1143.23), "1143");
        assert_eq!(shown(86881.0), "86881");
        assert_eq!(grouped(86881.0).to_string(), "86,881");
        assert_eq!(grouped(1_234_567.4).to_string(), "1,234,567");
        assert_eq!(grouped(999.6).to_string(), "1000");
        assert_eq!(grouped(-1500.0).to_string(), "-1,500");
        assert_eq!(shown(f64::NAN), "–");
        assert_eq!(grouped(f64::INFINITY).to_string(), "–");
        assert_eq!(format!("[{:>6}]", figure(58.16)), "[  58.2]");
        assert_eq!(Rate(1143.234).to_string(), "1143.2 MB/s");
    }

    #[test]
    fn sizes_in_both_families() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("64k").unwrap(), 65_536);
        assert_eq!(parse_size("64KB").unwrap(), 64_000);
        assert_eq!(parse_size("1.5MiB").unwrap(), 1_572_864);
        assert_eq!(parse_size(" 2 MiB ").unwrap(), 2 << 20);
        // Counted as whole numbers, not rounded to a float's 53 bits.
        assert_eq!(parse_size("9007199254740993").unwrap(), (1 << 53) + 1);
        assert_eq!(parse_size("9223372036854775807").unwrap(), u64::MAX / 2);
        assert!(parse_size("9223372036854775808").is_err());
        assert!(parse_size("99999999999999999999").is_err());
    }

    #[test]
    fn bad_sizes_are_refused_with_a_reason() {
        assert!(parse_size("").unwrap_err().contains("not a size"));
        assert!(parse_size("GiB").unwrap_err().contains("not a size"));
        assert!(parse_size("12XB").unwrap_err().contains("unknown unit"));
        assert!(parse_size("1.2.3M").is_err());
        assert!(parse_size("0.3").unwrap_err().contains("whole number"));
        assert!(parse_size("99999999999TiB")
            .unwrap_err()
            .contains("too large"));
        // What was typed is shown on the refusal's one line (found by the fuzz target `values`).
        assert_eq!(
            parse_size("=\n\0").unwrap_err(),
            "'=\\n\\0' is not a size (examples: 1GiB, 512MB, 64KiB)"
        );
        assert!(!parse_duration("1\nx").unwrap_err().contains('\n'));
        assert!(!parse_price("\r1x").unwrap_err().contains('\r'));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1").is_err());
        // Issue 11: `999999999999999h` panicked further on, and `99999999h` was taken.
        assert_eq!(parse_duration("7d").unwrap(), MAX_DURATION);
        for long in ["8d", "99999999h", "999999999999999h", "1e300", "inf", "NaN"] {
            let error = parse_duration(long).unwrap_err();
            assert!(
                error.contains("7 days") || error.contains("not a duration"),
                "{long}: {error}"
            );
        }
    }

    #[test]
    fn rates_are_decimal_megabytes() {
        assert_eq!(mb_per_s(2_000_000, 2.0), 1.0);
        assert_eq!(mb_per_s(1 << 20, 1.0), 1.048576);
        assert_eq!(mb_per_s(10, 0.0), 0.0);
        assert_eq!(per_second(300, 1.5), 200.0);
    }

    #[test]
    fn labels() {
        assert_eq!(block_label(4096), "4K");
        assert_eq!(block_label(1 << 20), "1M");
        assert_eq!(block_label(512), "512");
        assert_eq!(format_size(1 << 30), "1 GiB");
        assert_eq!(format_size(1536 * 1024), "1.5 MiB");
        assert_eq!(format_micros(85.2), "85 µs");
        assert_eq!(format_micros(1250.0), "1.25 ms");
    }
}
