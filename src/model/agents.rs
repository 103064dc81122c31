//! What an agent fleet is compared on (issue 27 §2): interactivity at a percentile, agents per
//! GPU, per server and per megawatt at an SLO tier, output tokens per second per megawatt and
//! joules per output token, each with its power basis.
//!
//! - Interactivity at percentile `p` is `1000 / TPOT_p` tokens/s, TPOT_p and TTFT_p the analytic
//!   tail estimates of the per-turn operating point (`model::slo::tail_estimate`, MODEL.md §4.3).
//!   InferenceX reads interactivity at P90 by default; so does agentic mode here.
//! - A tier is a TTFT ceiling and a floor on tokens/s per user, both at `p`; the agents a
//!   configuration serves at a tier are the most agents `N` whose steady state
//!   (`model::sessions::evaluate_sessions`) meets both (Artificial Analysis AgentPerf ranks
//!   hardware by agents per MW at such tiers).
//! - Power: `W_gpu · PUE` per GPU, `W_gpu` the user's measured draw or the catalog TDP, at full
//!   draw (an upper bound on energy: a GPU in a fleet sized at a tier is busy). Agents per MW =
//!   `N / (G · W_gpu · PUE / 10⁶)`; tok/s per MW alike; joules per output token =
//!   `G · W_gpu · PUE / output tok/s`.

use super::sessions::{evaluate_sessions, turn_scenario, SessionPoint, SessionShape};
use super::slo::tail_estimate;
use crate::scenario::{Scenario, UserPercentile};
use serde::Serialize;

/// Where the watts per GPU come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PowerSource {
    /// The user's measured (or planned) draw per GPU (`owned-power-w`).
    MeasuredWatts,
    /// The catalog's TDP for the GPU.
    CatalogTdp,
}

/// The power an agent count is divided by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PowerBasis {
    pub watts_per_gpu: f64,
    pub pue: f64,
    pub source: PowerSource,
}

impl PowerBasis {
    /// The measured draw if given, else the catalog TDP; `None` without either.
    pub fn of(scenario: &Scenario, measured_w: Option<f64>, pue: f64) -> Option<PowerBasis> {
        let (watts_per_gpu, source) = match measured_w {
            Some(watts) => (watts, PowerSource::MeasuredWatts),
            None => (scenario.gpu.tdp_w?, PowerSource::CatalogTdp),
        };
        (watts_per_gpu > 0.0 && pue > 0.0).then_some(PowerBasis {
            watts_per_gpu,
            pue,
            source,
        })
    }

    /// Facility watts per GPU, `W_gpu · PUE`.
    pub fn facility_w_per_gpu(&self) -> f64 {
        self.watts_per_gpu * self.pue
    }

    /// "catalog TDP 700 W × PUE 1.3 = 910 W per GPU".
    pub fn describe(&self) -> String {
        let what = match self.source {
            PowerSource::MeasuredWatts => "measured",
            PowerSource::CatalogTdp => "catalog TDP",
        };
        format!(
            "{what} {:.0} W × PUE {} = {:.0} W per GPU, at full draw",
            self.watts_per_gpu,
            self.pue,
            self.facility_w_per_gpu()
        )
    }
}

/// An SLO tier: both at the percentile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tier {
    pub percentile: UserPercentile,
    pub ttft_ms: f64,
    pub tok_s_per_user: f64,
}

/// The agentic figures of one steady state.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AgentFigures {
    pub agents: u32,
    pub gpus: u32,
    pub percentile: f64,
    /// `1000 / TPOT_p`, tokens/s each agent sees at the percentile.
    pub interactivity_tok_s: f64,
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    pub agents_per_gpu: f64,
    pub agents_per_server: f64,
    /// `None` without a power basis.
    pub agents_per_mw: Option<f64>,
    pub output_tok_s_per_mw: Option<f64>,
    pub joules_per_output_token: Option<f64>,
    /// Meets the tier it was judged against (`true` without a tier).
    pub meets_tier: bool,
}

