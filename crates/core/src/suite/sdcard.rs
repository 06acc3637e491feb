//! The sdcard profile: does the card meet its speed classes?
//!
//! Three tests: a sustained sequential write (1 MiB, QD8, once over the file, bounded in time),
//! and 4 KiB random reads and writes at queue depth 1 (the application performance classes'
//! measure; A2's higher figures also need command queuing, which few Linux hosts enable). Each
//! class of the SD Association (`../shared/reference/sd-classes.csv`: SD Physical Layer
//! Simplified Specification 4.10 section 4.13 and sdcard.org's class pages) is judged on the
//! write rate the card sustains (after any cache cliff, since a class is a minimum) and the
//! random IOPS.

use std::time::Duration;

use super::{sustained, Defaults, FileSize, TestSpec};
use crate::engine::{Op, Pattern};
use iomark_result::result::score::{ClassFigures, ClassVerdict, SdCardScore};
use iomark_result::result::{Target, TestResult, Warning, WarningKind};

/// One class: its name and minimums (sequential write MB/s, random 4 KiB read and write IOPS).
pub struct Class {
    pub family: &'static str,
    pub name: &'static str,
    pub write_mb_per_s: f64,
    pub read_iops: Option<f64>,
    pub write_iops: Option<f64>,
    pub note: &'static str,
}

const fn class(family: &'static str, name: &'static str, write_mb_per_s: f64) -> Class {
    Class {
        family,
        name,
        write_mb_per_s,
        read_iops: None,
        write_iops: None,
        note: "",
    }
}

/// The SD Association's minimums, as in `sd-classes.csv`.
pub const CLASSES: [Class; 13] = [
    class("speed", "C2", 2.0),
    class("speed", "C4", 4.0),
    class("speed", "C6", 6.0),
    Class {
        note: "needs the High Speed bus",
        ..class("speed", "C10", 10.0)
    },
    class("uhs", "U1", 10.0),
    class("uhs", "U3", 30.0),
    class("video", "V6", 6.0),
    class("video", "V10", 10.0),
    class("video", "V30", 30.0),
    Class {
        note: "needs UHS-II",
        ..class("video", "V60", 60.0)
    },
    Class {
        note: "needs UHS-II",
        ..class("video", "V90", 90.0)
    },
    Class {
        read_iops: Some(1500.0),
        write_iops: Some(500.0),
        note: "SD 5.1",
        ..class("app", "A1", 10.0)
    },
    Class {
        read_iops: Some(4000.0),
        write_iops: Some(2000.0),
        note: "SD 6.0; needs command queuing and cache on host and card",
        ..class("app", "A2", 10.0)
    },
];

pub const SEQUENTIAL: &str = "SEQ1M_Q8T1_write";
pub const RANDOM_READ: &str = "RND4K_Q1T1_read";
pub const RANDOM_WRITE: &str = "RND4K_Q1T1_write";

pub fn sdcard() -> Defaults {
    Defaults {
        tests: vec![
            TestSpec::new(Pattern::Sequential, 1 << 20, 8, Op::Write)
                .once_over_file()
                .bounded(sustained::TIME_BOUND),
            TestSpec::new(Pattern::Random, 4096, 1, Op::Read),
            TestSpec::new(Pattern::Random, 4096, 1, Op::Write),
        ],
        // Well beyond the SLC cache of most cards, small enough for a 10 MB/s card.
        file_size: FileSize::Fixed(1 << 30),
        loops: 3,
        duration: Duration::from_secs(2),
        warmup: Duration::from_secs(1),
        fill: true,
        cut_fill: false,
    }
}

/// The write rate a card sustains: after its cliff if it has one, else over the whole write.
fn sustained_rate(test: &TestResult) -> f64 {
    let finding = sustained::analyze(&iomark_result::result::per_second(&test.timeline));
    finding.after_mb_per_s.min(finding.before_mb_per_s)
}

