//! The efficiency knobs of the step-time model and their common constants.
//!
//! MODEL.md §2.1 (`η_m`, `η_c`, blend exponent `p`, per-layer floor `t_L0`), §2.6 (per-step
//! overhead `t_it0`, dequant tax), §2.4 (all-reduce latency `α_AR`, link efficiency), §1.3 (usable
//! memory `u_mem`, activation/graph reserve), §8 (plausible ranges). A scenario's η_m, η_c, t_it0
//! and t_L0 come from its engine profile (`physics::engine`, fitted by `servecost validate FILE
//! --fit`, `calibration::profiles`; `Efficiency::of_profile`); every other knob is the common
//! constant of `NVIDIA_DATACENTER`. `docs/VALIDATION.md` shows the fit and the errors. The §2.7
//! worked-example constants are kept for the unit tests that reproduce it.

use serde::{Deserialize, Serialize};

/// Every efficiency and overhead constant the model uses. All are overridable (CLI flags,
/// the page's advanced panel, URL); the scenario checks each against its plausible range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Efficiency {
    /// `η_m`: achievable fraction of HBM bandwidth (MBU-like), 0.5–1.
    pub eta_mem: f64,
    /// `η_c`: achievable fraction of the dense tensor peak (MFU-like), 0.3–1 (MAMF caps it near 0.8–0.86).
    pub eta_compute: f64,
    /// `p` of the roofline blend `C_p(a,b) = (a^p + b^p)^(1/p)`; `f64::INFINITY` gives `max(a,b)`.
    pub blend_p: f64,
    /// `t_L0`: fixed kernel floor per layer per step, µs (5–15 with CUDA graphs, 10–30 eager), for
    /// a reference dense GQA layer's nine kernels; a model's layers count by their kernels
    /// (`architecture::layer_floor_units`: a DeepSeek-V3 MoE layer is 2.3 of them).
    pub layer_overhead_us: f64,
    /// `t_it0`: fixed scheduler/sampler/CPU overhead per step, ms (0.3–1 with CUDA graphs).
    pub step_overhead_ms: f64,
    /// `t_seq`: CPU work per running sequence per step (scheduling, sampling, detokenization,
    /// streaming), µs; grows the step with the batch (`physics::engine` module doc).
    pub seq_overhead_us: f64,
    /// `α_AR`: latency of one all-reduce, µs (custom all-reduce / CUDA graphs ≈ 10).
    pub allreduce_latency_us: f64,
    /// `η_link`: achievable fraction of the scale-up link bandwidth.
    pub link_efficiency: f64,
    /// `u_mem`: fraction of HBM the engine may use (vLLM `gpu_memory_utilization` 0.9).
    pub mem_utilization: f64,
    /// `M_act + M_graph + M_ctx`: memory held back per GPU for activations, CUDA graphs and context, GB.
    pub reserved_gb: f64,
    /// Multiplier on `η_c` for weight-only formats (W4A16/W8A16), 0.6–0.8 (MODEL.md §2.6).
    pub dequant_factor: f64,
    /// `f_c`: fraction of the causal attention square computed in prefill (0.5 FlashAttention, 1 naive).
    pub causal_factor: f64,
    /// `c`: calibration of the expert load imbalance under expert parallelism, a multiplier on
    /// the modelled excess load of the busiest EP rank, `ι = 1 + c·z(EP)·√(s²/m + 1/μ)`
    /// (`parallelism::ExpertLoad`); 1 = the model as calibrated on TensorRT-LLM's measurement,
    /// 0 = a perfectly balanced router.
    pub moe_imbalance: f64,
    /// Largest grouped-GEMM tile along the token dimension of the routed experts, rows: each
    /// expert's rows are padded to whole tiles of `clamp(next_pow2(T·k/E), 8, this)`
    /// (`step::expert_tile_padding`; TensorRT-LLM's trtllm-gen MoE caps its tile at 128).
    pub moe_tile_max_rows: f64,
}

