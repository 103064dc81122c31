//! The chart's in-plot labels stay on their markers (issue 28 §3): over a grid of catalog
//! scenarios (with and without the technique ladder behind the curve, with speculative decoding
//! on and off), operating points (first, knee, mid-curve, the last feasible point, infeasible,
//! the engine limit) and chart sizes (375–1280 CSS px at DPR 1 and 2, compact and full), every
//! label that `draw_pareto_placed` reports lies inside the plot, overlaps no other label, is
//! nearer its own marker than any other plotted marker, and has a leader line when it sits
//! farther out than the first gap. Geometry only: no fitted figure is checked. Markers are
//! located here from the frame (`hit::pixel_of`), not read back from the drawing code.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use plotters::prelude::IntoDrawingArea;
use servecost::choice::Choice;
use servecost::model::techniques::{background_curves, TechniqueLevel};
use servecost::model::{evaluate, sweep, CurvePoint};
use servecost::page::first_screen::draw_chart;
use servecost::page::state::State;
use servecost::present::chart::hit::pixel_of;
use servecost::present::chart::svg::{svg_area, CompactSvg};
use servecost::present::chart::{
    draw_pareto_kept, draw_pareto_placed, ChartOptions, KeptLabels, Labelled, Layers, Marker,
    OtherCurve, Overlay, Part,
};
use servecost::scenario::{Scenario, ScenarioInput};
use servecost::share;

/// The first gap between a label and its marker (CSS px, `place::LABEL_GAPS_CSS_PX[0]`): a box
/// there is at most this·√2 from its marker (a corner); farther out needs a leader line.
const FIRST_GAP_CSS_PX: f64 = 9.0;

/// The radius (CSS px) each labelled marker covers: the current point's halo, the knee's
/// triangle (`pareto::styles`). A marker within it lies under the labelled one and is, to the
/// eye, part of it (the sweep's first points, 1 and 2 in flight, are often 4 px apart).
const CURRENT_RADIUS_CSS_PX: f64 = 10.0;
const KNEE_RADIUS_CSS_PX: f64 = 9.0;

/// Slack (backend px) for comparing distances measured here in f64 with the drawing's
/// whole-pixel positions.
const SLACK_PX: f64 = 1.5;

/// Catalog scenarios: (model, GPU, GPU count, speculative decoding).
const SCENARIOS: [(&str, &str, f64, &str); 6] = [
    ("", "", 0.0, ""),
    ("", "", 0.0, "eagle"),
    ("llama-3.1-8b", "a100-sxm-80gb", 1.0, ""),
    ("qwen3-32b", "h100-sxm", 2.0, "eagle"),
    ("deepseek-r1", "b200", 8.0, ""),
    ("gpt-oss-120b", "h100-sxm", 2.0, ""),
];

/// Chart sizes: CSS width, CSS height (under 280 the layout is compact at any width).
const SIZES_CSS_PX: [(u32, u32); 7] = [
    (375, 375),
    (600, 400),
    (600, 260),
    (800, 480),
    (800, 260),
    (1280, 560),
    (1280, 260),
];

fn scenario((model, gpu, gpu_count, spec): (&str, &str, f64, &str)) -> Scenario {
    let mut input = ScenarioInput::default();
    if !model.is_empty() {
        input.model = model.into();
        input.gpu = gpu.into();
        input.gpu_count = gpu_count;
    }
    if !spec.is_empty() {
        input.spec_decode = Choice::parse(spec).expect("an id of the set");
    }
    Scenario::try_from(input).expect("valid scenario")
}

fn distance(&[left, top, right, bottom]: &[i32; 4], (x, y): (f64, f64)) -> f64 {
    let dx = (f64::from(left) - x).max(x - f64::from(right)).max(0.0);
    let dy = (f64::from(top) - y).max(y - f64::from(bottom)).max(0.0);
    dx.hypot(dy)
}

