use super::*;
use iomark_result::result::sample;

#[test]
fn a_real_run_is_physical() {
    check(&sample::doc()).unwrap();
    check(&sample::ssd_doc()).unwrap();
    for doc in sample::corpus() {
        check(&doc).unwrap();
    }
}

/// Issue 59's second attack pass: each of these ranked, its MB/s, IOPS and block size
/// agreeing.
#[test]
fn what_no_storage_does_is_named() {
    let q1 = |doc: &mut ResultDoc| -> usize {
        doc.tests
            .iter()
            .position(|t| t.queue_depth == 1 && t.kind == "rand" && t.op == "read")
            .unwrap()
    };
    // 1,200 IOPS at Q1 with a mean of 8 µs: 0.01 I/Os in flight.
    let mut doc = sample::doc();
    let i = q1(&mut doc);
    doc.tests[i].latency_us.mean = 1e6 / doc.tests[i].iops / 100.0;
    let e = in_flight(&doc.tests[i]).unwrap_err();
    assert!(e.contains("0.01 I/Os in flight"), "{e}");
    // A loop of 50 times the bytes its rate allows.
    let mut doc = sample::doc();
    doc.tests[0].loops[0].bytes *= 50;
    let e = counted(&doc.tests[0]).unwrap_err();
    assert!(e.contains("is not"), "{e}");
    // I/Os that took no time.
    let mut doc = sample::doc();
    let l = &mut doc.tests[0].latency_us;
    (l.min, l.mean, l.p50, l.p90, l.p99, l.p99_9, l.max) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    assert!(counted(&doc.tests[0]).unwrap_err().contains("took no time"));
    // 2,000 s of CPU time in a test of seconds, on two cores.
    let mut doc = sample::doc();
    doc.tests[0].cpu.user_s = 2000.0;
    let e = cpu(&doc.tests[0], Some(2)).unwrap_err();
    assert!(e.contains("of CPU time"), "{e}");
    // A timeline at a tenth of its loops.
    let mut doc = sample::doc();
    let t = doc.tests.iter_mut().find(|t| t.timeline.len() > 1).unwrap();
    t.timeline.iter_mut().for_each(|s| s.mb_per_s /= 10.0);
    let e = its_timeline(t).unwrap_err();
    assert!(e.contains("its timeline draws"), "{e}");
    // A test file of 1 TB on a stick of 1 GB; a petabyte free on it.
    let mut doc = sample::ssd_doc();
    capacity(&doc).unwrap();
    doc.target.device.as_mut().unwrap().size_bytes = Some(1_000_000_000);
    assert!(capacity(&doc)
        .unwrap_err()
        .contains("on a device of 1000 MB"));
    let mut doc = sample::ssd_doc();
    doc.target.free_bytes = Some(1 << 50);
    assert!(capacity(&doc).is_err());
    // A byte more than whole sectors.
    let mut doc = sample::ssd_doc();
    doc.target.device.as_mut().unwrap().size_bytes = Some(1_000_204_886_017);
    assert!(capacity(&doc).unwrap_err().contains("512-byte sectors"));
}

/// CI's run from the app, on a busy machine: one loop of two eight times the other's IOPS.
/// The reported loop is the slower, the mean latency is over both: 128 IOPS × 1,400 µs is
/// 0.18 I/Os in flight (CI refused a real run at 0.20), the loops' 0.93 s of I/O in 1 s is one.
#[test]
fn loops_of_different_speeds_keep_one_io_in_flight() {
    let mut doc = sample::doc();
    let t = doc.tests.iter_mut().find(|t| t.queue_depth == 1).unwrap();
    let block = t.block_size;
    let looped = |iops: f64, seconds: f64| {
        let ios = (iops * seconds).round() as u64;
        iomark_result::result::Loop {
            mb_per_s: (ios * block) as f64 / seconds / 1e6,
            iops: ios as f64 / seconds,
            bytes: ios * block,
            ios,
            seconds,
            extra: Default::default(),
        }
    };
    t.loops = vec![looped(1200.0, 0.5), looped(128.0, 0.5)];
    (t.iops, t.mb_per_s) = (t.loops[1].iops, t.loops[1].mb_per_s);
    t.latency_us.mean = 0.93e6 / 664.0;
    in_flight(t).unwrap();
    counted(t).unwrap();
    // The same latency written down for loops that ran a tenth of the time.
    t.latency_us.mean /= 10.0;
    assert!(in_flight(t).unwrap_err().contains("0.09 I/Os in flight"));
}

