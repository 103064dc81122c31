//! How one replica is laid out over its GPUs, as the serving engines define it, and the two facts
//! of that layout the step model needs beyond sharding: where the MoE all-to-all runs (inside the
//! GPU's scale-up domain or across the network) and how unevenly routed tokens load the EP ranks.
//!
//! **Layout** (MODEL.md §2.8). A replica has `PP` pipeline stages; each stage has `TP × DP`
//! GPUs: `DP` attention ranks of `TP` GPUs each. Every attention rank runs all query and KV heads
//! (split over its `TP` GPUs) on its own share of the batch and holds its own KV cache; attention
//! and dense weights are replicated on every rank. MoE layers are sharded over the same GPUs as
//! `moe-TP × EP`, `TP·DP = moe-TP·EP`: each EP rank holds `E/EP` experts, each split `moe-TP`
//! ways. This is
//! * SGLang's `--enable-dp-attention` with `--dp-size DP` and `--ep-size EP` (server arguments
//!   reference: `tp`, `dp`, `ep`, `enable_dp_attention` "DP for attention, TP for FFN");
//! * TensorRT-LLM's `enable_attention_dp: true` with `moe_expert_parallel_size` and
//!   `moe_tensor_parallel_size` ("DEP N" in its performance tables: attention DP N + EP N);
//! * vLLM's `--data-parallel-size DP` with `--enable-expert-parallel` (docs "Data Parallel
//!   Deployment": "each DP rank is deployed as a separate core engine"; without the flag "expert
//!   layers form a tensor parallel group of size DP × TP").
//!
//! With `DP = 1` this is the plain TP (× EP inside the TP group) replica the model had before.
//!
//! **Scale-up domain and network.** The catalog has no domain-size column, so
//! `scale_up_domain` and `network_gb_s` below are documented per-GPU defaults, keyed by catalog
//! id.
//!
//! **Expert load imbalance.** `ExpertLoad` gives `ι`, the busiest EP rank's routed load over the
//! mean, as a function of EP degree, tokens per rank and redundant experts (EPLB).

use super::architecture::Architecture;
use crate::catalog::Gpu;
use serde::Serialize;

/// How a replica is split across GPUs: `tp` GPUs per attention rank, `dp` attention ranks per
/// pipeline stage, `pp` stages; MoE layers over `ep` expert-parallel ranks of `moe_tp()` GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Parallelism {
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    /// Attention data-parallel ranks per stage (1: no attention DP).
    pub dp: u32,
}

impl Parallelism {
    /// "DEP N" (TensorRT-LLM's name): TP 1, attention DP `ranks`, experts over EP `ranks`.
    pub fn dep(ranks: u32) -> Parallelism {
        Parallelism {
            tp: 1,
            pp: 1,
            ep: ranks,
            dp: ranks,
        }
    }

    /// Plain tensor parallelism (`dp = ep = pp = 1` but TP): the dense layout.
    pub fn tensor(tp: u32) -> Parallelism {
        Parallelism {
            tp,
            pp: 1,
            ep: 1,
            dp: 1,
        }
    }

    /// GPUs in one pipeline stage, `TP·DP` (= `moe-TP·EP`): the MoE all-to-all's span.
    pub fn gpus_per_stage(self) -> u32 {
        self.tp.saturating_mul(self.dp.max(1))
    }

    pub fn gpus_per_replica(self) -> u32 {
        self.gpus_per_stage().saturating_mul(self.pp)
    }

    /// Whether MoE layers move tokens with an all-to-all (dispatch and combine): only under
    /// attention DP with experts split over EP. Without attention DP every rank holds all the
    /// stage's tokens after the attention all-reduce, serves the ones routed to its own experts,
    /// and the all-reduce after the MoE layer is the combine (vLLM
    /// `FusedMoEParallelConfig::use_all2all_kernels` is `dp_size > 1 and use_ep`; SGLang's
    /// `--ep-size` without `--enable-dp-attention` likewise reduces the routed output).
    pub fn runs_all_to_all(self) -> bool {
        self.dp > 1 && self.ep > 1
    }

