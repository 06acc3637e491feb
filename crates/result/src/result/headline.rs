//! What a run is shared for beyond the standard table, per profile, said once: the pi
//! profile's score, the SD classes a card meets, where a long write's cache runs out, where a
//! sweep saturates, a surface's mean rate and access time, what a verify found, the languages'
//! spread. `short` fits a table cell (history, the site's lists, a device's results); `sentence`
//! says it to a person (the card, Markdown, HTML, a result's page).

use super::score::{ClassVerdict, Score, SdCardScore};
use super::warning::WarningKind;
use super::ResultDoc;
use crate::units::format_size;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Headline {
    /// A few words: `score 1459`, `C10 U3 V30 A1`, `cliff at 4 GiB`.
    pub short: String,
    /// One plain sentence on what it means.
    pub sentence: String,
}

/// The SD families in the order a card's label prints them.
const FAMILIES: [&str; 4] = ["speed", "uhs", "video", "app"];

/// The most characters of `short`: the longest iomark writes is a card missing three claimed
/// classes (`C10 U1 V10, misses claimed U3 V30 A1`, 36); class and language names come from
/// the document, and a crafted one must not fill the lists everyone else reads.
const SHORT_CHARS: usize = 48;

impl ResultDoc {
    /// The run's headline, where its profile has one (none for the standard set, whose table
    /// is its headline).
    pub fn headline(&self) -> Option<Headline> {
        let mut h = self.headline_unbounded()?;
        if h.short.chars().count() > SHORT_CHARS {
            h.short = h.short.chars().take(SHORT_CHARS - 1).collect::<String>() + "…";
        }
        Some(h)
    }

