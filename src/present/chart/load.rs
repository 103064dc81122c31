//! The latency-vs-load chart (MODEL.md §4.5 step 5): the simulator's P50, P95 and P99 of TTFT
//! (upper panel) and TPOT (lower panel) against the offered request rate, with the analytic
//! capacity `λ_max` and the simulated saturation rate marked as vertical lines.
//!
//! Latencies span decades near saturation (TTFT grows without bound once the queue does), so
//! both y axes are logarithmic, drawn as a linear plotters axis over `ln(ms)` with 1–2–5 ticks
//! (as `axis.rs` does for $/M). Percentiles differ by colour, dash and marker shape.
//! Generic over the plotters backend, like `draw_pareto`; pure.

use super::layout::{compact, log_ticks};
use super::legend::{self, LegendItem, Symbol};
use super::style::{ChartOptions, Palette, Theme, OKABE_ITO_BLUE, OKABE_ITO_SKY_BLUE};
use super::ticks::{linear_ticks, TickedRange};
use crate::sim::load::LoadPoint;
use crate::sim::LatencySummary;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// The chart font. A `FontFamily`, not the string "sans-serif": plotters reads a string family
/// with `str::to_lowercase`, which links ~24 KB of Unicode case tables into the wasm.
const FONT_FAMILY: FontFamily = FontFamily::SansSerif;
/// Shown before the first run has finished.
pub const LOAD_CHART_EMPTY: &str = "The simulator has not run yet";
pub const LOAD_X_LABEL: &str = "offered load, requests/s (Poisson arrivals)";
pub const LOAD_TTFT_LABEL: &str = "TTFT ms (log)";
pub const LOAD_TPOT_LABEL: &str = "TPOT ms (log)";

/// What the chart shows.
#[derive(Debug, Clone, Copy)]
pub struct LoadChart<'a> {
    /// In increasing rate; may be a partial sweep.
    pub points: &'a [LoadPoint],
    /// The analytic `λ_max`, requests/s.
    pub capacity_per_s: f64,
    /// Where the simulated engine saturated, if a run did.
    pub saturation_per_s: Option<f64>,
}

/// One percentile series: its name, how to read it, and its look.
struct Percentile {
    label: &'static str,
    value: fn(&LatencySummary) -> f64,
    colour: RGBColor,
    dash_px: Option<(f64, f64)>,
}

fn percentiles(theme: Theme) -> [Percentile; 3] {
    let dark = theme == Theme::Dark;
    [
        Percentile {
            label: "P50",
            value: |s| s.p50_ms,
            colour: if dark {
                OKABE_ITO_SKY_BLUE
            } else {
                OKABE_ITO_BLUE
            },
            dash_px: None,
        },
        Percentile {
            label: "P95",
            value: |s| s.p95_ms,
            colour: RGBColor(0x00, 0x9E, 0x73),
            dash_px: Some((8.0, 4.0)),
        },
        Percentile {
            label: "P99",
            value: |s| s.p99_ms,
            colour: if dark {
                RGBColor(0xE6, 0x9F, 0x00)
            } else {
                RGBColor(0xC0, 0x55, 0x00)
            },
            dash_px: Some((3.0, 3.0)),
        },
    ]
}

fn drawing_error(error: impl std::fmt::Display) -> String {
    format!("load chart: {error}")
}

/// A log y range (in `ln(ms)`) covering `values`, padded and at least a factor 4 wide, with its
/// ticks; `None` when no value is positive.
fn log_range(values: impl Iterator<Item = f64>) -> Option<(Range<f64>, Vec<f64>)> {
    let (lo, hi) = values.filter(|v| v.is_finite() && *v > 0.0).fold(
        None,
        |range: Option<(f64, f64)>, v| match range {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        },
    )?;
    let (mut lo, mut hi) = ((lo / 1.4).ln(), (hi * 1.4).ln());
    if hi - lo < 4f64.ln() {
        let middle = (lo + hi) / 2.0;
        lo = middle - 4f64.ln() / 2.0;
        hi = middle + 4f64.ln() / 2.0;
    }
    let ticks = log_ticks(lo.exp(), hi.exp(), 5)
        .into_iter()
        .map(f64::ln)
        .collect();
    Some((lo..hi, ticks))
}

/// The x range: from zero past the last rate and the capacity.
fn rate_range(chart: &LoadChart<'_>) -> Range<f64> {
    let top = chart
        .points
        .iter()
        .map(|p| p.rate_per_s)
        .chain(std::iter::once(chart.capacity_per_s))
        .chain(chart.saturation_per_s)
        .filter(|r| r.is_finite() && *r > 0.0)
        .fold(0.0f64, f64::max);
    0.0..if top > 0.0 { top * 1.08 } else { 1.0 }
}

