//! Results made up for unit tests of the verdicts and reports derived from them.

use super::*;

pub fn result(name: &str, op: &str, block_size: u64, mb_per_s: f64, iops: f64) -> TestResult {
    TestResult {
        extra: Default::default(),
        name: name.into(),
        kind: "rand".into(),
        op: op.into(),
        block_size,
        queue_depth: 1,
        threads: 1,
        mb_per_s,
        iops,
        latency_us: Latency::default(),
        loops: vec![],
        cv: 0.0,
        mean_ci95_pct: None,
        cpu: Cpu::default(),
        timeline: vec![],
    }
}

/// [`doc`] of one SSD model a site files under a device key (the store's tests).
pub fn ssd_doc() -> ResultDoc {
    let mut doc = doc();
    doc.target.device = Some(crate::result::Device {
        model: Some("Samsung SSD 980 PRO 1TB".into()),
        vendor: Some("Samsung".into()),
        transport: Some(crate::result::Transport::Nvme),
        size_bytes: Some(1_000_204_886_016),
        ..Default::default()
    });
    doc
}

/// A whole document: the standard profile's eight tests with plausible figures.
pub fn doc() -> ResultDoc {
    let rows = [
        ("SEQ1M_Q8T1", "seq", 1 << 20, 8, 2000.0, 1500.0),
        ("SEQ1M_Q1T1", "seq", 1 << 20, 1, 900.0, 800.0),
        ("RND4K_Q32T1", "rand", 4096, 32, 400.0, 300.0),
        ("RND4K_Q1T1", "rand", 4096, 1, 40.0, 60.0),
    ];
    let mut tests = Vec::new();
    for (row, kind, bs, qd, read, write) in rows {
        for (op, mb) in [("read", read), ("write", write)] {
            let mut t = result(&format!("{row}_{op}"), op, bs, mb, mb * 1e6 / bs as f64);
            t.kind = kind.into();
            t.queue_depth = qd;
            t.loops = [0.98, 1.0, 1.02]
                .iter()
                .map(|f| Loop {
                    extra: Default::default(),
                    mb_per_s: mb * f,
                    iops: mb * f * 1e6 / bs as f64,
                    bytes: (mb * f * 1e6) as u64,
                    ios: (mb * f * 1e6 / bs as f64) as u64,
                    seconds: 1.0,
                })
                .collect();
            t.cv = 0.02;
            // Little's law: the queue nearly full all the time, as a real run's is.
            let mean = f64::from(qd) * bs as f64 / mb * 0.9;
            t.latency_us = Latency {
                extra: Default::default(),
                min: mean * 0.2,
                mean,
                p50: mean * 0.9,
                p90: mean * 1.5,
                p99: mean * 3.0,
                p99_9: mean * 8.0,
                max: mean * 20.0,
                stddev: mean * 0.4,
                histogram: vec![],
            };
            t.timeline = timeline(&[mb * 0.99, mb * 1.01, mb]);
            tests.push(t);
        }
    }
    ResultDoc {
        extra: Default::default(),
        schema: SCHEMA.into(),
        id: "01KAQZ8X3N7M2P4R6T8V0W2Y4Z".into(),
        tool: Tool::this(),
        started_at: "2026-11-21T07:00:00Z".into(),
        finished_at: "2026-11-21T07:01:00Z".into(),
        label: Some("sample <card> & \"reader\"".into()),
        price_usd: None,
        sold_as: None,
        host: Host {
            arch: "x86_64".into(),
            ..Host::default()
        },
        target: Target {
            path: "/mnt/test".into(),
            filesystem: Some("ext4".into()),
            ..Target::default()
        },
        settings: Settings {
            extra: Default::default(),
            profile: "standard".into(),
            file_size_bytes: 1 << 30,
            fill_cut_from_bytes: None,
            loops: 3,
            loops_auto: false,
            polled: false,
            duration_s: 2.0,
            warmup_s: 1.0,
            engine: "io_uring".into(),
            direct: true,
            data: "random".into(),
            count: None,
        },
        tests,
        warnings: vec![],
        score: None,
        langs: None,
        verify: None,
        health: None,
    }
}

/// One sample a second at these rates.
pub fn timeline(rates: &[f64]) -> Vec<TimelineSample> {
    rates
        .iter()
        .enumerate()
        .map(|(i, &mb_per_s)| TimelineSample {
            extra: Default::default(),
            t: i as f64,
            mb_per_s,
            temp_c: None,
        })
        .collect()
}

/// A surface scan of a file with `access` access times and `samples` rate samples, evenly
/// spread.
pub fn surface_doc(access: usize, samples: usize) -> ResultDoc {
    use super::score::{AccessSample, RateSample, Surface, SurfaceScore};
    let mut doc = doc();
    doc.tests.clear();
    doc.settings.profile = "surface".into();
    doc.score = Some(super::Score::Surface(SurfaceScore {
        surface: Surface {
            access: (0..access)
                .map(|i| AccessSample {
                    ms: 0.123456789 + (i % 7) as f64,
                    position: i as f64 / access as f64,
                })
                .collect(),
            max_mb_per_s: 90.0,
            mean_access_ms: 3.6,
            mean_mb_per_s: 60.0,
            min_mb_per_s: 30.0,
            over: "file".into(),
            sample_bytes: 1 << 20,
            samples: (0..samples)
                .map(|i| RateSample {
                    mb_per_s: 30.0 + (i % 60) as f64,
                    position: i as f64 / samples as f64,
                })
                .collect(),
            extra: Default::default(),
        },
        extra: Default::default(),
    }));
    doc
}

/// A probe's verify of a 256 MiB device that holds all of it, 64 MiB of samples checked.
pub fn verify_section() -> super::verify::Section {
    super::verify::Section {
        mode: "probe".into(),
        planned_bytes: 64 << 20,
        written_bytes: 64 << 20,
        good_bytes: 64 << 20,
        bad_bytes: 0,
        aliased_bytes: 0,
        unreadable_bytes: 0,
        first_bad_offset: None,
        write_mb_per_s: Some(40.0),
        read_mb_per_s: Some(80.0),
        direct: true,
        file_bytes: None,
        claimed_bytes: Some(256 << 20),
        real_bytes: Some(256 << 20),
        real_method: Some("probe".into()),
        ok: true,
        verdict: "All of its 256 MiB are real.".into(),
        problems: Vec::new(),
        more_problems: 0,
        resumed: false,
        extra: Default::default(),
    }
}

/// Each profile's document as the fuzz target `document` seeds it (fuzz/corpus/document/): real
/// runs of every profile, some on the null engine.
pub fn corpus() -> Vec<ResultDoc> {
    [
        include_str!("../../../../fuzz/corpus/document/pi.json"),
        include_str!("../../../../fuzz/corpus/document/sdcard.json"),
        include_str!("../../../../fuzz/corpus/document/sweep.json"),
        include_str!("../../../../fuzz/corpus/document/sustained.json"),
        include_str!("../../../../fuzz/corpus/document/latency.json"),
        include_str!("../../../../fuzz/corpus/document/verify.json"),
        include_str!("../../../../fuzz/corpus/document/nvme.json"),
        include_str!("../../../../fuzz/corpus/document/quick.json"),
        include_str!("../../../../fuzz/corpus/document/standard.json"),
    ]
    .into_iter()
    .map(|text| serde_json::from_str(text).expect("a seed of the fuzz target reads"))
    .collect()
}
