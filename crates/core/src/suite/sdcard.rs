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
use iomark_result::result::{Target, TestResult, Transport, Warning, WarningKind};

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

/// Where the card sits, as far as the target tells: which classes can be judged there.
#[derive(Clone, Debug, PartialEq)]
pub enum Seat {
    /// An SD card or eMMC on the host's own bus, in the timing debugfs gave (root only).
    Bus { timing: Option<String> },
    /// A card in a USB reader, by the reader's name: its bus is the reader's, unknown here.
    Reader,
    /// No SD card or eMMC: what it is instead.
    NotACard(String),
}

/// Words in a USB device's names that make it a card reader.
const READER_WORDS: [&str; 6] = [
    "card reader",
    "cardreader",
    "sd/mmc",
    "sd card",
    "microsd",
    "multi-card",
];

/// Where the target's card sits.
pub fn seat(target: &Target) -> Seat {
    let Some(device) = target.device.as_ref() else {
        return Seat::NotACard("a device iomark could not identify".into());
    };
    if device.transport == Some(Transport::Mmc) || device.sd.is_some() {
        return Seat::Bus {
            timing: device.sd.as_ref().and_then(|sd| sd.bus_timing.clone()),
        };
    }
    let names = [&device.model, &device.vendor]
        .into_iter()
        .flatten()
        .chain(device.usb.as_ref().and_then(|u| u.product.as_ref()))
        .map(|s| s.to_lowercase())
        .collect::<Vec<_>>();
    let reader = device.transport == Some(Transport::Usb)
        && names
            .iter()
            .any(|n| READER_WORDS.iter().any(|w| n.contains(w)));
    if reader {
        return Seat::Reader;
    }
    Seat::NotACard(match device.kind() {
        "virtual" => "a virtual disk".into(),
        "other" => "a device that does not report what it is".into(),
        "NVMe" => "an NVMe drive".into(),
        "USB flash" => "a USB flash drive".into(),
        kind => format!("a {kind}"),
    })
}

/// Whether the bus a class needs is the one the card is on: UHS-II for V60 and V90, which
/// Linux hosts rarely drive; a reader's bus is not known.
fn bus_known_for(class: &Class, seat: &Seat) -> bool {
    if !class.note.contains("UHS-II") {
        return true;
    }
    match seat {
        Seat::Bus { timing: Some(t) } => {
            let t = t.to_lowercase().replace(['-', ' '], "");
            t.contains("uhs2") || t.contains("uhsii")
        }
        _ => false,
    }
}

/// The class verdicts from the tests, where the card sits (`seat`), with the classes claimed
/// for it (`claimed`: `--claimed`, else what the card reports).
pub fn score(tests: &[TestResult], seat: &Seat, claimed: &[String]) -> SdCardScore {
    let find = |name: &str| tests.iter().find(|t| t.name == name);
    let write = find(SEQUENTIAL).map(sustained_rate);
    let read_iops = find(RANDOM_READ).map(|t| t.iops);
    let write_iops = find(RANDOM_WRITE).map(|t| t.iops);
    let not_a_card = match seat {
        Seat::NotACard(what) => Some(what.clone()),
        _ => None,
    };
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
            let bus = bus_known_for(c, seat);
            let pass = if verdicts.iter().any(Option::is_none) || not_a_card.is_some() || !bus {
                None
            } else {
                Some(verdicts.iter().all(|v| *v == Some(true)))
            };
            let note = if !bus && not_a_card.is_none() {
                format!("can't tell on this bus: {}", c.note)
            } else {
                c.note.to_string()
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
                note,
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
        not_a_card,
        claimed: claimed.to_vec(),
    }
}

