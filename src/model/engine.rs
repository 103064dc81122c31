//! Engine profiles and vendor stacks (issue 12 §4): what an inference engine brings to the step
//! time and the TTFT beyond the GPU's datasheet, one set of knobs per engine × software stack.
//!
//! A profile holds the engine's defaults as its own documentation states them (`max_num_seqs`,
//! the per-step token budget, the KV format it picks for quantized checkpoints) and the knobs
//! the model cannot derive from a datasheet: the achievable bandwidth and compute fractions
//! `η_m`, `η_c` of its kernels on that stack (CUDA or ROCm), its per-step overhead `t_it0`
//! (scheduler, sampler, detokenizer hand-off), its per-layer kernel floor `t_L0`, and its API
//! server's per-request overhead `t_srv` (`model::ttft`). The knobs are fitted with
//! `servecost validate data/measurements.csv --fit` on the rows of that engine and stack
//! (`calibration::fit::fit_profiles`), never per row, model or GPU; `FITTED` is the fit's
//! output, and `tests/validation.rs` checks that it still is.
//!
//! Resolution (`resolve`): the profile fitted for the engine on the GPU's stack; else, for an
//! engine with too few rows to fit (or an unknown engine name), the stack's generic profile
//! (fitted on every row of that stack); else, for a stack without any row (Intel Gaudi, Google
//! TPU, or ROCm when no AMD row is in the fit), the CUDA generic profile discounted by `PRIOR`:
//! an assumption the assumptions block names as such.
//!
//! Engine defaults, from the engines' documentation: TensorRT-LLM's `max_batch_size` 2048 and
//! `max_num_tokens` 8192 (TensorRT-LLM "Tuning max batch size and max num tokens"); vLLM V1 1024
//! sequences on large GPUs and 8192 batched tokens when set for throughput (vLLM "Optimization
//! and tuning"); SGLang's `chunked_prefill_size` 8192 on large GPUs (SGLang server arguments);
//! NIM runs TensorRT-LLM. TensorRT-LLM's ModelOpt FP8/FP4 checkpoints quantize the KV cache to
//! FP8 (TensorRT-LLM quantization docs), so an unstated KV format is FP8 there.

use serde::Serialize;

/// The software stack a GPU runs (the GPU catalog's `vendor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// NVIDIA GPUs: CUDA, cuBLAS/CUTLASS, FlashAttention/FlashInfer kernels.
    Cuda,
    /// AMD Instinct GPUs: ROCm, hipBLASLt, AITER/CK kernels.
    Rocm,
    /// Anything else (Intel Gaudi, Google TPU): no measured row.
    Other,
}

impl Stack {
    /// The stack of a catalog vendor (`nvidia`, `amd`, …).
    pub fn of_vendor(vendor: &str) -> Stack {
        match vendor {
            "nvidia" => Stack::Cuda,
            "amd" => Stack::Rocm,
            _ => Stack::Other,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stack::Cuda => "CUDA",
            Stack::Rocm => "ROCm",
            Stack::Other => "other",
        }
    }
}

/// The knobs a profile sets (the rest of `Efficiency` is common to every profile).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProfileKnobs {
    pub eta_mem: f64,
    pub eta_compute: f64,
    pub step_overhead_ms: f64,
    pub layer_overhead_us: f64,
    pub server_overhead_ms: f64,
}

impl ProfileKnobs {
    /// The knobs before any fit: the §2.7 NVIDIA defaults this model shipped with and the
    /// 10 ms server overhead assumed in `scenario::DEFAULT_SERVER_OVERHEAD_MS`.
    pub const UNFITTED: ProfileKnobs = ProfileKnobs {
        eta_mem: 0.75,
        eta_compute: 0.6,
        step_overhead_ms: 2.0,
        layer_overhead_us: 15.0,
        server_overhead_ms: crate::scenario::DEFAULT_SERVER_OVERHEAD_MS,
    };

    /// The prior for a stack with no measured row: the CUDA knobs with kernels assumed less
    /// mature (η_m × 0.70/0.75, η_c × 0.5/0.6, 5 µs more per layer), the discount this model
    /// used for every non-NVIDIA GPU before any AMD row was in the file. An assumption.
    pub fn unseen_stack(self) -> ProfileKnobs {
        ProfileKnobs {
            eta_mem: self.eta_mem * (0.70 / 0.75),
            eta_compute: self.eta_compute * (0.5 / 0.6),
            layer_overhead_us: self.layer_overhead_us + 5.0,
            ..self
        }
    }
}

