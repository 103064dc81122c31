//! The one entry that evaluates an operating point: the scenario's batching policy picks the
//! steady-state model, continuous batching's closed loop (`serving`, MODEL.md §4.2) or static
//! batching's padded batches (`static_batching`, §4.1); a disaggregated scenario (`scenario.pools`)
//! goes to `disagg` (§4.4). Everything above the policies (the sweep,
//! SLO search, techniques, decisions, page and CLI) evaluates through here.

use super::disagg::evaluate_disaggregated;
use super::operating_point::OperatingPoint;
pub use super::serving::SteadyMemo;
use super::serving::{evaluate_continuous, evaluate_continuous_in};
use super::static_batching::evaluate_static;
use crate::scenario::{Batching, Scenario};

/// Evaluate the scenario at its concurrency under its batching policy.
pub fn evaluate(scenario: &Scenario) -> OperatingPoint {
    if scenario.pools.is_some() {
        return evaluate_disaggregated(scenario);
    }
    match scenario.batching {
        Batching::Continuous => evaluate_continuous(scenario),
        Batching::Static => evaluate_static(scenario),
    }
}

/// `evaluate` for one scenario moved along concurrencies (a sweep): `memo` keeps the batch
/// steady states already computed (`serving::SteadyMemo`; static batching needs none).
pub fn evaluate_in(scenario: &Scenario, memo: &mut SteadyMemo) -> OperatingPoint {
    if scenario.pools.is_some() {
        return evaluate_disaggregated(scenario);
    }
    match scenario.batching {
        Batching::Continuous => evaluate_continuous_in(scenario, memo),
        Batching::Static => evaluate_static(scenario),
    }
}
