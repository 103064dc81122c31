//! The decision panels' hook: derives `page::decision_data` for the scenarios on the page.
//!
//! Speed: this is recomputed only when a scenario (not its concurrency), the pins or the demand
//! (SLO, traffic, sizing rules) change: the memo keys on the curve's `Shared` pointer, which a slider move keeps.

use crate::page::decision_data::{
    decide, evaluate_pin, overlay, DecisionData, Demand, ScenarioDecision,
};
use crate::page::state::{Shared, View};
use crate::scenario::ScenarioInput;
use yew::prelude::*;

/// Derive everything for `view` (none while no scenario was ever valid) and `pins`.
#[hook]
pub fn use_decision_data(
    view: Option<&View>,
    pins: &[ScenarioInput],
    demand: Demand,
) -> DecisionData {
    let scenario = view.map(|v| v.scenario.clone());
    let current = use_memo(
        (view.map(|v| v.curve.clone()), demand),
        move |(_, demand)| {
            Shared::new(match scenario {
                Some(scenario) => decide(&scenario, *demand),
                None => ScenarioDecision {
                    slo: demand.slo,
                    sweep: None,
                    capacity: None,
                    sized: None,
                    goodput: None,
                    attainment_at_traffic: None,
                    layout: None,
                },
            })
        },
    );
    let pinned = use_memo((pins.to_vec(), demand), |(pins, demand)| {
        Shared::new(
            pins.iter()
                .map(|input| evaluate_pin(input, *demand))
                .collect::<Vec<_>>(),
        )
    });
    let current = (*current).clone();
    let pinned = (*pinned).clone();
    // The pins' legend names say what differs from the current scenario (issue 28 §4).
    // Keyed without the batch size, which the names leave out: a slider move must not
    // recompute the overlay (`label_against` may resolve a pin's layout).
    let first = view.map(|v| ScenarioInput {
        concurrency: 0.0,
        ..v.scenario.input.clone()
    });
    let overlay = use_memo(
        (current.clone(), pinned.clone(), first),
        |(current, pinned, first)| Shared::new(overlay(current, pinned, first.as_ref())),
    );
    DecisionData {
        current,
        pinned,
        overlay: (*overlay).clone(),
    }
}
