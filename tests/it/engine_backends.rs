//! The backends against real files: what they write is really on disk, what they read is really
//! read, and io_uring and psync agree on the same file.

use std::os::unix::fs::FileExt;
use std::time::Duration;

use iomark::engine::{self, Data, Engine, Job, Limit, Op, Pattern, TestFile};
use iomark::progress::Live;

const BLOCK: u64 = 64 * 1024;
const FILE: u64 = 4 << 20;

fn job(op: Op, pattern: Pattern, queue_depth: u32, limit: Limit) -> Job {
    Job {
        op,
        pattern,
        block_size: BLOCK,
        queue_depth,
        threads: 1,
        data: Data::Random,
        limit,
        sync_at_end: false,
        span: None,
        wait_each: false,
        poll: false,
    }
}

fn backends() -> Vec<Engine> {
    let mut list = vec![Engine::Psync];
    if engine::uring::available().is_ok() {
        list.push(Engine::IoUring);
    } else {
        // Counted as skipped: the io_uring half of each test that runs both.
        crate::common::skip("io_uring is not available here; psync only");
    }
    list
}

/// Reads the file through an independent descriptor and checks that every 4 KiB block holds
/// written (non-zero, varied) data.
fn assert_fully_written(file: &TestFile) {
    let reader = std::fs::File::open(file.path()).unwrap();
    let mut buf = vec![0u8; BLOCK as usize];
    let mut offset = 0;
    while offset < file.size() {
        reader.read_exact_at(&mut buf, offset).unwrap();
        for (i, chunk) in buf.chunks(4096).enumerate() {
            let zeros = chunk.iter().filter(|&&b| b == 0).count();
            assert!(
                zeros < 256,
                "block at {} looks unwritten ({zeros} zero bytes)",
                offset + i as u64 * 4096
            );
        }
        offset += BLOCK;
    }
}

#[test]
fn sequential_write_covers_the_file_exactly_once() {
    for backend in backends() {
        // 32: completions reaped 8 at a time; 1: polled for.
        for depth in [1u32, 4, 32] {
            let dir = tempfile::tempdir().unwrap();
            let file = TestFile::create(dir.path(), FILE, true).unwrap();
            let live = Live::default();
            // psync with several threads stripes the file; one stream covers it in order.
            let depth = if backend.name() == "psync" { 1 } else { depth };
            let ios = FILE / BLOCK;
            let m = backend
                .run(
                    &file,
                    &Job {
                        poll: depth == 1,
                        ..job(Op::Write, Pattern::Sequential, depth, Limit::ios(ios))
                    },
                    &live,
                )
                .unwrap();
            assert_eq!(m.ios, ios, "{}", backend.name());
            assert_eq!(m.bytes, FILE);
            assert_eq!(live.bytes(), FILE);
            assert_eq!(m.latency.len(), ios);
            assert_eq!(m.timeline.iter().sum::<u64>(), FILE);
            assert_fully_written(&file);
        }
    }
}

#[test]
fn threads_each_write_their_own_stripe_once() {
    // 4 threads of queue depth 2 (psync: 8 streams) over a file of 63 blocks, which divides
    // evenly among neither: each stream's share of the count walks its own stripe, so every
    // block is written exactly once and none twice.
    for backend in backends() {
        let dir = tempfile::tempdir().unwrap();
        let size = 63 * BLOCK;
        let file = TestFile::create(dir.path(), size, true).unwrap();
        let live = Live::default();
        let threaded = Job {
            threads: 4,
            ..job(Op::Write, Pattern::Sequential, 2, Limit::ios(63))
        };
        let m = backend.run(&file, &threaded, &live).unwrap();
        assert_eq!(m.ios, 63, "{}", backend.name());
        assert_eq!(m.latency.len(), 63);
        assert_eq!(m.timeline.iter().sum::<u64>(), size);
        assert_fully_written(&file);
        // Timed, random: every thread's I/Os and latencies are in the one measurement.
        let timed = Job {
            threads: 3,
            ..job(
                Op::Read,
                Pattern::Random,
                4,
                Limit::time(Duration::from_millis(200)),
            )
        };
        let m = backend.run(&file, &timed, &live).unwrap();
        assert!(m.ios > 0);
        assert_eq!(m.latency.len(), m.ios);
        assert_eq!(m.bytes, m.ios * BLOCK);
        assert_eq!(m.timeline.iter().sum::<u64>(), m.bytes);
    }
}

#[test]
fn timed_random_reads_and_writes_at_depth() {
    for backend in backends() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), FILE, true).unwrap();
        let live = Live::default();
        backend
            .run(
                &file,
                &job(Op::Write, Pattern::Sequential, 1, Limit::ios(FILE / BLOCK)),
                &live,
            )
            .unwrap();
        for op in [Op::Read, Op::Write] {
            let m = backend
                .run(
                    &file,
                    &job(
                        op,
                        Pattern::Random,
                        8,
                        Limit::time(Duration::from_millis(200)),
                    ),
                    &live,
                )
                .unwrap();
            assert!(m.ios > 0);
            assert_eq!(m.bytes, m.ios * BLOCK);
            assert!(m.elapsed >= Duration::from_millis(200), "{:?}", m.elapsed);
            assert!(m.elapsed < Duration::from_secs(5), "{:?}", m.elapsed);
        }
        assert_fully_written(&file);
    }
}

