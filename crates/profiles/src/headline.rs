//! What a run is shared for beyond the standard table, said once: a profile's own headline
//! (its file says it, through `Says`), what a verify found, a card's health, the languages'
//! spread. `short` fits a table cell (history, the site's lists, a device's results);
//! `sentence` says it to a person (the card, Markdown, HTML, a result's page).

use crate::says::Headline;
use iomark_result::result::langs::{LangResult, Section};
use iomark_result::result::ResultDoc;
use iomark_result::units::{format_size, Rate};

/// The most characters of `short`: the longest iomark writes is a card missing three claimed
/// classes (`C10 U1 V10, misses claimed U3 V30 A1`, 36); class and language names come from
/// the document, and a crafted one must not fill the lists everyone else reads.
const SHORT_CHARS: usize = 48;

/// The run's headline, where it has one (none for the standard set, whose table is its
/// headline).
pub fn headline(doc: &ResultDoc) -> Option<Headline> {
    let mut h = unbounded(doc)?;
    if h.short.chars().count() > SHORT_CHARS {
        h.short = h.short.chars().take(SHORT_CHARS - 1).collect::<String>() + "…";
    }
    Some(h)
}

fn unbounded(doc: &ResultDoc) -> Option<Headline> {
    if let Some(verify) = &doc.verify {
        // What was checked and what was found, in words no one reads as the card's size
        // (issue 45: "intact, 63.8 MiB" beside a probe that found 256 MiB real).
        let checked = format_size(verify.written_bytes);
        let short = match (verify.ok, verify.real_bytes, verify.claimed_bytes) {
            (true, Some(real), Some(claimed)) if real >= claimed => {
                format!("{} real; {checked} checked", format_size(claimed))
            }
            (true, _, _) => format!("{checked} checked, all intact"),
            (false, Some(real), Some(claimed)) if real < claimed => {
                format!(
                    "holds only {} of {} claimed",
                    format_size(real),
                    format_size(claimed)
                )
            }
            (false, _, _) => format!(
                "{} of {checked} read back wrong",
                format_size(verify.bad_bytes + verify.aliased_bytes + verify.unreadable_bytes)
            ),
        };
        return Some(Headline {
            short,
            sentence: verify.verdict.clone(),
        });
    }
    if let Some(health) = &doc.health {
        return Some(Headline {
            short: format!("{} (check {})", health.verdict, health.checks.max(1)),
            sentence: health.sentence.clone(),
        });
    }
    if let Some(langs) = &doc.langs {
        return langs_headline(langs);
    }
    let score = doc.score.as_ref()?;
    crate::says_of(score)?.headline(doc)
}

