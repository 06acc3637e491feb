//! What a moderator reviews: results kept out of rankings or naming no device (the site's own
//! flags), ranked results far outside the spread of their own model's others (Tukey's far-out
//! fences), and the first result of a device nobody else has measured.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::Row;

use super::Site;
use crate::columns::{entry, SQL};
use crate::model::{Entry, Spread};
use crate::StoreError;
use iomark_result::result::metric::METRICS;

/// How many interquartile ranges beyond the middle half a figure is far out (Tukey, 1977: 3,
/// his "far out"; 1.5 is his "outside", which a model measured on many boards reaches often).
pub const FAR_OUT: f64 = 3.0;
/// The least middle half a figure's fences are drawn from, as a share of its median: five
/// results of one model that agree to the digit would otherwise make a 1% difference far out.
const LEAST_SPREAD: f64 = 0.05;
/// A model's results before any is called far outside them.
pub const OUTLIER_PEERS: i64 = 5;
/// The newest ranked results looked at for outliers and new devices.
const LOOKED_AT: u32 = 5000;

/// A ranked result far outside its own model's others in one figure (the farthest).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Outlier {
    /// The result, as the listing gives it.
    #[serde(flatten)]
    pub entry: Entry,
    /// The figure (a column of the metric list) and its value.
    pub figure: String,
    pub value: f64,
    /// How the figure spreads over the model's ranked results.
    pub model: Spread,
    /// How many interquartile ranges beyond the middle half it lies.
    pub ranges_out: f64,
}

/// How far beyond `spread`'s middle half `value` lies, in interquartile ranges, where that is
/// [`FAR_OUT`] or more.
pub fn far_out(spread: &Spread, value: f64) -> Option<f64> {
    let range = (spread.p75 - spread.p25).max(spread.median.abs() * LEAST_SPREAD);
    if !(range > 0.0 && value.is_finite()) {
        return None;
    }
    let beyond = if value > spread.p75 {
        value - spread.p75
    } else {
        spread.p25 - value
    };
    Some(beyond / range).filter(|r| *r >= FAR_OUT)
}

impl Site<'_> {
    /// Results kept out of rankings (faster than their link, a changed pi profile) and results
    /// that name no device, newest first.
    pub async fn review(&self, limit: u32) -> Result<Vec<Entry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {} FROM entries WHERE synthetic = 0 AND (flag IS NOT NULL OR device_key IS NULL) \
             ORDER BY started_at DESC, id LIMIT {}",
            SQL.entry_select(""),
            limit.clamp(1, 1000)
        ))
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(entry)
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }

    /// Among the newest ranked results: those far outside their model's others (with at least
    /// [`OUTLIER_PEERS`] results), and those that are their device's only result, newest first,
    /// at most `limit` of each.
    pub async fn unusual(&self, limit: usize) -> Result<(Vec<Outlier>, Vec<Entry>), StoreError> {
        let fail = |e| self.db.fail(e);
        let models: HashMap<(String, String), (i64, String)> = sqlx::query(
            "SELECT class, device_key, results, stats FROM devices \
             WHERE scope = '' AND synthetic = 0",
        )
        .fetch_all(&self.db.pool)
        .await
        .map_err(fail)?
        .iter()
        .map(|row| {
            Ok((
                (row.try_get(0)?, row.try_get(1)?),
                (row.try_get(2)?, row.try_get(3)?),
            ))
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(fail)?;
        let rows = sqlx::query(&format!(
            "SELECT {} FROM entries WHERE synthetic = 0 AND flag IS NULL \
             AND device_key IS NOT NULL ORDER BY started_at DESC, id LIMIT {LOOKED_AT}",
            SQL.entry_select("")
        ))
        .fetch_all(&self.db.pool)
        .await
        .map_err(fail)?;
        let (mut outliers, mut lone) = (Vec::new(), Vec::new());
        for row in &rows {
            let e = entry(row).map_err(fail)?;
            let key = (e.class.clone(), e.device_key.clone().unwrap_or_default());
            let Some((results, stats)) = models.get(&key) else {
                continue;
            };
            if *results == 1 {
                if lone.len() < limit {
                    lone.push(e);
                }
                continue;
            }
            if *results < OUTLIER_PEERS || outliers.len() >= limit {
                continue;
            }
            let stats: HashMap<String, Spread> = serde_json::from_str(stats).unwrap_or_default();
            let farthest = METRICS
                .iter()
                .filter_map(|m| {
                    let value = *e.figures.get(m.column)?;
                    let model = stats.get(m.column)?;
                    Some((m.column, value, model, far_out(model, value)?))
                })
                .max_by(|a, b| a.3.total_cmp(&b.3));
            if let Some((figure, value, model, ranges_out)) = farthest {
                outliers.push(Outlier {
                    figure: figure.to_string(),
                    value,
                    model: model.clone(),
                    ranges_out,
                    entry: e,
                });
            }
        }
        Ok((outliers, lone))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_out_is_three_ranges_beyond_the_middle_half() {
        let s = Spread {
            median: 100.0,
            p25: 90.0,
            p75: 110.0,
            n: 9,
        };
        assert_eq!(far_out(&s, 169.0), None);
        assert_eq!(far_out(&s, 170.0), Some(3.0));
        assert_eq!(far_out(&s, 20.0), Some(3.5));
        assert_eq!(far_out(&s, 100.0), None);
        // Results that agree to the digit: fences from 5% of the median.
        let same = Spread {
            median: 100.0,
            p25: 100.0,
            p75: 100.0,
            n: 5,
        };
        assert_eq!(far_out(&same, 101.0), None);
        assert_eq!(far_out(&same, 115.0), Some(3.0));
        assert_eq!(far_out(&same, f64::NAN), None);
    }
}
