//! The raw decision inputs, as users give them beside the scenario: SLO targets and percentile,
//! traffic, offered load, how bursty arrivals are, blend ratio, electricity and the GPUs a plan may use. Like
//! `ScenarioInput` they travel in links, JSON exports, the printed summary and CLI flags (all
//! through `fields`), so a reopened link shows the same $/month, SLO point and break-even.
//! Nothing here is validated beyond what its type needs; the decision tools interpret it, except
//! the SLO settings: as given (`SloInput`: CLI flags, the page's target fields) they are checked
//! once by `SloSettings::try_from`, whose error names the field as the flag does (`slo-ttft-ms`).

use super::fields::{Field, SLO_PERCENTILE, SLO_TPOT_MS, SLO_TTFT_MS};
use super::{fields, ScenarioError};
use crate::choice::{choices, Choice};
use crate::physics::cost::BLEND_INPUT_PER_OUTPUT;
use crate::physics::economics::Ownership;
use crate::physics::precision::Precision;
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

choices!(SloMethod {
    SloMethod::Simulated => "simulated", "Simulated";
    SloMethod::Analytic => "analytic", "Analytic";
});

/// How a result's latencies were obtained: tails at the SLO's percentile from the simulator or
/// the analytic estimate, or the means when no SLO is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LatencyMethod {
    Simulated,
    Analytic,
    Mean,
}

choices!(LatencyMethod {
    LatencyMethod::Simulated => "simulated", "simulated tails";
    LatencyMethod::Analytic => "analytic", "analytic tails";
    LatencyMethod::Mean => "mean", "means (no SLO)";
});

impl std::fmt::Display for LatencyMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
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
    /// Default `SloMethod::Simulated`.
    pub method: Option<SloMethod>,
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
        let method = input.method.unwrap_or_default();
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

/// How a traffic volume is stated: the one set of units the page's decision inputs
/// (`traffic-unit`) and `servecost plan`'s flags (`--traffic-req-s`, `--traffic-tok-s`) share.
/// `Traffic` converts between them, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrafficUnit {
    #[default]
    RequestsPerS,
    /// Prompt + output tokens per day.
    TokensPerDay,
    /// Output tokens per second.
    OutputTokS,
}

/// Seconds in a day, for "tokens per day".
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// A traffic volume in its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Traffic {
    pub amount: f64,
    pub unit: TrafficUnit,
}

impl Traffic {
    /// Requests/s for a workload with these mean lengths: requests/s as given; tokens/day ÷
    /// ((E[P] + E[O]) × 86 400); output tokens/s ÷ E[O]. `None` when the lengths leave it
    /// undefined (an empty request).
    pub fn req_s(self, input_len: f64, output_len: f64) -> Option<f64> {
        let per = |tokens: f64| (tokens > 0.0 && tokens.is_finite()).then(|| self.amount / tokens);
        match self.unit {
            TrafficUnit::RequestsPerS => Some(self.amount),
            TrafficUnit::TokensPerDay => per((input_len + output_len) * SECONDS_PER_DAY),
            TrafficUnit::OutputTokS => per(output_len),
        }
    }

    /// The same traffic in `unit`, for the same workload: `req/s × E[O]` output tokens/s,
    /// `req/s × (E[P] + E[O]) × 86 400` tokens/day.
    pub fn in_unit(self, unit: TrafficUnit, input_len: f64, output_len: f64) -> Option<f64> {
        let req_s = self.req_s(input_len, output_len)?;
        Some(match unit {
            TrafficUnit::RequestsPerS => req_s,
            TrafficUnit::TokensPerDay => req_s * (input_len + output_len) * SECONDS_PER_DAY,
            TrafficUnit::OutputTokS => req_s * output_len,
        })
    }

    /// Output tokens/s: what sizing and the plan size a deployment for.
    pub fn output_tok_s(self, input_len: f64, output_len: f64) -> Option<f64> {
        self.in_unit(TrafficUnit::OutputTokS, input_len, output_len)
    }
}