    /// GPUs each expert is split over, `moe-TP = TP·DP / EP` (validated to divide exactly).
    pub fn moe_tp(self) -> u32 {
        self.gpus_per_stage() / self.ep.max(1)
    }
}

/// GPUs that reach each other over the scale-up link (`link_gb_s`) rather than the network:
/// 72 for the NVL72 racks (GB200/GB300: "72-GPU NVLink domain", catalog notes), 2 for the H100
/// NVL bridge pairs, 256 for a TPU v5e/v6e pod slice (ICI), and 8 for everything else: the
/// HGX/DGX boards (NVSwitch), AMD's 8-GPU Infinity Fabric (xGMI) platforms, Gaudi 3 boards and
/// 8-GPU PCIe servers. A documented default per catalog id: the catalog has no such column.
pub fn scale_up_domain(gpu: &Gpu) -> u32 {
    match gpu.id.as_str() {
        "gb200" | "gb300" => 72,
        "h100-nvl" => 2,
        "tpu-v5e" | "tpu-v6e" => 256,
        _ => 8,
    }
}

/// Scale-out (network) bandwidth per GPU per direction, GB/s, for an all-to-all that leaves the
/// scale-up domain: one 400 Gb/s NIC per GPU (ConnectX-7 InfiniBand or an equivalent 400 G
/// Ethernet NIC), about 50 GB/s; DeepEP measures 43–58 GB/s RDMA bottleneck bandwidth for
/// internode dispatch and combine on exactly that (H800 + CX7 400 Gb/s, "~50 GB/s maximum
/// bandwidth", deepseek-ai/DeepEP README). Blackwell Ultra systems (HGX/DGX B300, GB300 NVL72)
/// carry one ConnectX-8 800 Gb/s SuperNIC per GPU: 100 GB/s. A documented default per catalog
/// id, like `scale_up_domain`.
pub fn network_gb_s(gpu: &Gpu) -> f64 {
    match gpu.id.as_str() {
        "b300" | "gb300" => 100.0,
        _ => 50.0,
    }
}

/// Effective per-expert load skew without a load balancer: the coefficient of variation of
/// routed tokens per expert that, through `ExpertLoad::imbalance`, reproduces TensorRT-LLM's
/// measured imbalance of DeepSeek-R1 at EP 32 with 8 experts per rank and 1,024 routed tokens per
/// rank: hottest rank 1.564 above the mean (max/mean 2.56, averaged over layers and iterations;
/// "Scaling Expert Parallelism in TensorRT-LLM, Part 1", Table 1, "No EPLB"). Its per-expert
/// standard deviation is 164.1 on a mean of 128 (CV 1.28); the larger effective value carries the
/// heavier-than-normal tail of hot experts.
pub const STATIC_EXPERT_SKEW: f64 = 2.14;

/// Residual per-expert skew with EPLB at `E/8` redundant experts: the same Table 1's "EPLB (9
/// per-rank slots and EP 32)" row, hottest rank 0.109 above the mean (0.115 for "8 per-rank
/// slots and EP 36"; both 32 redundant experts for 256), solved the same way (0.127 and 0.121).
pub const EPLB_EIGHTH_SKEW: f64 = 0.125;

/// Expected maximum of `n` independent standard normal draws, by Blom's (1958) approximation of
/// normal order statistics, `E[max] ≈ Φ⁻¹((n − 0.375)/(n + 0.25))`: 0 for one draw, 0.59 for 2,
/// 1.43 for 8, 2.07 for 32 (exact: 0.56, 1.42, 2.07). `Φ⁻¹` by Abramowitz & Stegun 26.2.23
/// (error below 4.5·10⁻⁴).
pub fn expected_max_standard_normal(n: f64) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    let tail = 1.0 - (n - 0.375) / (n + 0.25);
    let t = (-2.0 * tail.ln()).sqrt();
    let numerator = 2.515_517 + 0.802_853 * t + 0.010_328 * t * t;
    let denominator = 1.0 + 1.432_788 * t + 0.189_269 * t * t + 0.001_308 * t * t * t;
    (t - numerator / denominator).max(0.0)
}

