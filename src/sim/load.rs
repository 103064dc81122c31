//! Latency against load: the open-loop rate sweep behind the page's latency-vs-load chart
//! (MODEL.md §4.5 step 5: "sweep λ; plot P50/P99 TTFT and TPOT; the vertical asymptote is
//! λ_max"), and the closed-loop run at the slider's concurrency that supplies the page's
//! P95/P99 numbers (§6.5).
//!
//! The rates run from 10 % to 110 % of the analytic capacity `λ_max` (the max-throughput
//! operating point's requests/s, §4.2), so the sweep crosses saturation whether the analytic
//! model is optimistic or pessimistic there. Every run uses the same seed, so a rate sweep moves
//! every arrival by the same factor (common random numbers, `workload`) and curves do not jitter.
//!
//! Each run is independent: the page runs one per browser tick (`simulate_load_point`) and never
//! the whole sweep at once; `latency_vs_load` is the same sweep in one call, for tests and tools.

use super::{simulate, Arrivals, LatencySummary, SimConfig, SimConfigError, SimResult, Truncation};
use crate::model::evaluate;
use crate::scenario::Scenario;
use serde::Serialize;

/// Rates in a sweep.
pub const LOAD_POINTS: usize = 8;
/// The sweep's first and last rate, as fractions of the analytic capacity.
pub const LOAD_FROM_FRACTION: f64 = 0.1;
pub const LOAD_TO_FRACTION: f64 = 1.1;
/// Requests per open-loop run: enough for a P99 from ~1000 measured requests, small enough for
/// a few milliseconds per run (MODEL.md §6.6).
pub const LOAD_REQUESTS: u32 = 1500;
/// The closed-loop run samples `3 × C` requests, within these bounds (at least 2000 as MODEL.md
/// §6.6 suggests; at most 16,000 so one run stays short in the browser). Three rounds of the
/// loop: with fewer requests than `C` every request starts at once and the run measures the
/// first burst, not a steady state (issue 26 §4: DeepSeek-R1 DEP 8 at 4,096 in flight read a
/// 320 ms TTFT from 4,000 requests that all arrived at t = 0).
pub const OPERATING_REQUESTS_MIN: u32 = 2000;
pub const OPERATING_REQUESTS_MAX: u32 = 16_000;
/// Scheduler passes allowed per run (MODEL.md §6.6 caps a point at 10⁵ iterations; a macro-step
/// covers many iterations, so this bounds the run's time, not its accuracy).
pub const RUN_MAX_EVENTS: u64 = 200_000;
/// One fixed seed for every run the page shows.
pub const SEED: u64 = 1;
/// A run is saturated when it completes requests at less than this fraction of the rate at which
/// they arrived (both inside its measurement window).
pub const SATURATED_BELOW: f64 = 0.95;

/// `λ_max`: requests/s at the max-throughput operating point of the analytic model.
pub fn analytic_capacity_per_s(scenario: &Scenario) -> f64 {
    evaluate(&scenario.with_concurrency(crate::model::capacity::max_feasible(scenario)))
        .requests_per_s
}

/// `points` rates spaced evenly from 10 % to 110 % of `capacity_per_s`; empty when the capacity
/// is not a positive number.
pub fn load_rates(capacity_per_s: f64, points: usize) -> Vec<f64> {
    if !(capacity_per_s.is_finite() && capacity_per_s > 0.0) || points == 0 {
        return Vec::new();
    }
    let step = if points > 1 {
        (LOAD_TO_FRACTION - LOAD_FROM_FRACTION) / (points - 1) as f64
    } else {
        0.0
    };
    (0..points)
        .map(|i| capacity_per_s * (LOAD_FROM_FRACTION + step * i as f64))
        .collect()
}

