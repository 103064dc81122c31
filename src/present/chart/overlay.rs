//! Extra layers on the Pareto chart: pinned scenarios' curves, for comparison, and the points of
//! the current curve that miss a latency SLO.
//!
//! Pins never rely on colour alone (Okabe & Ito 2008 colours, plus a dash pattern and a marker
//! shape per pin); SLO misses are grey crosses, the same grey as the other infeasible points.
//! The page builds an `Overlay` from its state; `draw_pareto_with` draws it.

use super::legend::{LegendItem, Symbol};
use super::style::{
    ChartOptions, Palette, Theme, OKABE_ITO_ORANGE, OKABE_ITO_SKY_BLUE, OKABE_ITO_VERMILLION,
};
use super::triangle::Triangle;
use super::Marker;
use crate::model::{Curve, CurvePoint};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Okabe–Ito "yellow": the fourth pin on a dark background.
pub const OKABE_ITO_YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
/// Pin markers are drawn on every `MARKER_EVERY`-th point (and the last), so a dense sweep
/// stays a readable line.
const MARKER_EVERY: usize = 3;
/// At most this many pinned curves are drawn (PRODUCT.md: pin up to four scenarios).
pub const MAX_PINNED_CURVES: usize = 4;

/// One pinned scenario's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedCurve {
    /// Legend text, e.g. "pin 1: Llama 3.1 8B · 1× H100 SXM · FP8".
    pub label: String,
    /// Feasible points, in sweep order.
    pub points: Vec<PinPoint>,
}

/// What a pinned curve's point carries: enough for every axis choice (`axis::Projection`;
/// TPOT is `1000 ÷ tokens/s per user`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PinPoint {
    pub tok_s_per_user: f64,
    pub output_tok_s_per_gpu: f64,
    /// Over all the pin's GPUs; `None` (not drawn on that axis) when a sender left it out.
    pub output_tok_s: Option<f64>,
    /// `None` without a price per GPU-hour.
    pub usd_per_m_output: Option<f64>,
}

impl PinPoint {
    /// Where it is drawn on the native axes.
    pub fn xy(&self) -> (f64, f64) {
        (self.tok_s_per_user, self.output_tok_s_per_gpu)
    }
}

impl From<&CurvePoint> for PinPoint {
    fn from(point: &CurvePoint) -> PinPoint {
        PinPoint {
            tok_s_per_user: point.tok_s_per_user,
            output_tok_s_per_gpu: point.output_tok_s_per_gpu,
            output_tok_s: Some(point.output_tok_s),
            usd_per_m_output: point.usd_per_m_output,
        }
    }
}

impl super::PlotValues for PinPoint {
    fn tok_s_per_user(&self) -> f64 {
        self.tok_s_per_user
    }
    fn tpot_ms(&self) -> f64 {
        1000.0 / self.tok_s_per_user
    }
    fn output_tok_s_per_gpu(&self) -> f64 {
        self.output_tok_s_per_gpu
    }
    fn output_tok_s(&self) -> f64 {
        self.output_tok_s.unwrap_or(f64::NAN)
    }
    fn usd_per_m_output(&self) -> Option<f64> {
        self.usd_per_m_output
    }
}

/// What to draw on top of the main curve.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Overlay {
    /// Concurrencies of main-curve points that fit in memory but miss the SLO.
    pub slo_missed: Vec<u32>,
    /// Legend text for those points, e.g. "misses P90 SLO".
    pub slo_label: String,
    pub pins: Vec<PinnedCurve>,
    /// Measured points (`data/measurements.csv` rows matching the scenario, issue 13 §2) as
    /// (tokens/s per user, output tokens/s per GPU), drawn as hollow squares.
    pub measured: Vec<(f64, f64)>,
    /// Their legend text, e.g. "measured (3)".
    pub measured_label: String,
}

/// Most points one pinned curve (or the SLO misses) carries through `Overlay::decode` (a sweep
/// has far fewer).
pub const MAX_TEXT_POINTS: usize = 512;

