//! A document less what this version does not know: every level's `extra` emptied, a score of
//! an unknown kind left out. `import` and `export` keep a newer iomark's fields (the schema
//! lets it add them within `/1`); a public site takes only what it can read and check.

use super::ResultDoc;

impl ResultDoc {
    /// Drops every field this version does not know, at every level.
    pub fn drop_unknown(&mut self) {
        self.extra.clear();
        self.tool.extra.clear();
        self.host.extra.clear();
        self.settings.extra.clear();
        self.warnings.iter_mut().for_each(|w| w.extra.clear());
        let target = &mut self.target;
        target.extra.clear();
        if let Some(device) = &mut target.device {
            device.extra.clear();
            device.usb.iter_mut().for_each(|u| u.extra.clear());
            device.sd.iter_mut().for_each(|s| s.extra.clear());
            device.nvme.iter_mut().for_each(|n| n.extra.clear());
        }
        for t in &mut self.tests {
            t.extra.clear();
            t.latency_us.extra.clear();
            t.latency_us
                .histogram
                .iter_mut()
                .for_each(|b| b.extra.clear());
            t.loops.iter_mut().for_each(|l| l.extra.clear());
            t.cpu.extra.clear();
            t.timeline.iter_mut().for_each(|s| s.extra.clear());
        }
        if self
            .score
            .as_mut()
            .is_some_and(|score| !score.drop_unknown())
        {
            self.score = None;
        }
        if let Some(langs) = &mut self.langs {
            langs.extra.clear();
            for r in &mut langs.results {
                r.extra.clear();
                r.write.extra.clear();
                r.read.extra.clear();
            }
            langs.skipped.iter_mut().for_each(|s| s.extra.clear());
        }
        if let Some(verify) = &mut self.verify {
            verify.extra.clear();
        }
        if let Some(health) = &mut self.health {
            health.extra.clear();
            health
                .device_report
                .iter_mut()
                .for_each(|r| r.extra.clear());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::result::{sample, ResultDoc};

    /// A field no version knows, put in every object of `value`.
    fn plant(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.values_mut().for_each(plant);
                map.insert("zz_unknown".into(), serde_json::json!([1, {"deep": 2}]));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(plant),
            _ => {}
        }
    }

    /// Every kind of document this version makes, each with an unknown field in every object
    /// it has: none is left. A new level with an `extra` that `drop_unknown` forgets fails here.
    #[test]
    fn no_unknown_field_is_left_at_any_level() {
        let mut docs = vec![sample::doc(), sample::ssd_doc(), sample::surface_doc(3, 4)];
        docs.extend(sample::corpus());
        // A health check with the device's report, and a langs run with one language and one
        // left out.
        let mut value = serde_json::to_value(sample::doc()).unwrap();
        value["health"] = serde_json::json!({
            "verdict": "healthy", "sentence": "s", "signals": [], "checks": 1,
            "canary_bytes": 1, "canary_bad_bytes": 0, "canary_unreadable_bytes": 0,
            "fresh_write_kept": null, "read_latency_us": null, "synced_write_ms": null,
            "baseline_read_p99_us": null, "baseline_synced_write_p99_ms": null,
            "budget_bytes": 1, "device_written_bytes": null, "written_per_day_bytes": null,
            "direct": true, "device_report": {"source": "nvme", "says": "ok"}});
        let figures = serde_json::json!({"mb_per_s": 1.0, "mib_per_s": 1.0, "ns_per_byte": 1.0,
            "reps": 1, "min_mb_per_s": 1.0, "max_mb_per_s": 1.0, "cv": 0.0});
        value["langs"] = serde_json::json!({"bytes": 1, "reps": 1, "cold": false,
            "results": [{"lang": "c", "variant": "v", "about": "a", "runtime": "r",
                         "build_flags": null, "write": figures, "read": figures}],
            "skipped": [{"lang": "go", "reason": "r"}]});
        docs.push(serde_json::from_value(value).unwrap());
        for doc in docs {
            let mut value = serde_json::to_value(&doc).unwrap();
            plant(&mut value);
            let mut read: ResultDoc = serde_json::from_str(&value.to_string()).unwrap();
            read.drop_unknown();
            let text = serde_json::to_string(&read).unwrap();
            assert!(!text.contains("zz_unknown"), "left in: {text}");
        }
        // A score of a kind this version does not know is left out whole.
        let mut doc = sample::doc();
        let mut value = serde_json::to_value(&doc).unwrap();
        value["score"] = serde_json::json!({"future": {"figure": 1}});
        doc = serde_json::from_value(value).unwrap();
        doc.drop_unknown();
        assert!(doc.score.is_none());
    }
}
