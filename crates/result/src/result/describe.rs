//! What a run was of and how it was measured, in one line each, as the terminal report and the
//! shareable card (`plot --kind card`) both say it.

use super::{ResultDoc, Score};
use crate::units::format_size;

/// The device: its name, vendor and model, transport, USB link and size
/// (`sda Samsung T7 · usb · 5000 Mbps · 1 TiB`); `None` when no block device was identified.
pub fn device_line(doc: &ResultDoc) -> Option<String> {
    let device = doc.target.device.as_ref()?;
    let mut parts: Vec<String> = Vec::new();
    // The drive as a buyer names it, never its USB bridge.
    let named = super::drive::named(device).model.or_else(|| {
        let bridge = device.usb.as_ref().and_then(|u| u.bridge.as_deref())?;
        Some(format!("(a drive behind {bridge})"))
    });
    parts.push(
        format!(
            "{} {}",
            device.name.as_deref().unwrap_or("?"),
            named.unwrap_or_default()
        )
        .trim()
        .to_string(),
    );
    parts.extend(device.transport.map(|t| t.to_string()));
    if let Some(speed) = device.usb.as_ref().and_then(|u| u.speed_mbps) {
        parts.push(format!("{speed} Mbps"));
    }
    parts.extend(device.size_bytes.map(format_size));
    Some(parts.join(" · "))
}

/// How the tests were paced and done: the file, loops and their length, the engine, direct or
/// buffered I/O and the data (`1 GiB test file · 5 loops of 5 s after 1 s warm-up · io_uring ·
/// direct I/O · random data`).
pub fn method_line(doc: &ResultDoc) -> String {
    let s = &doc.settings;
    let object = match &doc.score {
        Some(Score::Sustained(_)) => format_size(s.file_size_bytes),
        Some(Score::Surface(score)) if score.surface.over == "device" => {
            format!("{} device, read-only", format_size(s.file_size_bytes))
        }
        _ => format!(
            "{} test file{}",
            format_size(s.file_size_bytes),
            s.fill_cut_from_bytes
                .map(|planned| format!(
                    " (cut from {}: the device fills no more in 10 s)",
                    format_size(planned)
                ))
                .unwrap_or_default()
        ),
    };
    // A surface scan times each read alone, with pread, wherever io_uring works: a rate per
    // position is its figure, not a queue's; on a device it writes nothing, so has no data.
    let (engine, data) = match &doc.score {
        Some(Score::Surface(score)) => (
            "pread, each read timed alone (a rate per position, not a queue's)".to_string(),
            match score.surface.over == "device" {
                true => "nothing written".to_string(),
                false => format!("{} data", s.data),
            },
        ),
        _ => (
            format!(
                "{}{}",
                s.engine,
                if s.polled { " (QD1 polled)" } else { "" }
            ),
            format!("{} data", s.data),
        ),
    };
    format!(
        "{object} · {} · {engine} · {} · {data}",
        pacing(doc),
        io_mode(doc)
    )
}

/// How the tests were paced: one pass per step (pi), one long write (sustained), reads spread
/// across a device (surface), a fill and a read-back (verify), each program's repetitions
/// (langs), or timed loops (`3 loops of 2 s after 1 s warm-up`).
pub fn pacing(doc: &ResultDoc) -> String {
    let s = &doc.settings;
    if let Some(langs) = &doc.langs {
        return format!(
            "each program {} time{} over {}",
            langs.reps,
            if langs.reps == 1 { "" } else { "s" },
            format_size(langs.bytes)
        );
    }
    if doc.verify.is_some() {
        return "written whole, then read back".to_string();
    }
    if let Some(health) = &doc.health {
        return format!(
            "{} of canaries read back past the cache, a fresh write synced and read back, \
             small reads and synced writes timed",
            format_size(health.canary_bytes)
        );
    }
    match &doc.score {
        Some(Score::Pi(_)) => "each step once over its file, as dd, fio and iozone do".to_string(),
        Some(Score::Sustained(_)) => {
            format!(
                "written once (stopping at {} if not done)",
                seconds(s.duration_s)
            )
        }
        Some(Score::Surface(score)) => format!(
            "{} reads of {} spread across it, then {} random 4 KiB reads, one at a time",
            score.surface.samples.len(),
            format_size(score.surface.sample_bytes),
            score.surface.access.len()
        ),
        _ => format!(
            "{} of {} after {} warm-up",
            if s.loops_auto {
                format!("3 to {} loops (auto)", s.loops)
            } else if s.loops == 1 {
                "1 loop".to_string()
            } else {
                format!("{} loops", s.loops)
            },
            match s.count {
                Some(count) => format!("{count} I/Os"),
                None => seconds(s.duration_s),
            },
            seconds(s.warmup_s)
        ),
    }
}

/// Direct or buffered I/O, as the steps were done: the pi profile's dd step is buffered, as
/// dd is, whatever the others were.
pub fn io_mode(doc: &ResultDoc) -> String {
    let mode = if doc.settings.direct {
        "direct I/O"
    } else {
        "buffered I/O"
    };
    match &doc.score {
        Some(Score::Pi(_)) if doc.settings.direct => {
            format!("{mode} (its dd step buffered, as dd is)")
        }
        _ => mode.to_string(),
    }
}

/// Where the run's figures come from, as a report says it: `on ext4`, `on the raw device` (a
/// verify of a whole device), or nothing where neither is known.
pub fn on(doc: &ResultDoc) -> Option<String> {
    let raw = doc
        .verify
        .as_ref()
        .is_some_and(|v| v.mode == "probe" || v.mode == "full");
    match (doc.target.filesystem.as_deref(), raw) {
        (Some(fs), _) => Some(format!("on {fs}")),
        (None, true) => Some("on the raw device".into()),
        (None, false) => None,
    }
}

/// When the run started, as people read it: `2026-11-22 10:58 UTC` (a time given with another
/// offset is turned to UTC first).
pub fn when(doc: &ResultDoc) -> String {
    match super::time::rfc3339("started_at", &doc.started_at) {
        Ok(time) => {
            let stamp = humantime::format_rfc3339_seconds(time).to_string();
            format!(
                "{} UTC",
                stamp.get(..16).unwrap_or(&stamp).replace('T', " ")
            )
        }
        Err(_) => doc.started_at.clone(),
    }
}

/// Seconds as people say them: `500 ms`, `5 s`.
pub fn seconds(s: f64) -> String {
    if s < 1.0 && s > 0.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_said_in_utc() {
        let mut doc = crate::result::sample::doc();
        doc.started_at = "2026-11-22T10:58:03Z".into();
        assert_eq!(when(&doc), "2026-11-22 10:58 UTC");
        doc.started_at = "2026-11-22T12:58:03+02:00".into();
        assert_eq!(when(&doc), "2026-11-22 10:58 UTC");
    }
}
