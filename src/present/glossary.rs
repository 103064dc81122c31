//! The glossary: one short definition for every metric and technique the page names, in one
//! table, so a tooltip, a control's hint and the glossary panel all say the same thing.
//!
//! Each definition is worded to match the model's formulas (`shared/spec/MODEL.md`, cited per
//! entry) rather than a generic textbook phrasing: where the model computes a mean, the text says
//! mean; where only the simulator has tails, it says so. Pure data: the page decides how to
//! show it (the `ui` module renders `Term`s and the glossary panel from this table).

/// One glossary entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// Stable kebab-case id (`data-term` on the page, and what UI code looks up).
    pub id: &'static str,
    /// The name as the page writes it.
    pub name: &'static str,
    /// One or two sentences; plain text (never HTML).
    pub definition: &'static str,
}

/// Time to first token (MODEL.md §4.2: queueing for a slot + own prefill, chunked).
pub const TTFT: Term = Term {
    id: "ttft",
    name: "TTFT",
    definition: "Time to first token: from sending a request to receiving its first output token, including waiting for a slot and the request's own prefill.",
};

/// Time per output token (MODEL.md §4.2: decode step time ÷ tokens per step, incl. prefill stalls).
pub const TPOT: Term = Term {
    id: "tpot",
    name: "TPOT",
    definition: "Time per output token: mean time between consecutive output tokens of a request, excluding the first; it includes stalls while other requests prefill. Tokens/s per user = 1 ÷ TPOT.",
};

/// Inter-token latency (MODEL.md §6.3: per-token gaps τ_j − τ_(j−1), percentiles over tokens).
pub const ITL: Term = Term {
    id: "itl",
    name: "ITL",
    definition: "Inter-token latency: each gap between two consecutive tokens of one request. Its mean is TPOT; its P99 (over tokens, from the simulator) exposes the stalls a long prefill causes.",
};

/// Tail percentiles (MODEL.md §6.3; analytic means vs simulated tails, §4.4).
pub const PERCENTILES: Term = Term {
    id: "percentiles",
    name: "P95/P99",
    definition: "The latency that 95 % (99 %) of requests beat. Tails come from the discrete-event simulator; the analytic numbers are means.",
};

/// Output throughput (MODEL.md §4.2: closed loop, X_out = C × L_out ÷ request time).
pub const THROUGHPUT: Term = Term {
    id: "throughput",
    name: "Throughput",
    definition: "Output tokens generated per second, summed over every request in flight (closed loop at the batch size); the chart plots it per GPU.",
};

/// Interactivity (MODEL.md §4.5: the Pareto chart's x axis).
pub const INTERACTIVITY: Term = Term {
    id: "interactivity",
    name: "Interactivity",
    definition: "Tokens per second one user sees while their answer streams, 1 ÷ TPOT: the chart's x axis. Larger batches raise throughput and lower interactivity.",
};

/// The knee (`model::pareto::knee`): the one definition the chart, its label, the CSV and the
/// CLI's `KNEE` note use.
pub const KNEE: Term = Term {
    id: "knee",
    name: "Knee",
    definition: "The smallest batch size on the Pareto frontier that reaches 80 % of the curve's peak output tokens/s per GPU. Beyond it the last fifth of the throughput costs the most interactivity.",
};

/// End-to-end latency (MODEL.md §6.3: TTFT + (L_out − 1) × TPOT).
pub const E2E: Term = Term {
    id: "e2e",
    name: "E2E",
    definition: "End-to-end latency: from sending a request to its last output token, TTFT plus (output tokens − 1) × TPOT.",
};

/// Static batching (MODEL.md §4.1), the baseline of the technique ladder.
pub const STATIC_BATCHING: Term = Term {
    id: "static-batching",
    name: "Static batching",
    definition: "Request-level batching: wait for a batch, pad every prompt to the longest, decode until the longest output, release the batch together. Short requests idle in their slots, so varied lengths waste most of the GPU.",
};

/// Chunked prefill (MODEL.md §4.3, Sarathi-Serve).
pub const CHUNKED_PREFILL: Term = Term {
    id: "chunked-prefill",
    name: "Chunked prefill",
    definition: "Long prompts are split into chunks so that each iteration carries at most the token budget (running decodes first, then prompt chunks, as in Sarathi-Serve): one long prompt no longer freezes every stream, at a small cost in TTFT.",
};

/// Continuous batching (MODEL.md §4.2 vs static batching §4.1; Orca).
pub const CONTINUOUS_BATCHING: Term = Term {
    id: "continuous-batching",
    name: "Continuous batching",
    definition: "Iteration-level scheduling: requests join and leave the running batch at every decode step, instead of the whole batch waiting for its longest request (static batching), so no slot idles on padding.",
};

/// Paged attention (MODEL.md §1.4: paged vs contiguous KV allocation; vLLM).
pub const PAGED_ATTENTION: Term = Term {
    id: "paged-attention",
    name: "Paged attention",
    definition: "The KV cache is stored in blocks of 16 tokens allocated as a sequence grows, instead of reserving the maximum length per request up front; less than 4 % is wasted, so several times more requests fit.",
};

