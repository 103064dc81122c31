//! Numeric formats of weights and KV cache: bytes per element, which tensor-core peak a GEMM
//! runs at, and the fallback when a GPU lacks native support for a format.
//!
//! MODEL.md §0 (`b_w`, `b_kv`), §1.1 (group-wise INT4 scale overhead `4/g`), §2.6 (FP8 W8A8 doubles
//! `F` on Hopper/Blackwell; weight-only formats run at the BF16 peak with a dequant tax).

use crate::catalog::Gpu;
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

impl Precision {
    pub const ALL: [Precision; 4] = [
        Precision::Bf16,
        Precision::Fp8,
        Precision::Fp4,
        Precision::Int4,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Fp4 => "fp4",
            Precision::Int4 => "int4",
        }
    }

    pub fn parse(text: &str) -> Option<Precision> {
        Precision::ALL
            .into_iter()
            .find(|p| p.id() == text.trim().to_ascii_lowercase())
    }

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
    pub fn id(self) -> &'static str {
        match self {
            KvPrecision::Bf16 => "bf16",
            KvPrecision::Fp8 => "fp8",
        }
    }

    pub fn parse(text: &str) -> Option<KvPrecision> {
        match text.trim().to_ascii_lowercase().as_str() {
            "bf16" | "fp16" | "auto" => Some(KvPrecision::Bf16),
            "fp8" => Some(KvPrecision::Fp8),
            _ => None,
        }
    }

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
