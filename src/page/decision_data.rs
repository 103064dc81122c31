//! What the decision panels and the chart overlay derive from the scenarios on the page: for the
//! current scenario and each pin, the SLO verdict along the curve and the point its capacity is
//! judged at (`sizing`); each pin's curve; and the chart `Overlay`.
//!
//! The page's hook (`ui::tools::decision_data`) recomputes this only when a scenario (not its
//! concurrency), the pins or the SLO change.

use crate::decide::sizing::{
    capacity_point, layout_for_target, layout_is_auto, size_configuration, slo_sweep, LayoutChoice,
    LayoutTarget, Sized, SizingRules, SloSweep,
};
use crate::model::slo::TailEstimate;
use crate::model::{sweep, Curve, OperatingPoint};
use crate::page::pins::pin_label;
use crate::page::state::Shared;
use crate::present::chart::{Overlay, PinPoint, PinnedCurve};
use crate::scenario::Slo;
use crate::scenario::{DecisionInput, Traffic};
use crate::scenario::{Scenario, ScenarioInput};

/// What the decision inputs ask of every scenario on the page: the SLO, the traffic and the
/// rules a deployment is sized under. The decision panels' hook recomputes only when this (or a
/// scenario) changes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Demand {
    pub slo: Option<Slo>,
    /// As typed, in its unit (requests/s or tokens/day: each scenario converts it with its own
    /// lengths).
    pub traffic: Option<Traffic>,
    pub rules: SizingRules,
    /// The target interactivity (tokens/s per user) when one is set: without an SLO, what
    /// "auto" chooses the layout for.
    pub tok_s_per_user: Option<f64>,
}

impl Demand {
    /// An SLO alone: no traffic to size for.
    pub fn slo(slo: Option<Slo>) -> Demand {
        Demand {
            slo,
            ..Demand::default()
        }
    }

    /// The decision inputs' demand, with the SLO they give (`DecisionState::slo`).
    pub fn of(decision: &DecisionInput, slo: Option<Slo>) -> Demand {
        Demand {
            slo,
            traffic: decision.traffic(),
            rules: SizingRules::of(decision),
            tok_s_per_user: decision.tok_s_per_user,
        }
    }

    /// Output tokens/s of the traffic for a scenario with these mean lengths.
    pub fn traffic_output_tok_s(&self, input_len: f64, output_len: f64) -> Option<f64> {
        self.traffic?
            .output_tok_s(input_len, output_len)
            .filter(|t| *t > 0.0)
    }
}

/// One scenario judged against the SLO.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioDecision {
    pub slo: Option<Slo>,
    pub sweep: Option<SloSweep>,
    /// The best point meeting the SLO (with its tails), or without an SLO the max-throughput
    /// point; `None` when no point meets the SLO.
    pub capacity: Option<(OperatingPoint, Option<TailEstimate>)>,
    /// This configuration sized for the traffic (`sizing::size_configuration`, the one sizing
    /// function): `None` without a traffic level, else the deployment or why there is none.
    pub sized: Option<Result<Sized, String>>,
    /// With an SLO: the most requests/s this configuration serves with the SLO's percentile of
    /// requests meeting both bounds (`decide::goodput`, simulated).
    pub goodput: Option<crate::decide::goodput::Goodput>,
    /// With an SLO and a traffic: the share of requests meeting it at that traffic, each
    /// replica its share of Poisson arrivals (simulated).
    pub attainment_at_traffic: Option<f64>,
    /// What "auto" chose for the question asked when the scenario leaves its layout to auto
    /// (issue 26 §2): with a traffic and an SLO, the sizing's cheapest layout; with an SLO or a
    /// target interactivity alone, the most tokens/s per GPU meeting it
    /// (`sizing::layout_for_target`); `None` without a target (the default rule).
    pub layout: Option<LayoutChoice>,
}

