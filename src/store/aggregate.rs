//! What a device's results add up to: per figure the median and quartiles, per scope (all of
//! its results, one board's, one filesystem's).

use std::collections::BTreeMap;

use super::site::{DeviceRow, Entry, Spread, METRICS};

/// The aggregates a result of this board and filesystem counts in: all of its device's, its
/// board's, its filesystem's.
pub(super) fn scopes(board: Option<&str>, fs: Option<&str>) -> Vec<String> {
    let mut out = vec![String::new()];
    out.extend(
        board
            .filter(|b| !b.is_empty())
            .map(|b| format!("board:{b}")),
    );
    out.extend(fs.filter(|f| !f.is_empty()).map(|f| format!("fs:{f}")));
    out
}

pub(super) fn in_scope(e: &Entry, scope: &str) -> bool {
    if let Some(board) = scope.strip_prefix("board:") {
        e.board.as_deref() == Some(board)
    } else if let Some(fs) = scope.strip_prefix("fs:") {
        e.filesystem.as_deref() == Some(fs)
    } else {
        true
    }
}

/// Groups entries by device (in the order each device first appears) and summarises each:
/// per figure its median and quartiles, the median price, the newest name.
pub fn aggregate(entries: &[Entry]) -> Vec<DeviceRow> {
    let mut order: Vec<&str> = Vec::new();
    let mut groups: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in entries {
        let Some(key) = e.device_key.as_deref() else {
            continue;
        };
        groups
            .entry(key)
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(e);
    }
    order
        .into_iter()
        .map(|key| {
            let group = &groups[key];
            let newest = group
                .iter()
                .max_by(|a, b| a.started_at.cmp(&b.started_at))
                .copied()
                .unwrap_or(group[0]);
            let mut stats = BTreeMap::new();
            for metric in METRICS {
                let values: Vec<f64> = group
                    .iter()
                    .filter_map(|e| e.figures.get(metric).copied())
                    .collect();
                if let Some(spread) = spread(values) {
                    stats.insert(metric.to_string(), spread);
                }
            }
            let prices: Vec<f64> = group.iter().filter_map(|e| e.price_usd).collect();
            DeviceRow {
                key: key.to_string(),
                name: newest.device_name.clone(),
                kind: newest.kind.clone(),
                transport: newest.transport.clone(),
                capacity_gb: newest.capacity_gb,
                results: group.len() as i64,
                price_usd: spread(prices).map(|s| s.median),
                stats,
            }
        })
        .collect()
}

/// Median and quartiles (linear interpolation between closest ranks), or none of nothing.
pub fn spread(mut values: Vec<f64>) -> Option<Spread> {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (values.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
    };
    Some(Spread {
        median: at(0.5),
        p25: at(0.25),
        p75: at(0.75),
        n: values.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles() {
        let s = spread(vec![4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!((s.median, s.p25, s.p75, s.n), (3.0, 2.0, 4.0, 5));
        let s = spread(vec![1.0, 2.0]).unwrap();
        assert_eq!(s.median, 1.5);
        assert!(spread(vec![f64::NAN]).is_none());
    }
}
