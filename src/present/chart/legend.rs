//! The chart's legend, laid out as wrapped rows in a strip above the plot, so it never covers
//! the curve (plotters' built-in legend box sits inside the plot area, where a Pareto curve
//! that spans the whole width has nowhere to hide from it).

use super::overlay::{draw_marker_at, MarkerShape};
use super::style::ChartOptions;
use super::triangle::Triangle;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How an entry's symbol is drawn.
#[derive(Debug, Clone, Copy)]
pub enum Symbol {
    Line(ShapeStyle),
    /// A dashed line: dash and gap lengths in backend pixels.
    Dashes(ShapeStyle, i32, i32),
    /// A short dashed line through a ring.
    DashedRing(ShapeStyle, u32),
    Dot(ShapeStyle, u32),
    Triangle(ShapeStyle, u32),
    /// An ×, as on points that miss the SLO.
    Cross(ShapeStyle, u32),
    /// A marker alone (the measured points).
    Marker(ShapeStyle, MarkerShape, u32),
    /// A pinned scenario: a dashed line through its marker.
    Pin(ShapeStyle, MarkerShape, u32),
}

#[derive(Debug, Clone)]
pub struct LegendItem {
    pub symbol: Symbol,
    pub label: String,
}

/// Where each item goes, and how tall the strip is.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendLayout {
    /// Top-left corner of each item, in strip pixels.
    pub positions: Vec<(i32, i32)>,
    pub height: u32,
}

struct Metrics {
    symbol_width: i32,
    symbol_gap: i32,
    item_gap: i32,
    row_height: i32,
    padding_top: i32,
}

fn metrics(options: &ChartOptions) -> Metrics {
    Metrics {
        symbol_width: options.offset(22.0),
        symbol_gap: options.offset(6.0),
        item_gap: options.offset(18.0),
        row_height: options.offset(19.0),
        padding_top: options.offset(8.0),
    }
}

/// Flow the items left to right from `left`, wrapping before `right`.
pub fn layout<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[LegendItem],
    font: &TextStyle<'_>,
    left: i32,
    right: i32,
    options: &ChartOptions,
) -> LegendLayout {
    layout_reserving(area, items, font, (left, right), options, None)
}

/// The same, with item `reserve.0` given the room of the wider of its label and `reserve.1`:
/// an item whose label changes with every slider move (the current point's) then never moves
/// the items after it or the strip's height, so the chart's frame, and the kept base, stay.
pub fn layout_reserving<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[LegendItem],
    font: &TextStyle<'_>,
    (left, right): (i32, i32),
    options: &ChartOptions,
    reserve: Option<(usize, &str)>,
) -> LegendLayout {
    let m = metrics(options);
    let mut positions = Vec::with_capacity(items.len());
    let (mut x, mut y) = (left, m.padding_top);
    let width_of = |label: &str| {
        area.estimate_text_size(label, font)
            .map_or(0, |(w, _)| i32::try_from(w).unwrap_or(0))
    };
    for (index, item) in items.iter().enumerate() {
        let text_width = match reserve {
            Some((reserved, widest)) if reserved == index => {
                width_of(&item.label).max(width_of(widest))
            }
            _ => width_of(&item.label),
        };
        let width = m.symbol_width + m.symbol_gap + text_width;
        if x > left && x + width > right {
            x = left;
            y += m.row_height;
        }
        positions.push((x, y));
        x += width + m.item_gap;
    }
    let rows_bottom = if items.is_empty() {
        0
    } else {
        y + m.row_height
    };
    LegendLayout {
        positions,
        height: u32::try_from(rows_bottom + m.padding_top / 2).unwrap_or(0),
    }
}

/// Draw the items at their laid-out positions, those whose index `drawn` accepts.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[LegendItem],
    layout: &LegendLayout,
    font: &TextStyle<'_>,
    options: &ChartOptions,
    drawn: impl Fn(usize) -> bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let m = metrics(options);
    let placed = items.iter().zip(&layout.positions).enumerate();
    for (_, (item, &(x, y))) in placed.filter(|(index, _)| drawn(*index)) {
        let middle = y + m.row_height / 2;
        let centre = x + m.symbol_width / 2;
        match item.symbol {
            Symbol::Line(style) => {
                area.draw(&PathElement::new(
                    vec![(x, middle), (x + m.symbol_width, middle)],
                    style,
                ))?;
            }
            Symbol::Dashes(style, dash, gap) => {
                let (dash, gap) = (dash.max(1), gap.max(1));
                let mut start = x;
                while start < x + m.symbol_width {
                    let end = (start + dash).min(x + m.symbol_width);
                    area.draw(&PathElement::new(
                        vec![(start, middle), (end, middle)],
                        style,
                    ))?;
                    start = end + gap;
                }
            }
            Symbol::DashedRing(style, radius) => {
                let dash = m.symbol_width / 5;
                area.draw(&PathElement::new(
                    vec![(x, middle), (x + dash, middle)],
                    style,
                ))?;
                area.draw(&PathElement::new(
                    vec![
                        (x + m.symbol_width - dash, middle),
                        (x + m.symbol_width, middle),
                    ],
                    style,
                ))?;
                area.draw(&Circle::new((centre, middle), radius, style))?;
            }
            Symbol::Dot(style, radius) => {
                area.draw(&Circle::new((centre, middle), radius, style))?
            }
            Symbol::Triangle(style, size) => {
                area.draw(&Triangle::new((centre, middle), size, style))?
            }
            Symbol::Cross(style, size) => area.draw(&Cross::new((centre, middle), size, style))?,
            Symbol::Marker(style, shape, size) => {
                draw_marker_at(area, shape, (centre, middle), size, style)?
            }
            Symbol::Pin(style, shape, size) => {
                let dash = m.symbol_width / 4;
                for start in [x, x + m.symbol_width - dash] {
                    area.draw(&PathElement::new(
                        vec![(start, middle), (start + dash, middle)],
                        style,
                    ))?;
                }
                draw_marker_at(area, shape, (centre, middle), size, style)?;
            }
        }
        let text_pos = (x + m.symbol_width + m.symbol_gap, middle);
        area.draw(&Text::new(
            item.label.as_str(),
            text_pos,
            font.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}
