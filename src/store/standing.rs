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
    /// Where a saved result stands, figure by figure.
    pub async fn standing(&self, whose: &Whose<'_>) -> Result<Vec<FigureStanding>, StoreError> {
        let mut out = Vec::new();
        // A merged key's results are filed under the key it leads to.
        let key = match whose.device_key {
            Some(key) => Some(self.moved(key).await?.unwrap_or_else(|| key.to_string())),
            None => None,
        };
        for (metric, value) in &whose.figures {
            debug_assert!(METRICS.iter().any(|m| m.column == metric.column));
            let model = match &key {
                Some(key) => self.among(whose, metric, *value, "device_key", key).await?,
                None => Among {
                    results: 0,
                    faster_than: 0.0,
                    median: None,
                },
            };
            let kind = self.among_kind(whose, metric, *value, whose.board).await?;
            out.push(FigureStanding {
                metric,
                value: *value,
                model,
                kind,
            });
        }
        Ok(out)
    }

    async fn among_kind(
        &self,
        whose: &Whose<'_>,
        metric: &Metric,
        value: f64,
        board: Option<&str>,
    ) -> Result<Among, StoreError> {
        // `kind` and `board` both bound; the board condition only when there is one.
        let extra = if board.is_some() {
            " AND board = $5"
        } else {
            ""
        };
        self.count(
            whose,
            metric,
            value,
            &format!("kind = $4{extra}"),
            &[Some(whose.kind), board],
        )
        .await
    }

    async fn among(
        &self,
        whose: &Whose<'_>,
        metric: &Metric,
        value: f64,
        column: &str,
        equal: &str,
    ) -> Result<Among, StoreError> {
        self.count(
            whose,
            metric,
            value,
            &format!("{column} = $4"),
            &[Some(equal)],
        )
        .await
    }

    /// Counts and the median over the ranked results of `whose.class` matching `condition`
    /// (its parameters from $4), the result itself left out.
    async fn count(
        &self,
        whose: &Whose<'_>,
        metric: &Metric,
        value: f64,
        condition: &str,
        binds: &[Option<&str>],
    ) -> Result<Among, StoreError> {
        // A column of the metric list, never text from a request.
        let col = metric.column;
        let scope = format!(
            "FROM entries WHERE class = $1 AND id <> $2 AND flag IS NULL AND synthetic = 0 \
             AND {col} IS NOT NULL AND {condition}"
        );
        let sql = format!(
            "SELECT COUNT(*), CAST(SUM(CASE WHEN {col} < $3 THEN 1.0 WHEN {col} = $3 THEN 0.5 \
             ELSE 0.0 END) AS DOUBLE PRECISION) {scope}"
        );
        let mut query = sqlx::query(&sql)
            .bind(whose.class)
            .bind(whose.id)
            .bind(value);
        for bind in binds.iter().flatten() {
            query = query.bind(*bind);
        }
        let row = query
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.fail(e))?;
        let results: i64 = row.try_get(0).map_err(|e| self.fail(e))?;
        let faster_than: Option<f64> = row.try_get(1).map_err(|e| self.fail(e))?;
        let median = if results > 0 {
            // The middle value (the lower of two): ORDER BY, then one row at the middle. $3
            // is named (always true) so that PostgreSQL knows each parameter's type.
            let sql = format!(
                "SELECT {col} {scope} AND ({col} < $3 OR {col} >= $3) ORDER BY {col} \
                 LIMIT 1 OFFSET {}",
                (results - 1) / 2
            );
            let mut query = sqlx::query(&sql)
                .bind(whose.class)
                .bind(whose.id)
                .bind(value);
            for bind in binds.iter().flatten() {
                query = query.bind(*bind);
            }
            let row = query
                .fetch_optional(&self.pool)
                .await
                .map_err(|e| self.fail(e))?;
            row.map(|r| r.try_get::<f64, _>(0))
                .transpose()
                .map_err(|e| self.fail(e))?
        } else {
            None
        };
        Ok(Among {
            results,
            faster_than: faster_than.unwrap_or(0.0),
            median,
        })
    }
}
