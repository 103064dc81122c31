//! The throughput–latency curve: sweep concurrency from 1 to the engine limit, filter the Pareto
//! frontier, find the knee, and map the log-scale batch-size slider to a concurrency.
//!
//! MODEL.md §4.5: x = tokens/s per user, y = output tokens/s per GPU; Pareto filter = sort by x
//! descending and keep a point only if its y exceeds the running maximum.

use super::evaluate::{evaluate_in, SteadyMemo};
use super::expected_error::{regime, Regime};
use super::grid::concurrency_grid;
use super::operating_point::OperatingPoint;
use crate::scenario::Scenario;
use serde::Serialize;

/// Slider positions: `0..=SLIDER_STEPS` map log-uniformly onto `1..=limit`.
pub const SLIDER_STEPS: u32 = 1000;

/// Concurrency for a slider position: `round(limit^(position/SLIDER_STEPS))`.
pub fn slider_to_concurrency(position: u32, limit: u32) -> u32 {
    let limit = f64::from(limit.max(1));
    let fraction = f64::from(position.min(SLIDER_STEPS)) / f64::from(SLIDER_STEPS);
    let value = limit.powf(fraction).round();
    value.clamp(1.0, limit) as u32
}

/// The slider position whose concurrency is closest to `concurrency` (inverse of the above).
pub fn concurrency_to_slider(concurrency: u32, limit: u32) -> u32 {
    let limit = f64::from(limit.max(1));
    if limit <= 1.0 {
        return 0;
    }
    let fraction = f64::from(concurrency.max(1)).ln() / limit.ln();
    (fraction * f64::from(SLIDER_STEPS))
        .round()
        .clamp(0.0, f64::from(SLIDER_STEPS)) as u32
}

/// Arrow presses per doubling of the batch size, away from 1 (where each press is the next
/// whole number): 8, so a press moves by 2^(1/8) ≈ 9 %.
pub const ARROW_PRESSES_PER_DOUBLING: f64 = 8.0;

/// The slider position one arrow press moves to from `position` (`up`: ArrowRight/ArrowUp), for
/// a track ending at `limit`: the first position whose batch size reaches the next visible step
/// (the next whole number near 1, `ARROW_PRESSES_PER_DOUBLING` presses per doubling higher up),
/// or going down the last position whose batch size is at or below the step below. So every
/// press changes the batch size shown, until the end of the track (where it stays). The track's
/// own step is 1/1000 of the log range: about 83 presses per doubling for a limit of 4,096.
pub fn arrow_position(position: u32, limit: u32, up: bool) -> u32 {
    let position = position.min(SLIDER_STEPS);
    let current = f64::from(slider_to_concurrency(position, limit));
    let factor = ARROW_PRESSES_PER_DOUBLING.recip().exp2();
    let at = |p: u32| f64::from(slider_to_concurrency(p, limit));
    if up {
        if current >= f64::from(limit) {
            return SLIDER_STEPS;
        }
        let target = (current * factor).round().max(current + 1.0);
        (position.saturating_add(1)..=SLIDER_STEPS)
            .find(|&p| at(p) >= target)
            .unwrap_or(SLIDER_STEPS)
    } else {
        if current <= 1.0 {
            return 0;
        }
        let target = (current / factor).round().min(current - 1.0).max(1.0);
        (0..position).rev().find(|&p| at(p) <= target).unwrap_or(0)
    }
}

/// One point of the curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    pub concurrency: u32,
    pub tok_s_per_user: f64,
    pub output_tok_s_per_gpu: f64,
    pub output_tok_s: f64,
    pub tpot_ms: f64,
    pub ttft_ms: f64,
    /// `None` without a price per GPU-hour.
    pub usd_per_m_output: Option<f64>,
    pub fits: bool,
    pub bound_label: &'static str,
    /// Latency-bound, throughput-bound or saturated (`expected_error::regime`): which class
    /// error the chart's band uses here.
    pub regime: Regime,
    /// On the Pareto frontier of the feasible points.
    pub pareto: bool,
}

impl CurvePoint {
    fn from_point(point: &OperatingPoint) -> CurvePoint {
        CurvePoint {
            concurrency: point.concurrency,
            tok_s_per_user: point.tok_s_per_user,
            output_tok_s_per_gpu: point.output_tok_s_per_gpu,
            output_tok_s: point.output_tok_s,
            tpot_ms: point.tpot_ms,
            ttft_ms: point.ttft_ms,
            usd_per_m_output: point.usd_per_m_output,
            fits: point.fits,
            bound_label: point.bound_label,
            regime: regime(point),
            pareto: false,
        }
    }
}

