//! What the Pareto chart's axes show (PRODUCT.md: x = tokens/s per user, toggled to TPOT in ms;
//! y = output tokens/s per GPU, switchable to aggregate tokens/s, $/M output tokens or tokens
//! per dollar), and the plot frame for a choice: ranges, ticks and tick labels.
//!
//! Both x choices are positive and drawn on plotters' log axis. The y axis is always a linear
//! plotters axis over *plot values*: the value itself, or its natural log for $/M (which spans
//! decades). So one plotters coordinate type serves every choice; ticks are placed and labelled
//! here (1–2–5 steps on log axes, "nice" steps from zero on linear ones).
//!
//! Every choice is a monotone function of the sweep's two native axes, so the Pareto points and
//! the knee stay the same points whatever is shown.

use super::layout::{compact, log_ticks, Axes};
use super::ticks::linear_ticks;
use crate::choice::choices;
use crate::model::{Curve, CurvePoint};

/// The x axis: interactivity or its reciprocal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XAxis {
    /// Tokens/s per user (`1/TPOT`), log scale.
    #[default]
    Interactivity,
    /// TPOT in ms, log scale.
    Tpot,
}

/// The y axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum YAxis {
    /// Output tokens/s per GPU (linear, from zero).
    #[default]
    PerGpu,
    /// Output tokens/s over all GPUs (linear, from zero).
    Aggregate,
    /// $ per million output tokens (log scale; lower is better).
    UsdPerMOutput,
    /// Output tokens per dollar (linear, from zero).
    TokensPerUsd,
}

// The id is the control value and the link's word (`x=tpot`); the label the control's option.
choices!(XAxis {
    XAxis::Interactivity => "interactivity", "tok/s per user";
    XAxis::Tpot => "tpot", "TPOT (ms)";
});

impl XAxis {
    /// Axis title, regular and narrow.
    pub fn title(self, compact: bool) -> &'static str {
        match (self, compact) {
            (XAxis::Interactivity, false) => super::X_AXIS_LABEL,
            (XAxis::Interactivity, true) => super::X_AXIS_LABEL_SHORT,
            (XAxis::Tpot, false) => "TPOT, ms per output token (log scale)",
            (XAxis::Tpot, true) => "TPOT ms (log scale)",
        }
    }

    /// The axis in the chart's heading ("Throughput vs. interactivity").
    pub fn heading(self) -> &'static str {
        match self {
            XAxis::Interactivity => "interactivity",
            XAxis::Tpot => "TPOT",
        }
    }
}

// The id is the control value and the link's word (`y=usd`); the label the control's option.
choices!(YAxis {
    YAxis::PerGpu => "per-gpu", "output tok/s per GPU";
    YAxis::Aggregate => "aggregate", "output tok/s, all GPUs";
    YAxis::UsdPerMOutput => "usd", "$ per M output tokens";
    YAxis::TokensPerUsd => "tok-per-usd", "output tokens per $";
});

impl YAxis {
    pub fn title(self) -> &'static str {
        match self {
            YAxis::PerGpu => super::Y_AXIS_LABEL,
            YAxis::Aggregate => "output tokens/s, all GPUs",
            YAxis::UsdPerMOutput => "$ per million output tokens (log scale)",
            YAxis::TokensPerUsd => "output tokens per dollar",
        }
    }

    /// The axis in the chart's heading.
    pub fn heading(self) -> &'static str {
        match self {
            YAxis::PerGpu => "Throughput",
            YAxis::Aggregate => "Aggregate throughput",
            YAxis::UsdPerMOutput => "$ per M output tokens",
            YAxis::TokensPerUsd => "Output tokens per $",
        }
    }

    pub(super) fn log(self) -> bool {
        self == YAxis::UsdPerMOutput
    }

    /// Whether the axis shows a cost, which needs a price per GPU-hour.
    pub fn needs_price(self) -> bool {
        matches!(self, YAxis::UsdPerMOutput | YAxis::TokensPerUsd)
    }
}

/// What a point must tell the chart, whatever the axes.
pub trait PlotValues {
    fn tok_s_per_user(&self) -> f64;
    fn tpot_ms(&self) -> f64;
    fn output_tok_s_per_gpu(&self) -> f64;
    fn output_tok_s(&self) -> f64;
    /// `None` without a price per GPU-hour.
    fn usd_per_m_output(&self) -> Option<f64>;
}

impl PlotValues for CurvePoint {
    fn tok_s_per_user(&self) -> f64 {
        self.tok_s_per_user
    }
    fn tpot_ms(&self) -> f64 {
        self.tpot_ms
    }
    fn output_tok_s_per_gpu(&self) -> f64 {
        self.output_tok_s_per_gpu
    }
    fn output_tok_s(&self) -> f64 {
        self.output_tok_s
    }
    fn usd_per_m_output(&self) -> Option<f64> {
        self.usd_per_m_output
    }
}

