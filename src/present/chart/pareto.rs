//! `draw_pareto`: the drawing itself (legend strip, mesh, curve, infeasible tail, frontier,
//! knee, current point), generic over the plotters backend, and where its in-plot labels go
//! (`place::place_label`: clear of each other, the plot's edges and what is plotted). See
//! `chart/mod.rs` for what it shows.

use super::axis::Projection;
use super::layout::{compact, Axes};
use super::legend::{self, LegendItem, LegendLayout, Symbol};
use super::overlay::{self, Overlay};
use super::place::{
    choose, label_box, label_offset, place_label, LabelPlacement, Labelled, Obstacles, Side, Spot,
    LABEL_GAPS_CSS_PX,
};
use super::series::{self, Layers, Projected};
use super::style::{ChartOptions, Palette};
use super::ticks::TickedRange;
use super::triangle::Triangle;
use super::{
    current_label, knee_label, Marker, COMPACT_BELOW_CSS_HEIGHT_PX, COMPACT_BELOW_CSS_PX,
    LEGEND_BAND, LEGEND_CURVE, LEGEND_CURVE_SHORT, LEGEND_INFEASIBLE, LEGEND_INFEASIBLE_SHORT,
    LEGEND_PARETO, NO_PRICE_TO_PLOT,
};
use crate::model::{Curve, CurvePoint};
use plotters::coord::combinators::{LogCoord, WithKeyPoints};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The chart font. A `FontFamily`, not the string "sans-serif": plotters reads a string family
/// with `str::to_lowercase`, which links ~24 KB of Unicode case tables into the wasm.
const FONT_FAMILY: FontFamily = FontFamily::SansSerif;

fn drawing_error(error: impl std::fmt::Display) -> String {
    format!("chart: {error}")
}

fn plottable(x: f64, y: f64) -> bool {
    x.is_finite() && x > 0.0 && y.is_finite()
}

/// How far (CSS px) the infeasible note rises beside the edge's line per step when its place by
/// the x axis is taken; it tries every height up to the plot's top.
const NOTE_RISE_CSS_PX: f64 = 12.0;

/// What the base draws in the plot, in backend pixels (`at` maps plot coordinates, as plotters
/// does): the curve's points and line, the infeasible tail and the edge's line, the knee, the
/// other curves, the pinned curves and the measured points. Not the current point: it is drawn
/// last and its label placed last, and the base's labels must not move with it. A `&dyn`
/// map, so this is compiled once and not once per backend.
fn obstacles(
    at: &dyn Fn((f64, f64)) -> (i32, i32),
    points: &[&CurvePoint],
    knee: Option<&CurvePoint>,
    projected: &Projected<'_>,
    axes: &Axes,
    style: &Styles,
    options: &ChartOptions,
) -> Obstacles {
    let mut obstacles = Obstacles::default();
    // One line through the curve's points in sweep order: the solid feasible line, then the
    // dashed tail from the edge through the infeasible points (a suffix of the sweep: more
    // requests never fit where fewer did not).
    let mut from = None;
    for point in points {
        let centre = at((point.tok_s_per_user, point.output_tok_s_per_gpu));
        // The rings are markers a label could be taken for; the frontier's dots are the
        // labelled points' own curve (`Obstacles`).
        if point.fits {
            obstacles.mark(centre, style.dot_radius);
        } else {
            obstacles.marker(centre, style.ring_radius);
        }
        from = obstacles.join(from, centre);
    }
    if let Some(knee) = knee {
        let centre = at((knee.tok_s_per_user, knee.output_tok_s_per_gpu));
        obstacles.marker(centre, style.knee_size);
    }
    // The dashed line at the KV edge, across the plot.
    let edge = points
        .iter()
        .position(|p| !p.fits)
        .and_then(|first| first.checked_sub(1))
        .and_then(|i| points.get(i));
    if let Some(edge) = edge {
        let x = edge.tok_s_per_user;
        let bottom = obstacles.join(None, at((x, axes.y.start)));
        obstacles.join(bottom, at((x, axes.y.end)));
    }
    let radius = options.px(4.0);
    for other in &projected.others {
        let mut from = None;
        for &(x, y) in other.points.iter().filter(|p| plottable(p.0, p.1)) {
            let centre = at((x, y));
            obstacles.mark(centre, radius);
            from = obstacles.join(from, centre);
        }
        // The ring at its end (`series::draw_others`).
        if let Some(&end) = other.points.last() {
            obstacles.marker(at(end), radius);
        }
    }
    let overlay = &projected.overlay;
    let radius = options.px(4.5);
    for pin in overlay.pins.iter().take(overlay::MAX_PINNED_CURVES) {
        let mut from = None;
        for (x, y) in pin.points.iter().map(|p| p.xy()) {
            if plottable(x, y) {
                let centre = at((x, y));
                obstacles.marker(centre, radius);
                from = obstacles.join(from, centre);
            }
        }
    }
    let radius = options.px(6.0);
    for &(x, y) in overlay.measured.iter().filter(|p| plottable(p.0, p.1)) {
        obstacles.marker(at((x, y)), radius);
    }
    obstacles
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

/// Every style the chart uses, scaled for the backend.
struct Styles {
    curve: ShapeStyle,
    frontier: ShapeStyle,
    infeasible: ShapeStyle,
    knee: ShapeStyle,
    current: ShapeStyle,
    halo: ShapeStyle,
    dot_radius: u32,
    ring_radius: u32,
    knee_size: u32,
    current_radius: u32,
    halo_radius: u32,
}

fn styles(palette: &Palette, current: &Marker, options: &ChartOptions) -> Styles {
    let px = |css: f64| options.px(css);
    Styles {
        curve: palette.curve.stroke_width(px(2.5)),
        frontier: palette.curve.filled(),
        infeasible: palette.infeasible.stroke_width(px(1.5)),
        knee: palette.knee.filled(),
        current: if current.fits {
            palette.current.filled()
        } else {
            palette.current.stroke_width(px(3.0))
        },
        halo: palette.halo.filled(),
        dot_radius: px(3.5),
        ring_radius: px(6.0),
        knee_size: px(9.0),
        current_radius: px(7.0),
        halo_radius: px(10.0),
    }
}

/// Left and right margins of the plot (CSS px).
const MARGIN_LEFT_PX: f64 = 6.0;
const MARGIN_RIGHT_PX: f64 = 20.0;

/// Type sizes and label widths: regular, or compact for a narrow chart (a phone).
struct Sizes {
    compact: bool,
    tick: f64,
    axis_title: f64,
    label: f64,
    current_label: f64,
    y_label_area: f64,
    x_label_area: f64,
}

fn sizes((css_width, css_height): (f64, f64)) -> Sizes {
    if css_width < COMPACT_BELOW_CSS_PX || css_height < COMPACT_BELOW_CSS_HEIGHT_PX {
        Sizes {
            compact: true,
            tick: 11.0,
            axis_title: 12.0,
            label: 11.0,
            current_label: 12.0,
            y_label_area: 52.0,
            x_label_area: 40.0,
        }
    } else {
        Sizes {
            compact: false,
            // One size, the page's 0.8rem: Chrome looks up a platform font for each size of
            // SVG text, so the first screen's SVG chart costs one lookup, not two
            // (first_screen::CHART_SIZE; the type scale in static/style.css).
            tick: 12.0,
            axis_title: 12.0,
            label: 12.0,
            current_label: 12.0,
            y_label_area: 62.0,
            x_label_area: 46.0,
        }
    }
}

/// Draw the Pareto chart of `curve` with `current` highlighted, filling the whole `root`.
pub fn draw_pareto<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    options: &ChartOptions,
) -> Result<(), String> {
    draw_pareto_with(root, curve, current, &Overlay::default(), options)
}

