//! The throughput–latency Pareto chart, drawn with plotters and generic over the backend: the
//! page draws it on a `<canvas>` (plotters-canvas), native tests and exports draw it to SVG.
//!
//! x = tokens/s per user (interactivity, log scale), y = output tokens/s per GPU (MODEL.md §4.5).
//! The swept curve is a solid line; points beyond the KV capacity or the engine limit are grey,
//! hollow and dashed and named "infeasible" in the legend; Pareto points are dots; the knee is a
//! triangle; the current operating point is a large ringed dot.
//!
//! The curve only changes when the scenario does, the current point on every slider move, so
//! `draw_pareto` takes an already-swept `Curve` and a small `Marker`: a redraw never re-sweeps.
//!
//! Invariant: this module is part of the pure core and names no web API.

mod layout;
mod style;

pub use layout::{axes, compact, log_ticks, Axes};
pub use style::{
    ChartOptions, Palette, Theme, OKABE_ITO_BLUE, OKABE_ITO_BLUISH_GREEN, OKABE_ITO_ORANGE,
    OKABE_ITO_SKY_BLUE, OKABE_ITO_VERMILLION,
};

use crate::model::{Curve, CurvePoint, OperatingPoint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Axis titles, with units.
pub const X_AXIS_LABEL: &str = "tokens/s per user (interactivity, log scale)";
pub const Y_AXIS_LABEL: &str = "output tokens/s per GPU";
/// Legend entries.
pub const LEGEND_CURVE: &str = "throughput–latency curve";
pub const LEGEND_PARETO: &str = "Pareto frontier";
pub const LEGEND_INFEASIBLE: &str = "infeasible (beyond KV capacity or engine limit)";
const FONT_FAMILY: &str = "sans-serif";

/// The operating point to highlight: all the chart needs from an `OperatingPoint`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    pub concurrency: u32,
    pub tok_s_per_user: f64,
    pub output_tok_s_per_gpu: f64,
    /// Within KV capacity and the engine limit.
    pub fits: bool,
}

impl From<&OperatingPoint> for Marker {
    fn from(point: &OperatingPoint) -> Marker {
        Marker {
            concurrency: point.concurrency,
            tok_s_per_user: point.tok_s_per_user,
            output_tok_s_per_gpu: point.output_tok_s_per_gpu,
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

fn drawing_error(error: impl std::fmt::Display) -> String {
    format!("chart: {error}")
}

fn plottable(x: f64, y: f64) -> bool {
    x.is_finite() && x > 0.0 && y.is_finite()
}

/// Which side of its point a label goes on. The curve falls from upper left to lower right, so
/// labels above-right or below-left of a point stay clear of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    AboveRight,
    BelowLeft,
    BelowRight,
}

fn label_offset(side: Side, options: &ChartOptions) -> ((i32, i32), Pos) {
    let gap = options.offset(9.0);
    match side {
        Side::AboveRight => ((gap, -gap), Pos::new(HPos::Left, VPos::Bottom)),
        Side::BelowLeft => ((-gap, gap), Pos::new(HPos::Right, VPos::Top)),
        Side::BelowRight => ((gap, gap), Pos::new(HPos::Left, VPos::Top)),
    }
}

/// Horizontal position of `x` across the log axis, 0 at the left edge and 1 at the right.
fn x_fraction(axes: &Axes, x: f64) -> f64 {
    let span = (axes.x.end / axes.x.start).ln();
    if span > 0.0 {
        (x / axes.x.start).ln() / span
    } else {
        0.5
    }
}

/// Draw the Pareto chart of `curve` with `current` highlighted, filling the whole `root`.
pub fn draw_pareto<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    options: &ChartOptions,
) -> Result<(), String> {
    let palette = Palette::for_theme(options.theme);
    let px = |css: f64| options.px(css);
    let text = |size: f64| {
        (FONT_FAMILY, options.font(size))
            .into_font()
            .color(&palette.text)
    };
    let muted = |size: f64| {
        (FONT_FAMILY, options.font(size))
            .into_font()
            .color(&palette.muted_text)
    };
    root.fill(&palette.background).map_err(drawing_error)?;

    let Some(axes) = axes(curve, current) else {
        let (width, height) = root.dim_in_pixel();
        let centre = (
            i32::try_from(width / 2).unwrap_or(0),
            i32::try_from(height / 2).unwrap_or(0),
        );
        let style = muted(14.0).pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(
            "Nothing to plot for this scenario",
            centre,
            style,
        ))
        .map_err(drawing_error)?;
        return root.present().map_err(drawing_error);
    };