pub fn score(tests: &[TestResult]) -> SdCardScore {
    let find = |name: &str| tests.iter().find(|t| t.name == name);
    let write = find(SEQUENTIAL).map(sustained_rate);
    let read_iops = find(RANDOM_READ).map(|t| t.iops);
    let write_iops = find(RANDOM_WRITE).map(|t| t.iops);
    let classes = CLASSES
        .iter()
        .map(|c| {
            let checks = [
                Some(write.map(|w| w >= c.write_mb_per_s)),
                c.read_iops.map(|need| read_iops.map(|got| got >= need)),
                c.write_iops.map(|need| write_iops.map(|got| got >= need)),
            ];
            // A requirement not measured (a test left out with --test) gives no verdict.
            let verdicts: Vec<Option<bool>> = checks.into_iter().flatten().collect();
            let pass = if verdicts.iter().any(Option::is_none) {
                None
            } else {
                Some(verdicts.iter().all(|v| *v == Some(true)))
            };
            ClassVerdict {
                extra: Default::default(),
                class: c.name.into(),
                family: c.family.into(),
                measured: ClassFigures {
                    extra: Default::default(),
                    random_read_iops_4k: c.read_iops.and(read_iops),
                    random_write_iops_4k: c.write_iops.and(write_iops),
                    sequential_write_mb_per_s: write,
                },
                note: c.note.into(),
                pass,
                required: ClassFigures {
                    extra: Default::default(),
                    random_read_iops_4k: c.read_iops,
                    random_write_iops_4k: c.write_iops,
                    sequential_write_mb_per_s: Some(c.write_mb_per_s),
                },
            }
        })
        .collect();
    SdCardScore {
        extra: Default::default(),
        classes,
    }
}

/// The classes a card claims but failed.
pub fn failed_claims(score: &SdCardScore, claimed: &[String]) -> Vec<String> {
    claimed
        .iter()
        .filter(|name| {
            score
                .classes
                .iter()
                .any(|c| &c.class == *name && c.pass == Some(false))
        })
        .cloned()
        .collect()
}

/// A warning for each class the card claims and fails: the classes given with `--claimed`,
/// else those the card itself reports.
pub fn verdicts(score: &SdCardScore, claimed: &[String], target: &Target) -> Vec<Warning> {
    let reported = target
        .device
        .as_ref()
        .and_then(|d| d.sd.as_ref())
        .map(|sd| sd.claimed_classes.as_slice())
        .unwrap_or_default();
    let claimed = if claimed.is_empty() {
        reported
    } else {
        claimed
    };
    failed_claims(score, claimed)
        .into_iter()
        .map(|class| {
            Warning::new(
                WarningKind::FailsClaimedClass,
                format!(
                    "the card claims {class} but does not meet it here (see the class table): \
                     a fake or worn card, or a reader or host that holds it back"
                ),
            )
        })
        .collect()
}

/// Whether `name` is a class this profile judges (for `--claimed`).
pub fn known(name: &str) -> bool {
    CLASSES.iter().any(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;

    fn result(name: &str, iops: f64, timeline: &[f64]) -> TestResult {
        TestResult {
            timeline: sample::timeline(timeline),
            ..sample::result(name, "write", 4096, iops * 4096.0 / 1e6, iops)
        }
    }

    fn verdict(score: &SdCardScore, class: &str) -> Option<bool> {
        score
            .classes
            .iter()
            .find(|c| c.class == class)
            .unwrap()
            .pass
    }

    #[test]
    fn a_card_fast_until_its_cache_runs_out_is_judged_on_what_follows() {
        // 40 MB/s for 10 s, then 18 MB/s: passes U1/V10/C10, fails U3/V30 despite its burst.
        let mut timeline = vec![40.0; 10];
        timeline.extend(vec![18.0; 20]);
        let tests = [
            result(SEQUENTIAL, 0.0, &timeline),
            result(RANDOM_READ, 2100.0, &[]),
            result(RANDOM_WRITE, 610.0, &[]),
        ];
        let score = score(&tests);
        for (class, pass) in [
            ("C10", true),
            ("U1", true),
            ("V10", true),
            ("U3", false),
            ("V30", false),
            ("A1", true),
            ("A2", false),
        ] {
            assert_eq!(verdict(&score, class), Some(pass), "{class}");
        }
        let required = &score.classes[11].required;
        assert_eq!(required.random_read_iops_4k, Some(1500.0));
        assert_eq!(
            failed_claims(&score, &["C10".into(), "U3".into(), "A1".into()]),
            ["U3"]
        );
    }

    #[test]
    fn slow_random_writes_fail_a1_whatever_the_sequential_speed() {
        let tests = [
            result(SEQUENTIAL, 0.0, &[90.0; 20]),
            result(RANDOM_READ, 3000.0, &[]),
            result(RANDOM_WRITE, 120.0, &[]),
        ];
        let score = score(&tests);
        assert_eq!(verdict(&score, "V90"), Some(true));
        assert_eq!(verdict(&score, "A1"), Some(false));
    }

    #[test]
    fn unmeasured_requirements_give_no_verdict() {
        let tests = [result(SEQUENTIAL, 0.0, &[25.0; 10])];
        let score = score(&tests);
        assert_eq!(verdict(&score, "C10"), Some(true));
        assert!(verdict(&score, "A1").is_none());
        assert!(known("V30") && !known("V20"));
    }
}