#[test]
fn io_uring_and_psync_agree_on_the_same_file() {
    if engine::uring::available().is_err() {
        eprintln!("io_uring is not available here; nothing to compare");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = TestFile::create(dir.path(), FILE, true).unwrap();
    let live = Live::default();
    Engine::Psync
        .run(
            &file,
            &job(Op::Write, Pattern::Sequential, 1, Limit::ios(FILE / BLOCK)),
            &live,
        )
        .unwrap();
    let count = 2000;
    let read = job(Op::Read, Pattern::Random, 1, Limit::ios(count));
    let mut rates = Vec::new();
    for backend in backends() {
        let m = backend.run(&file, &read, &live).unwrap();
        assert_eq!(m.ios, count, "{}", backend.name());
        assert_eq!(m.bytes, count * BLOCK);
        rates.push(m.ios as f64 / m.elapsed.as_secs_f64());
    }
    // The same device, the same queue depth: the two must be of one order. (The bench
    // compares them closely; a test on a shared machine can only catch gross disagreement.)
    let ratio = rates[0] / rates[1];
    assert!(
        (0.2..5.0).contains(&ratio),
        "psync/io_uring IOPS ratio {ratio:.2}: {rates:?}"
    );
}

#[test]
fn null_backend_does_no_io() {
    let dir = tempfile::tempdir().unwrap();
    let file = TestFile::create(dir.path(), FILE, true).unwrap();
    let m = Engine::Null
        .run(
            &file,
            &job(Op::Write, Pattern::Random, 32, Limit::ios(100_000)),
            &Live::default(),
        )
        .unwrap();
    assert_eq!(m.ios, 100_000);
    let reader = std::fs::File::open(file.path()).unwrap();
    let mut buf = vec![1u8; BLOCK as usize];
    reader.read_exact_at(&mut buf, BLOCK).unwrap();
    assert!(
        buf.iter().all(|&b| b == 0),
        "the null backend wrote to the file"
    );
}

#[test]
fn short_transfer_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let file = TestFile::create(dir.path(), FILE, true).unwrap();
    let bad = Job {
        block_size: BLOCK,
        ..job(Op::Read, Pattern::Sequential, 1, Limit::ios(1))
    };
    // Reading a truncated file gives a short transfer, which must come back as an error.
    file.file().set_len(BLOCK / 2).unwrap();
    let error = Engine::Psync
        .run(&file, &bad, &Live::default())
        .unwrap_err();
    assert!(error.to_string().contains("short transfer"), "{error}");
}

#[test]
fn a_count_bounded_in_time_stops_at_whichever_comes_first() {
    for backend in backends() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), FILE, true).unwrap();
        let live = Live::default();
        // Far more I/Os than 150 ms allows: the time ends it.
        let timed = Limit::ios_within(u64::MAX / 2, Duration::from_millis(150));
        let m = backend
            .run(&file, &job(Op::Write, Pattern::Sequential, 4, timed), &live)
            .unwrap();
        assert!(
            m.elapsed >= Duration::from_millis(150) && m.elapsed < Duration::from_secs(5),
            "{}: {:?}",
            backend.name(),
            m.elapsed
        );
        // Few I/Os and a long time: the count ends it, exactly.
        let counted = Limit::ios_within(10, Duration::from_secs(60));
        let m = backend
            .run(&file, &job(Op::Read, Pattern::Random, 4, counted), &live)
            .unwrap();
        assert_eq!(m.ios, 10, "{}", backend.name());
    }
}

/// The clock starts once every stream has its buffers full of fresh data: filling 16 MiB with
/// random bytes takes longer than a short loop (the sweep's SEQ16M write once did no I/O at all
/// in 200 ms on a busy machine), and it is not the device's time.
#[test]
fn filling_the_buffers_is_not_timed() {
    let mut runs = vec![(Engine::Null, 8u32)];
    runs.extend(backends().into_iter().map(|backend| (backend, 2)));
    for (backend, depth) in runs {
        let block = 16u64 << 20;
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), block * 2, true).unwrap();
        let big = Job {
            block_size: block,
            ..job(
                Op::Write,
                Pattern::Sequential,
                depth,
                Limit::time(Duration::from_millis(1)),
            )
        };
        let m = backend.run(&file, &big, &Live::default()).unwrap();
        // Every stream issues its first wave whatever the time (a stream preempted past the
        // millisecond on a busy machine once did none); psync's streams are one I/O each.
        let first_wave = if backend == Engine::Null { depth } else { 1 };
        assert!(
            m.ios >= u64::from(first_wave),
            "{}: {} I/Os, not the first wave of {first_wave}",
            backend.name(),
            m.ios
        );
        assert_eq!(m.timeline.iter().sum::<u64>(), m.bytes);
    }
}