/// A label as one line of the overlay text: tabs and line breaks become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == '\t' || c == '\n' || c == '\r' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

impl Overlay {
    /// The overlay as text, for the page's second module (`ui::tools`), which computes it, to
    /// hand to the explorer, which draws it. One line per layer, fields separated by tabs:
    /// `slo⇥label⇥c1,c2,…`, `measured⇥label⇥x y;…` and `pin⇥label⇥x y aggregate usd;…` (x =
    /// tokens/s per user, y = per GPU, `-` for no $/M). Numbers use Rust's shortest round-trip
    /// form, so `decode(encode(o)) == o` for finite points.
    pub fn encode(&self) -> String {
        let mut text = format!(
            "slo\t{}\t{}",
            one_line(&self.slo_label),
            self.slo_missed
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
        if !self.measured.is_empty() {
            let points = self
                .measured
                .iter()
                .map(|(x, y)| format!("{x} {y}"))
                .collect::<Vec<_>>()
                .join(";");
            text.push_str(&format!(
                "\nmeasured\t{}\t{points}",
                one_line(&self.measured_label)
            ));
        }
        for pin in &self.pins {
            let points = pin
                .points
                .iter()
                .map(|p| {
                    let or_dash = |v: Option<f64>| v.map_or("-".into(), |v| v.to_string());
                    format!(
                        "{} {} {} {}",
                        p.tok_s_per_user,
                        p.output_tok_s_per_gpu,
                        or_dash(p.output_tok_s),
                        or_dash(p.usd_per_m_output)
                    )
                })
                .collect::<Vec<_>>()
                .join(";");
            text.push_str(&format!("\npin\t{}\t{points}", one_line(&pin.label)));
        }
        text
    }

    /// Read `encode`'s text back. Never fails: a malformed line, number or point is skipped,
    /// non-finite points are dropped (a pin point's aggregate and $/M only become "not drawn on
    /// that axis"; a point of two numbers, as senders before issue 15 wrote, draws per GPU only), and at most `MAX_PINNED_CURVES` pins of at most 512
    /// points are kept, so whatever arrives can only draw less.
    pub fn decode(text: &str) -> Overlay {
        let mut overlay = Overlay::default();
        for line in text.lines() {
            let mut fields = line.splitn(3, '\t');
            let (Some(kind), Some(label), Some(values)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            match kind {
                "slo" => {
                    overlay.slo_label = label.to_string();
                    overlay.slo_missed = values
                        .split(',')
                        .filter_map(|c| c.trim().parse::<u32>().ok())
                        .take(MAX_TEXT_POINTS)
                        .collect();
                }
                "measured" => {
                    overlay.measured_label = label.to_string();
                    overlay.measured = pin_points_of(values).iter().map(PinPoint::xy).collect();
                }
                "pin" if overlay.pins.len() < MAX_PINNED_CURVES => {
                    let points = pin_points_of(values);
                    overlay.pins.push(PinnedCurve {
                        label: label.to_string(),
                        points,
                    });
                }
                _ => {}
            }
        }
        overlay
    }
}

/// `x y aggregate usd;…` (finite x and y only, at most `MAX_TEXT_POINTS`; the measured points'
/// `x y;…` read the same, without the last two).
fn pin_points_of(values: &str) -> Vec<PinPoint> {
    values
        .split(';')
        .filter_map(|point| {
            let mut numbers = point.split_whitespace();
            let mut next = || numbers.next().and_then(|n| n.parse::<f64>().ok());
            let (x, y) = (next()?, next()?);
            let aggregate = next().filter(|a| a.is_finite());
            let usd = next().filter(|u| u.is_finite());
            (x.is_finite() && y.is_finite()).then_some(PinPoint {
                tok_s_per_user: x,
                output_tok_s_per_gpu: y,
                output_tok_s: aggregate,
                usd_per_m_output: usd,
            })
        })
        .take(MAX_TEXT_POINTS)
        .collect()
}

/// The marker a pin's points carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerShape {
    Square,
    Triangle,
    Cross,
    Ring,
}

/// How pin `index` is drawn: colour, dash (on, off, CSS px) and marker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PinStyle {
    pub color: RGBColor,
    pub dash_css_px: (f64, f64),
    pub marker: MarkerShape,
}