    fn headline_unbounded(&self) -> Option<Headline> {
        if let Some(verify) = &self.verify {
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
        if let Some(health) = &self.health {
            return Some(Headline {
                short: format!("{} (check {})", health.verdict, health.checks.max(1)),
                sentence: health.sentence.clone(),
            });
        }
        if let Some(langs) = &self.langs {
            return langs_headline(langs);
        }
        match self.score.as_ref()? {
            Score::Pi(pi) => {
                let total = pi.total?;
                let comparable = !self.warned(WarningKind::PiScoreNotComparable);
                Some(Headline {
                    short: format!("score {total}{}", if comparable { "" } else { "*" }),
                    sentence: format!(
                        "PiBenchmarks-compatible score {total}: higher is faster, and 4K random \
                         writes weigh most, as they decide how a Pi feels in use.{}",
                        if comparable {
                            ""
                        } else {
                            " Not comparable with pibenchmarks.com: --size changed its files."
                        }
                    ),
                })
            }
            Score::SdCard(sd) => sd_classes(self, sd),
            Score::Sustained(s) => {
                let s = s.sustained.as_ref()?;
                Some(match s.cliff_at_bytes {
                    Some(at) => Headline {
                        short: format!("cliff at {}", format_size(at)),
                        sentence: format!(
                            "Writes {:.1} MB/s for the first {}, then {:.1} MB/s: a write cache \
                             ran out there.",
                            s.before_mb_per_s,
                            format_size(at),
                            s.after_mb_per_s
                        ),
                    },
                    None => Headline {
                        short: format!("no cliff, {}", crate::units::Rate(s.before_mb_per_s)),
                        sentence: format!(
                            "Wrote {:.1} MB/s throughout {}: no write cache ran out.",
                            s.before_mb_per_s,
                            format_size(s.written_bytes)
                        ),
                    },
                })
            }
            Score::Sweep(sweep) => {
                let mut short = Vec::new();
                let mut words = Vec::new();
                for (op, entry) in [("read", &sweep.sweep.read), ("write", &sweep.sweep.write)] {
                    let Some(block) = entry.as_ref().and_then(|e| e.saturated_at_block_size) else {
                        continue;
                    };
                    short.push(format!(
                        "{} {}",
                        &op[..1].to_uppercase(),
                        format_size(block)
                    ));
                    words.push(format!("{op}s at {} blocks", format_size(block)));
                }
                (!short.is_empty()).then(|| Headline {
                    short: format!("saturates {}", short.join(", ")),
                    sentence: format!(
                        "Sequential {} come within 90% of their best: larger blocks gain \
                         little.",
                        words.join(" and ")
                    ),
                })
            }
            Score::Surface(s) => {
                let s = &s.surface;
                Some(Headline {
                    short: format!("{:.1} MB/s, {:.2} ms", s.mean_mb_per_s, s.mean_access_ms),
                    sentence: format!(
                        "Reads {:.1} MB/s on average across the {} ({:.1} to {:.1}), and finds a \
                         random block in {:.2} ms.",
                        s.mean_mb_per_s, s.over, s.min_mb_per_s, s.max_mb_per_s, s.mean_access_ms
                    ),
                })
            }
            Score::Other(_) => None,
        }
    }
}

/// The fastest and the slowest language through its default buffered I/O (the 2019
/// question), each named with its variant; where no default variant ran, among those that did.
fn langs_headline(langs: &super::langs::Section) -> Option<Headline> {
    let by_write = |a: &&super::langs::LangResult, b: &&super::langs::LangResult| {
        a.write.mb_per_s.total_cmp(&b.write.mb_per_s)
    };
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
    let name = |r: &super::langs::LangResult| format!("{}/{}", r.lang, r.variant);
    if pool.len() == 1 {
        return Some(Headline {
            short: format!("{} {}", name(fast), crate::units::Rate(fast.write.mb_per_s)),
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

/// The highest class met in each family, and the claimed classes it falls short of.
fn sd_classes(doc: &ResultDoc, score: &SdCardScore) -> Option<Headline> {
    let classes = &score.classes;
    if classes.iter().all(|c| c.pass.is_none()) {
        return None;
    }
    let met: Vec<&ClassVerdict> = FAMILIES
        .iter()
        .filter_map(|family| {
            classes
                .iter()
                .rev()
                .find(|c| c.family == *family && c.pass == Some(true))
        })
        .collect();
    // What the score saved; a document from before it did, what its card reported.
    let register = doc
        .target
        .device
        .as_ref()
        .and_then(|d| d.sd.as_ref())
        .map(|sd| sd.claimed_classes.as_slice())
        .unwrap_or_default();
    let claimed: Vec<&str> = match score.claimed.is_empty() {
        true => register.iter().map(String::as_str).collect(),
        false => score.claimed.iter().map(String::as_str).collect(),
    };
    let short_of: Vec<&str> = claimed
        .iter()
        .copied()
        .filter(|name| {
            classes
                .iter()
                .any(|c| c.class == *name && c.pass == Some(false))
        })
        .collect();
    let names: Vec<&str> = met.iter().map(|c| c.class.as_str()).collect();
    let mut sentence = if names.is_empty() {
        "Meets no SD class by the figures measured here.".to_string()
    } else {
        format!("By the figures measured here it meets {}.", list(&names))
    };
    let needs: Vec<String> = met
        .iter()
        .filter_map(|c| Some(format!("{} {}", c.class, &c.note[c.note.find("needs")?..])))
        .collect();
    if !needs.is_empty() {
        sentence.push_str(&format!(" Beyond figures, {}.", needs.join("; ")));
    }
    if !short_of.is_empty() {
        sentence.push_str(&format!(
            " It falls short of the {} claimed for it.",
            list(&short_of)
        ));
    } else if !claimed.is_empty() {
        sentence.push_str(&format!(
            " It meets every class claimed for it ({}).",
            claimed.join(" ")
        ));
    }
    let mut short = if names.is_empty() {
        "below C2".to_string()
    } else {
        names.join(" ")
    };
    if !short_of.is_empty() {
        short.push_str(&format!("{MISSES}{}", short_of.join(" ")));
    }
    Some(Headline { short, sentence })
}

/// What an SD card's `short` headline adds after the classes met: the claimed ones missed.
const MISSES: &str = ", misses claimed ";

/// The classes met of an SD card's `short` headline (`C10 U1 V10` of `C10 U1 V10, misses
/// claimed U3 V30 A1`).
pub fn classes_met_of(short: &str) -> &str {
    short.split(MISSES).next().unwrap_or(short)
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sample;
    use crate::result::score::{ClassFigures, PiParts, PiScore, SdCardScore};

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
        let h = doc.headline().unwrap();
        assert_eq!(h.short.chars().count(), SHORT_CHARS);
        assert!(h.short.ends_with('…'), "{}", h.short);
    }

    #[test]
    fn the_standard_set_has_no_headline_beyond_its_table() {
        assert_eq!(sample::doc().headline(), None);
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
        let h = doc.headline().unwrap();
        assert_eq!(h.short, "score 1459");
        assert!(h.sentence.starts_with("PiBenchmarks-compatible score 1459"));
        doc.warnings.push(crate::result::warning::Warning::new(
            WarningKind::PiScoreNotComparable,
            "--size",
        ));
        let h = doc.headline().unwrap();
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
        let h = doc.headline().unwrap();
        assert_eq!(h.short, "C10 U1 V10");
        assert!(
            h.sentence
                .starts_with("By the figures measured here it meets C10, U1 and V10."),
            "{}",
            h.sentence
        );
        assert!(h.sentence.contains("C10 needs the High Speed bus"));
        let mut device = doc.target.device.clone().unwrap_or_default();
        let sd = crate::result::Sd {
            claimed_classes: vec!["C10".into(), "U3".into(), "V30".into(), "A1".into()],
            ..Default::default()
        };
        device.sd = Some(sd);
        doc.target.device = Some(device);
        let h = doc.headline().unwrap();
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
            doc.headline().unwrap().short,
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
            doc.headline().unwrap().short,
            "256 MiB real; 64 MiB checked"
        );
        v.real_bytes = Some(32 << 20);
        v.ok = false;
        doc.verify = Some(v.clone());
        assert_eq!(
            doc.headline().unwrap().short,
            "holds only 32 MiB of 256 MiB claimed"
        );
        v.real_bytes = None;
        v.claimed_bytes = None;
        v.bad_bytes = 1 << 20;
        doc.verify = Some(v);
        assert_eq!(
            doc.headline().unwrap().short,
            "1 MiB of 64 MiB read back wrong"
        );
    }
}