/// The swept curve with its frontier and knee.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    pub points: Vec<CurvePoint>,
    /// Index into `points` of the knee (`knee`: the first frontier point at 80 % of the peak
    /// throughput), if any feasible point.
    pub knee: Option<usize>,
}

/// Evaluate the scenario at every grid concurrency, mark the Pareto frontier and the knee. The
/// grid includes the KV capacity of the scenario's batching (paged, or static reservations), so
/// the curve's last feasible point is the capacity itself.
///
/// One copy of the scenario is moved along the grid (`at_concurrency`) instead of a fresh
/// `Scenario::with_concurrency` clone per point: the clone (model, GPU, input strings) was about
/// a quarter of a sweep's time, and the page sweeps four curves before its first chart.
pub fn sweep(scenario: &Scenario) -> Curve {
    sweep_in(scenario, &mut SteadyMemo::default())
}

/// `sweep` keeping the batch steady states in `memo`, for a caller that evaluates the same
/// scenario again at other concurrencies (the page's slider: `evaluate_in` with the same memo).
pub fn sweep_in(scenario: &Scenario, memo: &mut SteadyMemo) -> Curve {
    let mut at = scenario.clone();
    let mut points: Vec<CurvePoint> = concurrency_grid(scenario, scenario.batching)
        .into_iter()
        .map(|c| {
            at_concurrency(&mut at, c);
            CurvePoint::from_point(&evaluate_in(&at, memo))
        })
        .collect();
    mark_pareto(&mut points);
    let knee = knee(&points);
    Curve { points, knee }
}

/// Move `scenario` to `concurrency` in place, exactly as `Scenario::with_concurrency` does for
/// a copy (nothing else depends on the concurrency).
fn at_concurrency(scenario: &mut Scenario, concurrency: u32) {
    scenario.concurrency = concurrency.max(1);
    scenario.input.concurrency = f64::from(scenario.concurrency);
}

/// MODEL.md §4.5 step 3: sort feasible points by x descending; keep those whose y beats the
/// running maximum.
pub fn mark_pareto(points: &mut [CurvePoint]) {
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| points.get(i).is_some_and(|p| p.fits))
        .collect();
    let x = |i: usize| points.get(i).map_or(0.0, |p| p.tok_s_per_user);
    crate::model::grid::sort_small(&mut order, |&a, &b| x(a) > x(b));
    let mut best = f64::NEG_INFINITY;
    for index in order {
        if let Some(point) = points.get_mut(index) {
            if point.output_tok_s_per_gpu > best {
                best = point.output_tok_s_per_gpu;
                point.pareto = true;
            }
        }
    }
}

/// The knee's threshold: the share of the curve's peak throughput it reaches.
pub const KNEE_SHARE_OF_PEAK: f64 = 0.8;