/// Distinct by colour, dash and marker, so each stays identifiable in grey-scale print and for
/// every common colour-vision deficiency. The technique ladder (`series.rs`) already uses grey,
/// bluish green, blue and reddish purple, so pins take orange, vermillion, black (white on dark)
/// and sky blue (yellow on dark); the marker tells a pin from a technique curve of a similar
/// hue. Indices past the fourth reuse the styles.
pub fn pin_style(index: usize, theme: Theme) -> PinStyle {
    let dark = theme == Theme::Dark;
    match index % MAX_PINNED_CURVES {
        0 => PinStyle {
            color: OKABE_ITO_ORANGE,
            dash_css_px: (12.0, 5.0),
            marker: MarkerShape::Square,
        },
        1 => PinStyle {
            color: OKABE_ITO_VERMILLION,
            dash_css_px: (2.5, 4.0),
            marker: MarkerShape::Triangle,
        },
        2 => PinStyle {
            color: Palette::for_theme(theme).text,
            dash_css_px: (6.0, 6.0),
            marker: MarkerShape::Cross,
        },
        _ => PinStyle {
            color: if dark {
                OKABE_ITO_YELLOW
            } else {
                OKABE_ITO_SKY_BLUE
            },
            dash_css_px: (20.0, 4.0),
            marker: MarkerShape::Ring,
        },
    }
}

fn drawing_error(error: impl std::fmt::Display) -> String {
    format!("chart: {error}")
}

fn plottable((x, y): &(f64, f64)) -> bool {
    x.is_finite() && *x > 0.0 && y.is_finite()
}

/// Axis ranges covering the main curve, the current point and every pinned curve.
pub fn axes_with(curve: &Curve, current: &Marker, overlay: &Overlay) -> Option<super::Axes> {
    if overlay.pins.is_empty() && overlay.measured.is_empty() {
        return super::axes(curve, current);
    }
    let mut all = curve.clone();
    all.points.extend(
        overlay
            .pins
            .iter()
            .flat_map(|pin| pin.points.iter().map(PinPoint::xy))
            .chain(overlay.measured.iter().copied())
            .map(|(x, y)| CurvePoint {
                concurrency: 1,
                tok_s_per_user: x,
                output_tok_s_per_gpu: y,
                output_tok_s: 0.0,
                tpot_ms: 0.0,
                ttft_ms: 0.0,
                usd_per_m_output: None,
                fits: true,
                bound_label: "",
                regime: crate::model::expected_error::Regime::LatencyBound,
                pareto: false,
            }),
    );
    super::axes(&all, current)
}

/// Legend entries for the SLO misses (when any) and each pin; pins are "pin N" on a narrow chart.
pub fn legend_items(overlay: &Overlay, compact: bool, options: &ChartOptions) -> Vec<LegendItem> {
    let palette = Palette::for_theme(options.theme);
    let mut items = Vec::new();
    if !overlay.slo_missed.is_empty() {
        items.push(LegendItem {
            symbol: Symbol::Cross(
                palette.infeasible.stroke_width(options.px(2.0)),
                options.px(4.5),
            ),
            label: overlay.slo_label.clone(),
        });
    }
    if !overlay.measured.is_empty() {
        items.push(LegendItem {
            symbol: Symbol::Marker(
                palette.text.stroke_width(options.px(2.0)),
                MarkerShape::Square,
                options.px(4.5),
            ),
            label: overlay.measured_label.clone(),
        });
    }
    for (index, pin) in overlay.pins.iter().enumerate().take(MAX_PINNED_CURVES) {
        let style = pin_style(index, options.theme);
        items.push(LegendItem {
            symbol: Symbol::Pin(
                style.color.stroke_width(options.px(2.0)),
                style.marker,
                options.px(4.5),
            ),
            label: if compact {
                format!("pin {}", index + 1)
            } else {
                pin.label.clone()
            },
        });
    }
    items
}