/// The same, with pinned curves and SLO misses drawn on top (`overlay.rs`).
pub fn draw_pareto_with<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    overlay: &Overlay,
    options: &ChartOptions,
) -> Result<(), String> {
    draw_pareto_layered(root, curve, current, overlay, &Layers::default(), options)
}

/// The same on the chosen axes, with other curves (the technique ladder) behind the main one
/// (`series.rs`).
pub fn draw_pareto_layered<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    overlay: &Overlay,
    layers: &Layers<'_>,
    options: &ChartOptions,
) -> Result<(), String> {
    draw_pareto_part(root, curve, current, overlay, layers, options, Part::All).map(|_| ())
}

/// Which part of the chart a draw paints. `Base` and then `Current` on top paint what `All`
/// paints: `Current` is the current operating point (its ringed dot and label, and its legend
/// entry), `Base` everything else. A page that only moved the current point can keep the base
/// as an image and paint the current part over it, as long as the frame is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    All,
    Base,
    Current,
}

/// What places everything on the chart: the legend's layout, the axes and where they lie on
/// the backend (none when there is nothing to plot). Two draws with the same inputs but the
/// current point (curve, overlay, layers, options, size) and an equal frame paint the same base.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame(Option<(LegendLayout, Axes, PlotArea)>);

/// Where the axes' ends lie, in backend pixels: `left`/`right` are the x range's ends, `bottom`
/// and `top` the y range's (as plotters maps them), so a point's pixel is a linear map of its
/// plot coordinates (`hit::pixel_of`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotArea {
    pub left: f64,
    pub right: f64,
    pub bottom: f64,
    pub top: f64,
}

impl Frame {
    /// The axes and where they lie; `None` when nothing was plotted.
    pub fn plot(&self) -> Option<(&Axes, &PlotArea)> {
        self.0.as_ref().map(|(_, axes, area)| (axes, area))
    }
}

/// Draw `part` of the chart (see `Part`); returns the frame it laid the chart out in.
pub fn draw_pareto_part<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    overlay: &Overlay,
    layers: &Layers<'_>,
    options: &ChartOptions,
    part: Part,
) -> Result<Frame, String> {
    draw_pareto_placed(root, curve, current, overlay, layers, options, part).map(|(frame, _)| frame)
}

/// Where each label in the plot went: the KV-edge note's, the knee's, the current point's (none
/// when not drawn). A fixed array, not a `Vec`: the page's wasm carries no growth code for it.
pub type Placements = [Option<LabelPlacement>; 3];

/// The same, also returning where each label in the plot went (`Placements`), whichever part
/// was painted.
pub fn draw_pareto_placed<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    overlay: &Overlay,
    layers: &Layers<'_>,
    options: &ChartOptions,
    part: Part,
) -> Result<(Frame, Placements), String> {
    draw_pareto_kept(
        root,
        curve,
        current,
        overlay,
        layers,
        options,
        part,
        &mut KeptLabels::default(),
    )
}

/// The base's label work, kept between draws of the same base (a slider move paints only
/// `Part::Current` over a kept base): the legend's layout, what is plotted (`Obstacles`, without
/// the current point) and where the KV-edge note and the knee's label went. Neither depends on the current point
/// (they belong to the base), so the current part's draws over that base place only the
/// current point's label, against these, instead of rebuilding every mark and segment and
/// placing the base's two labels again on every move. A draw of `Part::Base` or `Part::All`
/// fills it; one of `Part::Current` reads it when it was filled in the same frame (legend
/// layout, axes, plot bounds) and else places everything afresh. Its owner must drop it
/// (`KeptLabels::default()`) when anything else the base depends on changes (curve, overlay,
/// layers, options), as it drops the kept base.
#[derive(Debug, Default)]
pub struct KeptLabels(Option<BaseLabels>);

