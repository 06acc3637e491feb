//! Where one result stands among the others a site holds: per ranked figure, how many ranked
//! results of the same class it is faster than, among its own model and among devices of its
//! kind on its board, and the model's median. Flagged and synthetic results are never counted,
//! nor the result itself. A group is compared by its latest [`SAMPLE`] results at most (by id,
//! which orders results by when they were measured), read backwards along an index: reading a
//! busy model's every result made each submission's cost grow with them (`bench/busy-device`).

use sqlx::Row;

use super::Site;
use crate::StoreError;
use iomark_result::result::metric::{Metric, METRICS};

/// The most results of a group a standing compares with: its latest.
pub const SAMPLE: i64 = 5000;

/// Where the result stands in one group, for one figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Among {
    /// Other ranked results of the group with this figure, of the latest ones compared.
    pub results: i64,
    /// Whether the group holds more than were compared (only its latest were).
    pub latest: bool,
    /// How many of them it is faster than, counting ties as half.
    pub faster_than: f64,
    /// The group's median of the figure (the others').
    pub median: Option<f64>,
}

/// One figure's standing.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureStanding {
    pub metric: &'static Metric,
    pub value: f64,
    /// Among results of the same model (device key).
    pub model: Among,
    /// Among results of the same kind on the same board (all boards when it names none).
    pub kind: Among,
}

/// What a standing is computed for: the result's own facts.
pub struct Whose<'a> {
    pub id: &'a str,
    pub class: &'a str,
    pub device_key: Option<&'a str>,
    pub kind: &'a str,
    pub board: Option<&'a str>,
    /// The result's figures, by metric.
    pub figures: Vec<(&'static Metric, f64)>,
}

impl Site<'_> {
    /// Where a saved result stands, figure by figure. Each group's figures are read in one
    /// query and counted here: a query per figure, group and count (up to 36 a submission)
    /// took 440 ms of every submission on a store of 100,000 results (bench/site-load).
    /// Each group compared by its latest `sample` results at most ([`SAMPLE`] on a site).
    pub async fn standing(
        &self,
        whose: &Whose<'_>,
        sample: i64,
    ) -> Result<Vec<FigureStanding>, StoreError> {
        let sample = sample.max(1);
        // A merged key's results are filed under the key it leads to.
        let key = match whose.device_key {
            Some(key) => Some(self.moved(key).await?.unwrap_or_else(|| key.to_string())),
            None => None,
        };
        let model = match &key {
            Some(key) => self.peers(whose, "device_key = $3", &[key], sample).await?,
            None => Vec::new(),
        };
        // The kind on the board, or on any board when the result names none.
        let kind = match whose.board {
            Some(board) => {
                self.peers(
                    whose,
                    "kind = $3 AND board = $4",
                    &[whose.kind, board],
                    sample,
                )
                .await?
            }
            None => {
                self.peers(whose, "kind = $3", &[whose.kind], sample)
                    .await?
            }
        };
        Ok(whose
            .figures
            .iter()
            .map(|(metric, value)| {
                debug_assert!(METRICS.iter().any(|m| m.column == metric.column));
                let at = whose
                    .figures
                    .iter()
                    .position(|(m, _)| m.column == metric.column)
                    .unwrap_or(0);
                FigureStanding {
                    metric,
                    value: *value,
                    model: among(&model, at, *value, sample),
                    kind: among(&kind, at, *value, sample),
                }
            })
            .collect())
    }

    /// The figures `whose` has (in its order), of every ranked real result of its class that
    /// matches `condition` (its parameters from $3), the result itself left out.
    async fn peers(
        &self,
        whose: &Whose<'_>,
        condition: &str,
        binds: &[&str],
        sample: i64,
    ) -> Result<Vec<Vec<Option<f64>>>, StoreError> {
        // Columns of the metric list, never text from a request.
        let columns: Vec<&str> = whose.figures.iter().map(|(m, _)| m.column).collect();
        if columns.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {} FROM entries WHERE class = $1 AND id <> $2 AND flag IS NULL \
             AND synthetic = 0 AND {condition} ORDER BY id DESC LIMIT {sample}",
            columns.join(", ")
        );
        let rows = self
            .reader
            .read(|pool| {
                let mut query = sqlx::query(&sql).bind(whose.class).bind(whose.id);
                for bind in binds {
                    query = query.bind(*bind);
                }
                Box::pin(query.fetch_all(pool))
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|row| {
                (0..columns.len())
                    .map(|i| row.try_get::<Option<f64>, _>(i))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }
}

/// Where `value` stands among the figures in column `at` of `rows`: how many there are, how
/// many it is faster than (ties as half), and their median (the lower middle one).
fn among(rows: &[Vec<Option<f64>>], at: usize, value: f64, sample: i64) -> Among {
    let mut values: Vec<f64> = rows
        .iter()
        .filter_map(|row| row.get(at).copied().flatten())
        .filter(|v| v.is_finite())
        .collect();
    values.sort_by(f64::total_cmp);
    let below = values.iter().filter(|v| **v < value).count() as f64;
    let equal = values.iter().filter(|v| **v == value).count() as f64;
    Among {
        results: values.len() as i64,
        latest: rows.len() as i64 >= sample,
        faster_than: below + equal / 2.0,
        median: (!values.is_empty()).then(|| values[(values.len() - 1) / 2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_count_half_and_the_median_is_the_lower_middle() {
        let rows: Vec<Vec<Option<f64>>> = [1.0, 2.0, 2.0, 3.0]
            .iter()
            .map(|v| vec![None, Some(*v)])
            .collect();
        assert_eq!(
            among(&rows, 1, 2.0, 5000),
            Among {
                results: 4,
                latest: false,
                faster_than: 2.0,
                median: Some(2.0)
            }
        );
        assert_eq!(among(&rows, 0, 2.0, 5000).results, 0);
        assert_eq!(among(&rows, 0, 2.0, 5000).median, None);
        assert_eq!(among(&rows[..2], 1, 5.0, 5000).median, Some(1.0));
        assert!(
            among(&rows, 1, 2.0, 4).latest,
            "as many as the sample: there may be more"
        );
    }
}