/// Draw one panel: three percentile lines of `metric`, the two vertical markers, and a title.
#[allow(clippy::too_many_arguments)]
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &LoadChart<'_>,
    metric: fn(&LoadPoint) -> LatencySummary,
    title: &str,
    x_axis: bool,
    x_range: Range<f64>,
    options: &ChartOptions,
) -> Result<(), String> {
    let palette = Palette::for_theme(options.theme);
    let px = |css: f64| options.px(css);
    let font =
        |size: f64, colour: &RGBColor| (FONT_FAMILY, options.font(size)).into_font().color(colour);
    let series = percentiles(options.theme);
    let values = chart.points.iter().flat_map(|p| {
        let summary = metric(p);
        series.iter().map(move |s| (s.value)(&summary))
    });
    let Some((y_range, y_ticks)) = log_range(values) else {
        return Ok(());
    };
    let x_ticks = linear_ticks(x_range.end, 6);
    let mut plot = ChartBuilder::on(area)
        .margin_top(px(6.0))
        .margin_right(px(16.0))
        .margin_left(px(6.0))
        .x_label_area_size(px(if x_axis { 40.0 } else { 6.0 }))
        .y_label_area_size(px(58.0))
        .build_cartesian_2d(
            TickedRange::new(x_range.clone(), x_ticks),
            TickedRange::new(y_range.clone(), y_ticks),
        )
        .map_err(drawing_error)?;
    let y_tick = |v: &f64| compact(v.exp());
    let x_tick = |v: &f64| compact(*v);
    let mut mesh = plot.configure_mesh();
    mesh.y_desc(title)
        .axis_desc_style(font(12.0, &palette.text))
        .label_style(font(11.0, &palette.muted_text))
        .y_label_formatter(&y_tick)
        .x_label_formatter(&x_tick)
        .bold_line_style(palette.grid_bold.stroke_width(px(1.0)))
        .axis_style(palette.axis.stroke_width(px(1.0)))
        .set_all_tick_mark_size(px(3.0));
    let no_tick = |_: &f64| String::new();
    if x_axis {
        mesh.x_desc(LOAD_X_LABEL);
    } else {
        mesh.x_label_formatter(&no_tick);
    }
    mesh.draw().map_err(drawing_error)?;

    // Vertical markers: the analytic capacity (grey) and the simulated saturation (text colour).
    let vertical = |x: f64| vec![(x, y_range.start), (x, y_range.end)];
    let dash = (options.offset(6.0), options.offset(4.0));
    if chart.capacity_per_s.is_finite() && chart.capacity_per_s > 0.0 {
        plot.draw_series(DashedLineSeries::new(
            vertical(chart.capacity_per_s),
            dash.0,
            dash.1,
            palette.infeasible.stroke_width(px(1.5)),
        ))
        .map_err(drawing_error)?;
    }
    if let Some(saturation) = chart.saturation_per_s.filter(|s| s.is_finite() && *s > 0.0) {
        plot.draw_series(DashedLineSeries::new(
            vertical(saturation),
            dash.0,
            dash.1,
            palette.text.stroke_width(px(1.5)),
        ))
        .map_err(drawing_error)?;
    }

    for s in &series {
        let points: Vec<(f64, f64)> = chart
            .points
            .iter()
            .filter_map(|p| {
                let ms = (s.value)(&metric(p));
                (ms.is_finite() && ms > 0.0).then(|| (p.rate_per_s, ms.ln()))
            })
            .collect();
        let line = s.colour.stroke_width(px(2.0));
        match s.dash_px {
            Some((on, off)) => plot
                .draw_series(DashedLineSeries::new(
                    points.clone(),
                    options.offset(on),
                    options.offset(off),
                    line,
                ))
                .map(|_| ()),
            None => plot
                .draw_series(LineSeries::new(points.clone(), line))
                .map(|_| ()),
        }
        .map_err(drawing_error)?;
        plot.draw_series(
            points
                .iter()
                .map(|&xy| Circle::new(xy, px(3.0), s.colour.filled())),
        )
        .map_err(drawing_error)?;
    }
    Ok(())
}