#[derive(Debug)]
struct BaseLabels {
    frame: (LegendLayout, Axes, [i32; 4]),
    /// Which legend item is the current point's (none when it is not plotted or the chart is
    /// compact): the legend's layout depends on it.
    current_item: Option<usize>,
    /// The backend's size and the options it was laid out for.
    canvas: ((u32, u32), ChartOptions),
    obstacles: Obstacles,
    placed: Vec<[i32; 4]>,
    placements: Placements,
}

/// The plot's coordinate system: log interactivity (with its key ticks) by the y axis's ticks.
type Plot<'a, DB> = ChartContext<'a, DB, Cartesian2d<WithKeyPoints<LogCoord<f64>>, TickedRange>>;

/// What every part of the drawing reads: the palette, the options, the styles and type sizes.
struct Pen {
    /// The backend's size in pixels.
    canvas: (u32, u32),
    palette: Palette,
    options: ChartOptions,
    style: Styles,
    size: Sizes,
}

impl Pen {
    fn px(&self, css: f64) -> u32 {
        self.options.px(css)
    }

    fn text(&self, size: f64) -> TextStyle<'static> {
        (FONT_FAMILY, self.options.font(size))
            .into_font()
            .color(&self.palette.text)
    }

    fn muted(&self, size: f64) -> TextStyle<'static> {
        (FONT_FAMILY, self.options.font(size))
            .into_font()
            .color(&self.palette.muted_text)
    }
}

/// What is plotted of the main curve: its plottable points, the knee, the first infeasible
/// point and the last feasible one before it (the KV edge), and whether the current point is.
struct Marks<'c> {
    points: Vec<&'c CurvePoint>,
    knee: Option<&'c CurvePoint>,
    first_infeasible: Option<usize>,
    edge: Option<&'c CurvePoint>,
    current_plottable: bool,
}

