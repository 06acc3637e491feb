//! What the options take, parsed and checked as clap reads them: each refusal is one line
//! naming what was wrong. Also the folding of clap's own messages into one line.

use std::time::Duration;

use iomark_core::suite::Profile;

pub(super) fn parse_lang(text: &str) -> Result<String, String> {
    let name = text.trim().to_ascii_lowercase();
    if iomark_core::langs::lang(&name).is_some() {
        Ok(name)
    } else {
        let all: Vec<&str> = iomark_core::langs::LANGS.iter().map(|l| l.name).collect();
        Err(format!(
            "unknown language '{text}' (languages: {})",
            all.join(", ")
        ))
    }
}

/// `--profile`'s names, shown by `--help` and completed by shells, parsed into a [`Profile`].
pub(super) fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Profile::CHOICES.map(Profile::name))
        .map(|name| Profile::from_name(&name).expect("a possible value"))
}

pub(super) fn parse_class(text: &str) -> Result<String, String> {
    let class = text.trim().to_ascii_uppercase();
    if iomark_profiles::sdcard::known(&class) {
        Ok(class)
    } else {
        let all: Vec<&str> = iomark_profiles::sdcard::CLASSES
            .iter()
            .map(|c| c.name)
            .collect();
        Err(format!(
            "unknown SD class '{text}' (classes: {})",
            all.join(", ")
        ))
    }
}

pub(super) fn parse_size_arg(text: &str) -> Result<u64, String> {
    let size = iomark_result::units::parse_size(text)?;
    if size == 0 {
        return Err("the size must be larger than zero".into());
    }
    Ok(size)
}

/// `--loops`: a count, or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopsArg {
    Count(u32),
    Auto,
}

pub(super) fn parse_loops(text: &str) -> Result<LoopsArg, String> {
    if text == "auto" {
        return Ok(LoopsArg::Auto);
    }
    match text.parse::<u32>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(LoopsArg::Count(n)),
        _ => Err(format!("'{text}' is not a count from 1 to 1000, nor auto")),
    }
}

pub(super) fn parse_label(text: &str) -> Result<String, String> {
    iomark_result::result::check_label(text)?;
    Ok(text.to_string())
}

pub(super) fn parse_sold_as(text: &str) -> Result<String, String> {
    iomark_result::result::check_sold_as(text.trim())?;
    Ok(text.trim().to_string())
}

/// How often something is done: a duration of at least a second, or 0 for never.
pub(super) fn parse_every(text: &str) -> Result<Duration, String> {
    if text.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    let every = iomark_result::units::parse_duration(text)?;
    if every < Duration::from_secs(1) {
        return Err("at least 1s, or 0 for never".into());
    }
    Ok(every)
}

pub(super) fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let duration = iomark_result::units::parse_duration(text)?;
    if duration < Duration::from_millis(10) {
        return Err("a loop must last at least 10ms".into());
    }
    Ok(duration)
}

/// clap's message in one line: its first line, then what it lists below it (the missing
/// arguments, the possible values, a tip), without the usage and the pointer to `--help`.
pub(super) fn one_line(rendered: &str) -> String {
    let mut lines = rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"));
    let first = lines.next().unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let detail: Vec<&str> = lines.collect();
    match (detail.is_empty(), first.ends_with(':')) {
        (true, _) => first.to_string(),
        (false, true) => format!("{first} {}", detail.join(", ")),
        (false, false) => format!("{first} {}", detail.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_fold_into_one_line_that_names_the_argument() {
        // Issue 11: `iomark export latest` said only "the following required arguments were
        // not provided:".
        let missing = "error: the following required arguments were not provided:\n  --format <FORMAT>\n\nUsage: iomark export --format <FORMAT> <ID>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(missing),
            "the following required arguments were not provided: --format <FORMAT>"
        );
        let value = "error: invalid value 'x' for '--engine <ENGINE>'\n  [possible values: auto, io_uring]\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(value),
            "invalid value 'x' for '--engine <ENGINE>' [possible values: auto, io_uring]"
        );
    }
}