/// The knee: the lowest-concurrency point of the Pareto frontier whose output tokens/s per GPU
/// reaches `KNEE_SHARE_OF_PEAK` (80 %) of the curve's peak (its highest feasible throughput).
/// Past it the last fifth of the throughput costs the most interactivity: the "knee capacity"
/// of a throughput curve (Jain, *The Art of Computer Systems Performance Analysis*, 1991,
/// §3.3), located by a threshold of the peak rather than by the curve's shape.
///
/// Why not the shape: Kneedle (Satopää et al. 2011) on log-interactivity against throughput,
/// used until issue 15, and the point of maximal power (throughput × interactivity, Kleinrock
/// 1979) both take the best of several local optima. On MoE curves, whose interactivity falls
/// fast while more experts load and whose throughput then keeps rising, they jumped between a
/// first bend at C = 2–8 and a second one in the hundreds from one GPU to the next. Throughput
/// rises along the frontier, so the first point above a share of its peak is unique and moves
/// with the inputs continuously. The glossary's `KNEE` says the same in words.
pub fn knee(points: &[CurvePoint]) -> Option<usize> {
    let peak = points
        .iter()
        .filter(|p| p.fits && p.output_tok_s_per_gpu.is_finite())
        .map(|p| p.output_tok_s_per_gpu)
        .reduce(f64::max)?;
    points
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.pareto
                && p.tok_s_per_user > 0.0
                && p.output_tok_s_per_gpu >= KNEE_SHARE_OF_PEAK * peak
        })
        .min_by_key(|(_, p)| p.concurrency)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate::evaluate;

    #[test]
    fn slider_round_trips_and_spans_the_range() {
        assert_eq!(slider_to_concurrency(0, 1024), 1);
        assert_eq!(slider_to_concurrency(SLIDER_STEPS, 1024), 1024);
        for c in [1, 2, 7, 64, 300, 1024] {
            let back = slider_to_concurrency(concurrency_to_slider(c, 1024), 1024);
            assert!(
                (f64::from(back) / f64::from(c) - 1.0).abs() < 0.01,
                "{c} -> {back}"
            );
        }
    }

    /// Every arrow press changes the batch size: +1 near 1 (1 → 2 in one press, not ~83), about
    /// 9 % higher up; down mirrors it; the ends stay put.
    #[test]
    fn arrow_presses_step_the_batch_size_visibly_at_every_size() {
        for limit in [2, 16, 256, 1024, 4096, 65_536] {
            let mut position = 0;
            let mut seen = vec![1];
            while slider_to_concurrency(position, limit) < limit {
                position = arrow_position(position, limit, true);
                seen.push(slider_to_concurrency(position, limit));
                assert!(seen.len() < 200, "limit {limit}: {seen:?}");
            }
            assert!(seen.windows(2).all(|w| w[1] > w[0]), "{limit}: {seen:?}");
            assert_eq!(seen.get(1), Some(&2), "{limit}: one press from 1 to 2");
            // Near 1 every whole number; above, a fixed fraction of a doubling (up to the
            // track's own resolution, one position = limit^(1/1000)).
            let track = f64::from(limit).powf(1.0 / f64::from(SLIDER_STEPS));
            for w in seen.windows(2) {
                let (a, b) = (f64::from(w[0]), f64::from(w[1]));
                assert!(
                    b == a + 1.0 || b <= (a * 2f64.powf(1.0 / 8.0) * track).round() + 1.0,
                    "{limit}: {a} -> {b}"
                );
            }
            let doublings = f64::from(limit).log2();
            let most = (ARROW_PRESSES_PER_DOUBLING * doublings).ceil() as usize + 1;
            assert!(
                seen.len() <= most,
                "{limit}: {} presses > {most}",
                seen.len() - 1
            );
            assert_eq!(arrow_position(SLIDER_STEPS, limit, true), SLIDER_STEPS);
            // And back down, every press smaller, to 1.
            let mut down = vec![limit];
            while slider_to_concurrency(position, limit) > 1 {
                position = arrow_position(position, limit, false);
                down.push(slider_to_concurrency(position, limit));
                assert!(down.len() < 200, "limit {limit}: {down:?}");
            }
            assert!(down.windows(2).all(|w| w[1] < w[0]), "{limit}: {down:?}");
            assert_eq!(down.last(), Some(&1));
            assert_eq!(
                arrow_position(position, limit, false),
                0,
                "from 1 to the start"
            );
            assert_eq!(arrow_position(0, limit, false), 0);
        }
        // A press from any position changes the batch size (the track's step alone does not).
        for position in 0..SLIDER_STEPS {
            let c = slider_to_concurrency(position, 4096);
            assert!(slider_to_concurrency(arrow_position(position, 4096, true), 4096) > c);
            if c > 1 {
                assert!(slider_to_concurrency(arrow_position(position, 4096, false), 4096) < c);
            }
        }
        assert_eq!(
            slider_to_concurrency(1, 4096),
            1,
            "the track's own step near 1"
        );
    }

    /// The sweep's in-place moves give what a fresh `with_concurrency` copy gives at every point,
    /// for both batching policies.
    #[test]
    fn sweep_points_match_fresh_evaluations() {
        let continuous = Scenario::default_scenario().expect("valid");
        let input = crate::scenario::ScenarioInput {
            batching: crate::scenario::Batching::Static,
            ..continuous.input.clone()
        };
        let fixed = Scenario::try_from(input).expect("valid");
        for scenario in [continuous, fixed] {
            let curve = sweep(&scenario);
            let grid = concurrency_grid(&scenario, scenario.batching);
            assert_eq!(curve.points.len(), grid.len());
            for (point, c) in curve.points.iter().zip(grid) {
                let mut fresh = CurvePoint::from_point(&evaluate(&scenario.with_concurrency(c)));
                fresh.pareto = point.pareto;
                assert_eq!(point, &fresh, "concurrency {c}");
            }
        }
    }

    #[test]
    fn default_curve_has_frontier_knee_and_infeasible_tail() {
        let scenario = Scenario::default_scenario().expect("valid");
        let curve = sweep(&scenario);
        assert!(curve.points.len() > 20);
        assert!(curve.points.iter().any(|p| p.pareto));
        assert!(curve.knee.is_some());
        // Frontier: as interactivity falls, throughput per GPU rises.
        let mut frontier: Vec<&CurvePoint> = curve.points.iter().filter(|p| p.pareto).collect();
        frontier.sort_by(|a, b| b.tok_s_per_user.total_cmp(&a.tok_s_per_user));
        for pair in frontier.windows(2) {
            assert!(pair[1].output_tok_s_per_gpu > pair[0].output_tok_s_per_gpu);
        }
    }

    /// The knee is one robust point for every catalog GPU that fits the default model: a
    /// feasible frontier point inside the curve (neither its first point nor its end), the first
    /// to reach 80 % of the peak throughput (issue 15 §2: Kneedle put it at C = 2–8 on some GPUs
    /// and in the hundreds on others).
    #[test]
    fn the_knee_is_inside_the_curve_on_every_gpu_that_fits_the_default_model() {
        let catalog = crate::catalog::catalog().expect("catalog");
        let mut checked = 0;
        for gpu in &catalog.gpus {
            let Ok(scenario) = Scenario::try_from(crate::scenario::ScenarioInput {
                gpu: gpu.id.clone(),
                ..crate::scenario::ScenarioInput::default()
            }) else {
                continue;
            };
            let curve = sweep(&scenario);
            let index = curve.knee.unwrap_or_else(|| panic!("{}: a knee", gpu.id));
            let knee = &curve.points[index];
            let feasible: Vec<&CurvePoint> = curve.points.iter().filter(|p| p.fits).collect();
            let peak = feasible
                .iter()
                .map(|p| p.output_tok_s_per_gpu)
                .fold(0.0, f64::max);
            let (first, last) = (
                feasible[0].concurrency,
                feasible[feasible.len() - 1].concurrency,
            );
            assert!(knee.fits && knee.pareto, "{}: on the frontier", gpu.id);
            assert!(
                knee.concurrency > first && knee.concurrency < last,
                "{}: knee C = {} inside {first}..{last}",
                gpu.id,
                knee.concurrency
            );
            assert!(knee.output_tok_s_per_gpu >= KNEE_SHARE_OF_PEAK * peak);
            assert!(
                curve
                    .points
                    .iter()
                    .filter(|p| p.pareto && p.concurrency < knee.concurrency)
                    .all(|p| p.output_tok_s_per_gpu < KNEE_SHARE_OF_PEAK * peak),
                "{}: the first frontier point past the threshold",
                gpu.id
            );
            checked += 1;
        }
        assert!(checked >= 10, "{checked} GPUs fit the default model");
    }

    /// The same MoE model on GPUs of one family gets knees of one order of magnitude (Kneedle
    /// gave gpt-oss-120b C = 4 on an H100 SXM and C = 724 on an A100).
    #[test]
    fn moe_knees_do_not_jump_between_similar_gpus() {
        let knee_of = |gpu: &str| {
            let scenario = Scenario::try_from(crate::scenario::ScenarioInput {
                model: "gpt-oss-120b".into(),
                gpu: gpu.into(),
                ..crate::scenario::ScenarioInput::default()
            })
            .expect("fits");
            let curve = sweep(&scenario);
            curve
                .knee
                .map(|i| curve.points[i].concurrency)
                .expect("a knee")
        };
        let knees: Vec<u32> = ["a100-sxm-80gb", "h100-sxm", "h100-pcie", "h800"]
            .into_iter()
            .map(knee_of)
            .collect();
        let (low, high) = (
            knees.iter().copied().min().unwrap_or(0),
            knees.iter().copied().max().unwrap_or(0),
        );
        assert!(low >= 64 && high <= 4 * low, "{knees:?}");
    }
}
