//! Numeric formats of weights and KV cache: bytes per element, which tensor-core peak a GEMM
//! runs at, and the fallback when a GPU lacks native support for a format.
//!
//! MODEL.md §0 (`b_w`, `b_kv`), §1.1 (group-wise INT4 scale overhead `4/g`), §2.6 (FP8 W8A8 doubles
//! `F` on Hopper/Blackwell; weight-only formats run at the BF16 peak with a dequant tax), and the
//! routed experts of models that ship them as MXFP4 (gpt-oss), which keep that format whatever
//! the rest of the model runs at (`expert_bytes_per_weight`, `expert_gemm_mode`).

use super::architecture::Architecture;
use crate::catalog::Gpu;
use crate::choice::choices;
use serde::{Deserialize, Serialize};

/// Weight (GEMM) precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    Bf16,
    #[default]
    Fp8,
    Fp4,
    Int4,
}

/// KV-cache element precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum KvPrecision {
    #[default]
    Bf16,
    Fp8,
}

choices!(Precision {
    Precision::Bf16 => "bf16", "BF16";
    Precision::Fp8 => "fp8", "FP8";
    Precision::Fp4 => "fp4", "FP4";
    Precision::Int4 => "int4", "INT4 (weight-only)";
});

choices!(KvPrecision {
    KvPrecision::Bf16 => "bf16", "BF16";
    KvPrecision::Fp8 => "fp8", "FP8";
});

// The KV-cache precision as asked: a format, or `None` for `auto`, the engine's default for the
// weights (`physics::engine::kv_when_unstated`), which is no format of its own.
choices!(Option<KvPrecision> [
    Some(KvPrecision::Bf16) => "bf16", "BF16";
    Some(KvPrecision::Fp8) => "fp8", "FP8";
    None => "auto", "Engine default";
]
    /// `fp16` also reads as BF16 (an engine's own name for its default).
    fn parse(text: &str) -> Option<Self> {
        if text.trim().eq_ignore_ascii_case("fp16") {
            return Some(Some(KvPrecision::Bf16));
        }
        crate::choice::parse_id(text)
    }
);

impl Precision {
    /// Bytes stored per weight, scales included:
    /// BF16 2; FP8 1 (per-channel scales are negligible); FP4 as NVFP4 = 4 bits + one FP8 scale per
    /// 16 weights = 0.5625; INT4 group-wise (GPTQ/AWQ, g = 128, FP16 scale and zero) = 0.5 + 4/128
    /// (MODEL.md §1.1).
    pub fn bytes_per_weight(self) -> f64 {
        match self {
            Precision::Bf16 => 2.0,
            Precision::Fp8 => 1.0,
            Precision::Fp4 => 0.5 + 1.0 / 16.0,
            Precision::Int4 => 0.5 + 4.0 / 128.0,
        }
    }
}

impl KvPrecision {
    /// `b_kv`: 2 for BF16, 1 for FP8 (`--kv-cache-dtype fp8` halves the cache, MODEL.md §1.2 [S17]).
    pub fn bytes_per_element(self) -> f64 {
        match self {
            KvPrecision::Bf16 => 2.0,
            KvPrecision::Fp8 => 1.0,
        }
    }
}

/// How the GEMMs of a precision actually run on a given GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmMode {
    /// Dense peak TFLOP/s the linear layers run at.
    pub peak_tflops: f64,
    /// Multiplier on `η_c` for weight-only formats that dequantize to BF16 in the kernel
    /// (MODEL.md §2.6: `η_c × 0.6–0.8`; 1.0 for native formats).
    pub dequant_factor: f64,
    /// A user-facing note when the GPU lacks native support and the model falls back.
    pub fallback_warning: Option<String>,
}

/// Pick the tensor peak for `precision` on `gpu`. `bf16_tflops` must be present (checked by the
/// scenario). FP8/FP4 without native support run weight-only at the BF16 peak with a dequant tax;
/// INT4 is always weight-only (W4A16, Marlin-style kernels).
pub fn gemm_mode(
    precision: Precision,
    gpu: &Gpu,
    bf16_tflops: f64,
    dequant_factor: f64,
) -> GemmMode {
    let weight_only = |why: String| GemmMode {
        peak_tflops: bf16_tflops,
        dequant_factor,
        fallback_warning: Some(why),
    };
    match precision {
        Precision::Bf16 => GemmMode {
            peak_tflops: bf16_tflops,
            dequant_factor: 1.0,
            fallback_warning: None,
        },
        Precision::Fp8 => match gpu.fp8_tflops {
            Some(peak) if peak > 0.0 => GemmMode {
                peak_tflops: peak,
                dequant_factor: 1.0,
                fallback_warning: None,
            },
            _ => weight_only(format!(
                "{} has no FP8 tensor cores: FP8 weights run weight-only (W8A16) at the BF16 peak with a dequantization cost",
                gpu.name
            )),
        },
        Precision::Fp4 => match gpu.fp4_tflops {
            Some(peak) if peak > 0.0 => GemmMode {
                peak_tflops: peak,
                dequant_factor: 1.0,
                fallback_warning: None,
            },
            _ => weight_only(format!(
                "{} has no FP4 tensor cores: FP4 weights run weight-only (W4A16) at the BF16 peak with a dequantization cost",
                gpu.name
            )),
        },
        Precision::Int4 => GemmMode {
            peak_tflops: bf16_tflops,
            dequant_factor,
            fallback_warning: None,
        },
    }
}

