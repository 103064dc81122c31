//! The one door into the model: a raw, serde-able `ScenarioInput` (from the page, the URL, a JSON
//! file or CLI flags) is checked once by `Scenario::try_from` and becomes a validated `Scenario`
//! with everything the model needs resolved (catalog rows, parallelism, memory, step constants).
//!
//! Errors name the field with the same kebab-case name the CLI flag and the page control use
//! (`input-len` ↔ `--input-len` ↔ `#input-len`). Outcomes such as "beyond KV capacity" are not
//! errors; they are values the model reports.

use crate::catalog::{catalog, Arch, Gpu, ModelSpec};
use crate::choice::Choice;
use crate::physics::architecture::Architecture;
use crate::physics::efficiency::Efficiency;
use crate::physics::engine;

mod decision;
pub mod fields;
mod input;
pub mod measurements;
use crate::physics::memory::{
    kv_bytes_per_sequence_gpu, kv_bytes_per_sequence_rank, kv_pool_per_gpu, sequences_fitting,
    weight_bytes_per_gpu, Parallelism, BLOCK_TOKENS,
};
use crate::physics::parallelism::{network_gb_s, scale_up_domain};
use crate::physics::precision::{expert_gemm_mode, gemm_mode, GemmMode, KvPrecision, Precision};
use crate::physics::step::{ExpertSetup, Hardware, StepCost};
use crate::physics::workload::Workload;
use crate::units::{Bytes, BytesPerSecond, FlopsPerSecond, Seconds};
pub use decision::*;
use fields::{
    CHUNK_TOKENS, CONCURRENCY, DP_ATTENTION, EP, EPLB_REDUNDANT_EXPERTS, GPUS, INPUT_LEN,
    INPUT_SIGMA, MAX_MODEL_LEN, MAX_NUM_SEQS, NUM_PROMPTS, OUTPUT_LEN, OUTPUT_SIGMA, PP,
    PREFIX_HIT, SERVER_OVERHEAD_MS, SPEC_ACCEPT, SPEC_DRAFT_COST, SPEC_LEN, TP, USD_PER_GPU_HOUR,
};
pub use input::*;
pub mod fit;
mod parallel;
pub mod pools;
#[cfg(feature = "session-model")]
pub mod session_preset;

/// Bad input, naming the field (kebab-case, as the CLI flag and the page control are named).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ScenarioError {}

fn error(field: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.to_string(),
        message: message.into(),
    }
}

/// A validated scenario with everything the model needs resolved. Built only by `try_from`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub input: ScenarioInput,
    pub model: ModelSpec,
    pub arch: Architecture,
    pub gpu: Gpu,
    pub gpu_count: u32,
    pub par: Parallelism,
    /// True when TP was chosen by the model rather than given.
    pub tp_auto: bool,
    pub replicas: u32,
    pub precision: Precision,
    pub kv_precision: KvPrecision,
    pub gemm: GemmMode,
    pub workload: Workload,
    /// Sequences one replica admits: the engine's `max_num_seqs` per scheduler times the
    /// attention-DP ranks, each its own scheduler (vLLM: "each DP rank is deployed as a separate
    /// core engine"; TensorRT-LLM's `max_batch_size` is per rank with attention DP).
    pub max_num_seqs: u32,
    /// Chunked-prefill token budget of one scheduler (one attention rank): the chunk a prompt is
    /// split into. A replica's step holds `step_token_budget()`.
    pub chunk_tokens: u32,
    pub batching: Batching,
    pub kv_alloc: KvAlloc,
    /// Tokens reserved per sequence by a contiguous allocator.
    pub max_model_len: f64,
    /// Speculative decoding, when on.
    pub spec: Option<SpecDecode>,
    pub efficiency: Efficiency,
    /// The engine profile the efficiency knobs and engine defaults came from (`physics::engine`).
    pub profile: engine::Resolved,
    /// Redundant expert slots (EPLB), `R`; 0 without a load balancer.
    pub redundant_experts: u32,
    /// Rental price per GPU-hour: the one typed, else the catalog's typical price; `None` when
    /// neither exists. Then every cost is `None` and `warnings` says so (`no_price_warning`).
    pub usd_per_gpu_hour: Option<f64>,
    /// Requests in flight across the system at the chosen operating point.
    pub concurrency: u32,
    /// Per-request server overhead added to TTFT and E2E (`server-overhead-ms`).
    pub server_overhead: Seconds,
    /// Steady state or a benchmark run (`protocol`).
    pub protocol: Protocol,
    /// Prompts a benchmark sends in all, when given (`num-prompts`); see `benchmark_prompts`.
    pub num_prompts: Option<u32>,
    pub step_cost: StepCost,
    pub weights_per_gpu: Bytes,
    pub kv_pool_per_gpu: Bytes,
    /// KV bytes per sequence per GPU at the time-averaged live context plus block waste.
    pub kv_per_sequence_gpu: Bytes,
    /// Sequences one replica holds in paged KV (`S_cap`, MODEL.md §1.4).
    pub kv_capacity_per_replica: u32,
    pub warnings: Vec<String>,
    /// Disaggregated serving (`serving = disaggregated`): this scenario is the decode pool and
    /// `pools` holds the prefill pool and the KV link (`pools`); `None` when aggregated.
    pub pools: Option<std::sync::Arc<pools::Pools>>,
}

/// The warning a scenario without a price carries: costs are not shown until one is entered.
pub fn no_price_warning(gpu: &Gpu) -> String {
    format!(
        "no rental price for {} in the catalog: cost not shown; enter a price per GPU-hour",
        gpu.name
    )
}

/// Speculative decoding as validated: method and `(α, γ, c)` (MODEL.md §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpecDecode {
    pub method: SpecMethod,
    /// Per-token acceptance rate `α` in [0, 0.99].
    pub accept: f64,
    /// Draft length `γ` (tokens proposed per step).
    pub len: f64,
    /// Draft step cost relative to a target step, `c`.
    pub draft_cost: f64,
}

