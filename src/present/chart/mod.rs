//! The throughput–latency Pareto chart, drawn with plotters and generic over the backend: the
//! page draws it on a `<canvas>` (the page's canvas backend), native tests and exports draw it
//! to SVG.
//!
//! x = tokens/s per user (interactivity, log scale), y = output tokens/s per GPU (MODEL.md §4.5).
//! The swept curve is a solid line; points beyond the KV capacity or the engine limit are grey,
//! hollow and dashed and named "infeasible" in the legend; Pareto points are dots; the knee is a
//! triangle; the current operating point is a large ringed dot. `draw_pareto_with` adds an
//! `Overlay`: pinned scenarios' curves and crosses on the points that miss a latency SLO.
//! `draw_pareto_layered` adds `Layers`: other axes (`axis.rs`: TPOT, aggregate tok/s, $/M,
//! tokens per $) and other curves behind the main one (`series.rs`: the technique ladder).
//!
//! The curve only changes when the scenario does, the current point on every slider move, so
//! `draw_pareto` takes an already-swept `Curve` and a small `Marker`: a redraw never re-sweeps.
//!
//! Invariant: this module is part of the pure core and names no web API.

/// The agentic chart (issue 27 §4; the tools module's build only).
#[cfg(feature = "session-model")]
pub mod agents;
mod axis;
pub mod band;
pub mod hit;
mod layout;
pub mod leaderboard;
mod legend;
pub mod load;
pub mod notes;
mod overlay;
mod pareto;
mod place;
mod series;
mod style;
pub mod svg;
mod ticks;
mod triangle;

pub use axis::{PlotValues, Projection, XAxis, YAxis};
pub use layout::{axes, compact, log_ticks, Axes};
pub use overlay::{
    pin_style, MarkerShape, Overlay, PinPoint, PinStyle, PinnedCurve, MAX_PINNED_CURVES,
    MAX_TEXT_POINTS,
};
pub use pareto::{
    draw_pareto, draw_pareto_kept, draw_pareto_layered, draw_pareto_part, draw_pareto_placed,
    draw_pareto_with, Frame, KeptLabels, Part, Placements, PlotArea,
};
pub use place::{LabelPlacement, Labelled};
pub use series::{series_look, Layers, OtherCurve, SeriesLook, SERIES_COUNT};
pub use style::{
    ChartOptions, Palette, Theme, OKABE_ITO_BLUE, OKABE_ITO_BLUISH_GREEN, OKABE_ITO_ORANGE,
    OKABE_ITO_SKY_BLUE, OKABE_ITO_VERMILLION,
};
pub use ticks::{linear_ticks, TickedRange};

use crate::model::{Curve, CurvePoint, OperatingPoint};

/// Axis titles, with units.
pub const X_AXIS_LABEL: &str = "tokens/s per user (interactivity, log scale)";
/// The x axis title on a narrow chart.
pub const X_AXIS_LABEL_SHORT: &str = "tokens/s per user (log scale)";
pub const Y_AXIS_LABEL: &str = "output tokens/s per GPU";
/// Legend entries.
pub const LEGEND_CURVE: &str = "throughput–latency curve";
pub const LEGEND_PARETO: &str = "Pareto frontier";
/// The expected-error band (`band.rs`).
pub const LEGEND_BAND: &str = "expected error (cross-validated)";
pub const LEGEND_INFEASIBLE: &str = "infeasible (beyond KV capacity)";
/// Legend entries on a narrow chart.
pub const LEGEND_CURVE_SHORT: &str = "curve";
pub const LEGEND_INFEASIBLE_SHORT: &str = "infeasible";
/// What a cost axis says instead of a curve when the scenario has no price per GPU-hour.
pub const NO_PRICE_TO_PLOT: &str = "No price per GPU-hour for this GPU: enter one to plot cost";
/// Charts narrower than this (CSS pixels) use the compact layout: smaller type, a shorter
/// legend (the knee and the current point are labelled in place anyway), shorter notes.
pub const COMPACT_BELOW_CSS_PX: f64 = 560.0;
/// Charts shorter than this (CSS pixels) use it too: the embed's chart in a 600 × 400 frame is
/// about 200 px tall, and the full legend's three rows left the plot 80 of them.
pub const COMPACT_BELOW_CSS_HEIGHT_PX: f64 = 280.0;