choices!(TrafficUnit {
    TrafficUnit::RequestsPerS => "req-s", "requests/s";
    TrafficUnit::TokensPerDay => "tokens-per-day", "tokens/day";
    TrafficUnit::OutputTokS => "tok-s", "output tokens/s";
});

/// How the offered load is stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadUnit {
    /// Percent of the operating point's output tok/s.
    #[default]
    PercentOfCapacity,
    OutputTokS,
}

choices!(LoadUnit {
    LoadUnit::PercentOfCapacity => "percent", "% of capacity";
    LoadUnit::OutputTokS => "tok-s", "output tokens/s";
});

/// Input tokens per output token for blended prices: a fixed ratio, or the workload's own mix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blend {
    Ratio(f64),
    Workload,
}

impl Default for Blend {
    /// The API convention, 3 input tokens per output token (`physics::cost`).
    fn default() -> Blend {
        Blend::Ratio(BLEND_INPUT_PER_OUTPUT)
    }
}

/// The blend choice that follows the workload's own input:output mix.
const WORKLOAD_MIX: &str = "workload";

impl Blend {
    /// The choices offered, as (value, label).
    pub const CHOICES: [(&'static str, &'static str); 5] = [
        ("3", "3 : 1 (API convention)"),
        ("1", "1 : 1"),
        ("0.25", "1 : 4 (output-heavy)"),
        ("10", "10 : 1 (long prompts)"),
        (WORKLOAD_MIX, "the workload's own mix"),
    ];

    /// A ratio (a non-negative number) or `workload`; anything else is `None`.
    pub fn parse(value: &str) -> Option<Blend> {
        let value = value.trim();
        if value == WORKLOAD_MIX {
            return Some(Blend::Workload);
        }
        match value.parse::<f64>() {
            Ok(r) if r.is_finite() && r >= 0.0 => Some(Blend::Ratio(r)),
            _ => None,
        }
    }

    pub fn value(self) -> String {
        match self {
            Blend::Ratio(r) => format!("{r}"),
            Blend::Workload => WORKLOAD_MIX.into(),
        }
    }

    /// Input tokens per output token for a workload with these mean lengths.
    pub fn input_per_output(self, input_len: f64, output_len: f64) -> f64 {
        match self {
            Blend::Ratio(r) => r,
            Blend::Workload if output_len > 0.0 => input_len / output_len,
            Blend::Workload => BLEND_INPUT_PER_OUTPUT,
        }
    }

