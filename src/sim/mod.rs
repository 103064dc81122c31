//! The discrete-event simulator (DES): serves a sampled stream of requests iteration by iteration
//! on every replica of a validated `Scenario`, with the analytic model's step-time physics, and
//! reports the percentiles and steady-state throughputs the analytic mode cannot (MODEL.md §6).
//!
//! Shape of a run (`simulate`):
//! 1. `workload` draws the request sample (lengths, open-loop arrival times) from the seed.
//! 2. Requests are routed to replicas. Open loop: round-robin in arrival order. Closed loop: each
//!    replica keeps its share of the `C` slots (`⌈C/R⌉` or `⌊C/R⌋`) and a finished request's
//!    successor goes where it finished — what a least-outstanding-requests router does in a
//!    closed loop — so replicas never interact and each runs alone.
//! 3. Each replica runs `continuous` or `static_batch` until its requests are served or a bound
//!    (event budget, horizon) stops it; `metrics` records a steady-state window. A closed loop
//!    under the steady protocol starts warm (`Replica::start`: the slots' first sequences
//!    already spread through their outputs, unmeasured), so the window sees the steady state
//!    and not the first wave's prefill queue; the benchmark protocol starts idle on purpose.
//! 4. `result::summarize` merges the replicas.
//!
//! A disaggregated scenario (`scenario.pools`) runs `disagg` instead: both pools and the KV
//! hand-off in one event loop.
//!
//! Options as given (`SimInput`, the CLI's flags) become a `SimConfig` through `try_from`
//! (`input`); a config built in code is checked by `SimConfig::check` when it runs.
//!
//! Invariants: no clock, no OS randomness, no I/O (a test greps for them); every loop is bounded;
//! the same scenario, config and seed give bit-identical results.

pub mod bench;
mod continuous;
mod disagg;
pub mod histogram;
mod input;
pub mod kv;
pub mod load;
mod metrics;
mod replica;
mod result;
pub mod rng;
#[cfg(feature = "session-model")]
pub mod sessions;
mod static_batch;
pub mod step;
pub mod workload;

pub use input::SimInput;
pub use metrics::RequestSlo;
pub use result::{
    LatencySummary, SimResult, SloOutcome, TokenLedger, Truncation, CONFIDENT_MEASURED,
};
pub use workload::Arrivals;

use crate::scenario::{Batching, Protocol, Scenario};
use kv::KvGeometry;
use metrics::{LatencySamples, Recorder, WindowEnd};
use replica::{EngineSettings, Replica, Source};
use rng::{Rng, Stream};
use serde::{Deserialize, Serialize};

/// How to simulate: arrivals, sample size, seed, bounds and what to measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    pub arrivals: Arrivals,
    /// Requests in the sample.
    pub requests: u32,
    pub seed: u64,
    /// Scheduler passes allowed in all (one per iteration, or per macro-step of identical
    /// iterations); split evenly over the busy replicas. MODEL.md §6.6 suggests 10⁵ per sweep point.
    pub max_events: u64,
    /// Simulated seconds after which a replica stops.
    pub horizon_s: f64,
    pub slo: Option<RequestSlo>,
    /// Share of each replica's requests whose completions are discarded as warm-up, in [0, 0.9].
    pub warmup_fraction: f64,
    /// Static batching: how long the oldest queued request waits for a full batch (`t_wait`).
    pub batch_timeout_s: f64,
    /// `steady`: measure the closed loop's steady-state window. `benchmark`: replay a serving
    /// benchmark (`scenario::Protocol::Benchmark`): the closed loop's `C` start at t = 0, the run
    /// stops after `requests` completions, and every request and the whole run are measured
    /// (no warm-up, no window), as `vllm bench serve` and SGLang `bench_serving` report them.
    pub protocol: Protocol,
}

impl Default for SimConfig {
    /// 2000 requests, closed loop at 64, seed 1, 10⁶ events, a 10⁶-second horizon, 10 % warm-up,
    /// 0.5 s batch timeout (an assumption: Triton-style queue delays are tens to hundreds of ms).
    fn default() -> SimConfig {
        SimConfig {
            arrivals: Arrivals::Closed { concurrency: 64 },
            requests: 2000,
            seed: 1,
            max_events: 1_000_000,
            horizon_s: 1e6,
            slo: None,
            warmup_fraction: 0.1,
            batch_timeout_s: 0.5,
            protocol: Protocol::Steady,
        }
    }
}

/// Most requests one run may sample (memory is 16 bytes per request).
pub const MAX_REQUESTS: u32 = 10_000_000;

/// A `SimConfig` field out of range, named as in the JSON (`snake_case`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfigError {
    pub field: &'static str,
    pub message: String,
}

impl std::fmt::Display for SimConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SimConfigError {}

fn invalid(field: &'static str, message: String) -> SimConfigError {
    SimConfigError { field, message }
}

fn positive(field: &'static str, value: f64, max: f64) -> Result<(), SimConfigError> {
    if value.is_finite() && value > 0.0 && value <= max {
        Ok(())
    } else {
        Err(invalid(
            field,
            format!("must be a number above 0 and at most {max} (got {value})"),
        ))
    }
}