/// One marker centred on `centre` (backend pixels): for the legend.
pub fn draw_marker_at<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    shape: MarkerShape,
    centre: (i32, i32),
    size: u32,
    style: ShapeStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let r = i32::try_from(size).unwrap_or(4);
    let (x, y) = centre;
    match shape {
        MarkerShape::Square => area.draw(&Rectangle::new(
            [(x - r, y - r), (x + r, y + r)],
            style.filled(),
        )),
        MarkerShape::Triangle => area.draw(&Triangle::new(centre, size + size / 3, style.filled())),
        MarkerShape::Cross => area.draw(&Cross::new(centre, size, style)),
        MarkerShape::Ring => area.draw(&Circle::new(centre, size, style)),
    }
}

/// Draw every pinned curve: a dashed line in the pin's colour, with its marker on each point.
pub fn draw_pins<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    overlay: &Overlay,
    options: &ChartOptions,
) -> Result<(), String> {
    for (index, pin) in overlay.pins.iter().enumerate().take(MAX_PINNED_CURVES) {
        let style = pin_style(index, options.theme);
        let line = style.color.stroke_width(options.px(2.0));
        let points: Vec<(f64, f64)> = pin
            .points
            .iter()
            .map(PinPoint::xy)
            .filter(plottable)
            .collect();
        let (on, off) = style.dash_css_px;
        chart
            .draw_series(DashedLineSeries::new(
                points.iter().copied(),
                options.offset(on),
                options.offset(off),
                line,
            ))
            .map_err(drawing_error)?;
        let last = points.len().saturating_sub(1);
        let points: Vec<(f64, f64)> = points
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % MARKER_EVERY == 0 || *i == last)
            .map(|(_, xy)| xy)
            .collect();
        let size = options.px(4.0);
        let r = options.offset(4.0);
        let result = match style.marker {
            MarkerShape::Square => chart
                .draw_series(points.iter().map(|&xy| {
                    EmptyElement::at(xy) + Rectangle::new([(-r, -r), (r, r)], line.filled())
                }))
                .map(|_| ()),
            MarkerShape::Triangle => chart
                .draw_series(
                    points
                        .iter()
                        .map(|&xy| Triangle::new(xy, size + size / 3, line.filled())),
                )
                .map(|_| ()),
            MarkerShape::Cross => chart
                .draw_series(points.iter().map(|&xy| Cross::new(xy, size, line)))
                .map(|_| ()),
            MarkerShape::Ring => chart
                .draw_series(points.iter().map(|&xy| Circle::new(xy, size, line)))
                .map(|_| ()),
        };
        result.map_err(drawing_error)?;
    }
    Ok(())
}

/// The measured points: hollow squares in the text colour (issue 13 §2).
pub fn draw_measured<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    overlay: &Overlay,
    options: &ChartOptions,
) -> Result<(), String> {
    let style = Palette::for_theme(options.theme)
        .text
        .stroke_width(options.px(2.0));
    let r = options.offset(4.5);
    chart
        .draw_series(
            overlay
                .measured
                .iter()
                .filter(|p| plottable(p))
                .map(|&xy| EmptyElement::at(xy) + Rectangle::new([(-r, -r), (r, r)], style)),
        )
        .map(|_| ())
        .map_err(drawing_error)
}

