//! What a simulation reports (MODEL.md §6.5): steady-state throughput, latency percentiles,
//! batch and KV statistics, SLO attainment and goodput, a token ledger for conservation checks,
//! and whether a bound cut the run short.

use super::histogram::LogHistogram;
use super::metrics::{LatencySamples, RequestSlo, WindowTotals};
use super::replica::ReplicaOutcome;
use serde::Serialize;

/// Why a run stopped before serving every request. A truncated run's numbers describe the part
/// that ran; they are an outcome to show, not an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    /// The scheduler-pass budget (`SimConfig::max_events`) ran out.
    EventBudget,
    /// Simulated time reached `SimConfig::horizon_s`.
    Horizon,
    /// The engine could schedule nothing although work was waiting (a guard; not expected).
    Stalled,
}

/// Percentiles of one latency metric, milliseconds (≈1 % relative error, see `histogram`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl LatencySummary {
    pub(crate) fn of(h: &LogHistogram) -> LatencySummary {
        LatencySummary {
            count: h.count(),
            mean_ms: h.mean() * 1e3,
            p50_ms: h.quantile(0.50) * 1e3,
            p90_ms: h.quantile(0.90) * 1e3,
            p95_ms: h.quantile(0.95) * 1e3,
            p99_ms: h.quantile(0.99) * 1e3,
            max_ms: h.max() * 1e3,
        }
    }
}

/// SLO attainment and goodput over the measured requests (MODEL.md §3; DistServe [S10]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SloOutcome {
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    /// Fraction of measured requests with TTFT ≤ `ttft_ms` and TPOT ≤ `tpot_ms`.
    pub attainment: f64,
    /// Requests/s that met the SLO (DistServe's goodput is the largest arrival rate at which
    /// attainment stays above a target; sweep the rate to find it).
    pub goodput_requests_per_s: f64,
    pub goodput_output_tok_s: f64,
}

/// Token bookkeeping over the whole run, all replicas (not only the window). On a run that served
/// every request these identities hold exactly (tests check them):
/// * `emitted_tokens == output_tokens` (every output token is emitted once);
/// * `prefill_tokens_computed == prompt_tokens + recomputed_prompt_tokens + discarded_prefill_tokens`
///   (each prompt is prefilled once, plus what preemption by recomputation makes it redo);
/// * `decode_tokens_computed == output_tokens − completed − recomputed_prompt_tokens + discarded_decode_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct TokenLedger {
    /// `Σ (P − cached)` over completed requests: prompt tokens that needed prefill.
    pub prompt_tokens: u64,
    /// `Σ cached` over completed requests: prompt tokens served by the prefix cache.
    pub cached_prompt_tokens: u64,
    /// `Σ O` over completed requests.
    pub output_tokens: u64,
    /// Output tokens emitted by the engine (every request, finished or not).
    pub emitted_tokens: u64,
    /// Prompt tokens the engine prefilled (chunks summed over iterations; no padding).
    pub prefill_tokens_computed: u64,
    /// Tokens the engine fed through decode steps.
    pub decode_tokens_computed: u64,
    /// Output tokens that a completed request's last attempt re-prefilled as prompt (generated
    /// before its last preemption: "generated tokens become prompt tokens").
    pub recomputed_prompt_tokens: u64,
    /// Prefilled KV thrown away by preemptions.
    pub discarded_prefill_tokens: u64,
    /// Decoded KV thrown away by preemptions.
    pub discarded_decode_tokens: u64,
    /// Static batching's wasted work: prompt padding to the longest prompt plus decode slots of
    /// members that had already finished.
    pub padding_tokens: u64,
}

impl TokenLedger {
    fn add(&mut self, o: &TokenLedger) {
        self.prompt_tokens += o.prompt_tokens;
        self.cached_prompt_tokens += o.cached_prompt_tokens;
        self.output_tokens += o.output_tokens;
        self.emitted_tokens += o.emitted_tokens;
        self.prefill_tokens_computed += o.prefill_tokens_computed;
        self.decode_tokens_computed += o.decode_tokens_computed;
        self.recomputed_prompt_tokens += o.recomputed_prompt_tokens;
        self.discarded_prefill_tokens += o.discarded_prefill_tokens;
        self.discarded_decode_tokens += o.discarded_decode_tokens;
        self.padding_tokens += o.padding_tokens;
    }
}

