//! The simulator's standard benchmark, defined once for the two places that time it: the native
//! `simbench` binary and the page's hidden `__servecostSimBench` hook (`ui::platform::bench_hook`);
//! `scripts/bench` prints both, so they must run the same thing. The scenario is
//! `ScenarioInput::small_reference()` (Llama-3.1-8B BF16 on one H100 SXM) with chat lengths;
//! each run samples 10,000 requests with seed 1 (MODEL.md §6.6 budget: well under 100 ms
//! natively), either Poisson arrivals at 80 % of the analytic capacity or a closed loop at
//! concurrency 64. This module only builds the runs; the callers own the clock.

use super::load::analytic_capacity_per_s;
use super::{Arrivals, SimConfig};
use crate::scenario::{Scenario, ScenarioInput};

/// Requests each standard run samples.
pub const BENCH_REQUESTS: u32 = 10_000;
/// The seed of every standard run.
pub const BENCH_SEED: u64 = 1;
/// The open-loop run's rate, as a fraction of the analytic capacity.
pub const BENCH_LOAD_FRACTION: f64 = 0.8;
/// Requests in flight in the closed-loop run.
pub const BENCH_CONCURRENCY: u32 = 64;

/// One of the two standard runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchRun {
    /// Poisson arrivals at `BENCH_LOAD_FRACTION` of the analytic capacity.
    Poisson,
    /// A closed loop at `BENCH_CONCURRENCY`.
    Closed,
}

impl BenchRun {
    pub const ALL: [BenchRun; 2] = [BenchRun::Poisson, BenchRun::Closed];

    /// The run's name, as `scripts/bench` and the browser hook spell it.
    pub fn id(self) -> &'static str {
        match self {
            BenchRun::Poisson => "poisson",
            BenchRun::Closed => "closed",
        }
    }

    pub fn parse(id: &str) -> Option<BenchRun> {
        BenchRun::ALL.into_iter().find(|run| run.id() == id)
    }
}

/// The benchmark's scenario and the analytic capacity its open-loop rate is taken from.
#[derive(Debug, Clone)]
pub struct StandardBench {
    pub scenario: Scenario,
    /// `λ_max`, requests/s (`load::analytic_capacity_per_s`).
    pub capacity_per_s: f64,
}

impl StandardBench {
    /// Build the scenario; an error only if the catalog lost the reference model or GPU.
    pub fn new() -> Result<StandardBench, String> {
        let mut input = ScenarioInput::small_reference();
        input.apply_workload_preset("chat")?;
        let scenario = Scenario::try_from(input).map_err(|e| e.to_string())?;
        let capacity_per_s = analytic_capacity_per_s(&scenario);
        Ok(StandardBench {
            scenario,
            capacity_per_s,
        })
    }

    /// The configuration of one standard run.
    pub fn config(&self, run: BenchRun) -> SimConfig {
        let arrivals = match run {
            BenchRun::Poisson => Arrivals::Poisson {
                rate_per_s: BENCH_LOAD_FRACTION * self.capacity_per_s,
            },
            BenchRun::Closed => Arrivals::Closed {
                concurrency: BENCH_CONCURRENCY,
            },
        };
        SimConfig {
            arrivals,
            requests: BENCH_REQUESTS,
            seed: BENCH_SEED,
            ..SimConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulate;

    #[test]
    fn run_names_read_back() {
        for run in BenchRun::ALL {
            assert_eq!(BenchRun::parse(run.id()), Some(run));
        }
        assert_eq!(BenchRun::parse("bursty"), None);
    }

    /// Both standard runs serve every request without hitting a bound, and the open loop is
    /// offered 80 % of the analytic capacity (so it does not saturate).
    #[test]
    fn standard_runs_complete() {
        let bench = StandardBench::new().expect("reference scenario");
        assert!(bench.capacity_per_s > 1.0, "{}", bench.capacity_per_s);
        for run in BenchRun::ALL {
            let result = simulate(&bench.scenario, &bench.config(run)).expect("valid config");
            assert_eq!(result.truncated, None, "{run:?}");
            assert_eq!(result.completed, BENCH_REQUESTS, "{run:?}");
        }
    }
}