/// The operating point to highlight: all the chart needs from an `OperatingPoint`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    pub concurrency: u32,
    pub tok_s_per_user: f64,
    pub output_tok_s_per_gpu: f64,
    /// For the other axis choices (`axis::Projection`).
    pub tpot_ms: f64,
    pub output_tok_s: f64,
    /// `None` without a price per GPU-hour: the cost axes cannot show the point.
    pub usd_per_m_output: Option<f64>,
    /// Within KV capacity and the engine limit.
    pub fits: bool,
}

impl From<&OperatingPoint> for Marker {
    fn from(point: &OperatingPoint) -> Marker {
        Marker {
            concurrency: point.concurrency,
            tok_s_per_user: point.tok_s_per_user,
            output_tok_s_per_gpu: point.output_tok_s_per_gpu,
            tpot_ms: point.tpot_ms,
            output_tok_s: point.output_tok_s,
            usd_per_m_output: point.usd_per_m_output,
            fits: point.fits,
        }
    }
}

impl From<&CurvePoint> for Marker {
    fn from(point: &CurvePoint) -> Marker {
        Marker {
            concurrency: point.concurrency,
            tok_s_per_user: point.tok_s_per_user,
            output_tok_s_per_gpu: point.output_tok_s_per_gpu,
            tpot_ms: point.tpot_ms,
            output_tok_s: point.output_tok_s,
            usd_per_m_output: point.usd_per_m_output,
            fits: point.fits,
        }
    }
}

/// The label drawn next to the current point (also its legend entry).
pub fn current_label(current: &Marker) -> String {
    if current.fits {
        format!("current: C = {}", current.concurrency)
    } else {
        format!("current: C = {} (infeasible)", current.concurrency)
    }
}

/// The label drawn next to the knee (also its legend entry).
pub fn knee_label(knee: &CurvePoint) -> String {
    format!("knee: C = {}", knee.concurrency)
}

/// The chart as an SVG document of `size` pixels (for native tests and, later, export).
pub fn render_svg(
    curve: &Curve,
    current: &Marker,
    options: &ChartOptions,
    size: (u32, u32),
) -> Result<String, String> {
    render_svg_with(curve, current, &Overlay::default(), options, size)
}