/// Which of a profile's knobs were fitted on its own rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// All five, on at least `MIN_PROFILE_ROWS` rows of the engine.
    AllKnobs,
    /// Only the API server's overhead `t_srv`, on at least `MIN_SERVER_ROWS` rows of the engine
    /// that measure TTFT; the other four are the stack's generic profile's (`resolve_in` reads
    /// them from it; the profile's own copies are what the fit started from). The server overhead
    /// is the one knob a TTFT row alone identifies, and the one that differs most between
    /// serving front ends (a C++ server such as NIM's against a Python one).
    ServerOverhead,
}

/// One fitted profile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Profile {
    /// An engine name as `measurements.csv`'s `engine` column writes it, or `generic`.
    pub engine: &'static str,
    pub stack: Stack,
    /// Which knobs are the engine's own.
    pub scope: Scope,
    pub knobs: ProfileKnobs,
    /// Rows of `measurements.csv` the knobs were fitted on.
    pub rows: u32,
}

/// The engines the page and CLI offer, with labels; any other name runs the generic profile.
pub const ENGINES: &[(&str, &str)] = &[
    ("generic", "Generic (pooled fit)"),
    ("tensorrt-llm", "TensorRT-LLM"),
    ("vllm", "vLLM"),
    ("sglang", "SGLang"),
    ("nim", "NVIDIA NIM"),
    ("atom", "ATOM (AMD)"),
];

/// The generic profile's name.
pub const GENERIC: &str = "generic";

/// A profile needs at least this many rows of its own to be fitted; with fewer its engine runs
/// the stack's generic profile (five knobs on two or three rows would fit the rows' noise).
pub const MIN_PROFILE_ROWS: usize = 6;

/// An engine with fewer rows than `MIN_PROFILE_ROWS` but at least this many TTFT rows gets its
/// own server overhead (`Scope::ServerOverhead`): one knob on two rows.
pub const MIN_SERVER_ROWS: usize = 2;

/// The fitted profiles, as `servecost validate data/measurements.csv --fit` prints them.
pub static FITTED: &[Profile] = &[
    Profile {
        engine: GENERIC,
        stack: Stack::Cuda,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.8,
            eta_compute: 0.55,
            step_overhead_ms: 3.0,
            layer_overhead_us: 15.0,
            server_overhead_ms: 150.0,
        },
        rows: 51,
    },
    Profile {
        engine: "nim",
        stack: Stack::Cuda,
        scope: Scope::ServerOverhead,
        knobs: ProfileKnobs {
            eta_mem: 0.8,
            eta_compute: 0.55,
            step_overhead_ms: 3.0,
            layer_overhead_us: 15.0,
            server_overhead_ms: 0.0,
        },
        rows: 2,
    },
    Profile {
        engine: "sglang",
        stack: Stack::Cuda,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.8,
            eta_compute: 0.5,
            step_overhead_ms: 3.0,
            layer_overhead_us: 15.0,
            server_overhead_ms: 150.0,
        },
        rows: 17,
    },
    Profile {
        engine: "tensorrt-llm",
        stack: Stack::Cuda,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.8,
            eta_compute: 0.55,
            step_overhead_ms: 3.0,
            layer_overhead_us: 15.0,
            server_overhead_ms: 150.0,
        },
        rows: 29,
    },
    Profile {
        engine: GENERIC,
        stack: Stack::Rocm,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.6,
            eta_compute: 0.45,
            step_overhead_ms: 3.0,
            layer_overhead_us: 30.0,
            server_overhead_ms: 500.0,
        },
        rows: 15,
    },
    Profile {
        engine: "sglang",
        stack: Stack::Rocm,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.6,
            eta_compute: 0.45,
            step_overhead_ms: 3.0,
            layer_overhead_us: 30.0,
            server_overhead_ms: 500.0,
        },
        rows: 15,
    },
];

/// How a scenario's profile was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Fitted on rows of this engine on this stack.
    Fitted,
    /// The engine's server overhead fitted on its own TTFT rows; the other knobs the stack's
    /// generic profile's (`Scope::ServerOverhead`).
    ServerFitted,
    /// The engine has too few rows (or is unknown): the stack's generic profile.
    StackGeneric,
    /// No row of this stack: the CUDA generic profile with the unseen-stack discount.
    Prior,
}

/// A scenario's profile: which one, its knobs, and on what it rests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolved {
    /// The engine as given (lower-cased).
    pub engine: String,
    /// Whether the engine is one of `ENGINES`.
    pub known: bool,
    pub stack: Stack,
    pub knobs: ProfileKnobs,
    pub basis: Basis,
    /// Rows the knobs used were fitted on.
    pub rows: u32,
}