/// What "auto" chose for `scenario` under `demand`, given its sizing (module doc of `decide`).
fn layout_choice(
    scenario: &Scenario,
    demand: &Demand,
    sized: Option<&Result<Sized, String>>,
) -> Option<LayoutChoice> {
    if !layout_is_auto(scenario) {
        return None;
    }
    if let Some(Ok(sized)) = sized {
        if let (Some(par), Some(why)) = (sized.layout_par, &sized.layout) {
            return Some(LayoutChoice {
                par,
                why: why.clone(),
            });
        }
    }
    let target = match (demand.slo, demand.tok_s_per_user) {
        (Some(slo), _) => LayoutTarget::Slo(slo),
        (None, Some(x)) => LayoutTarget::TokSPerUser(x),
        (None, None) => return None,
    };
    layout_for_target(scenario, target, demand.rules.gpus_per_node)
}

pub fn decide(scenario: &Scenario, demand: Demand) -> ScenarioDecision {
    let slo = demand.slo;
    let sweep = slo.as_ref().map(|slo| slo_sweep(scenario, slo));
    let capacity = capacity_point(scenario, sweep.as_ref());
    let traffic =
        demand.traffic_output_tok_s(scenario.workload.input_mean, scenario.workload.output_mean);
    let sized =
        traffic.map(|traffic| size_configuration(scenario, traffic, slo.as_ref(), &demand.rules));
    let goodput = slo
        .as_ref()
        .and_then(|slo| crate::decide::goodput::configuration_goodput(scenario, slo));
    let attainment_at_traffic = match (&slo, traffic) {
        (Some(slo), Some(traffic)) => {
            crate::decide::goodput::configuration_attainment(scenario, slo, traffic)
        }
        _ => None,
    };
    let layout = layout_choice(scenario, &demand, sized.as_ref());
    ScenarioDecision {
        slo,
        sweep,
        capacity,
        sized,
        goodput,
        attainment_at_traffic,
        layout,
    }
}

/// A scenario judged as the page judges its own: `decide`, and when auto chose another layout
/// (`ScenarioDecision::layout`), that layout evaluated and judged instead (its input still says
/// auto), as the page's knob applies it. Pins and the client report read scenarios this way.
pub fn decide_with_layout(scenario: Scenario, demand: Demand) -> (Scenario, ScenarioDecision) {
    let decision = decide(&scenario, demand);
    let chosen = decision
        .layout
        .as_ref()
        .filter(|choice| choice.par != scenario.par)
        .and_then(|choice| Scenario::try_from(with_layout(&scenario.input, choice)).ok())
        .map(|mut chosen| {
            chosen.input = scenario.input.clone();
            chosen
        });
    match chosen {
        Some(chosen) => {
            let decision = decide(&chosen, demand);
            (chosen, decision)
        }
        None => (scenario, decision),
    }
}

/// `input` with a chosen layout applied (TP and EP of one replica), as `page::knobs` applies it
/// to the page's own scenario.
pub fn with_layout(input: &ScenarioInput, choice: &LayoutChoice) -> ScenarioInput {
    ScenarioInput {
        tp: Some(f64::from(choice.par.tp)),
        ep: (choice.par.ep > 1).then_some(f64::from(choice.par.ep)),
        ..input.clone()
    }
}