    let mut chart = ChartBuilder::on(&root)
        .margin_top(px(16.0))
        .margin_right(px(20.0))
        .margin_left(px(6.0))
        .margin_bottom(px(6.0))
        .x_label_area_size(px(46.0))
        .y_label_area_size(px(62.0))
        .build_cartesian_2d(
            axes.x
                .clone()
                .log_scale()
                .with_key_points(axes.x_ticks.clone()),
            axes.y.clone(),
        )
        .map_err(drawing_error)?;

    let format_tick = |value: &f64| compact(*value);
    chart
        .configure_mesh()
        .x_desc(X_AXIS_LABEL)
        .y_desc(Y_AXIS_LABEL)
        .axis_desc_style(text(13.0))
        .label_style(muted(12.0))
        .x_label_formatter(&format_tick)
        .y_label_formatter(&format_tick)
        .y_labels(6)
        .max_light_lines(1)
        .bold_line_style(palette.grid_bold.stroke_width(px(1.0)))
        .light_line_style(palette.grid_light.stroke_width(px(1.0)))
        .axis_style(palette.axis.stroke_width(px(1.0)))
        .set_all_tick_mark_size(px(4.0))
        .draw()
        .map_err(drawing_error)?;

    let legend_half = options.offset(10.0);
    let points: Vec<&CurvePoint> = curve
        .points
        .iter()
        .filter(|p| plottable(p.tok_s_per_user, p.output_tok_s_per_gpu))
        .collect();
    let xy = |p: &CurvePoint| (p.tok_s_per_user, p.output_tok_s_per_gpu);

    // The feasible part of the curve: a solid line.
    let curve_style = palette.curve.stroke_width(px(2.5));
    let feasible: Vec<(f64, f64)> = points.iter().filter(|p| p.fits).map(|p| xy(p)).collect();
    chart
        .draw_series(LineSeries::new(feasible, curve_style))
        .map_err(drawing_error)?
        .label(LEGEND_CURVE)
        .legend(move |(x, y)| {
            PathElement::new(
                vec![(x - legend_half, y), (x + legend_half, y)],
                curve_style,
            )
        });