/// Per-scenario constants of the expert load imbalance, so a step evaluates it with one square
/// root (the slider path evaluates hundreds of steps).
///
/// Each EP rank's routed load is the sum of its `m = (E + R)/EP` expert slots' loads plus the
/// multinomial sampling noise of routing `T·k` token-expert pairs; by the normal approximation
/// its coefficient of variation is `√(s²/m + 1/μ)`, `μ = T·k/EP` pairs per rank, and the busiest
/// of the `EP` ranks sits `z(EP)` standard deviations above the mean
/// (`expected_max_standard_normal`):
/// ```text
/// ι(EP, μ, R) = 1 + c·z(EP)·√(s(R)²/m + 1/μ)
/// s(R) = s₀ / (1 + a·R/E),   s₀ = 2.14 (no EPLB),   a = 8·(s₀/0.125 − 1) so that s(E/8) = 0.125
/// ```
/// `c` is the `moe-imbalance` calibration knob (1 = as measured). `ι` grows with the EP degree
/// (a larger `z`, fewer experts per rank) and falls towards `1 + c·z·s/√m` as tokens per rank
/// grow; redundant experts (DeepSeek's EPLB: replicate the hottest experts, pack the slots
/// evenly) shrink the skew term. The two end points are TensorRT-LLM's Table 1 measurements
/// (`STATIC_EXPERT_SKEW`, `EPLB_EIGHTH_SKEW`); between and beyond them `s(R)` is an interpolation,
/// not a measurement. With `EP = 1` every GPU holds a slice of every expert and `ι = 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpertLoad {
    /// `c·z(EP)`.
    spread: f64,
    /// `s(R)²/m`.
    skew_term: f64,
    /// `k/EP`: routed pairs per rank per token of the whole stage.
    pairs_per_token: f64,
}

impl ExpertLoad {
    /// The imbalance model of an MoE layer sharded over `ep` ranks with `redundant` extra expert
    /// slots; `None` without expert parallelism (or without routed experts).
    pub fn new(
        arch: &Architecture,
        ep: u32,
        redundant: f64,
        calibration: f64,
    ) -> Option<ExpertLoad> {
        if ep <= 1 || arch.experts <= 0.0 || arch.moe_layers <= 0.0 {
            return None;
        }
        let ranks = f64::from(ep);
        let redundant = redundant.max(0.0);
        let slots_per_rank = (arch.experts + redundant) / ranks;
        let slope = 8.0 * (STATIC_EXPERT_SKEW / EPLB_EIGHTH_SKEW - 1.0);
        let skew = STATIC_EXPERT_SKEW / (1.0 + slope * redundant / arch.experts);
        Some(ExpertLoad {
            spread: calibration.max(0.0) * expected_max_standard_normal(ranks),
            skew_term: skew * skew / slots_per_rank.max(1.0),
            pairs_per_token: arch.experts_per_token / ranks,
        })
    }

