//! The concurrency grid: which concurrencies a curve, a search or the closed loop's
//! work-conserving scheduler evaluates. Built here only, so every curve ends at the same
//! feasibility edge (`capacity::max_concurrency`).

use super::capacity::max_concurrency;
use crate::scenario::{Batching, Scenario};

/// Concurrencies to sweep: powers of 2^(1/4) from 1 to `limit`, deduplicated, plus the KV
/// capacity and the limit itself so the feasibility edge is on the curve.
pub fn sweep_grid(limit: u32, kv_capacity: u32) -> Vec<u32> {
    let limit = limit.max(1);
    let mut grid = Vec::new();
    let mut value = 1.0f64;
    while value <= f64::from(limit) {
        grid.push(value.round() as u32);
        value *= 2f64.powf(0.25);
    }
    grid.push(limit);
    if kv_capacity >= 1 && kv_capacity < limit {
        grid.push(kv_capacity);
    }
    grid.sort_unstable();
    grid.dedup();
    grid
}

/// The grid of a scenario under `batching`: from 1 to the engine limit, with that policy's
/// capacity (`capacity::max_concurrency`) on it. Pass `scenario.batching` for the scenario's own.
pub fn concurrency_grid(scenario: &Scenario, batching: Batching) -> Vec<u32> {
    sweep_grid(scenario.engine_limit(), max_concurrency(scenario, batching))
}
