//! What a run tells whoever watches it as it goes: `--progress json` writes one [`Event`] a line
//! on standard error (a run, a verify, the languages), and the app (`iomark ui`) reads each line
//! back as this same type, adds its own [`Ending`] when the child ends, and hands the lines on
//! to its page's script. One type for both ends, so a field renamed is a build error on both.

use serde::{Deserialize, Serialize};

/// One progress line, tagged by `event`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A phase begins: a test (`[3/8] RND4K_Q32T1_read`), the fill, a verify pass.
    Start { phase: String },
    /// Once a second while a phase goes: its bytes so far and its rate over that second.
    Tick {
        phase: String,
        elapsed_s: f64,
        bytes: u64,
        mb_per_s: f64,
    },
    /// A phase ended, with its figures.
    Done(Done),
    /// Something the user should know that is not a property of the figures.
    Note { message: String },
    /// How the run ended (the app's line, not iomark's own).
    End(Ending),
}

/// A phase's end: a test's figures (its median loop), or a step's rate, or what it said.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Done {
    pub phase: String,
    pub seconds: f64,
    /// The test's name (`SEQ1M_Q8T1_read`), for a test.
    pub test: Option<String>,
    /// The test's figure, or a step's rate over the phase; none where the step said its own.
    pub mb_per_s: Option<f64>,
    /// What a step said of itself (a language's write and read rates, a verify pass's rate).
    pub summary: Option<String>,
    pub iops: Option<f64>,
    /// The time the phases after this one should take, where it is known.
    pub run_left_s: Option<f64>,
}

/// How a run the app started ended, tagged by `status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Ending {
    /// Saved: the result's id.
    Done { result: String },
    /// Stopped by the user (Ctrl-C): its test file is removed.
    Stopped,
    /// What it said, where it failed.
    Failed { message: String },
}

impl Event {
    /// The line as `--progress json` writes it.
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("an event is always JSON")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of line keeps its shape (the page's script and earlier apps read these
    /// fields) and reads back as itself.
    #[test]
    fn every_line_reads_back_as_written() {
        let done = Done {
            phase: "[1/8] SEQ1M_Q8T1_read".into(),
            seconds: 4.0,
            test: Some("SEQ1M_Q8T1_read".into()),
            mb_per_s: Some(1143.25),
            iops: Some(1090.0),
            ..Done::default()
        };
        let lines = [
            (
                Event::Start {
                    phase: "fill".into(),
                },
                r#"{"event":"start","phase":"fill"}"#,
            ),
            (
                Event::Tick {
                    phase: "fill".into(),
                    elapsed_s: 1.5,
                    bytes: 4096,
                    mb_per_s: 2.5,
                },
                r#"{"event":"tick","phase":"fill","elapsed_s":1.5,"bytes":4096,"mb_per_s":2.5}"#,
            ),
            (
                Event::Done(done),
                r#"{"event":"done","phase":"[1/8] SEQ1M_Q8T1_read","seconds":4.0,"test":"SEQ1M_Q8T1_read","mb_per_s":1143.25,"summary":null,"iops":1090.0,"run_left_s":null}"#,
            ),
            (
                Event::Note {
                    message: "direct I/O refused".into(),
                },
                r#"{"event":"note","message":"direct I/O refused"}"#,
            ),
            (
                Event::End(Ending::Done {
                    result: "01KAQZ8X3N".into(),
                }),
                r#"{"event":"end","status":"done","result":"01KAQZ8X3N"}"#,
            ),
            (
                Event::End(Ending::Stopped),
                r#"{"event":"end","status":"stopped"}"#,
            ),
            (
                Event::End(Ending::Failed {
                    message: "no space".into(),
                }),
                r#"{"event":"end","status":"failed","message":"no space"}"#,
            ),
        ];
        for (event, line) in lines {
            assert_eq!(event.line(), line);
            assert_eq!(serde_json::from_str::<Event>(line).unwrap(), event);
        }
        assert!(serde_json::from_str::<Event>(r#"{"event":"fly"}"#).is_err());
    }
}