impl PlotValues for super::Marker {
    fn tok_s_per_user(&self) -> f64 {
        self.tok_s_per_user
    }
    fn tpot_ms(&self) -> f64 {
        self.tpot_ms
    }
    fn output_tok_s_per_gpu(&self) -> f64 {
        self.output_tok_s_per_gpu
    }
    fn output_tok_s(&self) -> f64 {
        self.output_tok_s
    }
    fn usd_per_m_output(&self) -> Option<f64> {
        self.usd_per_m_output
    }
}

/// The chart's axis choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Projection {
    pub x: XAxis,
    pub y: YAxis,
}

/// A y value in plot coordinates (`ln` on a log axis); `None` when the axis cannot show it.
fn to_plot(value: f64, log: bool) -> Option<f64> {
    match (value.is_finite(), log) {
        (true, true) if value > 0.0 => Some(value.ln()),
        (true, false) => Some(value),
        _ => None,
    }
}

fn from_plot(value: f64, log: bool) -> f64 {
    if log {
        value.exp()
    } else {
        value
    }
}

impl Projection {
    /// The x value in data units.
    pub fn x_value(&self, p: &impl PlotValues) -> f64 {
        match self.x {
            XAxis::Interactivity => p.tok_s_per_user(),
            XAxis::Tpot => p.tpot_ms(),
        }
    }

    /// The y value in data units (`1e6 / $ per M` for tokens per dollar); NaN (not drawn) when
    /// a cost axis has no price to show.
    pub fn y_value(&self, p: &impl PlotValues) -> f64 {
        match self.y {
            YAxis::PerGpu => p.output_tok_s_per_gpu(),
            YAxis::Aggregate => p.output_tok_s(),
            YAxis::UsdPerMOutput => p.usd_per_m_output().unwrap_or(f64::NAN),
            YAxis::TokensPerUsd => match p.usd_per_m_output() {
                Some(usd) if usd > 0.0 => 1e6 / usd,
                _ => f64::NAN,
            },
        }
    }

    /// The point as drawn: x in data units (positive, for the log axis), y in plot
    /// coordinates; `None` when the axes cannot show it.
    pub fn plot(&self, p: &impl PlotValues) -> Option<(f64, f64)> {
        let x = self.x_value(p);
        let y = to_plot(self.y_value(p), self.y.log())?;
        (x.is_finite() && x > 0.0).then_some((x, y))
    }

    /// The chart's heading: "Throughput vs. interactivity", "$ per M output tokens vs. TPOT".
    pub fn heading(&self) -> String {
        format!("{} vs. {}", self.y.heading(), self.x.heading())
    }

    /// What the chart plots, for its accessible name: "output tokens per dollar against TPOT,
    /// ms per output token (log scale)".
    pub fn describe(&self) -> String {
        format!("{} against {}", self.y.title(), self.x.title(false))
    }

    /// Whether this is the native choice (interactivity against tokens/s per GPU).
    pub fn is_native(&self) -> bool {
        *self == Projection::default()
    }

    /// A curve's points moved onto these axes: `tok_s_per_user` holds the x value and
    /// `output_tok_s_per_gpu` the plot y, so drawing code written for the native axes draws any
    /// choice. Points the axes cannot show are dropped (the knee index follows its point).
    pub fn project_curve(&self, curve: &Curve) -> Curve {
        let knee_concurrency = curve
            .knee
            .and_then(|i| curve.points.get(i))
            .map(|k| k.concurrency);
        let points: Vec<CurvePoint> = curve
            .points
            .iter()
            .filter_map(|p| {
                let (x, y) = self.plot(p)?;
                Some(CurvePoint {
                    tok_s_per_user: x,
                    output_tok_s_per_gpu: y,
                    ..p.clone()
                })
            })
            .collect();
        let knee = knee_concurrency
            .and_then(|c| points.iter().position(|p| p.concurrency == c && p.pareto));
        Curve { points, knee }
    }

    /// The current point moved onto these axes (see `project_curve`); `None` when not showable.
    pub fn project_marker(&self, marker: &super::Marker) -> Option<super::Marker> {
        let (x, y) = self.plot(marker)?;
        Some(super::Marker {
            tok_s_per_user: x,
            output_tok_s_per_gpu: y,
            ..*marker
        })
    }

    /// Whether the curve runs from lower left to upper right: the native curve (interactivity
    /// against throughput) falls; TPOT mirrors x and $/M mirrors y.
    pub fn rising(&self) -> bool {
        (self.x == XAxis::Tpot) != (self.y == YAxis::UsdPerMOutput)
    }

