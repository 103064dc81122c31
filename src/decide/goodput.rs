//! Goodput on the page (issue 26 §8): how many requests meet the SLO, from the simulator. Two
//! figures per configuration, named as vLLM names its objectives (`vllm bench serve --goodput
//! ttft:500 tpot:40 [e2el:…]`, each a bound in ms; `request_goodput` is the rate of requests
//! meeting every bound: vllm/benchmarks/serve.py, `BenchmarkMetrics.request_goodput`):
//! - **SLO attainment**: the share of requests whose TTFT ≤ `ttft_ms` and TPOT ≤ `tpot_ms`, in a
//!   run of the configuration under Poisson arrivals at a given rate (the user's traffic);
//! - **max req/s under the SLO**: the highest Poisson rate at which the attainment stays at the
//!   SLO's percentile (P90: 90 % of requests meet both bounds), DistServe's goodput (Zhong et
//!   al., OSDI '24, §2.2: "the maximum request rate that can be served adhering to the SLO
//!   attainment goal"), found by bisection in the simulator.
//!
//! A configuration with several replicas shares the load evenly (each replica its share), so its
//! rate is one replica's times the replicas; a disaggregated unit is run whole.

use crate::scenario::Scenario;
use crate::scenario::Slo;
use crate::sim::{simulate, Arrivals, SimConfig};

/// Requests per run (as the latency-vs-load sweep: `sim::load::LOAD_REQUESTS`).
pub const GOODPUT_REQUESTS: u32 = 1500;
/// Bisection steps on the rate: the bracket shrinks 2⁻⁷, under 1 % of the analytic capacity.
pub const GOODPUT_BISECTIONS: u32 = 7;
/// The seed of every goodput run.
pub const GOODPUT_SEED: u64 = 1;

/// The SLO attainment of one replica (or unit) under Poisson arrivals at `rate_per_s`: the
/// share of measured requests meeting both bounds; `None` when the run cannot be made or
/// measures nothing.
pub fn attainment_at_rate(unit: &Scenario, slo: &Slo, rate_per_s: f64) -> Option<f64> {
    if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
        return None;
    }
    let config = SimConfig {
        arrivals: Arrivals::Poisson { rate_per_s },
        requests: GOODPUT_REQUESTS,
        seed: GOODPUT_SEED,
        slo: Some(crate::sim::RequestSlo {
            ttft_ms: slo.ttft_ms,
            tpot_ms: slo.tpot_ms,
        }),
        ..SimConfig::default()
    };
    let result = simulate(unit, &config).ok()?;
    (result.measured > 0)
        .then_some(result.slo.map(|s| s.attainment))
        .flatten()
}

/// A configuration's goodput.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Goodput {
    /// Requests/s the whole configuration serves with the attainment at `target`; 0 when even
    /// a light load misses it.
    pub max_req_s: f64,
    /// The attainment goal: the SLO's percentile as a share (P90 → 0.9).
    pub target: f64,
    /// The replicas (or units) the rate is summed over.
    pub replicas: u32,
}

impl Goodput {
    /// "12.4 req/s (ttft_ms ≤ 500, tpot_ms ≤ 40 for 90 % of requests)".
    pub fn sentence(&self, slo: &Slo) -> String {
        format!(
            "{} req/s (ttft_ms ≤ {}, tpot_ms ≤ {} for {:.0} % of requests)",
            crate::present::format::format_number(self.max_req_s),
            bound(slo.ttft_ms),
            bound(slo.tpot_ms),
            self.target * 100.0
        )
    }
}

/// A bound as typed: 500, 40, 12.5 (no padding to significant figures).
fn bound(ms: f64) -> String {
    if ms.fract() == 0.0 && ms.abs() < 1e15 {
        format!("{ms:.0}")
    } else {
        ms.to_string()
    }
}

