//! Several curves on one chart: the line look of each series (colour and dash pattern), so the
//! technique ladder — static batching, continuous batching, + paged KV, + speculative
//! decoding, + disaggregation — reads apart by colour *and* by dash, and the current scenario's
//! curve stands out by being solid and thicker.
//!
//! Colours are Okabe–Ito hues (colour-blind safe) and, for the fifth series, ColorBrewer's BrBG
//! brown and tan (the palette's orange is the first pinned curve's, `overlay::pin_style`); on
//! the light background the reddish purple is darkened and static batching is grey so every line
//! keeps ≥ 3:1 contrast (WCAG 1.4.11).

use super::axis::{frame, Projection, XAxis, YAxis};
use super::layout::Axes;
use super::legend::{LegendItem, Symbol};
use super::overlay::{self, Overlay, PinPoint, PinnedCurve};
use super::style::{
    ChartOptions, Theme, OKABE_ITO_BLUE, OKABE_ITO_BLUISH_GREEN, OKABE_ITO_SKY_BLUE,
};
use super::Marker;
use crate::model::techniques::TechniqueCurve;
use crate::model::Curve;
use plotters::prelude::*;
use std::borrow::Cow;

/// Distinct series looks; indices beyond wrap around.
pub const SERIES_COUNT: usize = 5;

/// How one series is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesLook {
    pub colour: RGBColor,
    /// Dash and gap lengths in CSS pixels; `None` for a solid line.
    pub dash_px: Option<(f64, f64)>,
}

/// The look of series `index` (0 = oldest technique: dotted grey; 1 dashed green/yellow;
/// 2 solid blue, the default single curve's colour; 3 long-dashed reddish purple; 4 short-dashed
/// brown / tan).
pub fn series_look(index: usize, theme: Theme) -> SeriesLook {
    let light = theme == Theme::Light;
    match index % SERIES_COUNT {
        0 => SeriesLook {
            colour: if light {
                RGBColor(0x55, 0x55, 0x55)
            } else {
                RGBColor(0xC4, 0xC4, 0xC4)
            },
            dash_px: Some((3.0, 4.0)),
        },
        1 => SeriesLook {
            colour: if light {
                OKABE_ITO_BLUISH_GREEN
            } else {
                RGBColor(0xF0, 0xE4, 0x42)
            },
            dash_px: Some((9.0, 5.0)),
        },
        2 => SeriesLook {
            colour: if light {
                OKABE_ITO_BLUE
            } else {
                OKABE_ITO_SKY_BLUE
            },
            dash_px: None,
        },
        3 => SeriesLook {
            colour: if light {
                RGBColor(0xB0, 0x4F, 0x8C)
            } else {
                RGBColor(0xCC, 0x79, 0xA7)
            },
            dash_px: Some((16.0, 5.0)),
        },
        _ => SeriesLook {
            colour: if light {
                RGBColor(0x8C, 0x51, 0x0A)
            } else {
                RGBColor(0xDF, 0xC2, 0x7D)
            },
            dash_px: Some((6.0, 2.5)),
        },
    }
}

/// A curve drawn thinner behind the chart's main curve, with its legend text.
#[derive(Debug, Clone, Copy)]
pub struct OtherCurve<'a> {
    pub label: &'a str,
    /// The legend text on a narrow chart.
    pub short_label: &'a str,
    pub curve: &'a Curve,
    /// Index into `series_look`.
    pub series: usize,
}

impl<'a> From<&'a TechniqueCurve> for OtherCurve<'a> {
    /// A technique level's curve, in the level's own look.
    fn from(technique: &'a TechniqueCurve) -> OtherCurve<'a> {
        OtherCurve {
            label: &technique.label,
            short_label: technique.level.short_label(),
            curve: &technique.curve,
            series: technique.level.index(),
        }
    }
}

/// What a multi-curve view adds to the Pareto chart: the axis choice, curves behind the main
/// one, and the main curve's own legend text and look. The default is the single-curve chart.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layers<'a> {
    pub projection: Projection,
    pub others: &'a [OtherCurve<'a>],
    /// Legend text (regular, narrow) and series index of the main curve, when it is one of several.
    pub main: Option<(&'a str, &'a str, usize)>,
    /// The main curve's expected tok/s error per regime (`Regime::ALL` order), drawn as a band
    /// around it (`band.rs`); all `None`: no band.
    pub error_band: [Option<f64>; 3],
}