impl Resolved {
    /// "SGLang on ROCm (fitted on 15 rows)", for the assumptions block.
    pub fn describe(&self) -> String {
        let label = ENGINES
            .iter()
            .find(|(id, _)| *id == self.engine)
            .map_or(self.engine.as_str(), |(_, label)| *label);
        let stack = self.stack.name();
        match self.basis {
            Basis::Fitted => format!(
                "Engine profile: {label} on {stack}, fitted on {} rows of measurements.csv",
                self.rows
            ),
            Basis::ServerFitted => format!(
                "Engine profile: {label} on {stack}: its server overhead fitted on its {} rows of measurements.csv; the other knobs the generic {stack} profile's (too few rows to fit them)",
                self.rows
            ),
            Basis::StackGeneric => format!(
                "Engine profile: {label} on {stack} has {} — the generic {stack} profile is used (fitted on {} rows of every engine)",
                if self.known { "too few measured rows to fit its own knobs" } else { "no profile (unknown engine)" },
                self.rows
            ),
            Basis::Prior => format!(
                "Engine profile: no measured row on {stack}; the generic CUDA profile (fitted on {} rows) with an assumed discount for less mature kernels (η_m ×0.93, η_c ×0.83, +5 µs per layer)",
                self.rows
            ),
        }
    }
}

/// The profile for `engine` on a GPU of `vendor`, from `profiles` (normally `FITTED`).
pub fn resolve_in(profiles: &[Profile], engine: &str, vendor: &str) -> Resolved {
    let engine = engine.trim().to_ascii_lowercase();
    let stack = Stack::of_vendor(vendor);
    let known = ENGINES.iter().any(|(id, _)| *id == engine);
    let find = |name: &str, stack: Stack| {
        profiles
            .iter()
            .find(|p| p.engine == name && p.stack == stack)
    };
    let (knobs, basis, rows) = if let Some(p) = find(&engine, stack) {
        match (p.scope, find(GENERIC, stack)) {
            // Only the server overhead is the engine's own; the other four are read from the
            // stack's generic profile here, so a refit of that profile reaches this engine too.
            (Scope::ServerOverhead, Some(generic)) => (
                ProfileKnobs {
                    server_overhead_ms: p.knobs.server_overhead_ms,
                    ..generic.knobs
                },
                Basis::ServerFitted,
                p.rows,
            ),
            (Scope::ServerOverhead, None) => (p.knobs, Basis::ServerFitted, p.rows),
            (Scope::AllKnobs, _) => (p.knobs, Basis::Fitted, p.rows),
        }
    } else if let Some(p) = find(GENERIC, stack) {
        (p.knobs, Basis::StackGeneric, p.rows)
    } else {
        let cuda = find(GENERIC, Stack::Cuda);
        (
            cuda.map_or(ProfileKnobs::UNFITTED, |p| p.knobs)
                .unseen_stack(),
            Basis::Prior,
            cuda.map_or(0, |p| p.rows),
        )
    };
    // The generic profile itself is "fitted" when it was found for its stack.
    let basis = if engine == GENERIC && basis == Basis::StackGeneric {
        Basis::Fitted
    } else {
        basis
    };
    Resolved {
        engine,
        known,
        stack,
        knobs,
        basis,
        rows,
    }
}

/// The shipped profile for `engine` on a GPU of `vendor`.
pub fn resolve(engine: &str, vendor: &str) -> Resolved {
    resolve_in(FITTED, engine, vendor)
}

/// The engine's defaults: `(max_num_seqs, per-step token budget)` (module doc); `None` for the
/// generic profile, which keeps the scenario's own defaults.
pub fn engine_limits(engine: &str) -> Option<(u32, u32)> {
    match engine {
        "tensorrt-llm" | "nim" => Some((2048, 8192)),
        "vllm" | "sglang" | "atom" => Some((1024, 8192)),
        _ => None,
    }
}