impl<'c> Marks<'c> {
    fn of(curve: &'c Curve, current: &Marker) -> Marks<'c> {
        let points: Vec<&CurvePoint> = curve
            .points
            .iter()
            .filter(|p| plottable(p.tok_s_per_user, p.output_tok_s_per_gpu))
            .collect();
        let knee = curve
            .knee
            .and_then(|i| curve.points.get(i))
            .filter(|k| plottable(k.tok_s_per_user, k.output_tok_s_per_gpu));
        let first_infeasible = points.iter().position(|p| !p.fits);
        let edge = first_infeasible
            .and_then(|first| first.checked_sub(1))
            .and_then(|i| points.get(i))
            .copied();
        Marks {
            points,
            knee,
            first_infeasible,
            edge,
            current_plottable: plottable(current.tok_s_per_user, current.output_tok_s_per_gpu),
        }
    }
}

fn xy(p: &CurvePoint) -> (f64, f64) {
    (p.tok_s_per_user, p.output_tok_s_per_gpu)
}

/// The legend strip's items (main curve or series, frontier, band, infeasible, knee, current
/// point, then the overlay's) and which one is the current point's.
#[inline(always)]
fn legend_items(
    projected: &Projected<'_>,
    layers: &Layers<'_>,
    marks: &Marks<'_>,
    band: bool,
    pen: &Pen,
) -> (Vec<LegendItem>, Option<usize>) {
    let (style, compact) = (&pen.style, pen.size.compact);
    let mut items = if layers.main.is_some() || !projected.others.is_empty() {
        series::curve_legend(projected, layers, style.curve, compact, &pen.options)
    } else {
        vec![LegendItem {
            symbol: Symbol::Line(style.curve),
            label: if compact {
                LEGEND_CURVE_SHORT
            } else {
                LEGEND_CURVE
            }
            .into(),
        }]
    };
    items.push(LegendItem {
        symbol: Symbol::Dot(style.frontier, style.dot_radius),
        label: LEGEND_PARETO.into(),
    });
    if band {
        items.push(LegendItem {
            symbol: Symbol::Line(style.curve.color.mix(0.3).stroke_width(pen.px(8.0))),
            label: LEGEND_BAND.into(),
        });
    }
    if marks.first_infeasible.is_some() {
        items.push(LegendItem {
            symbol: Symbol::DashedRing(style.infeasible, style.ring_radius),
            label: if compact {
                LEGEND_INFEASIBLE_SHORT
            } else {
                LEGEND_INFEASIBLE
            }
            .into(),
        });
    }
    if let Some(knee) = marks.knee.filter(|_| !compact) {
        items.push(LegendItem {
            symbol: Symbol::Triangle(style.knee, style.knee_size),
            label: knee_label(knee),
        });
    }
    let current_item = (marks.current_plottable && !compact).then_some(items.len());
    if current_item.is_some() {
        items.push(LegendItem {
            symbol: Symbol::Dot(style.current, style.current_radius),
            label: current_label(&projected.current),
        });
    }
    items.extend(overlay::legend_items(
        &projected.overlay,
        compact,
        &pen.options,
    ));
    (items, current_item)
}

/// Where the labels go, shared by the base's and the current point's placing: the plot's
/// bounds, what is plotted, the boxes placed so far and each label's record.
struct Placing {
    bounds: [i32; 4],
    obstacles: Obstacles,
    placed: Vec<[i32; 4]>,
    placements: Placements,
}

/// The KV-edge note's text, its offset from the edge's foot and its alignment.
type Note = (String, (i32, i32), Pos);

/// The KV-edge note, beside the edge's line near the x axis on the feasible side, pointing at
/// the infeasible one (left on the interactivity axis, right on the TPOT axis); higher up
/// beside the line, step by step up to the plot's top, when the axis is taken or the note
/// would run across a curve (the default chart's frontier and technique curves fill the lower
/// half of the plot beside the edge, and the note, some 260 px wide, read across them).
#[inline(always)]
fn place_note(
    anchor: (i32, i32),
    edge: &CurvePoint,
    projection: &Projection,
    pen: &Pen,
    text_size: &dyn Fn(&str, f64) -> (u32, u32),
    placing: &mut Placing,
) -> Note {
    let options = &pen.options;
    let left = projection.infeasible_to_the_left();
    let note = match (pen.size.compact, left) {
        (true, true) => format!("← C > {}: KV full", edge.concurrency),
        (true, false) => format!("C > {}: KV full →", edge.concurrency),
        (false, true) => format!(
            "← infeasible: KV cache full beyond C = {}",
            edge.concurrency
        ),
        (false, false) => format!(
            "infeasible: KV cache full beyond C = {} →",
            edge.concurrency
        ),
    };
    let (side, shift) = if left {
        (Side::AboveRight, options.offset(6.0))
    } else {
        (Side::AboveLeft, -options.offset(6.0))
    };
    let (offset, pos) = label_offset(side, options.offset(LABEL_GAPS_CSS_PX[0]));
    let note_size = text_size(&note, pen.size.label);
    let rise = options.offset(NOTE_RISE_CSS_PX);
    let at = |step: usize| (shift, offset.1 - i32::try_from(step).unwrap_or(0) * rise);
    let label_at = |step: usize| label_box(anchor, at(step), pos, note_size);
    // Every height from the axis up to the plot's top (`choose` takes the first clear one).
    let rises = usize::try_from((anchor.1 - placing.bounds[1]) / rise.max(1)).unwrap_or(0) + 1;
    let step = choose(
        rises,
        &label_at,
        None,
        &placing.placed,
        placing.bounds,
        &placing.obstacles,
    );
    placing.placed.push(label_at(step));
    placing.placements[0] = Some(LabelPlacement {
        labelled: Labelled::InfeasibleNote,
        marker: anchor,
        text_box: label_at(step),
        leader: false,
    });
    (note, at(step), pos)
}

/// The knee's label: below-left by preference (below-right near the left edge; mirrored on a
/// rising axis), clear of what was placed; its spot and leader line, if moved.
#[inline(always)]
fn place_knee(
    anchor: (i32, i32),
    knee: &CurvePoint,
    axes: &Axes,
    projection: &Projection,
    pen: &Pen,
    text_size: &dyn Fn(&str, f64) -> (u32, u32),
    placing: &mut Placing,
) -> KneeSpot {
    let at = x_fraction(axes, knee.tok_s_per_user);
    let preferred = match (projection.rising(), at) {
        (false, at) if at < 0.25 => Side::BelowRight,
        (false, _) => Side::BelowLeft,
        (true, at) if at > 0.75 => Side::BelowLeft,
        (true, _) => Side::BelowRight,
    };
    let spot = place_label(
        anchor,
        preferred,
        text_size(&knee_label(knee), pen.size.label),
        &mut placing.placed,
        placing.bounds,
        &placing.obstacles,
        &pen.options,
    );
    let record = LabelPlacement::of_last(Labelled::Knee, anchor, &spot, &placing.placed);
    placing.placements[1] = Some(record);
    (spot, record.leader_line())
}

/// The knee label's spot and its leader line, when it has one.
type KneeSpot = (Spot, Option<Vec<(i32, i32)>>);

/// The base's labels (the KV-edge note, the knee's), placed afresh against everything plotted
/// but the current point.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn place_base_labels<DB: DrawingBackend>(
    chart: &Plot<'_, DB>,
    marks: &Marks<'_>,
    projected: &Projected<'_>,
    axes: &Axes,
    projection: &Projection,
    pen: &Pen,
    text_size: &dyn Fn(&str, f64) -> (u32, u32),
    bounds: [i32; 4],
) -> (Placing, Option<Note>, Option<KneeSpot>) {
    let obstacles = obstacles(
        &|xy| chart.backend_coord(&xy),
        &marks.points,
        marks.knee,
        projected,
        axes,
        &pen.style,
        &pen.options,
    );
    let mut placing = Placing {
        bounds,
        obstacles,
        placed: Vec::new(),
        placements: [None; 3],
    };
    let note = marks.edge.map(|edge| {
        let anchor = chart.backend_coord(&(edge.tok_s_per_user, axes.y.start));
        place_note(anchor, edge, projection, pen, text_size, &mut placing)
    });
    let knee = marks.knee.map(|knee| {
        let anchor = chart.backend_coord(&xy(knee));
        place_knee(anchor, knee, axes, projection, pen, text_size, &mut placing)
    });
    (placing, note, knee)
}