/// The chart's inputs moved onto the chosen axes (`Projection::project_curve`): borrowed as
/// they are on the native axes, projected copies otherwise.
pub(super) struct Projected<'a> {
    pub curve: Cow<'a, Curve>,
    /// The current point; NaN coordinates when the axes cannot show it.
    pub current: Marker,
    pub overlay: Cow<'a, Overlay>,
    pub others: Vec<ProjectedOther<'a>>,
}

/// An other curve's label, projected feasible points and series index.
pub(super) struct ProjectedOther<'a> {
    pub label: &'a str,
    pub short_label: &'a str,
    pub points: Vec<(f64, f64)>,
    pub series: usize,
}

/// Pinned curves and measured points moved onto the axes. Pins carry every value an axis plots
/// (`PinPoint`); measured points only (tokens/s per user, tokens/s per GPU), so other y axes
/// leave them out.
fn project_overlay<'a>(overlay: &'a Overlay, projection: &Projection) -> Cow<'a, Overlay> {
    if projection.is_native() || (overlay.pins.is_empty() && overlay.measured.is_empty()) {
        return Cow::Borrowed(overlay);
    }
    let move_point = |&(x, y): &(f64, f64)| match projection.x {
        XAxis::Interactivity => (x, y),
        XAxis::Tpot => (1000.0 / x, y),
    };
    let measured = if projection.y == YAxis::PerGpu {
        overlay
            .measured
            .iter()
            .filter(|(x, _)| *x > 0.0)
            .map(move_point)
            .collect()
    } else {
        Vec::new()
    };
    // Pins carry every value an axis can plot: each point moves like a curve point
    // (`Projection::project_curve`), x and plot y in its per-user and per-GPU fields.
    let pins = overlay
        .pins
        .iter()
        .map(|pin| PinnedCurve {
            label: pin.label.clone(),
            points: pin
                .points
                .iter()
                .filter_map(|p| {
                    let (x, y) = projection.plot(p)?;
                    Some(PinPoint {
                        tok_s_per_user: x,
                        output_tok_s_per_gpu: y,
                        ..*p
                    })
                })
                .collect(),
        })
        .collect();
    Cow::Owned(Overlay {
        pins,
        measured,
        ..overlay.clone()
    })
}

impl<'a> Projected<'a> {
    pub fn new(
        curve: &'a Curve,
        current: &Marker,
        overlay: &'a Overlay,
        layers: &Layers<'a>,
    ) -> Projected<'a> {
        let projection = layers.projection;
        let others = layers
            .others
            .iter()
            .map(|other| {
                let points = other
                    .curve
                    .points
                    .iter()
                    .filter(|p| p.fits)
                    .filter_map(|p| projection.plot(p))
                    .collect();
                ProjectedOther {
                    label: other.label,
                    short_label: other.short_label,
                    points,
                    series: other.series,
                }
            })
            .collect();
        if projection.is_native() {
            return Projected {
                curve: Cow::Borrowed(curve),
                current: *current,
                overlay: Cow::Borrowed(overlay),
                others,
            };
        }
        let current = projection.project_marker(current).unwrap_or(Marker {
            tok_s_per_user: f64::NAN,
            output_tok_s_per_gpu: f64::NAN,
            ..*current
        });
        Projected {
            curve: Cow::Owned(projection.project_curve(curve)),
            current,
            overlay: project_overlay(overlay, &projection),
            others,
        }
    }

    /// Axis ranges covering everything drawn. The single-curve native chart keeps its own
    /// ranges (`overlay::axes_with`); otherwise `axis::frame` over every point.
    pub fn axes(&self, projection: &Projection) -> Option<Axes> {
        if projection.is_native() && self.others.is_empty() {
            return overlay::axes_with(&self.curve, &self.current, &self.overlay);
        }
        let mut points: Vec<(f64, f64)> = self
            .curve
            .points
            .iter()
            .map(|p| (p.tok_s_per_user, p.output_tok_s_per_gpu))
            .chain(std::iter::once((
                self.current.tok_s_per_user,
                self.current.output_tok_s_per_gpu,
            )))
            .chain(
                self.overlay
                    .pins
                    .iter()
                    .flat_map(|pin| pin.points.iter().map(PinPoint::xy)),
            )
            .collect();
        points.extend(self.others.iter().flat_map(|o| o.points.iter().copied()));
        points.retain(|(x, y)| x.is_finite() && *x > 0.0 && y.is_finite());
        frame(projection, &points)
    }
}