impl SpecDecode {
    /// Weight and KV memory the draft adds, as a fraction of the target's: a draft model costs
    /// about `c` of the target (step cost tracks size while memory-bound); EAGLE heads and MTP
    /// modules are about one decoder layer (`1/L`) (MODEL.md §5).
    pub fn memory_fraction(&self, layers: f64) -> f64 {
        match self.method {
            SpecMethod::Draft => self.draft_cost,
            SpecMethod::Eagle | SpecMethod::Mtp => 1.0 / layers.max(1.0),
        }
    }
}

/// Memory facts of one candidate parallelism.
struct Fit {
    weights: Bytes,
    pool: Bytes,
    per_sequence: Bytes,
    capacity: u32,
}

/// A custom architecture must be internally consistent before the model uses it; the error
/// names the field as `custom-model.<field>`.
fn check_custom_model(spec: &ModelSpec) -> Result<(), ScenarioError> {
    let field = |name: &str| format!("{}.{name}", fields::CUSTOM_MODEL.key);
    let positive = |name: &str, value: u32, max: u32| -> Result<(), ScenarioError> {
        if value == 0 || value > max {
            return Err(error(
                &field(name),
                format!("must be from 1 to {max} (got {value})"),
            ));
        }
        Ok(())
    };
    positive("num_layers", spec.num_layers, 1024)?;
    positive("hidden_size", spec.hidden_size, 131_072)?;
    positive("num_heads", spec.num_heads, 4096)?;
    positive("num_kv_heads", spec.num_kv_heads, 4096)?;
    positive("head_dim", spec.head_dim, 4096)?;
    positive("vocab_size", spec.vocab_size, 10_000_000)?;
    if spec.num_kv_heads > spec.num_heads {
        return Err(error(&field("num_kv_heads"), "cannot exceed num_heads"));
    }
    match spec.arch {
        Arch::Moe => {
            let experts = spec.num_experts.unwrap_or(0);
            positive("num_experts", experts, 4096)?;
            positive(
                "moe_intermediate_size",
                spec.moe_intermediate_size.unwrap_or(0),
                1_000_000,
            )?;
            let k = spec.experts_per_token.unwrap_or(0);
            positive("experts_per_token", k, experts)?;
        }
        Arch::Dense => positive(
            "intermediate_size",
            spec.intermediate_size.unwrap_or(0),
            1_000_000,
        )?,
    }
    if spec.attention == crate::catalog::Attention::Mla {
        positive("kv_lora_rank", spec.kv_lora_rank.unwrap_or(0), 65_536)?;
    }
    Ok(())
}

/// What besides the workload decides memory fit.
#[derive(Clone, Copy)]
struct Allocation {
    kv_alloc: KvAlloc,
    max_model_len: f64,
    /// Extra memory fraction for a speculative draft (weights and KV).
    draft_fraction: f64,
    /// Redundant expert slots (EPLB) stored besides the model's experts.
    redundant_experts: f64,
}

fn fit(
    arch: &Architecture,
    gpu: &Gpu,
    (precision, kv): (Precision, KvPrecision),
    par: Parallelism,
    efficiency: &Efficiency,
    workload: &Workload,
    allocation: Allocation,
) -> Fit {
    let weights = weight_bytes_per_gpu(arch, precision, par, allocation.redundant_experts)
        * (1.0 + allocation.draft_fraction);
    let pool = kv_pool_per_gpu(
        Bytes::from_gb(gpu.memory_gb),
        efficiency.mem_utilization,
        weights,
        Bytes::from_gb(efficiency.reserved_gb),
    );
    // Paged: the time-averaged live context plus half a block of waste; contiguous: the whole
    // reservation (MODEL.md §1.4).
    let reserved_tokens = match allocation.kv_alloc {
        KvAlloc::Paged => workload.live_context() + (BLOCK_TOKENS - 1.0) / 2.0,
        KvAlloc::Contiguous => allocation.max_model_len,
    };
    let per_sequence = kv_bytes_per_sequence_gpu(arch, kv, par, reserved_tokens)
        * (1.0 + allocation.draft_fraction);
    Fit {
        weights,
        pool,
        per_sequence,
        capacity: sequences_fitting(pool, per_sequence),
    }
}

/// "Room for KV": the pool holds at least one whole request at its full length (on the one
/// attention rank it lives on) and is at least 10 % of the usable memory, so the replica can
/// batch rather than merely load.
fn has_room(
    fit: &Fit,
    arch: &Architecture,
    kv: KvPrecision,
    par: Parallelism,
    workload: &Workload,
    usable: Bytes,
) -> bool {
    let full =
        kv_bytes_per_sequence_rank(arch, kv, par, workload.input_mean + workload.output_mean);
    fit.pool.0 >= full.0 && fit.pool.0 >= 0.1 * usable.0 && fit.capacity >= 1
}

impl TryFrom<ScenarioInput> for Scenario {
    type Error = ScenarioError;

    fn try_from(input: ScenarioInput) -> Result<Scenario, ScenarioError> {
        Scenario::validate(input, Remedy::Say)
    }
}

/// Whether a "does not fit" error names what would fit (`fit::remedy`): the page's and the CLI's
/// validation does; the remedy's own trial validations do not (they would recurse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Remedy {
    Say,
    Skip,
}

/// What would make `input` fit, as a clause ("; 16 GPUs would fit it, or fp4 on 8"), or `""`.
fn remedy_clause(input: &ScenarioInput, remedy: Remedy) -> String {
    match remedy {
        Remedy::Say => fit::remedy(input).map_or_else(String::new, |text| format!("; {text}")),
        Remedy::Skip => String::new(),
    }
}