/// The KV format an engine picks when the user does not say, for weights of `precision`:
/// FP8 for TensorRT-LLM (and NIM, which runs it) with FP8/FP4 ModelOpt checkpoints, which
/// quantize the KV cache. A model whose experts ship as MXFP4 (gpt-oss) runs from its own
/// checkpoint instead, and TensorRT-LLM's GPT-OSS options set the KV format by GPU: `dtype: fp8`
/// on Blackwell, "Hopper: use auto" (BF16) (TensorRT-LLM perf-overview, GPT-OSS options), so
/// FP8 only on a GPU with native FP4 (`native_fp4`, Blackwell).
pub fn kv_when_unstated(
    engine: &str,
    precision: &str,
    mxfp4_experts: bool,
    native_fp4: bool,
) -> Option<&'static str> {
    match (engine, precision) {
        ("tensorrt-llm" | "nim", "fp8" | "fp4") if !mxfp4_experts || native_fp4 => Some("fp8"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: ProfileKnobs = ProfileKnobs {
        eta_mem: 0.8,
        eta_compute: 0.6,
        step_overhead_ms: 1.0,
        layer_overhead_us: 10.0,
        server_overhead_ms: 20.0,
    };

    fn profiles() -> Vec<Profile> {
        vec![
            Profile {
                engine: GENERIC,
                stack: Stack::Cuda,
                scope: Scope::AllKnobs,
                knobs: A,
                rows: 40,
            },
            Profile {
                engine: "sglang",
                stack: Stack::Cuda,
                scope: Scope::AllKnobs,
                knobs: ProfileKnobs {
                    server_overhead_ms: 90.0,
                    ..A
                },
                rows: 17,
            },
        ]
    }

    #[test]
    fn a_fitted_engine_uses_its_own_knobs() {
        let r = resolve_in(&profiles(), "SGLang", "nvidia");
        assert_eq!(r.basis, Basis::Fitted);
        assert_eq!(r.knobs.server_overhead_ms, 90.0);
        assert_eq!(r.rows, 17);
        assert!(r.describe().contains("SGLang on CUDA, fitted on 17 rows"));
    }

    /// An engine with only its server overhead fitted (two TTFT rows) keeps the generic
    /// profile's other knobs, and the assumptions say which knob is its own.
    #[test]
    fn a_server_only_profile_says_which_knob_is_its_own() {
        let mut table = profiles();
        table.push(Profile {
            engine: "nim",
            stack: Stack::Cuda,
            scope: Scope::ServerOverhead,
            // Stale copies of the other knobs (a generic refit since): not used.
            knobs: ProfileKnobs {
                server_overhead_ms: 5.0,
                eta_mem: 0.1,
                ..A
            },
            rows: 2,
        });
        let r = resolve_in(&table, "nim", "nvidia");
        assert_eq!(r.basis, Basis::ServerFitted);
        assert_eq!(
            (r.knobs.server_overhead_ms, r.knobs.eta_mem),
            (5.0, A.eta_mem)
        );
        let text = r.describe();
        assert!(
            text.contains("NVIDIA NIM on CUDA: its server overhead fitted on its 2 rows"),
            "{text}"
        );
        let shipped = resolve("nim", "nvidia");
        assert_eq!(
            shipped.basis,
            Basis::ServerFitted,
            "the shipped NIM profile"
        );
    }

    #[test]
    fn an_unknown_or_unfitted_engine_uses_the_stack_generic_profile_and_says_so() {
        let unknown = resolve_in(&profiles(), "my-engine", "nvidia");
        assert_eq!(unknown.basis, Basis::StackGeneric);
        assert!(!unknown.known);
        assert!(
            unknown.describe().contains("unknown engine"),
            "{}",
            unknown.describe()
        );
        let few = resolve_in(&profiles(), "vllm", "nvidia");
        assert!(few.known);
        assert!(few.describe().contains("too few measured rows"));
        assert_eq!(few.knobs, A);
        assert_eq!(
            resolve_in(&profiles(), GENERIC, "nvidia").basis,
            Basis::Fitted
        );
    }

    #[test]
    fn a_stack_without_rows_takes_the_discounted_cuda_profile() {
        let r = resolve_in(&profiles(), "sglang", "amd");
        assert_eq!(r.basis, Basis::Prior);
        assert!((r.knobs.eta_mem - 0.8 * 0.70 / 0.75).abs() < 1e-12);
        assert!((r.knobs.eta_compute - 0.5).abs() < 1e-12);
        assert_eq!(r.knobs.layer_overhead_us, 15.0);
        assert!(r.describe().contains("no measured row on ROCm"));
    }

    #[test]
    fn engine_defaults_follow_the_engines_documentation() {
        assert_eq!(engine_limits("tensorrt-llm"), Some((2048, 8192)));
        assert_eq!(engine_limits("sglang"), Some((1024, 8192)));
        assert_eq!(engine_limits(GENERIC), None);
        assert_eq!(
            kv_when_unstated("tensorrt-llm", "fp4", false, false),
            Some("fp8")
        );
        assert_eq!(kv_when_unstated("vllm", "fp8", false, true), None);
        // gpt-oss on Hopper: BF16 KV; on Blackwell: FP8.
        assert_eq!(kv_when_unstated("tensorrt-llm", "fp8", true, false), None);
        assert_eq!(
            kv_when_unstated("tensorrt-llm", "fp4", true, true),
            Some("fp8")
        );
    }
}