/// Draw the chart, filling `root`.
pub fn draw_latency_vs_load<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    chart: &LoadChart<'_>,
    options: &ChartOptions,
) -> Result<(), String> {
    let palette = Palette::for_theme(options.theme);
    root.fill(&palette.background).map_err(drawing_error)?;
    let label_font = (FONT_FAMILY, options.font(12.0))
        .into_font()
        .color(&palette.text);
    if chart.points.is_empty() {
        let (width, height) = root.dim_in_pixel();
        let centre = (
            i32::try_from(width / 2).unwrap_or(0),
            i32::try_from(height / 2).unwrap_or(0),
        );
        root.draw(&Text::new(
            LOAD_CHART_EMPTY,
            centre,
            label_font.pos(Pos::new(HPos::Center, VPos::Center)),
        ))
        .map_err(drawing_error)?;
        return root.present().map_err(drawing_error);
    }

    let mut items: Vec<LegendItem> = percentiles(options.theme)
        .iter()
        .map(|s| {
            let style = s.colour.stroke_width(options.px(2.0));
            LegendItem {
                symbol: match s.dash_px {
                    Some((on, off)) => {
                        Symbol::Dashes(style, options.offset(on), options.offset(off))
                    }
                    None => Symbol::Line(style),
                },
                label: s.label.into(),
            }
        })
        .collect();
    let dash = (options.offset(4.0), options.offset(3.0));
    if chart.capacity_per_s.is_finite() && chart.capacity_per_s > 0.0 {
        items.push(LegendItem {
            symbol: Symbol::Dashes(
                palette.infeasible.stroke_width(options.px(1.5)),
                dash.0,
                dash.1,
            ),
            label: format!(
                "analytic capacity λmax {} req/s",
                compact(chart.capacity_per_s)
            ),
        });
    }
    if let Some(saturation) = chart.saturation_per_s {
        items.push(LegendItem {
            symbol: Symbol::Dashes(palette.text.stroke_width(options.px(1.5)), dash.0, dash.1),
            label: format!("simulated saturation ≈ {} req/s", compact(saturation)),
        });
    }
    let (width, height) = root.dim_in_pixel();
    let layout = legend::layout(
        &root,
        &items,
        &label_font,
        options.offset(64.0),
        i32::try_from(width).unwrap_or(i32::MAX) - options.offset(16.0),
        options,
    );
    let (legend_area, plot_area) = root.split_vertically(layout.height);
    legend::draw(&legend_area, &items, &layout, &label_font, options, |_| {
        true
    })
    .map_err(drawing_error)?;
    let x_range = rate_range(chart);
    let panel_height = height.saturating_sub(layout.height) * 9 / 20;
    let (upper, lower) = plot_area.split_vertically(panel_height);
    draw_panel(
        &upper,
        chart,
        |p| p.ttft,
        LOAD_TTFT_LABEL,
        false,
        x_range.clone(),
        options,
    )?;
    draw_panel(
        &lower,
        chart,
        |p| p.tpot,
        LOAD_TPOT_LABEL,
        true,
        x_range,
        options,
    )?;
    root.present().map_err(drawing_error)
}

/// The chart as an SVG document (native tests).
pub fn render_load_svg(
    chart: &LoadChart<'_>,
    options: &ChartOptions,
    size: (u32, u32),
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw_latency_vs_load(root, chart, options)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, ScenarioInput};
    use crate::sim::load::latency_vs_load;

    #[test]
    fn a_sweep_draws_both_panels_the_legend_and_both_markers() {
        let scenario = Scenario::try_from(ScenarioInput::small_reference()).expect("valid");
        let curve = latency_vs_load(&scenario).expect("runs");
        let chart = LoadChart {
            points: &curve.points,
            capacity_per_s: curve.capacity_per_s,
            saturation_per_s: curve.saturation_per_s(),
        };
        let svg = render_load_svg(&chart, &ChartOptions::default(), (720, 520)).expect("draws");
        for needle in [
            LOAD_X_LABEL,
            LOAD_TTFT_LABEL,
            LOAD_TPOT_LABEL,
            "P50",
            "P95",
            "P99",
            "analytic capacity λmax",
            "simulated saturation ≈",
        ] {
            assert!(svg.contains(needle), "SVG lacks {needle:?}");
        }
        // A partial sweep (the page draws as runs arrive) and the dark theme draw too.
        let partial = LoadChart {
            points: &curve.points[..2],
            saturation_per_s: None,
            ..chart
        };
        let dark = ChartOptions {
            theme: Theme::Dark,
            scale: 2.0,
        };
        let svg = render_load_svg(&partial, &dark, (720, 520)).expect("draws");
        assert!(!svg.contains("simulated saturation"));
    }

    #[test]
    fn no_runs_yet_says_so() {
        let chart = LoadChart {
            points: &[],
            capacity_per_s: 10.0,
            saturation_per_s: None,
        };
        let svg = render_load_svg(&chart, &ChartOptions::default(), (300, 200)).expect("draws");
        assert!(svg.contains(LOAD_CHART_EMPTY));
    }
}