/// Speculative decoding as asked: off, or a method with its acceptance, length and draft cost
/// (each defaulting to the method's preset).
fn read_spec(input: &ScenarioInput) -> Result<Option<SpecDecode>, ScenarioError> {
    match input.spec_decode {
        None => Ok(None),
        Some(method) => {
            let (accept, len, cost) = method.preset();
            Ok(Some(SpecDecode {
                method,
                accept: SPEC_ACCEPT.real(input.spec_accept.unwrap_or(accept))?,
                len: f64::from(SPEC_LEN.whole(input.spec_len.unwrap_or(len))?),
                draft_cost: SPEC_DRAFT_COST.real(input.spec_draft_cost.unwrap_or(cost))?,
            }))
        }
    }
}

/// The model a scenario names: a catalog id, or `custom` with its checked architecture.
fn lookup_model(input: &ScenarioInput) -> Result<ModelSpec, ScenarioError> {
    let cat = catalog().map_err(|e| error("catalog", e))?;
    if input.model.trim() == "custom" {
        let spec = input.custom_model.clone().ok_or_else(|| {
            error(
                fields::MODEL.key,
                "`custom` needs a custom model (fields or a pasted config.json)",
            )
        })?;
        check_custom_model(&spec)?;
        return Ok(spec);
    }
    cat.model(input.model.trim()).cloned().ok_or_else(|| {
        error(
            fields::MODEL.key,
            format!(
                "unknown model `{}`; known: custom, {}",
                input.model,
                cat.models
                    .iter()
                    .map(|m| m.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

/// The catalog GPU a scenario names, with every spec the model needs.
fn lookup_gpu(input: &ScenarioInput) -> Result<Gpu, ScenarioError> {
    let cat = catalog().map_err(|e| error("catalog", e))?;
    let gpu = cat.gpu(input.gpu.trim()).cloned().ok_or_else(|| {
        error(
            fields::GPU.key,
            format!(
                "unknown GPU `{}`; known: {}",
                input.gpu,
                cat.gpus
                    .iter()
                    .map(|g| g.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })?;
    match gpu.missing_spec() {
        Some(why) => Err(error(fields::GPU.key, why)),
        None => Ok(gpu),
    }
}

/// Every field of a `ScenarioInput` read and range-checked once, with the engine profile and
/// the defaults it brings (limits, server overhead, efficiency); no layout or memory yet.
struct Reads {
    precision: Precision,
    /// Prompts a benchmark sends in all, if given.
    num_prompts: Option<u32>,
    profile: engine::Resolved,
    kv_precision: KvPrecision,
    gpu_count: u32,
    pp: u32,
    concurrency: u32,
    max_num_seqs: u32,
    chunk_tokens: u32,
    server_overhead: Seconds,
    spec: Option<SpecDecode>,
    usd_per_gpu_hour: Option<f64>,
    efficiency: Efficiency,
    workload: Workload,
}

impl Reads {
    fn read(input: &ScenarioInput, model: &ModelSpec, gpu: &Gpu) -> Result<Reads, ScenarioError> {
        let precision = input.precision;
        let deployment = input.deployment;
        let profile = engine::resolve(&input.engine, &gpu.vendor, deployment);
        // `auto`: the KV format the engine picks for these weights (`engine::kv_when_unstated`).
        let kv_precision = input.kv_precision.unwrap_or_else(|| {
            engine::kv_when_unstated(
                &profile.engine,
                precision,
                model.mxfp4_experts,
                gpu.fp4_tflops.is_some(),
            )
            .unwrap_or(KvPrecision::Bf16)
        });
        let gpu_count = GPUS.whole(input.gpu_count)?;
        let pp = match input.pp {
            Some(pp) => PP.whole(pp)?,
            None => 1,
        };
        let input_len = INPUT_LEN.real(input.input_len)?;
        // Before any memory fit: a prompt longer than the model's context is the input length's
        // error (engines reject it), not a GPU count that cannot hold its KV cache.
        if let Some(max_context) = model.max_context {
            if input_len > f64::from(max_context) {
                return Err(error(
                    INPUT_LEN.key,
                    format!(
                        "{input_len:.0} tokens is longer than {}'s context of {max_context} tokens",
                        model.name
                    ),
                ));
            }
        }
        let output_len = OUTPUT_LEN.real(input.output_len)?;
        let input_sigma = INPUT_SIGMA.real(input.input_sigma)?;
        let output_sigma = OUTPUT_SIGMA.real(input.output_sigma)?;
        let prefix_hit = PREFIX_HIT.real(input.prefix_hit)?;
        // Session fields: ranges only (issue 27 §1); what a session's context grows to is an
        // outcome of `model::sessions`, which caps it at the model's context.
        #[cfg(feature = "session-model")]
        for (field, value) in [
            (&fields::SESSION_TURNS, input.session_turns),
            (&fields::SESSION_TOOL_TOKENS, input.session_tool_tokens),
            (&fields::SESSION_TOOL_S, input.session_tool_s),
        ] {
            if let Some(value) = value {
                field.real(value)?;
            }
        }
        let concurrency = CONCURRENCY.whole(input.concurrency)?;
        let limits = engine::engine_limits(&profile.engine, deployment, &gpu.id, gpu.memory_gb);
        let max_num_seqs =
            MAX_NUM_SEQS.whole(input.max_num_seqs.unwrap_or_else(|| {
                f64::from(limits.map_or(DEFAULT_MAX_NUM_SEQS, |(seqs, _)| seqs))
            }))?;
        let chunk_tokens = CHUNK_TOKENS.whole(input.chunk_tokens.unwrap_or_else(|| {
            f64::from(limits.map_or(DEFAULT_CHUNK_TOKENS, |(_, tokens)| tokens))
        }))?;
        let server_overhead = Seconds::from_ms(
            SERVER_OVERHEAD_MS.real(
                input
                    .server_overhead_ms
                    .unwrap_or(profile.knobs.server_overhead_ms),
            )?,
        );
        let num_prompts = match input.num_prompts {
            Some(n) => Some(NUM_PROMPTS.whole(n)?),
            None => None,
        };
        let spec = read_spec(input)?;
        // The price typed, else the catalog's typical one; neither is no price (cost not shown),
        // never an error: throughput and latency need no price.
        let usd_per_gpu_hour = input
            .usd_per_gpu_hour
            .or(gpu.usd_per_gpu_hour_typical)
            .map(|price| USD_PER_GPU_HOUR.real(price))
            .transpose()?;
        let efficiency = input
            .efficiency
            .apply(Efficiency::of_profile(profile.knobs));
        for knob in fields::efficiency_knobs() {
            if let Some(value_of) = knob.efficiency {
                knob.real(value_of(&efficiency))?;
            }
        }
        let workload = Workload {
            input_mean: input_len,
            output_mean: output_len,
            input_sigma: if input.length_dist == LengthDist::Lognormal {
                input_sigma
            } else {
                0.0
            },
            output_sigma: if input.length_dist == LengthDist::Lognormal {
                output_sigma
            } else {
                0.0
            },
            prefix_hit,
        };
        Ok(Reads {
            precision,
            num_prompts,
            profile,
            kv_precision,
            gpu_count,
            pp,
            concurrency,
            max_num_seqs,
            chunk_tokens,
            server_overhead,
            spec,
            usd_per_gpu_hour,
            efficiency,
            workload,
        })
    }
}

/// A replica's layout, placed on the GPUs and fitted in memory.
struct Placed {
    arch: Architecture,
    par: Parallelism,
    tp_auto: bool,
    replicas: u32,
    redundant_experts: u32,
    max_model_len: f64,
    fit: Fit,
}

/// What the model and the fields say before a TP is chosen: the architecture, the layout asked
/// for and the memory it must fit in.
struct Asked<'a> {
    arch: &'a Architecture,
    gpu: &'a Gpu,
    reads: &'a Reads,
    layout: parallel::Request<'a>,
    allocation: Allocation,
}

impl Asked<'_> {
    fn fit(&self, par: Parallelism) -> Fit {
        fit(
            self.arch,
            self.gpu,
            (self.reads.precision, self.reads.kv_precision),
            par,
            &self.reads.efficiency,
            &self.reads.workload,
            self.allocation,
        )
    }

    /// The TP given (SGLang's `--tp N --dp N --enable-dp-attention` read as attention TP N/DP
    /// where TP × DP would not fit the GPUs but TP does), or the smallest power of two whose
    /// replica fits the weights with room for KV cache; `(tp, chosen by the model)`.
    fn tp(
        &self,
        input: &ScenarioInput,
        remedy: Remedy,
        warnings: &mut Vec<String>,
    ) -> Result<(u32, bool), ScenarioError> {
        let (gpu_count, pp, dp_given) = (self.reads.gpu_count, self.reads.pp, self.layout.dp);
        if let Some(tp) = input.tp {
            let tp = TP.whole(tp)?;
            return Ok(match dp_given {
                // SGLang's launch form: `--tp 8 --dp 8 --enable-dp-attention` runs on 8 GPUs,
                // the TP group of 8 split into 8 attention data-parallel ranks of TP 1
                // (docs.sglang.io, "DP, DPA and sgl-router"). Read so when TP × DP would not
                // fit the GPUs but TP alone does.
                Some(dp)
                    if dp > 1
                        && tp.is_multiple_of(dp)
                        && !gpu_count.is_multiple_of(tp.saturating_mul(dp).saturating_mul(pp))
                        && gpu_count.is_multiple_of(tp.saturating_mul(pp)) =>
                {
                    warnings.push(format!(
                        "TP {tp} with attention DP {dp} read as SGLang's `--tp {tp} --dp {dp} --enable-dp-attention`: attention TP {} × DP {dp} over the {tp} GPUs of the TP group",
                        tp / dp
                    ));
                    (tp / dp, false)
                }
                _ => (tp, false),
            });
        }
        let usable = Bytes::from_gb(self.gpu.memory_gb) * self.reads.efficiency.mem_utilization;
        let mut candidate = 1u32;
        while candidate <= gpu_count {
            // Without attention DP the search keeps EP inside the TP group it tries (as
            // before); with it, each candidate is the layout the fields resolve to.
            let par = match dp_given {
                Some(_) => self.layout.resolve(candidate).ok(),
                None => Some(Parallelism {
                    tp: candidate,
                    pp,
                    ep: self.layout.ep.map_or(1, |ep| ep.min(candidate)),
                    dp: 1,
                }),
            };
            if let Some(par) = par.filter(|par| gpu_count % par.gpus_per_replica().max(1) == 0) {
                let f = self.fit(par);
                if has_room(
                    &f,
                    self.arch,
                    self.reads.kv_precision,
                    par,
                    &self.reads.workload,
                    usable,
                ) {
                    return Ok((candidate, true));
                }
            }
            candidate = candidate.saturating_mul(2);
        }
        Err(error(
            GPUS.key,
            format!(
                "{} in {} does not fit with room for KV cache on {} × {} at any power-of-two TP; add GPUs or use a smaller precision{}",
                self.layout.model_name,
                self.reads.precision.id(),
                gpu_count,
                self.gpu.name,
                remedy_clause(input, remedy)
            ),
        ))
    }
}

/// The replica's layout on the GPUs (TP given or chosen, EP, attention DP, PP), checked to
/// divide the GPUs, to have a scale-up link when it spans GPUs, and to hold at least one
/// request's KV cache; warnings for uneven experts and a chosen TP.
fn place(
    input: &ScenarioInput,
    remedy: Remedy,
    model: &ModelSpec,
    gpu: &Gpu,
    reads: &Reads,
    warnings: &mut Vec<String>,
) -> Result<Placed, ScenarioError> {
    let is_moe = model.arch == Arch::Moe;
    let ep_given = match input.ep {
        Some(ep) => Some(EP.whole(ep)?),
        None => None,
    };
    if let Some(ep) = ep_given {
        if ep > 1 && !is_moe {
            return Err(error(
                EP.key,
                format!(
                    "{} is dense; expert parallelism needs an MoE model",
                    model.name
                ),
            ));
        }
    }
    let dp_given = match input.dp_attention {
        Some(dp) => Some(DP_ATTENTION.whole(dp)?),
        None => None,
    };
    let redundant_experts = EPLB_REDUNDANT_EXPERTS.whole(input.eplb_redundant_experts)?;
    let arch = Architecture::new(model);
    let (input_len, output_len) = (reads.workload.input_mean, reads.workload.output_mean);
    let default_model_len = f64::from(model.max_context.unwrap_or(8192).min(8192));
    let max_model_len = match input.max_model_len {
        Some(len) => MAX_MODEL_LEN.real(len)?,
        None => default_model_len
            .max(input_len + output_len)
            .min(f64::from(model.max_context.unwrap_or(u32::MAX))),
    };
    let asked = Asked {
        arch: &arch,
        gpu,
        reads,
        layout: parallel::Request {
            ep: ep_given,
            dp: dp_given,
            pp: reads.pp,
            redundant_experts,
            is_moe,
            experts: arch.experts,
            model_name: &model.name,
        },
        allocation: Allocation {
            kv_alloc: input.kv_alloc,
            max_model_len,
            draft_fraction: reads.spec.map_or(0.0, |s| s.memory_fraction(arch.layers)),
            redundant_experts: f64::from(redundant_experts),
        },
    };
    let (tp, tp_auto) = asked.tp(input, remedy, warnings)?;
    let par = asked.layout.resolve(tp)?;
    let gpu_count = reads.gpu_count;
    let per_replica = par.gpus_per_replica();
    if per_replica == 0 || !gpu_count.is_multiple_of(per_replica) {
        return Err(error(
            asked.layout.layout_field(par),
            format!(
                "{} = {per_replica} GPUs per replica does not divide the GPU count {gpu_count}",
                parallel::layout_text(par)
            ),
        ));
    }
    let replicas = gpu_count / per_replica;
    if (tp > 1 || par.pp > 1 || par.ep > 1 || par.dp > 1) && gpu.link_gb_s.is_none() {
        return Err(error(
            TP.key,
            format!("{} has no scale-up link bandwidth in the catalog; only TP = PP = 1 can be modelled", gpu.name),
        ));
    }
    if par.ep > 1 {
        let slots = arch.experts + f64::from(redundant_experts);
        if slots % f64::from(par.ep) != 0.0 {
            warnings.push(format!(
                "{slots:.0} expert slots do not split evenly over EP {}: some ranks hold one more expert (modelled as the mean, {:.2} per rank)",
                par.ep,
                slots / f64::from(par.ep)
            ));
        }
    }
    let f = asked.fit(par);
    if f.pool.0 <= 0.0 || f.capacity == 0 {
        let (field, raise) = if tp_auto {
            (GPUS.key, "raise TP")
        } else if par.dp > 1 {
            (EP.key, "raise EP or TP")
        } else {
            (TP.key, "raise TP")
        };
        let usable = Bytes::from_gb(gpu.memory_gb) * reads.efficiency.mem_utilization;
        return Err(error(
            field,
            format!(
                "{} in {} needs {:.1} GB of weights per GPU at {}, leaving {:.1} GB of the {:.1} GB usable for KV cache: not even one request fits; {raise} or use a smaller precision{}",
                model.name,
                reads.precision.id(),
                f.weights.gb(),
                parallel::layout_text(par),
                f.pool.gb(),
                usable.gb(),
                remedy_clause(input, remedy)
            ),
        ));
    }
    if tp_auto {
        warnings.push(format!(
            "TP not given: chose TP {tp}, the smallest power of two whose replica fits the weights with room for KV cache ({replicas} replica{} of {per_replica} GPU{})",
            if replicas == 1 { "" } else { "s" },
            if per_replica == 1 { "" } else { "s" }
        ));
    }
    Ok(Placed {
        arch,
        par,
        tp_auto,
        replicas,
        redundant_experts,
        max_model_len,
        fit: f,
    })
}

/// The step-time constants of the placed replica (GEMM mode, hardware, `StepCost`) and the
/// warnings about them: a GEMM fallback, a context overrun, an all-to-all past the scale-up
/// domain, no price, an engine without a profile.
fn step_cost(
    model: &ModelSpec,
    gpu: &Gpu,
    reads: &Reads,
    placed: &Placed,
    warnings: &mut Vec<String>,
) -> (GemmMode, StepCost) {
    let (arch, par, precision) = (&placed.arch, placed.par, reads.precision);
    let bf16_tflops = gpu.bf16_tflops.unwrap_or(0.0);
    let efficiency = reads.efficiency;
    let gemm = gemm_mode(precision, gpu, bf16_tflops, efficiency.dequant_factor);
    if let Some(warning) = &gemm.fallback_warning {
        warnings.push(warning.clone());
    }
    let total_len = reads.workload.input_mean + reads.workload.output_mean;
    if let Some(max_context) = model.max_context {
        if total_len > f64::from(max_context) {
            warnings.push(format!(
                "input + output length ({total_len:.0} tokens) exceeds {}'s context of {max_context} tokens",
                model.name
            ));
        }
    }
    let hardware = Hardware {
        memory_bw: BytesPerSecond::from_tb_s(gpu.memory_bw_tb_s),
        bf16_peak: FlopsPerSecond::from_tflops(bf16_tflops),
        link_bw: BytesPerSecond::from_gb_s(gpu.link_gb_s.unwrap_or(0.0)),
        network_bw: BytesPerSecond::from_gb_s(network_gb_s(gpu)),
        scale_up_domain: scale_up_domain(gpu),
    };
    if par.gpus_per_stage() > hardware.scale_up_domain && par.runs_all_to_all() {
        warnings.push(format!(
            "the MoE all-to-all spans {} GPUs, beyond the {}-GPU scale-up domain of the {}: the cross-node part runs at the network's {:.0} GB/s per GPU (a default: 400 Gb/s per GPU)",
            par.gpus_per_stage(),
            hardware.scale_up_domain,
            gpu.name,
            network_gb_s(gpu)
        ));
    }
    let step_cost = StepCost::new(
        arch,
        hardware,
        par,
        precision,
        &gemm,
        reads.kv_precision,
        efficiency,
        ExpertSetup {
            redundant_experts: f64::from(placed.redundant_experts),
            gemm: expert_gemm_mode(
                arch,
                precision,
                gpu,
                bf16_tflops,
                efficiency.dequant_factor,
                &gemm,
            ),
        },
    );
    if reads.usd_per_gpu_hour.is_none() {
        warnings.push(no_price_warning(gpu));
    }
    if !reads.profile.known {
        warnings.push(format!(
            "Engine `{}` has no profile: the generic {} profile is used",
            reads.profile.engine,
            reads.profile.stack.name()
        ));
    }
    (gemm, step_cost)
}

impl Scenario {
    /// `Scenario::try_from`, with or without the remedy of a "does not fit" error: read every
    /// field (`Reads`), place the replica on the GPUs and fit it in memory (`place`), then its
    /// step-time constants (`step_cost`).
    fn validate(input: ScenarioInput, remedy: Remedy) -> Result<Scenario, ScenarioError> {
        if let Some(disaggregated) = pools::disaggregated(&input) {
            return disaggregated;
        }
        let model = lookup_model(&input)?;
        let gpu = lookup_gpu(&input)?;
        let reads = Reads::read(&input, &model, &gpu)?;
        let mut warnings = Vec::new();
        let placed = place(&input, remedy, &model, &gpu, &reads, &mut warnings)?;
        let (gemm, step_cost) = step_cost(&model, &gpu, &reads, &placed, &mut warnings);
        let Reads {
            precision,
            num_prompts,
            profile,
            kv_precision,
            gpu_count,
            concurrency,
            max_num_seqs,
            chunk_tokens,
            server_overhead,
            spec,
            usd_per_gpu_hour,
            efficiency,
            workload,
            ..
        } = reads;
        let Placed {
            arch,
            par,
            tp_auto,
            replicas,
            redundant_experts,
            max_model_len,
            fit: f,
        } = placed;
        let (batching, kv_alloc, protocol) = (input.batching, input.kv_alloc, input.protocol);
        Ok(Scenario {
            profile,
            input,
            model,
            arch,
            gpu,
            gpu_count,
            par,
            tp_auto,
            replicas,
            precision,
            kv_precision,
            gemm,
            workload,
            max_num_seqs: max_num_seqs.saturating_mul(par.dp.max(1)),
            chunk_tokens,
            batching,
            kv_alloc,
            max_model_len,
            spec,
            efficiency,
            redundant_experts,
            usd_per_gpu_hour,
            concurrency,
            server_overhead,
            protocol,
            num_prompts,
            step_cost,
            weights_per_gpu: f.weights,
            kv_pool_per_gpu: f.pool,
            kv_per_sequence_gpu: f.per_sequence,
            kv_capacity_per_replica: f.capacity,
            warnings,
            pools: None,
        })
    }
}

impl Scenario {
    /// The validated default scenario. Falls back to an error only if the bundled catalog is broken.
    pub fn default_scenario() -> Result<Scenario, ScenarioError> {
        Scenario::try_from(ScenarioInput::default())
    }

    /// Largest system concurrency the engine admits (`max_num_seqs × replicas`): the slider's end.
    pub fn engine_limit(&self) -> u32 {
        self.max_num_seqs.saturating_mul(self.replicas)
    }

    /// Tokens one replica's step may hold: the chunked-prefill budget of each of its attention
    /// ranks (each its own scheduler), `chunk_tokens × DP`.
    pub fn step_token_budget(&self) -> u32 {
        self.chunk_tokens.saturating_mul(self.par.dp.max(1))
    }

    /// Largest system concurrency whose KV fits (`S_cap × replicas`).
    pub fn kv_capacity(&self) -> u32 {
        self.kv_capacity_per_replica.saturating_mul(self.replicas)
    }

    /// Prompts a benchmark at this concurrency sends: `num-prompts`, or 10 × concurrency.
    pub fn benchmark_prompts(&self) -> u32 {
        self.num_prompts.unwrap_or_else(|| {
            self.concurrency
                .saturating_mul(DEFAULT_PROMPTS_PER_CONCURRENCY)
        })
    }

    /// The same scenario at another concurrency (cheap: nothing is re-derived).
    pub fn with_concurrency(&self, concurrency: u32) -> Scenario {
        let mut next = self.clone();
        next.concurrency = concurrency.max(1);
        next.input.concurrency = f64::from(next.concurrency);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_is_valid_and_picks_tp() {
        let s = Scenario::default_scenario().expect("default valid");
        assert_eq!(s.gpu_count, 8);
        assert!(s.tp_auto);
        assert_eq!(
            s.par.tp, 2,
            "70B FP8 (70.6 GB) does not fit one 80 GB H100 with room; TP2 does"
        );
        assert_eq!(s.replicas, 4);
        assert!(s.warnings.iter().any(|w| w.contains("chose TP 2")));
    }

    /// Throughput and latency need no price: a GPU the catalog has no rental price for, with
    /// none typed, is a valid scenario with no price and a warning that asks for one (it used to
    /// be an error on `usd-per-gpu-hour`). A typed price is used as given.
    #[test]
    fn a_gpu_without_a_catalog_price_validates_without_a_price() {
        let unpriced = ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..ScenarioInput::default()
        };
        let s = Scenario::try_from(unpriced.clone()).expect("valid without a price");
        assert_eq!(s.usd_per_gpu_hour, None);
        assert_eq!(s.warnings.last(), Some(&no_price_warning(&s.gpu)));
        assert_eq!(
            no_price_warning(&s.gpu),
            "no rental price for NVIDIA GB200 NVL72 (per Blackwell GPU) in the catalog: cost not shown; enter a price per GPU-hour"
        );
        let typed = Scenario::try_from(ScenarioInput {
            usd_per_gpu_hour: Some(6.0),
            ..unpriced
        })
        .expect("valid");
        assert_eq!(typed.usd_per_gpu_hour, Some(6.0));
        assert!(!typed.warnings.iter().any(|w| w.contains("no rental price")));
        let catalog = Scenario::try_from(ScenarioInput {
            usd_per_gpu_hour: None,
            ..ScenarioInput::default()
        })
        .expect("valid");
        assert_eq!(catalog.usd_per_gpu_hour, Some(2.65), "H100 SXM typical");
    }

    /// A prompt longer than the model's context is the input length's error, naming the context,
    /// before any memory fit (it used to surface as the GPU count's "does not fit").
    #[test]
    fn an_input_longer_than_the_context_is_an_input_len_error() {
        let error = err(ScenarioInput {
            input_len: 10_000_000.0,
            ..ScenarioInput::default()
        });
        assert_eq!(error.field, "input-len");
        assert_eq!(
            error.message,
            "10000000 tokens is longer than Llama 3.1 70B's context of 131072 tokens"
        );
        // At the context itself it is still a scenario (the output then overruns: a warning).
        let at_context = Scenario::try_from(ScenarioInput {
            input_len: 131_072.0,
            gpu_count: 8.0,
            ..ScenarioInput::default()
        });
        assert!(at_context.is_ok_and(|s| s.warnings.iter().any(|w| w.contains("exceeds"))));
    }

    fn err(input: ScenarioInput) -> ScenarioError {
        Scenario::try_from(input).expect_err("should be rejected")
    }

    #[test]
    fn bad_fields_are_named() {
        let base = ScenarioInput::default();
        assert_eq!(
            err(ScenarioInput {
                input_len: 0.0,
                ..base.clone()
            })
            .field,
            "input-len"
        );
        assert_eq!(
            err(ScenarioInput {
                output_len: -3.0,
                ..base.clone()
            })
            .field,
            "output-len"
        );
        assert_eq!(
            err(ScenarioInput {
                model: "nope".into(),
                ..base.clone()
            })
            .field,
            "model"
        );
        assert_eq!(
            err(ScenarioInput {
                gpu: "a10g".into(),
                ..base.clone()
            })
            .field,
            "gpu"
        );
        assert_eq!(
            err(ScenarioInput {
                tp: Some(3.0),
                ..base.clone()
            })
            .field,
            "tp"
        );
        assert_eq!(
            err(ScenarioInput {
                tp: Some(1.0),
                ..base.clone()
            })
            .field,
            "tp"
        );
        assert_eq!(
            err(ScenarioInput {
                ep: Some(2.0),
                ..base.clone()
            })
            .field,
            "ep"
        );
        assert_eq!(
            err(ScenarioInput {
                gpu_count: 1.0,
                precision: crate::physics::precision::Precision::Bf16,
                ..base.clone()
            })
            .field,
            GPUS.key
        );
        assert_eq!(
            err(ScenarioInput {
                usd_per_gpu_hour: Some(f64::NAN),
                ..base.clone()
            })
            .field,
            "usd-per-gpu-hour"
        );
        let mut knobs = base.clone();
        knobs.efficiency.eta_mem = Some(1.5);
        assert_eq!(err(knobs).field, "eta-mem");
    }

    fn deepseek_on(gpu: &str, gpus: f64) -> ScenarioInput {
        ScenarioInput {
            model: "deepseek-r1".into(),
            gpu: gpu.into(),
            gpu_count: gpus,
            precision: crate::physics::precision::Precision::Fp8,
            kv_precision: Some(crate::physics::precision::KvPrecision::Fp8),
            input_len: 1000.0,
            output_len: 1000.0,
            usd_per_gpu_hour: Some(3.0),
            ..ScenarioInput::default()
        }
    }

    /// `--tp 1 --ep 8` on 8 GPUs is DEP 8 (MODEL.md §2.8): 8 attention ranks, experts over 8
    /// GPUs, one replica; each rank its own scheduler; the same as giving attention DP 8.
    #[test]
    fn dep8_of_deepseek_r1_fp8_on_8_h200_validates() {
        let s = Scenario::try_from(ScenarioInput {
            tp: Some(1.0),
            ep: Some(8.0),
            ..deepseek_on("h200-sxm", 8.0)
        })
        .expect("DEP 8 fits 8 H200s");
        assert_eq!(
            s.par,
            Parallelism {
                tp: 1,
                pp: 1,
                ep: 8,
                dp: 8
            }
        );
        assert_eq!(s.replicas, 1);
        assert_eq!(s.max_num_seqs, 8 * DEFAULT_MAX_NUM_SEQS);
        assert_eq!(s.step_token_budget(), 8 * DEFAULT_CHUNK_TOKENS);
        assert!(s.weights_per_gpu.gb() < 141.0 * 0.9);
        let explicit = Scenario::try_from(ScenarioInput {
            tp: Some(1.0),
            ep: Some(8.0),
            dp_attention: Some(8.0),
            ..deepseek_on("h200-sxm", 8.0)
        })
        .expect("the same layout, spelled out");
        assert_eq!(explicit.par, s.par);
        assert_eq!(explicit.kv_capacity(), s.kv_capacity());
        // MLA under TP 8 replicates the latent on every GPU; DEP 8 holds 8 ranks' sequences.
        let tp8 = Scenario::try_from(ScenarioInput {
            tp: Some(8.0),
            ..deepseek_on("h200-sxm", 8.0)
        })
        .expect("TP 8");
        assert!(s.kv_capacity() > 3 * tp8.kv_capacity());
        // Attention DP with experts tensor-split (vLLM without --enable-expert-parallel).
        let moe_tp = Scenario::try_from(ScenarioInput {
            tp: Some(1.0),
            dp_attention: Some(8.0),
            ..deepseek_on("h200-sxm", 8.0)
        })
        .expect("DP 8 with moe-TP 8");
        assert_eq!((moe_tp.par.ep, moe_tp.par.moe_tp()), (1, 8));
    }

    /// Wide EP: 72 ranks inside a GB200 NVL72 domain; 32 H200 ranks span four 8-GPU nodes and
    /// say so; redundant experts are accepted under EP.
    #[test]
    fn wide_ep_is_allowed_inside_and_across_domains() {
        let nvl72 = Scenario::try_from(ScenarioInput {
            tp: Some(1.0),
            ep: Some(72.0),
            eplb_redundant_experts: 32.0,
            precision: crate::physics::precision::Precision::Fp4,
            ..deepseek_on("gb200", 72.0)
        })
        .expect("DEP 72 on NVL72");
        assert_eq!(nvl72.par.dp, 72);
        assert!(!nvl72.warnings.iter().any(|w| w.contains("scale-up domain")));
        let hgx = Scenario::try_from(ScenarioInput {
            tp: Some(1.0),
            ep: Some(32.0),
            ..deepseek_on("h200-sxm", 32.0)
        })
        .expect("DEP 32 over four nodes");
        assert!(hgx
            .warnings
            .iter()
            .any(|w| w.contains("8-GPU scale-up domain")));
    }

    /// SGLang's `--tp 8 --dp 8 --enable-dp-attention` on 8 GPUs is DEP 8, said in the warnings;
    /// the same TP and DP on 64 GPUs stays TP 8 × DP 8 (it fits as written).
    #[test]
    fn sglang_spelling_of_attention_dp_is_read_as_the_tp_group() {
        let sglang = Scenario::try_from(ScenarioInput {
            tp: Some(8.0),
            ep: Some(8.0),
            dp_attention: Some(8.0),
            ..deepseek_on("h200-sxm", 8.0)
        })
        .expect("SGLang's DEP 8 on one node");
        assert_eq!(
            sglang.par,
            Parallelism {
                tp: 1,
                pp: 1,
                ep: 8,
                dp: 8
            }
        );
        assert!(sglang
            .warnings
            .iter()
            .any(|w| w.contains("--enable-dp-attention")));
        let wide = Scenario::try_from(ScenarioInput {
            tp: Some(8.0),
            ep: Some(64.0),
            dp_attention: Some(8.0),
            ..deepseek_on("b200", 64.0)
        });
        if let Ok(wide) = wide {
            assert_eq!(wide.par.tp, 8);
            assert!(!wide
                .warnings
                .iter()
                .any(|w| w.contains("--enable-dp-attention")));
        }
    }

    /// Nonsense layouts are errors naming the field at fault.
    #[test]
    fn bad_layouts_name_their_field() {
        let field = |input: ScenarioInput| err(input).field;
        let base = || deepseek_on("h200-sxm", 8.0);
        assert_eq!(
            field(ScenarioInput {
                tp: Some(1.0),
                dp_attention: Some(3.0),
                ..base()
            }),
            "dp-attention"
        );
        assert_eq!(
            field(ScenarioInput {
                tp: Some(1.0),
                ep: Some(3.0),
                ..base()
            }),
            "ep"
        );
        assert_eq!(
            field(ScenarioInput {
                tp: Some(2.0),
                dp_attention: Some(4.0),
                ep: Some(3.0),
                ..base()
            }),
            "ep"
        );
        assert_eq!(
            field(ScenarioInput {
                tp: Some(2.0),
                ep: Some(3.0),
                ..base()
            }),
            "ep"
        );
        // EP 8 on an 80 GB H100 leaves no room: raise EP.
        assert_eq!(
            field(ScenarioInput {
                tp: Some(1.0),
                ep: Some(8.0),
                ..deepseek_on("h100-sxm", 8.0)
            }),
            "ep"
        );
        assert_eq!(
            field(ScenarioInput {
                tp: Some(8.0),
                eplb_redundant_experts: 32.0,
                ..base()
            }),
            "eplb-redundant-experts"
        );
        assert_eq!(
            field(ScenarioInput {
                tp: Some(1.0),
                dp_attention: Some(8.0),
                ..ScenarioInput::default()
            }),
            "dp-attention"
        );
        assert_eq!(
            field(ScenarioInput {
                model: "mixtral-8x7b".into(),
                tp: Some(1.0),
                ep: Some(16.0),
                gpu_count: 16.0,
                ..ScenarioInput::default()
            }),
            "ep"
        );
        assert_eq!(
            field(ScenarioInput {
                dp_attention: Some(0.0),
                ..base()
            }),
            "dp-attention"
        );
    }

    /// `kv-precision auto` follows the engine profile's rule: FP8 KV for TensorRT-LLM with FP8
    /// weights, BF16 for the generic profile, BF16 for gpt-oss's own checkpoint on Hopper.
    #[test]
    fn auto_kv_precision_follows_the_engines_rule() {
        let kv = |engine: &str, model: &str, gpu: &str| {
            Scenario::try_from(ScenarioInput {
                engine: engine.into(),
                model: model.into(),
                gpu: gpu.into(),
                gpu_count: 8.0,
                precision: crate::physics::precision::Precision::Fp8,
                kv_precision: None,
                ..ScenarioInput::default()
            })
            .expect("valid")
            .kv_precision
        };
        assert_eq!(
            kv("tensorrt-llm", "llama-3.1-70b", "h100-sxm"),
            KvPrecision::Fp8
        );
        assert_eq!(
            kv("generic", "llama-3.1-70b", "h100-sxm"),
            KvPrecision::Bf16
        );
        assert_eq!(
            kv("tensorrt-llm", "gpt-oss-120b", "h100-sxm"),
            KvPrecision::Bf16
        );
        assert_eq!(kv("tensorrt-llm", "gpt-oss-120b", "b200"), KvPrecision::Fp8);
    }
}
