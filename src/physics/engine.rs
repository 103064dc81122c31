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
//! (`calibration::profiles::fit_profiles`), never per row, model or GPU; `FITTED` is the fit's
//! output, and `tests/validation.rs` checks that it still is.
//!
//! Profiles are kept per **deployment** as well (issue 25 §2): `tuned`, a performance-tuned
//! benchmark (vendor tables, InferenceX, MLPerf), and `stock`, the engine at its defaults or
//! its recommended launch command (GPUStack's performance lab, dstack, vLLM CI), the class
//! `shared/data/README.md` assigns each measurement by its source. The same engine on the
//! same GPUs is often 1.3–2× slower stock than tuned (older release, no tuning flags, default
//! scheduler limits), so a stock profile's knobs are its own fit on the stock rows.
//!
//! Resolution (`resolve`): the profile fitted for the engine, stack and deployment; else, for an
//! engine with too few rows to fit (or an unknown engine name), the stack's generic profile of
//! that deployment (fitted on every row of that stack and deployment); else, for a stock
//! deployment on a stack with too few stock rows, the stack's tuned profile with its host-side
//! overheads moved by the stock-vs-tuned shift another stack measured and its kernel
//! efficiencies kept (`Basis::StockShifted`: the ratios of the overheads of that stack's generic
//! profiles, `ProfileKnobs::shifted`; the engine's stock scheduler limits, `engine_limits`, apply
//! as for any stock scenario), or the tuned profile itself when no stack measured one
//! (`Basis::TunedOnly`, said in the assumptions); else, for a stack without any
//! row (Intel Gaudi, Google TPU, or ROCm when no AMD row is in the fit), the CUDA generic
//! profile discounted by `PRIOR`: an assumption the assumptions block names as such.
//!
//! The per-sequence step cost `t_seq` (µs per sequence in the batch per step) is the CPU work
//! an engine's Python scheduler, sampler and detokenizer spend on every running request each
//! iteration, which grows with the batch: vLLM's V1 re-architecture names "CPU overheads" of
//! scheduling, input preparation, detokenization and streaming as the bottleneck it attacks
//! (vLLM blog, "vLLM V1: A Major Upgrade to vLLM's Core Architecture", Jan 2025), and SGLang's
//! overlap scheduler hides the same batch scheduling work behind the GPU (SGLang v0.4 blog,
//! "Zero-Overhead Batch Scheduler", Dec 2024). At about 1,000 sequences in flight a stock
//! engine's TPOT is about twice the kernels' (GPUStack, gpt-oss-20b on one H100: 91 ms).
//!
//! Engine defaults, from the engines' documentation: TensorRT-LLM's `max_batch_size` 2048 and
//! `max_num_tokens` 8192 (TensorRT-LLM "Tuning max batch size and max num tokens"); vLLM V1 1024
//! sequences on large GPUs and 8192 batched tokens when set for throughput (vLLM "Optimization
//! and tuning"); SGLang's `chunked_prefill_size` 8192 on large GPUs (SGLang server arguments);
//! NIM runs TensorRT-LLM. TensorRT-LLM's ModelOpt FP8/FP4 checkpoints quantize the KV cache to
//! FP8 (TensorRT-LLM quantization docs), so an unstated KV format is FP8 there.

use super::precision::{KvPrecision, Precision};
use crate::choice::{choices, Choice};
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

/// How an engine was set up for a run (`shared/data/README.md`, column `deployment`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Deployment {
    /// A performance-tuned benchmark: vendor tables, MLPerf, InferenceX, engine blogs.
    #[default]
    Tuned,
    /// The engine's defaults or its recommended launch command: what a buyer runs on day one.
    Stock,
}

impl Deployment {
    /// The other one: what the page shows beside the headline.
    pub fn other(self) -> Deployment {
        match self {
            Deployment::Tuned => Deployment::Stock,
            Deployment::Stock => Deployment::Tuned,
        }
    }
}

