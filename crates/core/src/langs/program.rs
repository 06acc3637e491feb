//! Running one program and believing nothing it says without checking: every line must parse,
//! come in order, name the right language and variant, and carry the expected byte count; after
//! each write the harness reads the file itself and every byte must be where it belongs (the
//! program's timed loop holds the calls and nothing more); each read's checksum must be right.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde::Deserialize;

use super::expected_checksum;
use iomark_result::result::langs::OpFigures;

/// What the program is asked to do.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub bytes: u64,
    pub reps: u32,
    /// Sync the file and drop it from the page cache between each write and its read.
    pub cold: bool,
    /// Pin the program (and only it) to this CPU.
    pub cpu: Option<usize>,
}

/// One line of the program's output (docs/ARCHITECTURE.md, "Contracts").
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Line {
    pub lang: String,
    pub variant: String,
    pub rep: u32,
    pub op: String,
    pub bytes: u64,
    pub ns: u64,
    pub checksum: u64,
}

/// Runs `command --file FILE --bytes N --reps R --variant V --wait` and checks every line.
/// `progress` hears of each checked line. Returns the lines, in order.
///
/// With `--wait`, a program waits for a line on its stdin after each write (outside its timed
/// sections). The harness checks the file in that pause, and evicts it for `cold`: without
/// the pause, a program could already be truncating the file for its next repetition while
/// the harness looked at it.
pub fn run(
    command: &[String],
    lang: &str,
    variant: &str,
    file: &Path,
    spec: Spec,
    progress: impl FnMut(&Line),
) -> Result<Vec<Line>, ProgramError> {
    run_checked(command, lang, variant, file, spec, progress).map_err(ProgramError)
}

/// Why a program's run is not taken: it could not start, failed, or said something wrong.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ProgramError(pub String);

fn run_checked(
    command: &[String],
    lang: &str,
    variant: &str,
    file: &Path,
    spec: Spec,
    mut progress: impl FnMut(&Line),
) -> Result<Vec<Line>, String> {
    let mut child = spawn(command, variant, file, spec)?;
    crate::interrupt::track_child(child.id());
    // Stderr is read on the side, so that a chatty program never blocks on a full pipe.
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut stdin = child.stdin.take();
    let checked = (|| -> Result<Vec<Line>, String> {
        let mut lines = Vec::new();
        for text in stdout.lines() {
            let text = text.map_err(|e| format!("cannot read its output: {e}"))?;
            if text.trim().is_empty() {
                continue;
            }
            let index = lines.len() as u32;
            let line = check(&text, lang, variant, spec, index)?;
            if line.op == "write" {
                check_written(file, variant, spec, line.rep)?;
                if spec.cold {
                    evict(file).map_err(|e| format!("cannot drop the file from the cache: {e}"))?;
                }
                // A program that has already exited no longer listens; what it left out shows
                // in the lines and the exit status checked below.
                if let Some(input) = stdin.as_mut() {
                    let _ = input.write_all(b"\n").and_then(|()| input.flush());
                }
                // After the last write nothing more is said: closing stdin lets a runtime that
                // watches it (Node) exit when the program is done.
                if line.rep == spec.reps {
                    stdin = None;
                }
            }
            progress(&line);
            lines.push(line);
        }
        Ok(lines)
    })();
    if checked.is_err() {
        let _ = child.kill();
    }
    drop(stdin);
    let status = child.wait();
    crate::interrupt::untrack_child(child.id());
    let errors = errors.join().unwrap_or_default();
    let last_error = errors
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!(" ({})", l.trim()))
        .unwrap_or_default();
    let lines = checked?;
    let status = status.map_err(|e| format!("lost the program: {e}"))?;
    if !status.success() {
        return Err(format!("the program failed: {status}{last_error}"));
    }
    let expected = 2 * spec.reps as usize;
    if lines.len() != expected {
        return Err(format!(
            "the program gave {} of {expected} results{last_error}",
            lines.len()
        ));
    }
    Ok(lines)
}

