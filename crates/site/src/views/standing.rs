//! Where a submitted result stands, in figures and in one plain sentence each: among results of
//! its own model, and among devices of its kind on its board. Percentiles only from enough
//! results; otherwise it says there are too few.

use serde::{Deserialize, Serialize};

use crate::State;
use iomark_result::result::metric::{shown, METRICS};
use iomark_result::result::ResultDoc;
use iomark_result::units::figure;
use iomark_store::{Among, FigureStanding, Whose};

/// Fewer other results than this, and no percentile is given.
pub const ENOUGH: i64 = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Group {
    /// What the group is, in words: `SanDisk Extreme 64 GB results`, `USB flash results on
    /// Raspberry Pi 4 Model B`.
    pub name: String,
    /// Other ranked results in the group compared: its latest 5,000 at most.
    pub results: i64,
    /// True when the group may hold more than were compared (only its latest were).
    pub latest: bool,
    /// The share of them this result is faster than, 0-100 (ties count half); null with fewer
    /// than five.
    pub percentile: Option<f64>,
    /// The group's median.
    pub median: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Figure {
    pub metric: String,
    pub label: String,
    pub unit: String,
    pub value: f64,
    pub model: Option<Group>,
    pub kind: Group,
    pub sentence: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Standing {
    pub figures: Vec<Figure>,
    /// The headline figure's sentence.
    pub summary: String,
    /// What to check when figures are in the slowest fifth of their own model's results.
    pub advice: Option<String>,
}

/// Where `doc` (just saved) stands; None for a result kept out of rankings.
pub async fn standing(
    state: &State,
    doc: &ResultDoc,
) -> Result<Option<Standing>, iomark_store::StoreError> {
    let id = doc.identity();
    if id.flag.is_some() || id.synthetic {
        return Ok(None);
    }
    let shown = shown(&id.class, &[]);
    let figures: Vec<_> = METRICS
        .iter()
        .filter(|m| shown.iter().any(|s| s.column == m.column))
        .filter_map(|m| m.of(doc).map(|v| (m, v)))
        .collect();
    let board = doc.host.board.as_deref();
    let whose = Whose {
        id: &doc.id,
        class: &id.class,
        device_key: id.device_key.as_deref(),
        kind: id.kind,
        board,
        figures,
    };
    let found = state
        .store
        .site()
        .standing(&whose, state.config.standing_sample)
        .await?;
    let model_name = id.device_key.as_ref().map(|_| id.device_name.clone());
    let kind_name = match board {
        Some(board) => format!("{} results on {board}", id.kind),
        None => format!("{} results", id.kind),
    };
    let figures: Vec<Figure> = found
        .iter()
        .map(|f| placed(f, model_name.as_deref(), &kind_name))
        .collect();
    let summary = figures
        .first()
        .map(|f| f.sentence.clone())
        .unwrap_or_else(|| "No ranked figure to place.".into());
    let slow: Vec<&str> = figures
        .iter()
        .filter(|f| {
            f.model
                .as_ref()
                .and_then(|m| m.percentile)
                .is_some_and(|p| p < 20.0)
        })
        .map(|f| f.label.as_str())
        .collect();
    let advice = (!slow.is_empty()).then(|| {
        format!(
            "{} {} in the slowest fifth of {}: the same model does better elsewhere, so \
             check the slot, adapter, cable or power",
            slow.join(", "),
            if slow.len() == 1 { "is" } else { "are" },
            id.device_name
        )
    });
    Ok(Some(Standing {
        figures,
        summary,
        advice,
    }))
}

fn group(among: &Among, name: String) -> Group {
    Group {
        name,
        results: among.results,
        latest: among.latest,
        percentile: (among.results >= ENOUGH)
            .then(|| 100.0 * among.faster_than / among.results as f64),
        median: among.median,
    }
}

fn placed(f: &FigureStanding, model: Option<&str>, kind: &str) -> Figure {
    let model = model.map(|m| group(&f.model, format!("{m} results")));
    let kind = group(&f.kind, kind.to_string());
    let what = f.metric.label;
    let unit = f.metric.unit;
    let value = figure(f.value);
    let mut sentence = format!("{what} {value} {unit}: ");
    match (&model, &kind) {
        (
            Some(
                m @ Group {
                    percentile: Some(p),
                    median,
                    ..
                },
            ),
            _,
        ) => {
            sentence.push_str(&format!(
                "{} of {} (their median {} {unit})",
                place(*p),
                counted(m, "other "),
                median.map_or("-".into(), |m| figure(m).to_string())
            ));
        }
        (
            _,
            k @ Group {
                percentile: Some(p),
                ..
            },
        ) => {
            if let Some(m) = &model {
                sentence.push_str(&format!(
                    "only {} other {} so far, too few to place it; ",
                    m.results, m.name
                ));
            }
            sentence.push_str(&format!("{} of {}", place(*p), counted(k, "")));
        }
        (_, k) => sentence.push_str(&format!(
            "too few results to place it yet ({} other {}{})",
            k.results,
            k.name,
            model
                .as_ref()
                .map(|m| format!(", {} other {}", m.results, m.name))
                .unwrap_or_default()
        )),
    }
    Figure {
        metric: f.metric.column.to_string(),
        label: f.metric.label.to_string(),
        unit: unit.to_string(),
        value: f.value,
        model,
        kind,
        sentence,
    }
}

/// How many of a group were compared, in words: `7 other SanDisk … results`, or `the latest
/// 5000 other …` when the group holds more.
fn counted(group: &Group, other: &str) -> String {
    let latest = if group.latest { "the latest " } else { "" };
    format!("{latest}{} {other}{}", group.results, group.name)
}

/// A percentile in words a buyer reads at once.
fn place(p: f64) -> String {
    let band = if p >= 80.0 {
        "in the fastest fifth"
    } else if p < 20.0 {
        "in the slowest fifth"
    } else if p >= 50.0 {
        "faster than most"
    } else {
        "slower than most"
    };
    format!("{band} (faster than {p:.0}%)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(model: (i64, f64), kind: (i64, f64)) -> FigureStanding {
        FigureStanding {
            metric: &METRICS[6],
            value: 1500.0,
            model: Among {
                results: model.0,
                latest: model.0 >= 5000,
                faster_than: model.1,
                median: Some(2500.0),
            },
            kind: Among {
                results: kind.0,
                latest: kind.0 >= 5000,
                faster_than: kind.1,
                median: Some(1800.0),
            },
        }
    }

    #[test]
    fn the_sentence_places_it_or_says_there_are_too_few() {
        let slow = placed(
            &standing((212, 20.0), (900, 300.0)),
            Some("SanDisk Extreme 64 GB"),
            "microSD results on Raspberry Pi 4 Model B",
        );
        assert_eq!(
            slow.sentence,
            "RND4K Q1T1 read 1500 IOPS: in the slowest fifth (faster than 9%) of 212 other \
             SanDisk Extreme 64 GB results (their median 2500 IOPS)"
        );
        let few = placed(
            &standing((1, 1.0), (40, 30.0)),
            Some("SanDisk Extreme 64 GB"),
            "microSD results on Raspberry Pi 4 Model B",
        );
        assert_eq!(few.model.as_ref().unwrap().percentile, None);
        assert_eq!(
            few.sentence,
            "RND4K Q1T1 read 1500 IOPS: only 1 other SanDisk Extreme 64 GB results so far, too \
             few to place it; faster than most (faster than 75%) of 40 microSD results on \
             Raspberry Pi 4 Model B"
        );
        let busy = placed(
            &standing((5000, 4000.0), (5000, 2500.0)),
            Some("SanDisk Extreme 64 GB"),
            "microSD results on Raspberry Pi 4 Model B",
        );
        assert_eq!(
            busy.sentence,
            "RND4K Q1T1 read 1500 IOPS: in the fastest fifth (faster than 80%) of the latest 5000 \
             other SanDisk Extreme 64 GB results (their median 2500 IOPS)"
        );
        let none = placed(&standing((0, 0.0), (2, 1.0)), None, "USB flash results");
        assert!(
            none.sentence
                .contains("too few results to place it yet (2 other USB flash results)"),
            "{}",
            none.sentence
        );
    }
}