    /// "3:1", "1:4", "5.5:1".
    pub fn label(self, input_len: f64, output_len: f64) -> String {
        let r = self.input_per_output(input_len, output_len);
        if r > 0.0 && r < 1.0 {
            format!("1:{}", trim_number(1.0 / r))
        } else {
            format!("{}:1", trim_number(r))
        }
    }
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// The decision inputs exactly as given (the page's defaults: P90, 10 req/s, half of capacity,
/// Poisson arrivals, 3:1, electricity off at $0.10/kWh and PUE 1.3, every GPU allowed, BF16 and FP8 weights,
/// at most 80 % utilization, 8 GPUs per server).
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionInput {
    /// TTFT target in ms; `None` does not constrain.
    pub slo_ttft_ms: Option<f64>,
    /// TPOT target in ms; `None` does not constrain.
    pub slo_tpot_ms: Option<f64>,
    pub slo_percentile: f64,
    /// In `traffic_unit`; `None` when no traffic is given.
    pub traffic: Option<f64>,
    pub traffic_unit: TrafficUnit,
    /// In `load_unit`.
    pub offered_load: f64,
    pub load_unit: LoadUnit,
    /// Coefficient of variation of the gaps between open-loop arrivals (Gamma gaps; 1 = Poisson):
    /// the production-gap waterfall's arrivals step (`fields::BURSTINESS`).
    pub burstiness: f64,
    pub blend: Blend,
    /// Add electricity to the rental price.
    pub energy_on: bool,
    pub energy_usd_per_kwh: f64,
    pub energy_pue: f64,
    /// The hardware leaderboard's interactivity target (output tokens/s each user sees);
    /// `None` = `decide::leaderboard::DEFAULT_TOK_S_PER_USER`.
    pub tok_s_per_user: Option<f64>,
    /// The hardware leaderboard's TTFT ceiling, ms (the row's TTFT at the SLO percentile);
    /// `None` = `decide::leaderboard::DEFAULT_TTFT_CEILING_MS`.
    pub ttft_ceiling_ms: Option<f64>,
    /// GPUs the plan may use; `None` = every catalog GPU with a price and a complete spec.
    pub gpus_allowed: Option<Vec<String>>,
    /// Weight precisions the plan may use (ids, checked by `PlanRequest::try_from`); 4-bit
    /// weights are left out unless listed, since they need an accuracy check.
    pub precisions_allowed: Vec<Precision>,
    /// Highest traffic ÷ capacity a plan sizes for (replicas = ceil(traffic ÷ (ceiling × one
    /// replica's capacity))), so no plan runs at 99 %.
    pub max_utilization: f64,
    /// GPUs per server: a replica fits in one, and a deployment larger than one buys whole ones.
    pub gpus_per_node: f64,
    /// Owned hardware (the "owned" price tier, `Ownership`): purchase price per GPU with its
    /// server share; `None` = no owned price.
    pub capex_usd_per_gpu: Option<f64>,
    pub depreciation_years: f64,
    /// Draw per GPU; `None` = the catalog TDP.
    pub owned_power_w: Option<f64>,
    pub hosting_usd_per_kw_month: f64,
    /// Operations overhead (staff, support, software licences) in $ per GPU-hour.
    pub ops_usd_per_gpu_hour: f64,
    /// Agentic mode (issue 27 §2): the percentile interactivity and TTFT are read at.
    #[cfg(feature = "session-model")]
    pub interactivity_percentile: UserPercentile,
    /// Agentic economics (issue 27 §3): a licence fee on the model, % of revenue.
    #[cfg(feature = "session-model")]
    pub licence_fee_pct: f64,
    /// Typed API list prices, $ per million tokens; `None` = the model's rows in
    /// `data/api_prices.csv`.
    #[cfg(feature = "session-model")]
    pub api_usd_per_m_input: Option<f64>,
    #[cfg(feature = "session-model")]
    pub api_usd_per_m_cached_input: Option<f64>,
    #[cfg(feature = "session-model")]
    pub api_usd_per_m_output: Option<f64>,
    /// Agents in a fleet, for self-host vs API per month; `None` = no fleet asked about.
    #[cfg(feature = "session-model")]
    pub fleet_agents: Option<f64>,
    /// Share of the capacity's tokens that are sold (margin = revenue × this − cost).
    #[cfg(feature = "session-model")]
    pub billed_utilization: f64,
    /// Without the session model (the explorer's first-load build): the agentic keys a link
    /// named (`fields::SESSION_KEYS`, and `workload` naming a session preset), as given, in
    /// link order. The explorer does not model them but carries them in its links, storage and
    /// `#tools[data-state]`, so the tools module (built with the session model) reads them and a
    /// shared agentic view reopens as it was (issue 27 §4).
    #[cfg(not(feature = "session-model"))]
    pub carried: Vec<(String, String)>,
}

/// The percentile agentic figures are read at (issue 27 §2: P50 / P75 / P90 / P99; InferenceX
/// reads interactivity at P90 by default, so P90 is the default here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UserPercentile {
    P50,
    P75,
    #[default]
    P90,
    P99,
}

choices!(UserPercentile {
    UserPercentile::P50 => "p50", "P50";
    UserPercentile::P75 => "p75", "P75";
    UserPercentile::P90 => "p90", "P90";
    UserPercentile::P99 => "p99", "P99";
});

impl UserPercentile {
    pub fn value(self) -> f64 {
        match self {
            UserPercentile::P50 => 50.0,
            UserPercentile::P75 => 75.0,
            UserPercentile::P90 => 90.0,
            UserPercentile::P99 => 99.0,
        }
    }

