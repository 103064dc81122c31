//! The decision panels' hook: derives `page::decision_data` for the scenarios on the page.
//!
//! Speed: this is recomputed only when a scenario (not its concurrency), the pins or the SLO
//! change: the memo keys on the curve's `Shared` pointer, which a slider move keeps.

use crate::model::slo::Slo;
use crate::page::decision_data::{decide, evaluate_pin, overlay, DecisionData, ScenarioDecision};
use crate::page::state::{Shared, View};
use crate::scenario::ScenarioInput;
use yew::prelude::*;

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
