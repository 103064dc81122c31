//! Snapshots of the CLI's output on the workload presets and a handful of representative
//! scenarios, so that behaviour never changes unnoticed: a move or a refactor must leave these
//! outputs byte-identical (issue 29: "the CLI's outputs on the presets are byte-identical before
//! and after"), and a change that means to move them shows up as a diff of `tests/snapshots/`.
//!
//! Each snapshot is the command line, then what `servecost::cli::run` prints on stdout (and on
//! stderr, if anything), run through the library entry rather than a process. A refit of the
//! engine profiles or a deliberate change updates them all in one command, then the diff is
//! read and committed with the change:
//!
//! ```text
//! UPDATE_EXPECT=1 cargo test --test presets
//! ```
//!
//! Nothing here may depend on the machine: the CLI reads no clock and no environment, the
//! simulator takes an explicit seed, and the runs are kept small so the file stays fast.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use expect_test::{expect_file, ExpectFile};

/// Run `servecost ARGS` through `cli::run`, require exit status 0, and compare the command
/// line and its output with `snapshot`.
fn check(args: &str, snapshot: ExpectFile) {
    let argv: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    let outcome = servecost::cli::run(&argv);
    assert_eq!(
        outcome.code, 0,
        "servecost {args} exited {}: {}",
        outcome.code, outcome.stderr
    );
    let mut text = format!("$ servecost {args}\n\n{}", outcome.stdout);
    if !outcome.stderr.is_empty() {
        text.push_str("\n--- stderr\n");
        text.push_str(&outcome.stderr);
    }
    snapshot.assert_eq(&text);
}

/// Llama-3.1-70B in FP8 on one 8 × H100 SXM server at C = 64, with `--workload PRESET`.
fn preset(workload: &str) -> String {
    format!(
        "estimate --model llama-3.1-70b --gpu h100-sxm --gpus 8 --tp 8 --precision fp8 \
         --workload {workload} --concurrency 64 --usd-per-gpu-hour 3.125"
    )
}

#[test]
fn preset_chat() {
    check(&preset("chat"), expect_file!["snapshots/preset_chat.txt"]);
}

#[test]
fn preset_code() {
    check(&preset("code"), expect_file!["snapshots/preset_code.txt"]);
}

#[test]
fn preset_summarize() {
    check(
        &preset("summarize"),
        expect_file!["snapshots/preset_summarize.txt"],
    );
}

#[test]
fn preset_rag() {
    check(&preset("rag"), expect_file!["snapshots/preset_rag.txt"]);
}

#[test]
fn preset_reasoning() {
    check(
        &preset("reasoning"),
        expect_file!["snapshots/preset_reasoning.txt"],
    );
}

/// A dense model on H100, every field of the operating point at full precision (JSON).
#[test]
fn dense_h100_json() {
    check(
        "estimate --model llama-3.1-8b --gpu h100-sxm --precision bf16 --workload chat \
         --concurrency 32 --price-tier typical --json",
        expect_file!["snapshots/dense_h100_json.txt"],
    );
}

/// The same dense model's throughput–latency curve, as the page's CSV download.
#[test]
fn dense_h100_sweep_csv() {
    check(
        "sweep --model llama-3.1-8b --gpu h100-sxm --precision bf16 --workload chat \
         --price-tier typical --csv",
        expect_file!["snapshots/dense_h100_sweep_csv.txt"],
    );
}

/// An MoE on B200 with expert parallelism, at the largest concurrency that fits.
#[test]
fn moe_b200_ep() {
    check(
        "estimate --model deepseek-v3 --gpu b200 --gpus 8 --tp 8 --ep 8 --precision fp8 \
         --workload chat --max-throughput --price-tier typical",
        expect_file!["snapshots/moe_b200_ep.txt"],
    );
}

/// An AMD GPU (the ROCm stack's own profile) with SLO tails from the analytic model.
#[test]
fn amd_mi300x() {
    check(
        "estimate --model llama-3.1-70b --gpu mi300x --gpus 1 --precision fp8 --workload chat \
         --slo-ttft-ms 2000 --slo-tpot-ms 60 --slo-method analytic --price-tier typical",
        expect_file!["snapshots/amd_mi300x.txt"],
    );
}

/// A stock deployment (engine defaults, `vllm serve` without flags).
#[test]
fn stock_vllm() {
    check(
        "estimate --model qwen3-32b --gpu h200-sxm --gpus 2 --precision bf16 --engine vllm \
         --deployment stock --workload code --concurrency 48 --price-tier typical",
        expect_file!["snapshots/stock_vllm.txt"],
    );
}

/// The agentic-coding session workload: agents at the tier, energy and economics.
#[test]
fn agentic_coding() {
    check(
        "estimate --workload agentic-coding --model llama-3.3-70b --gpu h100-sxm --gpus 8 \
         --tp 8 --tok-s-per-user 30 --slo-ttft-ms 2000",
        expect_file!["snapshots/agentic_coding.txt"],
    );
}

/// The cheapest deployment meeting SLOs for a traffic.
#[test]
fn plan_chat() {
    check(
        "plan --model llama-3.1-8b --workload chat --traffic-tok-s 30000 --slo-ttft-ms 1500 \
         --slo-tpot-ms 50 --gpus-allowed h100-sxm,l40s --top 3",
        expect_file!["snapshots/plan_chat.txt"],
    );
}

/// The hardware leaderboard at 50 tok/s per user.
#[test]
fn leaderboard_chat() {
    check(
        "leaderboard --model llama-3.1-70b --workload chat --tok-s-per-user 50 \
         --gpus-allowed h100-sxm,h200-sxm,b200,mi300x",
        expect_file!["snapshots/leaderboard_chat.txt"],
    );
}

/// The discrete-event simulator with a fixed seed and a small run.
#[test]
fn simulate_seeded() {
    check(
        "simulate --model llama-3.1-8b --gpu h100-sxm --precision bf16 --workload chat \
         --concurrency 32 --requests 800 --seed 29 --slo-ttft-ms 500 --slo-tpot-ms 40",
        expect_file!["snapshots/simulate_seeded.txt"],
    );
}