/// Everything a simulation reports. Throughputs and latencies are over the steady-state window
/// of each replica (see `metrics`); counters (`completed`, `preemptions`, `ledger`) over the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimResult {
    /// Requests in the sample.
    pub requests: u32,
    pub completed: u32,
    /// Requests whose full length could never fit the replica's KV pool.
    pub rejected: u32,
    /// Completed requests inside the measurement windows (the latency samples).
    pub measured: u32,
    /// Replicas that received requests.
    pub busy_replicas: u32,
    /// Simulated time of the longest-running replica.
    pub simulated_s: f64,
    /// Mean measurement window per busy replica.
    pub window_s: f64,
    /// Engine iterations (a macro-step of `k` identical iterations counts `k`).
    pub iterations: u64,
    /// Scheduler passes (a macro-step counts one): the simulator's own work.
    pub events: u64,
    /// Output tokens/s, all replicas: tokens emitted inside the windows over their length.
    pub output_tok_s: f64,
    /// Prompt + output tokens/s, all replicas: output as above plus the prompts (cached or not)
    /// of requests whose first token came inside the windows (MODEL.md §3 `X_tot`).
    pub total_tok_s: f64,
    /// `X / N_gpu` over every GPU of the scenario, idle replicas included (MODEL.md §3).
    pub output_tok_s_per_gpu: f64,
    pub total_tok_s_per_gpu: f64,
    /// Requests completed inside the windows over their length.
    pub requests_per_s: f64,
    /// Requests that arrived inside the windows over their length, all replicas: the run's own
    /// arrival rate where it was measured (`WindowTotals::arrived`; a closed loop's releases).
    /// With bursty arrivals it strays from the offered rate by about `CV/√n` over `n` arrivals,
    /// so whether the engine kept up compares `requests_per_s` with this, not with the offered
    /// rate (`load::LoadPoint::saturated`).
    pub arrivals_per_s: f64,
    pub ttft: LatencySummary,
    /// Per-request TPOT `(e − f)/(O − 1)` (requests with one output token have none).
    pub tpot: LatencySummary,
    /// Token-weighted TPOT `Σ(e − f)/Σ(O − 1)`: the time per output token of a stream, the
    /// quantity the analytic model's TPOT estimates.
    pub tpot_token_mean_ms: f64,
    pub e2e: LatencySummary,
    /// Inter-token latency, token level (per streamed chunk under speculative decoding).
    pub itl: LatencySummary,
    /// Sequences per iteration, time-weighted over busy time.
    pub mean_batch: f64,
    /// Fraction of the window a replica spent running iterations.
    pub busy_fraction: f64,
    /// KV blocks in use over the pool, time-weighted over the window.
    pub kv_utilization_mean: f64,
    pub kv_utilization_peak: f64,
    pub kv_blocks_per_replica: u32,
    pub preemptions: u64,
    pub slo: Option<SloOutcome>,
    pub ledger: TokenLedger,
    /// Fewer than 500 measured requests, or truncated (MODEL.md §6.6 "low confidence").
    pub low_confidence: bool,
    pub truncated: Option<Truncation>,
}

/// Fewest measured requests for a confident steady state (MODEL.md §6.6).
pub const CONFIDENT_MEASURED: u32 = 500;

/// Sum `numerator_r / duration_r` over replicas with a window.
fn rate(windows: &[WindowTotals], numerator: impl Fn(&WindowTotals) -> f64) -> f64 {
    windows
        .iter()
        .filter(|w| w.duration_s > 0.0)
        .map(|w| numerator(w) / w.duration_s)
        .sum()
}

fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator > 0.0 {
        numerator / denominator
    } else {
        0.0
    }
}

