//! RFC 3339 times as the result document holds them, read with their offsets.

use std::time::{Duration, SystemTime};

use super::document_error::DocumentError;

/// Seconds since the Unix epoch of an RFC 3339 time, where it is one (and not before 1970).
pub fn unix_seconds(value: &str) -> Option<f64> {
    let at = rfc3339("time", value).ok()?;
    Some(
        at.duration_since(SystemTime::UNIX_EPOCH)
            .ok()?
            .as_secs_f64(),
    )
}

/// An RFC 3339 time (`2026-11-22T05:00:00Z`, `…+14:00`, fractions of a second allowed) as a
/// point in time.
pub fn rfc3339(field: &'static str, value: &str) -> Result<SystemTime, DocumentError> {
    let bad = || DocumentError::BadTime {
        field,
        value: value.chars().take(40).collect(),
    };
    let b = value.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return Err(bad());
    }
    if b[13] != b':' || b[16] != b':' {
        return Err(bad());
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = value.get(range)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let (hour, minute, second) = (number(11..13), number(14..16), number(17..19));
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) =
        (year, month, day, hour, minute, second)
    else {
        return Err(bad());
    };
    let mut rest = &value[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(bad());
        }
        rest = &fraction[digits..];
    }
    let offset_s: i64 = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let (Some(h), Some(m)) = (
                number(value.len() - 5..value.len() - 3),
                number(value.len() - 2..value.len()),
            ) else {
                return Err(bad());
            };
            if &rest[3..4] != ":" || h > 23 || m > 59 {
                return Err(bad());
            }
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (h * 3600 + m * 60)
        }
        _ => return Err(bad()),
    };
    let days_in_month = [
        31,
        28 + i64::from(leap(year)),
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month[(month - 1) as usize]
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(bad());
    }
    let seconds =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset_s;
    if seconds < 0 {
        return Err(bad());
    }
    Ok(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds as u64))
}

fn leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
