//! The one door into the model: a raw, serde-able `ScenarioInput` (from the page, the URL, a JSON
//! file or CLI flags) is checked once by `Scenario::try_from` and becomes a validated `Scenario`
//! with everything the model needs resolved (catalog rows, parallelism, memory, step constants).
//!
//! Errors name the field with the same kebab-case name the CLI flag and the page control use
//! (`input-len` ↔ `--input-len` ↔ `#input-len`). Outcomes such as "beyond KV capacity" are not
//! errors; they are values the model reports.

use crate::catalog::{catalog, Arch, Gpu, ModelSpec};
use crate::model::architecture::Architecture;
use crate::model::efficiency::{knob_ranges, Efficiency};
use crate::model::memory::{
    kv_bytes_per_sequence_gpu, kv_pool_per_gpu, paged_capacity, weight_bytes_per_gpu, Parallelism,
    BLOCK_TOKENS,
};
use crate::model::precision::{gemm_mode, GemmMode, KvPrecision, Precision};
use crate::model::step::{Hardware, StepCost};
use crate::model::workload::Workload;
use crate::units::{Bytes, BytesPerSecond, FlopsPerSecond};
use serde::{Deserialize, Serialize};

/// Default engine concurrency limit (`max_num_seqs`, the slider's right end). vLLM V1 uses 1024
/// on large-memory GPUs and 256 in older releases (MODEL.md §0 [S16][S45]); TensorRT-LLM's
/// default `max_batch_size` is 2048. 1024 lets the curve reach saturation on one GPU.
pub const DEFAULT_MAX_NUM_SEQS: u32 = 1024;
/// Default per-iteration token budget (`max_num_batched_tokens`): the current vLLM guidance for
/// latency-sensitive serving (MODEL.md §4.3 [S16c]).
pub const DEFAULT_CHUNK_TOKENS: u32 = 2048;

/// How requests are grouped into batches (MODEL.md §4.1–§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Batching {
    /// Request-level: wait for a batch, pad, run to the longest output, release together.
    Static,
    /// Iteration-level (Orca/vLLM): sequences join and leave at every step.
    #[default]
    Continuous,
}

impl Batching {
    pub fn parse(text: &str) -> Option<Batching> {
        match text.trim().to_ascii_lowercase().as_str() {
            "static" => Some(Batching::Static),
            "continuous" => Some(Batching::Continuous),
            _ => None,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Batching::Static => "static",
            Batching::Continuous => "continuous",
        }
    }
}

/// Optional overrides of the efficiency knobs; `None` keeps the GPU family's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EfficiencyOverrides {
    pub eta_mem: Option<f64>,
    pub eta_compute: Option<f64>,
    pub blend_p: Option<f64>,
    pub layer_overhead_us: Option<f64>,
    pub step_overhead_ms: Option<f64>,
    pub allreduce_latency_us: Option<f64>,
    pub link_efficiency: Option<f64>,
    pub mem_utilization: Option<f64>,
    pub reserved_gb: Option<f64>,
    pub dequant_factor: Option<f64>,
    pub causal_factor: Option<f64>,
    pub moe_imbalance: Option<f64>,
}

impl EfficiencyOverrides {
    fn apply(&self, base: Efficiency) -> Efficiency {
        Efficiency {
            eta_mem: self.eta_mem.unwrap_or(base.eta_mem),
            eta_compute: self.eta_compute.unwrap_or(base.eta_compute),
            blend_p: self.blend_p.unwrap_or(base.blend_p),
            layer_overhead_us: self.layer_overhead_us.unwrap_or(base.layer_overhead_us),
            step_overhead_ms: self.step_overhead_ms.unwrap_or(base.step_overhead_ms),
            allreduce_latency_us: self.allreduce_latency_us.unwrap_or(base.allreduce_latency_us),
            link_efficiency: self.link_efficiency.unwrap_or(base.link_efficiency),
            mem_utilization: self.mem_utilization.unwrap_or(base.mem_utilization),
            reserved_gb: self.reserved_gb.unwrap_or(base.reserved_gb),
            dequant_factor: self.dequant_factor.unwrap_or(base.dequant_factor),
            causal_factor: self.causal_factor.unwrap_or(base.causal_factor),
            moe_imbalance: self.moe_imbalance.unwrap_or(base.moe_imbalance),
        }
    }
}

