//! What a run was of and how it was measured, in one line each, as the terminal report and the
//! shareable card (`plot --kind card`) both say it; a profile that paces or reads its own way
//! says so through `Says`.

use crate::says::seconds;
use crate::says_of;
use iomark_result::result::ResultDoc;
use iomark_result::units::format_size;

/// The device: its name, vendor and model, transport, USB link and size
/// (`sda Samsung T7 · usb · 5000 Mbps · 1 TiB`); `None` when no block device was identified.
pub fn device_line(doc: &ResultDoc) -> Option<String> {
    let device = doc.target.device.as_ref()?;
    let mut parts: Vec<String> = Vec::new();
    // The drive as a buyer names it, never its USB bridge.
    let named = iomark_result::result::drive::named(device)
        .model
        .or_else(|| {
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
    let says = doc.score.as_ref().and_then(says_of);
    let object = says.and_then(|says| says.object(doc)).unwrap_or_else(|| {
        format!(
            "{} test file{}",
            format_size(s.file_size_bytes),
            s.fill_cut_from_bytes
                .map(|planned| format!(
                    " (cut from {}: the device fills no more in 10 s)",
                    format_size(planned)
                ))
                .unwrap_or_default()
        )
    });
    let (engine, data) = says.and_then(|says| says.engine(doc)).unwrap_or_else(|| {
        (
            format!(
                "{}{}",
                s.engine,
                if s.polled { " (QD1 polled)" } else { "" }
            ),
            format!("{} data", s.data),
        )
    });
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
    if let Some(pacing) = doc
        .score
        .as_ref()
        .and_then(says_of)
        .and_then(|s| s.pacing(doc))
    {
        return pacing;
    }
    format!(
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
    )
}

/// Direct or buffered I/O, as the steps were done: the pi profile's dd step is buffered, as
/// dd is, whatever the others were.
pub fn io_mode(doc: &ResultDoc) -> String {
    let mode = if doc.settings.direct {
        "direct I/O"
    } else {
        "buffered I/O"
    };
    doc.score
        .as_ref()
        .and_then(says_of)
        .and_then(|says| says.io_mode(doc, mode))
        .unwrap_or_else(|| mode.to_string())
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
    match iomark_result::result::time::rfc3339("started_at", &doc.started_at) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_said_in_utc() {
        let mut doc = iomark_result::result::sample::doc();
        doc.started_at = "2026-11-22T10:58:03Z".into();
        assert_eq!(when(&doc), "2026-11-22 10:58 UTC");
        doc.started_at = "2026-11-22T12:58:03+02:00".into();
        assert_eq!(when(&doc), "2026-11-22 10:58 UTC");
    }
}