/// Speculative decoding (MODEL.md §5: E_tok = (1 − α^(γ+1)) ÷ (1 − α)).
pub const SPECULATIVE_DECODING: Term = Term {
    id: "speculative-decoding",
    name: "Speculative decoding",
    definition: "A cheap drafter (small model, EAGLE head or MTP) proposes γ tokens and the model verifies them in one step; with acceptance α a step yields (1 − α^(γ+1)) ÷ (1 − α) tokens. The gain shrinks as the batch grows.",
};

/// Prefix caching (MODEL.md §1.5: P_eff = (1 − r_hit) × P).
pub const PREFIX_CACHING: Term = Term {
    id: "prefix-caching",
    name: "Prefix caching",
    definition: "Reusing the KV cache of a prompt prefix already seen (a shared system prompt or document): with hit rate h only (1 − h) of the prompt is prefilled.",
};

/// Cost per million tokens (MODEL.md §7: $/hour ÷ millions of tokens per hour).
pub const USD_PER_M_TOKENS: Term = Term {
    id: "usd-per-m-tokens",
    name: "$/M tokens",
    definition: "Dollars per million tokens: (GPUs × $/GPU-hour) ÷ (output tok/s × 3600) × 10⁶. Idle capacity still bills. 8×H100 at $25/hour doing 6,000 tok/s is $1.16 per M output tokens.",
};

/// Disaggregated prefill and decode (MODEL.md §4.4; DistServe, Splitwise).
pub const DISAGGREGATION: Term = Term {
    id: "disaggregation",
    name: "Disaggregated serving",
    definition: "Prefill and decode run on separate GPU pools: prompts never stall the decoding streams, and each pool gets its own parallelism. The prompt's KV cache is copied from the prefill to the decode pool, which adds to TTFT.",
};

/// Tuned vs stock deployment (issue 25; `shared/data/README.md`, column `deployment`).
pub const DEPLOYMENT: Term = Term {
    id: "tuned-vs-stock",
    name: "Tuned vs stock",
    definition: "Tuned: a vendor's or benchmark's performance-tuned run. Stock: the engine at its defaults, what most teams run on day one, often 1.3-2x slower. Each has its own fitted engine profile.",
};

/// Every entry, in the order the glossary panel lists them.
pub const TERMS: [Term; 17] = [
    THROUGHPUT,
    INTERACTIVITY,
    KNEE,
    TTFT,
    TPOT,
    ITL,
    E2E,
    PERCENTILES,
    USD_PER_M_TOKENS,
    STATIC_BATCHING,
    CONTINUOUS_BATCHING,
    PAGED_ATTENTION,
    CHUNKED_PREFILL,
    SPECULATIVE_DECODING,
    PREFIX_CACHING,
    DISAGGREGATION,
    DEPLOYMENT,
];

/// The entry with this id.
pub fn term(id: &str) -> Option<&'static Term> {
    TERMS.iter().find(|term| term.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_definitions_are_short_plain_text() {
        let mut ids: Vec<&str> = TERMS.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), TERMS.len(), "unique ids");
        for t in TERMS {
            assert!(
                t.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                t.id
            );
            assert!(!t.name.is_empty());
            assert!(
                (40..=260).contains(&t.definition.chars().count()),
                "{}: {} chars",
                t.id,
                t.definition.chars().count()
            );
            assert!(!t.definition.contains('<'), "{} is plain text", t.id);
            assert_eq!(term(t.id), Some(&t));
        }
        assert_eq!(term("nope"), None);
    }

    #[test]
    fn the_cost_definition_reproduces_the_worked_example() {
        // (GPUs × $/GPU-hour) ÷ (output tok/s × 3600) × 10⁶ with 8 × $3.125 = $25/hour, 6,000 tok/s.
        let usd_per_m = 25.0 / (6_000.0 * 3_600.0) * 1e6;
        assert_eq!(format!("{usd_per_m:.2}"), "1.16");
        assert!(USD_PER_M_TOKENS.definition.contains("$1.16"));
    }

    #[test]
    fn the_knee_definition_names_the_model_threshold() {
        let percent = format!("{:.0} %", crate::model::pareto::KNEE_SHARE_OF_PEAK * 100.0);
        assert!(KNEE.definition.contains(&percent), "{percent}");
    }

    #[test]
    fn the_speculative_decoding_definition_matches_the_model_formula() {
        // MODEL.md §5: α = 0.8, γ = 4 → 3.36 tokens per step.
        let (alpha, gamma) = (0.8_f64, 4);
        let tokens = (1.0 - alpha.powi(gamma + 1)) / (1.0 - alpha);
        assert_eq!(format!("{tokens:.2}"), "3.36");
        assert!(SPECULATIVE_DECODING
            .definition
            .contains("(1 − α^(γ+1)) ÷ (1 − α)"));
    }
}
