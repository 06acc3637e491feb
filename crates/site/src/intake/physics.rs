//! A result's figures held to what storage physically does, beyond each number's own range
//! (`units.rs`): figures of one test that contradict each other, or a card said to have
//! written more than its flash can bear. Issue 59 ranked 150,000 IOPS at Q1 with a mean of
//! 500 µs, and a 32 GB card "written 330,840 TB".

use iomark_result::result::{ResultDoc, TestResult};

use super::rules::MAX_MB_PER_S;

/// How many I/Os in flight, at most, beyond its queue depth times threads, a test's figures
/// may imply (Little's law: I/Os in flight = IOPS × mean latency); timing around each I/O
/// and the loops' own ends keep the product a little off, never a factor of 1.5 off.
const IN_FLIGHT_SLACK: f64 = 1.5;
/// How many times over its capacity flash may be written in its life: the best SLC is rated
/// for 100,000 cycles; a card's TLC or QLC for a few thousand.
const LIFE_CYCLES: f64 = 100_000.0;

/// How few I/Os in flight a test's figures may imply: a test keeps at least one I/O going
/// most of the time (at queue depth 1 the engine's own work between I/Os takes a few percent
/// of it), so IOPS × mean latency far under one says the latency was written down, not timed.
const IN_FLIGHT_FLOOR: f64 = 0.2;
/// How far a loop's bytes, I/Os, seconds and rates may disagree (they are one count divided
/// by one clock reading).
const COUNTED: f64 = 0.02;
/// Whether the figures of `doc` are ones storage could give; if not, one line saying which.
pub fn check(doc: &ResultDoc) -> Result<(), String> {
    for t in &doc.tests {
        in_flight(t)?;
        within_its_time(t, doc.settings.warmup_s)?;
        its_own(t)?;
        counted(t)?;
        cpu(t, doc.host.cpu_cores)?;
        its_timeline(t)?;
    }
    capacity(doc)?;
    written(doc)
}

/// A loop's bytes, I/Os and seconds give its rates, and a test that did I/O timed it.
fn counted(t: &TestResult) -> Result<(), String> {
    // Off by more than `COUNTED` and more than `slack` (one I/O: counts are whole).
    let off =
        |a: f64, b: f64, slack: f64| (a - b).abs() > (COUNTED * a.abs().max(b.abs())).max(slack);
    let block = t.block_size as f64;
    for l in t.loops.iter().filter(|l| l.seconds > 0.0) {
        let (bytes, ios) = (l.bytes as f64, l.ios as f64);
        if off(bytes / l.seconds / 1e6, l.mb_per_s, block / l.seconds / 1e6)
            || off(ios, l.iops * l.seconds, 1.0)
            || off(ios * block, bytes, block)
        {
            return Err(format!(
                "test {}: a loop of {} bytes and {} I/Os of {} bytes in {} s is not {} MB/s and \
                 {} IOPS",
                t.name, l.bytes, l.ios, t.block_size, l.seconds, l.mb_per_s, l.iops
            ));
        }
    }
    let l = &t.latency_us;
    if t.iops > 0.0 && !(l.mean > 0.0 && l.max > 0.0) {
        return Err(format!(
            "test {}: {} IOPS whose I/Os took no time (mean latency {} µs)",
            t.name, t.iops, l.mean
        ));
    }
    Ok(())
}

/// The process's CPU time during a test is at most its length times the machine's cores.
fn cpu(t: &TestResult, cores: Option<u32>) -> Result<(), String> {
    let Some(cores) = cores.filter(|c| *c > 0) else {
        return Ok(());
    };
    let looped: f64 = t.loops.iter().map(|l| l.seconds).sum();
    let used = t.cpu.user_s + t.cpu.sys_s;
    if !t.loops.is_empty() && used > (looped + 1.0) * f64::from(cores) * 1.1 {
        return Err(format!(
            "test {}: {used:.1} s of CPU time in {looped:.1} s on {cores} cores",
            t.name
        ));
    }
    Ok(())
}

