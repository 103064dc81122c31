//! Time of one engine iteration (step) on one GPU: the roofline primitive with efficiency factors
//! and the blended combiner, linear layers (dense and MoE), attention (decode and chunked
//! prefill), elementwise ops, tensor/expert-parallel communication and fixed overheads.
//!
//! MODEL.md §2.1 (`t_op = C_p(bytes/(BW·η_m), flops/(F·η_c))`, `C_p(a,b) = (a^p + b^p)^(1/p)`),
//! §2.2 (linear layers, MoE distinct experts), §2.3 (attention), §2.4 (all-reduce, all-to-all),
//! §2.6 (iteration total, `t_elem`, `t_it0`). Every quantity here is per GPU after sharding.

use super::architecture::Architecture;
use super::efficiency::Efficiency;
use super::memory::{kv_bytes_per_layer_token_gpu, Parallelism, HALF_BYTES};
use super::precision::{GemmMode, KvPrecision, Precision};
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
/// after `powf` went. Outside [1, 4] (never, from `blend`) it is `f64::cbrt`.
fn cbrt_1_to_4(x: f64) -> f64 {
    if !(1.0..=4.0).contains(&x) {
        return x.cbrt();
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
    attention_rate: FlopsPerSecond,
    link_bandwidth: BytesPerSecond,
    layers_per_stage: f64,
    always_read_bytes: f64,
    expert_bytes_each: f64,
    lm_head_bytes: f64,
    active_linear_flops_per_token: f64,
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
}

impl StepCost {
    pub fn new(
        arch: &Architecture,
        hardware: Hardware,
        par: Parallelism,
        precision: Precision,
        gemm: &GemmMode,
        kv: KvPrecision,
        efficiency: Efficiency,
    ) -> StepCost {
        let shards = f64::from(par.gpus_per_replica().max(1));
        let tp = f64::from(par.tp.max(1));
        let b_w = precision.bytes_per_weight();
        StepCost {
            arch: arch.clone(),
            par,
            efficiency,
            bandwidth: hardware.memory_bw * efficiency.eta_mem,
            linear_rate: FlopsPerSecond::from_tflops(gemm.peak_tflops)
                * (efficiency.eta_compute * gemm.dequant_factor),
            attention_rate: hardware.bf16_peak * efficiency.eta_compute,
            link_bandwidth: hardware.link_bw * efficiency.link_efficiency,
            layers_per_stage: arch.layers / f64::from(par.pp.max(1)),
            always_read_bytes: arch.always_read_linear_params() * b_w / shards,
            expert_bytes_each: arch.moe_layers * arch.expert_params * b_w / shards,
            lm_head_bytes: arch.lm_head_params * HALF_BYTES / tp,
            active_linear_flops_per_token: 2.0 * arch.active_linear_params() / shards,
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

    /// Weight bytes one step streams on one GPU for `tokens` tokens: always-read linear weights,
    /// the distinct routed experts those tokens hit (`E·(1−(1−k/E)^T)`, times the imbalance `ι`
    /// under expert parallelism, capped at `E`), and the output head (MODEL.md §2.2).
    pub fn weight_bytes_read(&self, tokens: f64) -> Bytes {
        let mut distinct = self.arch.distinct_experts(tokens);
        if self.par.ep > 1 {
            distinct = (distinct * self.efficiency.moe_imbalance).min(self.arch.experts);
        }
        Bytes(self.always_read_bytes + self.expert_bytes_each * distinct + self.lm_head_bytes)
    }

    /// Time of one iteration of one pipeline stage with this batch (MODEL.md §2.6):
    /// `t_iter = t_lin + t_attn + t_elem + t_TP + t_A2A + (L/PP)·t_L0 + t_it0`.
    pub fn step(&self, shape: &BatchShape) -> StepBreakdown {
        let e = &self.efficiency;
        let queries_per_seq = 1.0 + shape.verify_tokens.max(0.0);
        let decode_tokens = shape.decode_seqs * queries_per_seq;
        let tokens = (decode_tokens + shape.prefill_tokens).max(0.0);
        let prompt = shape.prefill_prompt.max(1.0);
        let finishing_prompts = if shape.prefill_tokens > 0.0 {
            shape.prefill_tokens / prompt
        } else {
            0.0
        };
        let logits = decode_tokens + finishing_prompts;

        // Linear layers (§2.2): this GPU's share of the blocks (already divided by TP·PP) plus the head.
        let weight_bytes = self.weight_bytes_read(tokens);
        let linear_flops = Flops(
            self.active_linear_flops_per_token * tokens + self.lm_head_flops_per_logit * logits,
        );
        let weight_read = weight_bytes / self.bandwidth;
        let linear_compute = linear_flops / self.linear_rate;
        let linear = blend(weight_read, linear_compute, e.blend_p);

        // Attention (§2.3): decode reads every cached token once per layer; prefill chunks write
        // their KV, re-read earlier chunks' KV, and compute the causal square.
        let decode_layer_tokens = shape.decode_seqs
            * self.arch.kv_layer_tokens(shape.decode_context)
            / f64::from(self.par.pp.max(1));
        let prefill_attended = shape.prefill_tokens
            * self
                .arch
                .prefill_layer_tokens_per_token(prompt, e.causal_factor)
            / f64::from(self.par.pp.max(1));
        let chunk = shape.prefill_chunk.clamp(1.0, prompt);
        let chunks = (prompt / chunk).ceil();
        let prior_reads_per_token = chunk * chunks * (chunks - 1.0) / 2.0 / prompt;
        let prefill_kv_layer_tokens =
            shape.prefill_tokens * (1.0 + prior_reads_per_token) * self.layers_per_stage;
        let kv_bytes =
            Bytes(self.kv_bytes_per_layer_token * (decode_layer_tokens + prefill_kv_layer_tokens));
        let attention_flops = Flops(
            self.decode_attention_flops_per_layer_token * decode_layer_tokens * queries_per_seq
                + self.prefill_attention_flops_per_layer_token * prefill_attended,
        );
        let kv_read = kv_bytes / self.bandwidth;
        let attention_compute = attention_flops / self.attention_rate;
        let attention = blend(kv_read, attention_compute, e.blend_p);

        let elementwise = Bytes(self.elementwise_bytes_per_token * tokens) / self.bandwidth;
        let communication = self.communication(tokens);
        let overhead = Seconds::from_us(e.layer_overhead_us) * self.layers_per_stage
            + Seconds::from_ms(e.step_overhead_ms);
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

    /// TP all-reduce after o_proj and down_proj of every layer,
    /// `t_AR(m) = α_AR + 2·(TP−1)/TP · m/(BW_link·η_link)`, `m = T·d·b_a` (MODEL.md §2.4);
    /// EP all-to-all per MoE layer, dispatch and combine, `(T/EP)·k·d·b_a·(EP−1)/EP` bytes each way;
    /// PP hand-off of `T·d·b_a` bytes per stage boundary.
    fn communication(&self, tokens: f64) -> Seconds {
        let e = &self.efficiency;
        let alpha = Seconds::from_us(e.allreduce_latency_us);
        let message = Bytes(tokens * self.arch.hidden * ACTIVATION_BYTES);
        let link = |bytes: Bytes| {
            if self.link_bandwidth.0 > 0.0 {
                bytes / self.link_bandwidth
            } else {
                Seconds(0.0)
            }
        };
        let mut total = Seconds(0.0);
        let tp = f64::from(self.par.tp.max(1));
        if self.par.tp > 1 {
            let all_reduce = alpha + link(message * (2.0 * (tp - 1.0) / tp));
            total += all_reduce * (2.0 * self.layers_per_stage);
        }
        let ep = f64::from(self.par.ep.max(1));
        if self.par.ep > 1 && self.arch.moe_layers > 0.0 {
            let per_rank = message * (self.arch.experts_per_token / ep * (ep - 1.0) / ep);
            let moe_layers_per_stage = self.arch.moe_layers / f64::from(self.par.pp.max(1));
            total += (alpha + link(per_rank)) * (2.0 * moe_layers_per_stage);
        }
        if self.par.pp > 1 {
            total += alpha + link(message);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;
    use crate::model::precision::gemm_mode;

    #[test]
    fn the_cube_root_of_the_fast_path_is_within_3_ulp_on_1_to_4() {
        let n = 300_000;
        for i in 0..=n {
            let x = 1.0 + 3.0 * f64::from(i) / f64::from(n);
            let (fast, exact) = (cbrt_1_to_4(x), x.cbrt());
            let ulps = (fast.to_bits() as i64 - exact.to_bits() as i64).unsigned_abs();
            assert!(ulps <= 3, "∛{x}: {fast} vs {exact} ({ulps} ulp)");
        }
        assert_eq!(cbrt_1_to_4(8.0), 2.0, "outside [1, 4]: f64::cbrt");
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
        };
        let eff = Efficiency::MODEL_MD_WORKED_EXAMPLE;
        let gemm = gemm_mode(Precision::Bf16, gpu, 989.0, eff.dequant_factor);
        StepCost::new(
            &arch,
            hw,
            Parallelism {
                tp: 1,
                pp: 1,
                ep: 1,
            },
            Precision::Bf16,
            &gemm,
            KvPrecision::Bf16,
            eff,
        )
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

    #[test]
    fn blend_limits() {
        let a = Seconds(3.0);
        let b = Seconds(4.0);
        assert_eq!(blend(a, b, f64::INFINITY), b);
        assert!((blend(a, b, 2.0).0 - 5.0).abs() < 1e-12);
        assert_eq!(blend(Seconds(0.0), Seconds(0.0), 1.5), Seconds(0.0));
    }
}
