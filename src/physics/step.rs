//! Time of one engine iteration (step) on one GPU: the roofline primitive with efficiency factors
//! and the blended combiner, linear layers (dense and MoE), attention (decode and chunked
//! prefill), elementwise ops, tensor/expert-parallel communication and fixed overheads.
//!
//! MODEL.md §2.1 (`t_op = C_p(bytes/(BW·η_m), flops/(F·η_c))`, `C_p(a,b) = (a^p + b^p)^(1/p)`),
//! §2.2 (linear layers, MoE distinct experts), §2.3 (attention), §2.4 (all-reduce, all-to-all),
//! §2.6 (iteration total, `t_elem`, `t_it0`), §2.8 (attention data-parallel + expert parallel).
//! Every quantity here is per GPU after sharding.
//!
//! A `BatchShape` is the work of one pipeline stage of a replica: under attention DP, of all its
//! `DP` attention ranks together. Attention, dense layers and the head run on one rank's share
//! (`1/DP` of the batch, and at least one whole sequence while any decodes: the step waits for
//! the busiest rank); MoE layers see the whole stage's tokens spread over the EP ranks, with the
//! busiest EP rank carrying `ι` times the mean (`parallelism::ExpertLoad`).

use super::architecture::Architecture;
use super::efficiency::Efficiency;
use super::memory::{kv_bytes_per_layer_token_gpu, Parallelism, HALF_BYTES};
use super::parallelism::ExpertLoad;
use super::precision::{expert_bytes_per_weight, GemmMode, KvPrecision, Precision};
use crate::units::{Bytes, BytesPerSecond, Flops, FlopsPerSecond, Seconds};
use serde::Serialize;

/// Bytes per activation element moved between GPUs (BF16), `b_a`.
const ACTIVATION_BYTES: f64 = 2.0;
/// Memory passes per hidden element per layer for norms, residuals, activation and RoPE
/// (MODEL.md §2.6: `t_elem ≈ (L/PP)·T·d·b_a·~12/(BW·η_m)`).
const ELEMENTWISE_PASSES: f64 = 12.0;

/// The roofline blend `C_p(a, b) = m·((a/m)^p + (b/m)^p)^(1/p)`, `m = max(a, b)`;
/// `p = ∞` gives `max(a, b)` (MODEL.md §2.1; p = 1.5 fits vidur's profiles best).
///
/// The fitted default `p = 1.5` takes a fast path, `x^1.5 = x·√x` and `y^(1/1.5) = ∛(y²)`: the
/// same value up to rounding, without `powf`, which in wasm is a software `pow` and was the
/// hottest function of the page's start-up (every step time of every sweep calls this twice).
/// The cube root is `cbrt_1_to_4`: with `max(ra, rb) = 1` the sum lies in [1, 2].
pub fn blend(a: Seconds, b: Seconds, p: f64) -> Seconds {
    let m = a.max(b);
    if m.0 <= 0.0 || !p.is_finite() {
        return m;
    }
    let ra = a.0 / m.0;
    let rb = b.0 / m.0;
    if p == 1.5 {
        let sum = ra * ra.sqrt() + rb * rb.sqrt();
        return Seconds(m.0 * cbrt_1_to_4(sum * sum));
    }
    Seconds(m.0 * (ra.powf(p) + rb.powf(p)).powf(1.0 / p))
}

/// `∛x` for `x` in [1, 4], within 3 ulp of the correctly rounded cube root (5·10⁻¹⁶ relative):
/// the quadratic through the Chebyshev nodes of [1, 4] (relative error under 1 %), refined by
/// two steps of Halley's method for `t³ = x`, `t ← t·(t³ + 2x)/(2t³ + x)`, each of which cubes
/// the relative error. Plain IEEE arithmetic, so the same bits natively and in wasm. Why not
/// `f64::cbrt`: it is libm's correctly rounded cube root, built on fused multiply-adds, which
/// wasm has no instruction for; the software `fma` was the page's costliest start-up function
/// after `powf` went. Outside [1, 4] (never, from `blend`) it is `x^(1/3)` by `powf`, which the
/// model links anyway: `f64::cbrt` there would still bring the software `fma` into the page's
/// wasm (about 1.5 KB) for a branch that never runs.
fn cbrt_1_to_4(x: f64) -> f64 {
    if !(1.0..=4.0).contains(&x) {
        return x.powf(1.0 / 3.0);
    }
    let halley = |t: f64| {
        let t3 = t * t * t;
        t * (t3 + 2.0 * x) / (2.0 * t3 + x)
    };
    let guess = 0.709_835_869_295_929 + x * (0.326_442_596_274_056 - 0.026_997_368_269_378_65 * x);
    halley(halley(guess))
}

/// What limits a step or an operating point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Streaming the weights from HBM.
    WeightBandwidth,
    /// Streaming the KV cache from HBM.
    KvBandwidth,
    /// Tensor-core arithmetic.
    Compute,
    /// TP all-reduce / EP all-to-all / PP transfers.
    Communication,
    /// Fixed per-layer and per-step overheads (kernel launches, scheduler, sampler).
    Overhead,
    /// More sequences than the KV cache holds: requests wait or are preempted.
    KvCapacity,
    /// More sequences than the engine admits (`max_num_seqs`): requests wait.
    EngineLimit,
}

impl Bound {
    /// A short label for the page and the CLI.
    pub fn label(self) -> &'static str {
        match self {
            Bound::WeightBandwidth => "weight bandwidth",
            Bound::KvBandwidth => "KV bandwidth",
            Bound::Compute => "compute",
            Bound::Communication => "communication",
            Bound::Overhead => "fixed overheads",
            Bound::KvCapacity => "KV capacity",
            Bound::EngineLimit => "engine limit",
        }
    }
}