/// Dash and gap (CSS px) of a solid look drawn as an other curve: behind a main curve it must
/// not hide the one it may coincide with (paged vs contiguous KV below the contiguous capacity).
const OTHER_SOLID_DASH_PX: (f64, f64) = (6.0, 2.0);

/// The line style of a series other than the main curve: always dashed (the main curve alone
/// is solid).
fn other_style(series: usize, options: &ChartOptions) -> (ShapeStyle, (i32, i32)) {
    let look = series_look(series, options.theme);
    let (dash, gap) = look.dash_px.unwrap_or(OTHER_SOLID_DASH_PX);
    (
        look.colour.stroke_width(options.px(1.8)),
        (options.offset(dash), options.offset(gap)),
    )
}

/// Legend entries of every curve in series order: the others with their dashes, the main curve
/// (`main_style`, solid and thicker) at its own place.
pub(super) fn curve_legend(
    projected: &Projected<'_>,
    layers: &Layers<'_>,
    main_style: ShapeStyle,
    compact: bool,
    options: &ChartOptions,
) -> Vec<LegendItem> {
    let pick = |regular: &str, short: &str| if compact { short } else { regular }.to_string();
    let mut entries: Vec<(usize, LegendItem)> = projected
        .others
        .iter()
        .map(|other| {
            let (style, (dash, gap)) = other_style(other.series, options);
            let symbol = Symbol::Dashes(style, dash, gap);
            (
                other.series,
                LegendItem {
                    symbol,
                    label: pick(other.label, other.short_label),
                },
            )
        })
        .collect();
    if let Some((label, short_label, series)) = layers.main {
        entries.push((
            series,
            LegendItem {
                symbol: Symbol::Line(main_style),
                label: pick(label, short_label),
            },
        ));
    }
    crate::model::grid::sort_small(&mut entries, |a, b| a.0 < b.0);
    entries.into_iter().map(|(_, item)| item).collect()
}

