//! iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through std's buffered
//! streams, close, read them back one byte per call. One JSON line per rep and op. The timed
//! loops hold the calls and nothing more (the read folds each byte into one sum); the harness
//! checks the file after each write and the sum after each read.
//! Variants:
//!   default  BufWriter::write_all(&[b]) / BufReader::read_exact into a 1-byte buffer (8 KiB)
//!   bytes    the same writes; reads through the Read::bytes() iterator
//!   bigbuf   the default calls with 1 MiB buffers
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Read, Seek, Write};
use std::time::Instant;

fn fail(e: std::io::Error) -> ! {
    eprintln!("{e}");
    std::process::exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    let file = value("--file").cloned().unwrap_or_default();
    let n: u64 = value("--bytes").and_then(|v| v.parse().ok()).unwrap_or(0);
    let reps: u32 = value("--reps").and_then(|v| v.parse().ok()).unwrap_or(1);
    let variant = value("--variant").cloned().unwrap_or_else(|| "default".into());
    let wait = args.iter().any(|a| a == "--wait");
    let size = match variant.as_str() {
        "default" | "bytes" => 8 * 1024,
        "bigbuf" => 1 << 20,
        _ => {
            eprintln!("usage: --variant default|bytes|bigbuf");
            std::process::exit(2)
        }
    };
    if file.is_empty() {
        eprintln!("usage: --file PATH --bytes N --reps R --variant NAME");
        std::process::exit(2)
    }
    let print = |rep: u32, op: &str, bytes: u64, ns: u128, sum: u64| {
        println!(
            "{{\"lang\":\"rust\",\"variant\":\"{variant}\",\"rep\":{rep},\"op\":\"{op}\",\"bytes\":{bytes},\"ns\":{ns},\"checksum\":{sum}}}"
        );
    };
    for rep in 1..=reps {
        // Timed: create, one call per byte (its Result checked: `?`-style handling is the
        // idiom), flush and close. The harness reads the file back itself to check it.
        let t0 = Instant::now();
        let mut out = BufWriter::with_capacity(size, File::create(&file).unwrap_or_else(|e| fail(e)));
        for i in 0..n {
            out.write_all(&[i as u8]).unwrap_or_else(|e| fail(e));
        }
        let file_handle = out.into_inner().map_err(|e| e.into_error()).unwrap_or_else(|e| fail(e));
        drop(file_handle);
        print(rep, "write", n, t0.elapsed().as_nanos(), 0);
        if wait {
            let mut line = String::new();
            let _ = std::io::stdin().lock().read_line(&mut line);
        }
        // Timed: open, one call per byte folded into one sum (the harness checks it), close.
        let mut sum = 0u64;
        let t0 = Instant::now();
        let mut input = BufReader::with_capacity(size, File::open(&file).unwrap_or_else(|e| fail(e)));
        if variant == "bytes" {
            for b in input.by_ref().bytes() {
                sum += u64::from(b.unwrap_or_else(|e| fail(e)));
            }
        } else {
            let mut one = [0u8; 1];
            loop {
                match input.read_exact(&mut one) {
                    Ok(()) => sum += u64::from(one[0]),
                    Err(e) if e.kind() == ErrorKind::UnexpectedEof => break,
                    Err(e) => fail(e),
                }
            }
        }
        let count = input.stream_position().unwrap_or_else(|e| fail(e));
        drop(input);
        print(rep, "read", count, t0.elapsed().as_nanos(), sum);
    }
}