impl Efficiency {
    /// The MODEL.md §2.7 worked-example constants (η_m 0.85, η_c 0.75, p 1.5, t_L0 10 µs,
    /// t_it0 0.5 ms) with the §2.4/§1.3 defaults: what the spec's derived numbers assume.
    pub const MODEL_MD_WORKED_EXAMPLE: Efficiency = Efficiency {
        eta_mem: 0.85,
        eta_compute: 0.75,
        blend_p: 1.5,
        layer_overhead_us: 10.0,
        step_overhead_ms: 0.5,
        seq_overhead_us: 0.0,
        allreduce_latency_us: 10.0,
        link_efficiency: 0.8,
        mem_utilization: 0.9,
        reserved_gb: 2.0,
        dequant_factor: 0.7,
        causal_factor: 0.5,
        moe_imbalance: 1.0,
        moe_tile_max_rows: 128.0,
    };

    /// The common constants under every engine profile (`of_profile` replaces η_m, η_c, t_it0
    /// and t_L0 with the profile's fitted values), and the page's reference for the ideal-roofline
    /// switch. Its four profile knobs are the fit this model shipped before engine profiles (on
    /// the vendor-table rows: η_m 0.75 within the 60–85 % MBU rule of thumb, §8 [S46]; η_c 0.60
    /// below the ≈0.8 MAMF ceiling [S44]; t_it0 2 ms; t_L0 15 µs), kept as
    /// `engine::ProfileKnobs::UNFITTED`'s values for a profile before any fit. The rest as §2.7.
    pub const NVIDIA_DATACENTER: Efficiency = Efficiency {
        eta_mem: 0.75,
        eta_compute: 0.6,
        step_overhead_ms: 2.0,
        layer_overhead_us: 15.0,
        ..Efficiency::MODEL_MD_WORKED_EXAMPLE
    };

    /// Ideal roofline (LLM-Viewer semantics, MODEL.md §2.1): η = 1, `p = ∞`, no fixed overheads.
    /// An upper bound on throughput, not a prediction.
    pub fn ideal_roofline(self) -> Efficiency {
        Efficiency {
            eta_mem: 1.0,
            eta_compute: 1.0,
            blend_p: f64::INFINITY,
            layer_overhead_us: 0.0,
            step_overhead_ms: 0.0,
            seq_overhead_us: 0.0,
            allreduce_latency_us: 0.0,
            link_efficiency: 1.0,
            ..self
        }
    }

    /// The knobs of an engine profile (`physics::engine`) over the common constants: the profile
    /// sets η_m, η_c, t_it0, t_L0 and t_seq (its server overhead is a scenario field); blend exponent,
    /// all-reduce latency, link efficiency, memory reserve and the rest are the same for every
    /// profile (`NVIDIA_DATACENTER`).
    pub fn of_profile(knobs: super::engine::ProfileKnobs) -> Efficiency {
        Efficiency {
            eta_mem: knobs.eta_mem,
            eta_compute: knobs.eta_compute,
            step_overhead_ms: knobs.step_overhead_ms,
            layer_overhead_us: knobs.layer_overhead_us,
            seq_overhead_us: knobs.seq_overhead_us,
            ..Efficiency::NVIDIA_DATACENTER
        }
    }
}

/// Plausible range of each knob, used to validate overrides: `(name, value, min, max)`.
pub fn knob_ranges(e: &Efficiency) -> [(&'static str, f64, f64, f64); 14] {
    [
        ("eta_mem", e.eta_mem, 0.05, 1.0),
        ("eta_compute", e.eta_compute, 0.05, 1.0),
        ("blend_p", e.blend_p, 1.0, f64::INFINITY),
        ("layer_overhead_us", e.layer_overhead_us, 0.0, 200.0),
        ("step_overhead_ms", e.step_overhead_ms, 0.0, 50.0),
        ("seq_overhead_us", e.seq_overhead_us, 0.0, 2000.0),
        ("allreduce_latency_us", e.allreduce_latency_us, 0.0, 500.0),
        ("link_efficiency", e.link_efficiency, 0.05, 1.0),
        ("mem_utilization", e.mem_utilization, 0.1, 1.0),
        ("reserved_gb", e.reserved_gb, 0.0, 100.0),
        ("dequant_factor", e.dequant_factor, 0.1, 1.0),
        ("causal_factor", e.causal_factor, 0.5, 1.0),
        ("moe_imbalance", e.moe_imbalance, 0.0, 3.0),
        ("moe_tile_max_rows", e.moe_tile_max_rows, 8.0, 512.0),
    ]
}
