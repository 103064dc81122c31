//! The hardware leaderboard's bar chart: one horizontal bar per row (output tokens/s per GPU at
//! the target interactivity, `decide::leaderboard`), labelled with the configuration and its
//! $/M output; rows without a price are grey and say "no price". Generic over the plotters
//! backend, like `draw_pareto`: the page draws it on a canvas (and exports it as PNG), tests to
//! SVG. Pure.

use super::style::{ChartOptions, Palette};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A `FontFamily`, not a string (see `load.rs`: a string family links Unicode case tables).
const FONT_FAMILY: FontFamily = FontFamily::SansSerif;
/// Height of one bar's row and of the title line, CSS pixels.
pub const BAR_ROW_CSS_PX: f64 = 24.0;
const TITLE_CSS_PX: f64 = 28.0;
/// Shown when there is nothing to draw.
pub const LEADERBOARD_CHART_EMPTY: &str = "No configuration meets the target";

/// One bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// "B200 · FP4 · TP 1".
    pub label: String,
    /// Output tokens/s per GPU.
    pub value: f64,
    /// "1,699 tok/s/GPU · $0.74/M" (or "· no price").
    pub value_text: String,
    pub priced: bool,
}

/// The CSS height a chart of `bars` bars needs.
pub fn chart_height_css_px(bars: usize) -> f64 {
    TITLE_CSS_PX + BAR_ROW_CSS_PX * bars.max(1) as f64 + 8.0
}

fn drawing_error(error: impl std::fmt::Display) -> String {
    format!("leaderboard chart: {error}")
}

/// Draw `bars` (in the order given) under `title`, filling `root`.
pub fn draw_leaderboard<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    bars: &[Bar],
    options: &ChartOptions,
) -> Result<(), String> {
    let palette = Palette::for_theme(options.theme);
    root.fill(&palette.background).map_err(drawing_error)?;
    let (width, _) = root.dim_in_pixel();
    let width = i32::try_from(width).unwrap_or(i32::MAX);
    let px = |css: f64| options.offset(css);
    let font =
        |size: f64, colour: &RGBColor| (FONT_FAMILY, options.font(size)).into_font().color(colour);
    let left_middle = Pos::new(HPos::Left, VPos::Center);
    let right_middle = Pos::new(HPos::Right, VPos::Center);
    root.draw(&Text::new(
        title.to_string(),
        (px(8.0), px(TITLE_CSS_PX / 2.0)),
        font(13.0, &palette.text).pos(left_middle),
    ))
    .map_err(drawing_error)?;
    if bars.is_empty() {
        root.draw(&Text::new(
            LEADERBOARD_CHART_EMPTY,
            (px(8.0), px(TITLE_CSS_PX + BAR_ROW_CSS_PX / 2.0)),
            font(12.0, &palette.muted_text).pos(left_middle),
        ))
        .map_err(drawing_error)?;
        return root.present().map_err(drawing_error);
    }
    // Labels take the left 38 %, value texts about 190 CSS px at the right; bars scale to the
    // largest value between them.
    let label_right = width * 38 / 100;
    let bar_left = label_right + px(8.0);
    let bar_span = (width - bar_left - px(190.0)).max(px(20.0));
    let top = bars
        .iter()
        .map(|b| b.value)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    for (index, bar) in bars.iter().enumerate() {
        let row_top = px(TITLE_CSS_PX + BAR_ROW_CSS_PX * index as f64);
        let middle = row_top + px(BAR_ROW_CSS_PX / 2.0);
        root.draw(&Text::new(
            bar.label.clone(),
            (label_right, middle),
            font(12.0, &palette.text).pos(right_middle),
        ))
        .map_err(drawing_error)?;
        let fraction = if top > 0.0 && bar.value.is_finite() {
            (bar.value / top).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let bar_right = bar_left + ((f64::from(bar_span) * fraction).round() as i32).max(1);
        let colour = if bar.priced {
            palette.curve
        } else {
            palette.infeasible
        };
        root.draw(&Rectangle::new(
            [
                (bar_left, row_top + px(4.0)),
                (bar_right, row_top + px(BAR_ROW_CSS_PX - 4.0)),
            ],
            colour.filled(),
        ))
        .map_err(drawing_error)?;
        root.draw(&Text::new(
            bar.value_text.clone(),
            (bar_right + px(6.0), middle),
            font(11.0, &palette.muted_text).pos(left_middle),
        ))
        .map_err(drawing_error)?;
    }
    root.present().map_err(drawing_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(bars: &[Bar]) -> String {
        let mut out = String::new();
        {
            let height = chart_height_css_px(bars.len()).round() as u32;
            let root = SVGBackend::with_string(&mut out, (640, height)).into_drawing_area();
            draw_leaderboard(
                root,
                "Output tok/s per GPU at ≥ 50 tok/s per user",
                bars,
                &ChartOptions::default(),
            )
            .expect("draws");
        }
        out
    }

    #[test]
    fn bars_are_labelled_and_unpriced_ones_grey() {
        let bar = |label: &str, value: f64, priced: bool| Bar {
            label: label.into(),
            value,
            value_text: format!(
                "{value} tok/s/GPU{}",
                if priced { "" } else { " · no price" }
            ),
            priced,
        };
        let out = svg(&[
            bar("B200 · FP4 · TP 1", 1699.0, true),
            bar("GB200 · FP4 · TP 1", 1936.0, false),
        ]);
        assert!(
            out.contains("B200 · FP4 · TP 1") && out.contains("no price"),
            "{out}"
        );
        assert_eq!(out.matches("<rect").count(), 3, "background and two bars");
        let palette = Palette::for_theme(super::super::style::Theme::Light);
        let grey = format!(
            "#{:02X}{:02X}{:02X}",
            palette.infeasible.0, palette.infeasible.1, palette.infeasible.2
        );
        assert!(out.to_uppercase().contains(&grey), "{out}");
        let empty = svg(&[]);
        assert!(empty.contains(LEADERBOARD_CHART_EMPTY));
    }
}
