//! The concurrency grid: which concurrencies a curve, a search or the closed loop's
//! work-conserving scheduler evaluates. Built here only, so every curve ends at the same
//! feasibility edge (`capacity::max_concurrency`).

use super::capacity::max_concurrency;
use crate::scenario::{Batching, Scenario};

/// Sort a short list in place, stably, by `less` (insertion sort). The first load's lists (a
/// sweep's concurrencies and points, the chart's legend entries) hold at most a few hundred
/// items, where this is as quick as the standard library's sorts; those cost 1–3 KB of wasm per
/// element type and order they are instantiated for (issue 15's first-load budget).
pub fn sort_small<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 {
            let (Some(a), Some(b)) = (items.get(j - 1), items.get(j)) else {
                break;
            };
            if !less(b, a) {
                break;
            }
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

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
    sort_small(&mut grid, |a, b| a < b);
    grid.dedup();
    grid
}

/// The grid of a scenario under `batching`: from 1 to the engine limit, with that policy's
/// capacity (`capacity::max_concurrency`) on it. Pass `scenario.batching` for the scenario's own.
pub fn concurrency_grid(scenario: &Scenario, batching: Batching) -> Vec<u32> {
    sweep_grid(scenario.engine_limit(), max_concurrency(scenario, batching))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_small_agrees_with_the_standard_stable_sort() {
        // Pairs (key, position): equal keys must keep their order.
        let mut state = 12345u64;
        for len in [0usize, 1, 2, 3, 17, 64, 300] {
            let items: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (((state >> 33) % 16) as u32, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_small(&mut ours, |a, b| a.0 < b.0);
            let mut std = items;
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std, "len {len}");
        }
    }

    #[test]
    fn the_grid_is_sorted_and_ends_at_the_limit() {
        let grid = sweep_grid(1000, 300);
        assert!(grid.windows(2).all(|w| w[0] < w[1]), "{grid:?}");
        assert_eq!(grid.first(), Some(&1));
        assert_eq!(grid.last(), Some(&1000));
        assert!(grid.contains(&300));
    }
}
