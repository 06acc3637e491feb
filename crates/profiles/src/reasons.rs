//! Why a result does not rank, in words: each `Reason` (the document's flag, a site's hold)
//! as its pages, its API and its dump say it. The facts are the document's and the store's;
//! the words are only here.

use iomark_result::result::metric;
use iomark_result::result::reason::{Link, Reason};
use iomark_result::units::figure;

/// What a reader is told.
pub fn words(reason: &Reason) -> String {
    const CACHE: &str = "a cache answered, or the document is wrong";
    match reason {
        Reason::NullEngine => "measured with the null engine, which does no I/O".into(),
        Reason::PiSizes => {
            "its pi score ran with other file sizes (--size): not comparable with others".into()
        }
        Reason::BeyondLink {
            test,
            mb_per_s,
            link,
            ceiling,
        } => format!(
            "{test} at {mb_per_s:.0} MB/s is faster than its {} carries (at most {ceiling:.0} \
             MB/s): {CACHE}",
            link_words(link)
        ),
        Reason::BeyondPlatters {
            test,
            iops,
            rpm,
            most,
        } => format!(
            "{test} at {iops:.0} random reads a second is more than a disk turning {rpm} times a \
             minute can bring under its heads (about {most:.0}): its cache answered, or the \
             document is wrong"
        ),
        Reason::LargerThanKind {
            kind,
            size_bytes,
            most_bytes,
            bound,
        } => format!(
            "this {kind} of {:.0} GB is larger than any can be ({bound}, {:.0} GB): the document \
             is wrong, or the device lies about its size",
            *size_bytes as f64 / 1e9,
            *most_bytes as f64 / 1e9
        ),
        Reason::OneAtATime {
            test,
            iops,
            op,
            kind,
            floor_us,
            basis,
        } => format!(
            "{test} at {iops:.0} {op}s a second, one at a time, is more than {} answers \
             ({basis}: at least {floor_us} µs each, at most {:.0} a second): {CACHE}",
            match kind {
                Some(kind) => format!("this {kind}"),
                None => "any device".to_string(),
            },
            1e6 / floor_us
        ),
        Reason::MixedScripts { name, word } => format!(
            "the name '{name}' writes '{word}' in letters of several scripts, or in letters or \
             signs that only look like its own, as a look-alike of another device's name does: \
             not ranked"
        ),
        Reason::Said { words } => words.clone(),
        held => held_words(held),
    }
}

/// What a reader is told of a result hidden as it arrived, its device being one a moderator
/// hid for the reason `moderator` gave.
pub fn hidden_device(moderator: String) -> String {
    words(&Reason::HiddenDevice { moderator })
}

/// What a reader is told of a hold: why a site keeps a result for a moderator.
fn held_words(reason: &Reason) -> String {
    const WAITS: &str = "it waits for a moderator before it ranks";
    match reason {
        Reason::HiddenDevice { moderator } => format!(
            "a moderator hid this device ({moderator}): its results wait for a moderator until \
             it is restored"
        ),
        Reason::Contradicts {
            kind,
            capacity_gb,
            submitters,
            their_kind,
            their_capacity_gb,
        } => {
            let gb = |c: &Option<i64>| c.map(|c| format!(" of {c} GB")).unwrap_or_default();
            format!(
                "it calls this device {kind}{}, where its {submitters} submitters call it \
                 {their_kind}{}: {WAITS}",
                gb(capacity_gb),
                gb(their_capacity_gb)
            )
        }
        Reason::OverOwnMedian {
            metric,
            value,
            median,
            times,
        }
        | Reason::UnderOwnMedian {
            metric,
            value,
            median,
            times,
        } => {
            let (label, unit) = named(metric);
            let how = match reason {
                Reason::OverOwnMedian { .. } => format!("over {times}×"),
                _ => format!("under 1/{times} of"),
            };
            format!(
                "its {label} of {} {unit} is {how} this device's own median ({} {unit}): \
                 {WAITS}",
                figure(*value),
                figure(*median)
            )
        }
        Reason::LookAlike { like } => format!(
            "its name is written as another device's is ({like}), with a letter or a digit for \
             another, a typo, or another of its maker's names: {WAITS}"
        ),
        Reason::FarBeyond {
            metric,
            value,
            fastest,
            times,
            kind,
        } => {
            let (label, unit) = named(metric);
            format!(
                "its {label} of {} {unit} is over {times}× the fastest {} here ({} {unit}): \
                 {WAITS}",
                figure(*value),
                kind.as_deref().unwrap_or("device of any kind"),
                figure(*fastest)
            )
        }
        other => words(other),
    }
}