#[test]
fn figures_that_contradict_each_other_are_named() {
    // 150,000 IOPS at Q1 with a mean of 500 µs: 75 I/Os in flight at queue depth 1.
    // Its loops say so too: the rate Little's law holds is theirs.
    let mut doc = sample::doc();
    let t = doc.tests.iter_mut().find(|t| t.queue_depth == 1).unwrap();
    let k = 150_000.0 / t.iops;
    t.iops *= k;
    t.mb_per_s *= k;
    for l in &mut t.loops {
        (l.iops, l.mb_per_s) = (l.iops * k, l.mb_per_s * k);
        l.ios = (l.ios as f64 * k).round() as u64;
        l.bytes = l.ios * t.block_size;
    }
    t.latency_us.mean = 500.0;
    let e = in_flight(t).unwrap_err();
    assert!(e.contains("74.97 I/Os in flight, but"), "{e}");
    // The fourteenth attack pass: 1.45 I/Os in flight at Q1, loops and all; a real run's 1.00
    // passes.
    t.latency_us.mean = 1.45e6 / t.iops;
    assert!(in_flight(t)
        .unwrap_err()
        .contains("keep 1.45 I/Os in flight"));
    t.latency_us.mean = 1.0e6 / t.iops;
    in_flight(t).unwrap();
    // An I/O longer than the test.
    let mut doc = sample::doc();
    doc.tests[0].latency_us.max = 1e9;
    let e = check(&doc).unwrap_err();
    assert!(e.contains("longer than the whole test ran"), "{e}");
    // A figure none of its loops gave; latencies out of order.
    let mut doc = sample::doc();
    doc.tests[0].mb_per_s *= 5.9;
    doc.tests[0].iops *= 5.9;
    let e = its_own(&doc.tests[0]).unwrap_err();
    assert!(e.contains("none of its loops'"), "{e}");
    // Issue 59's third attack pass: a deviation wider than the range, none where there is
    // one, a median over twice the mean, a variation in one loop.
    for change in [
        &(|l: &mut iomark_result::result::Latency| l.stddev = (l.max - l.min) * 100.0)
            as &dyn Fn(&mut iomark_result::result::Latency),
        &|l| l.stddev = 0.0,
        // (the percentiles above it kept in order: that is a check of its own)
        &|l| {
            l.p50 = l.mean * 5.0;
            for above in [&mut l.p90, &mut l.p99, &mut l.p99_9, &mut l.max] {
                *above = above.max(l.mean * 5.0);
            }
        },
    ] {
        let mut doc = sample::doc();
        change(&mut doc.tests[1].latency_us);
        let e = its_own(&doc.tests[1]).unwrap_err();
        assert!(e.contains("latencies no I/Os give"), "{e}");
    }
    let mut doc = sample::doc();
    doc.tests[1].loops.truncate(1);
    doc.tests[1].loops[0].mb_per_s = doc.tests[1].mb_per_s;
    doc.tests[1].cv = 3.0;
    assert!(its_own(&doc.tests[1])
        .unwrap_err()
        .contains("a variation of 3"));
    let mut doc = sample::doc();
    doc.tests[1].latency_us.min = doc.tests[1].latency_us.max * 20.0;
    let e = check(&doc).unwrap_err();
    assert!(e.contains("out of order"), "{e}");
}

/// The last check of a real `iomark health` run (a virtual disk), `change`d as JSON.
fn check_doc(change: impl Fn(&mut serde_json::Value)) -> ResultDoc {
    let checks: Vec<serde_json::Value> = serde_json::from_str(include_str!(
        "../../../../../tests/golden/charts/health.json"
    ))
    .unwrap();
    let mut value = checks.last().unwrap().clone();
    change(&mut value);
    ResultDoc::from_json(&value.to_string()).unwrap()
}

/// The tenth attack pass: a card "wrote" a petabyte in a check of no time, 10 GB/s every
/// day behind a slow link, and 3 PB between two checks an hour apart.
#[test]
fn a_card_writes_no_faster_than_its_link_carries() {
    check(&check_doc(|_| {})).unwrap();
    let e = check(&check_doc(|v| {
        v["health"]["device_written_bytes"] = 1_000_000_000_000_000u64.into()
    }))
    .unwrap_err();
    assert!(e.contains("while a check of 0 s ran"), "{e}");
    let usb2 = |v: &mut serde_json::Value| {
        v["target"]["device"]["usb"] = serde_json::json!({"speed_mbps": 480.0});
    };
    check(&check_doc(|v| {
        usb2(v);
        v["health"]["written_per_day_bytes"] = 5_000_000_000_000u64.into();
    }))
    .unwrap();
    let e = check(&check_doc(|v| {
        usb2(v);
        v["health"]["written_per_day_bytes"] = 9_000_000_000_000u64.into();
    }))
    .unwrap_err();
    assert!(e.contains("USB link (480 Mbit/s)"), "{e}");
    let at = |started: &'static str, written: u64| {
        check_doc(move |v| {
            v["started_at"] = started.into();
            v["finished_at"] = started.into();
            v["health"]["device_report"] =
                serde_json::json!({"source": "smart", "says": "ok", "written_bytes": written});
        })
    };
    let first = at("2026-11-26T10:00:00Z", 1_000_000_000_000);
    between(&first, &at("2026-11-26T11:00:00Z", 1_010_000_000_000)).unwrap();
    for later in [
        at("2026-11-26T11:00:00Z", 3_000_000_000_000_000),
        at("2026-11-26T11:00:00Z", 900_000_000_000),
    ] {
        let e = between(&first, &later).unwrap_err();
        assert!(e.contains("GB written, check"), "{e}");
    }
}

/// The nineteenth attack pass ranked a Q32 test whose mean agreed with its IOPS but whose p50
/// to p99.9 were 1-4% of it and its max 40 times: no I/Os make that mean.
#[test]
fn a_mean_its_percentiles_cannot_make_is_named() {
    let mut doc = sample::doc();
    let l = &mut doc.tests[4].latency_us;
    let mean = l.mean;
    (l.min, l.p50, l.p90, l.p99, l.p99_9, l.max) = (
        mean * 0.005,
        mean * 0.01,
        mean * 0.02,
        mean * 0.03,
        mean * 0.04,
        mean * 40.0,
    );
    l.stddev = mean;
    let e = its_own(&doc.tests[4]).unwrap_err();
    assert!(e.contains("its percentiles cannot make"), "{e}");
    // Its percentiles about it, as a run's are, are what it may be.
    check(&sample::doc()).unwrap();
}
