//! What the decision panels and the chart overlay derive from the scenarios on the page: for the
//! current scenario and each pin, the SLO verdict along the curve and the point its capacity is
//! judged at (`sizing`); each pin's curve; and the chart `Overlay`.
//!
//! The page's hook (`ui::tools::decision_data`) recomputes this only when a scenario (not its
//! concurrency), the pins or the SLO change.

use crate::decide::sizing::{capacity_point, slo_sweep, SloSweep};
use crate::model::slo::{Slo, TailEstimate};
use crate::model::{sweep, Curve, OperatingPoint};
use crate::page::pins::pin_label;
use crate::page::state::Shared;
use crate::present::chart::{Overlay, PinPoint, PinnedCurve};
use crate::scenario::{Scenario, ScenarioInput};

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

pub fn evaluate_pin(input: &ScenarioInput, slo: Option<Slo>) -> PinnedView {
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

/// Pinned curves (feasible points, with what every axis choice plots) and the current curve's
/// SLO misses.
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
