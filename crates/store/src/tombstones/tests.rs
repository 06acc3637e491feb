//! Copies of buried results known, honest runs of a buried device taken.

use super::*;

/// Every figure of a test's latencies.
fn latencies(l: &mut iomark_result::result::Latency) -> [&mut f64; 8] {
    [
        &mut l.min,
        &mut l.mean,
        &mut l.p50,
        &mut l.p90,
        &mut l.p99,
        &mut l.p99_9,
        &mut l.max,
        &mut l.stddev,
    ]
}

/// Runs of one device as a real device gives them: every figure a few percent from the
/// last, each latency on its own (a tail moves more than a median).
fn runs(n: usize) -> Vec<ResultDoc> {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut jitter = |spread: f64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        1.0 + spread * ((seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
    };
    (0..n)
        .map(|_| {
            let mut doc = iomark_result::result::sample::doc();
            for t in &mut doc.tests {
                let f = jitter(0.03);
                (t.mb_per_s, t.iops) = (t.mb_per_s * f, t.iops * f);
                // Loops and seconds spread afresh too, a little.
                for l in &mut t.loops {
                    l.mb_per_s *= f * jitter(0.003);
                    // A loop ends within its last I/O of its time, and counts afresh.
                    l.seconds *= jitter(0.001);
                    l.ios = (l.ios as f64 * f * jitter(0.003)).round() as u64;
                    l.bytes = l.ios * t.block_size;
                }
                for p in &mut t.timeline {
                    p.mb_per_s *= f * jitter(0.01);
                }
                let mean = t.latency_us.mean / f;
                for v in latencies(&mut t.latency_us) {
                    *v = *v / f * jitter(0.015);
                }
                t.latency_us.mean = mean;
            }
            doc
        })
        .collect()
}

/// The fourth attack pass: 2 of 15 honest new results were refused, their tests agreeing
/// with buried ones of their model in five of seven shares of the mean at three digits.
/// Forty runs of one device, twenty buried: none of the other twenty is taken for a copy;
/// a copy scaled whole still is.
#[test]
fn honest_runs_of_a_buried_device_are_no_copies_and_a_scaled_copy_is() {
    let docs = runs(40);
    let buried: std::collections::HashSet<String> =
        docs[..20].iter().flat_map(test_prints).collect();
    for (n, doc) in docs[20..].iter().enumerate() {
        let copies = test_prints(doc)
            .into_iter()
            .filter(|p| buried.contains(p))
            .count();
        assert_eq!(copies, 0, "run {n} taken for a copy");
    }
    let mut scaled = docs[3].clone();
    for t in &mut scaled.tests {
        (t.mb_per_s, t.iops) = (t.mb_per_s * 1.002, t.iops * 1.002);
        for v in latencies(&mut t.latency_us) {
            *v /= 1.002;
        }
    }
    assert!(test_prints(&scaled).iter().any(|p| buried.contains(p)));
    // The sixth attack pass's copies, each of a buried run, each taken before.
    let copy = |change: &dyn Fn(&mut iomark_result::result::TestResult)| {
        let mut doc = docs[5].clone();
        doc.tests.iter_mut().for_each(change);
        test_prints(&doc).iter().any(|p| buried.contains(p))
    };
    let scale = |t: &mut iomark_result::result::TestResult, f: f64| {
        (t.mb_per_s, t.iops) = (t.mb_per_s * f, t.iops * f);
        latencies(&mut t.latency_us)
            .into_iter()
            .for_each(|v| *v /= f);
    };
    assert!(copy(&|t| {
        scale(t, 1.05);
        t.latency_us.max *= 1.01;
    }));
    assert!(copy(&|t| {
        scale(t, 1.05);
        t.latency_us.stddev *= 1.02;
    }));
    assert!(copy(&|t| {
        for v in latencies(&mut t.latency_us) {
            *v = *v * 1.02 + 3.0;
        }
        t.latency_us.stddev = (t.latency_us.stddev - 3.0) / 1.02 * 1.02;
    }));
    // Every figure rounded to three digits.
    assert!(copy(&|t| {
        let three = |v: &mut f64| *v = format!("{:.2e}", *v).parse().unwrap();
        three(&mut t.mb_per_s);
        latencies(&mut t.latency_us).into_iter().for_each(three);
    }));
    // A read's figures under the write's name.
    let mut swapped = docs[6].clone();
    let names: Vec<String> = swapped.tests.iter().map(|t| t.name.clone()).collect();
    for (t, name) in swapped.tests.iter_mut().zip(names.iter().rev()) {
        t.name = name.clone();
    }
    assert!(test_prints(&swapped).iter().any(|p| buried.contains(p)));
    // The ninth: every latency x + 0.5·√x, the rates and loops x1.02.
    assert!(copy(&|t| {
        (t.mb_per_s, t.iops) = (t.mb_per_s * 1.02, t.iops * 1.02);
        for l in &mut t.loops {
            (l.mb_per_s, l.iops) = (l.mb_per_s * 1.02, l.iops * 1.02);
        }
        latencies(&mut t.latency_us)
            .into_iter()
            .for_each(|v| *v += 0.5 * v.sqrt());
    }));
    // The fourteenth: every rate and latency moved by up to 0.3% on its own, the loops'
    // counts and seconds and the timeline as they were.
    let moved = std::cell::Cell::new(0u32);
    assert!(copy(&|t| {
        let nudge = |v: &mut f64| {
            moved.set(moved.get() + 1);
            *v *= 1.0 + 0.003 * [1.0, -0.6, 0.3, -1.0, 0.8][moved.get() as usize % 5];
        };
        nudge(&mut t.mb_per_s);
        nudge(&mut t.iops);
        latencies(&mut t.latency_us).into_iter().for_each(nudge);
        for l in &mut t.loops {
            nudge(&mut l.mb_per_s);
            nudge(&mut l.iops);
        }
    }));
    // The eighth: every latency x^1.015/1.03, the rate x1.03.
    assert!(copy(&|t| {
        (t.mb_per_s, t.iops) = (t.mb_per_s * 1.03, t.iops * 1.03);
        latencies(&mut t.latency_us)
            .into_iter()
            .for_each(|v| *v = v.powf(1.015) / 1.03);
    }));
}

/// The seventh attack pass: copies with two or three of each test's figures moved by half
/// a percent, in one test or all, escaped every print of a whole test. Half of their
/// latencies' shares are still the buried run's; no honest run's are.
#[test]
fn a_copy_with_a_few_figures_moved_is_known_by_its_figures_and_no_run_is() {
    let docs = runs(40);
    let buried: Vec<Vec<String>> = docs[..20].iter().map(figure_prints).collect();
    for (n, doc) in docs[20..].iter().enumerate() {
        assert!(!a_copy_by_figures(doc, &buried), "run {n} taken for a copy");
    }
    let copy = |change: &dyn Fn(&mut iomark_result::result::TestResult)| {
        let mut doc = docs[7].clone();
        doc.tests.iter_mut().for_each(change);
        a_copy_by_figures(&doc, &buried)
    };
    assert!(copy(&|t| {
        (t.mb_per_s, t.iops) = (t.mb_per_s * 1.005, t.iops * 1.005);
        t.latency_us.min *= 0.995;
        t.latency_us.max *= 1.005;
    }));
    assert!(copy(&|t| {
        (t.mb_per_s, t.iops) = (t.mb_per_s * 1.006, t.iops * 1.006);
        t.latency_us.p50 *= 1.007;
        t.latency_us.p90 *= 0.994;
    }));
    // Scaled whole, and its least and most moved besides: its shares.
    assert!(copy(&|t| {
        (t.mb_per_s, t.iops) = (t.mb_per_s * 1.005, t.iops * 1.005);
        latencies(&mut t.latency_us)
            .into_iter()
            .for_each(|v| *v /= 1.005);
        t.latency_us.min *= 0.99;
        t.latency_us.max *= 1.01;
    }));
    // Every figure moved on its own: a made-up result, judged as one.
    let seed = std::cell::Cell::new(7u64);
    let made_up = copy(&|t| {
        let next = || {
            seed.set(
                seed.get()
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1),
            );
            1.0 + 0.01 * ((seed.get() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        };
        t.mb_per_s *= next();
        for v in latencies(&mut t.latency_us) {
            *v *= next();
        }
    });
    assert!(!made_up);
}

/// The fifteenth attack pass: a deleted result sent again with every figure nudged by 0.2% at
/// most, each on its own, escaped every print. Its figures are nearly all within half a
/// percent of the buried one's; no honest run's are.
#[test]
fn a_copy_with_every_figure_nudged_is_near_and_no_run_is() {
    let docs = runs(40);
    let buried: Vec<String> = docs[..20].iter().map(near_figures).collect();
    for (n, doc) in docs[20..].iter().enumerate() {
        let mine = near_of(doc);
        assert!(
            !buried.iter().any(|b| near_copy(&mine, b)),
            "run {n} taken for a copy"
        );
    }
    let mut seed = 7u64;
    let mut nudge = |v: &mut f64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        *v *= 1.0 + 0.002 * ((seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0);
    };
    let mut copy = docs[4].clone();
    for t in &mut copy.tests {
        nudge(&mut t.mb_per_s);
        nudge(&mut t.iops);
        latencies(&mut t.latency_us)
            .into_iter()
            .for_each(&mut nudge);
    }
    assert!(near_copy(&near_of(&copy), &buried[4]));
    assert!(!near_copy(&near_of(&copy), &buried[5]));
}

/// The nineteenth attack pass kept a deleted result's rates within a thousandth and redrew its
/// latencies by 2%: its rates are the buried one's, and no honest run's are.
#[test]
fn a_copy_with_its_rates_kept_and_its_latencies_redrawn_is_near() {
    let docs = runs(40);
    let buried: Vec<String> = docs[..20].iter().map(near_figures).collect();
    let mut copy = docs[6].clone();
    for (n, t) in copy.tests.iter_mut().enumerate() {
        t.mb_per_s *= 1.0 + 0.0008 * if n % 2 == 0 { 1.0 } else { -1.0 };
        t.iops *= 1.0 - 0.0005;
        for (k, v) in latencies(&mut t.latency_us).into_iter().enumerate() {
            *v *= 1.0 + 0.02 * if k % 2 == 0 { 1.0 } else { -1.0 };
        }
    }
    assert!(near_copy(&near_of(&copy), &buried[6]));
    assert!(!near_copy(&near_of(&copy), &buried[7]));
    // With a test dropped, or a made-up one besides, too.
    copy.tests.pop();
    assert!(near_copy(&near_of(&copy), &buried[6]));
    let mut made_up = copy.tests[0].clone();
    made_up.name = "SEQ1M_Q2T1_read".into();
    made_up.mb_per_s *= 3.0;
    copy.tests.push(made_up);
    assert!(near_copy(&near_of(&copy), &buried[6]));
    for doc in &docs[20..] {
        assert!(!buried.iter().any(|b| near_copy(&near_of(doc), b)));
    }
}

/// Two honest runs of a slow stick: their 1 MiB reads come four or five to a tenth of a second,
/// and their timelines are the same samples run after run. No print of them is shared.
#[test]
fn a_timeline_of_a_few_blocks_a_sample_is_no_print() {
    let mut docs = runs(2);
    for doc in &mut docs {
        let t = doc
            .tests
            .iter_mut()
            .find(|t| t.block_size == 1 << 20)
            .unwrap();
        let mb = |blocks: f64| blocks * (1 << 20) as f64 / 0.1 / 1e6;
        t.timeline = [4.0, 4.0, 5.0, 4.0, 4.0, 5.0]
            .iter()
            .enumerate()
            .map(|(i, b)| iomark_result::result::TimelineSample {
                t: i as f64 / 10.0,
                mb_per_s: mb(*b),
                temp_c: None,
                extra: Default::default(),
            })
            .collect();
    }
    let first: std::collections::HashSet<String> = test_prints(&docs[0]).into_iter().collect();
    assert!(!test_prints(&docs[1]).iter().any(|p| first.contains(p)));
}