/// The open-loop run at `rate_per_s` (Poisson arrivals).
pub fn load_config(rate_per_s: f64) -> SimConfig {
    SimConfig {
        arrivals: Arrivals::Poisson { rate_per_s },
        requests: LOAD_REQUESTS,
        seed: SEED,
        max_events: RUN_MAX_EVENTS,
        ..SimConfig::default()
    }
}

/// The closed-loop run at `concurrency` requests in flight (the slider's operating point).
pub fn operating_point_config(concurrency: u32) -> SimConfig {
    SimConfig {
        arrivals: Arrivals::Closed {
            concurrency: concurrency.max(1),
        },
        requests: concurrency
            .saturating_mul(3)
            .clamp(OPERATING_REQUESTS_MIN, OPERATING_REQUESTS_MAX),
        seed: SEED,
        max_events: RUN_MAX_EVENTS,
        ..SimConfig::default()
    }
}

/// Simulate the scenario at its own concurrency, closed loop.
pub fn simulate_operating_point(scenario: &Scenario) -> Result<SimResult, SimConfigError> {
    simulate(scenario, &operating_point_config(scenario.concurrency))
}

/// What the latency-vs-load chart needs from one open-loop run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LoadPoint {
    /// Offered rate.
    pub rate_per_s: f64,
    /// Completed requests/s in the measurement window.
    pub achieved_per_s: f64,
    /// Requests/s that arrived in the measurement window (`SimResult::arrivals_per_s`): the
    /// run's own rate, which with bursty arrivals strays from the offered one; 0 when the
    /// window holds no arrival.
    pub arrivals_per_s: f64,
    pub output_tok_s: f64,
    pub ttft: LatencySummary,
    pub tpot: LatencySummary,
    pub preemptions: u64,
    pub low_confidence: bool,
    pub truncated: Option<Truncation>,
}

impl LoadPoint {
    pub fn from_result(rate_per_s: f64, result: &SimResult) -> LoadPoint {
        LoadPoint {
            rate_per_s,
            achieved_per_s: result.requests_per_s,
            arrivals_per_s: result.arrivals_per_s,
            output_tok_s: result.output_tok_s,
            ttft: result.ttft,
            tpot: result.tpot,
            preemptions: result.preemptions,
            low_confidence: result.low_confidence,
            truncated: result.truncated,
        }
    }

    /// The engine fell behind: inside the measurement window requests complete clearly slower
    /// (under `SATURATED_BELOW`) than they arrive, so the queue (and TTFT) grows for as long as
    /// the run lasts. The arrivals are the run's own, counted in the same window: with bursty
    /// (Gamma, CV > 1) arrivals a finite run's rate strays from the offered one by about
    /// `CV/√n` (`n·k` Gamma gaps of shape `k = 1/CV²` sum to shape `n·k`), so a run that keeps
    /// up with arrivals that came in a lull would look saturated against the offered rate even
    /// at 10 % of capacity. The offered rate stands in only when the window holds no arrival (a
    /// run too short for a steady state, measured to its end).
    pub fn saturated(&self) -> bool {
        let arrived = if self.arrivals_per_s.is_finite() && self.arrivals_per_s > 0.0 {
            self.arrivals_per_s
        } else {
            self.rate_per_s
        };
        self.achieved_per_s < SATURATED_BELOW * arrived
    }
}

/// Simulate one rate of the sweep.
pub fn simulate_load_point(
    scenario: &Scenario,
    rate_per_s: f64,
) -> Result<LoadPoint, SimConfigError> {
    simulate(scenario, &load_config(rate_per_s)).map(|r| LoadPoint::from_result(rate_per_s, &r))
}

/// A finished (or partly finished) sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadCurve {
    /// The analytic `λ_max` the rates were chosen from.
    pub capacity_per_s: f64,
    /// In increasing rate.
    pub points: Vec<LoadPoint>,
}

