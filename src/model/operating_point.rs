//! The operating point: what one evaluation reports, and `assemble`, which derives throughputs,
//! cost, the memory split, the bound and the warnings from a batching policy's steady state, the
//! same way for both policies (MODEL.md §3 metric definitions, §7 cost).

use super::capacity::max_concurrency;
use super::ttft::BenchmarkFigures;
use crate::physics::cost::{cost_breakdown, CostBreakdown};
use crate::physics::memory::MemorySplit;
use crate::physics::step::{Bound, StepBreakdown};
use crate::scenario::Scenario;
use crate::units::Seconds;
use serde::Serialize;

/// One operating point: everything the page's numbers and the CLI's JSON show.
/// Where an operating point's latency headline comes from (serialized `analytic`, `simulator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HeadlineSource {
    Analytic,
    Simulator,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatingPoint {
    /// Requests in flight across the whole system.
    pub concurrency: u32,
    /// Requests actually batched per busy replica (≤ KV capacity and engine limit).
    pub batch_per_replica: f64,
    /// Output tokens/s, all GPUs.
    pub output_tok_s: f64,
    pub output_tok_s_per_gpu: f64,
    /// Prompt + output tokens/s, all GPUs.
    pub total_tok_s: f64,
    pub requests_per_s: f64,
    /// Interactivity, `1/TPOT`.
    pub tok_s_per_user: f64,
    /// Decode time per generated token of one sequence without prefill stalls (`τ_d/E_tok`).
    pub decode_ms_per_token: f64,
    pub tpot_ms: f64,
    pub ttft_ms: f64,
    pub e2e_ms: f64,
    /// Largest system concurrency whose KV cache fits under the scenario's batching
    /// (`capacity::max_concurrency`).
    pub max_concurrency: u32,
    /// Engine limit (`max_num_seqs × replicas`).
    pub engine_limit: u32,
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    /// Attention data-parallel ranks per replica stage; left out of JSON when 1 (no attention DP).
    #[serde(skip_serializing_if = "is_one")]
    pub dp_attention: u32,
    pub replicas: u32,
    pub gpus: u32,
    /// Fraction of busy GPU time spent on prefill (`ρ_pf`).
    pub prefill_share: f64,
    /// Prefill cost per prompt token, µs (`c_pf`).
    pub prefill_us_per_token: f64,
    /// The prices below are `None` when the scenario has no price per GPU-hour (the warnings
    /// say so); throughput and latency never need one.
    pub usd_per_m_output: Option<f64>,
    pub usd_per_m_input: Option<f64>,
    pub usd_per_m_blended: Option<f64>,
    pub cost: Option<CostBreakdown>,
    pub memory: MemorySplit,
    /// Decode step at this batch, per GPU.
    pub decode_step: StepBreakdown,
    pub bound: Bound,
    pub bound_label: &'static str,
    /// Within KV capacity and the engine limit.
    pub fits: bool,
    /// Deep saturation: a resource (the step's token budget left for prompts, the KV cache, the
    /// engine's sequence limit) is so close to fully used that requests queue for it, and the
    /// closed-form TTFT cannot follow that queue (`serving::saturation`). Throughput and TPOT
    /// still hold; the TTFT to trust is the simulator's (`headline_source`).
    pub saturated: bool,
    /// Where the latency headline should come from: the analytic model, or the simulator at a
    /// saturated point (`servecost estimate` then runs the simulator for TTFT and E2E).
    pub headline_source: HeadlineSource,
    pub warnings: Vec<String>,
    /// What a serving benchmark would print (`protocol = benchmark`; then `ttft_ms` and
    /// `e2e_ms` are its means); absent in the steady state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<BenchmarkFigures>,
    /// Disaggregated serving's pools and KV transfer (`model::disagg`), flattened into the
    /// point's JSON; absent under aggregated serving.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub disagg: Option<DisaggFigures>,
}