/// The same with an overlay (pinned curves, SLO misses) on top (native tests and fuzzing).
pub fn render_svg_with(
    curve: &Curve,
    current: &Marker,
    overlay: &Overlay,
    options: &ChartOptions,
    size: (u32, u32),
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = svg::svg_area(&mut svg, size);
        draw_pareto_with(root, curve, current, overlay, options)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{evaluate, sweep};
    use crate::scenario::Scenario;
    use plotters::prelude::{IntoDrawingArea, RGBColor, SVGBackend};

    fn default_chart(concurrency: Option<u32>, theme: Theme) -> (String, Curve, Marker) {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let scenario = match concurrency {
            Some(c) => scenario.with_concurrency(c),
            None => scenario,
        };
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let options = ChartOptions { theme, scale: 1.0 };
        let svg = render_svg(&curve, &marker, &options, (800, 500)).expect("draws");
        (svg, curve, marker)
    }

    /// The text content of every `<text>` element (plotters writes it on the following line).
    fn texts(svg: &str) -> Vec<String> {
        let lines: Vec<&str> = svg.lines().collect();
        lines
            .windows(2)
            .filter(|pair| pair[0].trim_start().starts_with("<text"))
            .map(|pair| pair[1].trim().to_string())
            .collect()
    }

    fn hex(color: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
    }

    #[test]
    fn default_scenario_chart_has_axes_legend_knee_and_current_point() {
        let (svg, curve, marker) = default_chart(None, Theme::Light);
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for needle in [
            X_AXIS_LABEL,
            Y_AXIS_LABEL,
            LEGEND_CURVE,
            LEGEND_PARETO,
            LEGEND_INFEASIBLE,
        ] {
            assert!(svg.contains(needle), "SVG lacks {needle:?}");
        }
        let knee = curve
            .knee
            .and_then(|i| curve.points.get(i))
            .expect("a knee");
        assert!(svg.contains(&knee_label(knee)), "knee label");
        assert!(
            svg.contains(&current_label(&marker)),
            "current label {:?}",
            current_label(&marker)
        );
        assert!(marker.fits, "C = 64 fits for the default scenario");
        // The current point: a filled vermillion circle.
        let vermillion = hex(OKABE_ITO_VERMILLION);
        assert!(
            svg.lines()
                .any(|l| l.contains("<circle") && l.contains(&format!("fill=\"{vermillion}\""))),
            "filled vermillion marker"
        );
        // The knee's triangle is a bluish-green polygon.
        assert!(svg
            .lines()
            .any(|l| l.contains("<polygon") && l.contains(&hex(OKABE_ITO_BLUISH_GREEN))));
        // Infeasible points: hollow grey circles.
        assert!(svg.lines().any(|l| l.contains("<circle")
            && l.contains("#8C8C8C")
            && l.contains("fill=\"none\"")));
        // Tick labels in compact form; the y axis starts at zero.
        let labels = texts(&svg);
        assert!(labels.iter().any(|t| t == "0"), "{labels:?}");
    }

    #[test]
    fn an_infeasible_current_point_is_hollow_and_says_so() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let beyond = scenario
            .kv_capacity()
            .saturating_add(1)
            .min(scenario.engine_limit());
        let (svg, _, marker) = default_chart(Some(beyond), Theme::Light);
        assert!(
            !marker.fits,
            "C = {beyond} is beyond KV capacity {}",
            scenario.kv_capacity()
        );
        assert!(svg.contains("(infeasible)"));
        let vermillion = hex(OKABE_ITO_VERMILLION);
        assert!(svg.lines().any(|l| l.contains("<circle")
            && l.contains(&format!("stroke=\"{vermillion}\""))
            && l.contains("fill=\"none\"")));
    }

    #[test]
    fn dark_theme_uses_its_background_and_curve_colour() {
        let (svg, _, _) = default_chart(None, Theme::Dark);
        let dark = Palette::for_theme(Theme::Dark);
        assert!(svg.contains(&hex(dark.background)));
        assert!(svg.contains(&hex(OKABE_ITO_SKY_BLUE)));
    }

    #[test]
    fn a_narrow_chart_is_compact_and_labels_knee_and_current_in_place() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let narrow = ChartOptions::default();
        let svg = render_svg(&curve, &marker, &narrow, (340, 340)).expect("draws");
        let labels = texts(&svg);
        assert!(labels.iter().any(|t| t == X_AXIS_LABEL_SHORT), "{labels:?}");
        assert!(labels.iter().any(|t| t == LEGEND_INFEASIBLE_SHORT));
        // In place only: once each, not repeated in the legend.
        assert_eq!(
            labels
                .iter()
                .filter(|t| **t == current_label(&marker))
                .count(),
            1
        );
        // The same pixels at scale 2 are a 170-px-wide chart in CSS terms: compact too; a
        // 1200-px canvas at scale 2 is 600 CSS px: regular.
        let hidpi = ChartOptions {
            scale: 2.0,
            ..narrow
        };
        let wide = texts(&render_svg(&curve, &marker, &hidpi, (1200, 800)).expect("draws"));
        assert!(wide.iter().any(|t| t == X_AXIS_LABEL));
        assert_eq!(
            wide.iter()
                .filter(|t| **t == current_label(&marker))
                .count(),
            2,
            "legend and in place"
        );
    }

    /// A wide but short chart (the embed's, about 600 × 200 in a 600 × 400 frame) is compact
    /// too, so its legend leaves the plot room; a wide, tall one is not.
    #[test]
    fn a_short_chart_is_compact() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let options = ChartOptions::default();
        let short = texts(&render_svg(&curve, &marker, &options, (600, 210)).expect("draws"));
        assert!(short.iter().any(|t| t == X_AXIS_LABEL_SHORT), "{short:?}");
        assert!(
            short.iter().any(|t| t == LEGEND_INFEASIBLE_SHORT),
            "{short:?}"
        );
        let tall = texts(&render_svg(&curve, &marker, &options, (600, 400)).expect("draws"));
        assert!(tall.iter().any(|t| t == X_AXIS_LABEL), "{tall:?}");
        assert!(tall.iter().any(|t| t == LEGEND_INFEASIBLE), "{tall:?}");
    }

    #[test]
    fn an_empty_curve_draws_a_message_instead_of_failing() {
        let curve = Curve {
            points: vec![],
            knee: None,
        };
        let marker = Marker {
            concurrency: 1,
            tok_s_per_user: 0.0,
            output_tok_s_per_gpu: 0.0,
            tpot_ms: 0.0,
            output_tok_s: 0.0,
            usd_per_m_output: Some(0.0),
            fits: true,
        };
        let svg = render_svg(&curve, &marker, &ChartOptions::default(), (300, 200)).expect("draws");
        assert!(svg.contains("Nothing to plot"));
    }

    /// A cost axis without a price says so instead of drawing made-up costs; the throughput
    /// axes draw the same curve as ever.
    #[test]
    fn a_cost_axis_without_a_price_asks_for_one() {
        let scenario = Scenario::try_from(crate::scenario::ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..crate::scenario::ScenarioInput::default()
        })
        .expect("a GPU without a catalog price is a valid scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let options = ChartOptions::default();
        let draw = |y: YAxis| {
            let layers = Layers {
                projection: Projection {
                    x: XAxis::Interactivity,
                    y,
                },
                ..Layers::default()
            };
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (640, 400)).into_drawing_area();
                draw_pareto_layered(
                    root,
                    &curve,
                    &marker,
                    &Overlay::default(),
                    &layers,
                    &options,
                )
                .expect("draws");
            }
            svg
        };
        for y in [YAxis::UsdPerMOutput, YAxis::TokensPerUsd] {
            let svg = draw(y);
            assert!(svg.contains(NO_PRICE_TO_PLOT), "{y:?}");
            assert!(!svg.contains("Nothing to plot"), "{y:?}");
        }
        let per_gpu = draw(YAxis::PerGpu);
        assert!(!per_gpu.contains(NO_PRICE_TO_PLOT));
        assert!(per_gpu.contains(LEGEND_CURVE));
    }

    /// The expected-error band is drawn behind the curve, with a legend entry, only when the
    /// layers carry one (issue 13 §1).
    #[test]
    fn the_error_band_is_a_shaded_polygon_with_a_legend_entry() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let draw = |error_band: [Option<f64>; 3]| {
            let layers = Layers {
                error_band,
                ..Layers::default()
            };
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
                draw_pareto_layered(
                    root,
                    &curve,
                    &marker,
                    &Overlay::default(),
                    &layers,
                    &ChartOptions::default(),
                )
                .expect("draws");
            }
            svg
        };
        let with = draw(crate::model::expected_error::throughput_by_regime(
            &scenario,
        ));
        assert!(with.contains(LEGEND_BAND));
        assert!(
            with.lines()
                .any(|l| l.contains("<polygon") && l.contains("opacity=\"0.18\"")),
            "a translucent band polygon"
        );
        let without = draw([None; 3]);
        assert!(!without.contains(LEGEND_BAND));
    }

    #[test]
    fn redraw_without_resweep_moves_only_the_marker() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let options = ChartOptions::default();
        let at = |c: u32| {
            let marker = Marker::from(&evaluate(&scenario.with_concurrency(c)));
            render_svg(&curve, &marker, &options, (640, 400)).expect("draws")
        };
        let (low, high) = (at(4), at(256));
        assert_ne!(low, high);
        assert!(low.contains("C = 4") && high.contains("C = 256"));
    }
}
