//! The analytic serving model: architecture, precision, memory, step time, continuous batching,
//! cost and the Pareto curve. Pure functions of a validated `Scenario`; no I/O, no clock.

pub mod architecture;
pub mod cost;
pub mod economics;
pub mod efficiency;
pub mod memory;
pub mod pareto;
pub mod precision;
pub mod serving;
pub mod slo;
pub mod static_batching;
pub mod step;
pub mod techniques;
pub mod workload;

pub use pareto::{sweep, Curve, CurvePoint};
pub use serving::{evaluate, OperatingPoint};
pub use step::Bound;