/// The classes claimed for the target's card: those given with `--claimed`, else those the
/// card reports in its SD Status register.
pub fn claimed(given: &[String], target: &Target) -> Vec<String> {
    if !given.is_empty() {
        return given.to_vec();
    }
    target
        .device
        .as_ref()
        .and_then(|d| d.sd.as_ref())
        .map(|sd| sd.claimed_classes.clone())
        .unwrap_or_default()
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

/// A warning for each class claimed for the card (saved in the score) that it fails.
pub fn verdicts(score: &SdCardScore) -> Vec<Warning> {
    failed_claims(score, &score.claimed)
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

    /// A card on a host's own UHS-II bus: every class judged.
    fn on_a_bus() -> Seat {
        Seat::Bus {
            timing: Some("sd uhs-ii".into()),
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
        let score = score(&tests, &on_a_bus(), &[]);
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
        let score = score(&tests, &on_a_bus(), &[]);
        assert_eq!(verdict(&score, "V90"), Some(true));
        assert_eq!(verdict(&score, "A1"), Some(false));
    }

    #[test]
    fn unmeasured_requirements_give_no_verdict() {
        let tests = [result(SEQUENTIAL, 0.0, &[25.0; 10])];
        let score = score(&tests, &on_a_bus(), &[]);
        assert_eq!(verdict(&score, "C10"), Some(true));
        assert!(verdict(&score, "A1").is_none());
        assert!(known("V30") && !known("V20"));
    }

    /// Issue 45: the profile on a virtual disk marked V60, V90 and A2 "pass".
    #[test]
    fn a_disk_that_is_no_card_has_classes_for_reference_only() {
        let tests = [
            result(SEQUENTIAL, 0.0, &[2600.0; 10]),
            result(RANDOM_READ, 9000.0, &[]),
            result(RANDOM_WRITE, 7000.0, &[]),
        ];
        let mut target = sample::doc().target;
        let device = target.device.get_or_insert_with(Default::default);
        device.transport = Some(Transport::Virtio);
        device.sd = None;
        device.usb = None;
        let virtual_disk = seat(&target);
        assert_eq!(virtual_disk, Seat::NotACard("a virtual disk".into()));
        let reference = score(&tests, &virtual_disk, &["V90".into()]);
        assert!(reference.classes.iter().all(|c| c.pass.is_none()));
        assert_eq!(reference.not_a_card.as_deref(), Some("a virtual disk"));
        assert!(verdicts(&reference).is_empty());
        // The same figures from a card on a UHS-I bus: V60 and V90 can't be told there.
        let device = target.device.as_mut().unwrap();
        device.transport = Some(Transport::Mmc);
        device.sd = Some(iomark_result::result::Sd {
            bus_timing: Some("sd uhs SDR104".into()),
            ..Default::default()
        });
        let uhs1 = score(&tests, &seat(&target), &[]);
        assert_eq!(verdict(&uhs1, "V30"), Some(true));
        assert_eq!(verdict(&uhs1, "V90"), None);
        let v90 = uhs1.classes.iter().find(|c| c.class == "V90").unwrap();
        assert!(
            v90.note.starts_with("can't tell on this bus"),
            "{}",
            v90.note
        );
        // In a USB reader that says so: judged, but not V60 and V90.
        let device = target.device.as_mut().unwrap();
        device.transport = Some(Transport::Usb);
        device.sd = None;
        device.model = Some("USB3.0 CRW -SD/MMC".into());
        assert_eq!(seat(&target), Seat::Reader);
        let read = score(&tests, &Seat::Reader, &[]);
        assert_eq!(verdict(&read, "A1"), Some(true));
        assert_eq!(verdict(&read, "V60"), None);
    }

    #[test]
    fn claims_are_kept_and_a_missed_one_is_a_warning() {
        let tests = [
            result(SEQUENTIAL, 0.0, &[20.0; 10]),
            result(RANDOM_READ, 2000.0, &[]),
            result(RANDOM_WRITE, 600.0, &[]),
        ];
        let score = score(&tests, &on_a_bus(), &["V30".into(), "A1".into()]);
        assert_eq!(score.claimed, ["V30", "A1"]);
        let warnings = verdicts(&score);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].message.contains("claims V30"),
            "{}",
            warnings[0].message
        );
    }
}
