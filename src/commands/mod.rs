//! One module per subcommand: each ties the layers together for one job.

pub mod compare;
pub mod export;
pub mod history;
pub mod info;
pub mod langs;
pub mod run;

use std::io::Write;

/// Pretty JSON with a final newline, or the text `render` makes.
pub fn json_or<T: serde::Serialize>(
    json: bool,
    value: &T,
    render: impl FnOnce(&T) -> String,
) -> anyhow::Result<String> {
    if json {
        let mut text = serde_json::to_string_pretty(value)?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(render(value))
    }
}

/// Writes to standard output; a closed pipe (`iomark run | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