/// A link as a reason names it (`its USB link (480 Mbit/s)` reads "USB link (480 Mbit/s)").
pub fn link_words(link: &Link) -> String {
    match link {
        Link::Kind { interface } => format!("kind's fastest interface ({interface})"),
        Link::Usb { mbit_s } => format!("USB link ({mbit_s} Mbit/s)"),
        Link::SdBus { timing, mhz } => format!("SD bus ('{timing}' at {mhz:.0} MHz)"),
        Link::Sata => "SATA link (6 Gbit/s, SATA III)".into(),
        Link::Pcie { gt_s, lanes } => format!("PCIe link ({gt_s} GT/s x{lanes})"),
    }
}

/// A figure's label and unit by its column (a column no longer listed: its name, no unit).
fn named(column: &str) -> (&str, &str) {
    metric::find(column).map_or((column, ""), |m| (m.label, m.unit))
}

/// `serialize_with` for a reason a page or an answer carries: its words.
pub fn as_words<S: serde::Serializer>(
    reason: &Option<Reason>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match reason {
        Some(reason) => serializer.serialize_some(&words(reason)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words are those the rules wrote before reasons were facts (issue 58), word for word.
    #[test]
    fn each_reason_says_what_it_said_before() {
        let cases = [
            (
                Reason::BeyondLink {
                    test: "SEQ1M_Q8T1_read".into(),
                    mb_per_s: 412.4,
                    link: Link::Usb { mbit_s: 480.0 },
                    ceiling: 60.0,
                },
                "SEQ1M_Q8T1_read at 412 MB/s is faster than its USB link (480 Mbit/s) carries \
                 (at most 60 MB/s): a cache answered, or the document is wrong",
            ),
            (
                Reason::OneAtATime {
                    test: "RND4K_Q1T1_read".into(),
                    iops: 33_650.0,
                    op: "read".into(),
                    kind: Some("USB flash".into()),
                    floor_us: 40.0,
                    basis: "a USB command is three transfers through the host".into(),
                },
                "RND4K_Q1T1_read at 33650 reads a second, one at a time, is more than this USB \
                 flash answers (a USB command is three transfers through the host: at least 40 \
                 µs each, at most 25000 a second): a cache answered, or the document is wrong",
            ),
            (
                Reason::OverOwnMedian {
                    metric: "seq1m_q8_read".into(),
                    value: 4500.0,
                    median: 90.0,
                    times: 5.0,
                },
                "its SEQ1M Q8T1 read of 4500 MB/s is over 5× this device's own median (90.0 \
                 MB/s): it waits for a moderator before it ranks",
            ),
            (
                Reason::Contradicts {
                    kind: "USB flash".into(),
                    capacity_gb: Some(64),
                    submitters: 3,
                    their_kind: "NVMe".into(),
                    their_capacity_gb: None,
                },
                "it calls this device USB flash of 64 GB, where its 3 submitters call it NVMe: \
                 it waits for a moderator before it ranks",
            ),
            (
                Reason::FarBeyond {
                    metric: "gone_column".into(),
                    value: 10.0,
                    fastest: 2.0,
                    times: 2.0,
                    kind: None,
                },
                "its gone_column of 10.0  is over 2× the fastest device of any kind here (2.00 \
                 ): it waits for a moderator before it ranks",
            ),
        ];
        for (reason, said) in cases {
            assert_eq!(words(&reason), said);
        }
    }
}