/// A test's timeline is its loops second by second: the bytes it draws are the loops' bytes.
fn its_timeline(t: &TestResult) -> Result<(), String> {
    let looped: f64 = t.loops.iter().map(|l| l.seconds).sum();
    let bytes: f64 = t.loops.iter().map(|l| l.bytes as f64).sum();
    if t.timeline.is_empty() || looped <= 0.0 || bytes <= 0.0 {
        return Ok(());
    }
    let ends = t.timeline.iter().skip(1).map(|s| s.t).chain([looped]);
    let drawn: f64 = t
        .timeline
        .iter()
        .zip(ends)
        .map(|(s, end)| s.mb_per_s * 1e6 * (end - s.t).max(0.0))
        .sum();
    let ratio = drawn / bytes;
    if !(0.5..=2.0).contains(&ratio) {
        return Err(format!(
            "test {}: its timeline draws {:.0} MB where its loops moved {:.0} MB",
            t.name,
            drawn / 1e6,
            bytes / 1e6
        ));
    }
    Ok(())
}

/// A device holds whole sectors of 512 bytes (the unit the kernel counts a disk's size in;
/// the fourth attack pass ranked a disk of 1,000,204,886,017 bytes); the test file fits on its
/// device, and so does the free space, where nothing (LVM, md) joins the device to others.
fn capacity(doc: &ResultDoc) -> Result<(), String> {
    let Some(device) = doc.target.device.as_ref() else {
        return Ok(());
    };
    let Some(size) = device.size_bytes.filter(|s| *s > 0) else {
        return Ok(());
    };
    if size % 512 != 0 {
        return Err(format!(
            "a device of {size} bytes, which is no whole number of 512-byte sectors"
        ));
    }
    if !device.stack.is_empty() {
        return Ok(());
    }
    let file = doc.settings.file_size_bytes;
    let free = doc.target.free_bytes.unwrap_or(0);
    if file > size || free > size {
        return Err(format!(
            "a test file of {} MB and {} MB free on a device of {} MB",
            file / 1_000_000,
            free / 1_000_000,
            size / 1_000_000
        ));
    }
    Ok(())
}

/// Little's law: IOPS × mean latency is the I/Os in flight, at most its queue depth × threads.
fn in_flight(t: &TestResult) -> Result<(), String> {
    let mean_s = t.latency_us.mean / 1e6;
    let slots = f64::from(t.queue_depth.max(1)) * f64::from(t.threads.max(1));
    let flying = t.iops * mean_s;
    if mean_s > 0.0 && t.iops > 0.0 && flying < IN_FLIGHT_FLOOR {
        return Err(format!(
            "test {}: {:.0} IOPS with a mean latency of {} µs keep {flying:.2} I/Os in flight: \
             a test keeps about one going at least, so the figures contradict each other",
            t.name, t.iops, t.latency_us.mean
        ));
    }
    if mean_s > 0.0 && flying > slots * IN_FLIGHT_SLACK + 1.0 {
        return Err(format!(
            "test {}: {:.0} IOPS with a mean latency of {:.0} µs keep {:.0} I/Os in flight, \
             but its queue depth and threads hold at most {slots:.0}: the figures contradict \
             each other",
            t.name, t.iops, t.latency_us.mean, flying
        ));
    }
    Ok(())
}