/// The fastest and the slowest language through its default buffered I/O (the 2019
/// question), each named with its variant; where no default variant ran, among those that did.
fn langs_headline(langs: &Section) -> Option<Headline> {
    let by_write = |a: &&LangResult, b: &&LangResult| a.write.mb_per_s.total_cmp(&b.write.mb_per_s);
    let defaults: Vec<_> = langs
        .results
        .iter()
        .filter(|r| r.variant == "default")
        .collect();
    let (pool, through) = match defaults.is_empty() {
        false => (defaults, "each language's default buffered I/O"),
        true => (
            langs.results.iter().collect(),
            "the variants asked for (no language's default ran)",
        ),
    };
    let fast = pool.iter().copied().max_by(by_write)?;
    let slow = pool.iter().copied().min_by(by_write)?;
    let name = |r: &LangResult| format!("{}/{}", r.lang, r.variant);
    if pool.len() == 1 {
        return Some(Headline {
            short: format!("{} {}", name(fast), Rate(fast.write.mb_per_s)),
            sentence: format!(
                "Written one byte at a time through {through}, {} managed {:.1} MB/s: the \
                 runtime, not the device, sets this rate.",
                name(fast),
                fast.write.mb_per_s
            ),
        });
    }
    Some(Headline {
        short: format!(
            "{} {:.1} … {} {:.1} MB/s",
            name(slow),
            slow.write.mb_per_s,
            name(fast),
            fast.write.mb_per_s
        ),
        sentence: format!(
            "Written one byte at a time through {through}, {} managed {:.1} MB/s and {} {:.1} \
             MB/s: the runtime, not the device, sets these rates.",
            name(fast),
            fast.write.mb_per_s,
            name(slow),
            slow.write.mb_per_s
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdcard::classes_met_of;
    use iomark_result::result::sample;
    use iomark_result::result::score::{ClassFigures, ClassVerdict, PiParts, PiScore, SdCardScore};
    use iomark_result::result::{Score, WarningKind};

    fn verdict(class: &str, family: &str, pass: Option<bool>, note: &str) -> ClassVerdict {
        ClassVerdict {
            class: class.into(),
            family: family.into(),
            measured: ClassFigures::default(),
            note: note.into(),
            pass,
            required: ClassFigures::default(),
            extra: Default::default(),
        }
    }

    #[test]
    fn a_crafted_class_name_cannot_fill_a_list() {
        let mut doc = sample::doc();
        doc.score = Some(Score::SdCard(SdCardScore {
            classes: vec![verdict(&"X".repeat(4000), "speed", Some(true), "")],
            extra: Default::default(),
            not_a_card: None,
            claimed: Vec::new(),
        }));
        let h = headline(&doc).unwrap();
        assert_eq!(h.short.chars().count(), SHORT_CHARS);
        assert!(h.short.ends_with('…'), "{}", h.short);
    }

    #[test]
    fn the_standard_set_has_no_headline_beyond_its_table() {
        assert_eq!(headline(&sample::doc()), None);
    }

    #[test]
    fn a_pi_run_is_its_score_and_says_when_it_is_not_comparable() {
        let mut doc = sample::doc();
        doc.score = Some(Score::Pi(PiScore {
            equivalents: String::new(),
            formula: String::new(),
            parts: PiParts::default(),
            total: Some(1459),
            extra: Default::default(),
        }));
        let h = headline(&doc).unwrap();
        assert_eq!(h.short, "score 1459");
        assert!(h.sentence.starts_with("PiBenchmarks-compatible score 1459"));
        doc.warnings.push(iomark_result::result::Warning::new(
            WarningKind::PiScoreNotComparable,
            "--size",
        ));
        let h = headline(&doc).unwrap();
        assert_eq!(h.short, "score 1459*");
        assert!(h.sentence.contains("Not comparable"), "{}", h.sentence);
    }

    #[test]
    fn a_card_is_the_highest_class_met_in_each_family_and_what_it_claims_but_misses() {
        let mut doc = sample::doc();
        doc.score = Some(Score::SdCard(SdCardScore {
            classes: vec![
                verdict("C2", "speed", Some(true), ""),
                verdict("C10", "speed", Some(true), "needs the High Speed bus"),
                verdict("U1", "uhs", Some(true), ""),
                verdict("U3", "uhs", Some(false), ""),
                verdict("V10", "video", Some(true), ""),
                verdict("V30", "video", Some(false), ""),
                verdict("A1", "app", Some(false), "SD 5.1"),
                verdict("A2", "app", Some(false), "SD 6.0"),
            ],
            extra: Default::default(),
            not_a_card: None,
            claimed: Vec::new(),
        }));
        let h = headline(&doc).unwrap();
        assert_eq!(h.short, "C10 U1 V10");
        assert!(
            h.sentence
                .starts_with("By the figures measured here it meets C10, U1 and V10."),
            "{}",
            h.sentence
        );
        assert!(h.sentence.contains("C10 needs the High Speed bus"));
        let mut device = doc.target.device.clone().unwrap_or_default();
        let sd = iomark_result::result::Sd {
            claimed_classes: vec!["C10".into(), "U3".into(), "V30".into(), "A1".into()],
            ..Default::default()
        };
        device.sd = Some(sd);
        doc.target.device = Some(device);
        let h = headline(&doc).unwrap();
        assert_eq!(h.short, "C10 U1 V10, misses claimed U3 V30 A1");
        assert_eq!(classes_met_of(&h.short), "C10 U1 V10");
        assert!(
            h.sentence
                .ends_with("It falls short of the U3, V30 and A1 claimed for it."),
            "{}",
            h.sentence
        );
        // Claims saved in the score (`--claimed`) come before the card's own.
        if let Some(Score::SdCard(score)) = &mut doc.score {
            score.claimed = vec!["V30".into()];
        }
        assert_eq!(
            headline(&doc).unwrap().short,
            "C10 U1 V10, misses claimed V30"
        );
    }

    /// Issue 45: a probe that found all 256 MiB real said "intact, 63.8 MiB" in the history.
    #[test]
    fn a_verify_says_what_was_checked_and_what_was_found() {
        let mut doc = sample::doc();
        doc.tests.clear();
        let mut v = sample::verify_section();
        doc.verify = Some(v.clone());
        assert_eq!(
            headline(&doc).unwrap().short,
            "256 MiB real; 64 MiB checked"
        );
        v.real_bytes = Some(32 << 20);
        v.ok = false;
        doc.verify = Some(v.clone());
        assert_eq!(
            headline(&doc).unwrap().short,
            "holds only 32 MiB of 256 MiB claimed"
        );
        v.real_bytes = None;
        v.claimed_bytes = None;
        v.bad_bytes = 1 << 20;
        doc.verify = Some(v);
        assert_eq!(
            headline(&doc).unwrap().short,
            "1 MiB of 64 MiB read back wrong"
        );
    }
}
