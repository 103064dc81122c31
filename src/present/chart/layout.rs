//! Axis ranges, tick positions and tick labels of the Pareto chart, as plain functions of the
//! curve (no drawing), so they can be tested without a backend.
//!
//! The x axis is logarithmic (interactivity spans two or three decades); plotters' own log ticks
//! vanish when the range holds no power of ten, so ticks come from a 1–2–5 sequence here.

use super::Marker;
use crate::model::Curve;
use std::ops::Range;

/// Data ranges of both axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Axes {
    /// Tokens/s per user; always positive (log scale).
    pub x: Range<f64>,
    /// Output tokens/s per GPU; starts at zero.
    pub y: Range<f64>,
    /// Tick values on the x axis, inside `x`.
    pub x_ticks: Vec<f64>,
    /// Tick positions on the y axis, inside `y` (plot values: see `axis::Projection::plot`).
    pub y_ticks: Vec<f64>,
}

/// Headroom around the data: a little left of the lowest x, more right of the highest x (the
/// current point's label goes above-right of it), 15 % above the highest y.
const X_PAD_LOW: f64 = 1.3;
const X_PAD_HIGH: f64 = 1.8;
const Y_HEADROOM: f64 = 1.15;
/// The x range spans at least this ratio, so a flat curve is not stretched across the chart.
const MIN_X_SPAN: f64 = 4.0;

/// Ranges covering every curve point and the current point; `None` when nothing is plottable.
pub fn axes(curve: &Curve, current: &Marker) -> Option<Axes> {
    let xs = curve
        .points
        .iter()
        .map(|p| p.tok_s_per_user)
        .chain(std::iter::once(current.tok_s_per_user))
        .filter(|x| x.is_finite() && *x > 0.0);
    let (x_min, x_max) = xs.fold(None, |range: Option<(f64, f64)>, x| match range {
        None => Some((x, x)),
        Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
    })?;
    let (mut lo, mut hi) = (x_min / X_PAD_LOW, x_max * X_PAD_HIGH);
    if hi / lo < MIN_X_SPAN {
        let middle = (lo * hi).sqrt();
        lo = middle / MIN_X_SPAN.sqrt();
        hi = middle * MIN_X_SPAN.sqrt();
    }
    let y_max = curve
        .points
        .iter()
        .map(|p| p.output_tok_s_per_gpu)
        .chain(std::iter::once(current.output_tok_s_per_gpu))
        .filter(|y| y.is_finite())
        .fold(0.0f64, f64::max);
    let y_top = if y_max > 0.0 { y_max * Y_HEADROOM } else { 1.0 };
    Some(Axes {
        x_ticks: log_ticks(lo, hi, 8),
        x: lo..hi,
        y: 0.0..y_top,
        y_ticks: super::ticks::linear_ticks(y_top, 6),
    })
}

/// Ticks at 1–2–5 × 10ⁿ inside `[lo, hi]`, thinned to decades (then every other decade) when
/// there would be more than `max_ticks`; a range under a decade that holds fewer than three of
/// those takes 1–2–3–5, then every whole mantissa (30, 40, … 90), so a narrow axis (a reasoning
/// workload's 21–92 tok/s per user, issue 28 §5) is not read from its two ends alone.
pub fn log_ticks(lo: f64, hi: f64, max_ticks: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let first_decade = lo.log10().floor() as i32;
    let last_decade = hi.log10().ceil() as i32;
    let in_range = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let ladder = |mantissas: &[f64], decade_step: i32| -> Vec<f64> {
        (first_decade..=last_decade)
            .filter(|d| d.rem_euclid(decade_step) == 0)
            .flat_map(|d| mantissas.iter().map(move |m| m * 10f64.powi(d)))
            .filter(in_range)
            .collect()
    };
    const ONE_TWO_FIVE: &[f64] = &[1.0, 2.0, 5.0];
    const ONE_TWO_THREE_FIVE: &[f64] = &[1.0, 2.0, 3.0, 5.0];
    const WHOLE: &[f64] = &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
    let candidates: [(&[f64], i32, usize); 6] = [
        (ONE_TWO_FIVE, 1, 3),
        (&[1.0], 1, 3),
        (&[1.0], 2, 2),
        (ONE_TWO_THREE_FIVE, 1, 3),
        (WHOLE, 1, 3),
        (ONE_TWO_FIVE, 1, 2),
    ];
    for (mantissas, step, fewest) in candidates {
        let ticks = ladder(mantissas, step);
        if ticks.len() <= max_ticks && ticks.len() >= fewest {
            return ticks;
        }
    }
    // A narrow range with fewer than two such values: fall back to its ends.
    let ticks = ladder(ONE_TWO_FIVE, 1);
    if ticks.len() >= 2 {
        ticks.into_iter().take(max_ticks.max(2)).collect()
    } else {
        vec![lo, hi]
    }
}