/// The decision in a few sentences, for the printed summary (issue 28 §1): the SLO verdict (the
/// best point meeting it, or that none does), the goodput, and the deployment for the traffic
/// with its range and how auto chose the layout. Empty without an SLO or a traffic.
pub fn summary_lines(scenario: &Scenario, decision: &ScenarioDecision) -> Vec<String> {
    use crate::present::format::{format_number, percent, usd_amount};
    let mut lines = Vec::new();
    if let Some(slo) = &decision.slo {
        let number = crate::page::fields::number_text;
        let target = format!(
            "P{} TTFT ≤ {} ms and TPOT ≤ {} ms",
            number(slo.percentile),
            number(slo.ttft_ms),
            number(slo.tpot_ms)
        );
        lines.push(match &decision.capacity {
            Some((point, Some(tail))) => format!(
                "SLO {target}: met up to {} in flight, {} output tok/s per GPU (P{} TTFT {} ms, TPOT {} ms, {} tails).",
                point.concurrency,
                format_number(point.output_tok_s / f64::from(scenario.total_gpus().max(1))),
                number(slo.percentile),
                format_number(tail.ttft_ms),
                format_number(tail.tpot_ms),
                tail.method
            ),
            _ => format!("SLO {target}: no batch size meets it on this configuration."),
        });
        if let Some(goodput) = &decision.goodput {
            lines.push(format!("Goodput: {} (simulated).", goodput.sentence(slo)));
        }
    }
    match &decision.sized {
        Some(Ok(sized)) => {
            let s = sized.sizing;
            let mut line = format!(
                "For the traffic: {} GPUs ({} replicas of {}){}, {} % utilized.",
                s.gpus,
                s.replicas,
                s.gpus_per_replica,
                s.usd_per_month
                    .map(|usd| format!(", {}/month", usd_amount(usd)))
                    .unwrap_or_default(),
                percent(s.utilization)
            );
            if let Some(range) = &sized.range {
                line.push_str(&format!(" Range: {}.", range.sentence()));
            }
            if let Some(layout) = &sized.layout {
                line.push_str(&format!(" {layout}."));
            }
            lines.push(line);
        }
        Some(Err(why)) => lines.push(format!(
            "For the traffic: this configuration cannot carry it within the SLO: {why}."
        )),
        None => {}
    }
    lines
}

/// A pinned scenario, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedView {
    pub input: ScenarioInput,
    pub label: String,
    /// The validated scenario, its curve and SLO verdict; or why the pin no longer validates.
    pub evaluated: Result<(Scenario, Curve, ScenarioDecision), String>,
}

pub fn evaluate_pin(input: &ScenarioInput, demand: Demand) -> PinnedView {
    let evaluated = Scenario::try_from(input.clone())
        .map(|scenario| {
            let (scenario, decision) = decide_with_layout(scenario, demand);
            (sweep(&scenario), scenario, decision)
        })
        .map(|(curve, scenario, decision)| (scenario, curve, decision))
        .map_err(|e| format!("{}: {}", e.field, e.message));
    PinnedView {
        input: input.clone(),
        label: pin_label(input),
        evaluated,
    }
}

/// "misses P90 SLO".
pub fn slo_miss_label(slo: &Slo) -> String {
    format!(
        "misses P{} SLO",
        crate::page::fields::number_text(slo.percentile)
    )
}

/// Pinned curves (feasible points, with what every axis choice plots) and the current curve's
/// SLO misses.
pub fn overlay(
    current: &ScenarioDecision,
    pinned: &[PinnedView],
    first: Option<&ScenarioInput>,
) -> Overlay {
    let slo_missed = current
        .sweep
        .as_ref()
        .map(|sweep| {
            sweep
                .checks
                .iter()
                .filter(|c| c.fits && !c.meets)
                .map(|c| c.concurrency)
                .collect()
        })
        .unwrap_or_default();
    let pins = pinned
        .iter()
        .enumerate()
        .map(|(index, pin)| PinnedCurve {
            label: format!(
                "pin {}: {}",
                index + 1,
                first.map_or_else(
                    || pin.label.clone(),
                    |first| crate::page::pins::label_against(first, &pin.input)
                )
            ),
            points: match &pin.evaluated {
                Ok((_, curve, _)) => curve
                    .points
                    .iter()
                    .filter(|p| p.fits)
                    .map(PinPoint::from)
                    .collect(),
                Err(_) => Vec::new(),
            },
        })
        .collect();
    Overlay {
        slo_missed,
        slo_label: current.slo.as_ref().map(slo_miss_label).unwrap_or_default(),
        pins,
        ..Overlay::default()
    }
}

/// Everything derived, as cheap-to-compare handles.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionData {
    pub current: Shared<ScenarioDecision>,
    pub pinned: Shared<Vec<PinnedView>>,
    pub overlay: Shared<Overlay>,
}