    /// An id of `ALL`, blanks ignored, case kept.
    pub fn parse(text: &str) -> Option<UserPercentile> {
        UserPercentile::parse_exact(text.trim())
    }
}

/// The weight precisions a plan uses unless told otherwise: no 4-bit weights.
pub const DEFAULT_PLAN_PRECISIONS: [Precision; 2] = [Precision::Bf16, Precision::Fp8];

impl Default for DecisionInput {
    fn default() -> DecisionInput {
        DecisionInput {
            slo_ttft_ms: None,
            slo_tpot_ms: None,
            slo_percentile: 90.0,
            traffic: Some(10.0),
            traffic_unit: TrafficUnit::RequestsPerS,
            offered_load: 50.0,
            load_unit: LoadUnit::PercentOfCapacity,
            burstiness: 1.0,
            blend: Blend::default(),
            energy_on: false,
            energy_usd_per_kwh: 0.10,
            energy_pue: 1.3,
            tok_s_per_user: None,
            ttft_ceiling_ms: None,
            gpus_allowed: None,
            precisions_allowed: DEFAULT_PLAN_PRECISIONS.to_vec(),
            max_utilization: 0.8,
            gpus_per_node: 8.0,
            capex_usd_per_gpu: None,
            depreciation_years: 4.0,
            owned_power_w: None,
            hosting_usd_per_kw_month: 0.0,
            ops_usd_per_gpu_hour: 0.0,
            #[cfg(feature = "session-model")]
            interactivity_percentile: UserPercentile::P90,
            #[cfg(feature = "session-model")]
            licence_fee_pct: 0.0,
            #[cfg(feature = "session-model")]
            api_usd_per_m_input: None,
            #[cfg(feature = "session-model")]
            api_usd_per_m_cached_input: None,
            #[cfg(feature = "session-model")]
            api_usd_per_m_output: None,
            #[cfg(feature = "session-model")]
            fleet_agents: None,
            #[cfg(feature = "session-model")]
            billed_utilization: 1.0,
            #[cfg(not(feature = "session-model"))]
            carried: Vec::new(),
        }
    }
}

impl DecisionInput {
    /// The traffic, in its unit, when one is given.
    pub fn traffic(&self) -> Option<Traffic> {
        self.traffic.map(|amount| Traffic {
            amount,
            unit: self.traffic_unit,
        })
    }

    /// The SLO part, as `SloSettings::try_from` reads it (the method is the default).
    pub fn slo_input(&self) -> SloInput {
        SloInput {
            ttft_ms: self.slo_ttft_ms,
            tpot_ms: self.slo_tpot_ms,
            percentile: Some(self.slo_percentile),
            method: None,
        }
    }