    /// `ι` for `tokens` tokens entering the MoE layer across the whole stage (all attention
    /// ranks together): the busiest rank's routed load over the mean, at least 1.
    pub fn imbalance(&self, tokens: f64) -> f64 {
        let pairs = tokens * self.pairs_per_token;
        let noise = if pairs > 0.0 { 1.0 / pairs } else { 0.0 };
        1.0 + self.spread * (self.skew_term + noise).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    /// DEP 8 dispatches and combines with an all-to-all; TP 8 with EP 8 (no attention DP) and
    /// TP 8 alone do not: their MoE combine is the TP all-reduce.
    #[test]
    fn only_attention_dp_with_ep_runs_an_all_to_all() {
        assert!(Parallelism::dep(8).runs_all_to_all());
        let tp8_ep8 = Parallelism {
            ep: 8,
            ..Parallelism::tensor(8)
        };
        assert!(!tp8_ep8.runs_all_to_all());
        assert!(!Parallelism::tensor(8).runs_all_to_all());
    }

    fn deepseek() -> Architecture {
        Architecture::new(
            catalog()
                .expect("catalog")
                .model("deepseek-r1")
                .expect("model"),
        )
    }

    #[test]
    fn blom_maximum_matches_tabulated_normal_order_statistics() {
        assert_eq!(expected_max_standard_normal(1.0), 0.0);
        // Exact expected maxima of n standard normals: 0.5642, 1.4236, 2.0697, 2.8151.
        for (n, exact, tolerance) in [
            (2.0, 0.5642, 0.03),
            (8.0, 1.4236, 0.015),
            (32.0, 2.0697, 0.01),
            (256.0, 2.8151, 0.01),
        ] {
            let got = expected_max_standard_normal(n);
            assert!((got - exact).abs() < tolerance, "n={n}: {got} vs {exact}");
        }
    }

    /// The two rows of TensorRT-LLM's Table 1 the constants come from: DeepSeek-R1, EP 32,
    /// 1,024 routed tokens per rank (128 tokens per rank × top-8): 2.564 without EPLB, 1.109 with
    /// 32 redundant experts; and the 36-rank layout with the same 288 slots, 1.115.
    #[test]
    fn reproduces_the_measured_imbalance_it_was_calibrated_on() {
        let arch = deepseek();
        let tokens = 128.0 * 32.0;
        let no_eplb = ExpertLoad::new(&arch, 32, 0.0, 1.0).expect("EP 32");
        assert!((no_eplb.imbalance(tokens) - 2.564).abs() < 0.02);
        let eplb = ExpertLoad::new(&arch, 32, 32.0, 1.0).expect("EP 32");
        assert!((eplb.imbalance(tokens) - 1.109).abs() < 0.01);
        let wider = ExpertLoad::new(&arch, 36, 32.0, 1.0).expect("EP 36");
        assert!((wider.imbalance(tokens) - 1.115).abs() < 0.01);
    }

    #[test]
    fn imbalance_grows_with_ep_and_falls_with_tokens_per_rank_and_redundancy() {
        let arch = deepseek();
        let at = |ep: u32, tokens_per_rank: f64, redundant: f64| {
            ExpertLoad::new(&arch, ep, redundant, 1.0)
                .expect("EP > 1")
                .imbalance(tokens_per_rank * f64::from(ep))
        };
        let mut previous = 1.0;
        for ep in [2, 4, 8, 16, 32, 64, 128, 256] {
            let now = at(ep, 64.0, 0.0);
            assert!(now > previous, "EP {ep}: {now} ≤ {previous}");
            previous = now;
        }
        let mut previous = f64::INFINITY;
        for tokens_per_rank in [1.0, 4.0, 16.0, 64.0, 256.0, 4096.0] {
            let now = at(8, tokens_per_rank, 0.0);
            assert!(now < previous, "{tokens_per_rank}: {now} ≥ {previous}");
            previous = now;
        }
        assert!(at(8, 256.0, 32.0) < at(8, 256.0, 8.0));
        assert!(at(8, 256.0, 8.0) < at(8, 256.0, 0.0));
        // Calibration 0 is a perfectly balanced router; no EP, no imbalance model.
        let balanced = ExpertLoad::new(&arch, 8, 0.0, 0.0).expect("EP 8");
        assert_eq!(balanced.imbalance(64.0), 1.0);
        assert!(ExpertLoad::new(&arch, 1, 0.0, 1.0).is_none());
    }

    #[test]
    fn domains_and_networks_by_gpu() {
        let cat = catalog().expect("catalog");
        let gpu = |id: &str| cat.gpu(id).expect("gpu");
        assert_eq!(scale_up_domain(gpu("h200-sxm")), 8);
        assert_eq!(scale_up_domain(gpu("mi300x")), 8);
        assert_eq!(scale_up_domain(gpu("gb200")), 72);
        assert_eq!(network_gb_s(gpu("h200-sxm")), 50.0);
        assert_eq!(network_gb_s(gpu("b300")), 100.0);
        let dep8 = Parallelism {
            tp: 1,
            pp: 1,
            ep: 8,
            dp: 8,
        };
        assert_eq!(dep8.gpus_per_replica(), 8);
        assert_eq!(dep8.moe_tp(), 1);
        let tp2_dp4_ep4 = Parallelism {
            ep: 4,
            tp: 2,
            dp: 4,
            pp: 2,
        };
        assert_eq!(tp2_dp4_ep4.gpus_per_stage(), 8);
        assert_eq!(tp2_dp4_ep4.gpus_per_replica(), 16);
        assert_eq!(tp2_dp4_ep4.moe_tp(), 2);
    }
}