/// The raw scenario, exactly as a user gave it. Numbers are `f64` so that a negative or
/// fractional entry reaches validation and gets a message, instead of failing to parse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScenarioInput {
    pub model: String,
    pub gpu: String,
    pub gpu_count: f64,
    /// Tensor-parallel degree; `None` picks the smallest power of two that fits.
    pub tp: Option<f64>,
    pub pp: Option<f64>,
    pub ep: Option<f64>,
    pub precision: String,
    pub kv_precision: String,
    /// Mean prompt tokens per request.
    pub input_len: f64,
    /// Mean generated tokens per request.
    pub output_len: f64,
    /// Log-space spread of prompt lengths (0 = every prompt the same length).
    pub input_sigma: f64,
    /// Log-space spread of output lengths (0 = fixed).
    pub output_sigma: f64,
    /// Fraction of prompt tokens served from the prefix cache.
    pub prefix_hit: f64,
    /// $ per GPU-hour; `None` takes the catalog's typical price for the GPU.
    pub usd_per_gpu_hour: Option<f64>,
    /// Requests in flight across the whole system (the batch-size slider).
    pub concurrency: f64,
    /// Engine limit on sequences per replica (`max_num_seqs`).
    pub max_num_seqs: f64,
    /// Per-iteration token budget for chunked prefill (`max_num_batched_tokens`).
    pub chunk_tokens: f64,
    /// `static` or `continuous` batching.
    pub batching: String,
    pub efficiency: EfficiencyOverrides,
}

impl Default for ScenarioInput {
    /// The glossary's own example: Llama 3 70B on 8×H100 SXM in FP8 at $3.125/GPU-hour
    /// ($25/hour for the node), chat-like lengths (the Azure LLM conversation trace means,
    /// MODEL.md §6.4: 1155 prompt and 211 output tokens).
    fn default() -> ScenarioInput {
        ScenarioInput {
            model: "llama-3.1-70b".into(),
            gpu: "h100-sxm".into(),
            gpu_count: 8.0,
            tp: None,
            pp: None,
            ep: None,
            precision: "fp8".into(),
            kv_precision: "bf16".into(),
            input_len: 1155.0,
            output_len: 211.0,
            input_sigma: 0.0,
            output_sigma: 0.0,
            prefix_hit: 0.0,
            usd_per_gpu_hour: Some(3.125),
            concurrency: 64.0,
            max_num_seqs: f64::from(DEFAULT_MAX_NUM_SEQS),
            chunk_tokens: f64::from(DEFAULT_CHUNK_TOKENS),
            batching: "continuous".into(),
            efficiency: EfficiencyOverrides::default(),
        }
    }
}

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

/// A whole number in `[min, max]`, or an error naming the field and the allowed range.
fn whole(field: &str, value: f64, min: u32, max: u32) -> Result<u32, ScenarioError> {
    if !value.is_finite() || value.fract() != 0.0 || value < f64::from(min) || value > f64::from(max) {
        return Err(error(
            field,
            format!("must be a whole number from {min} to {max} (got {value})"),
        ));
    }
    Ok(value as u32)
}

/// A real number in `[min, max]`, or an error naming the field and the allowed range.
fn real(field: &str, value: f64, min: f64, max: f64) -> Result<f64, ScenarioError> {
    if !value.is_finite() || value < min || value > max {
        return Err(error(field, format!("must be a number from {min} to {max} (got {value})")));
    }
    Ok(value)
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
    pub max_num_seqs: u32,
    pub chunk_tokens: u32,
    pub batching: Batching,
    pub efficiency: Efficiency,
    pub usd_per_gpu_hour: f64,
    /// Requests in flight across the system at the chosen operating point.
    pub concurrency: u32,
    pub step_cost: StepCost,
    pub weights_per_gpu: Bytes,
    pub kv_pool_per_gpu: Bytes,
    /// KV bytes per sequence per GPU at the time-averaged live context plus block waste.
    pub kv_per_sequence_gpu: Bytes,
    /// Sequences one replica holds in paged KV (`S_cap`, MODEL.md §1.4).
    pub kv_capacity_per_replica: u32,
    pub warnings: Vec<String>,
}

