//! The efficiency knobs of the step-time model and their defaults per GPU family.
//!
//! MODEL.md §2.1 (`η_m`, `η_c`, blend exponent `p`, per-layer floor `t_L0`), §2.6 (per-step
//! overhead `t_it0`, dequant tax), §2.4 (all-reduce latency `α_AR`, link efficiency), §1.3 (usable
//! memory `u_mem`, activation/graph reserve), §8 (plausible ranges). The defaults are the §2.7
//! NVIDIA defaults are fitted to the vendor-table rows of `shared/data/measurements.csv` by
//! `servecost validate FILE --fit` (grid search inside §8's plausible ranges, `fit.rs`);
//! `docs/VALIDATION.md` shows the fit and the errors. The §2.7 worked-example constants are kept for the unit tests that reproduce it.

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
    /// `t_L0`: fixed kernel floor per layer per step, µs (5–15 with CUDA graphs, 10–30 eager).
    pub layer_overhead_us: f64,
    /// `t_it0`: fixed scheduler/sampler/CPU overhead per step, ms (0.3–1 with CUDA graphs).
    pub step_overhead_ms: f64,
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
    /// `ι`: MoE load-imbalance factor on distinct experts per rank under expert parallelism (1.1–1.3).
    pub moe_imbalance: f64,
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
        allreduce_latency_us: 10.0,
        link_efficiency: 0.8,
        mem_utilization: 0.9,
        reserved_gb: 2.0,
        dequant_factor: 0.7,
        causal_factor: 0.5,
        moe_imbalance: 1.2,
    };

    /// NVIDIA defaults, fitted on the 28 runnable vendor-table rows of `measurements.csv`
    /// (TensorRT-LLM, vLLM, NIM on A100/H100/H200/B200; the InferenceX rows are held out,
    /// docs/VALIDATION.md): η_m 0.75 (within the 60–85 % MBU rule of thumb, §8 [S46]),
    /// η_c 0.60 (below the ≈0.8 MAMF ceiling [S44]), t_it0 2 ms per step (scheduler, sampler and
    /// detokenisation in production engines, §8), t_L0 15 µs per layer. The rest as §2.7.
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
            allreduce_latency_us: 0.0,
            link_efficiency: 1.0,
            ..self
        }
    }

    /// Defaults by vendor family. No AMD, Intel or Google row of `measurements.csv` is in the fit
    /// (its only AMD rows, InferenceX MI300X sweeps, are held out), so other stacks (ROCm, Gaudi,
    /// TPU) take the NVIDIA fit discounted for less mature kernels (η_m 0.70, η_c 0.50, 20 µs per
    /// layer, 20 µs all-reduce latency): an assumption, stated on the page, until measurements
    /// calibrate it.
    pub fn for_vendor(vendor: &str) -> Efficiency {
        match vendor {
            "nvidia" => Efficiency::NVIDIA_DATACENTER,
            _ => Efficiency {
                eta_mem: 0.70,
                eta_compute: 0.5,
                layer_overhead_us: 20.0,
                allreduce_latency_us: 20.0,
                ..Efficiency::NVIDIA_DATACENTER
            },
        }
    }
}

/// Plausible range of each knob, used to validate overrides: `(name, value, min, max)`.
pub fn knob_ranges(e: &Efficiency) -> [(&'static str, f64, f64, f64); 12] {
    [
        ("eta_mem", e.eta_mem, 0.05, 1.0),
        ("eta_compute", e.eta_compute, 0.05, 1.0),
        ("blend_p", e.blend_p, 1.0, f64::INFINITY),
        ("layer_overhead_us", e.layer_overhead_us, 0.0, 200.0),
        ("step_overhead_ms", e.step_overhead_ms, 0.0, 50.0),
        ("allreduce_latency_us", e.allreduce_latency_us, 0.0, 500.0),
        ("link_efficiency", e.link_efficiency, 0.05, 1.0),
        ("mem_utilization", e.mem_utilization, 0.1, 1.0),
        ("reserved_gb", e.reserved_gb, 0.0, 100.0),
        ("dequant_factor", e.dequant_factor, 0.1, 1.0),
        ("causal_factor", e.causal_factor, 0.5, 1.0),
        ("moe_imbalance", e.moe_imbalance, 1.0, 3.0),
    ]
}