impl SimConfig {
    /// Check every field once (parse, don't validate: `simulate` trusts a checked config).
    pub fn check(&self) -> Result<(), SimConfigError> {
        match self.arrivals {
            Arrivals::Closed { concurrency } => {
                if concurrency == 0 || concurrency > MAX_REQUESTS {
                    return Err(invalid(
                        crate::scenario::fields::CONCURRENCY.key,
                        format!("must be from 1 to {MAX_REQUESTS} (got {concurrency})"),
                    ));
                }
            }
            Arrivals::Poisson { rate_per_s } => positive("rate_per_s", rate_per_s, 1e9)?,
            Arrivals::Gamma { rate_per_s, cv } => {
                positive("rate_per_s", rate_per_s, 1e9)?;
                positive("cv", cv, 100.0)?;
            }
        }
        if self.requests == 0 || self.requests > MAX_REQUESTS {
            return Err(invalid(
                "requests",
                format!("must be from 1 to {MAX_REQUESTS} (got {})", self.requests),
            ));
        }
        if self.max_events == 0 {
            return Err(invalid("max_events", "must be at least 1".into()));
        }
        positive("horizon_s", self.horizon_s, 1e12)?;
        if !(0.0..=0.9).contains(&self.warmup_fraction) {
            return Err(invalid(
                "warmup_fraction",
                format!("must be from 0 to 0.9 (got {})", self.warmup_fraction),
            ));
        }
        if !(self.batch_timeout_s.is_finite() && self.batch_timeout_s >= 0.0) {
            return Err(invalid(
                "batch_timeout_s",
                format!("must be 0 or more (got {})", self.batch_timeout_s),
            ));
        }
        if let Some(slo) = self.slo {
            positive("slo.ttft_ms", slo.ttft_ms, f64::MAX)?;
            positive("slo.tpot_ms", slo.tpot_ms, f64::MAX)?;
        }
        Ok(())
    }
}

/// Engine settings common to every replica of a scenario.
fn engine_settings(scenario: &Scenario, config: &SimConfig, busy: u32) -> EngineSettings {
    let max_tokens = workload::max_model_tokens(scenario.max_model_len);
    let spec = scenario.spec.map(|s| {
        let len = if s.len >= 1.0 {
            s.len.min(64.0) as u32
        } else {
            0
        };
        (s.accept, len)
    });
    // The static batch: the closed loop's share of slots, or the scenario's concurrency per
    // replica in an open loop, within the engine limit.
    let wanted = match config.arrivals {
        Arrivals::Closed { concurrency } => concurrency.div_ceil(busy.max(1)),
        _ => scenario.concurrency.div_ceil(scenario.replicas.max(1)),
    };
    EngineSettings {
        kv: KvGeometry::from_scenario(scenario, max_tokens),
        chunk_tokens: scenario.step_token_budget().max(1),
        prompt_chunk_tokens: scenario.chunk_tokens.max(1),
        max_num_seqs: scenario.max_num_seqs.max(1),
        prefix_hit: scenario.workload.prefix_hit,
        spec,
        max_events: config.max_events.div_ceil(u64::from(busy.max(1))),
        horizon_s: config.horizon_s,
        static_batch: wanted.min(scenario.max_num_seqs).max(1),
        batch_timeout_s: config.batch_timeout_s,
        server_overhead_s: scenario.server_overhead.0,
        warm_start: matches!(config.arrivals, Arrivals::Closed { .. })
            && config.protocol == Protocol::Steady
            && scenario.batching == Batching::Continuous,
    }
}

/// Simulate the scenario under the config (MODEL.md §6). Bad config is an error; a run cut short
/// by a bound is an outcome (`SimResult::truncated`).
pub fn simulate(scenario: &Scenario, config: &SimConfig) -> Result<SimResult, SimConfigError> {
    if let Some(pools) = scenario.pools.as_deref() {
        return disagg::simulate(scenario, pools, config);
    }
    config.check()?;
    let sample = workload::sample_requests(
        &scenario.workload,
        scenario.max_model_len,
        config.requests,
        config.seed,
        config.arrivals,
    );
    let replicas = scenario.replicas.max(1);
    let (busy, concurrency) = match config.arrivals {
        Arrivals::Closed { concurrency } => (replicas.min(concurrency), Some(concurrency)),
        _ => (replicas.min(config.requests), None),
    };
    let settings = engine_settings(scenario, config, busy);
    let stride = usize::try_from(busy).unwrap_or(1);
    let mut samples = LatencySamples::default();
    let mut windows = Vec::new();
    let mut outcomes = Vec::new();
    for replica in 0..busy {
        let first = usize::try_from(replica).unwrap_or(usize::MAX);
        let routed = Source::total(sample.len(), first, stride);
        let source = Source::new(&sample, first, stride, concurrency.is_some());
        let slots = concurrency.map_or(0, |c| c / busy + u32::from(replica < c % busy));
        let warmup = (config.warmup_fraction * f64::from(routed)).floor() as u32;
        let (warmup, end) = match concurrency {
            Some(_) if config.protocol == Protocol::Benchmark => (0, WindowEnd::AtRunEnd),
            Some(_) if routed > slots.saturating_add(warmup) => {
                (warmup, WindowEnd::AfterDone(routed - slots))
            }
            Some(_) => (0, WindowEnd::AtRunEnd),
            None => (warmup, WindowEnd::AtLastArrival),
        };
        let recorder = Recorder::new(&mut samples, config.slo, warmup, end);
        let rng = Rng::stream(config.seed, Stream::Acceptance(replica));
        let run = match scenario.batching {
            Batching::Continuous => continuous::run,
            Batching::Static => static_batch::run,
        };
        let (outcome, window) = run(Replica::start(
            scenario, settings, source, recorder, rng, slots,
        ));
        outcomes.push(outcome);
        windows.push(window);
    }
    Ok(result::summarize(
        config.requests,
        scenario.gpu_count,
        settings.kv.total_blocks,
        config.slo,
        &samples,
        &windows,
        &outcomes,
    ))
}