/// The work in one iteration, as the analytic model sees it (means, so counts may be fractional).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BatchShape {
    /// Sequences decoding one token each (`|D|`).
    pub decode_seqs: f64,
    /// Mean cached context of the decoding sequences (`c̄`).
    pub decode_context: f64,
    /// Prompt tokens prefilled this step (`Σ n_j`).
    pub prefill_tokens: f64,
    /// Length of the prompts those tokens belong to (for causal attention and prior-KV reads).
    pub prefill_prompt: f64,
    /// Chunk size the prompts are split into (`min(P, T_bud)`).
    pub prefill_chunk: f64,
    /// Mean cached prefix of those prompts, tokens (a prefix-cache hit, MODEL.md §1.5 and §4.6):
    /// not prefilled, but every new token attends over it and every chunk reads its KV once.
    pub prefill_cached: f64,
    /// Extra query tokens each decoding sequence verifies (speculative decoding's `γ`); the
    /// linear and attention FLOPs grow `(γ+1)×` but the KV is read once per sequence (MODEL.md §5).
    pub verify_tokens: f64,
}

/// Where the time of one step goes, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct StepBreakdown {
    /// Linear layers (weights and GEMMs, blended).
    pub linear_ms: f64,
    /// Attention (KV reads and score/value FLOPs, blended).
    pub attention_ms: f64,
    /// Norms, residuals, activations.
    pub elementwise_ms: f64,
    /// TP all-reduce, EP all-to-all, PP transfers.
    pub communication_ms: f64,
    /// Per-layer kernel floors and the per-step scheduler/sampler overhead.
    pub overhead_ms: f64,
    /// Speculative-decoding draft steps (`γ·t_draft`), 0 when off.
    pub draft_ms: f64,
    pub total_ms: f64,
    /// Unblended components, for the "bound by" label.
    pub weight_read_ms: f64,
    pub kv_read_ms: f64,
    pub compute_ms: f64,
}

impl StepBreakdown {
    pub fn total(&self) -> Seconds {
        Seconds::from_ms(self.total_ms)
    }

    /// The largest unblended component.
    pub fn bound(&self) -> Bound {
        let candidates = [
            (Bound::WeightBandwidth, self.weight_read_ms),
            (Bound::KvBandwidth, self.kv_read_ms),
            (Bound::Compute, self.compute_ms),
            (Bound::Communication, self.communication_ms),
            (Bound::Overhead, self.overhead_ms),
        ];
        candidates
            .into_iter()
            .fold((Bound::Overhead, f64::NEG_INFINITY), |best, c| {
                if c.1 > best.1 {
                    c
                } else {
                    best
                }
            })
            .0
    }
}

/// Per-GPU constants of the step model, computed once per scenario so each step is a few dozen
/// flops (the slider path recomputes hundreds of steps per input event).
#[derive(Debug, Clone, PartialEq)]
pub struct StepCost {
    arch: Architecture,
    par: Parallelism,
    efficiency: Efficiency,
    bandwidth: BytesPerSecond,
    linear_rate: FlopsPerSecond,
    /// Rate of the routed-expert GEMMs (`precision::expert_gemm_mode`; `linear_rate` unless the
    /// experts keep a format of their own).
    expert_rate: FlopsPerSecond,
    attention_rate: FlopsPerSecond,
    link_bandwidth: BytesPerSecond,
    network_bandwidth: BytesPerSecond,
    /// Scale-up nodes one stage's `TP·DP` GPUs span (1 inside one NVLink/Infinity Fabric domain).
    nodes_per_stage: f64,
    scale_up_domain: u32,
    layers_per_stage: f64,
    floor_layers_per_stage: f64,
    always_read_bytes: f64,
    expert_bytes_each: f64,
    /// Expert slots of the whole model, `E + R` (the cap on distinct experts read).
    expert_slots: f64,
    lm_head_bytes: f64,
    /// The always-read (attention, dense, shared-expert, router) part of the linear FLOPs per
    /// token, which runs on one attention rank's tokens.
    dense_linear_flops_per_token: f64,
    /// The routed-expert part, which runs on the whole stage's tokens times `ι`.
    expert_linear_flops_per_token: f64,
    expert_load: Option<ExpertLoad>,
    lm_head_flops_per_logit: f64,
    kv_bytes_per_layer_token: f64,
    decode_attention_flops_per_layer_token: f64,
    prefill_attention_flops_per_layer_token: f64,
    elementwise_bytes_per_token: f64,
}

/// Hardware numbers the step model needs, already resolved from the catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hardware {
    pub memory_bw: BytesPerSecond,
    pub bf16_peak: FlopsPerSecond,
    /// Scale-up link bandwidth per direction; zero when unknown (only allowed for TP = EP = PP = 1).
    pub link_bw: BytesPerSecond,
    /// Scale-out bandwidth per GPU per direction (`parallelism::network_gb_s`).
    pub network_bw: BytesPerSecond,
    /// GPUs per scale-up domain (`parallelism::scale_up_domain`).
    pub scale_up_domain: u32,
}

/// The MoE and expert-parallel facts of a scenario the step model needs besides the layout.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpertSetup {
    /// Redundant expert slots (EPLB), `R`.
    pub redundant_experts: f64,
    /// How the routed-expert GEMMs run (`precision::expert_gemm_mode`).
    pub gemm: GemmMode,
}

/// Smallest expert-GEMM tile along the token dimension, rows (TensorRT-LLM's trtllm-gen fused
/// MoE clamps its `tile_tokens_dim` to 8..128: `calculate_tile_tokens_dim` in
/// `tensorrt_llm/_torch/custom_ops/trtllm_gen_custom_ops.py`, also vLLM's and FlashInfer's copies).
const MOE_TILE_MIN_ROWS: f64 = 8.0;

/// `Q(z) = P(Z > z)` of a standard normal, via Abramowitz & Stegun 7.1.26 for `erfc`
/// (absolute error below 1.5e-7).
fn normal_tail(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let upper = 0.5 * poly * (-x * x).exp();
    if z >= 0.0 {
        upper
    } else {
        1.0 - upper
    }
}

