//! What a device's page says of the cards of it their owners watch (`iomark health --share`):
//! how many, for how long, how many failed, after how many months and how many bytes written.
//! Each submitter's cards count up to [`PER_SUBMITTER`], the longest watched: one household's
//! drawer of cards is told, one address cannot make a model's record; and how many owners the
//! failures came from is said with them, so that four failures of one drawer do not read as
//! four owners' bad luck.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

use iomark_result::result::health::Verdict;
use iomark_store::CardRow;

/// The most cards of one submitter a device's record counts.
pub const PER_SUBMITTER: usize = 4;
/// A month, in seconds: a year's twelfth.
const MONTH_S: f64 = 365.25 * 86_400.0 / 12.0;

/// The cards of a device, as their shared health checks tell them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CardsView {
    /// Cards counted (at most [`PER_SUBMITTER`] of each submitter), and how many submitters
    /// watch them.
    pub cards: usize,
    pub submitters: usize,
    /// How long they have been watched, from each card's first shared check to its newest.
    pub median_months: f64,
    pub longest_months: f64,
    /// How many a check now finds healthy, to watch, failing or lying (the newest check's
    /// verdict), in that order.
    pub now: Vec<(Verdict, usize)>,
    /// Each card that failed (a check found it failing or lying), the soonest first.
    pub failed: Vec<Failure>,
    /// How many submitters the failed cards are of.
    pub failed_owners: usize,
    /// What it says, in a sentence.
    pub sentence: String,
}

/// One card's failure: which, after how long watched, and what its device wrote till then.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Failure {
    pub verdict: Verdict,
    pub months: f64,
    /// Terabytes written from its first shared check to the failing one, where the checks
    /// could count them (every check between in one boot of its machine).
    pub written_tb: Option<f64>,
}

/// The record of a device's cards; None where none is watched.
pub fn of(rows: &[CardRow]) -> Option<CardsView> {
    let mut per: HashMap<&str, usize> = HashMap::new();
    // The rows come longest watched first: a submitter's first ones are kept.
    let counted: Vec<&CardRow> = rows
        .iter()
        .filter(|row| match row.submitter.as_deref() {
            None => true,
            Some(who) => {
                let n = per.entry(who).or_default();
                *n += 1;
                *n <= PER_SUBMITTER
            }
        })
        .collect();
    if counted.is_empty() {
        return None;
    }
    let submitters = owners(counted.iter().copied());
    let mut months: Vec<f64> = counted
        .iter()
        .map(|r| (r.last_s - r.first_s).max(0) as f64 / MONTH_S)
        .collect();
    months.sort_by(f64::total_cmp);
    let median_months = months[iomark_result::stats::median_index(&months)];
    let longest_months = months.last().copied().unwrap_or(0.0);
    let now = Verdict::ALL
        .into_iter()
        .map(|v| (v, counted.iter().filter(|r| r.verdict == v).count()))
        .filter(|(_, n)| *n > 0)
        .collect();
    let mut failed: Vec<Failure> = counted
        .iter()
        .filter_map(|r| {
            let (at, verdict, written) = r.failed.as_ref()?;
            Some(Failure {
                verdict: *verdict,
                months: (at - r.first_s).max(0) as f64 / MONTH_S,
                written_tb: written.map(|w| w as f64 / 1e12),
            })
        })
        .collect();
    failed.sort_by(|a, b| a.months.total_cmp(&b.months));
    let failed_owners = owners(counted.iter().filter(|r| r.failed.is_some()).copied());
    let sentence = sentence(
        counted.len(),
        submitters,
        median_months,
        longest_months,
        (&failed, failed_owners),
    );
    Some(CardsView {
        cards: counted.len(),
        submitters,
        median_months,
        longest_months,
        now,
        failed,
        failed_owners,
        sentence,
    })
}

/// How many owners `rows` are of: households (`store::households`: one client over IPv4 and
/// IPv6 is one), a row whose sender the site could not tell one of its own.
fn owners<'a>(rows: impl Iterator<Item = &'a CardRow>) -> usize {
    iomark_store::households(rows.map(|row| row.submitter.as_deref()))
}

