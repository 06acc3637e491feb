//! The fio job file equivalent to a plan (`iomark run --print-fio`), so that anyone can
//! reproduce a figure with fio, and so that `bench/vs-fio` compares the two on identical terms.
//!
//! Correspondences: iomark's warm-up is fio's `ramp_time`; its loops, laid end to end, are one
//! fio stretch of `runtime` (fio reports the mean over it, iomark the median loop); io_uring
//! queue depth is fio's `iodepth`, and a test's threads (`T16`) are its `numjobs`, reported
//! together (`group_reporting`); psync queue depth is more `numjobs` with one I/O each; a
//! sequential test on several streams gives each its own stripe (`offset_increment`), as
//! iomark does.

use std::fmt::Write as _;
use std::path::Path;

use super::{Plan, TestSpec};
use crate::engine::{Data, Engine, Op, Pattern};

/// A directory a fio job file cannot name.
#[derive(Debug, thiserror::Error)]
#[error("--print-fio: {0}")]
pub struct FioPathError(String);

/// `path` as fio's `filename=` takes it: a `:` separates file names there, so it is escaped as
/// `\:`; a control character (a newline would end the line and start another option) or a
/// name that is not UTF-8 cannot be written at all.
fn fio_filename(path: &Path) -> Result<String, FioPathError> {
    let text = path.to_str().ok_or_else(|| {
        FioPathError(format!(
            "{} is not valid UTF-8, which a fio job file cannot hold",
            path.display()
        ))
    })?;
    if text.chars().any(char::is_control) {
        return Err(FioPathError(format!(
            "{text:?} holds a control character, which a fio job file cannot hold"
        )));
    }
    Ok(text.replace(':', "\\:"))
}

/// A fio job file for `plan` on `dir`, on fio's engine of the same name as iomark's `engine`
/// (io_uring, psync, null).
pub fn job_file(plan: &Plan, dir: &Path, engine: Engine) -> Result<String, FioPathError> {
    let filename = fio_filename(&dir.join("iomark-fio.test"))?;
    let fio_engine = engine.name();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; fio equivalent of `iomark run --profile {}` ({} {}), engine {fio_engine}",
        plan.profile.name(),
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        out,
        "; run: fio THIS_FILE --output-format=json; fio's bw_bytes / 10^6 is iomark's MB/s.\n\
         ; The last job removes the test file (unlink)."
    );
    let _ = writeln!(out, "\n[global]");
    let _ = writeln!(out, "ioengine={fio_engine}");
    let _ = writeln!(out, "direct={}", u8::from(plan.direct));
    let _ = writeln!(out, "filename={filename}");
    let _ = writeln!(out, "size={}", plan.file_size);
    let _ = writeln!(out, "time_based=1");
    let _ = writeln!(
        out,
        "runtime={}ms",
        (plan.duration * plan.loops).as_millis()
    );
    let _ = writeln!(out, "ramp_time={}ms", plan.warmup.as_millis());
    let _ = writeln!(out, "norandommap=1\nrandrepeat=0");
    if plan.data == Data::Zero {
        let _ = writeln!(out, "zero_buffers=1");
    }
    if !plan.direct {
        let _ = writeln!(out, "end_fsync=1\ninvalidate=1");
    }
    // iomark times each I/O from submission to completion: fio's `lat`, not its `clat`.
    let _ = writeln!(out, "lat_percentiles=1");
    if engine == Engine::IoUring {
        let _ = writeln!(
            out,
            "; iomark registers the file and its buffers with each ring where the kernel allows \
             it (fio: registerfiles=1, fixedbufs=1, which fio refuses to run without the memory \
             to lock), and sets its rings up with COOP_TASKRUN, SINGLE_ISSUER and DEFER_TASKRUN"
        );
    }
    let _ = writeln!(out, "thread=1\ngroup_reporting=1");
    for (index, spec) in plan.tests.iter().enumerate() {
        let last = index + 1 == plan.tests.len();
        job(&mut out, plan, spec, engine, last);
    }
    Ok(out)
}