/// Grouped-GEMM tile padding of the routed experts: computed rows over useful rows, `≥ 1`, when
/// each expert receives on average `rows` token rows and the tile is at most `max_tile` rows.
///
/// A grouped (per-expert) GEMM runs every expert's rows in whole tiles along the token
/// dimension, so an expert with `n` rows costs `⌈n/t⌉·t` rows of tensor-core work. Engines size
/// the tile to the mean rows per expert: TensorRT-LLM's trtllm-gen MoE takes
/// `t = clamp(next_pow2(T·k/E), 8, 128)` (`calculate_tile_tokens_dim`); vLLM's Triton
/// `fused_moe` pads each expert's tokens to a multiple of `BLOCK_SIZE_M` (`moe_align_block_size`,
/// 16–64 by default). Under uniform top-k routing an expert's rows are close to Poisson with mean
/// `m = rows`, so the expected tiles are `E⌈n/t⌉ = P(n ≥ 1) + Σ_{j≥1} P(n > j·t)`, with
/// `P(n ≥ 1) = 1 − e^(−m)` and the tails from the normal approximation `Q((j·t + ½ − m)/√m)`.
/// The factor is `t·E⌈n/t⌉/m`: near 1 for `m ≫ t`, up to ~1.5 when `m` sits just above a tile.
pub fn expert_tile_padding(rows: f64, max_tile: f64) -> f64 {
    if rows.is_nan() || rows <= 0.0 || !rows.is_finite() {
        return 1.0;
    }
    let max_tile = max_tile.max(MOE_TILE_MIN_ROWS);
    let tile = 2f64
        .powf(rows.log2().ceil())
        .clamp(MOE_TILE_MIN_ROWS, max_tile);
    let spread = rows.sqrt();
    let last = ((rows + 8.0 * spread + 1.0) / tile).ceil().min(4096.0);
    let mut tiles = 1.0 - (-rows).exp();
    let mut j = 1.0;
    while j <= last {
        tiles += normal_tail((j * tile + 0.5 - rows) / spread);
        j += 1.0;
    }
    (tile * tiles / rows).max(1.0)
}

