//! Every signal whose default is to end the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, and
//! SIGUSR1/2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR): remove the test file,
//! then exit with 128 + the signal (130, 143, 129, 131, …). SIGHUP matters as much as Ctrl-C: it
//! is what a closed terminal or a dropped SSH session sends. SIGKILL cannot be caught: the next
//! run in that directory removes what a killed run left (`engine::target`).
//!
//! A dedicated thread waits for the signal (signal-hook), so the removal runs as ordinary
//! code, not inside a signal handler. It removes every test file this process created (the
//! registry in `engine::target`), says so, and exits at once: the I/O still in flight dies with
//! the process, and the removed file's blocks are freed when the kernel closes it.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use libc::SIGPWR;
use signal_hook::consts::{
    SIGALRM, SIGHUP, SIGINT, SIGIO, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM,
    SIGXCPU, SIGXFSZ,
};

/// The signals that would otherwise end the process without a word.
const ENDING: [i32; 13] = [
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
    SIGXFSZ, SIGIO, SIGPWR,
];

/// A finished result being saved, and what to tell the user if the run ends before the store
/// holds it: where the document was kept, and the command that adds it.
static PENDING: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Temporary files of this process's own (a `--json` or `-o` file being written), removed if a
/// signal ends the run.
static TEMPORARY: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

fn temporary() -> std::sync::MutexGuard<'static, Vec<std::path::PathBuf>> {
    TEMPORARY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes `path` if a signal ends the run before [`forget_on_signal`].
pub fn remove_on_signal(path: &std::path::Path) {
    temporary().push(path.to_path_buf());
}

pub fn forget_on_signal(path: &std::path::Path) {
    temporary().retain(|p| p != path);
}

/// While a finished result is being saved: `note` is said if a signal ends the run.
pub fn set_pending(note: Option<String>) {
    *PENDING.lock().unwrap_or_else(|p| p.into_inner()) = note;
}
use signal_hook::iterator::Signals;

/// Child processes to stop with the run (`iomark langs`' programs).
static CHILDREN: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<u32>> {
    CHILDREN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Kills `pid` if the run is interrupted before [`untrack_child`].
pub fn track_child(pid: u32) {
    children().push(pid);
}

pub fn untrack_child(pid: u32) {
    children().retain(|p| *p != pid);
}

/// Set while a command stops by itself at a signal (`iomark verify`, which keeps what it wrote
/// so that `--resume` goes on from there); a second signal ends the run at once.
static GRACEFUL: AtomicBool = AtomicBool::new(false);
/// Set by the first signal while [`GRACEFUL`], and which signal it was.
static STOP: AtomicBool = AtomicBool::new(false);
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// From now on a signal sets [`stop_flag`] instead of ending the process.
pub fn stop_gracefully() {
    GRACEFUL.store(true, Ordering::SeqCst);
}

/// Whether a signal asked a graceful command to stop.
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// The exit status for the signal that stopped a graceful command (128 + the signal).
pub fn stop_status() -> i32 {
    128 + STOP_SIGNAL.load(Ordering::SeqCst)
}

pub fn install() -> std::io::Result<()> {
    let mut signals = Signals::new(ENDING)?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if GRACEFUL.load(Ordering::SeqCst) && !STOP.swap(true, Ordering::SeqCst) {
                    STOP_SIGNAL.store(signal, Ordering::SeqCst);
                    let mut stderr = std::io::stderr();
                    let _ = writeln!(
                        stderr,
                        "\niomark: stopping after the current block (again to stop at once)"
                    );
                    continue;
                }
                // Children first: one left running would go on for minutes, and would create the
                // test file again at its next repetition.
                for pid in children().drain(..) {
                    // SAFETY: plain syscalls on a child this process started; it is reaped
                    // here, as the process exiting next would leave it a zombie.
                    unsafe {
                        libc::kill(pid as i32, libc::SIGKILL);
                        libc::waitpid(pid as i32, std::ptr::null_mut(), 0);
                    }
                }
                let removed = crate::engine::target::remove_all();
                for path in temporary().drain(..) {
                    let _ = std::fs::remove_file(path);
                }
                // Say so if anyone is listening, but never let a failed write stop the exit:
                // after a hang-up stderr is gone, and `eprintln!` would panic, killing this
                // thread while it holds the registry lock the main thread then waits on forever.
                let mut stderr = std::io::stderr();
                if stderr.is_terminal() {
                    // A progress bar may be half drawn: end its line and show the cursor.
                    let _ = write!(stderr, "\r\x1b[2K\x1b[?25h");
                }
                let name = match signal {
                    SIGINT => "interrupted",
                    SIGHUP => "hung up",
                    _ => "terminated",
                };
                if removed.is_empty() {
                    let _ = writeln!(stderr, "iomark: {name}");
                }
                for path in removed {
                    let _ = writeln!(
                        stderr,
                        "iomark: {name}; removed the test file {}",
                        path.display()
                    );
                }
                if let Some(note) = PENDING.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                    let _ = writeln!(stderr, "iomark: {note}");
                }
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
