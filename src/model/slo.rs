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
//! SLO settings as given (`SloInput`: CLI flags, the page's target fields) are checked once by
//! `SloSettings::try_from`, whose error names the field as the flag does (`slo-ttft-ms`).

use super::evaluate::evaluate;
use super::grid::concurrency_grid;
use super::operating_point::OperatingPoint;
use super::workload::inverse_normal_cdf;
use crate::scenario::fields::{Field, SLO_PERCENTILE, SLO_TPOT_MS, SLO_TTFT_MS};
use crate::scenario::{Batching, Scenario, ScenarioError};
use serde::Serialize;

/// Targets at a percentile (e.g. P90 TTFT ≤ 2000 ms and TPOT ≤ 100 ms).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Slo {
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    /// Percentile in (50, 100), e.g. 90 or 99.
    pub percentile: f64,
}

/// The percentile an SLO is stated at when none is given.
pub const DEFAULT_PERCENTILE: f64 = 90.0;

/// How tails at a percentile are obtained: from the simulator (fixed seed and sample,
/// `decide::slo_sim`; the default) or the analytic estimate of this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SloMethod {
    #[default]
    Simulated,
    Analytic,
}

impl SloMethod {
    /// "simulated" or "analytic", as typed.
    pub fn id(self) -> &'static str {
        match self {
            SloMethod::Simulated => "simulated",
            SloMethod::Analytic => "analytic",
        }
    }
}

/// SLO settings as given, nothing checked yet (parse, don't validate: `SloSettings::try_from`
/// checks them once). A target left unset does not constrain.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SloInput {
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    /// Default `DEFAULT_PERCENTILE`.
    pub percentile: Option<f64>,
    /// "simulated" (default) or "analytic".
    pub method: Option<String>,
}

/// Checked SLO settings: what an `SloInput` becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SloSettings {
    /// The targets at the percentile; `None` when neither target is given (an unset one is ∞).
    pub slo: Option<Slo>,
    /// The percentile as given (tails can be quoted at it without targets).
    pub percentile: Option<f64>,
    pub method: SloMethod,
}

impl TryFrom<SloInput> for SloSettings {
    type Error = ScenarioError;

    /// Each target given must be a positive number of ms and the percentile from 50 to 99.99
    /// (the range `tail_estimate`'s normal quantile is clamped to): the ranges of the field table.
    fn try_from(input: SloInput) -> Result<SloSettings, ScenarioError> {
        let target = |field: &Field, value: Option<f64>| match value {
            None => Ok(f64::INFINITY),
            Some(ms) => field.real(ms),
        };
        let ttft_ms = target(&SLO_TTFT_MS, input.ttft_ms)?;
        let tpot_ms = target(&SLO_TPOT_MS, input.tpot_ms)?;
        let percentile = SLO_PERCENTILE.real(input.percentile.unwrap_or(DEFAULT_PERCENTILE))?;
        let method = match input.method.as_deref() {
            None | Some("simulated") => SloMethod::Simulated,
            Some("analytic") => SloMethod::Analytic,
            Some(other) => {
                return Err(ScenarioError {
                    field: "slo-method".into(),
                    message: format!("`{other}` is not simulated or analytic"),
                })
            }
        };
        let targeted = input.ttft_ms.is_some() || input.tpot_ms.is_some();
        Ok(SloSettings {
            slo: targeted.then_some(Slo {
                ttft_ms,
                tpot_ms,
                percentile,
            }),
            percentile: input.percentile,
            method,
        })
    }
}

/// Tail estimates of one operating point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TailEstimate {
    pub percentile: f64,
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    /// "analytic" until simulated percentiles replace it.
    pub method: &'static str,
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
        method: "analytic",
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

    #[test]
    fn settings_are_checked_once_and_name_the_field() {
        let check = |input: SloInput| SloSettings::try_from(input).map_err(|e| e.field);
        let both = SloInput {
            ttft_ms: Some(2000.0),
            tpot_ms: Some(50.0),
            ..SloInput::default()
        };
        let settings = check(both.clone()).expect("valid");
        assert_eq!(
            settings.slo,
            Some(Slo {
                ttft_ms: 2000.0,
                tpot_ms: 50.0,
                percentile: DEFAULT_PERCENTILE
            })
        );
        assert_eq!(settings.method, SloMethod::Simulated);
        let none = check(SloInput::default()).expect("no targets is valid");
        assert_eq!((none.slo, none.percentile), (None, None));
        let tpot_only = check(SloInput {
            tpot_ms: Some(30.0),
            ..SloInput::default()
        })
        .expect("one target alone");
        assert_eq!(tpot_only.slo.map(|s| s.ttft_ms), Some(f64::INFINITY));
        let field_named = |edit: fn(&mut SloInput), field: &str| {
            let mut bad = both.clone();
            edit(&mut bad);
            assert_eq!(check(bad), Err(field.to_string()));
        };
        field_named(|i| i.ttft_ms = Some(0.0), "slo-ttft-ms");
        field_named(|i| i.tpot_ms = Some(f64::INFINITY), "slo-tpot-ms");
        field_named(|i| i.tpot_ms = Some(f64::NAN), "slo-tpot-ms");
        field_named(|i| i.percentile = Some(40.0), "slo-percentile");
        field_named(
            |i| {
                *i = SloInput {
                    percentile: Some(100.0),
                    ..SloInput::default()
                }
            },
            "slo-percentile",
        );
        field_named(|i| i.method = Some("exact".into()), "slo-method");
        let analytic = check(SloInput {
            percentile: Some(99.0),
            method: Some("analytic".into()),
            ..SloInput::default()
        })
        .expect("valid");
        assert_eq!(analytic.percentile, Some(99.0));
        assert_eq!(analytic.method.id(), "analytic");
    }
}
