//! The analytic serving model: continuous and static batching, disaggregated pools, the Pareto
//! curve and the SLO search. Pure functions of a validated `Scenario`, built on the per-GPU
//! physics below it (`crate::physics`: architecture, precision, memory, one step's time, cost);
//! no I/O, no clock.
//!
//! Dependency order: imports point one way, from a module to modules before it in this list
//! (the test below checks it). First `capacity`, the one answer to "how many requests fit" for
//! both policies; `grid`, the one concurrency grid, which ends at that capacity; `decode`, one
//! decode iteration or speculative round; `ttft`, the terms of a user's time to first token and
//! the benchmark protocol; `operating_point`, what an evaluation reports and how a policy's
//! steady state becomes one. Then the two policies side by side, `serving` (continuous) and
//! `static_batching`, which know nothing of each other; `disagg`, disaggregated prefill and
//! decode pools built on `serving`'s pieces; `evaluate`, the one entry that picks between them;
//! and on top `pareto` (the sweep), `slo` and `techniques`.

pub mod capacity;
pub mod decode;
pub mod disagg;
pub mod evaluate;
pub mod expected_error;
pub mod grid;
pub mod operating_point;
pub mod pareto;
pub mod serving;
pub mod slo;
pub mod static_batching;
pub mod techniques;
pub mod ttft;

// Issue 27, agentic sessions (the `session-model` feature; the explorer's first load is built
// without it): the session workload and its emergent prefix-hit rate, then the metrics of an
// agent fleet (interactivity at a percentile, agents per GPU / server / MW), then its
// cache-aware cost, revenue and margin. Each names only modules before it and the model above.
#[cfg(feature = "session-model")]
pub mod agent_economics;
#[cfg(feature = "session-model")]
pub mod agents;
#[cfg(feature = "session-model")]
pub mod sessions;

pub use evaluate::evaluate;
pub use operating_point::{HeadlineSource, OperatingPoint};
pub use pareto::{sweep, Curve, CurvePoint};

#[cfg(test)]
mod tests {
    /// The model's modules in dependency order, with their source up to their tests.
    const ORDER: [(&str, &str); 12] = [
        ("capacity", include_str!("capacity.rs")),
        ("grid", include_str!("grid.rs")),
        ("decode", include_str!("decode.rs")),
        ("ttft", include_str!("ttft.rs")),
        ("operating_point", include_str!("operating_point.rs")),
        ("serving", include_str!("serving.rs")),
        ("static_batching", include_str!("static_batching.rs")),
        ("disagg", include_str!("disagg.rs")),
        ("evaluate", include_str!("evaluate.rs")),
        ("pareto", include_str!("pareto.rs")),
        ("slo", include_str!("slo.rs")),
        ("techniques", include_str!("techniques/mod.rs")),
    ];

    /// The two policies are siblings: neither names the other.
    const SIBLINGS: [(&str, &str); 1] = [("serving", "static_batching")];

    fn names(source: &str, module: &str) -> bool {
        crate::physics::tests::names_in(source, "model", module)
    }

    /// The order the module doc states: library code (not tests) names only modules before it,
    /// and the two batching policies do not name each other.
    #[test]
    fn imports_point_down_the_stated_order() {
        for (rank, (module, source)) in ORDER.iter().enumerate() {
            for (later, _) in ORDER.iter().skip(rank + 1) {
                if later != module {
                    assert!(
                        !names(source, later),
                        "{module} names {later}, which comes after it"
                    );
                }
            }
        }
        for (a, b) in SIBLINGS {
            let source = |name: &str| ORDER.iter().find(|(m, _)| *m == name).map(|(_, s)| *s);
            assert!(!names(source(a).unwrap(), b), "{a} names {b}");
            assert!(!names(source(b).unwrap(), a), "{b} names {a}");
        }
        // The check sees an import: the test that reads the current tree must be able to fail.
        assert!(names("use super::serving::evaluate_continuous;", "serving"));
        assert!(!names("use super::servings;", "serving"));
    }
}
