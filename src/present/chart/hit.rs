//! Pointing at the chart: where each curve point lies in the backend pixels of the last draw
//! (the axes and plot area `draw_pareto_part` laid the chart out in, kept in its `Frame`), which
//! point is nearest the pointer, which one an arrow key moves to, and what the tooltip says
//! about a point. Pure, so the page's hover, click and keyboard handling is tested natively;
//! the page shows the tooltip as HTML over the canvas and never redraws the chart for it.

use super::axis::Projection;
use super::pareto::Frame;
use crate::model::{Curve, CurvePoint};
use crate::present::format::{format_cost, format_number};

/// A curve point the pointer or the keys can pick: its index in `Curve::points` and its centre
/// in backend pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub index: usize,
    pub pixel: (f64, f64),
}

/// Where `point` is drawn, in backend pixels; `None` when the axes cannot show it or nothing
/// was plotted. The same map as plotters' (`ln` across the log x axis, linear in plot
/// coordinates on y), to within its rounding to whole pixels.
pub fn pixel_of(frame: &Frame, projection: &Projection, point: &CurvePoint) -> Option<(f64, f64)> {
    let (axes, area) = frame.plot()?;
    let (x, y) = projection.plot(point)?;
    let x_span = (axes.x.end / axes.x.start).ln();
    let y_span = axes.y.end - axes.y.start;
    let fx = (x / axes.x.start).ln() / x_span;
    let fy = (y - axes.y.start) / y_span;
    let pixel = (
        area.left + fx * (area.right - area.left),
        area.bottom + fy * (area.top - area.bottom),
    );
    (pixel.0.is_finite() && pixel.1.is_finite()).then_some(pixel)
}

/// The feasible points of `curve` as drawn, in sweep order (no sort: a sort would link a
/// stable sort's code for one more type into the page).
pub fn targets(curve: &Curve, frame: &Frame, projection: &Projection) -> Vec<Target> {
    curve
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.fits)
        .filter_map(|(index, p)| {
            pixel_of(frame, projection, p).map(|pixel| Target { index, pixel })
        })
        .collect()
}

/// The target nearest `pixel`, if it lies within `reach` pixels.
pub fn nearest(targets: &[Target], pixel: (f64, f64), reach: f64) -> Option<Target> {
    let squared = |t: &Target| {
        let (dx, dy) = (t.pixel.0 - pixel.0, t.pixel.1 - pixel.1);
        dx * dx + dy * dy
    };
    targets
        .iter()
        .filter(|t| squared(t) <= reach * reach)
        .min_by(|a, b| squared(a).total_cmp(&squared(b)))
        .copied()
}

/// The target an arrow key moves to: the sweep neighbour of `from` (a `Curve::points` index)
/// that lies to the right (or left) of it, staying put at the end; without `from` (the first
/// key press), the target at `start` (the current point's index), else the first.
pub fn step(targets: &[Target], from: Option<usize>, start: usize, right: bool) -> Option<Target> {
    let at = |index: usize| targets.iter().position(|t| t.index == index);
    let Some(position) = from.and_then(at) else {
        return at(start)
            .and_then(|p| targets.get(p))
            .or(targets.first())
            .copied();
    };
    let here = targets.get(position)?;
    let beyond = |t: &&Target| {
        if right {
            t.pixel.0 > here.pixel.0
        } else {
            t.pixel.0 < here.pixel.0
        }
    };
    [position.checked_sub(1), position.checked_add(1)]
        .into_iter()
        .flatten()
        .filter_map(|p| targets.get(p))
        .find(beyond)
        .or(Some(here))
        .copied()
}