/// Everything but the current point: mesh, band, pins, curves, infeasible tail, SLO misses,
/// measured points, knee.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn draw_base<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &mut Plot<'_, DB>,
    projected: &Projected<'_>,
    marks: &Marks<'_>,
    band: Vec<(f64, f64)>,
    (axes, projection): (&Axes, &Projection),
    (note, knee_spot): (Option<Note>, Option<KneeSpot>),
    pen: &Pen,
) -> Result<(), String> {
    let (style, size, options) = (&pen.style, &pen.size, &pen.options);
    let format_tick = |value: &f64| compact(*value);
    let format_y_tick = |value: &f64| projection.y_tick(*value);
    chart
        .configure_mesh()
        .x_desc(projection.x.title(size.compact))
        .y_desc(projection.y.title())
        .axis_desc_style(pen.text(size.axis_title))
        .label_style(pen.muted(size.tick))
        .x_label_formatter(&format_tick)
        .y_label_formatter(&format_y_tick)
        .max_light_lines(1)
        .bold_line_style(pen.palette.grid_bold.stroke_width(pen.px(1.0)))
        .light_line_style(pen.palette.grid_light.stroke_width(pen.px(1.0)))
        .axis_style(pen.palette.axis.stroke_width(pen.px(1.0)))
        .set_all_tick_mark_size(pen.px(4.0))
        .draw()
        .map_err(drawing_error)?;

    // The expected-error band behind the curve.
    if !band.is_empty() {
        let band_style = style.curve.color.mix(0.18).filled();
        chart
            .draw_series(std::iter::once(Polygon::new(band, band_style)))
            .map_err(drawing_error)?;
    }

    overlay::draw_pins(chart, &projected.overlay, options)?;

    // The feasible part of the curve: a solid line.
    let points = &marks.points;
    let feasible: Vec<(f64, f64)> = points.iter().filter(|p| p.fits).map(|p| xy(p)).collect();
    chart
        .draw_series(LineSeries::new(feasible, style.curve))
        .map_err(drawing_error)?;

    // The Pareto frontier: filled dots on the curve.
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| p.pareto && p.fits)
                .map(|p| Circle::new(xy(p), style.dot_radius, style.frontier)),
        )
        .map_err(drawing_error)?;

    // The other curves over the main line and its dots (thinner and dashed, so where a
    // technique changes nothing, e.g. paged vs contiguous KV below the contiguous capacity,
    // both stay visible).
    series::draw_others(chart, projected, options)?;

    draw_infeasible(chart, marks, axes, note, pen)?;

    overlay::draw_slo_misses(chart, &projected.curve, &projected.overlay, options)?;
    overlay::draw_measured(chart, &projected.overlay, options)?;

    // The knee: a triangle with its concurrency, labelled below-left by preference (the
    // current point's label prefers above-right).
    if let (Some(knee), Some((spot, leader))) = (marks.knee, knee_spot) {
        let (offset, pos) = spot.offset();
        if let Some(line) = leader {
            let leader_style = pen.palette.muted_text.stroke_width(pen.px(1.0));
            root.draw(&PathElement::new(line, leader_style))
                .map_err(drawing_error)?;
        }
        chart
            .draw_series(std::iter::once(
                EmptyElement::at(xy(knee))
                    + Triangle::new((0, 0), style.knee_size, style.knee)
                    + Text::new(knee_label(knee), offset, pen.text(size.label).pos(pos)),
            ))
            .map_err(drawing_error)?;
    }
    Ok(())
}

/// Infeasible points: grey rings joined by a dashed line to the last feasible point. Beyond
/// the KV capacity the model keeps throughput and TPOT at the capacity's values (the extra
/// requests wait), so these rings pile up at the edge; a dashed vertical line and a note mark
/// the edge, left of which no concurrency is reachable.
#[inline(always)]
fn draw_infeasible<DB: DrawingBackend>(
    chart: &mut Plot<'_, DB>,
    marks: &Marks<'_>,
    axes: &Axes,
    note: Option<Note>,
    pen: &Pen,
) -> Result<(), String> {
    let Some(first) = marks.first_infeasible else {
        return Ok(());
    };
    let (style, options, points) = (&pen.style, &pen.options, &marks.points);
    let mut tail: Vec<(f64, f64)> = marks.edge.map(xy).into_iter().collect();
    tail.extend(points.iter().skip(first).filter(|p| !p.fits).map(|p| xy(p)));
    let dash = (options.offset(6.0), options.offset(4.0));
    chart
        .draw_series(DashedLineSeries::new(
            tail,
            dash.0,
            dash.1,
            style.infeasible,
        ))
        .map_err(drawing_error)?;
    if let Some(edge) = marks.edge {
        let edge_x = edge.tok_s_per_user;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(edge_x, axes.y.start), (edge_x, axes.y.end)],
                dash.0,
                dash.1,
                style.infeasible,
            ))
            .map_err(drawing_error)?;
        if let Some((note, offset, pos)) = note {
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((edge_x, axes.y.start))
                        + Text::new(note, offset, pen.muted(pen.size.label).pos(pos)),
                ))
                .map_err(drawing_error)?;
        }
    }
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| !p.fits)
                .map(|p| Circle::new(xy(p), style.ring_radius, style.infeasible)),
        )
        .map_err(drawing_error)?;
    Ok(())
}

