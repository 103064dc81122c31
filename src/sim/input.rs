//! Simulation options as given (`SimInput`: CLI flags) → a checked `SimConfig`. Parse, don't
//! validate: `SimConfig::try_from` checks them once and its error names the field as the flag
//! does (`rate`, `burstiness`, `slo-ttft-ms`), like `ScenarioError`; the burstiness's range is
//! its field's (`fields::BURSTINESS`, which the production-gap waterfall reads too). Everything
//! not asked for is `SimConfig::default()` (warm-up, bounds, batch timeout).

use super::{Arrivals, RequestSlo, SimConfig, MAX_REQUESTS};
use crate::scenario::fields::{BURSTINESS, CONCURRENCY, SLO_TPOT_MS, SLO_TTFT_MS};
use crate::scenario::ScenarioError;
use crate::scenario::{SloInput, SloSettings};

/// Most closed-loop requests in flight a run may be asked for.
const MAX_CONCURRENCY: u32 = 1_000_000;
/// Highest open-loop arrival rate (requests/s).
const MAX_RATE_PER_S: f64 = 1e9;

/// Simulation options as given, nothing checked yet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimInput {
    /// Closed loop at this system concurrency, or ...
    pub concurrency: Option<f64>,
    /// ... open loop at this many requests/s (exactly one of the two).
    pub rate: Option<f64>,
    /// Coefficient of variation of the open-loop gaps (Gamma arrivals); unset = Poisson.
    pub burstiness: Option<f64>,
    /// Requests in the sample (default 2000).
    pub requests: Option<f64>,
    /// Text as typed, so every `u64` is reachable (default 1).
    pub seed: Option<String>,
    /// Goodput targets: both or neither.
    pub slo_ttft_ms: Option<f64>,
    pub slo_tpot_ms: Option<f64>,
}

fn field_error(field: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.into(),
        message: message.into(),
    }
}

/// A rate-like number: above 0 and at most `max`.
fn positive(field: &str, value: f64, max: f64) -> Result<f64, ScenarioError> {
    if value.is_finite() && value > 0.0 && value <= max {
        Ok(value)
    } else {
        Err(field_error(
            field,
            format!("must be a number above 0 and at most {max} (got {value})"),
        ))
    }
}

/// A whole number from 1 to `max`.
fn count(field: &str, value: f64, max: u32) -> Result<u32, ScenarioError> {
    if value >= 1.0 && value.fract() == 0.0 && value <= f64::from(max) {
        Ok(value as u32)
    } else {
        Err(field_error(
            field,
            format!("a whole number from 1 to {max} (got {value})"),
        ))
    }
}

impl TryFrom<SimInput> for SimConfig {
    type Error = ScenarioError;