/// Bytes per MXFP4 weight: a 4-bit E2M1 element plus one 8-bit E8M0 scale per block of 32
/// (OCP Microscaling Formats v1.0), `0.5 + 1/32`.
pub const MXFP4_BYTES_PER_WEIGHT: f64 = 0.5 + 1.0 / 32.0;

/// Whether `arch`'s routed experts run from their native MXFP4 checkpoint at `precision`: yes
/// for a model that ships them so (gpt-oss) at any quantized precision, since engines serve the
/// published MXFP4 experts (TensorRT-LLM's perf-overview runs openai/gpt-oss-* for both its
/// "FP8" Hopper and "FP4" Blackwell columns; neither ModelOpt list holds a gpt-oss checkpoint);
/// a BF16 request stands for an upcast BF16 checkpoint.
pub fn mxfp4_experts(arch: &Architecture, precision: Precision) -> bool {
    arch.mxfp4_experts && precision != Precision::Bf16
}

/// Bytes stored per routed-expert weight: MXFP4's when the experts run from it
/// (`mxfp4_experts`), else the precision's (`Precision::bytes_per_weight`).
pub fn expert_bytes_per_weight(arch: &Architecture, precision: Precision) -> f64 {
    if mxfp4_experts(arch, precision) {
        MXFP4_BYTES_PER_WEIGHT
    } else {
        precision.bytes_per_weight()
    }
}

/// How the routed-expert GEMMs run. Without MXFP4 experts, as the rest of the model (`dense`).
/// With them, as TensorRT-LLM's MoE backend support matrix for gpt-oss states (GPT-OSS
/// deployment guide: B200/GB200/B300/GB300 "MXFP8 activations × MXFP4 weights", TRTLLM or
/// CUTLASS backend; H200 "BF16 activations × MXFP4 weights", TRITON backend; vLLM's gpt-oss recipe
/// likewise uses Marlin/Triton W4A16 on Hopper):
/// * on a GPU with FP4 tensor cores the activations are MXFP8, and an 8-bit × 4-bit MMA issues
///   at the FP8 rate (PTX ISA `tcgen05.mma .kind::f8f6f4`: mixed FP8/FP6/FP4 operands run at the
///   8-bit rate; only 4-bit × 4-bit `.kind::mxf4` runs at the FP4 rate), so the FP8 peak;
/// * without FP4 tensor cores (Hopper, Ampere, others) the weights are dequantized to BF16 in
///   the kernel: W4A16 at the BF16 peak with the dequant tax (MODEL.md §2.6).
pub fn expert_gemm_mode(
    arch: &Architecture,
    precision: Precision,
    gpu: &Gpu,
    bf16_tflops: f64,
    dequant_factor: f64,
    dense: &GemmMode,
) -> GemmMode {
    if !mxfp4_experts(arch, precision) {
        return dense.clone();
    }
    let fp4 = gpu.fp4_tflops.is_some_and(|peak| peak > 0.0);
    match gpu.fp8_tflops {
        Some(fp8) if fp4 && fp8 > 0.0 => GemmMode {
            peak_tflops: fp8,
            dequant_factor: 1.0,
            fallback_warning: None,
        },
        _ => GemmMode {
            peak_tflops: bf16_tflops,
            dequant_factor,
            fallback_warning: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn arch(id: &str) -> Architecture {
        Architecture::new(catalog().expect("catalog").model(id).expect("model"))
    }

    /// gpt-oss's experts stay MXFP4 (0.53 B/weight) at FP8 or FP4 and run W4A16 at the BF16 peak
    /// with the dequant tax on H100 (no FP4 tensor cores), MXFP8 × MXFP4 at the FP8 peak on B200;
    /// a BF16 request and a model without MXFP4 experts follow the dense GEMMs.
    #[test]
    fn mxfp4_experts_run_at_the_rate_their_gpu_gives_them() {
        let cat = catalog().expect("catalog");
        let oss = arch("gpt-oss-20b");
        let qwen = arch("qwen3-30b-a3b");
        assert!(oss.mxfp4_experts && !qwen.mxfp4_experts);
        assert_eq!(expert_bytes_per_weight(&oss, Precision::Fp8), 0.53125);
        assert_eq!(expert_bytes_per_weight(&oss, Precision::Bf16), 2.0);
        assert_eq!(expert_bytes_per_weight(&qwen, Precision::Fp4), 0.5625);
        let h100 = cat.gpu("h100-sxm").expect("gpu");
        let b200 = cat.gpu("b200").expect("gpu");
        let dense_h100 = gemm_mode(Precision::Fp8, h100, 989.0, 0.7);
        let hopper = expert_gemm_mode(&oss, Precision::Fp8, h100, 989.0, 0.7, &dense_h100);
        assert_eq!((hopper.peak_tflops, hopper.dequant_factor), (989.0, 0.7));
        let dense_b200 = gemm_mode(Precision::Fp4, b200, 2250.0, 0.7);
        let blackwell = expert_gemm_mode(&oss, Precision::Fp4, b200, 2250.0, 0.7, &dense_b200);
        assert_eq!(Some(blackwell.peak_tflops), b200.fp8_tflops);
        assert_eq!(blackwell.dequant_factor, 1.0);
        assert!(blackwell.peak_tflops < dense_b200.peak_tflops);
        let bf16 = gemm_mode(Precision::Bf16, b200, 2250.0, 0.7);
        assert_eq!(
            expert_gemm_mode(&oss, Precision::Bf16, b200, 2250.0, 0.7, &bf16),
            bf16
        );
        assert_eq!(
            expert_gemm_mode(&qwen, Precision::Fp4, b200, 2250.0, 0.7, &dense_b200),
            dense_b200
        );
    }
}