/// The highest Poisson rate at which `unit`'s attainment stays at the SLO's percentile, found
/// by bisection between 0 and 1.2 × its analytic capacity (the max-throughput point's
/// requests/s), times `replicas`. `None` when the simulator cannot run the unit.
pub fn max_rate_under_slo(unit: &Scenario, slo: &Slo, replicas: u32) -> Option<Goodput> {
    let target = (slo.percentile / 100.0).clamp(0.5, 0.999);
    let capacity = crate::sim::load::analytic_capacity_per_s(unit);
    if !(capacity > 0.0 && capacity.is_finite()) {
        return None;
    }
    let meets = |rate: f64| attainment_at_rate(unit, slo, rate).map(|a| a >= target);
    let (mut lo, mut hi) = (0.0, 1.2 * capacity);
    if meets(hi)? {
        lo = hi;
    } else {
        for _ in 0..GOODPUT_BISECTIONS {
            let mid = 0.5 * (lo + hi);
            if meets(mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    Some(Goodput {
        max_req_s: lo * f64::from(replicas.max(1)),
        target,
        replicas: replicas.max(1),
    })
}

/// A configuration as the page shows it: its unit (`sizing::unit_of`) and how many there are.
pub fn configuration_goodput(scenario: &Scenario, slo: &Slo) -> Option<Goodput> {
    let unit = crate::decide::sizing::unit_of(scenario).ok()?;
    let replicas = if scenario.pools.is_some() {
        1
    } else {
        scenario.replicas.max(1)
    };
    max_rate_under_slo(&unit, slo, replicas)
}

/// The SLO attainment of a configuration as the page shows it at `traffic_output_tok_s`, each
/// replica its share (a disaggregated unit the whole).
pub fn configuration_attainment(
    scenario: &Scenario,
    slo: &Slo,
    traffic_output_tok_s: f64,
) -> Option<f64> {
    let unit = crate::decide::sizing::unit_of(scenario).ok()?;
    let replicas = if scenario.pools.is_some() {
        1
    } else {
        scenario.replicas.max(1)
    };
    let rate = traffic_output_tok_s / scenario.workload.output_mean.max(1.0) / f64::from(replicas);
    attainment_at_rate(&unit, slo, rate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;

    fn slo(ttft_ms: f64, tpot_ms: f64) -> Slo {
        Slo {
            ttft_ms,
            tpot_ms,
            percentile: 90.0,
        }
    }

    /// Attainment falls as the rate rises past capacity; the goodput rate meets the goal and a
    /// rate well above it does not; a looser SLO never has a lower goodput; an impossible SLO
    /// has none; two replicas serve twice one's.
    #[test]
    fn goodput_is_the_rate_where_attainment_meets_the_percentile() {
        let one = Scenario::try_from(ScenarioInput {
            model: "llama-3.1-8b".into(),
            gpu_count: 1.0,
            ..ScenarioInput::default()
        })
        .expect("valid");
        let tight = slo(1000.0, 40.0);
        let g = max_rate_under_slo(&one, &tight, 1).expect("runs");
        assert!(g.max_req_s > 0.0, "{g:?}");
        let at = attainment_at_rate(&one, &tight, g.max_req_s).expect("runs");
        assert!(at >= 0.9, "{at}");
        let capacity = crate::sim::load::analytic_capacity_per_s(&one);
        let over = attainment_at_rate(&one, &tight, 1.5 * capacity).expect("runs");
        assert!(over < 0.9, "{over} at 1.5 × capacity");
        let loose = max_rate_under_slo(&one, &slo(1e9, 1e9), 1).expect("runs");
        assert!(loose.max_req_s >= g.max_req_s);
        let none = max_rate_under_slo(&one, &slo(0.001, 0.001), 1).expect("runs");
        assert_eq!(none.max_req_s, 0.0);
        let two = max_rate_under_slo(&one, &tight, 2).expect("runs");
        assert_eq!(two.max_req_s, 2.0 * g.max_req_s);
        assert!(
            g.sentence(&tight).contains("ttft_ms ≤ 1,000")
                || g.sentence(&tight).contains("ttft_ms ≤ 1000")
        );
    }
}
