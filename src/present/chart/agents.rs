//! The agentic chart (issue 27 §2, §4): interactivity at the tier's percentile (1 / TPOT, tokens/s
//! per user) on x, as InferenceX plots it, against agents per GPU on y, one marker per agent
//! count (doubling from one; filled where the tier is met, hollow where it is not), the tier's
//! interactivity as a dashed vertical line, the most agents at the tier and the slider's agents
//! marked. Generic over the plotters backend, like `draw_pareto` (canvas in the page, SVG in the
//! report); pure.

use super::layout::compact;
use super::style::{ChartOptions, Palette};
use super::ticks::{linear_ticks, TickedRange};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The chart font (a `FontFamily`: see `load.rs`).
const FONT_FAMILY: FontFamily = FontFamily::SansSerif;
pub const AGENTS_X_LABEL: &str = "interactivity at the percentile, tok/s per user";
pub const AGENTS_Y_LABEL: &str = "agents per GPU";

/// One agent count's steady state, as the chart reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentCurvePoint {
    pub agents: u32,
    /// 1 / TPOT at the tier's percentile, tokens/s per user.
    pub interactivity: f64,
    pub agents_per_gpu: f64,
    pub output_tok_s_per_gpu: f64,
    pub hit_rate: f64,
    /// TTFT and interactivity within the tier, and the turns fit the KV cache.
    pub meets_tier: bool,
}

/// What the chart shows.
#[derive(Debug, Clone, Copy)]
pub struct AgentChart<'a> {
    /// In increasing agents.
    pub points: &'a [AgentCurvePoint],
    /// The tier's tokens/s per user.
    pub tier_tok_s_per_user: f64,
    /// (interactivity, agents per GPU) of the slider's agents and of the most agents at the tier.
    pub current: Option<(f64, f64)>,
    pub at_tier: Option<(f64, f64)>,
}

fn drawing_error(error: impl std::fmt::Display) -> String {
    format!("agentic chart: {error}")
}

/// Draw the chart, filling `root`.
pub fn draw_agents<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    chart: &AgentChart<'_>,
    options: &ChartOptions,
) -> Result<(), String> {
    let palette = Palette::for_theme(options.theme);
    root.fill(&palette.background).map_err(drawing_error)?;
    let px = |css: f64| options.px(css);
    let font =
        |size: f64, colour: &RGBColor| (FONT_FAMILY, options.font(size)).into_font().color(colour);
    let finite = |v: f64| v.is_finite() && v >= 0.0;
    let points: Vec<&AgentCurvePoint> = chart
        .points
        .iter()
        .filter(|p| finite(p.interactivity) && finite(p.agents_per_gpu))
        .collect();
    let x_top = points
        .iter()
        .map(|p| p.interactivity)
        .chain(std::iter::once(chart.tier_tok_s_per_user).filter(|v| finite(*v)))
        .fold(1.0f64, f64::max)
        * 1.08;
    let y_top = points
        .iter()
        .map(|p| p.agents_per_gpu)
        .chain(chart.current.map(|c| c.1))
        .fold(1.0f64, f64::max)
        * 1.1;
    let mut plot = ChartBuilder::on(&root)
        .margin_top(px(12.0))
        .margin_right(px(18.0))
        .margin_left(px(6.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(58.0))
        .build_cartesian_2d(
            TickedRange::new(0.0..x_top, linear_ticks(x_top, 6)),
            TickedRange::new(0.0..y_top, linear_ticks(y_top, 5)),
        )
        .map_err(drawing_error)?;
    let tick = |v: &f64| compact(*v);
    plot.configure_mesh()
        .x_desc(AGENTS_X_LABEL)
        .y_desc(AGENTS_Y_LABEL)
        .axis_desc_style(font(12.0, &palette.text))
        .label_style(font(11.0, &palette.muted_text))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .bold_line_style(palette.grid_bold.stroke_width(px(1.0)))
        .axis_style(palette.axis.stroke_width(px(1.0)))
        .set_all_tick_mark_size(px(3.0))
        .draw()
        .map_err(drawing_error)?;
    if finite(chart.tier_tok_s_per_user) {
        let x = chart.tier_tok_s_per_user;
        plot.draw_series(DashedLineSeries::new(
            vec![(x, 0.0), (x, y_top)],
            options.offset(6.0),
            options.offset(4.0),
            palette.infeasible.stroke_width(px(1.5)),
        ))
        .map_err(drawing_error)?;
        plot.draw_series(std::iter::once(Text::new(
            format!("tier ≥ {} tok/s per user", compact(x)),
            (x, y_top),
            font(11.0, &palette.muted_text),
        )))
        .map_err(drawing_error)?;
    }
    let line: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.interactivity, p.agents_per_gpu))
        .collect();
    plot.draw_series(LineSeries::new(line, palette.curve.stroke_width(px(2.0))))
        .map_err(drawing_error)?;
    plot.draw_series(points.iter().map(|p| {
        let style = if p.meets_tier {
            palette.curve.filled()
        } else {
            palette.curve.stroke_width(px(1.5))
        };
        Circle::new((p.interactivity, p.agents_per_gpu), px(3.5), style)
    }))
    .map_err(drawing_error)?;
    if let Some(at) = chart.at_tier {
        plot.draw_series(std::iter::once(Circle::new(
            at,
            px(7.0),
            palette.knee.stroke_width(px(2.5)),
        )))
        .map_err(drawing_error)?;
    }
    if let Some(current) = chart.current {
        plot.draw_series([
            Circle::new(current, px(7.0), palette.halo.filled()),
            Circle::new(current, px(5.5), palette.current.filled()),
        ])
        .map_err(drawing_error)?;
    }
    root.present().map_err(drawing_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_the_curve_the_tier_and_both_points() {
        let points: Vec<AgentCurvePoint> = [1, 2, 4, 8]
            .iter()
            .map(|&agents| AgentCurvePoint {
                agents,
                interactivity: 100.0 / f64::from(agents),
                agents_per_gpu: f64::from(agents),
                output_tok_s_per_gpu: 50.0 * f64::from(agents),
                hit_rate: 0.9,
                meets_tier: agents <= 4,
            })
            .collect();
        let chart = AgentChart {
            points: &points,
            tier_tok_s_per_user: 20.0,
            current: Some((50.0, 2.0)),
            at_tier: Some((25.0, 4.0)),
        };
        let mut svg = String::new();
        {
            let root = crate::present::chart::svg::svg_area(&mut svg, (640, 400));
            draw_agents(root, &chart, &ChartOptions::default()).expect("draws");
        }
        assert!(svg.contains(AGENTS_X_LABEL), "{svg}");
        assert!(svg.contains("tier ≥ 20 tok/s per user"));
    }
}