fn sentence(
    cards: usize,
    submitters: usize,
    median: f64,
    longest: f64,
    (failed, failed_owners): (&[Failure], usize),
) -> String {
    let plural = |n: usize, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let mut text = match cards {
        1 => format!(
            "1 card of this model is watched by its owner, for {} so far.",
            span(median)
        ),
        n => format!(
            "{n} cards of this model are watched by {}, for a median of {} (the longest {}).",
            plural(submitters, "owner", "owners"),
            span(median),
            span(longest)
        ),
    };
    let words = |f: &Failure| {
        let what = f.verdict.meaning(false);
        match f.written_tb {
            Some(tb) => format!("{what} after {} and {tb:.2} TB written", span(f.months)),
            None => format!("{what} after {}", span(f.months)),
        }
    };
    match failed {
        [] => text.push_str(" None has failed yet."),
        [one] => text.push_str(&format!(" 1 failed: {}.", words(one))),
        many => {
            let each: Vec<String> = many.iter().take(5).map(words).collect();
            let more = match many.len() > 5 {
                true => format!(", and {} more", many.len() - 5),
                false => String::new(),
            };
            text.push_str(&format!(
                " {} failed, {}: {}{more}.",
                many.len(),
                match failed_owners {
                    1 => "all of one owner's".to_string(),
                    n => format!("of {n} owners"),
                },
                each.join("; ")
            ));
        }
    }
    text
}

/// A time watched, in months: in days under two months, where a tenth of a month would hide
/// most of it.
fn span(months: f64) -> String {
    let days = (months * MONTH_S / 86_400.0).round() as i64;
    match days {
        0 => "under a day".into(),
        1 => "1 day".into(),
        d if d < 61 => format!("{d} days"),
        _ => format!("{months:.1} months"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(who: Option<&str>, days: i64, verdict: &str, failed: Option<(i64, &str)>) -> CardRow {
        CardRow {
            device_name: "SanDisk Ultra 32GB".into(),
            submitter: who.map(str::to_string),
            first_s: 0,
            last_s: days * 86_400,
            checks: days,
            verdict: Verdict::parse(verdict).unwrap(),
            written: Some(days * 10_000_000_000),
            failed: failed.map(|(d, v)| {
                let v = Verdict::parse(v).unwrap();
                (d * 86_400, v, Some(d * 10_000_000_000))
            }),
        }
    }

    /// One submitter's many cards count as a household's (the longest four); a failure is
    /// told with its months and terabytes, and what the newest checks find is counted.
    #[test]
    fn a_submitters_drawer_counts_as_a_household() {
        let mut rows = vec![row(Some("a"), 400, "lying", Some((300, "lying")))];
        rows.extend((0..9).map(|i| row(Some("b"), 200 - i, "failing", Some((100, "failing")))));
        rows.push(row(None, 60, "healthy", None));
        let view = of(&rows).unwrap();
        assert_eq!(view.cards, 6);
        assert_eq!(view.submitters, 3);
        assert_eq!(view.failed.len(), 5);
        assert!((view.failed[0].months - 100.0 * 86_400.0 / MONTH_S).abs() < 1e-9);
        assert_eq!(view.failed[4].written_tb, Some(3.0));
        assert_eq!(
            view.now,
            vec![
                (Verdict::Healthy, 1),
                (Verdict::Failing, 4),
                (Verdict::Lying, 1)
            ]
        );
        assert!(view
            .sentence
            .starts_with("6 cards of this model are watched by 3 owners, for a median of 6.5 months (the longest 13.1 months)."));
        assert!(view
            .sentence
            .contains("5 failed, of 2 owners: failing after 3.3 months and 1.00 TB written"));
        assert_eq!(view.failed_owners, 2);
        assert!(view
            .sentence
            .contains("lying about what it stores after 9.9 months and 3.00 TB"));
        let one = of(&[row(Some("a"), 12, "healthy", None)]).unwrap();
        assert_eq!(
            one.sentence,
            "1 card of this model is watched by its owner, for 12 days so far. None has failed yet."
        );
        assert!(of(&[]).is_none());
        // One address's four made-up failures beside another owner's healthy card: told as
        // one owner's.
        let mut rows: Vec<CardRow> = (0..4)
            .map(|i| row(Some("x"), 120 - i, "lying", Some((30, "lying"))))
            .collect();
        rows.push(row(Some("y"), 90, "healthy", None));
        let view = of(&rows).unwrap();
        assert_eq!((view.failed.len(), view.failed_owners), (4, 1));
        assert!(
            view.sentence
                .contains(" 4 failed, all of one owner's: lying about"),
            "{}",
            view.sentence
        );
    }
}
