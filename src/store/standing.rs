//! Where one result stands among the others a site holds: per ranked figure, how many ranked
//! results of the same class it is faster than, among its own model and among devices of its
//! kind on its board, and the model's median. Flagged and synthetic results are never counted,
//! nor the result itself.

use sqlx::Row;

use super::{Store, StoreError};
use crate::result::metric::{Metric, METRICS};

/// Where the result stands in one group, for one figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Among {
    /// Other ranked results of the group with this figure.
    pub results: i64,
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

impl Store {
    /// Where a saved result stands, figure by figure. Each group's figures are read in one
    /// query and counted here: a query per figure, group and count (up to 36 a submission)
    /// took 440 ms of every submission on a store of 100,000 results (bench/site-load).
    pub async fn standing(&self, whose: &Whose<'_>) -> Result<Vec<FigureStanding>, StoreError> {
        // A merged key's results are filed under the key it leads to.
        let key = match whose.device_key {
            Some(key) => Some(self.moved(key).await?.unwrap_or_else(|| key.to_string())),
            None => None,
        };
        let model = match &key {
            Some(key) => self.peers(whose, "device_key = $3", &[key]).await?,
            None => Vec::new(),
        };
        // The kind on the board, or on any board when the result names none.
        let kind = match whose.board {
            Some(board) => {
                self.peers(whose, "kind = $3 AND board = $4", &[whose.kind, board])
                    .await?
            }
            None => self.peers(whose, "kind = $3", &[whose.kind]).await?,
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
                    model: among(&model, at, *value),
                    kind: among(&kind, at, *value),
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
    ) -> Result<Vec<Vec<Option<f64>>>, StoreError> {
        // Columns of the metric list, never text from a request.
        let columns: Vec<&str> = whose.figures.iter().map(|(m, _)| m.column).collect();
        if columns.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {} FROM entries WHERE class = $1 AND id <> $2 AND flag IS NULL \
             AND synthetic = 0 AND {condition}",
            columns.join(", ")
        );
        let rows = self
            .read(|pool| {
                let mut query = sqlx::query(&sql).bind(whose.class).bind(whose.id);
                for bind in binds {
                    query = query.bind(*bind);
                }
                Box::pin(query.fetch_all(pool))
            })
            .await
            .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|row| {
                (0..columns.len())
                    .map(|i| row.try_get::<Option<f64>, _>(i))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.fail(e))
    }
}

/// Where `value` stands among the figures in column `at` of `rows`: how many there are, how
/// many it is faster than (ties as half), and their median (the lower middle one).
fn among(rows: &[Vec<Option<f64>>], at: usize, value: f64) -> Among {
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
            among(&rows, 1, 2.0),
            Among {
                results: 4,
                faster_than: 2.0,
                median: Some(2.0)
            }
        );
        assert_eq!(among(&rows, 0, 2.0).results, 0);
        assert_eq!(among(&rows, 0, 2.0).median, None);
        assert_eq!(among(&rows[..2], 1, 5.0).median, Some(1.0));
    }
}
