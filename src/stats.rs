//! Small statistics shared by the suite and the langs experiment.

/// Index of the median value (the lower of the middle two for an even count).
pub fn median_index(values: &[f64]) -> usize {
    if values.is_empty() {
        return 0;
    }
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    order[(values.len() - 1) / 2]
}

/// Sample standard deviation over mean; 0 for fewer than two values or a zero mean.
pub fn coefficient_of_variation(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    variance.sqrt() / mean
}