    // The Pareto frontier: filled dots on the curve.
    let frontier_style = palette.curve.filled();
    let marker_radius = px(3.5);
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| p.pareto && p.fits)
                .map(|p| Circle::new(xy(p), marker_radius, frontier_style)),
        )
        .map_err(drawing_error)?
        .label(LEGEND_PARETO)
        .legend(move |(x, y)| Circle::new((x, y), marker_radius, frontier_style));

    // Infeasible points: grey rings joined by a dashed line to the last feasible point. Beyond
    // the KV capacity the model keeps throughput and TPOT at the capacity's values (the extra
    // requests wait), so these rings pile up at the edge; a dashed vertical line and a note mark
    // the edge, left of which no concurrency is reachable.
    let infeasible_line = palette.infeasible.stroke_width(px(1.5));
    let ring_radius = px(6.0);
    if let Some(first) = points.iter().position(|p| !p.fits) {
        let edge = first.checked_sub(1).and_then(|i| points.get(i));
        let mut tail: Vec<(f64, f64)> = edge.map(|p| xy(p)).into_iter().collect();
        tail.extend(points.iter().skip(first).filter(|p| !p.fits).map(|p| xy(p)));
        let dash = (options.offset(6.0), options.offset(4.0));
        chart
            .draw_series(DashedLineSeries::new(tail, dash.0, dash.1, infeasible_line))
            .map_err(drawing_error)?;
        if let Some(edge) = edge {
            let edge_x = edge.tok_s_per_user;
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(edge_x, axes.y.start), (edge_x, axes.y.end)],
                    dash.0,
                    dash.1,
                    infeasible_line,
                ))
                .map_err(drawing_error)?;
            // Right of the line near the x axis: the curve's low-concurrency end is further right.
            let note = format!(
                "← infeasible: KV cache full beyond C = {}",
                edge.concurrency
            );
            let (offset, pos) = label_offset(Side::AboveRight, options);
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((edge_x, axes.y.start))
                        + Text::new(note, (options.offset(6.0), offset.1), muted(12.0).pos(pos)),
                ))
                .map_err(drawing_error)?;
        }
        chart
            .draw_series(
                points
                    .iter()
                    .filter(|p| !p.fits)
                    .map(|p| Circle::new(xy(p), ring_radius, infeasible_line)),
            )
            .map_err(drawing_error)?
            .label(LEGEND_INFEASIBLE)
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(-legend_half, 0), (legend_half, 0)], infeasible_line)
                    + Circle::new((0, 0), ring_radius, infeasible_line)
            });
    }

    // The knee: a triangle with its concurrency, labelled below-left (the current point's label
    // goes above-right, so the two never collide).
    if let Some(knee) = curve.knee.and_then(|i| curve.points.get(i)) {
        if plottable(knee.tok_s_per_user, knee.output_tok_s_per_gpu) {
            let knee_style = palette.knee.filled();
            let knee_size = px(9.0);
            let label = knee_label(knee);
            let side = if x_fraction(&axes, knee.tok_s_per_user) < 0.25 {
                Side::BelowRight
            } else {
                Side::BelowLeft
            };
            let (offset, pos) = label_offset(side, options);
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at(xy(knee))
                        + TriangleMarker::new((0, 0), knee_size, knee_style)
                        + Text::new(label.clone(), offset, text(12.0).pos(pos)),
                ))
                .map_err(drawing_error)?
                .label(label)
                .legend(move |(x, y)| TriangleMarker::new((x, y), knee_size, knee_style));
        }
    }

    // The current operating point, on top: a ringed dot (hollow when infeasible).
    if plottable(current.tok_s_per_user, current.output_tok_s_per_gpu) {
        let coord = (current.tok_s_per_user, current.output_tok_s_per_gpu);
        let label = current_label(current);
        let (offset, pos) = label_offset(Side::AboveRight, options);
        let radius = px(7.0);
        let halo = palette.halo.filled();
        let body = if current.fits {
            palette.current.filled()
        } else {
            palette.current.stroke_width(px(3.0))
        };
        chart
            .draw_series(std::iter::once(
                EmptyElement::at(coord)
                    + Circle::new((0, 0), px(10.0), halo)
                    + Circle::new((0, 0), radius, body)
                    + Text::new(label.clone(), offset, text(13.0).pos(pos)),
            ))
            .map_err(drawing_error)?
            .label(label)
            .legend(move |(x, y)| Circle::new((x, y), radius, body));
    }

    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin(px(8.0))
        .legend_area_size(px(26.0))
        .label_font(text(12.0))
        .background_style(palette.background.mix(0.92))
        .border_style(palette.grid_bold.stroke_width(px(1.0)))
        .draw()
        .map_err(drawing_error)?;

    root.present().map_err(drawing_error)
}

/// The chart as an SVG document of `size` pixels (for native tests and, later, export).
pub fn render_svg(
    curve: &Curve,
    current: &Marker,
    options: &ChartOptions,
    size: (u32, u32),
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw_pareto(root, curve, current, options)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{evaluate, sweep};
    use crate::scenario::Scenario;

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
    fn an_empty_curve_draws_a_message_instead_of_failing() {
        let curve = Curve {
            points: vec![],
            knee: None,
        };
        let marker = Marker {
            concurrency: 1,
            tok_s_per_user: 0.0,
            output_tok_s_per_gpu: 0.0,
            fits: true,
        };
        let svg = render_svg(&curve, &marker, &ChartOptions::default(), (300, 200)).expect("draws");
        assert!(svg.contains("Nothing to plot"));
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
