//! Latency SLOs: tail-latency estimates at a percentile and the highest-throughput operating
//! point that meets a TTFT and a TPOT target.
//!
//! Analytic estimate (used until a simulator run supplies measured percentiles; MODEL.md §4.2
//! says tails really come from the DES, so these are stated as estimates):
//! * TTFT_p = TTFT_mean + (P_p − E[P])·(1 − r_hit)·c_pf, where `P_p` is the p-quantile of the
//!   lognormal prompt length `exp(ln E[P] − σ²/2 + σ·z_p)`: a long prompt waits for its own prefill.
//! * TPOT_p = τ + (μ_N + z_p·√μ_N)·P_eff·c_pf/(E[O] − 1): a request's decode is stalled by the
//!   other requests' prefills, a Poisson count with mean `μ_N = (TPOT − τ)·(E[O] − 1)/(P_eff·c_pf)`
//!   (normal approximation to its quantile).
//!
//! The SLO settings themselves (`Slo`, `SloInput`, `SloSettings`) are inputs, defined with the
//! other decision inputs in `scenario::decision`.

use super::evaluate::evaluate;
use super::grid::concurrency_grid;
use super::operating_point::OperatingPoint;
use crate::physics::workload::inverse_normal_cdf;
use crate::scenario::{Batching, LatencyMethod, Scenario, Slo};
use serde::Serialize;

/// Tail estimates of one operating point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TailEstimate {
    pub percentile: f64,
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    /// Analytic until simulated percentiles replace it.
    pub method: LatencyMethod,
}

/// Estimate TTFT and TPOT at a percentile (see the module doc for the formulas).
pub fn tail_estimate(scenario: &Scenario, point: &OperatingPoint, percentile: f64) -> TailEstimate {
    let w = &scenario.workload;
    let z = inverse_normal_cdf((percentile / 100.0).clamp(0.5, 0.9999));
    let prompt_quantile = if w.input_sigma > 0.0 {
        (w.input_mean.ln() - w.input_sigma * w.input_sigma / 2.0 + w.input_sigma * z).exp()
    } else {
        w.input_mean
    };
    let c_pf_ms = point.prefill_us_per_token / 1e3;
    let ttft_ms =
        point.ttft_ms + (prompt_quantile - w.input_mean).max(0.0) * (1.0 - w.prefix_hit) * c_pf_ms;
    let stall_ms = w.prefill_tokens() * c_pf_ms;
    let decode_tokens = (w.output_mean - 1.0).max(1.0);
    let tpot_ms = if stall_ms > 0.0 {
        let mean_stalls = ((point.tpot_ms - point.decode_ms_per_token).max(0.0) * decode_tokens
            / stall_ms)
            .max(0.0);
        point.decode_ms_per_token
            + (mean_stalls + z * mean_stalls.sqrt()).max(0.0) * stall_ms / decode_tokens
    } else {
        point.tpot_ms
    };
    TailEstimate {
        percentile,
        ttft_ms,
        tpot_ms: tpot_ms.max(point.tpot_ms),
        method: LatencyMethod::Analytic,
    }
}

/// The highest-throughput feasible concurrency whose tail estimates meet the SLO, if any.
pub fn best_point_meeting(
    scenario: &Scenario,
    slo: &Slo,
) -> Option<(OperatingPoint, TailEstimate)> {
    // The paged capacity's grid under either policy, as before the grid was shared; under static
    // batching the static capacity itself is not on it.
    concurrency_grid(scenario, Batching::Continuous)
        .into_iter()
        .map(|c| {
            let s = scenario.with_concurrency(c);
            let point = evaluate(&s);
            let tail = tail_estimate(&s, &point, slo.percentile);
            (point, tail)
        })
        .filter(|(point, tail)| {
            point.fits && tail.ttft_ms <= slo.ttft_ms && tail.tpot_ms <= slo.tpot_ms
        })
        .max_by(|a, b| a.0.output_tok_s.total_cmp(&b.0.output_tok_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_exceed_means_and_slo_point_meets_targets() {
        let scenario = Scenario::default_scenario().expect("valid");
        let point = evaluate(&scenario);
        let tail = tail_estimate(&scenario, &point, 99.0);
        assert!(tail.ttft_ms > point.ttft_ms);
        assert!(tail.tpot_ms >= point.tpot_ms);
        let slo = Slo {
            ttft_ms: 2000.0,
            tpot_ms: 50.0,
            percentile: 90.0,
        };
        let (best, best_tail) =
            best_point_meeting(&scenario, &slo).expect("some point meets a loose SLO");
        assert!(best_tail.ttft_ms <= 2000.0 && best_tail.tpot_ms <= 50.0);
        // A tighter TPOT target can only lower the best throughput.
        let tight = Slo {
            tpot_ms: 25.0,
            ..slo
        };
        if let Some((tight_best, _)) = best_point_meeting(&scenario, &tight) {
            assert!(tight_best.output_tok_s <= best.output_tok_s);
        }
        let impossible = Slo {
            ttft_ms: 0.001,
            ..slo
        };
        assert!(best_point_meeting(&scenario, &impossible).is_none());
    }
}
