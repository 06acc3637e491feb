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

/// Student's t at 97.5% for 1 to 30 degrees of freedom (a two-sided 95% interval); beyond, the
/// normal's 1.96 is within 2%.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The half-width of the 95% confidence interval of the mean of `values`, as a share of the
/// mean (Student's t); none for fewer than two values or a zero mean.
pub fn mean_ci95_relative(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let t = T_975.get(values.len() - 2).copied().unwrap_or(1.96);
    Some(t * sd / n.sqrt() / mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_narrows_with_more_and_steadier_loops() {
        // Mean 100, sample sd 1, n 3: 4.303 · 1/√3 = 2.48%.
        let w = mean_ci95_relative(&[99.0, 100.0, 101.0]).unwrap();
        assert!((w - 0.024843).abs() < 1e-5, "{w}");
        let w10 = mean_ci95_relative(&[
            99.0, 100.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 101.0, 100.0,
        ])
        .unwrap();
        assert!(w10 < w);
        assert!(mean_ci95_relative(&[5.0]).is_none());
    }
}