/// The current operating point, on top: a ringed dot (hollow when infeasible) with its label,
/// placed against the base's labels and marks and its own halo.
#[inline(always)]
fn draw_current<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &mut Plot<'_, DB>,
    current: &Marker,
    (axes, projection): (&Axes, &Projection),
    pen: &Pen,
    text_size: &dyn Fn(&str, f64) -> (u32, u32),
    placing: &mut Placing,
) -> Result<(), String> {
    let (style, size) = (&pen.style, &pen.size);
    let at = x_fraction(axes, current.tok_s_per_user);
    let preferred = match (projection.rising(), at) {
        (false, at) if at > 0.72 => Side::AboveLeft,
        (false, _) => Side::AboveRight,
        (true, at) if at < 0.28 => Side::AboveRight,
        (true, _) => Side::AboveLeft,
    };
    let label = current_label(current);
    let at_current = (current.tok_s_per_user, current.output_tok_s_per_gpu);
    let anchor = chart.backend_coord(&at_current);
    // Its own label keeps clear of its halo too (the note and the knee's label were placed
    // without it: they belong to the kept base).
    placing.obstacles.marker(anchor, style.halo_radius);
    let spot = place_label(
        anchor,
        preferred,
        text_size(&label, size.current_label),
        &mut placing.placed,
        placing.bounds,
        &placing.obstacles,
        &pen.options,
    );
    let record = LabelPlacement::of_last(Labelled::Current, anchor, &spot, &placing.placed);
    placing.placements[2] = Some(record);
    let (offset, pos) = spot.offset();
    if let Some(line) = record.leader_line() {
        let leader_style = pen.palette.muted_text.stroke_width(pen.px(1.0));
        root.draw(&PathElement::new(line, leader_style))
            .map_err(drawing_error)?;
    }
    chart
        .draw_series(std::iter::once(
            EmptyElement::at(at_current)
                + Circle::new((0, 0), style.halo_radius, style.halo)
                + Circle::new((0, 0), style.current_radius, style.current)
                + Text::new(label, offset, pen.text(size.current_label).pos(pos)),
        ))
        .map_err(drawing_error)?;
    Ok(())
}

/// With nothing to plot: a centred message (no price for a $ axis, else nothing).
#[inline(always)]
fn draw_nothing<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    pen_muted: TextStyle<'static>,
    unpriced: bool,
) -> Result<(Frame, Placements), String> {
    let (width, height) = root.dim_in_pixel();
    let centre = (
        i32::try_from(width / 2).unwrap_or(0),
        i32::try_from(height / 2).unwrap_or(0),
    );
    let style = pen_muted.pos(Pos::new(HPos::Center, VPos::Center));
    let message = if unpriced {
        NO_PRICE_TO_PLOT
    } else {
        "Nothing to plot for this scenario"
    };
    root.draw(&Text::new(message, centre, style))
        .map_err(drawing_error)?;
    root.present().map_err(drawing_error)?;
    Ok((Frame(None), [None; 3]))
}

/// The legend strip above the plot, aligned with the plot's left edge: laid out (or, over a
/// kept base, as it was laid out for the base) and drawn as `part` asks; its layout and the
/// area left for the plot.
#[inline(always)]
fn legend_strip<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (items, current_item): (&[LegendItem], Option<usize>),
    current: &Marker,
    pen: &Pen,
    part: Part,
    kept: &KeptLabels,
) -> Result<(LegendLayout, DrawingArea<DB, Shift>), String> {
    let (options, base) = (&pen.options, part != Part::Current);
    let (width, height) = root.dim_in_pixel();
    let legend_font = pen.text(pen.size.label);
    let legend_left = options.offset(MARGIN_LEFT_PX + pen.size.y_label_area);
    let legend_right = i32::try_from(width).unwrap_or(i32::MAX) - options.offset(MARGIN_RIGHT_PX);
    // The current point's label is laid out at its widest ("current: C = 99999 (infeasible)"),
    // so a slider move never reflows the legend (which would repaint the kept base).
    let widest_current = current_label(&Marker {
        concurrency: 99_999,
        fits: false,
        ..*current
    });
    // Over a kept base the legend is laid out as it was for the base: its items are the base's
    // but for the current point's, which is laid out at its widest (no text to measure again).
    let kept_legend = kept
        .0
        .as_ref()
        .filter(|labels| {
            !base
                && labels.current_item == current_item
                && labels.canvas == ((width, height), *options)
        })
        .map(|labels| labels.frame.0.clone());
    let legend_layout = match kept_legend {
        Some(layout) => layout,
        None => legend::layout_reserving(
            root,
            items,
            &legend_font,
            (legend_left, legend_right),
            options,
            current_item.map(|index| (index, widest_current.as_str())),
        ),
    };
    let (legend_area, plot_area) = root.split_vertically(legend_layout.height);
    let drawn = |index: usize| match part {
        Part::All => true,
        Part::Base => Some(index) != current_item,
        Part::Current => Some(index) == current_item,
    };
    legend::draw(
        &legend_area,
        items,
        &legend_layout,
        &legend_font,
        options,
        drawn,
    )
    .map_err(drawing_error)?;
    Ok((legend_layout, plot_area))
}

/// The base's label work: over a kept base in the same frame, as it was done then
/// (`KeptLabels`; only the current point's label is placed after it), else placed afresh
/// (`place_base_labels`) and, when this draw paints the base, kept.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn base_labels<DB: DrawingBackend>(
    chart: &Plot<'_, DB>,
    (marks, projected): (&Marks<'_>, &Projected<'_>),
    (axes, projection): (&Axes, &Projection),
    pen: &Pen,
    text_size: &dyn Fn(&str, f64) -> (u32, u32),
    (legend_layout, bounds, current_item): (&LegendLayout, [i32; 4], Option<usize>),
    part: Part,
    kept: &mut KeptLabels,
) -> (Placing, Option<Note>, Option<KneeSpot>) {
    let base = part != Part::Current;
    let reused = kept.0.as_ref().filter(|labels| {
        !base
            && labels.frame.0 == *legend_layout
            && labels.frame.1 == *axes
            && labels.frame.2 == bounds
    });
    if let Some(labels) = reused {
        let placing = Placing {
            bounds,
            obstacles: labels.obstacles.clone(),
            placed: labels.placed.clone(),
            placements: labels.placements,
        };
        return (placing, None, None);
    }
    let placed = place_base_labels(
        chart, marks, projected, axes, projection, pen, text_size, bounds,
    );
    if base {
        kept.0 = Some(BaseLabels {
            frame: (legend_layout.clone(), axes.clone(), bounds),
            current_item,
            canvas: (pen.canvas, pen.options),
            obstacles: placed.0.obstacles.clone(),
            placed: placed.0.placed.clone(),
            placements: placed.0.placements,
        });
    }
    placed
}