/// Draw the other curves: thinner dashed lines, each in its series look, with a ring where each
/// ends (its last feasible point: where that technique runs out of KV memory or engine slots).
/// Each dash has a casing of the background colour, so where curves coincide (paged and
/// contiguous KV below the contiguous capacity, or any technique that changes nothing) the
/// dashes on top stay visible on the line below.
pub(super) fn draw_others<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    projected: &Projected<'_>,
    options: &ChartOptions,
) -> Result<(), String> {
    let error = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("chart: {e}");
    let casing = super::style::Palette::for_theme(options.theme)
        .background
        .stroke_width(options.px(4.5));
    // Casings first, then the dense dashes, then the sparse ones: where two curves coincide the
    // sparser dashes (contiguous KV's) lie on the denser ones (paged KV's) and both show.
    let dense = |(dash, gap): (i32, i32)| 4 * dash >= 3 * (dash + gap).max(1);
    for pass in 0..3 {
        for other in &projected.others {
            let (style, dash) = other_style(other.series, options);
            let line = match pass {
                0 => casing,
                1 if dense(dash) => style,
                2 if !dense(dash) => style,
                _ => continue,
            };
            chart
                .draw_series(DashedLineSeries::new(
                    other.points.iter().copied(),
                    dash.0,
                    dash.1,
                    line,
                ))
                .map_err(error)?;
            if pass > 0 {
                let end = other.points.last().map(|&xy| {
                    Circle::new(xy, options.px(4.0), style.stroke_width(options.px(2.0)))
                });
                chart.draw_series(end).map_err(error)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::techniques::{background_curves, TechniqueLevel};
    use crate::model::{evaluate, sweep};
    use crate::present::chart::{draw_pareto_part, ChartOptions, Frame, Part, LEGEND_PARETO};
    use crate::scenario::{Scenario, ScenarioInput};

    fn hex(color: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
    }

    /// The glossary scenario with its technique ladder behind it, on the given axes.
    fn ladder_svg(input: ScenarioInput, projection: Projection, concurrency: u32) -> String {
        ladder_svg_sized(input, projection, concurrency, (900, 600))
    }

    fn ladder_svg_sized(
        input: ScenarioInput,
        projection: Projection,
        concurrency: u32,
        size: (u32, u32),
    ) -> String {
        ladder_svg_parts(
            input,
            projection,
            concurrency,
            size,
            &[Part::All],
            &mut Vec::new(),
        )
    }

    /// The same, drawing `parts` in turn on one SVG; each part's frame goes into `frames`.
    fn ladder_svg_parts(
        input: ScenarioInput,
        projection: Projection,
        concurrency: u32,
        size: (u32, u32),
        parts: &[Part],
        frames: &mut Vec<Frame>,
    ) -> String {
        let scenario = Scenario::try_from(input)
            .expect("valid")
            .with_concurrency(concurrency);
        let curve = sweep(&scenario);
        let current = Marker::from(&evaluate(&scenario));
        let background = background_curves(&scenario);
        let others: Vec<OtherCurve<'_>> = background.iter().map(OtherCurve::from).collect();
        let level = TechniqueLevel::of(&scenario.input);
        let main_label = format!("{} (current)", level.label());
        let main_short = format!("{} (current)", level.short_label());
        let layers = Layers {
            projection,
            others: &others,
            main: Some((&main_label, &main_short, level.index())),
            error_band: [None; 3],
        };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
            for part in parts {
                let frame = draw_pareto_part(
                    root.clone(),
                    &curve,
                    &current,
                    &Overlay::default(),
                    &layers,
                    &ChartOptions::default(),
                    *part,
                )
                .expect("draws");
                frames.push(frame);
            }
        }
        svg
    }

    /// The chart's SVG elements, one per line, sorted (painting order aside).
    fn elements(svg: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = svg
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        lines.sort_unstable();
        lines
    }

    /// The page keeps the base and redraws only the current point when nothing else moved: the
    /// two parts together must paint exactly the whole chart, in the same frame.
    #[test]
    fn base_and_current_parts_paint_the_whole_chart() {
        let tpot = Projection {
            x: XAxis::Tpot,
            ..Projection::default()
        };
        for projection in [Projection::default(), tpot] {
            for concurrency in [1, 64, 4096] {
                let input = ScenarioInput::default();
                let (mut whole_frames, mut split_frames) = (Vec::new(), Vec::new());
                let whole = ladder_svg_parts(
                    input.clone(),
                    projection,
                    concurrency,
                    (900, 600),
                    &[Part::All],
                    &mut whole_frames,
                );
                let split = ladder_svg_parts(
                    input.clone(),
                    projection,
                    concurrency,
                    (900, 600),
                    &[Part::Base, Part::Current],
                    &mut split_frames,
                );
                assert_eq!(elements(&whole), elements(&split), "C = {concurrency}");
                assert_eq!(split_frames.first(), whole_frames.first());
                assert_eq!(split_frames.get(1), whole_frames.first());
                let (mut frames, label) = (Vec::new(), format!("current: C = {concurrency}"));
                let current = ladder_svg_parts(
                    input,
                    projection,
                    concurrency,
                    (900, 600),
                    &[Part::Current],
                    &mut frames,
                );
                assert!(current.contains(&label), "the current part has its label");
                assert!(
                    !current.contains(LEGEND_PARETO),
                    "and not the base's legend"
                );
                assert!(whole.contains(LEGEND_PARETO));
            }
        }
    }

    #[test]
    fn the_ladder_draws_every_level_with_its_look_and_legend() {
        let svg = ladder_svg(ScenarioInput::default(), Projection::default(), 64);
        for needle in [
            "static batching",
            "continuous batching (contiguous KV)",
            "+ paged KV (current)",
            "+ speculative decoding (EAGLE, α 0.8, γ 4)",
            "+ disaggregation (",
            crate::present::chart::X_AXIS_LABEL,
        ] {
            assert!(svg.contains(needle), "SVG lacks {needle:?}");
        }
        for index in 0..SERIES_COUNT {
            let colour = hex(series_look(index, Theme::Light).colour);
            assert!(svg.contains(&colour), "series {index} ({colour}) drawn");
        }
    }

    #[test]
    fn a_narrow_chart_uses_the_short_names() {
        let svg = ladder_svg_sized(
            ScenarioInput::default(),
            Projection::default(),
            64,
            (360, 360),
        );
        assert!(svg.contains("contiguous KV") && svg.contains("paged KV (current)"));
        assert!(!svg.contains("continuous batching (contiguous KV)"));
    }

    #[test]
    fn other_axes_relabel_the_chart_and_flip_the_infeasible_note() {
        let tpot = Projection {
            x: XAxis::Tpot,
            y: YAxis::UsdPerMOutput,
        };
        // Far right of the slider: beyond the KV capacity, so the infeasible note is drawn.
        let svg = ladder_svg(ScenarioInput::default(), tpot, 4096);
        assert!(svg.contains(XAxis::Tpot.title(false)));
        assert!(svg.contains(YAxis::UsdPerMOutput.title()));
        assert!(svg.contains("KV cache full beyond C =") && svg.contains(" →"));
        assert!(
            svg.lines().any(|l| l.trim().starts_with('$')),
            "dollar tick labels"
        );
        let per_usd = Projection {
            x: XAxis::Interactivity,
            y: YAxis::TokensPerUsd,
        };
        let svg = ladder_svg(ScenarioInput::default(), per_usd, 64);
        assert!(svg.contains(YAxis::TokensPerUsd.title()));
    }

    #[test]
    fn pins_follow_every_axis() {
        let point = |x: f64, y: f64, usd: Option<f64>| PinPoint {
            tok_s_per_user: x,
            output_tok_s_per_gpu: y,
            output_tok_s: Some(8.0 * y),
            usd_per_m_output: usd,
        };
        let overlay = Overlay {
            pins: vec![PinnedCurve {
                label: "pin 1".into(),
                points: vec![point(50.0, 100.0, Some(4.0)), point(10.0, 900.0, None)],
            }],
            ..Overlay::default()
        };
        let moved = |x: XAxis, y: YAxis| -> Vec<(f64, f64)> {
            project_overlay(&overlay, &Projection { x, y }).pins[0]
                .points
                .iter()
                .map(PinPoint::xy)
                .collect()
        };
        assert_eq!(
            moved(XAxis::Tpot, YAxis::PerGpu),
            vec![(20.0, 100.0), (100.0, 900.0)]
        );
        assert_eq!(
            moved(XAxis::Interactivity, YAxis::Aggregate),
            vec![(50.0, 800.0), (10.0, 7200.0)]
        );
        // The cost axes show the priced point only ($/M in plot coordinates: ln).
        assert_eq!(
            moved(XAxis::Interactivity, YAxis::UsdPerMOutput),
            vec![(50.0, 4f64.ln())]
        );
        assert_eq!(
            moved(XAxis::Tpot, YAxis::TokensPerUsd),
            vec![(20.0, 250_000.0)]
        );
        assert_eq!(*project_overlay(&overlay, &Projection::default()), overlay);
    }

    /// Where two techniques coincide (paged and contiguous KV below the contiguous capacity) the
    /// other curves are dashed and cased in the background colour, so neither hides the other
    /// (issue 15 §2).
    #[test]
    fn other_curves_are_cased_dashes_so_coinciding_curves_stay_visible() {
        let spec = ScenarioInput {
            spec_decode: Some(crate::scenario::SpecMethod::Eagle),
            ..ScenarioInput::default()
        };
        let svg = ladder_svg(spec, Projection::default(), 64);
        let background = hex(crate::present::chart::Palette::for_theme(Theme::Light).background);
        let cased = svg
            .lines()
            .filter(|l| l.contains("<polyline") && l.contains(&format!("stroke=\"{background}\"")))
            .count();
        assert!(
            cased >= 3 * 10,
            "casings under three dashed curves: {cased}"
        );
        for series in [1, 2] {
            let colour = hex(series_look(series, Theme::Light).colour);
            assert!(
                svg.lines()
                    .filter(|l| l.contains("<polyline") && l.contains(&colour))
                    .count()
                    > 10,
                "series {series} drawn as dashes"
            );
        }
        // Solid looks become dashed as other curves, so no other curve is a plain line.
        let (_, (dash, gap)) = other_style(2, &ChartOptions::default());
        assert!(dash > 0 && gap > 0);
    }

    #[test]
    fn looks_differ_by_colour_and_by_dash() {
        for theme in [Theme::Light, Theme::Dark] {
            let looks: Vec<SeriesLook> = (0..SERIES_COUNT).map(|i| series_look(i, theme)).collect();
            for (i, a) in looks.iter().enumerate() {
                for b in looks.iter().skip(i + 1) {
                    assert_ne!(a.colour, b.colour);
                    assert_ne!(a.dash_px, b.dash_px);
                }
            }
            assert_eq!(series_look(SERIES_COUNT, theme), looks[0], "wraps");
        }
    }
}