/// Cross out the main curve's points that fit but miss the SLO.
pub fn draw_slo_misses<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    curve: &Curve,
    overlay: &Overlay,
    options: &ChartOptions,
) -> Result<(), String> {
    if overlay.slo_missed.is_empty() {
        return Ok(());
    }
    let palette = Palette::for_theme(options.theme);
    let style = palette.infeasible.stroke_width(options.px(2.0));
    let size = options.px(5.0);
    chart
        .draw_series(
            curve
                .points
                .iter()
                .filter(|p| p.fits && overlay.slo_missed.contains(&p.concurrency))
                .map(|p| (p.tok_s_per_user, p.output_tok_s_per_gpu))
                .filter(plottable)
                .map(|xy| Cross::new(xy, size, style)),
        )
        .map_err(drawing_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::model::{evaluate, sweep};
    use crate::present::chart::{draw_pareto_with, ChartOptions};
    use crate::scenario::{Scenario, ScenarioInput};

    #[test]
    fn overlay_text_round_trips_and_hostile_text_only_draws_less() {
        let overlay = Overlay {
            slo_missed: vec![64, 128, 256],
            slo_label: "misses P90 SLO".into(),
            pins: vec![
                PinnedCurve {
                    label: "pin 1: Llama\t3.1 8B\n· H100".into(),
                    points: vec![
                        pin_point(91.25, 120.5, 964.0, Some(2.5)),
                        pin_point(1.0 / 3.0, 2e-7, 1.6e-6, None),
                        pin_point(12345.678, 0.1, 0.8, Some(1.0 / 3.0)),
                    ],
                },
                PinnedCurve {
                    label: "pin 2".into(),
                    points: vec![],
                },
            ],
            measured: vec![(25.5, 1800.25), (0.5, 3.0)],
            measured_label: "measured (2)".into(),
        };
        let back = Overlay::decode(&overlay.encode());
        assert_eq!(back.measured, overlay.measured);
        assert_eq!(back.measured_label, "measured (2)");
        assert_eq!(back.slo_missed, overlay.slo_missed);
        assert_eq!(back.slo_label, overlay.slo_label);
        assert_eq!(back.pins.len(), 2);
        assert_eq!(back.pins[0].label, "pin 1: Llama 3.1 8B · H100");
        assert_eq!(back.pins[0].points, overlay.pins[0].points);
        assert!(back.pins[1].points.is_empty());
        assert_eq!(
            Overlay::decode(&Overlay::default().encode()),
            Overlay::default()
        );

        let hostile = "pin\tx\t1 2;NaN 3;inf 4;5;a b;6 7\nbogus\nslo\tmiss\t1,-2,x,3\n".to_string()
            + &"pin\tp\t1 1\n".repeat(9);
        let read = Overlay::decode(&hostile);
        assert_eq!(read.pins.len(), MAX_PINNED_CURVES);
        let xy: Vec<(f64, f64)> = read.pins[0].points.iter().map(PinPoint::xy).collect();
        assert_eq!(xy, vec![(1.0, 2.0), (6.0, 7.0)]);
        // Two numbers (the format before issue 15): per GPU only; a bad $/M is no price.
        let short = Overlay::decode("pin\tp\t3 4;5 6 48 x");
        assert_eq!(short.pins[0].points[0].output_tok_s, None);
        assert_eq!(short.pins[0].points[1].output_tok_s, Some(48.0));
        assert_eq!(short.pins[0].points[1].usd_per_m_output, None);
        assert_eq!(read.slo_missed, vec![1, 3]);
        let long = format!("pin\tp\t{}", "1 1;".repeat(5000));
        assert_eq!(Overlay::decode(&long).pins[0].points.len(), MAX_TEXT_POINTS);
    }

    fn pin_point(x: f64, y: f64, aggregate: f64, usd: Option<f64>) -> PinPoint {
        PinPoint {
            tok_s_per_user: x,
            output_tok_s_per_gpu: y,
            output_tok_s: Some(aggregate),
            usd_per_m_output: usd,
        }
    }

    fn hex(color: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
    }

    fn render(overlay: &Overlay, size: (u32, u32)) -> String {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
            draw_pareto_with(root, &curve, &marker, overlay, &ChartOptions::default())
                .expect("draws");
        }
        svg
    }

    fn pinned(model: &str, label: &str) -> PinnedCurve {
        let scenario = Scenario::try_from(ScenarioInput {
            model: model.into(),
            ..ScenarioInput::default()
        })
        .expect("valid");
        PinnedCurve {
            label: label.into(),
            points: sweep(&scenario)
                .points
                .iter()
                .filter(|p| p.fits)
                .map(PinPoint::from)
                .collect(),
        }
    }

    #[test]
    fn pins_get_distinct_styles_and_legend_labels() {
        for theme in [Theme::Light, Theme::Dark] {
            let styles: Vec<PinStyle> = (0..4).map(|i| pin_style(i, theme)).collect();
            for (i, a) in styles.iter().enumerate() {
                for b in styles.iter().skip(i + 1) {
                    assert_ne!(a.color, b.color);
                    assert_ne!(a.marker, b.marker);
                    assert_ne!(a.dash_css_px, b.dash_css_px);
                }
            }
        }
        let overlay = Overlay {
            pins: vec![
                pinned("llama-3.1-8b", "pin 1: Llama 3.1 8B"),
                pinned("qwen2.5-72b", "pin 2: Qwen 2.5 72B"),
            ],
            ..Overlay::default()
        };
        let svg = render(&overlay, (900, 560));
        assert!(svg.contains("pin 1: Llama 3.1 8B") && svg.contains("pin 2: Qwen 2.5 72B"));
        assert!(svg.contains(&hex(OKABE_ITO_ORANGE)));
        assert!(svg.contains(&hex(OKABE_ITO_VERMILLION)));
        // The 8B curve reaches far more tokens/s per GPU than the 70B one: the y axis grew to show it.
        let plain = render(&Overlay::default(), (900, 560));
        assert_ne!(svg, plain);
        // Narrow: pins are named by number only.
        let narrow = render(&overlay, (340, 340));
        assert!(narrow.contains("pin 1") && !narrow.contains("pin 1: Llama"));
    }

    #[test]
    fn slo_misses_are_crossed_out_and_named_in_the_legend() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let missed: Vec<u32> = curve
            .points
            .iter()
            .filter(|p| p.fits && p.concurrency > 32)
            .map(|p| p.concurrency)
            .collect();
        assert!(!missed.is_empty());
        let overlay = Overlay {
            slo_missed: missed,
            slo_label: "misses P90 SLO".into(),
            pins: Vec::new(),
            measured: vec![(30.0, 900.0)],
            measured_label: "measured (1)".into(),
        };
        let svg = render(&overlay, (900, 560));
        assert!(svg.contains("misses P90 SLO"));
        assert!(
            svg.contains("measured (1)"),
            "the measured points' legend entry"
        );
        assert!(!render(&Overlay::default(), (900, 560)).contains("misses P90 SLO"));
    }

    /// Pins are drawn on every axis choice (issue 15 §2: they vanished on $/M, aggregate and
    /// tokens per $), with their legend entry.
    #[test]
    fn pins_are_drawn_on_every_axis() {
        use crate::present::chart::{draw_pareto_layered, Layers, Projection, XAxis, YAxis};
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let overlay = Overlay {
            pins: vec![pinned("llama-3.1-8b", "pin 1: Llama 3.1 8B")],
            ..Overlay::default()
        };
        let orange = hex(OKABE_ITO_ORANGE);
        for &x in XAxis::ALL {
            for &y in YAxis::ALL {
                let draw = |overlay: &Overlay| {
                    let layers = Layers {
                        projection: Projection { x, y },
                        ..Layers::default()
                    };
                    let mut svg = String::new();
                    {
                        let root =
                            SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
                        draw_pareto_layered(
                            root,
                            &curve,
                            &marker,
                            overlay,
                            &layers,
                            &ChartOptions::default(),
                        )
                        .expect("draws");
                    }
                    svg
                };
                let svg = draw(&overlay);
                // The dashed line and the square markers, beyond the legend's one symbol.
                let strokes = svg.lines().filter(|l| l.contains(&orange)).count();
                let plain = draw(&Overlay::default())
                    .lines()
                    .filter(|l| l.contains(&orange))
                    .count();
                assert!(
                    strokes > plain + 10,
                    "{x:?} × {y:?}: {strokes} orange elements"
                );
                assert!(svg.contains("pin 1: Llama 3.1 8B"), "{x:?} × {y:?}");
            }
        }
    }
}