fn job(out: &mut String, plan: &Plan, spec: &TestSpec, engine: Engine, last: bool) {
    let file_size = plan.file_size;
    let rw = match (spec.pattern, spec.op) {
        (Pattern::Sequential, Op::Read) => "read",
        (Pattern::Sequential, Op::Write) => "write",
        (Pattern::Random, Op::Read) => "randread",
        (Pattern::Random, Op::Write) => "randwrite",
    };
    let _ = writeln!(
        out,
        "\n[{}]\nstonewall\nrw={rw}\nbs={}",
        spec.name(),
        spec.block_size
    );
    // A stream per thread, each `iodepth` deep; psync's calls block, so a stream per I/O.
    let streams = if engine == Engine::Psync {
        spec.threads * spec.queue_depth
    } else {
        let _ = writeln!(out, "iodepth={}", spec.queue_depth);
        spec.threads
    };
    if streams > 1 {
        let _ = writeln!(out, "numjobs={streams}");
        if spec.pattern == Pattern::Sequential {
            let stripe = (file_size / u64::from(streams)) / spec.block_size * spec.block_size;
            let _ = writeln!(out, "size={stripe}\noffset_increment={stripe}");
        }
    }
    method(out, plan, spec, engine);
    // What the test does differently from the timed loops of [global]: once over its span
    // (stopping at its bound), a count of I/Os, through the page cache, a timed sync, zeros.
    if spec.whole_file {
        let bound = spec.bound.unwrap_or(plan.duration);
        let _ = writeln!(
            out,
            "time_based=0
runtime={}ms
ramp_time=0",
            bound.as_millis()
        );
        let span = spec.span_in(file_size);
        if span < file_size && streams == 1 {
            let _ = writeln!(out, "size={span}");
        }
    } else if let Some(count) = spec.ios {
        // Each stream does its share of the count (fio's `number_ios` is per job).
        let _ = writeln!(
            out,
            "time_based=0
number_ios={}
runtime=0",
            count.div_ceil(u64::from(streams))
        );
    }
    if spec.buffered && plan.direct {
        let _ = writeln!(out, "direct=0");
    }
    if spec.fsync {
        let _ = writeln!(out, "end_fsync=1");
    }
    if spec.data == Some(Data::Zero) && plan.data != Data::Zero {
        let _ = writeln!(out, "zero_buffers=1");
    }
    if last {
        let _ = writeln!(out, "unlink=1");
    }
}

/// The first line of a block of options that reproduce iomark's method where fio's defaults
/// differ; [`METHOD_END`] closes it. `bench/vs-fio` takes such blocks out to compare with fio's
/// own defaults.
pub const METHOD_START: &str = "; iomark's method";
pub const METHOD_END: &str = "; end of iomark's method";