/// Starts the program with its arguments and pipes, pinned to `spec.cpu` if asked.
fn spawn(command: &[String], variant: &str, file: &Path, spec: Spec) -> Result<Child, String> {
    let mut program = Command::new(&command[0]);
    if let Some(cpu) = spec.cpu {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only async-signal-safe calls: sched_setaffinity on the
        // child itself, with a set built on the stack.
        unsafe {
            program.pre_exec(move || {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    program
        .args(&command[1..])
        .arg("--file")
        .arg(file)
        .args(["--bytes", &spec.bytes.to_string()])
        .args(["--reps", &spec.reps.to_string()])
        .args(["--variant", variant])
        .arg("--wait")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", command[0]))
}

/// What a write left: every byte where it belongs, or for 2019's programs the size they wrote.
fn check_written(file: &Path, variant: &str, spec: Spec, rep: u32) -> Result<(), String> {
    let on_disk = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    if variant == super::VARIANT_2019 {
        // 2019's programs wrote from byte 1, Python's one byte short and Go's without its last
        // buffer (no Flush): they are run as they were, so only the size is held to what they
        // wrote.
        if on_disk > spec.bytes || on_disk + 8192 < spec.bytes {
            return Err(format!(
                "rep {rep}: the file holds {on_disk} bytes after the write, not about {}",
                spec.bytes
            ));
        }
        Ok(())
    } else if on_disk != spec.bytes {
        Err(format!(
            "rep {rep}: the file holds {on_disk} bytes after the write, not {}",
            spec.bytes
        ))
    } else {
        check_content(file).map_err(|e| format!("rep {rep}: after the write, {e}"))
    }
}

/// Checks the `index`-th line (0-based): rep `index / 2 + 1`, write then read.
pub fn check(
    text: &str,
    lang: &str,
    variant: &str,
    spec: Spec,
    index: u32,
) -> Result<Line, String> {
    let line: Line = serde_json::from_str(text).map_err(|e| {
        format!(
            "output line {} is not a result ({e}): {text:.80}",
            index + 1
        )
    })?;
    let rep = index / 2 + 1;
    let op = if index.is_multiple_of(2) {
        "write"
    } else {
        "read"
    };
    if line.lang != lang || line.variant != variant {
        return Err(format!(
            "output line {} is from {}/{}, not {lang}/{variant}",
            index + 1,
            line.lang,
            line.variant
        ));
    }
    if line.rep != rep || line.op != op {
        return Err(format!(
            "output line {} is rep {} {}, expected rep {rep} {op}",
            index + 1,
            line.rep,
            line.op
        ));
    }
    if line.bytes != spec.bytes {
        return Err(format!(
            "rep {rep}: {} {} bytes, not {}",
            if op == "write" { "wrote" } else { "read" },
            line.bytes,
            spec.bytes
        ));
    }
    // A write's bytes are checked in the file itself (`check_content`); a read's by its sum.
    let want = expected_checksum(spec.bytes);
    if op == "read" && variant != super::VARIANT_2019 && line.checksum != want {
        return Err(format!(
            "rep {rep} {op}: checksum {}, expected {want}: the bytes are wrong",
            line.checksum
        ));
    }
    if line.ns == 0 {
        return Err(format!("rep {rep} {op}: a time of 0 ns"));
    }
    Ok(line)
}

/// Write and read figures from checked lines: the first rep is dropped when there are several
/// (it warms up JIT runtimes), the rest are taken together.
pub fn figures(lines: &[Line], spec: Spec) -> (OpFigures, OpFigures) {
    let op = |name: &str| {
        let counted: Vec<&Line> = lines
            .iter()
            .filter(|l| l.op == name && (spec.reps == 1 || l.rep > 1))
            .collect();
        let ns: u64 = counted.iter().map(|l| l.ns).sum();
        let bytes = spec.bytes * counted.len() as u64;
        let rates: Vec<f64> = counted
            .iter()
            .map(|l| l.bytes as f64 * 1e3 / l.ns as f64)
            .collect();
        let seconds = ns as f64 / 1e9;
        OpFigures {
            extra: Default::default(),
            mb_per_s: bytes as f64 / 1e6 / seconds,
            mib_per_s: bytes as f64 / (1u64 << 20) as f64 / seconds,
            ns_per_byte: ns as f64 / bytes.max(1) as f64,
            reps: counted.len() as u32,
            min_mb_per_s: rates.iter().copied().fold(f64::INFINITY, f64::min),
            max_mb_per_s: rates.iter().copied().fold(0.0, f64::max),
            cv: iomark_result::stats::coefficient_of_variation(&rates),
        }
    };
    (op("write"), op("read"))
}

/// Reads the file (from the page cache, where the write left it) and checks that byte k is
/// k mod 256 throughout.
pub fn check_content(file: &Path) -> Result<(), String> {
    const CHUNK: usize = 1 << 20;
    let expected: Vec<u8> = (0..CHUNK).map(|k| k as u8).collect();
    let mut f = std::fs::File::open(file).map_err(|e| format!("cannot read the file: {e}"))?;
    let mut buf = vec![0u8; CHUNK];
    let mut at = 0u64;
    loop {
        let got = read_full(&mut f, &mut buf).map_err(|e| format!("cannot read the file: {e}"))?;
        if got == 0 {
            return Ok(());
        }
        if buf[..got] != expected[..got] {
            let k = (0..got).find(|&k| buf[k] != expected[k]).unwrap_or(0);
            return Err(format!(
                "byte {} of the file is {}, expected {}",
                at + k as u64,
                buf[k],
                expected[k]
            ));
        }
        at += got as u64;
    }
}

fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// Pushes the file to the device and drops it from the page cache (and, as root, every clean
/// page), so that the next read comes from the device.
fn evict(file: &Path) -> std::io::Result<()> {
    let f = std::fs::File::open(file)?;
    f.sync_all()?;
    // SAFETY: plain syscall on an fd we own.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if unsafe { libc::geteuid() } == 0 {
        let _ = std::fs::write("/proc/sys/vm/drop_caches", "1");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        bytes: 1000,
        reps: 2,
        cold: false,
        cpu: None,
    };

    fn text(rep: u32, op: &str, bytes: u64, checksum: u64) -> String {
        format!(
            r#"{{"lang":"c","variant":"default","rep":{rep},"op":"{op}","bytes":{bytes},"ns":1000,"checksum":{checksum}}}"#
        )
    }

    #[test]
    fn lines_are_checked_for_order_size_and_checksum() {
        let good = expected_checksum(1000);
        assert!(check(&text(1, "write", 1000, good), "c", "default", SPEC, 0).is_ok());
        assert!(check(&text(1, "read", 1000, good), "c", "default", SPEC, 1).is_ok());
        let e = check(&text(1, "read", 1000, good), "c", "default", SPEC, 0).unwrap_err();
        assert!(e.contains("expected rep 1 write"), "{e}");
        // A write's checksum is not the program's to give: the harness reads the file.
        assert!(check(&text(1, "write", 1000, 0), "c", "default", SPEC, 0).is_ok());
        let e = check(&text(1, "read", 1000, good + 1), "c", "default", SPEC, 1).unwrap_err();
        assert!(e.contains("checksum"), "{e}");
        let e = check(&text(1, "write", 999, good), "c", "default", SPEC, 0).unwrap_err();
        assert!(e.contains("wrote 999 bytes, not 1000"), "{e}");
        let e = check(&text(1, "write", 1000, good), "go", "default", SPEC, 0).unwrap_err();
        assert!(e.contains("not go/default"), "{e}");
        let e = check("{\"lang\": \"c\"", "c", "default", SPEC, 0).unwrap_err();
        assert!(e.contains("not a result"), "{e}");
    }

    #[test]
    fn a_written_file_is_checked_byte_by_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut data: Vec<u8> = (0..3_000_000u32).map(|k| k as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert_eq!(check_content(&path), Ok(()));
        data[2_000_123] ^= 0x10;
        std::fs::write(&path, &data).unwrap();
        let e = check_content(&path).unwrap_err();
        assert!(e.starts_with("byte 2000123 of the file is"), "{e}");
    }

    #[test]
    fn the_first_rep_is_dropped_and_the_rest_pooled() {
        let line = |rep, op: &str, ns| Line {
            lang: "c".into(),
            variant: "default".into(),
            rep,
            op: op.into(),
            bytes: 1_000_000,
            ns,
            checksum: 0,
        };
        let spec = Spec {
            bytes: 1_000_000,
            reps: 3,
            cold: false,
            cpu: None,
        };
        // Rep 1 is slow (warming up); reps 2 and 3 take 1 ms and 3 ms: 2 MB in 4 ms = 500 MB/s.
        let lines = [
            line(1, "write", 50_000_000),
            line(1, "read", 1),
            line(2, "write", 1_000_000),
            line(2, "read", 1_000_000),
            line(3, "write", 3_000_000),
            line(3, "read", 1_000_000),
        ];
        let (write, read) = figures(&lines, spec);
        assert_eq!(write.reps, 2);
        assert!((write.mb_per_s - 500.0).abs() < 1e-9, "{}", write.mb_per_s);
        assert!((write.ns_per_byte - 2.0).abs() < 1e-12);
        assert!(
            (write.min_mb_per_s - 333.333).abs() < 0.01
                && (write.max_mb_per_s - 1000.0).abs() < 1e-9
        );
        assert!((read.mb_per_s - 1000.0).abs() < 1e-9);
        assert!((read.mib_per_s - 1000.0 * 1e6 / 1048576.0).abs() < 1e-6);
        assert_eq!(read.cv, 0.0);
    }
}