/// The figures of `session` (a steady state of `scenario`) at `percentile`, judged against
/// `tier` when given. `None` when the per-turn scenario does not validate.
pub fn agent_figures(
    scenario: &Scenario,
    session: &SessionPoint,
    percentile: UserPercentile,
    power: Option<&PowerBasis>,
    gpus_per_server: u32,
    tier: Option<&Tier>,
) -> Option<AgentFigures> {
    let shape = SessionShape::of(scenario)?;
    let running = session.running_turns.round().max(1.0) as u32;
    let turn = turn_scenario(scenario, &shape, session.hit_rate, running)?;
    let tail = tail_estimate(&turn, &session.point, percentile.value());
    let gpus = session.point.gpus.max(1);
    let agents = f64::from(session.agents);
    let megawatts = power.map(|p| f64::from(gpus) * p.facility_w_per_gpu() / 1e6);
    let per_mw = |value: f64| megawatts.filter(|mw| *mw > 0.0).map(|mw| value / mw);
    let output = session.point.output_tok_s;
    let interactivity = if tail.tpot_ms > 0.0 {
        1000.0 / tail.tpot_ms
    } else {
        0.0
    };
    let meets_tier = tier.is_none_or(|tier| {
        session.point.fits && tail.ttft_ms <= tier.ttft_ms && interactivity >= tier.tok_s_per_user
    });
    Some(AgentFigures {
        agents: session.agents,
        gpus,
        percentile: percentile.value(),
        interactivity_tok_s: interactivity,
        ttft_ms: tail.ttft_ms,
        tpot_ms: tail.tpot_ms,
        agents_per_gpu: agents / f64::from(gpus),
        agents_per_server: agents / f64::from(gpus) * f64::from(gpus_per_server.max(1)),
        agents_per_mw: per_mw(agents),
        output_tok_s_per_mw: per_mw(output),
        joules_per_output_token: power
            .filter(|_| output > 0.0)
            .map(|p| f64::from(gpus) * p.facility_w_per_gpu() / output),
        meets_tier,
    })
}

/// Most agents searched (a bound on the doubling search).
const MAX_AGENTS: u32 = 1 << 20;

/// The most agents `scenario` serves at `tier`, with their steady state and figures: doubling
/// from one agent until the tier is missed, then bisection (tails grow with the agents). `None`
/// when not even one agent meets it.
pub fn agents_at_tier(
    scenario: &Scenario,
    tier: &Tier,
    power: Option<&PowerBasis>,
    gpus_per_server: u32,
) -> Option<(SessionPoint, AgentFigures)> {
    let judge = |agents: u32| -> Option<(SessionPoint, AgentFigures)> {
        let session = evaluate_sessions(scenario, agents)?;
        let figures = agent_figures(
            scenario,
            &session,
            tier.percentile,
            power,
            gpus_per_server,
            Some(tier),
        )?;
        figures.meets_tier.then_some((session, figures))
    };
    let mut best = judge(1)?;
    let mut low = 1_u32;
    let mut high = None;
    while low < MAX_AGENTS {
        let next = low.saturating_mul(2);
        match judge(next) {
            Some(found) => {
                best = found;
                low = next;
            }
            None => {
                high = Some(next);
                break;
            }
        }
    }
    let mut high = high.unwrap_or(MAX_AGENTS);
    // Each pass halves the gap, so at most 21 passes.
    while high > low + 1 {
        let middle = low + (high - low) / 2;
        match judge(middle) {
            Some(found) => {
                best = found;
                low = middle;
            }
            None => high = middle,
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sessions::tests::agentic;

    #[test]
    fn figures_divide_by_gpus_servers_and_megawatts() {
        let scenario = agentic();
        let power = PowerBasis::of(&scenario, Some(1000.0), 1.25).expect("power");
        let session = evaluate_sessions(&scenario, 4).expect("point");
        let figures = agent_figures(
            &scenario,
            &session,
            UserPercentile::P90,
            Some(&power),
            8,
            None,
        )
        .expect("figures");
        assert_eq!(figures.agents_per_gpu, 4.0);
        assert_eq!(figures.agents_per_server, 32.0);
        // One GPU at 1250 W facility: 800 GPUs per MW.
        let per_mw = figures.agents_per_mw.expect("power");
        assert!((per_mw - 3200.0).abs() < 1e-6, "{per_mw}");
        let joules = figures.joules_per_output_token.expect("power");
        assert!((joules * session.point.output_tok_s - 1250.0).abs() < 1e-6);
        assert!(figures.meets_tier);
    }

    #[test]
    fn a_higher_percentile_is_less_interactive() {
        let scenario = agentic();
        let session = evaluate_sessions(&scenario, 8).expect("point");
        let at = |p| {
            agent_figures(&scenario, &session, p, None, 8, None)
                .expect("figures")
                .interactivity_tok_s
        };
        assert!(at(UserPercentile::P99) <= at(UserPercentile::P90));
        assert!(at(UserPercentile::P90) <= at(UserPercentile::P50));
    }

    #[test]
    fn the_tier_search_finds_the_edge() {
        let scenario = agentic();
        let tier = Tier {
            percentile: UserPercentile::P90,
            ttft_ms: 2000.0,
            tok_s_per_user: 30.0,
        };
        let (session, figures) = agents_at_tier(&scenario, &tier, None, 8).expect("one meets");
        assert!(figures.meets_tier);
        let one_more = evaluate_sessions(&scenario, session.agents + 1).expect("point");
        let beyond = agent_figures(&scenario, &one_more, tier.percentile, None, 8, Some(&tier))
            .expect("figures");
        assert!(!beyond.meets_tier, "{beyond:?}");
    }
}