/// Combine the replicas' windows, outcomes and the shared samples into the reported result.
pub(crate) fn summarize(
    requests: u32,
    gpus: u32,
    kv_blocks: u32,
    slo: Option<RequestSlo>,
    samples: &LatencySamples,
    windows: &[WindowTotals],
    outcomes: &[ReplicaOutcome],
) -> SimResult {
    let gpus = f64::from(gpus.max(1));
    // Token level: MODEL.md §3's `Σ O_r / window` over completed requests converges to the same
    // value, but over a finite window it misses the tokens that requests still running at the
    // window's end have already produced (a length-biased set), which reads 3–5 % low at C ≥ 128.
    let output_tok_s = rate(windows, |w| w.emitted_tokens as f64);
    let total_tok_s = rate(windows, |w| {
        (w.emitted_tokens + w.served_prompt_tokens) as f64
    });
    let duration: f64 = windows.iter().map(|w| w.duration_s).sum();
    let busy: f64 = windows.iter().map(|w| w.busy_s).sum();
    let measured: u32 = windows.iter().map(|w| w.completed).sum();
    let mut ledger = TokenLedger::default();
    for o in outcomes {
        ledger.add(&o.ledger);
    }
    let truncated = outcomes.iter().find_map(|o| o.truncated);
    let decode_seconds: f64 = windows.iter().map(|w| w.decode_seconds).sum();
    let decode_tokens: u64 = windows.iter().map(|w| w.decode_tokens).sum();
    let block_seconds: f64 = windows.iter().map(|w| w.block_seconds).sum();
    let peak_blocks = windows.iter().map(|w| w.peak_blocks).max().unwrap_or(0);
    SimResult {
        requests,
        completed: outcomes.iter().map(|o| o.completed).sum(),
        rejected: outcomes.iter().map(|o| o.rejected).sum(),
        measured,
        busy_replicas: u32::try_from(outcomes.len()).unwrap_or(u32::MAX),
        simulated_s: outcomes.iter().map(|o| o.clock_s).fold(0.0, f64::max),
        window_s: ratio(duration, windows.len() as f64),
        iterations: outcomes.iter().map(|o| o.iterations).sum(),
        events: outcomes.iter().map(|o| o.events).sum(),
        output_tok_s,
        total_tok_s,
        output_tok_s_per_gpu: output_tok_s / gpus,
        total_tok_s_per_gpu: total_tok_s / gpus,
        requests_per_s: rate(windows, |w| f64::from(w.completed)),
        arrivals_per_s: rate(windows, |w| f64::from(w.arrived)),
        ttft: LatencySummary::of(&samples.ttft),
        tpot: LatencySummary::of(&samples.tpot),
        tpot_token_mean_ms: ratio(decode_seconds, decode_tokens as f64) * 1e3,
        e2e: LatencySummary::of(&samples.e2e),
        itl: LatencySummary::of(&samples.itl),
        mean_batch: ratio(windows.iter().map(|w| w.batch_seconds).sum(), busy),
        busy_fraction: ratio(busy, duration),
        kv_utilization_mean: ratio(block_seconds, duration * f64::from(kv_blocks)),
        kv_utilization_peak: ratio(f64::from(peak_blocks), f64::from(kv_blocks)),
        kv_blocks_per_replica: kv_blocks,
        preemptions: outcomes.iter().map(|o| o.preemptions).sum(),
        slo: slo.map(|slo| SloOutcome {
            ttft_ms: slo.ttft_ms,
            tpot_ms: slo.tpot_ms,
            attainment: ratio(
                f64::from(windows.iter().map(|w| w.slo_met).sum::<u32>()),
                f64::from(measured),
            ),
            goodput_requests_per_s: rate(windows, |w| f64::from(w.slo_met)),
            goodput_output_tok_s: rate(windows, |w| w.slo_met_output_tokens as f64),
        }),
        ledger,
        low_confidence: measured < CONFIDENT_MEASURED || truncated.is_some(),
        truncated,
    }
}