/// The tooltip of a point: its concurrency, tokens/s per user and per GPU, $/M output and what
/// bounds its step, one line each (`present::format`'s number formats, as the numbers panel
/// writes them).
pub fn tooltip_lines(point: &CurvePoint) -> [String; 5] {
    [
        format!("C = {} in flight", point.concurrency),
        format!("{} tok/s per user", format_number(point.tok_s_per_user)),
        format!(
            "{} output tok/s per GPU",
            format_number(point.output_tok_s_per_gpu)
        ),
        format!(
            "{} per M output tokens",
            format_cost(point.usd_per_m_output)
        ),
        format!("bound by {}", point.bound_label),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;
    use crate::model::{evaluate, sweep};
    use crate::present::chart::{
        draw_pareto_part, ChartOptions, Layers, Marker, Overlay, Part, XAxis, YAxis,
    };
    use crate::scenario::Scenario;
    use plotters::prelude::*;

    /// The default chart drawn to SVG on `projection`: its SVG, curve and frame.
    fn drawn(projection: Projection) -> (String, Curve, Frame) {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let marker = Marker::from(&evaluate(&scenario));
        let layers = Layers {
            projection,
            ..Layers::default()
        };
        let mut svg = String::new();
        let frame = {
            let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
            draw_pareto_part(
                root,
                &curve,
                &marker,
                &Overlay::default(),
                &layers,
                &ChartOptions::default(),
                Part::All,
            )
            .expect("draws")
        };
        (svg, curve, frame)
    }

    /// Centres of the SVG's filled circles of radius `r` (the frontier's dots are 3.5 → 4 px).
    fn circles(svg: &str, r: &str) -> Vec<(f64, f64)> {
        let attr = |line: &str, name: &str| -> Option<f64> {
            let start = line.find(&format!(" {name}=\""))? + name.len() + 3;
            let rest = line.get(start..)?;
            rest.get(..rest.find('"')?)?.parse().ok()
        };
        svg.lines()
            .filter(|l| l.contains("<circle") && l.contains(&format!("r=\"{r}\"")))
            .filter_map(|l| Some((attr(l, "cx")?, attr(l, "cy")?)))
            .collect()
    }

    /// Every frontier dot the chart drew lies where `pixel_of` says, on every axis choice: the
    /// hit-testing uses the drawing's own layout.
    #[test]
    fn pixels_match_the_drawn_points_on_every_axis() {
        for &x in XAxis::ALL {
            for &y in YAxis::ALL {
                let projection = Projection { x, y };
                let (svg, curve, frame) = drawn(projection);
                let dots = circles(&svg, "4");
                let frontier: Vec<&CurvePoint> =
                    curve.points.iter().filter(|p| p.pareto && p.fits).collect();
                assert!(frontier.len() > 10);
                for point in frontier {
                    let (px, py) = pixel_of(&frame, &projection, point).expect("on the chart");
                    assert!(
                        dots.iter()
                            .any(|(cx, cy)| (cx - px).abs() <= 1.5 && (cy - py).abs() <= 1.5),
                        "{x:?} × {y:?}: C = {} at ({px:.1}, {py:.1}) not among the dots",
                        point.concurrency
                    );
                }
            }
        }
    }

    #[test]
    fn the_pointer_picks_the_nearest_point_within_reach() {
        let projection = Projection::default();
        let (_, curve, frame) = drawn(projection);
        let targets = targets(&curve, &frame, &projection);
        assert_eq!(
            targets.len(),
            curve.points.iter().filter(|p| p.fits).count()
        );
        // In sweep order: on the native axes more concurrency lies further left.
        assert!(targets.windows(2).all(|w| w[0].pixel.0 >= w[1].pixel.0));
        let c64 = curve
            .points
            .iter()
            .position(|p| p.concurrency == 64)
            .expect("C = 64 on the grid");
        let at = pixel_of(&frame, &projection, &curve.points[c64]).expect("drawn");
        let near = nearest(&targets, (at.0 + 2.0, at.1 - 3.0), 12.0).expect("a point");
        assert_eq!(near.index, c64);
        assert_eq!(nearest(&targets, (at.0, at.1 - 200.0), 12.0), None);
        assert_eq!(nearest(&targets, at, 12.0).map(|t| t.index), Some(c64));
    }

    #[test]
    fn arrow_keys_walk_the_points_left_to_right_and_stop_at_the_ends() {
        let projection = Projection::default();
        let (_, curve, frame) = drawn(projection);
        let targets = targets(&curve, &frame, &projection);
        let c64 = curve
            .points
            .iter()
            .position(|p| p.concurrency == 64)
            .expect("C = 64");
        // The first press focuses the current point.
        let first = step(&targets, None, c64, true).expect("a target");
        assert_eq!(first.index, c64);
        // On the native axes more concurrency is further left (less interactivity).
        let right = step(&targets, Some(c64), c64, true).expect("a target");
        assert!(right.pixel.0 > first.pixel.0);
        assert!(curve.points[right.index].concurrency < 64);
        let left = step(&targets, Some(c64), c64, false).expect("a target");
        assert!(curve.points[left.index].concurrency > 64);
        let leftmost = targets[targets.len() - 1].index;
        assert_eq!(
            step(&targets, Some(leftmost), c64, false).map(|t| t.index),
            Some(leftmost)
        );
        assert_eq!(step(&[], None, 0, true), None);
        // On the TPOT axis more concurrency lies further right: → still moves right.
        let tpot = Projection {
            x: XAxis::Tpot,
            ..projection
        };
        let (_, curve, frame) = drawn(tpot);
        let targets = super::targets(&curve, &frame, &tpot);
        let here = step(&targets, None, c64, true).expect("a target");
        let right = step(&targets, Some(c64), c64, true).expect("a target");
        assert!(right.pixel.0 > here.pixel.0);
        assert!(curve.points[right.index].concurrency > 64);
    }

    #[test]
    fn the_tooltip_names_concurrency_speeds_cost_and_bound() {
        let scenario = Scenario::default_scenario().expect("default scenario");
        let curve = sweep(&scenario);
        let point = curve
            .points
            .iter()
            .find(|p| p.concurrency == 64)
            .expect("C = 64");
        let lines = tooltip_lines(point);
        assert_eq!(lines[0], "C = 64 in flight");
        assert!(
            lines[1].ends_with("tok/s per user")
                && lines[1].contains(&format_number(point.tok_s_per_user))
        );
        assert!(lines[2].contains(&format_number(point.output_tok_s_per_gpu)));
        assert!(lines[3].starts_with('$'), "{}", lines[3]);
        assert_eq!(lines[4], format!("bound by {}", point.bound_label));
    }
}
