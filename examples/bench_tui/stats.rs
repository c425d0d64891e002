//! Percentiles and summaries of keypress timings.

use serde_json::{Value, json};

/// One key's answer, in ms after it was written.
#[derive(Clone, Copy)]
pub struct Sample {
    pub first_byte: Option<f64>,
    pub frame: Option<f64>,
    pub settle: Option<f64>,
    /// The screen was quiet for the whole wait before the key.
    pub quiet_before: bool,
}

/// Nearest-rank percentile (None when empty), with the rank rounded half to
/// even, as the figures in earlier runs were.
pub fn pct(values: &[f64], p: f64) -> Option<f64> {
    let mut xs = values.to_vec();
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let rank = (p / 100.0 * xs.len() as f64 + 0.5).round_ties_even() as i64 - 1;
    Some(xs[rank.clamp(0, xs.len() as i64 - 1) as usize])
}

pub fn max(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::max)
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// One of a sample's timings.
type Timing = fn(&Sample) -> Option<f64>;

pub fn summarize(samples: &[Sample]) -> Value {
    let mut out = json!({
        "n": samples.len(),
        "not_quiet_before": samples.iter().filter(|s| !s.quiet_before).count(),
    });
    let fields: [(&str, Timing); 3] = [
        ("first_byte", |s| s.first_byte),
        ("frame", |s| s.frame),
        ("settle", |s| s.settle),
    ];
    for (name, get) in fields {
        let got: Vec<f64> = samples.iter().filter_map(get).collect();
        out[name] = json!({
            "p50": pct(&got, 50.0),
            "p99": pct(&got, 99.0),
            "max": max(&got),
            "mean": mean(&got),
            "missing": samples.len() - got.len(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let xs: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(pct(&xs, 50.0), Some(100.0));
        assert_eq!(pct(&xs, 99.0), Some(198.0));
        assert_eq!(pct(&[3.0, 1.0, 2.0], 50.0), Some(2.0));
        assert_eq!(pct(&[], 50.0), None);
    }
}