/// A test's figure is one of its loops' (the median loop), and its latencies are in order:
/// min, then the percentiles and the mean, then max (a histogram's percentile may pass max by
/// its 0.1 % precision). Issue 59's attack pass ranked a test of 590 MB/s whose one loop said
/// 100, and latencies whose min was 20 times their max.
fn its_own(t: &TestResult) -> Result<(), String> {
    let rates = t.loops.iter().map(|l| l.mb_per_s);
    let (low, high) = rates.fold((f64::MAX, 0.0_f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
    if !t.loops.is_empty() && !(low * 0.999 - 1e-9..=high * 1.001 + 1e-9).contains(&t.mb_per_s) {
        return Err(format!(
            "test {}: {} MB/s is none of its loops' ({low} to {high} MB/s)",
            t.name, t.mb_per_s
        ));
    }
    let l = &t.latency_us;
    let (floor, ceiling) = (l.min * 0.99, l.max * 1.01 + 1e-9);
    let inside = [l.mean, l.p50, l.p90, l.p99, l.p99_9]
        .iter()
        .all(|v| (floor..=ceiling).contains(v));
    // A percentile is no less than the one below it (the ninth attack pass ranked p50 > p90 >
    // p99): 1% of rounding aside.
    let climbing = [l.p50, l.p90, l.p99, l.p99_9, l.max]
        .windows(2)
        .all(|w| w[0] <= w[1] * 1.01 + 1e-9);
    if l.max > 0.0 && (l.min > l.max || !inside || !climbing) {
        return Err(format!(
            "test {}: its latencies are out of order (min {} µs, mean {}, p50 {}, p90 {}, p99 \
             {}, p99.9 {}, max {})",
            t.name, l.min, l.mean, l.p50, l.p90, l.p99, l.p99_9, l.max
        ));
    }
    // Half the I/Os take p50 or longer, none less than nothing: the mean is at least half the
    // median. No spread is wider than half the range (Popoviciu), and a range is a spread.
    let range = l.max - l.min;
    let spread =
        (l.stddev <= range / 2.0 * 1.01 + 1e-9) && !(l.stddev == 0.0 && range > 1e-9 * l.max);
    if l.max > 0.0 && (l.mean < l.p50 / 2.0 * 0.99 || !spread) {
        return Err(format!(
            "test {}: latencies no I/Os give (mean {} µs, p50 {}, min {}, max {}, \
             standard deviation {})",
            t.name, l.mean, l.p50, l.min, l.max, l.stddev
        ));
    }
    // One loop has no spread; n loops at most √n times their mean.
    let most_cv = (t.loops.len() as f64).sqrt();
    if t.cv > most_cv + 1e-9 || (t.loops.len() < 2 && t.cv > 1e-9) {
        return Err(format!(
            "test {}: a variation of {} over {} loops",
            t.name,
            t.cv,
            t.loops.len()
        ));
    }
    Ok(())
}

/// No I/O of a test takes longer than the test ran: its loops, its warm-up and a second.
fn within_its_time(t: &TestResult, warmup_s: f64) -> Result<(), String> {
    let looped: f64 = t.loops.iter().map(|l| l.seconds).sum();
    let sampled = t.timeline.last().map_or(0.0, |s| s.t);
    let ran_us = (looped.max(sampled) + warmup_s + 1.0) * 1e6;
    let l = &t.latency_us;
    let longest = [l.min, l.mean, l.p50, l.p90, l.p99, l.p99_9, l.max]
        .into_iter()
        .fold(0.0_f64, f64::max);
    if t.loops.is_empty() || longest <= ran_us {
        return Ok(());
    }
    Err(format!(
        "test {}: an I/O of {:.0} µs, longer than the whole test ran ({:.0} s)",
        t.name,
        longest,
        ran_us / 1e6
    ))
}

/// What a device is said to have written, against its capacity (flash bears so many cycles)
/// and its age (no interface writes faster).
fn written(doc: &ResultDoc) -> Result<(), String> {
    let capacity = doc.target.device.as_ref().and_then(|d| d.size_bytes);
    let Some(health) = &doc.health else {
        return Ok(());
    };
    let report = health.device_report.as_ref();
    let hours = report.and_then(|r| r.power_on_hours);
    let said = [
        health.device_written_bytes,
        report.and_then(|r| r.written_bytes),
    ];
    for bytes in said.into_iter().flatten() {
        let bytes = bytes as f64;
        if let Some(capacity) = capacity.filter(|c| *c > 0) {
            if bytes > capacity as f64 * LIFE_CYCLES {
                return Err(format!(
                    "health: {:.0} TB written to a device of {:.0} GB is over {LIFE_CYCLES:.0} \
                     times its capacity, more than any flash bears",
                    bytes / 1e12,
                    capacity as f64 / 1e9
                ));
            }
        }
        if let Some(hours) = hours {
            let most = (hours as f64 + 1.0) * 3600.0 * MAX_MB_PER_S * 1e6;
            if bytes > most {
                return Err(format!(
                    "health: {:.0} TB written in {hours} hours powered on is faster than any \
                     interface writes",
                    bytes / 1e12
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn figures_that_contradict_each_other_are_named() {
        // 150,000 IOPS at Q1 with a mean of 500 µs: 75 I/Os in flight at queue depth 1.
        let mut doc = sample::doc();
        let t = doc.tests.iter_mut().find(|t| t.queue_depth == 1).unwrap();
        t.iops = 150_000.0;
        t.latency_us.mean = 500.0;
        let e = check(&doc).unwrap_err();
        assert!(e.contains("75 I/Os in flight"), "{e}");
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
}