/// What carries a disaggregated point's KV hand-off: NVLink within a node, else the network
/// (`scenario::pools`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvLink {
    Nvlink,
    Network,
}

crate::choice::choices!(KvLink {
    KvLink::Nvlink => "nvlink", "NVLink";
    KvLink::Network => "network", "network";
});

/// What a disaggregated point adds (issue 14 §1): both pools, the KV hand-off and how busy each
/// pool is (rate over its capacity).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DisaggFigures {
    /// Always disaggregated (the JSON says so).
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub serving: crate::scenario::pools::Serving,
    pub prefill_gpus: u32,
    pub decode_gpus: u32,
    pub prefill_replicas: u32,
    pub decode_replicas: u32,
    pub prefill_tp: u32,
    pub decode_tp: u32,
    /// Mean time to move one prompt's KV to the decode pool (part of TTFT).
    pub kv_transfer_ms: f64,
    /// What carries the KV hand-off.
    #[serde(serialize_with = "crate::choice::as_id::serialize")]
    pub kv_link: KvLink,
    /// Mean wait in the prefill pool's queue (part of TTFT).
    pub prefill_queue_ms: f64,
    pub prefill_utilization: f64,
    pub decode_utilization: f64,
}

/// What a batching policy's steady state determines; `assemble` derives the rest.
pub(super) struct Steady {
    pub concurrency: u32,
    pub busy_replicas: u32,
    /// Sequences batched per busy replica.
    pub batch: f64,
    /// Sequences' worth of KV (at the live context) held per replica.
    pub kv_sequences: f64,
    pub decode: StepBreakdown,
    pub c_pf: Seconds,
    pub requests_per_s_replica: f64,
    pub prefill_share: f64,
    pub tpot: Seconds,
    /// `τ_d/E_tok`: the TPOT a stream would see with no prefill stalls.
    pub tau_per_token: Seconds,
    pub ttft: Seconds,
    pub e2e: Seconds,
    pub over_kv: bool,
    pub over_engine: bool,
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

/// Throughputs, cost, memory split, bound and warnings from a policy's steady state.
pub(super) fn assemble(scenario: &Scenario, s: Steady) -> OperatingPoint {
    let workload = &scenario.workload;
    let replicas = scenario.replicas.max(1);
    let busy = f64::from(s.busy_replicas);
    let requests_per_s = s.requests_per_s_replica * busy;
    let output_tok_s = requests_per_s * workload.output_mean;
    let input_tok_s = requests_per_s * workload.input_mean;
    let total_tok_s = output_tok_s + input_tok_s;
    let gpus = scenario.gpu_count.max(1);
    // Idle replicas still bill; busy ones split their time between prefill and decode.
    let busy_fraction = busy / f64::from(replicas);
    let cost = scenario.usd_per_gpu_hour.map(|usd_per_gpu_hour| {
        cost_breakdown(
            gpus,
            usd_per_gpu_hour,
            output_tok_s,
            input_tok_s,
            s.prefill_share * busy_fraction,
        )
    });

    let pool_gb = scenario.kv_pool_per_gpu.gb();
    let kv_used_gb = (scenario.kv_per_sequence_gpu * s.kv_sequences)
        .gb()
        .min(pool_gb);
    let total_gb = scenario.gpu.memory_gb;
    let memory = MemorySplit {
        total_gb,
        weights_gb: scenario.weights_per_gpu.gb(),
        reserved_gb: scenario.efficiency.reserved_gb,
        kv_pool_gb: pool_gb,
        kv_used_gb,
        free_gb: (total_gb
            - scenario.weights_per_gpu.gb()
            - scenario.efficiency.reserved_gb
            - kv_used_gb)
            .max(0.0),
    };

    let bound = if s.over_kv {
        Bound::KvCapacity
    } else if s.over_engine {
        Bound::EngineLimit
    } else {
        s.decode.bound()
    };
    let mut warnings = scenario.warnings.clone();
    if s.over_kv {
        warnings.push(format!(
            "{} requests in flight exceed the KV cache ({} per replica, {} in all): the rest wait or are preempted, so latency grows while throughput stays at capacity",
            s.concurrency,
            scenario.kv_capacity_per_replica,
            scenario.kv_capacity()
        ));
    } else if s.over_engine {
        warnings.push(format!(
            "{} requests in flight exceed the engine limit of {} sequences per replica: the rest wait",
            s.concurrency, scenario.max_num_seqs
        ));
    }

    OperatingPoint {
        concurrency: s.concurrency,
        batch_per_replica: s.batch,
        output_tok_s,
        output_tok_s_per_gpu: output_tok_s / f64::from(gpus),
        total_tok_s,
        requests_per_s,
        tok_s_per_user: if s.tpot.0 > 0.0 { 1.0 / s.tpot.0 } else { 0.0 },
        decode_ms_per_token: s.tau_per_token.ms(),
        tpot_ms: s.tpot.ms(),
        ttft_ms: s.ttft.ms(),
        e2e_ms: s.e2e.ms(),
        max_concurrency: max_concurrency(scenario, scenario.batching),
        engine_limit: scenario.engine_limit(),
        tp: scenario.par.tp,
        pp: scenario.par.pp,
        ep: scenario.par.ep,
        dp_attention: scenario.par.dp,
        replicas,
        gpus,
        prefill_share: s.prefill_share,
        prefill_us_per_token: s.c_pf.0 * 1e6,
        usd_per_m_output: cost.map(|c| c.usd_per_m_output),
        usd_per_m_input: cost.map(|c| c.usd_per_m_input),
        usd_per_m_blended: cost.map(|c| c.usd_per_m_blended),
        cost,
        memory,
        decode_step: s.decode,
        bound,
        bound_label: bound.label(),
        fits: !s.over_kv && !s.over_engine,
        saturated: false,
        headline_source: HeadlineSource::Analytic,
        warnings,
        benchmark: None,
        disagg: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::model::evaluate;
    use crate::scenario::{Scenario, ScenarioInput};

    fn gb200(usd_per_gpu_hour: Option<f64>) -> Scenario {
        Scenario::try_from(ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour,
            ..ScenarioInput::default()
        })
        .expect("valid")
    }

    /// Without a price every cost is `None` (JSON `null`), never a made-up number, the point's
    /// warnings say why, and throughput and latency are those of the same scenario with a price.
    #[test]
    fn without_a_price_the_costs_are_none_and_null_in_json() {
        let point = evaluate(&gb200(None));
        assert_eq!(point.cost, None);
        assert_eq!(point.usd_per_m_output, None);
        assert_eq!(point.usd_per_m_input, None);
        assert_eq!(point.usd_per_m_blended, None);
        assert!(
            point
                .warnings
                .iter()
                .any(|w| w.starts_with("no rental price for NVIDIA GB200")),
            "{:?}",
            point.warnings
        );
        let priced = evaluate(&gb200(Some(6.0)));
        assert!(priced.usd_per_m_output.is_some_and(|usd| usd > 0.0));
        assert_eq!(point.output_tok_s, priced.output_tok_s);
        assert_eq!(point.tpot_ms, priced.tpot_ms);
        assert_eq!(point.ttft_ms, priced.ttft_ms);

        let json = serde_json::to_value(&point).expect("serializes");
        for key in [
            "usd_per_m_output",
            "usd_per_m_input",
            "usd_per_m_blended",
            "cost",
        ] {
            assert_eq!(json.get(key), Some(&serde_json::Value::Null), "{key}");
        }
        assert!(json["output_tok_s"].as_f64().is_some_and(|v| v > 0.0));
        let priced_json = serde_json::to_value(&priced).expect("serializes");
        assert!(priced_json["usd_per_m_output"].is_f64());
        assert!(priced_json["cost"]["usd_per_m_blended"].is_f64());
    }
}