// The ids are the ones links, JSON, the CLI and `measurements.csv` use.
choices!(Deployment {
    Deployment::Tuned => "tuned", "Tuned benchmark";
    Deployment::Stock => "stock", "Stock launch (engine defaults)";
});

/// Default per-request server overhead, ms: what an API server adds to every request's TTFT and
/// E2E outside the engine's steps — the HTTP request and response, tokenizing the prompt (10–21
/// µs per token measured for a HF tokenizer, tenstorrent/tt-inference-server#2173: ≈ 10–20 ms at
/// 1 k tokens, though the fast Rust tokenizers vLLM and SGLang run in their own processes are
/// nearer the low end) and detokenizing and streaming the first token (vLLM V1 and SGLang run
/// the API server, tokenizer and detokenizer as separate processes beside the engine core, so
/// this is latency, not GPU time: vLLM PR #12287, SGLang's TokenizerManager / DetokenizerManager).
/// 10 ms is an assumption at the low end of those figures, not a fit: the prior of an unfitted
/// profile (`physics::engine::ProfileKnobs::UNFITTED`); the shipped profiles fit their own.
pub const DEFAULT_SERVER_OVERHEAD_MS: f64 = 10.0;

/// The knobs a profile sets (the rest of `Efficiency` is common to every profile).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProfileKnobs {
    pub eta_mem: f64,
    pub eta_compute: f64,
    pub step_overhead_ms: f64,
    pub layer_overhead_us: f64,
    pub server_overhead_ms: f64,
    /// `t_seq`, µs per running sequence per step (module doc).
    pub seq_overhead_us: f64,
}