fn overlap(a: &[i32; 4], b: &[i32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

#[test]
fn every_label_sits_by_its_own_marker() {
    let mut labels_checked = 0;
    let mut leaders = 0;
    let mut led_in_crowds = 0;
    for spec in SCENARIOS {
        let scenario = scenario(spec);
        let curve = sweep(&scenario);
        let background = background_curves(&scenario);
        let level = TechniqueLevel::of(&scenario.input);
        let main_label = format!("{} (current)", level.label());
        let main_short = format!("{} (current)", level.short_label());
        let others: Vec<OtherCurve<'_>> = background.iter().map(OtherCurve::from).collect();
        let ladder = Layers {
            others: &others,
            main: Some((&main_label, &main_short, level.index())),
            ..Layers::default()
        };
        let knee = curve.knee.and_then(|i| curve.points.get(i));
        let last_feasible = curve.points.iter().rev().find(|p| p.fits);
        let first_infeasible = curve.points.iter().find(|p| !p.fits);
        let mut concurrencies: Vec<u32> = [Some(1), Some(64), Some(scenario.engine_limit())]
            .into_iter()
            .chain([knee, last_feasible, first_infeasible].map(|p| p.map(|p| p.concurrency)))
            .flatten()
            .collect();
        // The points either side of the knee, where the two labels compete for room.
        if let Some(k) = curve.knee {
            for i in [k.saturating_sub(1), k + 1] {
                concurrencies.extend(curve.points.get(i).map(|p| p.concurrency));
            }
        }
        concurrencies.sort_unstable();
        concurrencies.dedup();
        for layers in [Layers::default(), ladder] {
            for &concurrency in &concurrencies {
                let current = Marker::from(&evaluate(&scenario.with_concurrency(concurrency)));
                for (css_width, css_height) in SIZES_CSS_PX {
                    for scale in [1.0, 2.0] {
                        let case = format!(
                            "{spec:?}, ladder {}, C = {concurrency}, {css_width}×{css_height} \
                             CSS px at DPR {scale}",
                            !layers.others.is_empty()
                        );
                        let options = ChartOptions {
                            scale,
                            ..ChartOptions::default()
                        };
                        let size = (
                            (f64::from(css_width) * scale) as u32,
                            (f64::from(css_height) * scale) as u32,
                        );
                        let mut svg = String::new();
                        let (frame, placements) = draw_pareto_placed(
                            svg_area(&mut svg, size),
                            &curve,
                            &current,
                            &Overlay::default(),
                            &layers,
                            &options,
                            Part::All,
                        )
                        .expect("draws");
                        let placements: Vec<_> = placements.into_iter().flatten().collect();
                        let (_, area) = frame.plot().expect("plotted");
                        let projection = layers.projection;
                        // Every marker a label could be taken for: the knee, the current point,
                        // the infeasible rings, the ring at each other curve's end. Not the
                        // curve's frontier dots (a label by a dot of its own curve still reads
                        // as that curve's), nor an other curve's inner points (undrawn).
                        let at = |p: &CurvePoint| pixel_of(&frame, &projection, p);
                        let current_point = CurvePoint {
                            tok_s_per_user: current.tok_s_per_user,
                            output_tok_s_per_gpu: current.output_tok_s_per_gpu,
                            ..curve.points[0].clone()
                        };
                        let current_pixel = at(&current_point).expect("current plotted");
                        let knee_pixel = knee.and_then(at);
                        let mut markers: Vec<(f64, f64)> = curve
                            .points
                            .iter()
                            .filter(|p| !p.fits)
                            .filter_map(at)
                            .collect();
                        markers.extend(knee_pixel);
                        for other in layers.others {
                            let end = other.curve.points.iter().rev().find(|p| p.fits);
                            markers.extend(end.and_then(at));
                        }
                        markers.push(current_pixel);
                        assert!(
                            placements.iter().any(|p| p.labelled == Labelled::Current),
                            "{case}: no current label in {placements:?}"
                        );
                        for (i, placement) in placements.iter().enumerate() {
                            let text_box = placement.text_box;
                            let [left, top, right, bottom] = text_box.map(f64::from);
                            assert!(
                                left >= area.left - SLACK_PX
                                    && right <= area.right + SLACK_PX
                                    && top >= area.top - SLACK_PX
                                    && bottom <= area.bottom + SLACK_PX,
                                "{case}: {placement:?} leaves the plot {area:?}"
                            );
                            for other in placements.iter().skip(i + 1) {
                                assert!(
                                    !overlap(&text_box, &other.text_box),
                                    "{case}: {placement:?} overlaps {other:?}"
                                );
                            }
                            let (own, hidden) = match placement.labelled {
                                Labelled::Knee => {
                                    (knee_pixel.expect("a knee"), KNEE_RADIUS_CSS_PX * scale)
                                }
                                Labelled::Current => (current_pixel, CURRENT_RADIUS_CSS_PX * scale),
                                Labelled::InfeasibleNote => continue,
                            };
                            let marker =
                                (f64::from(placement.marker.0), f64::from(placement.marker.1));
                            assert!(
                                (marker.0 - own.0).hypot(marker.1 - own.1) <= SLACK_PX,
                                "{case}: {placement:?} is not attached to {own:?}"
                            );
                            let reach = distance(&text_box, own);
                            let under = |(x, y): (f64, f64)| {
                                (x - own.0).hypot(y - own.1) <= hidden + SLACK_PX
                            };
                            // Nearer its own marker than any other; on a compact or
                            // tablet-sized chart with the technique ladder, where no spot may be
                            // (five curves in 150 px of height), joined to it by a leader line.
                            let nearest_other = markers
                                .iter()
                                .filter(|&&m| !under(m))
                                .map(|&m| distance(&text_box, m))
                                .fold(f64::INFINITY, f64::min);
                            let nearest_is_own = reach <= nearest_other + SLACK_PX;
                            let roomy = css_width >= 800 && css_height >= 280;
                            assert!(
                                nearest_is_own || (placement.leader && !roomy),
                                "{case}, plot {area:?}: {placement:?} is {reach:.1} px from its \
                                 marker {own:?} but {nearest_other:.1} px from another, with no \
                                 leader line"
                            );
                            led_in_crowds += usize::from(!nearest_is_own);
                            let first_gap = FIRST_GAP_CSS_PX * scale * std::f64::consts::SQRT_2;
                            assert!(
                                placement.leader || reach <= first_gap + SLACK_PX,
                                "{case}: {placement:?} is {reach:.1} px out without a leader"
                            );
                            leaders += usize::from(placement.leader);
                            labels_checked += 1;
                        }
                    }
                }
            }
        }
    }
    // Leader lines stand in for the nearest-marker rule only where the grid's crowded charts
    // leave no spot for it (46 of 2,520 labels when written): a few, not a habit.
    assert!(
        led_in_crowds * 40 <= labels_checked,
        "{led_in_crowds} of {labels_checked} labels are nearer another marker than their own"
    );
    assert!(labels_checked > 1000, "{labels_checked} labels checked");
    assert!(
        leaders > 0,
        "no label moved out: the leader check cannot fail"
    );
}

/// A slider move paints only the current part over a kept base, placing only the current
/// point's label against the base's kept label work (`KeptLabels`): every label lands where a
/// whole fresh draw puts it, at every point of the curve, and work kept for another frame (a
/// resized chart) is not used.
#[test]
fn kept_labels_place_as_a_fresh_draw() {
    for spec in [SCENARIOS[0], SCENARIOS[3], SCENARIOS[4]] {
        let scenario = scenario(spec);
        let curve = sweep(&scenario);
        let background = background_curves(&scenario);
        let level = TechniqueLevel::of(&scenario.input);
        let main_label = format!("{} (current)", level.label());
        let main_short = format!("{} (current)", level.short_label());
        let others: Vec<OtherCurve<'_>> = background.iter().map(OtherCurve::from).collect();
        let layers = Layers {
            others: &others,
            main: Some((&main_label, &main_short, level.index())),
            ..Layers::default()
        };
        let markers: Vec<Marker> = curve
            .points
            .iter()
            .map(|p| Marker::from(&evaluate(&scenario.with_concurrency(p.concurrency))))
            .chain([Marker::from(&evaluate(
                &scenario.with_concurrency(scenario.engine_limit()),
            ))])
            .collect();
        for ((css_width, css_height), scale) in [((375, 375), 2.0), ((1280, 560), 1.0)] {
            let options = ChartOptions {
                scale,
                ..ChartOptions::default()
            };
            let size = (
                (f64::from(css_width) * scale) as u32,
                (f64::from(css_height) * scale) as u32,
            );
            let draw = |current: &Marker, part: Part, size: (u32, u32), kept: &mut KeptLabels| {
                let mut svg = String::new();
                draw_pareto_kept(
                    svg_area(&mut svg, size),
                    &curve,
                    current,
                    &Overlay::default(),
                    &layers,
                    &options,
                    part,
                    kept,
                )
                .expect("draws")
            };
            let mut kept = KeptLabels::default();
            // Kept for another size first: not to be used for this one.
            draw(&markers[0], Part::Base, (size.0 - 40, size.1), &mut kept);
            let (stale, _) = draw(&markers[0], Part::Current, size, &mut kept);
            let (base_frame, _) = draw(&markers[0], Part::Base, size, &mut kept);
            assert_eq!(stale, base_frame);
            for current in &markers {
                let (frame, placements) = draw(current, Part::Current, size, &mut kept);
                let (whole_frame, whole) =
                    draw(current, Part::All, size, &mut KeptLabels::default());
                assert_eq!(frame, whole_frame);
                assert_eq!(
                    placements, whole,
                    "{spec:?}, C = {}, {css_width}×{css_height} at DPR {scale}",
                    current.concurrency
                );
            }
        }
    }
}

/// Whether the segment from `a` to `b` runs through `text_box` (sampled every half pixel: the
/// test's own check, not the drawing code's).
fn runs_through(&[left, top, right, bottom]: &[i32; 4], a: (f64, f64), b: (f64, f64)) -> bool {
    let steps = ((b.0 - a.0).hypot(b.1 - a.1) * 2.0).ceil().max(1.0) as u32;
    (0..=steps).any(|i| {
        let t = f64::from(i) / f64::from(steps);
        let (x, y) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
        x > f64::from(left) && x < f64::from(right) && y > f64::from(top) && y < f64::from(bottom)
    })
}

/// The KV-edge note ("← infeasible: KV cache full beyond C = …") runs across no curve on the
/// page's default chart (`first_screen::draw_chart`, drawn by the page's own SVG writer, which
/// lays text out as the page does: technique ladder, expected-error band) at the explorer's
/// size on a 1280 px window (614 × 461 CSS px) and larger. Its place by the x axis lies across
/// the frontier there, and it used to stop rising after six steps, still across it.
#[test]
fn the_kv_edge_note_crosses_no_curve() {
    let state = State::from_view(share::start_view("", None).view);
    let view = state.view.as_ref().expect("the default view");
    let mut notes = 0;
    for size in [(614_u32, 461_u32), (800, 480), (1000, 560), (1280, 560)] {
        let case = format!("{} × {} CSS px", size.0, size.1);
        let mut svg = String::new();
        let (frame, placements) = draw_chart(
            CompactSvg::new(&mut svg, size).into_drawing_area(),
            &state,
            view,
        )
        .expect("draws");
        let note = placements
            .into_iter()
            .flatten()
            .find(|p| p.labelled == Labelled::InfeasibleNote)
            .expect("the default scenario's curve has a KV edge");
        let line = |points: Vec<&CurvePoint>| -> Vec<(f64, f64)> {
            points
                .into_iter()
                .filter_map(|p| pixel_of(&frame, &state.chart, p))
                .collect()
        };
        let mut lines = vec![line(view.curve.points.iter().collect())];
        for other in view.techniques.background.iter().map(OtherCurve::from) {
            lines.push(line(other.curve.points.iter().filter(|p| p.fits).collect()));
        }
        assert!(lines.len() >= 4, "{case}: the technique ladder is drawn");
        for (i, line) in lines.iter().enumerate() {
            for pair in line.windows(2) {
                assert!(
                    !runs_through(&note.text_box, pair[0], pair[1]),
                    "{case}: the note {note:?} runs across curve {i} at {pair:?}"
                );
            }
        }
        notes += 1;
    }
    assert_eq!(notes, 4);
}
