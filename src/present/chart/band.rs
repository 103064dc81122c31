//! The expected-error band around the main curve (issue 13 §1): at each feasible point, where
//! the measurement would fall if the prediction were off by the point's class error `E`
//! (`model::expected_error`, per regime of the point).
//!
//! With `e = predicted/measured − 1` and `|e| ≤ E`, a measured throughput (tok/s per GPU,
//! aggregate, tokens per $) lies in `[y/(1+E), y/(1−E)]`, and a measured $/M, which is
//! proportional to 1/(tok/s) at a fixed price, in `[y(1−E), y(1+E)]`. `E` is capped at 0.9 so the
//! upper edge stays on the chart. The x position is the predicted one.

use super::axis::{Projection, YAxis};
use crate::model::expected_error::Regime;
use crate::model::Curve;

/// Largest error the band draws (see the module doc).
const MAX_BAND_ERROR: f64 = 0.9;

/// The band as a closed polygon in plot coordinates (upper edge left to right, lower edge back),
/// from the tok/s error of each regime (`Regime::ALL` order); empty when no point has one.
pub fn polygon(
    curve: &Curve,
    projection: &Projection,
    by_regime: &[Option<f64>; 3],
) -> Vec<(f64, f64)> {
    let log = projection.y.log();
    let to_plot = |v: f64| if log { v.ln() } else { v };
    let edges: Vec<(f64, f64, f64)> = curve
        .points
        .iter()
        .filter(|p| p.fits)
        .filter_map(|p| {
            let index = Regime::ALL.iter().position(|r| *r == p.regime)?;
            let e = by_regime
                .get(index)
                .copied()
                .flatten()?
                .clamp(0.0, MAX_BAND_ERROR);
            let x = projection.x_value(p);
            let y = projection.y_value(p);
            let (low, high) = if projection.y == YAxis::UsdPerMOutput {
                (y * (1.0 - e), y * (1.0 + e))
            } else {
                (y / (1.0 + e), y / (1.0 - e))
            };
            let ok = |v: f64| v.is_finite() && (!log || v > 0.0);
            (x.is_finite() && x > 0.0 && ok(low) && ok(high))
                .then(|| (x, to_plot(low), to_plot(high)))
        })
        .collect();
    if edges.len() < 2 {
        return Vec::new();
    }
    let upper = edges.iter().map(|&(x, _, high)| (x, high));
    let lower = edges.iter().rev().map(|&(x, low, _)| (x, low));
    upper.chain(lower).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sweep;
    use crate::scenario::Scenario;

    #[test]
    fn the_band_brackets_the_curve_by_its_regime_error() {
        let scenario = Scenario::default_scenario().expect("default");
        let curve = sweep(&scenario);
        let projection = Projection::default();
        let band = polygon(&curve, &projection, &[Some(0.2); 3]);
        let feasible: Vec<_> = curve.points.iter().filter(|p| p.fits).collect();
        assert_eq!(band.len(), 2 * feasible.len());
        let (first, high) = band[0];
        assert_eq!(first, feasible[0].tok_s_per_user);
        assert!((high - feasible[0].output_tok_s_per_gpu / 0.8).abs() < 1e-9);
        let (last_x, low) = band[band.len() - 1];
        assert_eq!(last_x, first);
        assert!((low - feasible[0].output_tok_s_per_gpu / 1.2).abs() < 1e-9);
        assert!(polygon(&curve, &projection, &[None; 3]).is_empty());
    }
}