impl ProfileKnobs {
    /// The knobs before any fit: the §2.7 NVIDIA defaults this model shipped with and the
    /// 10 ms server overhead assumed in `DEFAULT_SERVER_OVERHEAD_MS`.
    pub const UNFITTED: ProfileKnobs = ProfileKnobs {
        eta_mem: 0.75,
        eta_compute: 0.6,
        step_overhead_ms: 2.0,
        layer_overhead_us: 15.0,
        server_overhead_ms: DEFAULT_SERVER_OVERHEAD_MS,
        seq_overhead_us: 0.0,
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

    /// These (tuned) knobs moved as `stock` moved from `tuned` on another stack (issue 25 §3):
    /// the host-side overheads (`t_it0`, `t_L0`, `t_srv`, `t_seq`) by the ratio `x·(stock/tuned)`,
    /// the kernel efficiencies `η_m`, `η_c` kept. An overhead the other stack's tuned profile
    /// fitted at zero has no ratio and moves by the difference (never below zero).
    ///
    /// Why the overheads and not η: the overheads are the engine's Python scheduler, sampler,
    /// detokenizer and API server, the same code on either vendor's build, so how much a stock
    /// launch adds to them on one stack is what it adds on the other. η is the kernels' (cuBLAS,
    /// FlashAttention/FlashInfer on CUDA; hipBLASLt, AITER/CK, Triton on ROCm), released on each
    /// vendor's own schedule, and where a stock fit pins it its value is not a kernel measurement:
    /// both stacks' stock η_c sit at the floor of their grid (0.2), absorbing burst queueing.
    /// Moved by CUDA's 0.2/0.55, ROCm's tuned η_c fell to 0.07 and dstack's TGI 10k-token
    /// prefills came out 3× too slow. Held out by publication (the primary gate) keeping η took
    /// the TTFT median from 66.1 to 61.1 % (dstack's rows 93 → 35 %, GPUStack's 53.5 → 52.7 %),
    /// TPOT 25.1 → 24.9 %, tok/s 19.3 → 19.6 % (docs/VALIDATION-NOTES.md, "Issue 25 §3: causes
    /// tested").
    ///
    /// Why a ratio for the overheads: each stack's profiles carry their own level of fixed costs,
    /// and a difference measured at one level does not transfer to another. Fitted on
    /// InferenceX's tuned MI300X rows the ROCm server overhead is 500 ms (their mean TTFT holds a
    /// first wave of 1.9–6.6 s at the p99 of the 1k-prompt runs, against medians of 160–220 ms),
    /// on dstack's stock rows 200 ms: that −300 ms took CUDA's 150 ms to 0 for a stock CUDA
    /// scenario, and the other way CUDA's −130 ms (20 − 150) left a stock ROCm scenario at
    /// 370 ms. As a ratio the move keeps the target stack's own level (500 × 20/150 = 67 ms).
    pub fn shifted(self, tuned: ProfileKnobs, stock: ProfileKnobs) -> ProfileKnobs {
        let add = |x: f64, a: f64, b: f64| {
            if b > 0.0 {
                x * a / b
            } else {
                (x + a - b).max(0.0)
            }
        };
        ProfileKnobs {
            eta_mem: self.eta_mem,
            eta_compute: self.eta_compute,
            step_overhead_ms: add(
                self.step_overhead_ms,
                stock.step_overhead_ms,
                tuned.step_overhead_ms,
            ),
            layer_overhead_us: add(
                self.layer_overhead_us,
                stock.layer_overhead_us,
                tuned.layer_overhead_us,
            ),
            server_overhead_ms: add(
                self.server_overhead_ms,
                stock.server_overhead_ms,
                tuned.server_overhead_ms,
            ),
            seq_overhead_us: add(
                self.seq_overhead_us,
                stock.seq_overhead_us,
                tuned.seq_overhead_us,
            ),
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
    pub deployment: Deployment,
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
    ("tgi", "Hugging Face TGI"),
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
        deployment: Deployment::Tuned,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.75,
            eta_compute: 0.55,
            step_overhead_ms: 2.5,
            layer_overhead_us: 15.0,
            server_overhead_ms: 150.0,
            seq_overhead_us: 0.0,
        },
        rows: 48,
    },
    Profile {
        engine: "nim",
        stack: Stack::Cuda,
        deployment: Deployment::Tuned,
        scope: Scope::ServerOverhead,
        knobs: ProfileKnobs {
            eta_mem: 0.75,
            eta_compute: 0.55,
            step_overhead_ms: 2.5,
            layer_overhead_us: 15.0,
            server_overhead_ms: 0.0,
            seq_overhead_us: 0.0,
        },
        rows: 2,
    },
    Profile {
        engine: "sglang",
        stack: Stack::Cuda,
        deployment: Deployment::Tuned,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.75,
            eta_compute: 0.5,
            step_overhead_ms: 2.5,
            layer_overhead_us: 15.0,
            server_overhead_ms: 150.0,
            seq_overhead_us: 0.0,
        },
        rows: 17,
    },
    Profile {
        engine: "tensorrt-llm",
        stack: Stack::Cuda,
        deployment: Deployment::Tuned,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.75,
            eta_compute: 0.55,
            step_overhead_ms: 2.5,
            layer_overhead_us: 15.0,
            server_overhead_ms: 150.0,
            seq_overhead_us: 0.0,
        },
        rows: 29,
    },
    Profile {
        engine: GENERIC,
        stack: Stack::Cuda,
        deployment: Deployment::Stock,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.85,
            eta_compute: 0.2,
            step_overhead_ms: 1.5,
            layer_overhead_us: 30.0,
            server_overhead_ms: 20.0,
            seq_overhead_us: 0.0,
        },
        rows: 35,
    },
    Profile {
        engine: "sglang",
        stack: Stack::Cuda,
        deployment: Deployment::Stock,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.85,
            eta_compute: 0.2,
            step_overhead_ms: 1.5,
            layer_overhead_us: 30.0,
            server_overhead_ms: 20.0,
            seq_overhead_us: 0.0,
        },
        rows: 9,
    },
    Profile {
        engine: "tensorrt-llm",
        stack: Stack::Cuda,
        deployment: Deployment::Stock,
        scope: Scope::ServerOverhead,
        knobs: ProfileKnobs {
            eta_mem: 0.85,
            eta_compute: 0.2,
            step_overhead_ms: 1.5,
            layer_overhead_us: 30.0,
            server_overhead_ms: 20.0,
            seq_overhead_us: 0.0,
        },
        rows: 4,
    },
    Profile {
        engine: "vllm",
        stack: Stack::Cuda,
        deployment: Deployment::Stock,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.85,
            eta_compute: 0.35,
            step_overhead_ms: 1.5,
            layer_overhead_us: 40.0,
            server_overhead_ms: 30.0,
            seq_overhead_us: 0.0,
        },
        rows: 22,
    },
    Profile {
        engine: GENERIC,
        stack: Stack::Rocm,
        deployment: Deployment::Tuned,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.4,
            eta_compute: 0.2,
            step_overhead_ms: 6.0,
            layer_overhead_us: 20.0,
            server_overhead_ms: 500.0,
            seq_overhead_us: 0.0,
        },
        rows: 15,
    },
    Profile {
        engine: "sglang",
        stack: Stack::Rocm,
        deployment: Deployment::Tuned,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.4,
            eta_compute: 0.2,
            step_overhead_ms: 6.0,
            layer_overhead_us: 20.0,
            server_overhead_ms: 500.0,
            seq_overhead_us: 0.0,
        },
        rows: 15,
    },
    Profile {
        engine: GENERIC,
        stack: Stack::Rocm,
        deployment: Deployment::Stock,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.35,
            eta_compute: 0.2,
            step_overhead_ms: 6.0,
            layer_overhead_us: 20.0,
            server_overhead_ms: 200.0,
            seq_overhead_us: 0.0,
        },
        rows: 22,
    },
    Profile {
        engine: "tgi",
        stack: Stack::Rocm,
        deployment: Deployment::Stock,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.45,
            eta_compute: 0.25,
            step_overhead_ms: 10.0,
            layer_overhead_us: 15.0,
            server_overhead_ms: 50.0,
            seq_overhead_us: 0.0,
        },
        rows: 11,
    },
    Profile {
        engine: "vllm",
        stack: Stack::Rocm,
        deployment: Deployment::Stock,
        scope: Scope::AllKnobs,
        knobs: ProfileKnobs {
            eta_mem: 0.3,
            eta_compute: 0.2,
            step_overhead_ms: 10.0,
            layer_overhead_us: 60.0,
            server_overhead_ms: 300.0,
            seq_overhead_us: 0.0,
        },
        rows: 11,
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
    /// Stock asked, too few stock rows on this stack: the stack's tuned profile with its
    /// overheads moved by the stock-vs-tuned shift another stack's generic profiles measured
    /// (its kernel efficiencies kept).
    StockShifted,
    /// Stock asked and no stack measured a stock profile: the tuned profile, said so.
    TunedOnly,
}