impl LoadCurve {
    /// Where the simulated engine saturates: the most requests/s any run completed (each run's
    /// count capped at its own arrivals, so a run that drained a burst never reads above the
    /// sweep's rates: issue 26 §4, one saturation point), if some run was saturated (otherwise
    /// the sweep never reached the engine's limit).
    pub fn saturation_per_s(&self) -> Option<f64> {
        saturation_per_s(&self.points)
    }
}

/// See `LoadCurve::saturation_per_s`.
pub fn saturation_per_s(points: &[LoadPoint]) -> Option<f64> {
    if !points.iter().any(LoadPoint::saturated) {
        return None;
    }
    points
        .iter()
        .map(|p| {
            let arrived = if p.arrivals_per_s.is_finite() && p.arrivals_per_s > 0.0 {
                p.arrivals_per_s
            } else {
                p.rate_per_s
            };
            p.achieved_per_s.min(arrived.max(p.rate_per_s))
        })
        .filter(|r| r.is_finite())
        .reduce(f64::max)
}

/// The whole sweep in one call: `LOAD_POINTS` rates from 10 % to 110 % of `λ_max`.
pub fn latency_vs_load(scenario: &Scenario) -> Result<LoadCurve, SimConfigError> {
    let capacity_per_s = analytic_capacity_per_s(scenario);
    let points = load_rates(capacity_per_s, LOAD_POINTS)
        .into_iter()
        .map(|rate| simulate_load_point(scenario, rate))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LoadCurve {
        capacity_per_s,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;

    fn chat_8b() -> Scenario {
        Scenario::try_from(ScenarioInput::small_reference()).expect("valid")
    }

    #[test]
    fn rates_span_ten_to_a_hundred_and_ten_percent() {
        let rates = load_rates(20.0, LOAD_POINTS);
        assert_eq!(rates.len(), LOAD_POINTS);
        assert!((rates[0] - 2.0).abs() < 1e-9);
        assert!((rates[LOAD_POINTS - 1] - 22.0).abs() < 1e-9);
        assert!(rates.windows(2).all(|w| w[1] > w[0]));
        assert!(load_rates(0.0, 8).is_empty());
        assert!(load_rates(f64::NAN, 8).is_empty());
        assert_eq!(load_rates(10.0, 1), vec![1.0]);
    }

    #[test]
    fn the_operating_point_run_is_closed_loop_and_bounded() {
        let small = operating_point_config(1);
        assert_eq!(small.arrivals, Arrivals::Closed { concurrency: 1 });
        assert_eq!(small.requests, OPERATING_REQUESTS_MIN);
        assert_eq!(
            operating_point_config(100_000).requests,
            OPERATING_REQUESTS_MAX
        );
        assert!(small.check().is_ok() && load_config(3.0).check().is_ok());
        let result = simulate_operating_point(&chat_8b().with_concurrency(32)).expect("runs");
        assert!(result.tpot.p99_ms >= result.tpot.p50_ms && result.tpot.p50_ms > 0.0);
        assert!(result.truncated.is_none());
    }

    /// MODEL.md §6.7: open-loop throughput plateaus near the capacity and TTFT grows steeply
    /// as the offered rate approaches it; TPOT rises with load.
    #[test]
    fn latency_rises_with_load_and_the_engine_saturates() {
        let scenario = chat_8b();
        let curve = latency_vs_load(&scenario).expect("runs");
        assert_eq!(curve.points.len(), LOAD_POINTS);
        assert!(curve.capacity_per_s > 1.0, "{}", curve.capacity_per_s);
        let (first, last) = (curve.points[0], curve.points[LOAD_POINTS - 1]);
        assert!(!first.saturated(), "10 % load keeps up: {first:?}");
        assert!(last.ttft.p50_ms > 3.0 * first.ttft.p50_ms);
        assert!(last.tpot.p50_ms > first.tpot.p50_ms);
        for p in &curve.points {
            assert!(p.ttft.p99_ms >= p.ttft.p95_ms && p.ttft.p95_ms >= p.ttft.p50_ms);
        }
        let saturation = curve.saturation_per_s().expect("110 % of λ_max saturates");
        assert!(
            saturation < last.rate_per_s && saturation > 0.5 * curve.capacity_per_s,
            "{saturation} vs λ_max {}",
            curve.capacity_per_s
        );
        // Deterministic: the same sweep again gives the same numbers.
        assert_eq!(latency_vs_load(&scenario).expect("runs"), curve);
    }

    #[test]
    fn no_saturated_run_means_no_saturation_rate() {
        let scenario = chat_8b();
        let light = simulate_load_point(&scenario, 1.0).expect("runs");
        assert!(!light.saturated());
        assert_eq!(saturation_per_s(&[light]), None);
        assert_eq!(saturation_per_s(&[]), None);
    }

    /// Bursty arrivals (Gamma gaps, CV 4) at 10 % of capacity: the engine keeps up, although a
    /// run's own arrival rate strays from the offered one (±`4/√n`; this sample's window comes
    /// in ~7 % below it), which compared with the offered rate read as falling behind. The
    /// realized rate is what the run reports, and a Poisson run's is near the offered one.
    #[test]
    fn a_bursty_open_loop_at_a_tenth_of_capacity_keeps_up() {
        let scenario = chat_8b();
        let rate_per_s = LOAD_FROM_FRACTION * analytic_capacity_per_s(&scenario);
        let config = SimConfig {
            arrivals: Arrivals::Gamma {
                rate_per_s,
                cv: 4.0,
            },
            requests: 12_000,
            ..load_config(rate_per_s)
        };
        let result = simulate(&scenario, &config).expect("runs");
        let point = LoadPoint::from_result(rate_per_s, &result);
        println!(
            "offered {rate_per_s:.3}/s, arrived {:.3}/s, completed {:.3}/s",
            point.arrivals_per_s, point.achieved_per_s
        );
        assert!(!point.saturated(), "{point:?}");
        assert!(
            point.arrivals_per_s > 0.0
                && (point.achieved_per_s / point.arrivals_per_s - 1.0).abs() < 0.02
        );
        let poisson = simulate_load_point(&scenario, rate_per_s).expect("runs");
        assert!(
            (poisson.arrivals_per_s / rate_per_s - 1.0).abs() < 0.1,
            "{poisson:?}"
        );
        // With no arrival in its window a run is judged against the offered rate.
        let empty = LoadPoint {
            arrivals_per_s: 0.0,
            achieved_per_s: 0.9 * rate_per_s,
            ..point
        };
        assert!(empty.saturated());
    }

    /// The disaggregated simulator reports its window's arrivals too and closes an open loop's
    /// window at the last arrival, so its sweep keeps up at light load and falls behind past
    /// capacity as the aggregated one does.
    #[test]
    fn a_disaggregated_sweep_saturates() {
        let scenario = Scenario::try_from(ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu: "h100-sxm".into(),
            gpu_count: 2.0,
            precision: crate::physics::precision::Precision::Bf16,
            serving: crate::scenario::pools::Serving::Disaggregated,
            prefill_gpus: Some(1.0),
            prefill_tp: Some(1.0),
            decode_gpus: Some(1.0),
            decode_tp: Some(1.0),
            ..ScenarioInput::small_reference()
        })
        .expect("valid");
        assert!(scenario.pools.is_some());
        let curve = latency_vs_load(&scenario).expect("runs");
        let first = curve.points[0];
        println!(
            "{:?}",
            curve
                .points
                .iter()
                .map(|p| (p.rate_per_s, p.arrivals_per_s, p.achieved_per_s))
                .collect::<Vec<_>>()
        );
        assert!(!first.saturated(), "{first:?}");
        assert!(
            (first.arrivals_per_s / first.rate_per_s - 1.0).abs() < 0.1,
            "{first:?}"
        );
        assert!(curve.saturation_per_s().is_some(), "{curve:?}");
    }
}