    fn try_from(input: SimInput) -> Result<SimConfig, ScenarioError> {
        let defaults = SimConfig::default();
        let arrivals = match (input.concurrency, input.rate) {
            (Some(_), None) if input.burstiness.is_some() => {
                return Err(field_error(
                    BURSTINESS.key,
                    "applies to --rate (open loop), not --concurrency",
                ))
            }
            (Some(c), None) => Arrivals::Closed {
                concurrency: count(CONCURRENCY.key, c, MAX_CONCURRENCY)?,
            },
            (None, Some(r)) => {
                let rate_per_s = positive("rate", r, MAX_RATE_PER_S)?;
                match input.burstiness {
                    None => Arrivals::Poisson { rate_per_s },
                    Some(cv) => Arrivals::Gamma {
                        rate_per_s,
                        cv: BURSTINESS.real(cv)?,
                    },
                }
            }
            _ => {
                return Err(field_error(
                    CONCURRENCY.key,
                    "give exactly one of --concurrency N (closed loop) or --rate R (requests/s, open loop)",
                ))
            }
        };
        let requests = match input.requests {
            None => defaults.requests,
            Some(n) => count("requests", n, MAX_REQUESTS)?,
        };
        let seed = match input.seed.as_deref().map(|t| t.trim().parse::<u64>()) {
            None => defaults.seed,
            Some(Ok(seed)) => seed,
            Some(Err(_)) => {
                return Err(field_error(
                    "seed",
                    format!("a whole number from 0 to {}", u64::MAX),
                ))
            }
        };
        let slo = match (input.slo_ttft_ms, input.slo_tpot_ms) {
            (None, None) => None,
            (Some(_), Some(_)) => {
                let targets = SloSettings::try_from(SloInput {
                    ttft_ms: input.slo_ttft_ms,
                    tpot_ms: input.slo_tpot_ms,
                    ..SloInput::default()
                })?;
                targets.slo.map(|slo| RequestSlo {
                    ttft_ms: slo.ttft_ms,
                    tpot_ms: slo.tpot_ms,
                })
            }
            (None, Some(_)) => {
                return Err(field_error(
                    SLO_TTFT_MS.key,
                    "give both --slo-ttft-ms and --slo-tpot-ms (or neither)",
                ))
            }
            (Some(_), None) => {
                return Err(field_error(
                    SLO_TPOT_MS.key,
                    "give both --slo-ttft-ms and --slo-tpot-ms (or neither)",
                ))
            }
        };
        Ok(SimConfig {
            arrivals,
            requests,
            seed,
            slo,
            ..defaults
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_become_a_checked_config() {
        let closed = SimConfig::try_from(SimInput {
            concurrency: Some(32.0),
            ..SimInput::default()
        })
        .expect("valid");
        assert_eq!(closed.arrivals, Arrivals::Closed { concurrency: 32 });
        assert_eq!(
            closed,
            SimConfig {
                arrivals: closed.arrivals,
                ..SimConfig::default()
            }
        );
        let open = SimConfig::try_from(SimInput {
            rate: Some(10.0),
            burstiness: Some(2.0),
            requests: Some(800.0),
            seed: Some(" 18446744073709551615 ".into()),
            slo_ttft_ms: Some(500.0),
            slo_tpot_ms: Some(30.0),
            ..SimInput::default()
        })
        .expect("valid");
        assert_eq!(
            open.arrivals,
            Arrivals::Gamma {
                rate_per_s: 10.0,
                cv: 2.0
            }
        );
        assert_eq!((open.requests, open.seed), (800, u64::MAX));
        assert_eq!(
            open.slo,
            Some(RequestSlo {
                ttft_ms: 500.0,
                tpot_ms: 30.0
            })
        );
        assert_eq!(open.check(), Ok(()));
    }

    #[test]
    fn errors_name_the_flag() {
        let field_named = |edit: fn(&mut SimInput), field: &str| {
            let mut bad = SimInput {
                rate: Some(1.0),
                ..SimInput::default()
            };
            edit(&mut bad);
            assert_eq!(
                SimConfig::try_from(bad.clone())
                    .map(|_| ())
                    .map_err(|e| e.field),
                Err(field.to_string()),
                "{bad:?}"
            );
        };
        field_named(|i| i.rate = None, "concurrency");
        field_named(|i| i.concurrency = Some(2.0), "concurrency");
        field_named(
            |i| (i.rate, i.concurrency) = (None, Some(1.5)),
            "concurrency",
        );
        field_named(
            |i| (i.rate, i.concurrency) = (None, Some(2e6)),
            "concurrency",
        );
        field_named(
            |i| (i.rate, i.concurrency, i.burstiness) = (None, Some(2.0), Some(2.0)),
            "burstiness",
        );
        field_named(|i| i.rate = Some(-1.0), "rate");
        field_named(|i| i.burstiness = Some(0.0), "burstiness");
        field_named(|i| i.requests = Some(0.0), "requests");
        field_named(
            |i| i.requests = Some(f64::from(MAX_REQUESTS) + 1.0),
            "requests",
        );
        field_named(|i| i.seed = Some("-3".into()), "seed");
        field_named(|i| i.slo_ttft_ms = Some(100.0), "slo-tpot-ms");
        field_named(|i| i.slo_tpot_ms = Some(100.0), "slo-ttft-ms");
        field_named(
            |i| (i.slo_ttft_ms, i.slo_tpot_ms) = (Some(-100.0), Some(10.0)),
            "slo-ttft-ms",
        );
    }
}
