//! Ticks of linear axes: "nice" steps from zero, and `TickedRange`, a plotters axis whose tick
//! positions are given (the Pareto chart's y axis, the latency chart's axes), so any axis gets
//! 1–2–5 steps and a label formatter.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// "Nice" steps: 1, 2, 2.5 or 5 × 10ⁿ, about `count` of them from zero to `top`.
pub fn linear_ticks(top: f64, count: usize) -> Vec<f64> {
    if !(top.is_finite() && top > 0.0) || count == 0 {
        return vec![0.0];
    }
    let raw = top / count as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    (0..=count.saturating_mul(2))
        .map(|i| step * i as f64)
        .take_while(|v| *v <= top * (1.0 + 1e-9))
        .collect()
}

/// A linear plotters axis whose ticks are given (bold lines at `ticks`, light lines halfway
/// between): what plotters' `with_key_points` does, but formattable by a label formatter on a
/// float axis (plotters' own float axis opts out of default formatting, and its key-point
/// wrapper inherits that).
#[derive(Debug, Clone, PartialEq)]
pub struct TickedRange {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl TickedRange {
    pub fn new(range: Range<f64>, ticks: Vec<f64>) -> TickedRange {
        TickedRange { range, ticks }
    }
}

impl Ranged for TickedRange {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    /// Linear map of `value` onto the pixel span `limit` (as plotters' float axis does).
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        if span == 0.0 || !span.is_finite() {
            return (limit.0 + limit.1) / 2;
        }
        let fraction = (value - self.range.start) / span;
        let pixels = f64::from(limit.1 - limit.0) * fraction;
        if pixels.is_finite() {
            limit.0 + pixels.round().clamp(-1e6, 1e6) as i32
        } else {
            limit.0
        }
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.ticks
                .windows(2)
                .map(|w| w.iter().sum::<f64>() / 2.0)
                .collect()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_nice() {
        assert_eq!(
            linear_ticks(1150.0, 6),
            vec![0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
        );
        assert_eq!(linear_ticks(10.0, 4), vec![0.0, 2.5, 5.0, 7.5, 10.0]);
        assert_eq!(linear_ticks(0.0, 6), vec![0.0]);
    }

    #[test]
    fn a_ticked_range_maps_linearly_and_offers_its_ticks() {
        let axis = TickedRange::new(0.0..10.0, vec![0.0, 5.0, 10.0]);
        assert_eq!(axis.map(&5.0, (0, 100)), 50);
        assert_eq!(
            axis.map(&0.0, (100, 0)),
            100,
            "pixel spans may run backwards"
        );
        assert_eq!(axis.range(), 0.0..10.0);
        let flat = TickedRange::new(1.0..1.0, vec![]);
        assert_eq!(flat.map(&1.0, (0, 10)), 5);
    }
}