/// Memory facts of one candidate parallelism.
struct Fit {
    weights: Bytes,
    pool: Bytes,
    per_sequence: Bytes,
    capacity: u32,
}

fn fit(
    arch: &Architecture,
    gpu: &Gpu,
    precision: Precision,
    kv: KvPrecision,
    par: Parallelism,
    efficiency: &Efficiency,
    workload: &Workload,
) -> Fit {
    let weights = weight_bytes_per_gpu(arch, precision, par);
    let pool = kv_pool_per_gpu(
        Bytes::from_gb(gpu.memory_gb),
        efficiency.mem_utilization,
        weights,
        Bytes::from_gb(efficiency.reserved_gb),
    );
    let per_sequence =
        kv_bytes_per_sequence_gpu(arch, kv, par, workload.live_context() + (BLOCK_TOKENS - 1.0) / 2.0);
    Fit {
        weights,
        pool,
        per_sequence,
        capacity: paged_capacity(pool, per_sequence),
    }
}

/// "Room for KV": the pool holds at least one whole request at its full length and is at least
/// 10 % of the usable memory, so the replica can batch rather than merely load.
fn has_room(fit: &Fit, arch: &Architecture, kv: KvPrecision, par: Parallelism, workload: &Workload, usable: Bytes) -> bool {
    let full = kv_bytes_per_sequence_gpu(arch, kv, par, workload.input_mean + workload.output_mean);
    fit.pool.0 >= full.0 && fit.pool.0 >= 0.1 * usable.0 && fit.capacity >= 1
}

impl TryFrom<ScenarioInput> for Scenario {
    type Error = ScenarioError;