/// How iomark waits for completions where fio by default does otherwise: in batches at a deep
/// queue (`core_loop::batch`), and with `--poll` polling at a queue depth of one (`uring::polls`).
fn method(out: &mut String, plan: &Plan, spec: &TestSpec, engine: Engine) {
    // A buffered test runs on psync (`Engine::for_buffered`), which waits as fio's psync does.
    if engine == Engine::Psync || spec.wait_each || spec.buffered {
        return;
    }
    let depth = spec.queue_depth as usize;
    let batch = crate::engine::core_loop::batch(depth);
    if batch > 1 {
        let _ = writeln!(
            out,
            "{METHOD_START}: completions reaped and replaced {batch} at a time\n\
             iodepth_batch_submit={batch}\niodepth_batch_complete_min={batch}\n{METHOD_END}"
        );
    } else if plan.poll
        && engine == Engine::IoUring
        && crate::engine::uring::polls(depth, spec.threads)
    {
        let _ = writeln!(
            out,
            "{METHOD_START}: the one I/O in flight polled for, not slept on (iomark sleeps \
             after {} µs)\niodepth_batch_complete_min=0\n{METHOD_END}",
            crate::engine::uring::POLL_NS / 1000
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::{Options, Profile};

    fn plan() -> Plan {
        Plan::new(Options::of(Profile::Standard), None).unwrap()
    }

    #[test]
    fn io_uring_jobs_match_the_plan() {
        let text = job_file(&plan(), Path::new("/mnt/disk"), Engine::IoUring).unwrap();
        assert!(text.contains(
            "ioengine=io_uring\ndirect=1\nfilename=/mnt/disk/iomark-fio.test\nsize=1073741824\n"
        ));
        assert!(text.contains("runtime=6000ms\nramp_time=1000ms\n"));
        assert!(text.contains("[SEQ1M_Q8T1_read]\nstonewall\nrw=read\nbs=1048576\niodepth=8\n"));
        assert!(
            text.contains("[RND4K_Q32T1_write]\nstonewall\nrw=randwrite\nbs=4096\niodepth=32\n")
        );
        assert_eq!(text.matches("stonewall").count(), 8);
        // iomark's method where fio's defaults differ, in blocks the bench can take out.
        assert!(text.contains(
            "[RND4K_Q32T1_read]\nstonewall\nrw=randread\nbs=4096\niodepth=32\n\
             ; iomark's method: completions reaped and replaced 8 at a time\n\
             iodepth_batch_submit=8\niodepth_batch_complete_min=8\n; end of iomark's method\n"
        ));
        let polled = text
            .split("\n[")
            .find(|j| j.starts_with("RND4K_Q1T1_read]"))
            .unwrap();
        // Polled only when asked (--poll), where this machine has a second CPU for the
        // device's side of the work.
        assert!(!polled.contains("iodepth_batch_complete_min=0"), "{polled}");
        let mut options = Options::of(Profile::Standard);
        options.poll = true;
        let poll = Plan::new(options, None).unwrap();
        let text_polled = job_file(&poll, Path::new("/mnt/disk"), Engine::IoUring).unwrap();
        let polled = text_polled
            .split("\n[")
            .find(|j| j.starts_with("RND4K_Q1T1_read]"))
            .unwrap();
        assert_eq!(
            polled.contains("iodepth_batch_complete_min=0"),
            crate::engine::uring::polls(1, 1),
            "{polled}"
        );
        assert!(!text
            .split("\n[")
            .find(|j| j.starts_with("SEQ1M_Q8T1_read]"))
            .unwrap()
            .contains(METHOD_START));
        assert!(text.trim_end().ends_with("unlink=1"));
    }

    #[test]
    fn a_whole_file_write_is_one_pass_not_a_timed_loop() {
        // The sdcard profile's sustained write covers the file once, bounded in time; its
        // random tests are timed loops (fio's `runtime` alone once made all three 6 s loops).
        let plan = Plan::new(Options::of(Profile::SdCard), None).unwrap();
        let text = job_file(&plan, Path::new("/card"), Engine::IoUring).unwrap();
        let sustained = text
            .split("\n[")
            .find(|j| j.starts_with("SEQ1M_Q8T1_write]"))
            .unwrap();
        let bound = iomark_profiles::sustained::TIME_BOUND.as_millis();
        assert!(
            sustained.contains(&format!("time_based=0\nruntime={bound}ms\nramp_time=0\n")),
            "{sustained}"
        );
        let random = text
            .split("\n[")
            .find(|j| j.starts_with("RND4K_Q1T1_read]"))
            .unwrap();
        assert!(!random.contains("time_based"), "{random}");
        // The pi profile's dd step: buffered zeros, synced at the end, once over its file.
        let pi = Plan::new(Options::of(Profile::Pi), None).unwrap();
        let text = job_file(&pi, Path::new("/pi"), Engine::IoUring).unwrap();
        let dd = text
            .split("\n[")
            .find(|j| j.starts_with("DD4K_Q1T1_write]"))
            .unwrap();
        for line in ["time_based=0", "direct=0", "end_fsync=1", "zero_buffers=1"] {
            assert!(dd.contains(line), "{line}: {dd}");
        }
        // Its steps wait as fio and iozone do, so the score compares with theirs.
        assert!(!text.contains(METHOD_START), "{text}");
        // Counted: the latency profile's reads are a number of I/Os.
        let latency = Plan::new(Options::of(Profile::Latency), None).unwrap();
        let text = job_file(&latency, Path::new("/l"), Engine::IoUring).unwrap();
        assert!(text.contains("number_ios=1000"), "{text}");
    }

    #[test]
    fn psync_depth_becomes_threads_with_stripes() {
        let text = job_file(&plan(), Path::new("/d"), Engine::Psync).unwrap();
        assert!(text.contains("[SEQ1M_Q8T1_read]\nstonewall\nrw=read\nbs=1048576\nnumjobs=8\nsize=134217728\noffset_increment=134217728\n"));
        assert!(text.contains("[RND4K_Q32T1_read]\nstonewall\nrw=randread\nbs=4096\nnumjobs=32\n"));
        assert!(!text.contains("iodepth"));
        assert!(
            !text.contains(METHOD_START),
            "psync waits as fio's psync does"
        );
    }

    #[test]
    fn threads_are_jobs_each_with_its_queue() {
        let nvme = Plan::new(Options::of(Profile::Nvme), None).unwrap();
        let text = job_file(&nvme, Path::new("/n"), Engine::IoUring).unwrap();
        assert!(text.contains(
            "[RND4K_Q32T16_read]\nstonewall\nrw=randread\nbs=4096\niodepth=32\nnumjobs=16\n"
        ));
        assert!(
            text.contains("[SEQ128K_Q32T1_write]\nstonewall\nrw=write\nbs=131072\niodepth=32\n")
        );
        assert!(text.contains("group_reporting=1"));
        // psync: a job per I/O in flight, 16 threads of 32; sequential ones striped.
        let psync = job_file(&nvme, Path::new("/n"), Engine::Psync).unwrap();
        assert!(
            psync.contains("[RND4K_Q32T16_read]\nstonewall\nrw=randread\nbs=4096\nnumjobs=512\n")
        );
        let mut options = Options::of(Profile::Standard);
        options.tests = vec!["SEQ1M_Q2T4_read".into()];
        let plan = Plan::new(options, None).unwrap();
        let text = job_file(&plan, Path::new("/n"), Engine::IoUring).unwrap();
        assert!(
            text.contains("iodepth=2\nnumjobs=4\nsize=268435456\noffset_increment=268435456\n"),
            "{text}"
        );
    }

    #[test]
    fn paths_are_escaped_for_fio_or_refused() {
        // Issue 11: `a:b` made fio write a stray file `a`; a newline started a bare option line.
        let text = job_file(&plan(), Path::new("/mnt/a:b"), Engine::IoUring).unwrap();
        assert!(
            text.contains("filename=/mnt/a\\:b/iomark-fio.test\n"),
            "{text}"
        );
        for bad in ["/mnt/a\nexec_prerun=touch /tmp/x", "/mnt/tab\there"] {
            let error = job_file(&plan(), Path::new(bad), Engine::IoUring).unwrap_err();
            assert!(error.to_string().contains("control character"), "{error}");
        }
    }
}
