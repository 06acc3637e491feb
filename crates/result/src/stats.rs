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

/// Welch's t-test of two samples: the two-sided probability that samples this far apart
/// come from one mean, where their spreads may differ; none with fewer than two values in
/// either or no spread in both. (Welch, "The generalization of Student's problem when
/// several different population variances are involved", Biometrika 1947.)
pub fn welch_p(a: &[f64], b: &[f64]) -> Option<f64> {
    welch_p_beside(a, b, 0.0, f64::INFINITY)
}

/// [`welch_p`] with a further variance `extra` in the difference of the means, itself
/// estimated with `extra_df` degrees of freedom (infinite where it is taken as known): what the
/// samples cannot show, such as how much the level of two runs of one disk differs beyond
/// their loops. Its degrees of freedom join Welch–Satterthwaite's.
pub fn welch_p_beside(a: &[f64], b: &[f64], extra: f64, extra_df: f64) -> Option<f64> {
    let w = Welch::of(a, b, extra, extra_df)?;
    if w.se2.is_nan() || w.se2 <= 0.0 {
        return (w.diff == 0.0).then_some(1.0).or(Some(0.0));
    }
    Some(student_t_two_sided(w.diff / w.se2.sqrt(), w.df))
}

/// The smallest difference of the means that [`welch_p_beside`] would find at `level` (its
/// p-value under it) with these samples' spreads: how far apart two samples so spread must be
/// to be told apart. None with fewer than two values in either, or no spread at all.
pub fn welch_detectable(
    a: &[f64],
    b: &[f64],
    extra: f64,
    extra_df: f64,
    level: f64,
) -> Option<f64> {
    let w = Welch::of(a, b, extra, extra_df)?;
    let usable = |x: f64, high: f64| x > 0.0 && x < high;
    if !usable(w.se2, f64::INFINITY) || !usable(level, 1.0) {
        return None;
    }
    // The tail falls as t grows: bisect for the t whose tail is `level`.
    let (mut low, mut high) = (0.0f64, 1.0f64);
    while student_t_two_sided(high, w.df) >= level {
        high *= 2.0;
        if high > 1e9 {
            return None;
        }
    }
    for _ in 0..100 {
        let mid = (low + high) / 2.0;
        if student_t_two_sided(mid, w.df) >= level {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(high * w.se2.sqrt())
}

/// What Welch's test needs of two samples beside a further variance: the difference of their
/// means, its variance, and its degrees of freedom (Welch–Satterthwaite's, the further
/// variance's `extra_df` joining them).
struct Welch {
    diff: f64,
    se2: f64,
    df: f64,
}

impl Welch {
    fn of(a: &[f64], b: &[f64], extra: f64, extra_df: f64) -> Option<Welch> {
        let moments = |v: &[f64]| {
            let n = v.len() as f64;
            let mean = v.iter().sum::<f64>() / n;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (n, mean, var)
        };
        if a.len() < 2 || b.len() < 2 {
            return None;
        }
        let (na, ma, va) = moments(a);
        let (nb, mb, vb) = moments(b);
        let (sa, sb) = (va / na, vb / nb);
        let se2 = sa + sb + extra;
        let parts = sa.powi(2) / (na - 1.0) + sb.powi(2) / (nb - 1.0) + extra.powi(2) / extra_df;
        let df = match parts > 0.0 {
            true => se2.powi(2) / parts,
            false => f64::INFINITY,
        };
        Some(Welch {
            diff: ma - mb,
            se2,
            df,
        })
    }
}

/// The two-sided tail of Student's t with `df` degrees of freedom beyond ±`t`:
/// I_{df/(df+t²)}(df/2, 1/2), the regularized incomplete beta function.
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    if !df.is_finite() || df > 1e7 {
        // The normal's tail: erfc(|t|/√2).
        return erfc(t.abs() / std::f64::consts::SQRT_2);
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// The complementary error function, to about 1e-7 (Numerical Recipes' erfcc, 6.2).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz's
/// method, as in Numerical Recipes, 6.4).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The fraction converges fast for x below (a+1)/(a+b+2); above, by symmetry.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        for numerator in [
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + numerator / c;
            c = if c.abs() < TINY { TINY } else { c };
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-12 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos' approximation, g = 7, nine terms).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
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

    #[test]
    fn students_tails_match_the_tables() {
        // Two-sided 5% and 1% points of Student's t (any table), and the normal's far out.
        for (t, df, p) in [
            (12.706, 1.0, 0.05),
            (2.776, 4.0, 0.05),
            (4.604, 4.0, 0.01),
            (2.228, 10.0, 0.05),
            (3.169, 10.0, 0.01),
            (1.960, 1e6, 0.05),
        ] {
            let got = student_t_two_sided(t, df);
            assert!((got - p).abs() < 2e-4, "t {t} df {df}: {got}");
        }
        assert!((student_t_two_sided(0.0, 3.0) - 1.0).abs() < 1e-12);
        assert!((student_t_two_sided(1.96, f64::INFINITY) - 0.05).abs() < 2e-4);
        assert!((student_t_two_sided(2.576, f64::INFINITY) - 0.01).abs() < 2e-4);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn welch_tells_apart_what_differs_beyond_its_spread() {
        // Worked by hand: means 100 and 110, variances 1 and 1, n 3 each: t = -12.25, df 4.
        let p = welch_p(&[99.0, 100.0, 101.0], &[109.0, 110.0, 111.0]).unwrap();
        assert!(p < 0.001 && p > 0.0001, "{p}");
        let p = welch_p(&[80.0, 100.0, 120.0], &[90.0, 110.0, 130.0]).unwrap();
        assert!(p > 0.5, "{p}");
        assert_eq!(welch_p(&[5.0], &[6.0, 7.0]), None);
        assert_eq!(welch_p(&[5.0, 5.0], &[5.0, 5.0]), Some(1.0));
        assert_eq!(welch_p(&[5.0, 5.0], &[6.0, 6.0]), Some(0.0));
        // A further spread the samples cannot show widens the test: steady samples 10 apart
        // are a difference alone, not beside a known spread of 10 between their means.
        let steady = ([99.0, 100.0, 101.0], [109.0, 110.0, 111.0]);
        assert!(welch_p_beside(&steady.0, &steady.1, 0.0, f64::INFINITY).unwrap() < 0.001);
        assert!(welch_p_beside(&steady.0, &steady.1, 100.0, f64::INFINITY).unwrap() > 0.3);
    }

    /// The smallest difference found at a level is the one whose p-value is that level: with
    /// a known spread alone (normal), 1% two-sided is 2.576 of its standard errors.
    #[test]
    fn the_detectable_difference_is_where_the_p_value_meets_the_level() {
        let (a, b) = ([99.0, 100.0, 101.0], [109.0, 110.0, 111.0]);
        for (extra, extra_df) in [(100.0, f64::INFINITY), (4.0, 5.0), (0.0, f64::INFINITY)] {
            let d = welch_detectable(&a, &b, extra, extra_df, 0.01).unwrap();
            let shifted: Vec<f64> = a.iter().map(|x| x + d).collect();
            let p = welch_p_beside(&a, &shifted, extra, extra_df).unwrap();
            assert!((p - 0.01).abs() < 1e-6, "{extra} {extra_df}: d {d}, p {p}");
        }
        // Two thirds of a variance from the samples (1/3 + 1/3) beside 100: nearly normal.
        let d = welch_detectable(&a, &b, 100.0, f64::INFINITY, 0.01).unwrap();
        let se = (100.0f64 + 2.0 / 3.0).sqrt();
        assert!((d / se - 2.576).abs() < 0.02, "{}", d / se);
        assert_eq!(welch_detectable(&[1.0], &b, 1.0, 1.0, 0.01), None);
        assert_eq!(
            welch_detectable(&[5.0, 5.0], &[5.0, 5.0], 0.0, 1.0, 0.01),
            None
        );
    }
}