impl StepCost {
    /// The per-GPU constants of `arch` on `hardware` laid out as `par`. With attention DP, the
    /// always-read weights are replicated per attention rank (divided by `TP·PP` only) and the
    /// routed experts spread over all `TP·DP·PP` GPUs (MODEL.md §2.8).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        arch: &Architecture,
        hardware: Hardware,
        par: Parallelism,
        precision: Precision,
        gemm: &GemmMode,
        kv: KvPrecision,
        efficiency: Efficiency,
        experts: ExpertSetup,
    ) -> StepCost {
        let shards = f64::from(par.gpus_per_replica().max(1));
        let rank_shards = f64::from(par.tp.saturating_mul(par.pp).max(1));
        let tp = f64::from(par.tp.max(1));
        let b_w = precision.bytes_per_weight();
        let b_expert = expert_bytes_per_weight(arch, precision);
        let domain = f64::from(hardware.scale_up_domain.max(1));
        StepCost {
            arch: arch.clone(),
            par,
            efficiency,
            bandwidth: hardware.memory_bw * efficiency.eta_mem,
            linear_rate: FlopsPerSecond::from_tflops(gemm.peak_tflops)
                * (efficiency.eta_compute * gemm.dequant_factor),
            expert_rate: FlopsPerSecond::from_tflops(experts.gemm.peak_tflops)
                * (efficiency.eta_compute * experts.gemm.dequant_factor),
            attention_rate: hardware.bf16_peak * efficiency.eta_compute,
            link_bandwidth: hardware.link_bw * efficiency.link_efficiency,
            network_bandwidth: hardware.network_bw * efficiency.link_efficiency,
            nodes_per_stage: (f64::from(par.gpus_per_stage().max(1)) / domain).ceil(),
            scale_up_domain: hardware.scale_up_domain.max(1),
            layers_per_stage: arch.layers / f64::from(par.pp.max(1)),
            floor_layers_per_stage: arch.floor_layers / f64::from(par.pp.max(1)),
            always_read_bytes: arch.always_read_linear_params() * b_w / rank_shards,
            expert_bytes_each: arch.moe_layers * arch.expert_params * b_expert / shards,
            expert_slots: arch.experts + experts.redundant_experts.max(0.0),
            lm_head_bytes: arch.lm_head_params * HALF_BYTES / tp,
            dense_linear_flops_per_token: 2.0 * arch.always_read_linear_params() / rank_shards,
            expert_linear_flops_per_token: 2.0
                * arch.moe_layers
                * arch.experts_per_token
                * arch.expert_params
                / shards,
            expert_load: ExpertLoad::new(
                arch,
                par.ep,
                experts.redundant_experts,
                efficiency.moe_imbalance,
            ),
            lm_head_flops_per_logit: 2.0 * arch.lm_head_params / tp,
            kv_bytes_per_layer_token: kv_bytes_per_layer_token_gpu(arch, kv, par.tp).0,
            decode_attention_flops_per_layer_token: arch.decode_attention_flops_per_token_layer
                / tp,
            prefill_attention_flops_per_layer_token: arch.prefill_attention_flops_per_token_layer
                / tp,
            elementwise_bytes_per_token: arch.layers / f64::from(par.pp.max(1))
                * arch.hidden
                * ACTIVATION_BYTES
                * ELEMENTWISE_PASSES,
        }
    }

    pub fn efficiency(&self) -> &Efficiency {
        &self.efficiency
    }

    /// GPUs per scale-up domain of the hardware this cost was built for.
    pub fn scale_up_domain(&self) -> u32 {
        self.scale_up_domain
    }

    /// `ι` for `tokens` tokens of the whole stage entering an MoE layer: the busiest EP rank's
    /// routed load over the mean (`parallelism::ExpertLoad`); 1 without expert parallelism.
    pub fn expert_imbalance(&self, tokens: f64) -> f64 {
        self.expert_load.map_or(1.0, |load| load.imbalance(tokens))
    }

    /// Weight bytes one step streams on one GPU for `tokens` tokens of the whole stage:
    /// always-read linear weights, the distinct routed experts those tokens hit
    /// (`E·(1−(1−k/E)^T)`, MODEL.md §2.2) and the output head. Under expert parallelism the
    /// step waits for the busiest EP rank, whose `E/EP` experts see `ι·T·k/EP` routed pairs, so
    /// it reads `E·(1−(1−k/E)^(ι·T))/EP` of them (capped at its slots).
    pub fn weight_bytes_read(&self, tokens: f64) -> Bytes {
        self.weight_bytes_at(tokens, self.expert_imbalance(tokens))
    }

    fn weight_bytes_at(&self, tokens: f64, imbalance: f64) -> Bytes {
        let distinct = if self.par.ep > 1 {
            self.arch
                .distinct_experts(tokens * imbalance)
                .min(self.expert_slots)
        } else {
            self.arch.distinct_experts(tokens)
        };
        Bytes(self.always_read_bytes + self.expert_bytes_each * distinct + self.lm_head_bytes)
    }

    /// One attention rank's share of `count` sequences or tokens of the stage: all of them
    /// without attention DP; with `DP` ranks `count/DP`, and at least one whole sequence while
    /// there is any (a lone request runs on one rank and the ranks step together).
    fn rank_share(&self, count: f64) -> f64 {
        if self.par.dp > 1 {
            (count / f64::from(self.par.dp)).max(count.min(1.0))
        } else {
            count
        }
    }

    /// Time of one iteration of one pipeline stage with this batch (MODEL.md §2.6):
    /// `t_iter = t_lin + t_attn + t_elem + t_TP + t_A2A + (L/PP)·t_L0 + t_it0 + n_seq·t_seq`
    /// (`n_seq` the sequences sampling this step on one scheduler). Under attention
    /// DP (§2.8) attention, dense layers, the head and elementwise work run on one rank's share of
    /// the decodes (`rank_share`) and `1/DP` of the prefill tokens; the routed experts on the
    /// stage's `T` tokens, `ι·T·k/EP` pairs on the busiest EP rank.
    pub fn step(&self, shape: &BatchShape) -> StepBreakdown {
        let e = &self.efficiency;
        let queries_per_seq = 1.0 + shape.verify_tokens.max(0.0);
        let decode_tokens = shape.decode_seqs * queries_per_seq;
        let tokens = (decode_tokens + shape.prefill_tokens).max(0.0);
        let prompt = shape.prefill_prompt.max(1.0);
        let (rank_decode_seqs, rank_prefill_tokens) = if self.par.dp > 1 {
            (
                self.rank_share(shape.decode_seqs),
                shape.prefill_tokens / f64::from(self.par.dp),
            )
        } else {
            (shape.decode_seqs, shape.prefill_tokens)
        };
        let rank_decode_tokens = rank_decode_seqs * queries_per_seq;
        let rank_tokens = (rank_decode_tokens + rank_prefill_tokens).max(0.0);
        let finishing_prompts = if rank_prefill_tokens > 0.0 {
            rank_prefill_tokens / prompt
        } else {
            0.0
        };
        let logits = rank_decode_tokens + finishing_prompts;
        let imbalance = self.expert_imbalance(tokens);

        // Linear layers (§2.2): this GPU's share of the blocks (already divided by TP·PP, the
        // experts by TP·DP·PP) plus the head.
        let weight_bytes = self.weight_bytes_at(tokens, imbalance);
        // Routed experts (§2.2) in whole grouped-GEMM tiles: `ι·T·k` rows over `E + R` slots.
        let padding = if self.arch.moe_layers > 0.0 && self.expert_slots > 0.0 {
            expert_tile_padding(
                tokens * imbalance * self.arch.experts_per_token / self.expert_slots,
                e.moe_tile_max_rows,
            )
        } else {
            1.0
        };
        let (dense_flops, expert_flops) = if self.par.dp > 1 || imbalance > 1.0 {
            (
                Flops(
                    self.dense_linear_flops_per_token * rank_tokens
                        + self.lm_head_flops_per_logit * logits,
                ),
                Flops(self.expert_linear_flops_per_token * tokens * imbalance * padding),
            )
        } else {
            (
                Flops(
                    self.dense_linear_flops_per_token * tokens
                        + self.lm_head_flops_per_logit * logits,
                ),
                Flops(self.expert_linear_flops_per_token * tokens * padding),
            )
        };
        let weight_read = weight_bytes / self.bandwidth;
        let linear_compute = dense_flops / self.linear_rate + expert_flops / self.expert_rate;
        let linear = blend(weight_read, linear_compute, e.blend_p);

        // Attention (§2.3): decode reads every cached token once per layer; prefill chunks write
        // their KV, re-read earlier chunks' KV, and compute the causal square.
        let decode_layer_tokens = rank_decode_seqs
            * self.arch.kv_layer_tokens(shape.decode_context)
            / f64::from(self.par.pp.max(1));
        // A cached prefix (MODEL.md §4.6: "prefills only its uncached suffix but attends over the
        // whole context"): each new token attends over all of it, and each chunk reads its KV once.
        let cached_layer_tokens = self.arch.kv_layer_tokens(shape.prefill_cached.max(0.0));
        let prefill_attended = rank_prefill_tokens
            * (self
                .arch
                .prefill_layer_tokens_per_token(prompt, e.causal_factor)
                + cached_layer_tokens)
            / f64::from(self.par.pp.max(1));
        let chunk = shape.prefill_chunk.clamp(1.0, prompt);
        let chunks = (prompt / chunk).ceil();
        let prior_reads_per_token = chunk * chunks * (chunks - 1.0) / 2.0 / prompt;
        let prefill_kv_layer_tokens =
            rank_prefill_tokens * (1.0 + prior_reads_per_token) * self.layers_per_stage
                + rank_prefill_tokens / chunk * cached_layer_tokens / f64::from(self.par.pp.max(1));
        let kv_bytes =
            Bytes(self.kv_bytes_per_layer_token * (decode_layer_tokens + prefill_kv_layer_tokens));
        let attention_flops = Flops(
            self.decode_attention_flops_per_layer_token * decode_layer_tokens * queries_per_seq
                + self.prefill_attention_flops_per_layer_token * prefill_attended,
        );
        let kv_read = kv_bytes / self.bandwidth;
        let attention_compute = attention_flops / self.attention_rate;
        let attention = blend(kv_read, attention_compute, e.blend_p);

        let elementwise = (Bytes(self.elementwise_bytes_per_token * rank_tokens)
            + self.moe_routing_bytes(rank_tokens, tokens, imbalance))
            / self.bandwidth;
        let communication = self.communication(tokens, rank_tokens, imbalance);
        // Per-sequence CPU work (`t_seq`, `physics::engine`): every sequence that samples a token
        // this step, on its scheduler (one per attention-DP rank).
        let overhead = Seconds::from_us(e.layer_overhead_us) * self.floor_layers_per_stage
            + Seconds::from_ms(e.step_overhead_ms)
            + Seconds::from_us(e.seq_overhead_us) * (rank_decode_seqs + finishing_prompts);
        let total = linear + attention + elementwise + communication + overhead;
        StepBreakdown {
            linear_ms: linear.ms(),
            attention_ms: attention.ms(),
            elementwise_ms: elementwise.ms(),
            communication_ms: communication.ms(),
            overhead_ms: overhead.ms(),
            draft_ms: 0.0,
            total_ms: total.ms(),
            weight_read_ms: weight_read.ms(),
            kv_read_ms: kv_read.ms(),
            compute_ms: (linear_compute + attention_compute).ms(),
        }
    }

    /// HBM traffic of the MoE routing kernels around the grouped GEMMs, per MoE layer on one GPU
    /// (TensorRT-LLM's CUTLASS MoE: `expandInputRowsKernel` gathers each token's activation once
    /// per chosen expert before the GEMMs, `finalizeMoeRoutingKernel` reads the `k` expert outputs
    /// back and writes their weighted sum; vLLM's `fused_moe` and SGLang do the same with
    /// `moe_align_block_size` + gather and `moe_sum`): read the rank's `T_rank` tokens and write
    /// the `ι·T·k/EP` expanded rows this GPU serves, then read those rows and write `T_rank`
    /// outputs, `d·b_a` bytes each: `(L_moe/PP)·d·b_a·2·(T_rank + ι·T·k/EP)`. The router GEMM is
    /// in the always-read weights and the top-k softmax is negligible.
    fn moe_routing_bytes(&self, rank_tokens: f64, tokens: f64, imbalance: f64) -> Bytes {
        if self.arch.moe_layers <= 0.0 {
            return Bytes(0.0);
        }
        let ep = f64::from(self.par.ep.max(1));
        let expanded = tokens * imbalance * self.arch.experts_per_token / ep;
        Bytes(
            self.arch.moe_layers / f64::from(self.par.pp.max(1))
                * self.arch.hidden
                * ACTIVATION_BYTES
                * 2.0
                * (rank_tokens + expanded),
        )
    }

    /// `bytes` over the scale-up link; nothing when the link is unknown (TP = EP = PP = DP = 1).
    fn over_link(&self, bytes: Bytes) -> Seconds {
        if self.link_bandwidth.0 > 0.0 {
            bytes / self.link_bandwidth
        } else {
            Seconds(0.0)
        }
    }

    /// One MoE layer's all-to-all, dispatch or combine, on the busiest GPU: it receives the
    /// routed copies of its EP rank's share of the stage's tokens, `ι·(T/EP)·k` of them, `d·b_a`
    /// bytes each (DeepEP counts dispatch and combine traffic the same way: tokens × hidden ×
    /// top-k × bytes per element; deepseek-ai/DeepEP README). Of these a fraction `(EP−1)/EP`
    /// comes from other GPUs; when the stage spans `n > 1` scale-up domains, `(n−1)/n` of it
    /// crosses the network and the slower of the two paths bounds the transfer (DeepEP's
    /// "bottleneck bandwidth": NVLink and RDMA run in parallel):
    /// `t = α + max(B·((EP−1)/EP − (n−1)/n)/BW_link, B·((n−1)/n)/BW_net)` (MODEL.md §2.4, §2.8).
    fn all_to_all(&self, tokens: f64, imbalance: f64) -> Seconds {
        let e = &self.efficiency;
        let ep = f64::from(self.par.ep.max(1));
        let received = Bytes(
            tokens * self.arch.experts_per_token / ep
                * imbalance
                * self.arch.hidden
                * ACTIVATION_BYTES,
        );
        let remote = (ep - 1.0) / ep;
        let across = (self.nodes_per_stage - 1.0) / self.nodes_per_stage;
        let inside = self.over_link(received * (remote - across).max(0.0));
        let network = if across > 0.0 && self.network_bandwidth.0 > 0.0 {
            received * across / self.network_bandwidth
        } else {
            Seconds(0.0)
        };
        Seconds::from_us(e.allreduce_latency_us) + inside.max(network)
    }

    /// Communication of one stage's step (MODEL.md §2.4, §2.8), `α = α_AR`:
    /// * TP all-reduce inside each attention rank, `t_AR(m) = α + 2·(TP−1)/TP · m/(BW_link·η_link)`
    ///   on the rank's tokens, `m = T_rank·d·b_a`: after o_proj and down_proj of every layer
    ///   without attention DP; with it after o_proj and the dense FFN layers (the MoE layers'
    ///   reduction is their combine);
    /// * EP all-to-all per MoE layer, dispatch and combine (`all_to_all`), when the layout runs
    ///   one (`Parallelism::runs_all_to_all`: attention DP with EP; otherwise the all-reduce
    ///   after the MoE layer, counted above, is the combine);
    /// * with attention DP and experts split `moe-TP` ways, the gather of tokens and
    ///   reduce-scatter of outputs inside each expert's `moe-TP` group, priced as an all-reduce
    ///   of the tokens it serves (all `T` without EP, `ι·T·k/EP` with it); over the network when
    ///   the group leaves the scale-up domain;
    /// * PP hand-off of one rank's `T_rank·d·b_a` bytes per stage boundary.
    fn communication(&self, tokens: f64, rank_tokens: f64, imbalance: f64) -> Seconds {
        let e = &self.efficiency;
        let alpha = Seconds::from_us(e.allreduce_latency_us);
        let message = Bytes(rank_tokens * self.arch.hidden * ACTIVATION_BYTES);
        let mut total = Seconds(0.0);
        let tp = f64::from(self.par.tp.max(1));
        let pp = f64::from(self.par.pp.max(1));
        let moe_layers_per_stage = self.arch.moe_layers / pp;
        if self.par.tp > 1 {
            let all_reduce = alpha + self.over_link(message * (2.0 * (tp - 1.0) / tp));
            let count = if self.par.dp > 1 {
                self.layers_per_stage + self.arch.dense_ffn_layers / pp
            } else {
                2.0 * self.layers_per_stage
            };
            total += all_reduce * count;
        }
        if self.par.runs_all_to_all() && self.arch.moe_layers > 0.0 {
            total += self.all_to_all(tokens, imbalance) * (2.0 * moe_layers_per_stage);
        }
        let moe_tp = self.par.moe_tp();
        if self.par.dp > 1 && moe_tp > 1 && self.arch.moe_layers > 0.0 {
            let served = if self.par.ep > 1 {
                tokens * self.arch.experts_per_token / f64::from(self.par.ep) * imbalance
            } else {
                tokens
            };
            let group = f64::from(moe_tp);
            let bytes =
                Bytes(served * self.arch.hidden * ACTIVATION_BYTES) * (2.0 * (group - 1.0) / group);
            let crosses = self.nodes_per_stage > 1.0 && self.par.ep == 1;
            let transfer = if crosses && self.network_bandwidth.0 > 0.0 {
                bytes / self.network_bandwidth
            } else {
                self.over_link(bytes)
            };
            total += (alpha + transfer) * moe_layers_per_stage;
        }
        if self.par.pp > 1 {
            total += alpha + self.over_link(message);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;
    use crate::physics::precision::gemm_mode;

    #[test]
    fn the_cube_root_of_the_fast_path_is_within_3_ulp_on_1_to_4() {
        let n = 300_000;
        for i in 0..=n {
            let x = 1.0 + 3.0 * f64::from(i) / f64::from(n);
            let (fast, exact) = (cbrt_1_to_4(x), x.cbrt());
            let ulps = (fast.to_bits() as i64 - exact.to_bits() as i64).unsigned_abs();
            assert!(ulps <= 3, "∛{x}: {fast} vs {exact} ({ulps} ulp)");
        }
        let outside = cbrt_1_to_4(8.0);
        assert!(
            (outside - 2.0).abs() < 1e-15,
            "outside [1, 4]: x^(1/3), {outside}"
        );
        assert_eq!((cbrt_1_to_4(1.0), cbrt_1_to_4(4.0)), (1.0, 4f64.cbrt()));
    }

    #[test]
    fn the_p_1_5_fast_path_is_the_general_blend_up_to_rounding() {
        let general = |a: f64, b: f64, p: f64| {
            let m = a.max(b);
            m * ((a / m).powf(p) + (b / m).powf(p)).powf(1.0 / p)
        };
        for (a, b) in [
            (1.0, 1.0),
            (1.0, 0.0),
            (0.0, 3.0),
            (2e-3, 7e-4),
            (5e-6, 4.9e-6),
            (1e-9, 1e3),
            (0.123, 0.456),
        ] {
            let fast = blend(Seconds(a), Seconds(b), 1.5).0;
            let slow = general(a, b, 1.5);
            assert!(
                (fast - slow).abs() <= 1e-14 * slow.abs(),
                "{a} {b}: {fast} vs {slow}"
            );
        }
        assert!((blend(Seconds(1.0), Seconds(1.0), 1.5).0 - 2f64.powf(2.0 / 3.0)).abs() < 1e-15);
        assert_eq!(blend(Seconds(2.0), Seconds(0.0), 1.5).0, 2.0);
    }

    fn h100_8b() -> StepCost {
        let cat = catalog().expect("catalog");
        let gpu = cat.gpu("h100-sxm").expect("gpu");
        let arch = Architecture::new(cat.model("llama-3.1-8b").expect("model"));
        let hw = Hardware {
            memory_bw: BytesPerSecond::from_tb_s(gpu.memory_bw_tb_s),
            bf16_peak: FlopsPerSecond::from_tflops(989.0),
            link_bw: BytesPerSecond::from_gb_s(450.0),
            network_bw: BytesPerSecond::from_gb_s(50.0),
            scale_up_domain: 8,
        };
        let eff = Efficiency::MODEL_MD_WORKED_EXAMPLE;
        let gemm = gemm_mode(Precision::Bf16, gpu, 989.0, eff.dequant_factor);
        StepCost::new(
            &arch,
            hw,
            Parallelism::tensor(1),
            Precision::Bf16,
            &gemm,
            KvPrecision::Bf16,
            eff,
            ExpertSetup {
                redundant_experts: 0.0,
                gemm: gemm.clone(),
            },
        )
    }

    /// DeepSeek-R1 in FP8 on H200-like hardware laid out as `par`, with `domain` GPUs per
    /// scale-up domain.
    fn deepseek(par: Parallelism, domain: u32) -> StepCost {
        let cat = catalog().expect("catalog");
        let gpu = cat.gpu("h200-sxm").expect("gpu");
        let arch = Architecture::new(cat.model("deepseek-r1").expect("model"));
        let hw = Hardware {
            memory_bw: BytesPerSecond::from_tb_s(gpu.memory_bw_tb_s),
            bf16_peak: FlopsPerSecond::from_tflops(989.0),
            link_bw: BytesPerSecond::from_gb_s(450.0),
            network_bw: BytesPerSecond::from_gb_s(50.0),
            scale_up_domain: domain,
        };
        let eff = Efficiency::NVIDIA_DATACENTER;
        let gemm = gemm_mode(Precision::Fp8, gpu, 989.0, eff.dequant_factor);
        StepCost::new(
            &arch,
            hw,
            par,
            Precision::Fp8,
            &gemm,
            KvPrecision::Fp8,
            eff,
            ExpertSetup {
                redundant_experts: 0.0,
                gemm: gemm.clone(),
            },
        )
    }

    fn decode_shape(batch: f64) -> BatchShape {
        BatchShape {
            decode_seqs: batch,
            decode_context: 1500.0,
            ..BatchShape::default()
        }
    }

    /// The MoE all-to-all of DEP 16 (MODEL.md §2.4, §2.8): inside one 16-GPU domain every byte
    /// from another GPU rides the link, `α + ι·(T·k/EP)·d·b_a·(EP−1)/EP / BW_link` per dispatch
    /// or combine; across two 8-GPU domains half the traffic crosses the network and bounds it.
    #[test]
    fn all_to_all_inside_and_across_scale_up_domains() {
        let inside = deepseek(Parallelism::dep(16), 16);
        let across = deepseek(Parallelism::dep(16), 8);
        let batch = 1024.0;
        let inside_ms = inside.step(&decode_shape(batch)).communication_ms;
        let across_ms = across.step(&decode_shape(batch)).communication_ms;
        let e = Efficiency::NVIDIA_DATACENTER;
        let imbalance = inside.expert_imbalance(batch);
        assert!(imbalance > 1.0);
        let received = batch * 8.0 / 16.0 * imbalance * 7168.0 * 2.0;
        let link = 450e9 * e.link_efficiency;
        let net = 50e9 * e.link_efficiency;
        let moe_layers = 58.0;
        let one_inside = e.allreduce_latency_us * 1e-6 + received * (15.0 / 16.0) / link;
        assert!(
            (inside_ms - 2.0 * moe_layers * one_inside * 1e3).abs() < 1e-9,
            "{inside_ms}"
        );
        let one_across = e.allreduce_latency_us * 1e-6
            + (received * (15.0 / 16.0 - 0.5) / link).max(received * 0.5 / net);
        assert!(
            (across_ms - 2.0 * moe_layers * one_across * 1e3).abs() < 1e-9,
            "{across_ms}"
        );
        assert!(across_ms > 3.0 * inside_ms, "{across_ms} vs {inside_ms}");
    }

    /// Under DEP 8 attention runs on one rank's share: 64 decoding sequences cost each GPU the KV
    /// reads of 8; a lone request costs its rank a whole one. The MoE weights read follow the
    /// whole stage's 64 tokens on the busiest EP rank.
    #[test]
    fn attention_dp_runs_each_ranks_share() {
        let dep8 = deepseek(Parallelism::dep(8), 8);
        let single = deepseek(Parallelism::tensor(1), 8);
        let shared = dep8.step(&decode_shape(64.0));
        let own = single.step(&decode_shape(8.0));
        assert!((shared.kv_read_ms - own.kv_read_ms).abs() < 1e-12);
        let lone = dep8.step(&decode_shape(1.0));
        let lone_single = single.step(&decode_shape(1.0));
        assert!((lone.kv_read_ms - lone_single.kv_read_ms).abs() < 1e-12);
        // TP 1 reads all the experts the tokens hit; DEP 8's busiest rank an eighth of ι·T's.
        let imbalance = dep8.expert_imbalance(64.0);
        let arch = Architecture::new(catalog().expect("catalog").model("deepseek-r1").expect("m"));
        let expected =
            (single.weight_bytes_read(64.0).0 - single.always_read_bytes - single.lm_head_bytes)
                / arch.distinct_experts(64.0)
                * arch.distinct_experts(64.0 * imbalance)
                / 8.0;
        let got = dep8.weight_bytes_read(64.0).0 - dep8.always_read_bytes - dep8.lm_head_bytes;
        assert!((got / expected - 1.0).abs() < 1e-9, "{got} vs {expected}");
        // No expert parallelism, no imbalance.
        assert_eq!(single.expert_imbalance(64.0), 1.0);
    }

    fn decode(cost: &StepCost, batch: f64, context: f64) -> f64 {
        cost.step(&BatchShape {
            decode_seqs: batch,
            decode_context: context,
            ..BatchShape::default()
        })
        .total_ms
    }

    /// MODEL.md §2.7 worked example (stated tolerance: 3 %): batch 1 at 1.5 k context 6.1 ms,
    /// batch 64 10.9 ms, batch 256 26.8 ms.
    #[test]
    fn worked_decode_steps() {
        let cost = h100_8b();
        for (batch, expected_ms) in [(1.0, 6.1), (64.0, 10.9), (256.0, 26.8)] {
            let got = decode(&cost, batch, 1536.0);
            assert!(
                (got / expected_ms - 1.0).abs() < 0.03,
                "B={batch}: {got:.2} ms vs {expected_ms}"
            );
        }
    }

    /// MODEL.md §2.7: prefill ≈ 20 µs/token in 2048-token chunks. Stated tolerance: 10 %; we
    /// land at ≈21.7 µs because §2.6's elementwise term (12 passes over `T·d` per layer, ≈2.3 ms
    /// at T = 2048) is included here and the §2.7 figure leaves it out.
    #[test]
    fn worked_prefill_cost() {
        let cost = h100_8b();
        let step = cost.step(&BatchShape {
            prefill_tokens: 2048.0,
            prefill_prompt: 2048.0,
            prefill_chunk: 2048.0,
            ..BatchShape::default()
        });
        let per_token_us = step.total_ms * 1e3 / 2048.0;
        assert!(
            (per_token_us / 20.0 - 1.0).abs() < 0.10,
            "{per_token_us:.1} µs/token"
        );
        assert_eq!(step.bound(), Bound::Compute);
    }

    /// MODEL.md §4.6: a turn prefills only its uncached suffix but attends over the whole
    /// context. A 2048-token chunk after a 30k cached prefix costs more than the chunk alone and
    /// much less than prefilling the prefix too.
    #[test]
    fn a_cached_prefix_costs_attention_not_prefill() {
        let cost = h100_8b();
        let chunk = |cached: f64, prompt: f64| {
            cost.step(&BatchShape {
                prefill_tokens: 2048.0,
                prefill_prompt: prompt,
                prefill_chunk: 2048.0,
                prefill_cached: cached,
                ..BatchShape::default()
            })
        };
        let alone = chunk(0.0, 2048.0);
        let after_prefix = chunk(30_000.0, 2048.0);
        assert!(after_prefix.attention_ms > alone.attention_ms);
        assert_eq!(after_prefix.linear_ms, alone.linear_ms);
        let prefill_all_ms = chunk(0.0, 32_048.0).total_ms * 32_048.0 / 2048.0;
        assert!(after_prefix.total_ms < prefill_all_ms / 4.0);
    }

    #[test]
    fn small_batch_is_weight_bound_large_batch_is_kv_bound() {
        let cost = h100_8b();
        let small = cost.step(&BatchShape {
            decode_seqs: 1.0,
            decode_context: 1536.0,
            ..BatchShape::default()
        });
        assert_eq!(small.bound(), Bound::WeightBandwidth);
        let large = cost.step(&BatchShape {
            decode_seqs: 256.0,
            decode_context: 1536.0,
            ..BatchShape::default()
        });
        assert_eq!(large.bound(), Bound::KvBandwidth);
    }

    /// Tile padding (`expert_tile_padding`): a lone row in an 8-row tile costs 8 rows; many rows
    /// per expert pad about half a 128-row tile each; just above a tile costs about 1.5×; the
    /// factor never drops below 1 and a larger tile never helps.
    #[test]
    fn expert_tile_padding_follows_the_tile_rule() {
        // m → 0: P(n ≥ 1)·8/m → 8.
        assert!((expert_tile_padding(1e-3, 128.0) - 8.0).abs() < 0.01);
        // m = 2000 ≫ 128: ≈ (m + 64)/m.
        let many = expert_tile_padding(2000.0, 128.0);
        assert!((many - 2064.0 / 2000.0).abs() < 0.005, "{many}");
        // m = 128, tile 128: half the experts spill into a second tile.
        let edge = expert_tile_padding(128.0, 128.0);
        assert!((1.4..1.6).contains(&edge), "{edge}");
        for rows in [0.1, 0.5, 3.0, 17.0, 100.0, 300.0, 5000.0] {
            let small = expert_tile_padding(rows, 64.0);
            let large = expert_tile_padding(rows, 256.0);
            assert!(small >= 1.0 && large >= 1.0, "{rows}");
            assert!(expert_tile_padding(rows, 8.0) <= small + 1e-9, "{rows}");
        }
        assert_eq!(expert_tile_padding(0.0, 128.0), 1.0);
        assert!((normal_tail(0.0) - 0.5).abs() < 1e-9);
        assert!((normal_tail(1.959_964) - 0.025).abs() < 1e-6);
        assert!((normal_tail(-1.0) - 0.841_345).abs() < 1e-6);
    }

    /// The MoE routing traffic: none for a dense model; for DeepSeek-R1 on one GPU at 64 decodes,
    /// `58·d·2·2·(64 + 64·8)` bytes on top of the elementwise passes.
    #[test]
    fn moe_routing_moves_the_expanded_rows() {
        assert_eq!(h100_8b().moe_routing_bytes(64.0, 64.0, 1.0).0, 0.0);
        let single = deepseek(Parallelism::tensor(1), 8);
        let bytes = single.moe_routing_bytes(64.0, 64.0, 1.0).0;
        assert!((bytes - 58.0 * 7168.0 * 2.0 * 2.0 * (64.0 + 512.0)).abs() < 1.0);
        let dep8 = deepseek(Parallelism::dep(8), 8);
        assert!(dep8.moe_routing_bytes(8.0, 64.0, 1.0).0 < bytes / 7.0);
    }

    /// A dense model's step is the same whatever the MoE tile.
    #[test]
    fn dense_steps_ignore_the_moe_tile() {
        let cost = h100_8b();
        let mut small_tile = cost.clone();
        small_tile.efficiency.moe_tile_max_rows = 8.0;
        let shape = decode_shape(256.0);
        assert_eq!(cost.step(&shape), small_tile.step(&shape));
    }

    #[test]
    fn blend_limits() {
        let a = Seconds(3.0);
        let b = Seconds(4.0);
        assert_eq!(blend(a, b, f64::INFINITY), b);
        assert!((blend(a, b, 2.0).0 - 5.0).abs() < 1e-12);
        assert_eq!(blend(Seconds(0.0), Seconds(0.0), 1.5), Seconds(0.0));
    }
}