/// A scenario's profile: which one, its knobs, and on what it rests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolved {
    /// The engine as given (lower-cased).
    pub engine: String,
    /// Whether the engine is one of `ENGINES`.
    pub known: bool,
    pub stack: Stack,
    /// The deployment asked for.
    pub deployment: Deployment,
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
        let deployment = self.deployment.id();
        match self.basis {
            Basis::Fitted => format!(
                "Engine profile: {label} on {stack}, {deployment}, fitted on {} rows of measurements.csv",
                self.rows
            ),
            Basis::StockShifted => format!(
                "Engine profile: {label} on {stack}, stock: too few stock rows on {stack}, so the tuned {stack} profile ({} rows) with its overheads moved by the stock-vs-tuned shift measured on another stack (kernel efficiencies kept)",
                self.rows
            ),
            Basis::TunedOnly => format!(
                "Engine profile: {label} on {stack}: no stock profile was measured on any stack, so this is the tuned profile ({} rows); a stock launch is likely slower",
                self.rows
            ),
            Basis::ServerFitted => format!(
                "Engine profile: {label} on {stack}: its server overhead fitted on its {} rows of measurements.csv; the other knobs the generic {stack} profile's (too few rows to fit them)",
                self.rows
            ),
            Basis::StackGeneric => format!(
                "Engine profile: {label} on {stack}, {deployment}, has {} — the generic {stack} {deployment} profile is used (fitted on {} rows of every engine)",
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

/// The profile for `engine` on a GPU of `vendor` in `deployment`, from `profiles` (normally
/// `FITTED`); module doc for the order of fallbacks.
pub fn resolve_in(
    profiles: &[Profile],
    engine: &str,
    vendor: &str,
    deployment: Deployment,
) -> Resolved {
    let engine = engine.trim().to_ascii_lowercase();
    let stack = Stack::of_vendor(vendor);
    let known = ENGINES.iter().any(|(id, _)| *id == engine);
    let (knobs, basis, rows) = match resolve_deployment(profiles, &engine, stack, deployment) {
        Some(found) => found,
        None if deployment == Deployment::Stock => {
            match resolve_deployment(profiles, &engine, stack, Deployment::Tuned) {
                Some((tuned, basis, rows)) if basis != Basis::Prior => {
                    match stock_shift(profiles) {
                        Some((t, st)) => (tuned.shifted(t, st), Basis::StockShifted, rows),
                        None => (tuned, Basis::TunedOnly, rows),
                    }
                }
                _ => prior(profiles, Deployment::Stock),
            }
        }
        None => prior(profiles, deployment),
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
        deployment,
        knobs,
        basis,
        rows,
    }
}

/// The engine's own profile or its stack's generic one, of exactly this deployment.
fn resolve_deployment(
    profiles: &[Profile],
    engine: &str,
    stack: Stack,
    deployment: Deployment,
) -> Option<(ProfileKnobs, Basis, u32)> {
    let find = |name: &str| {
        profiles
            .iter()
            .find(|p| p.engine == name && p.stack == stack && p.deployment == deployment)
    };
    let generic = find(GENERIC);
    match (find(engine), generic) {
        // Only the server overhead is the engine's own; the other knobs are read from the
        // stack's generic profile here, so a refit of that profile reaches this engine too.
        (Some(p), Some(generic)) if p.scope == Scope::ServerOverhead => Some((
            ProfileKnobs {
                server_overhead_ms: p.knobs.server_overhead_ms,
                ..generic.knobs
            },
            Basis::ServerFitted,
            p.rows,
        )),
        (Some(p), _) if p.scope == Scope::ServerOverhead => {
            Some((p.knobs, Basis::ServerFitted, p.rows))
        }
        (Some(p), _) => Some((p.knobs, Basis::Fitted, p.rows)),
        (None, Some(g)) => Some((g.knobs, Basis::StackGeneric, g.rows)),
        (None, None) => None,
    }
}

/// The stock-vs-tuned shift of the first stack whose generic profile was fitted both ways:
/// `(tuned knobs, stock knobs)`.
fn stock_shift(profiles: &[Profile]) -> Option<(ProfileKnobs, ProfileKnobs)> {
    let generic = |stack: Stack, deployment: Deployment| {
        profiles
            .iter()
            .find(|p| p.engine == GENERIC && p.stack == stack && p.deployment == deployment)
    };
    profiles
        .iter()
        .filter(|p| p.engine == GENERIC && p.deployment == Deployment::Stock)
        .find_map(|stock| {
            generic(stock.stack, Deployment::Tuned).map(|tuned| (tuned.knobs, stock.knobs))
        })
}

/// No row of this stack: the CUDA generic profile of the deployment (or the tuned one) with
/// the unseen-stack discount.
fn prior(profiles: &[Profile], deployment: Deployment) -> (ProfileKnobs, Basis, u32) {
    let cuda = |d: Deployment| {
        profiles
            .iter()
            .find(|p| p.engine == GENERIC && p.stack == Stack::Cuda && p.deployment == d)
    };
    let cuda = cuda(deployment).or_else(|| cuda(Deployment::Tuned));
    (
        cuda.map_or(ProfileKnobs::UNFITTED, |p| p.knobs)
            .unseen_stack(),
        Basis::Prior,
        cuda.map_or(0, |p| p.rows),
    )
}

/// The shipped profile for `engine` on a GPU of `vendor` in `deployment`.
pub fn resolve(engine: &str, vendor: &str, deployment: Deployment) -> Resolved {
    resolve_in(FITTED, engine, vendor, deployment)
}

/// The engine's defaults: `(max_num_seqs, per-step token budget)` (module doc); `None` for the
/// generic profile, which keeps the scenario's own defaults. `tuned` is what the vendors'
/// tuned runs set; `stock` what the current release does when launched without flags, by GPU
/// (`gpu_id`, `memory_gb` per GPU):
/// - vLLM V1 `vllm serve` (0.10–0.11 `EngineArgs._set_default_args`, "For GPUs like H100 and
///   MI300x": `device_memory >= 70 GiB and "a100" not in device_name`): 1024 sequences and 8192
///   batched tokens; otherwise 256 and 2048;
/// - SGLang 0.5.x (`ServerArgs._handle_gpu_memory_settings`): `chunked_prefill_size` 2048 under
///   35 GB, 4096 under 60 GB, 8192 under 160 GB ("H100, A100", "H20, H200"), 16384 above ("B200,
///   MI300"); running requests bounded by the KV pool and a request pool of at most 4096;
/// - TGI (launcher `main.rs`, v2.4–v3.3): `max_concurrent_requests` 128 (more are refused with
///   429 "Model is overloaded"), `max_batch_prefill_tokens` 4096;
/// - TensorRT-LLM `trtllm-serve` and NIM: `BuildConfig`'s `max_batch_size` 2048 and
///   `max_num_tokens` 8192, as tuned.
pub fn engine_limits(
    engine: &str,
    deployment: Deployment,
    gpu_id: &str,
    memory_gb: f64,
) -> Option<(u32, u32)> {
    match (engine, deployment) {
        ("tensorrt-llm" | "nim", _) => Some((2048, 8192)),
        // ATOM has no stock source read here: the same limits either way.
        ("vllm" | "sglang", Deployment::Tuned) | ("atom", _) => Some((1024, 8192)),
        // No tuned TGI run is in the data: its launcher's documented defaults either way.
        ("tgi", _) => Some((128, 4096)),
        ("vllm", Deployment::Stock) => {
            let large = memory_gb * 1e9 >= 70.0 * 1024f64.powi(3) && !gpu_id.contains("a100");
            Some(if large { (1024, 8192) } else { (256, 2048) })
        }
        ("sglang", Deployment::Stock) => Some((
            4096,
            match memory_gb {
                m if m < 35.0 => 2048,
                m if m < 60.0 => 4096,
                m if m < 160.0 => 8192,
                _ => 16384,
            },
        )),
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
    precision: Precision,
    mxfp4_experts: bool,
    native_fp4: bool,
) -> Option<KvPrecision> {
    match (engine, precision) {
        ("tensorrt-llm" | "nim", Precision::Fp8 | Precision::Fp4)
            if !mxfp4_experts || native_fp4 =>
        {
            Some(KvPrecision::Fp8)
        }
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
        seq_overhead_us: 0.0,
    };

    fn profiles() -> Vec<Profile> {
        vec![
            Profile {
                engine: GENERIC,
                stack: Stack::Cuda,
                deployment: Deployment::Tuned,
                scope: Scope::AllKnobs,
                knobs: A,
                rows: 40,
            },
            Profile {
                engine: "sglang",
                stack: Stack::Cuda,
                deployment: Deployment::Tuned,
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
        let r = resolve_in(&profiles(), "SGLang", "nvidia", Deployment::Tuned);
        assert_eq!(r.basis, Basis::Fitted);
        assert_eq!(r.knobs.server_overhead_ms, 90.0);
        assert_eq!(r.rows, 17);
        assert!(r
            .describe()
            .contains("SGLang on CUDA, tuned, fitted on 17 rows"));
    }

    /// An engine with only its server overhead fitted (two TTFT rows) keeps the generic
    /// profile's other knobs, and the assumptions say which knob is its own.
    #[test]
    fn a_server_only_profile_says_which_knob_is_its_own() {
        let mut table = profiles();
        table.push(Profile {
            engine: "nim",
            stack: Stack::Cuda,
            deployment: Deployment::Tuned,
            scope: Scope::ServerOverhead,
            // Stale copies of the other knobs (a generic refit since): not used.
            knobs: ProfileKnobs {
                server_overhead_ms: 5.0,
                eta_mem: 0.1,
                ..A
            },
            rows: 2,
        });
        let r = resolve_in(&table, "nim", "nvidia", Deployment::Tuned);
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
        let shipped = resolve("nim", "nvidia", Deployment::Tuned);
        assert_eq!(
            shipped.basis,
            Basis::ServerFitted,
            "the shipped NIM profile"
        );
    }

    #[test]
    fn an_unknown_or_unfitted_engine_uses_the_stack_generic_profile_and_says_so() {
        let unknown = resolve_in(&profiles(), "my-engine", "nvidia", Deployment::Tuned);
        assert_eq!(unknown.basis, Basis::StackGeneric);
        assert!(!unknown.known);
        assert!(
            unknown.describe().contains("unknown engine"),
            "{}",
            unknown.describe()
        );
        let few = resolve_in(&profiles(), "vllm", "nvidia", Deployment::Tuned);
        assert!(few.known);
        assert!(few.describe().contains("too few measured rows"));
        assert_eq!(few.knobs, A);
        assert_eq!(
            resolve_in(&profiles(), GENERIC, "nvidia", Deployment::Tuned).basis,
            Basis::Fitted
        );
    }

    #[test]
    fn a_stack_without_rows_takes_the_discounted_cuda_profile() {
        let r = resolve_in(&profiles(), "sglang", "amd", Deployment::Tuned);
        assert_eq!(r.basis, Basis::Prior);
        assert!((r.knobs.eta_mem - 0.8 * 0.70 / 0.75).abs() < 1e-12);
        assert!((r.knobs.eta_compute - 0.5).abs() < 1e-12);
        assert_eq!(r.knobs.layer_overhead_us, 15.0);
        assert!(r.describe().contains("no measured row on ROCm"));
    }

    /// Stock: its own profile where fitted; on a stack without one, the stack's tuned profile
    /// moved by another stack's stock-vs-tuned shift; with no stock profile anywhere, the tuned
    /// profile, said so.
    #[test]
    fn a_stock_deployment_falls_back_by_the_documented_rule() {
        let stock_knobs = ProfileKnobs {
            eta_mem: 0.4,
            step_overhead_ms: 3.0,
            seq_overhead_us: 50.0,
            ..A
        };
        let mut table = profiles();
        let tuned_only = resolve_in(&table, "vllm", "nvidia", Deployment::Stock);
        assert_eq!(tuned_only.basis, Basis::TunedOnly);
        assert_eq!(tuned_only.knobs, A);
        assert!(tuned_only.describe().contains("no stock profile"));
        table.push(Profile {
            engine: GENERIC,
            stack: Stack::Cuda,
            deployment: Deployment::Stock,
            scope: Scope::AllKnobs,
            knobs: stock_knobs,
            rows: 30,
        });
        let own = resolve_in(&table, "vllm", "nvidia", Deployment::Stock);
        assert_eq!((own.basis, own.knobs), (Basis::StackGeneric, stock_knobs));
        assert_eq!(
            resolve_in(&table, "vllm", "nvidia", Deployment::Tuned).knobs,
            A,
            "tuned is untouched"
        );
        // ROCm has a tuned profile and no stock one: its overheads shifted by CUDA's
        // stock-vs-tuned move, its kernel efficiencies its own.
        table.push(Profile {
            engine: GENERIC,
            stack: Stack::Rocm,
            deployment: Deployment::Tuned,
            scope: Scope::AllKnobs,
            knobs: ProfileKnobs { eta_mem: 0.6, ..A },
            rows: 10,
        });
        let shifted = resolve_in(&table, "vllm", "amd", Deployment::Stock);
        assert_eq!(shifted.basis, Basis::StockShifted);
        assert!((shifted.knobs.eta_mem - 0.6).abs() < 1e-12, "η kept");
        assert!((shifted.knobs.step_overhead_ms - 3.0).abs() < 1e-12);
        assert!((shifted.knobs.seq_overhead_us - 50.0).abs() < 1e-12);
        // Overheads move by the ratio, keeping the target stack's level: a 150 → 20 ms server
        // overhead on one stack takes another's 500 ms to 500 × 20/150, not to 370 ms.
        let tuned = ProfileKnobs {
            server_overhead_ms: 150.0,
            ..A
        };
        let stock = ProfileKnobs {
            server_overhead_ms: 20.0,
            ..A
        };
        let rocm = ProfileKnobs {
            server_overhead_ms: 500.0,
            ..A
        };
        let moved = rocm.shifted(tuned, stock).server_overhead_ms;
        assert!((moved - 500.0 * 20.0 / 150.0).abs() < 1e-9, "{moved}");
        assert!(shifted.describe().contains("stock-vs-tuned shift"));
        assert_eq!(Deployment::parse(" Stock "), Some(Deployment::Stock));
        assert_eq!(Deployment::parse("fast"), None);
        assert_eq!(Deployment::Tuned.other(), Deployment::Stock);
    }

    #[test]
    fn engine_defaults_follow_the_engines_documentation() {
        let tuned = |e: &str| engine_limits(e, Deployment::Tuned, "h100-sxm", 80.0);
        assert_eq!(tuned("tensorrt-llm"), Some((2048, 8192)));
        assert_eq!(tuned("sglang"), Some((1024, 8192)));
        assert_eq!(tuned(GENERIC), None);
        // Stock: vLLM's defaults by GPU memory (A100 excluded), SGLang's chunk by memory, TGI's
        // request cap.
        let stock = |e: &str, gpu: &str, gb: f64| engine_limits(e, Deployment::Stock, gpu, gb);
        assert_eq!(stock("vllm", "h100-sxm", 80.0), Some((1024, 8192)));
        assert_eq!(stock("vllm", "a100-sxm-80gb", 80.0), Some((256, 2048)));
        assert_eq!(stock("vllm", "l40s", 48.0), Some((256, 2048)));
        assert_eq!(stock("sglang", "b200", 180.0), Some((4096, 16384)));
        assert_eq!(stock("sglang", "h200-sxm", 141.0), Some((4096, 8192)));
        assert_eq!(stock("tgi", "mi300x", 192.0), Some((128, 4096)));
        assert_eq!(
            kv_when_unstated("tensorrt-llm", Precision::Fp4, false, false),
            Some(KvPrecision::Fp8)
        );
        assert_eq!(kv_when_unstated("vllm", Precision::Fp8, false, true), None);
        // gpt-oss on Hopper: BF16 KV; on Blackwell: FP8.
        assert_eq!(
            kv_when_unstated("tensorrt-llm", Precision::Fp8, true, false),
            None
        );
        assert_eq!(
            kv_when_unstated("tensorrt-llm", Precision::Fp4, true, true),
            Some(KvPrecision::Fp8)
        );
    }
}