    /// Check every number against the field table's range (the decision tools' one door, like
    /// `Scenario::try_from`); the error names the field.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        SloSettings::try_from(self.slo_input())?;
        if let Some(traffic) = self.traffic {
            fields::TRAFFIC.real(traffic)?;
        }
        fields::OFFERED_LOAD.real(self.offered_load)?;
        if self.load_unit == LoadUnit::PercentOfCapacity
            && !(0.1..=100.0).contains(&self.offered_load)
        {
            return Err(ScenarioError {
                field: fields::OFFERED_LOAD.key.into(),
                message: format!(
                    "must be from 0.1 to 100 % of capacity (got {})",
                    self.offered_load
                ),
            });
        }
        fields::BURSTINESS.real(self.burstiness)?;
        fields::ENERGY_USD_PER_KWH.real(self.energy_usd_per_kwh)?;
        fields::ENERGY_PUE.real(self.energy_pue)?;
        if let Some(target) = self.tok_s_per_user {
            fields::TOK_S_PER_USER.real(target)?;
        }
        if let Some(ceiling) = self.ttft_ceiling_ms {
            fields::TTFT_CEILING_MS.real(ceiling)?;
        }
        fields::MAX_UTILIZATION.real(self.max_utilization)?;
        fields::GPUS_PER_NODE.whole(self.gpus_per_node)?;
        if let Some(capex) = self.capex_usd_per_gpu {
            fields::CAPEX_USD_PER_GPU.real(capex)?;
        }
        fields::DEPRECIATION_YEARS.real(self.depreciation_years)?;
        if let Some(watts) = self.owned_power_w {
            fields::OWNED_POWER_W.real(watts)?;
        }
        fields::HOSTING_USD_PER_KW_MONTH.real(self.hosting_usd_per_kw_month)?;
        fields::OPS_USD_PER_GPU_HOUR.real(self.ops_usd_per_gpu_hour)?;
        #[cfg(feature = "session-model")]
        self.validate_agentic()?;
        Ok(())
    }

    /// The agentic economics' inputs against the table (issue 27 §3).
    #[cfg(feature = "session-model")]
    fn validate_agentic(&self) -> Result<(), ScenarioError> {
        fields::LICENCE_FEE_PCT.real(self.licence_fee_pct)?;
        fields::BILLED_UTILIZATION.real(self.billed_utilization)?;
        for (field, value) in [
            (&fields::API_USD_PER_M_INPUT, self.api_usd_per_m_input),
            (
                &fields::API_USD_PER_M_CACHED_INPUT,
                self.api_usd_per_m_cached_input,
            ),
            (&fields::API_USD_PER_M_OUTPUT, self.api_usd_per_m_output),
        ] {
            if let Some(price) = value {
                field.real(price)?;
            }
        }
        if let Some(agents) = self.fleet_agents {
            fields::FLEET_AGENTS.whole(agents)?;
        }
        Ok(())
    }

    /// What owning the GPUs costs, with the electricity price and PUE of the energy inputs;
    /// `None` until a capex per GPU is given.
    pub fn ownership(&self) -> Option<Ownership> {
        Some(Ownership {
            capex_usd_per_gpu: self.capex_usd_per_gpu?,
            depreciation_years: self.depreciation_years,
            power_w: self.owned_power_w,
            pue: self.energy_pue,
            usd_per_kwh: self.energy_usd_per_kwh,
            hosting_usd_per_kw_month: self.hosting_usd_per_kw_month,
            ops_usd_per_gpu_hour: self.ops_usd_per_gpu_hour,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traffic_converts_between_every_pair_of_units_and_back() {
        // 10 req/s of 1155 + 211 tokens: 1.18 B tokens a day, 2110 output tok/s.
        let (input_len, output_len) = (1155.0, 211.0);
        let of = |amount, unit| Traffic { amount, unit };
        let requests = of(10.0, TrafficUnit::RequestsPerS);
        let per_day = requests
            .in_unit(TrafficUnit::TokensPerDay, input_len, output_len)
            .expect("defined");
        assert!((per_day - 1_180_224_000.0).abs() < 1e-3);
        assert_eq!(requests.output_tok_s(input_len, output_len), Some(2110.0));
        let units = [
            TrafficUnit::RequestsPerS,
            TrafficUnit::TokensPerDay,
            TrafficUnit::OutputTokS,
        ];
        for from in units {
            let amount = requests
                .in_unit(from, input_len, output_len)
                .expect("defined");
            for to in units {
                let there = of(amount, from)
                    .in_unit(to, input_len, output_len)
                    .expect("defined");
                let back = of(there, to).in_unit(from, input_len, output_len);
                assert!(
                    back.is_some_and(|b| (b - amount).abs() <= 1e-9 * amount),
                    "{from:?} → {to:?}"
                );
            }
        }
        // An empty request has no rate behind a token volume.
        assert_eq!(of(1.0, TrafficUnit::TokensPerDay).req_s(0.0, 0.0), None);
        assert_eq!(of(1.0, TrafficUnit::OutputTokS).req_s(100.0, 0.0), None);
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
        let analytic = check(SloInput {
            percentile: Some(99.0),
            method: Some(SloMethod::Analytic),
            ..SloInput::default()
        })
        .expect("valid");
        assert_eq!(analytic.percentile, Some(99.0));
        assert_eq!(analytic.method.id(), "analytic");
    }
}
