//! Decisions built on the model: the cheapest configuration meeting an SLO (`plan`), replicas,
//! GPUs and $ per month for a traffic level (`sizing`), blended and effective prices (`pricing`),
//! SLO checks with simulated percentiles (`slo_sim`), and the hardware leaderboard at a fixed
//! interactivity (`leaderboard`), the other deployment beside the headline (`deployment`), the
//! headline reconciled with the simulator (`headline`), goodput and SLO attainment from the
//! simulator (`goodput`), and the production gap from a tuned synthetic benchmark to production
//! traffic (`production_gap`). Uses the core; the core never uses it.

/// Issue 27: the agentic question (session model feature).
#[cfg(feature = "session-model")]
pub mod agents;
pub mod deployment;
pub mod goodput;
pub mod headline;
pub mod leaderboard;
pub mod plan;
pub mod plan_disagg;
pub mod pricing;
pub mod production_gap;
pub mod sizing;
pub mod slo_sim;
