//! The physics of serving on one GPU and one replica: the vocabulary every floor above speaks.
//! A model's architecture (parameters, layers, attention, experts), the numeric formats and the
//! GEMM mode each precision runs in, the replica's parallel layout and its links, the bytes of
//! weights and KV cache and how many sequences a pool holds, the engine profiles (efficiencies
//! and overheads, tuned and stock), one iteration's time (`step`), the workload's lengths, and
//! the cost of a GPU-hour. It reads the catalog and nothing above it: no `Scenario`, no
//! evaluation (`tests/tidy.rs` checks the floors).
//!
//! Dependency order: imports point one way, from a module to modules before it in this list
//! (the test below checks it): `architecture`, `precision`, `engine`, `efficiency`, `workload`,
//! `parallelism`, `memory`, `step`, `cost`, `economics`.

pub mod architecture;
pub mod cost;
pub mod economics;
pub mod efficiency;
pub mod engine;
pub mod memory;
pub mod parallelism;
pub mod precision;
pub mod step;
pub mod workload;

pub use step::Bound;

#[cfg(test)]
pub(crate) mod tests {
    /// The physics modules in dependency order, with their source up to their tests.
    const ORDER: [(&str, &str); 10] = [
        ("architecture", include_str!("architecture.rs")),
        ("precision", include_str!("precision.rs")),
        ("engine", include_str!("engine.rs")),
        ("efficiency", include_str!("efficiency.rs")),
        ("workload", include_str!("workload.rs")),
        ("parallelism", include_str!("parallelism.rs")),
        ("memory", include_str!("memory.rs")),
        ("step", include_str!("step.rs")),
        ("cost", include_str!("cost.rs")),
        ("economics", include_str!("economics.rs")),
    ];

    /// Whether the library code of `source` (comments and tests left out) names `module`, as
    /// `super::module` or `root::module` (`root` the directory's own module: `physics`, `model`).
    /// The stated-order tests of `physics` and `model` read their sources with it.
    pub(crate) fn names_in(source: &str, root: &str, module: &str) -> bool {
        let library = source.split("#[cfg(test)]").next().unwrap_or(source);
        let code: String = library
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        ["super::".to_string(), format!("{root}::")]
            .iter()
            .any(|prefix| {
                [":", ";", ",", "}", " "]
                    .iter()
                    .any(|end| code.contains(&format!("{prefix}{module}{end}")))
            })
    }

    fn names(source: &str, module: &str) -> bool {
        names_in(source, "physics", module)
    }

    /// The order the module doc states: library code (not tests) names only modules before it.
    #[test]
    fn imports_point_down_the_stated_order() {
        for (rank, (module, source)) in ORDER.iter().enumerate() {
            for (later, _) in ORDER.iter().skip(rank + 1) {
                assert!(
                    !names(source, later),
                    "{module} names {later}, which comes after it"
                );
            }
        }
        // The check sees an import: the test that reads the current tree must be able to fail.
        assert!(names("use super::memory::Parallelism;", "memory"));
        assert!(!names("use super::memoryless;", "memory"));
    }
}
