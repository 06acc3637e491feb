//! A buried result sent again with each figure nudged a little (the fifteenth attack pass:
//! by 0.2% at most, each on its own, so that no print of [`super`] holds), under its own
//! device's name or another's (the sixteenth sent it as another device): its figures, nearly
//! all within half a percent of a buried result's, make it a copy. Each buried result's
//! figures are kept with its device and a band of its fastest rate ([`band`]), and a
//! submission is held against the newest of its device's and of its band's: bounded work.

use sqlx::{Any, Row, Transaction};

use iomark_result::result::ResultDoc;

/// How near a figure of a submission must be to a buried result's of its device, a share of
/// the larger, to count as the same: two runs' latencies move by percents, a copy nudged so
/// that no print holds moved them by 0.2% (the fifteenth attack pass).
const NEAR: f64 = 0.005;
/// The share of the figures two results of a device both have that must be that near for a
/// copy: two runs of a steady device share a rate now and then, their latencies' tails never.
const NEAR_SHARE: f64 = 0.9;
/// The fewest figures compared that can make a copy.
const NEAR_AT_LEAST: usize = 16;
/// The most buried results of a device a submission is held against (the newest): bounded
/// work whatever a device's owners deleted.
const NEAR_MOST: i64 = 1000;

/// A result's figures as [`near_copy`] compares them: each test's name with its MB/s, IOPS and
/// latencies (kept as JSON).
pub(super) type NearFigures = Vec<(String, [f64; 10])>;

/// [`NearFigures`] of `doc`.
pub(super) fn near_of(doc: &ResultDoc) -> NearFigures {
    doc.tests
        .iter()
        .map(|t| {
            let l = &t.latency_us;
            let f = [
                t.mb_per_s, t.iops, l.min, l.mean, l.p50, l.p90, l.p99, l.p99_9, l.max, l.stddev,
            ];
            (t.name.clone(), f)
        })
        .collect()
}

/// [`NearFigures`] of `doc` as a store keeps them.
#[cfg(test)]
pub(super) fn near_figures(doc: &ResultDoc) -> String {
    serde_json::to_string(&near_of(doc)).unwrap_or_default()
}

/// Whether figures `mine` are a buried result's `theirs` (as kept) nudged (see [`NEAR`]).
pub(super) fn near_copy(mine: &NearFigures, theirs: &str) -> bool {
    let Ok(theirs) = serde_json::from_str::<NearFigures>(theirs) else {
        return false;
    };
    let (mut compared, mut near) = (0usize, 0usize);
    // Its rates (MB/s and IOPS) of every test it shares with one, each within a thousandth (the
    // nineteenth attack pass kept them so, its latencies redrawn by 2%): two runs' random reads
    // one at a time differ by percents. A test dropped or one made up besides changes nothing.
    let (mut rates, mut same_rates) = (0usize, 0usize);
    let close = |x: f64, y: f64, by: f64| (x - y).abs() <= by * x.max(y);
    for (name, a) in mine {
        let Some((_, b)) = theirs.iter().find(|(n, _)| n == name) else {
            continue;
        };
        for (at, (x, y)) in a.iter().zip(b).enumerate() {
            if *x > 0.0 && *y > 0.0 {
                compared += 1;
                near += usize::from(close(*x, *y, NEAR));
                if at < 2 {
                    rates += 1;
                    same_rates += usize::from(close(*x, *y, SAME_RATE));
                }
            }
        }
    }
    let rates_kept = rates >= RATES_AT_LEAST && same_rates == rates;
    rates_kept || (compared >= NEAR_AT_LEAST && near as f64 >= NEAR_SHARE * compared as f64)
}

/// How near each rate of every test must be to a buried result's for a copy, a share of the
/// larger; and the fewest rates (two a test) that can make one.
const SAME_RATE: f64 = 0.001;
const RATES_AT_LEAST: usize = 12;

/// The band of a result's fastest rate, in steps of twice [`NEAR`]: a copy nudged within
/// [`NEAR`] is in its original's band or the next.
fn band(figures: &NearFigures) -> Option<i64> {
    let fastest = figures
        .iter()
        .map(|(_, f)| f[0])
        .filter(|x| x.is_finite() && *x > 0.0)
        .max_by(f64::total_cmp)?;
    Some((fastest.ln() / (1.0 + 2.0 * NEAR).ln()).floor() as i64)
}

/// Keeps buried result `id`'s figures (its document `doc`), in `tx`.
pub(super) async fn bury(
    tx: &mut Transaction<'_, Any>,
    id: &str,
    doc: &ResultDoc,
) -> Result<(), sqlx::Error> {
    let figures = near_of(doc);
    sqlx::query(
        "INSERT INTO buried_near (id, device_key, figures, band) VALUES ($1, $2, $3, $4) \
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(doc.identity().device_key.unwrap_or_default())
    .bind(serde_json::to_string(&figures).unwrap_or_default())
    .bind(band(&figures))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Whether `doc` is a buried result nudged: its figures near one's of its device, or of its
/// band whatever its device (the newest [`NEAR_MOST`] of each).
pub(super) async fn copy(
    tx: &mut Transaction<'_, Any>,
    doc: &ResultDoc,
) -> Result<bool, sqlx::Error> {
    let mine = near_of(doc);
    let mut queries = Vec::new();
    if let Some(key) = doc.identity().device_key {
        queries.push(
            sqlx::query(
                "SELECT figures FROM buried_near WHERE device_key = $1 \
                 ORDER BY id DESC LIMIT $2",
            )
            .bind(key)
            .bind(NEAR_MOST),
        );
    }
    if let Some(band) = band(&mine) {
        queries.push(
            sqlx::query(
                "SELECT figures FROM buried_near WHERE band BETWEEN $1 AND $2 \
                 ORDER BY id DESC LIMIT $3",
            )
            .bind(band - 1)
            .bind(band + 1)
            .bind(NEAR_MOST),
        );
    }
    for query in queries {
        for row in query.fetch_all(&mut **tx).await? {
            if near_copy(&mine, &row.try_get::<String, _>(0)?) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Gives the results buried before bands were kept theirs, in `tx` (`Derive::rederive`, as a
/// store is derived anew under new rules).
pub(crate) async fn fill_bands(tx: &mut Transaction<'_, Any>) -> Result<(), sqlx::Error> {
    let rows = sqlx::query("SELECT id, figures FROM buried_near WHERE band IS NULL")
        .fetch_all(&mut **tx)
        .await?;
    for row in rows {
        let (id, figures): (String, String) = (row.try_get(0)?, row.try_get(1)?);
        let band = serde_json::from_str::<NearFigures>(&figures)
            .ok()
            .and_then(|f| band(&f));
        sqlx::query("UPDATE buried_near SET band = $1 WHERE id = $2")
            .bind(band)
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