/// `draw_pareto_placed`, keeping the base's label work in `kept` (see `KeptLabels`): the legend
/// strip, then the plot's base (`draw_base`) and the current point (`draw_current`), each as
/// `part` asks.
#[allow(clippy::too_many_arguments)]
pub fn draw_pareto_kept<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &Curve,
    current: &Marker,
    overlay: &Overlay,
    layers: &Layers<'_>,
    options: &ChartOptions,
    part: Part,
    kept: &mut KeptLabels,
) -> Result<(Frame, Placements), String> {
    let base = part != Part::Current;
    let with_current = part != Part::Base;
    let projection = layers.projection;
    let unpriced =
        projection.y.needs_price() && curve.points.iter().all(|p| p.usd_per_m_output.is_none());
    let band = super::band::polygon(curve, &projection, &layers.error_band);
    let projected = Projected::new(curve, current, overlay, layers);
    let palette = Palette::for_theme(options.theme);
    if base {
        root.fill(&palette.background).map_err(drawing_error)?;
    }
    let (width, height) = root.dim_in_pixel();
    let mut pen = Pen {
        canvas: (width, height),
        palette,
        options: *options,
        style: styles(&palette, &projected.current, options),
        size: sizes((options.css(width), options.css(height))),
    };
    let Some(axes) = projected.axes(&projection) else {
        if !base {
            return Ok((Frame(None), [None; 3]));
        }
        return draw_nothing(&root, pen.muted(14.0), unpriced);
    };
    if let Some((_, _, series)) = layers.main {
        let colour = series::series_look(series, options.theme).colour;
        pen.style.curve = colour.stroke_width(options.px(2.5));
        pen.style.frontier = colour.filled();
    }
    let current = &projected.current;
    let marks = Marks::of(&projected.curve, current);
    let (items, current_item) = legend_items(&projected, layers, &marks, !band.is_empty(), &pen);

    let (legend_layout, plot_area) =
        legend_strip(&root, (&items, current_item), current, &pen, part, kept)?;

    let mut chart = ChartBuilder::on(&plot_area)
        .margin_top(pen.px(10.0))
        .margin_right(pen.px(MARGIN_RIGHT_PX))
        .margin_left(pen.px(MARGIN_LEFT_PX))
        .margin_bottom(pen.px(6.0))
        .x_label_area_size(pen.px(pen.size.x_label_area))
        .y_label_area_size(pen.px(pen.size.y_label_area))
        .build_cartesian_2d(
            axes.x
                .clone()
                .log_scale()
                .with_key_points(axes.x_ticks.clone()),
            TickedRange::new(axes.y.clone(), axes.y_ticks.clone()),
        )
        .map_err(drawing_error)?;

    // Labels never cover one another (issue 15 §2) nor, where there is room, what is plotted
    // (§3): the infeasible note by the x axis first, then the knee's label, then the current
    // point's, each on the first side of its point (in its order of preference) clear of those
    // before it, of the marks and lines and inside the plot (`place_label`). The base and the
    // current part place them alike, so a kept base still matches; so the note's and the knee's
    // places cannot depend on the current point, which moves over a kept base. A label moved
    // out past the usual gap, or nearer another marker than its own, gets a thin line to its
    // marker (`Spot::leader`).
    let bounds = {
        let (left, bottom) = chart.backend_coord(&(axes.x.start, axes.y.start));
        let (right, top) = chart.backend_coord(&(axes.x.end, axes.y.end));
        [left, top, right, bottom]
    };
    let text_size = |label: &str, font_size: f64| {
        root.estimate_text_size(label, &pen.text(font_size))
            .unwrap_or((0, 0))
    };
    let (mut placing, note, knee_spot) = base_labels(
        &chart,
        (&marks, &projected),
        (&axes, &projection),
        &pen,
        &text_size,
        (&legend_layout, bounds, current_item),
        part,
        kept,
    );

    if base {
        draw_base(
            &root,
            &mut chart,
            &projected,
            &marks,
            band,
            (&axes, &projection),
            (note, knee_spot),
            &pen,
        )?;
    }
    if with_current && marks.current_plottable {
        draw_current(
            &root,
            &mut chart,
            current,
            (&axes, &projection),
            &pen,
            &text_size,
            &mut placing,
        )?;
    }

    let [left, top, right, bottom] = bounds.map(f64::from);
    let area = PlotArea {
        left,
        right,
        bottom,
        top,
    };
    root.present().map_err(drawing_error)?;
    Ok((Frame(Some((legend_layout, axes, area))), placing.placements))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend that draws nothing and records every text it is asked to draw with the box it
    /// takes (backend pixels, from its anchor, alignment and estimated size).
    struct Recorder {
        size: (u32, u32),
        texts: Texts,
    }

    type Texts = std::rc::Rc<std::cell::RefCell<Vec<(String, [i32; 4])>>>;

    impl DrawingBackend for Recorder {
        type ErrorType = std::convert::Infallible;
        fn get_size(&self) -> (u32, u32) {
            self.size
        }
        fn ensure_prepared(
            &mut self,
        ) -> Result<(), plotters_backend::DrawingErrorKind<std::convert::Infallible>> {
            Ok(())
        }
        fn present(
            &mut self,
        ) -> Result<(), plotters_backend::DrawingErrorKind<std::convert::Infallible>> {
            Ok(())
        }
        fn draw_pixel(
            &mut self,
            _: (i32, i32),
            _: plotters_backend::BackendColor,
        ) -> Result<(), plotters_backend::DrawingErrorKind<std::convert::Infallible>> {
            Ok(())
        }
        fn draw_text<S: plotters_backend::BackendTextStyle>(
            &mut self,
            text: &str,
            style: &S,
            (x, y): (i32, i32),
        ) -> Result<(), plotters_backend::DrawingErrorKind<std::convert::Infallible>> {
            let (w, h) = self.estimate_text_size(text, style)?;
            let (w, h) = (w as i32, h as i32);
            let anchor = style.anchor();
            let left = match anchor.h_pos {
                HPos::Left => x,
                HPos::Right => x - w,
                HPos::Center => x - w / 2,
            };
            let top = match anchor.v_pos {
                VPos::Top => y,
                VPos::Bottom => y - h,
                VPos::Center => y - h / 2,
            };
            self.texts
                .borrow_mut()
                .push((text.to_string(), [left, top, left + w, top + h]));
            Ok(())
        }
    }

    /// The labels drawn in the plot (knee, current point, KV note): text and box.
    fn plot_labels(texts: &[(String, [i32; 4])]) -> Vec<(String, [i32; 4])> {
        texts
            .iter()
            .filter(|(t, _)| {
                t.starts_with("knee: ") || t.starts_with("current: ") || t.contains("KV full")
            })
            .cloned()
            .collect()
    }

    /// At 375 CSS px (a phone; compact), with the technique ladder behind the default scenario
    /// (Llama 70B on 8×H100), no label covers a point of any curve, wherever the slider is
    /// (issue 15 §3), and a kept base with the current part over it places them alike.
    #[test]
    fn on_a_phone_no_label_covers_a_plotted_point() {
        use crate::model::techniques::{background_curves, TechniqueLevel};
        use crate::model::{evaluate, sweep};
        use crate::present::chart::hit::pixel_of;
        use crate::present::chart::OtherCurve;
        use crate::scenario::Scenario;
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let background = background_curves(&scenario);
        let others: Vec<OtherCurve<'_>> = background.iter().map(OtherCurve::from).collect();
        let level = TechniqueLevel::of(&scenario.input);
        let main_label = format!("{} (current)", level.label());
        let main_short = format!("{} (current)", level.short_label());
        let layers = Layers {
            others: &others,
            main: Some((&main_label, &main_short, level.index())),
            ..Layers::default()
        };
        // A point is covered when its centre lies within this many CSS px of a label's box.
        const REACH_CSS_PX: f64 = 3.0;
        let mut checked = 0;
        for scale in [1.0, 2.0] {
            let options = ChartOptions {
                scale,
                ..ChartOptions::default()
            };
            let side = (375.0 * scale) as u32;
            let reach = REACH_CSS_PX * scale;
            let slider = (0..12).map(|k| 1u32 << k).chain([scenario.engine_limit()]);
            for concurrency in slider {
                let current = Marker::from(&evaluate(&scenario.with_concurrency(concurrency)));
                let draw = |parts: &[Part]| {
                    let texts = Texts::default();
                    let frames: Vec<Frame> = parts
                        .iter()
                        .map(|part| {
                            let recorder = Recorder {
                                size: (side, side),
                                texts: texts.clone(),
                            };
                            draw_pareto_part(
                                recorder.into_drawing_area(),
                                &curve,
                                &current,
                                &Overlay::default(),
                                &layers,
                                &options,
                                *part,
                            )
                            .expect("draws")
                        })
                        .collect();
                    let labels = plot_labels(&texts.borrow());
                    (frames, labels)
                };
                let (frames, labels) = draw(&[Part::All]);
                let frame = frames[0].clone();
                // A kept base and the current part over it place every label as the whole does
                // (the base's labels cannot move with the current point).
                let (split_frames, mut split_labels) = draw(&[Part::Base, Part::Current]);
                assert_eq!(split_frames, vec![frame.clone(), frame.clone()]);
                let mut whole_labels = labels.clone();
                whole_labels.sort();
                split_labels.sort();
                assert_eq!(whole_labels, split_labels, "C = {concurrency}");
                let projection = layers.projection;
                let mut pixels: Vec<(f64, f64)> = curve
                    .points
                    .iter()
                    .chain(
                        background
                            .iter()
                            .flat_map(|t| t.curve.points.iter().filter(|p| p.fits)),
                    )
                    .filter_map(|p| pixel_of(&frame, &projection, p))
                    .collect();
                let current_point = crate::model::CurvePoint {
                    tok_s_per_user: current.tok_s_per_user,
                    output_tok_s_per_gpu: current.output_tok_s_per_gpu,
                    ..curve.points[0].clone()
                };
                pixels.extend(pixel_of(&frame, &projection, &current_point));
                assert!(
                    labels.len() >= 2,
                    "scale {scale}, C = {concurrency}: {labels:?}"
                );
                for (label, [left, top, right, bottom]) in &labels {
                    for &(x, y) in &pixels {
                        let dx = (f64::from(*left) - x).max(x - f64::from(*right)).max(0.0);
                        let dy = (f64::from(*top) - y).max(y - f64::from(*bottom)).max(0.0);
                        assert!(
                            dx * dx + dy * dy > reach * reach,
                            "scale {scale}, C = {concurrency}: {label:?} at \
                             {:?} covers the point at ({x:.0}, {y:.0})",
                            [left, top, right, bottom]
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked} label–point pairs checked");
    }
}