    fn try_from(input: ScenarioInput) -> Result<Scenario, ScenarioError> {
        let cat = catalog().map_err(|e| error("catalog", e))?;
        let model = cat.model(input.model.trim()).cloned().ok_or_else(|| {
            error(
                "model",
                format!(
                    "unknown model `{}`; known: {}",
                    input.model,
                    cat.models.iter().map(|m| m.id.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        let gpu = cat.gpu(input.gpu.trim()).cloned().ok_or_else(|| {
            error(
                "gpu",
                format!(
                    "unknown GPU `{}`; known: {}",
                    input.gpu,
                    cat.gpus.iter().map(|g| g.id.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        if let Some(why) = gpu.missing_spec() {
            return Err(error("gpu", why));
        }
        let bf16_tflops = gpu.bf16_tflops.unwrap_or(0.0);
        let precision = Precision::parse(&input.precision)
            .ok_or_else(|| error("precision", format!("`{}` is not one of bf16, fp8, fp4, int4", input.precision)))?;
        let kv_precision = KvPrecision::parse(&input.kv_precision)
            .ok_or_else(|| error("kv-precision", format!("`{}` is not one of bf16, fp8", input.kv_precision)))?;
        let gpu_count = whole("gpu-count", input.gpu_count, 1, 4096)?;
        let pp = match input.pp {
            Some(pp) => whole("pp", pp, 1, 64)?,
            None => 1,
        };
        let input_len = real("input-len", input.input_len, 1.0, 10_000_000.0)?;
        let output_len = real("output-len", input.output_len, 1.0, 10_000_000.0)?;
        let input_sigma = real("input-sigma", input.input_sigma, 0.0, 3.0)?;
        let output_sigma = real("output-sigma", input.output_sigma, 0.0, 3.0)?;
        let prefix_hit = real("prefix-hit", input.prefix_hit, 0.0, 0.99)?;
        let concurrency = whole("concurrency", input.concurrency, 1, 10_000_000)?;
        let max_num_seqs = whole("max-num-seqs", input.max_num_seqs, 1, 65_536)?;
        let chunk_tokens = whole("chunk-tokens", input.chunk_tokens, 16, 1_048_576)?;
        let batching = Batching::parse(&input.batching)
            .ok_or_else(|| error("batching", format!("`{}` is not one of static, continuous", input.batching)))?;
        let default_price = gpu.usd_per_gpu_hour_typical;
        let usd_per_gpu_hour = match input.usd_per_gpu_hour.or(default_price) {
            Some(price) => real("usd-per-gpu-hour", price, 0.0, 1000.0)?,
            None => {
                return Err(error(
                    "usd-per-gpu-hour",
                    format!("the catalog has no rental price for {}; enter one", gpu.name),
                ))
            }
        };
        let efficiency = input.efficiency.apply(Efficiency::for_vendor(&gpu.vendor));
        for (name, value, min, max) in knob_ranges(&efficiency) {
            if value.is_nan() || value < min || value > max {
                return Err(error(
                    &name.replace('_', "-"),
                    format!("must be from {min} to {max} (got {value})"),
                ));
            }
        }
        let workload = Workload {
            input_mean: input_len,
            output_mean: output_len,
            input_sigma,
            output_sigma,
            prefix_hit,
        };

        let mut warnings = Vec::new();
        let is_moe = model.arch == Arch::Moe;
        let ep_given = match input.ep {
            Some(ep) => Some(whole("ep", ep, 1, 4096)?),
            None => None,
        };
        if let Some(ep) = ep_given {
            if ep > 1 && !is_moe {
                return Err(error("ep", format!("{} is dense; expert parallelism needs an MoE model", model.name)));
            }
        }
        let arch = Architecture::new(&model);
        let usable = Bytes::from_gb(gpu.memory_gb) * efficiency.mem_utilization;

        let (tp, tp_auto) = match input.tp {
            Some(tp) => {
                let tp = whole("tp", tp, 1, 4096)?;
                (tp, false)
            }
            None => {
                let mut chosen = None;
                let mut candidate = 1u32;
                while candidate <= gpu_count {
                    let par = Parallelism { tp: candidate, pp, ep: ep_given.map_or(1, |ep| ep.min(candidate)) };
                    if gpu_count % par.gpus_per_replica().max(1) == 0 {
                        let f = fit(&arch, &gpu, precision, kv_precision, par, &efficiency, &workload);
                        if has_room(&f, &arch, kv_precision, par, &workload, usable) {
                            chosen = Some(candidate);
                            break;
                        }
                    }
                    candidate = candidate.saturating_mul(2);
                }
                match chosen {
                    Some(tp) => (tp, true),
                    None => {
                        return Err(error(
                            "gpu-count",
                            format!(
                                "{} in {} does not fit with room for KV cache on {} × {} at any power-of-two TP; add GPUs or use a smaller precision",
                                model.name,
                                precision.id(),
                                gpu_count,
                                gpu.name
                            ),
                        ))
                    }
                }
            }
        };
        let ep = ep_given.unwrap_or(1);
        if ep > tp || tp % ep != 0 {
            return Err(error("ep", format!("expert parallelism {ep} must divide the tensor-parallel group ({tp})")));
        }
        let par = Parallelism { tp, pp, ep };
        let per_replica = par.gpus_per_replica();
        if per_replica == 0 || gpu_count % per_replica != 0 {
            return Err(error(
                "tp",
                format!("TP {tp} × PP {pp} = {per_replica} GPUs per replica does not divide the GPU count {gpu_count}"),
            ));
        }
        let replicas = gpu_count / per_replica;
        if (tp > 1 || pp > 1 || ep > 1) && gpu.link_gb_s.is_none() {
            return Err(error(
                "tp",
                format!("{} has no scale-up link bandwidth in the catalog; only TP = PP = 1 can be modelled", gpu.name),
            ));
        }
        let f = fit(&arch, &gpu, precision, kv_precision, par, &efficiency, &workload);
        if f.pool.0 <= 0.0 || f.capacity == 0 {
            let field = if tp_auto { "gpu-count" } else { "tp" };
            return Err(error(
                field,
                format!(
                    "{} in {} needs {:.1} GB of weights per GPU at TP {tp} × PP {pp}, leaving {:.1} GB of the {:.1} GB usable for KV cache: not even one request fits; raise TP or use a smaller precision",
                    model.name,
                    precision.id(),
                    f.weights.gb(),
                    f.pool.gb(),
                    usable.gb()
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
        let gemm = gemm_mode(precision, &gpu, bf16_tflops, efficiency.dequant_factor);
        if let Some(warning) = &gemm.fallback_warning {
            warnings.push(warning.clone());
        }
        if let Some(max_context) = model.max_context {
            if input_len + output_len > f64::from(max_context) {
                warnings.push(format!(
                    "input + output length ({:.0} tokens) exceeds {}'s context of {max_context} tokens",
                    input_len + output_len,
                    model.name
                ));
            }
        }
        let hardware = Hardware {
            memory_bw: BytesPerSecond::from_tb_s(gpu.memory_bw_tb_s),
            bf16_peak: FlopsPerSecond::from_tflops(bf16_tflops),
            link_bw: BytesPerSecond::from_gb_s(gpu.link_gb_s.unwrap_or(0.0)),
        };
        let step_cost = StepCost::new(&arch, hardware, par, precision, &gemm, kv_precision, efficiency);
        Ok(Scenario {
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
            max_num_seqs,
            chunk_tokens,
            batching,
            efficiency,
            usd_per_gpu_hour,
            concurrency,
            step_cost,
            weights_per_gpu: f.weights,
            kv_pool_per_gpu: f.pool,
            kv_per_sequence_gpu: f.per_sequence,
            kv_capacity_per_replica: f.capacity,
            warnings,
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

    /// Largest system concurrency whose KV fits (`S_cap × replicas`).
    pub fn kv_capacity(&self) -> u32 {
        self.kv_capacity_per_replica.saturating_mul(self.replicas)
    }

    /// The max-throughput operating point: the largest concurrency that fits, capped by the engine limit.
    pub fn max_feasible_concurrency(&self) -> u32 {
        self.kv_capacity().min(self.engine_limit()).max(1)
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
        assert_eq!(s.par.tp, 2, "70B FP8 (70.6 GB) does not fit one 80 GB H100 with room; TP2 does");
        assert_eq!(s.replicas, 4);
        assert!(s.warnings.iter().any(|w| w.contains("chose TP 2")));
    }

    fn err(input: ScenarioInput) -> ScenarioError {
        Scenario::try_from(input).expect_err("should be rejected")
    }

    #[test]
    fn bad_fields_are_named() {
        let base = ScenarioInput::default();
        assert_eq!(err(ScenarioInput { input_len: 0.0, ..base.clone() }).field, "input-len");
        assert_eq!(err(ScenarioInput { output_len: -3.0, ..base.clone() }).field, "output-len");
        assert_eq!(err(ScenarioInput { model: "nope".into(), ..base.clone() }).field, "model");
        assert_eq!(err(ScenarioInput { gpu: "h100-nvl".into(), ..base.clone() }).field, "gpu");
        assert_eq!(err(ScenarioInput { tp: Some(3.0), ..base.clone() }).field, "tp");
        assert_eq!(err(ScenarioInput { tp: Some(1.0), ..base.clone() }).field, "tp");
        assert_eq!(err(ScenarioInput { ep: Some(2.0), ..base.clone() }).field, "ep");
        assert_eq!(err(ScenarioInput { gpu_count: 1.0, precision: "bf16".into(), ..base.clone() }).field, "gpu-count");
        assert_eq!(err(ScenarioInput { usd_per_gpu_hour: Some(f64::NAN), ..base.clone() }).field, "usd-per-gpu-hour");
        let mut knobs = base.clone();
        knobs.efficiency.eta_mem = Some(1.5);
        assert_eq!(err(knobs).field, "eta-mem");
    }
}
