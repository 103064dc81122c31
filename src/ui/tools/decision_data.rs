//! What the decision panels and the chart overlay derive from the scenarios on the page: for the
//! current scenario and each pin, the SLO verdict along the curve and the point its capacity is
//! judged at (`sizing`); each pin's curve; and the chart `Overlay`.
//!
//! Speed: this is recomputed only when a scenario (not its concurrency), the pins or the SLO
//! change: the memo keys on the curve's `Shared` pointer, which a slider move keeps.

use crate::decide::sizing::{capacity_point, slo_sweep, SloSweep};
use crate::model::slo::{Slo, TailEstimate};
use crate::model::{sweep, Curve, OperatingPoint};
use crate::page::state::{Shared, View};
use crate::present::chart::{Overlay, PinnedCurve};
use crate::scenario::{Scenario, ScenarioInput};
use crate::ui::tools::pins::pin_label;
use yew::prelude::*;

/// One scenario judged against the SLO.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioDecision {
    pub slo: Option<Slo>,
    pub sweep: Option<SloSweep>,
    /// The best point meeting the SLO (with its tails), or without an SLO the max-throughput
    /// point; `None` when no point meets the SLO.
    pub capacity: Option<(OperatingPoint, Option<TailEstimate>)>,
}

pub fn decide(scenario: &Scenario, slo: Option<Slo>) -> ScenarioDecision {
    let sweep = slo.as_ref().map(|slo| slo_sweep(scenario, slo));
    let capacity = capacity_point(scenario, sweep.as_ref());
    ScenarioDecision {
        slo,
        sweep,
        capacity,
    }
}

/// A pinned scenario, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedView {
    pub input: ScenarioInput,
    pub label: String,
    /// The validated scenario, its curve and SLO verdict; or why the pin no longer validates.
    pub evaluated: Result<(Scenario, Curve, ScenarioDecision), String>,
}

fn evaluate_pin(input: &ScenarioInput, slo: Option<Slo>) -> PinnedView {
    let evaluated = Scenario::try_from(input.clone())
        .map(|scenario| {
            let curve = sweep(&scenario);
            let decision = decide(&scenario, slo);
            (scenario, curve, decision)
        })
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

/// Pinned curves (feasible points) and the current curve's SLO misses.
pub fn overlay(current: &ScenarioDecision, pinned: &[PinnedView]) -> Overlay {
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
            label: format!("pin {}: {}", index + 1, pin.label),
            points: match &pin.evaluated {
                Ok((_, curve, _)) => curve
                    .points
                    .iter()
                    .filter(|p| p.fits)
                    .map(|p| (p.tok_s_per_user, p.output_tok_s_per_gpu))
                    .collect(),
                Err(_) => Vec::new(),
            },
        })
        .collect();
    Overlay {
        slo_missed,
        slo_label: current.slo.as_ref().map(slo_miss_label).unwrap_or_default(),
        pins,
    }
}

/// Everything derived, as cheap-to-compare handles.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionData {
    pub current: Shared<ScenarioDecision>,
    pub pinned: Shared<Vec<PinnedView>>,
    pub overlay: Shared<Overlay>,
}

/// Derive everything for `view` (none while no scenario was ever valid) and `pins`.
#[hook]
pub fn use_decision_data(
    view: Option<&View>,
    pins: &[ScenarioInput],
    slo: Option<Slo>,
) -> DecisionData {
    let scenario = view.map(|v| v.scenario.clone());
    let current = use_memo((view.map(|v| v.curve.clone()), slo), move |(_, slo)| {
        Shared::new(match scenario {
            Some(scenario) => decide(&scenario, *slo),
            None => ScenarioDecision {
                slo: *slo,
                sweep: None,
                capacity: None,
            },
        })
    });
    let pinned = use_memo((pins.to_vec(), slo), |(pins, slo)| {
        Shared::new(
            pins.iter()
                .map(|input| evaluate_pin(input, *slo))
                .collect::<Vec<_>>(),
        )
    });
    let current = (*current).clone();
    let pinned = (*pinned).clone();
    let overlay = use_memo((current.clone(), pinned.clone()), |(current, pinned)| {
        Shared::new(overlay(current, pinned))
    });
    DecisionData {
        current,
        pinned,
        overlay: (*overlay).clone(),
    }
}