    /// Which way infeasible (beyond KV capacity) points lie from the feasible ones: lower
    /// interactivity is to the left, higher TPOT to the right.
    pub fn infeasible_to_the_left(&self) -> bool {
        self.x == XAxis::Interactivity
    }

    /// Tick label for a plot coordinate on the y axis.
    pub fn y_tick(&self, plot: f64) -> String {
        let value = from_plot(plot, self.y.log());
        match self.y {
            YAxis::UsdPerMOutput => format!("${}", compact(value)),
            _ => compact(value),
        }
    }

    /// Tick label for an x value.
    pub fn x_tick(&self, value: f64) -> String {
        compact(value)
    }
}

/// The x range spans at least this ratio (log axes), so a flat curve is not stretched across.
const MIN_LOG_SPAN: f64 = 4.0;
/// Headroom above the highest value of a linear y axis that starts at zero.
const Y_HEADROOM: f64 = 1.15;

/// The axes covering `points` (as `Projection::plot` gives them). The log x axis gets padding
/// (the wider share on the side the current point's label goes), a linear y axis starts at zero,
/// a log y axis gets 1–2–5 ticks. `None` when there is nothing to show.
pub fn frame(projection: &Projection, points: &[(f64, f64)]) -> Option<Axes> {
    let (x_min, x_max, y_min, y_max) = points.iter().fold(None, |range, &(x, y)| {
        let (a, b, c, d) = range.unwrap_or((x, x, y, y));
        Some((a.min(x), b.max(x), c.min(y), d.max(y)))
    })?;
    // Right of the points for a falling curve (the current point's label goes above-right),
    // left for a rising one.
    let (pad_low, pad_high) = if projection.rising() {
        (1.8, 1.3)
    } else {
        (1.3, 1.8)
    };
    let (mut x_lo, mut x_hi) = (x_min / pad_low, x_max * pad_high);
    if x_hi / x_lo < MIN_LOG_SPAN {
        let middle = (x_lo * x_hi).sqrt();
        x_lo = middle / MIN_LOG_SPAN.sqrt();
        x_hi = middle * MIN_LOG_SPAN.sqrt();
    }
    let x = x_lo..x_hi;
    let (y, y_ticks) = if projection.y.log() {
        let (mut lo, mut hi) = (y_min - 1.3f64.ln(), y_max + 1.6f64.ln());
        if hi - lo < MIN_LOG_SPAN.ln() {
            let middle = (lo + hi) / 2.0;
            lo = middle - MIN_LOG_SPAN.ln() / 2.0;
            hi = middle + MIN_LOG_SPAN.ln() / 2.0;
        }
        let ticks = log_ticks(lo.exp(), hi.exp(), 7)
            .into_iter()
            .map(f64::ln)
            .collect();
        (lo..hi, ticks)
    } else {
        let top = if y_max > 0.0 { y_max * Y_HEADROOM } else { 1.0 };
        (0.0..top, linear_ticks(top, 6))
    };
    Some(Axes {
        x_ticks: log_ticks(x.start, x.end, 8),
        x,
        y,
        y_ticks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;

    fn point(tok_s_per_user: f64, per_gpu: f64, usd: Option<f64>) -> CurvePoint {
        CurvePoint {
            concurrency: (10_000.0 / tok_s_per_user) as u32,
            tok_s_per_user,
            output_tok_s_per_gpu: per_gpu,
            output_tok_s: per_gpu * 8.0,
            tpot_ms: 1000.0 / tok_s_per_user,
            ttft_ms: 100.0,
            usd_per_m_output: usd,
            fits: true,
            bound_label: "weight bandwidth",
            regime: crate::model::expected_error::Regime::LatencyBound,
            pareto: true,
        }
    }

    #[test]
    fn ids_round_trip() {
        for &x in XAxis::ALL {
            assert_eq!(XAxis::parse(x.id()), Some(x));
        }
        for &y in YAxis::ALL {
            assert_eq!(YAxis::parse(y.id()), Some(y));
        }
        assert_eq!(YAxis::parse("nope"), None);
    }

    #[test]
    fn headings_and_descriptions_follow_the_axes() {
        assert_eq!(
            Projection::default().heading(),
            "Throughput vs. interactivity"
        );
        let usd_tpot = Projection {
            x: XAxis::Tpot,
            y: YAxis::UsdPerMOutput,
        };
        assert_eq!(usd_tpot.heading(), "$ per M output tokens vs. TPOT");
        assert!(usd_tpot
            .describe()
            .starts_with(YAxis::UsdPerMOutput.title()));
        assert!(usd_tpot.describe().ends_with(XAxis::Tpot.title(false)));
        let mut headings: Vec<String> = XAxis::ALL
            .iter()
            .flat_map(|x| {
                YAxis::ALL
                    .iter()
                    .map(move |y| Projection { x: *x, y: *y }.heading())
            })
            .collect();
        headings.sort();
        headings.dedup();
        assert_eq!(headings.len(), 8, "every axis pair has its own heading");
    }

    #[test]
    fn projections_pick_the_values_and_their_scales() {
        let p = point(50.0, 1000.0, Some(2.0));
        let tpot_usd = Projection {
            x: XAxis::Tpot,
            y: YAxis::UsdPerMOutput,
        };
        let (x, y) = tpot_usd.plot(&p).expect("plottable");
        assert!((x - 20.0).abs() < 1e-12 && (y - 2f64.ln()).abs() < 1e-12);
        assert!(
            !tpot_usd.rising(),
            "TPOT mirrors x, $/M mirrors y: falling again"
        );
        let per_usd = Projection {
            x: XAxis::Interactivity,
            y: YAxis::TokensPerUsd,
        };
        assert_eq!(per_usd.y_value(&p), 500_000.0);
        assert_eq!(per_usd.y_tick(500_000.0), "500k");
        assert_eq!(tpot_usd.y_tick(2f64.ln()), "$2");
        let aggregate = Projection {
            x: XAxis::Tpot,
            y: YAxis::Aggregate,
        };
        assert!(aggregate.rising());
        assert_eq!(aggregate.plot(&p).map(|(_, y)| y), Some(8000.0));
        // A log axis cannot show zero, and no cost axis a point without a price.
        assert_eq!(tpot_usd.plot(&point(50.0, 1000.0, Some(0.0))), None);
        assert_eq!(tpot_usd.plot(&point(50.0, 1000.0, None)), None);
        assert_eq!(per_usd.plot(&point(50.0, 1000.0, None)), None);
        assert!(tpot_usd.y.needs_price() && per_usd.y.needs_price());
        assert!(!aggregate.y.needs_price());
        assert_eq!(
            aggregate.plot(&point(50.0, 1000.0, None)).map(|(_, y)| y),
            Some(8000.0),
            "throughput needs no price"
        );
    }

    #[test]
    fn frames_start_linear_axes_at_zero_and_tick_log_axes_in_steps() {
        let projection = Projection::default();
        let points: Vec<(f64, f64)> = [
            point(100.0, 200.0, Some(5.0)),
            point(10.0, 3000.0, Some(0.5)),
        ]
        .iter()
        .filter_map(|p| projection.plot(p))
        .collect();
        let frame = frame(&projection, &points).expect("a frame");
        assert_eq!(frame.y.start, 0.0);
        assert!(frame.y.end > 3000.0);
        assert_eq!(frame.y_ticks.first(), Some(&0.0));
        assert!(frame.x.start < 10.0 && frame.x.end > 100.0);
        let labels: Vec<String> = frame
            .x_ticks
            .iter()
            .map(|t| projection.x_tick(*t))
            .collect();
        assert!(labels.contains(&"10".to_string()) && labels.contains(&"100".to_string()));
        assert_eq!(super::frame(&projection, &[]), None);
        let usd = Projection {
            y: YAxis::UsdPerMOutput,
            ..projection
        };
        let points: Vec<(f64, f64)> = [
            point(100.0, 200.0, Some(5.0)),
            point(10.0, 3000.0, Some(0.5)),
        ]
        .iter()
        .filter_map(|p| usd.plot(p))
        .collect();
        let log = super::frame(&usd, &points).expect("a frame");
        assert!(log.y.start < 0.5f64.ln() && log.y.end > 5f64.ln());
        let labels: Vec<String> = log.y_ticks.iter().map(|t| usd.y_tick(*t)).collect();
        assert!(labels.contains(&"$1".to_string()), "{labels:?}");
    }

    #[test]
    fn projected_curves_keep_their_knee() {
        let curve = Curve {
            points: vec![
                point(100.0, 200.0, Some(5.0)),
                point(10.0, 3000.0, Some(0.5)),
            ],
            knee: Some(1),
        };
        let tpot = Projection {
            x: XAxis::Tpot,
            y: YAxis::UsdPerMOutput,
        };
        let projected = tpot.project_curve(&curve);
        assert_eq!(projected.knee, Some(1));
        assert!(
            (projected.points[1].tok_s_per_user - 100.0).abs() < 1e-9,
            "TPOT 100 ms"
        );
        assert_eq!(Projection::default().project_curve(&curve), curve);
    }
}