/// Compact tick label: `0`, `0.5`, `12`, `850`, `1.5k`, `12k`, `1.2M`.
pub fn compact(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    let magnitude = value.abs();
    let trim = |text: String| {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    };
    if magnitude >= 1e6 {
        format!("{}M", trim(format!("{:.1}", value / 1e6)))
    } else if magnitude >= 1e4 {
        format!("{}k", trim(format!("{:.0}", value / 1e3)))
    } else if magnitude >= 1e3 {
        format!("{}k", trim(format!("{:.1}", value / 1e3)))
    } else if magnitude >= 10.0 || magnitude == 0.0 {
        format!("{value:.0}")
    } else if magnitude >= 1.0 {
        trim(format!("{value:.1}"))
    } else {
        trim(format!("{value:.2}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CurvePoint;

    fn point(x: f64, y: f64) -> CurvePoint {
        CurvePoint {
            concurrency: 1,
            tok_s_per_user: x,
            output_tok_s_per_gpu: y,
            output_tok_s: y,
            tpot_ms: 1000.0 / x,
            ttft_ms: 100.0,
            usd_per_m_output: Some(1.0),
            fits: true,
            bound_label: "weight bandwidth",
            regime: crate::model::expected_error::Regime::LatencyBound,
            pareto: true,
        }
    }

    fn marker(x: f64, y: f64) -> Marker {
        Marker {
            concurrency: 1,
            tok_s_per_user: x,
            output_tok_s_per_gpu: y,
            tpot_ms: 1000.0 / x,
            output_tok_s: y,
            usd_per_m_output: Some(1.0),
            fits: true,
        }
    }

    #[test]
    fn ranges_cover_the_data_with_headroom() {
        let curve = Curve {
            points: vec![point(80.0, 100.0), point(20.0, 900.0), point(5.0, 1000.0)],
            knee: Some(1),
        };
        let axes = axes(&curve, &marker(20.0, 900.0)).expect("plottable");
        assert!(axes.x.start < 5.0 && axes.x.end > 80.0);
        assert_eq!(axes.y.start, 0.0);
        assert!(axes.y.end > 1000.0);
        assert!(axes.x_ticks.iter().all(|t| axes.x.contains(t)));
        assert!(axes.x_ticks.len() >= 2);
    }

    #[test]
    fn nothing_plottable_is_none_and_a_flat_curve_gets_width() {
        let empty = Curve {
            points: vec![],
            knee: None,
        };
        assert_eq!(axes(&empty, &marker(0.0, 0.0)), None);
        let one = Curve {
            points: vec![point(30.0, 10.0)],
            knee: None,
        };
        let axes = axes(&one, &marker(30.0, 10.0)).expect("plottable");
        assert!(axes.x.end / axes.x.start >= MIN_X_SPAN * 0.999);
    }

    #[test]
    fn ticks_follow_one_two_five_and_thin_out() {
        assert_eq!(log_ticks(3.0, 60.0, 8), vec![5.0, 10.0, 20.0, 50.0]);
        assert_eq!(log_ticks(0.5, 5000.0, 8), vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(12.0, 18.0, 8), vec![12.0, 18.0]);
        // Under a decade: more than the two ends (issue 28 §5).
        assert_eq!(
            log_ticks(21.0, 92.0, 8),
            vec![30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0]
        );
        assert_eq!(log_ticks(15.0, 120.0, 8), vec![20.0, 50.0, 100.0]);
        assert_eq!(log_ticks(25.0, 120.0, 8), vec![30.0, 50.0, 100.0]);
        assert!(log_ticks(0.0, 10.0, 8).is_empty());
        let wide = log_ticks(1e-3, 1e9, 8);
        assert!(wide.len() <= 8 && wide.len() >= 2, "{wide:?}");
    }

    #[test]
    fn compact_labels() {
        assert_eq!(compact(0.0), "0");
        assert_eq!(compact(0.5), "0.5");
        assert_eq!(compact(2.0), "2");
        assert_eq!(compact(50.0), "50");
        assert_eq!(compact(1500.0), "1.5k");
        assert_eq!(compact(2000.0), "2k");
        assert_eq!(compact(12_000.0), "12k");
        assert_eq!(compact(1_200_000.0), "1.2M");
        assert_eq!(compact(f64::NAN), "–");
    }
}
