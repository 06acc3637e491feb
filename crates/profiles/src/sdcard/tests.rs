//! The sdcard profile's classes, verdicts and words, against made-up cards.

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
