//! The terminal: tables, progress, colours, warnings. This is the one place that decides
//! whether a stream is a terminal and whether to use colour (`NO_COLOR` is honoured); nothing
//! here does I/O on the test target.

pub mod compare;
pub mod health;
pub mod history;
pub mod info;
pub mod langs;
pub mod progress;
pub mod table;
pub mod verify;

use std::io::{IsTerminal, Write};

/// Writes to standard error, ignoring failure: with stderr closed or its terminal gone,
/// progress and reports are lost, but the run (and its clean-up) must go on, where
/// `eprintln!` would panic.
pub fn to_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

pub use iomark_result::result::printable;

/// Prints `Error: message` on standard error, the label in red where colour is on.
pub fn print_error(message: &str) {
    let style = Style::stderr();
    to_stderr(&format!("{} {message}\n", style.red("Error:")));
}

/// The user's colour choice (`--color`), set once at start; unset means auto.
static COLOR: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();

/// Sets colour for the whole process: `Some(true)` always, `Some(false)` never, `None` auto
/// (on a terminal, unless `NO_COLOR` is set to something).
pub fn set_color(choice: Option<bool>) {
    let _ = COLOR.set(choice);
}

/// How to draw on one output stream.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    /// A terminal that can redraw progress bars.
    pub interactive: bool,
}

impl Style {
    /// For standard error (progress, and the table when standard output carries JSON).
    pub fn stderr() -> Self {
        Self::for_terminal(std::io::stderr().is_terminal())
    }

    pub fn stdout() -> Self {
        Self::for_terminal(std::io::stdout().is_terminal())
    }

    fn for_terminal(terminal: bool) -> Self {
        let color = match COLOR.get().copied().flatten() {
            Some(forced) => forced,
            None => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        };
        Style {
            color,
            interactive: terminal,
        }
    }

    pub fn plain() -> Self {
        Style {
            color: false,
            interactive: false,
        }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint(text, "1")
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint(text, "2")
    }

    pub fn yellow(&self, text: &str) -> String {
        self.paint(text, "33")
    }

    pub fn red(&self, text: &str) -> String {
        self.paint(text, "31")
    }

    pub fn green(&self, text: &str) -> String {
        self.paint(text, "32")
    }

    pub fn cyan(&self, text: &str) -> String {
        self.paint(text, "36")
    }

    fn paint(&self, text: &str, code: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

impl iomark_profiles::Marks for Style {
    fn bold(&self, text: &str) -> String {
        Style::bold(self, text)
    }
    fn dim(&self, text: &str) -> String {
        Style::dim(self, text)
    }
    fn red(&self, text: &str) -> String {
        Style::red(self, text)
    }
}
