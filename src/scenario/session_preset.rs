//! The named session workloads (`--workload agentic-coding`, `chat-multi-turn`; issue 27 §1):
//! input vocabulary, like the single-request presets of the field table. Applying one sets the
//! session fields of a `ScenarioInput`; `model::sessions` evaluates the sessions they describe.

use super::fields::{AGENTIC_CODING_WORKLOAD, CHAT_MULTI_TURN_WORKLOAD};
use super::{LengthDist, ScenarioInput};
use crate::choice::{choices, Choice};
use serde::Serialize;

/// The named session workloads (`--workload`), with their sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SessionPreset {
    /// Coding agents: AgentPerf / InferenceX AgentX-like shapes.
    AgenticCoding,
    /// A chat conversation of a few turns, a person reading and typing between them.
    ChatMultiTurn,
}

/// A preset's numbers: `(first prompt, prompt σ, output per turn, output σ, turns, tool-result
/// tokens, tool seconds)`.
type PresetNumbers = (f64, f64, f64, f64, f64, f64, f64);

// The ids are the `#workload` values, as the field table spells them.
choices!(SessionPreset {
    SessionPreset::AgenticCoding => AGENTIC_CODING_WORKLOAD, "Agentic coding";
    SessionPreset::ChatMultiTurn => CHAT_MULTI_TURN_WORKLOAD, "Chat, multi-turn";
});

impl SessionPreset {
    /// Where the shape comes from.
    pub fn source(self) -> &'static str {
        match self {
            SessionPreset::AgenticCoding => {
                "AgentPerf (Artificial Analysis) and SemiAnalysis InferenceX AgentX-like shapes: \
                 per-turn inputs ~1k-131k tokens with mean ~27k, outputs median ~150 and P95 ~2k \
                 tokens, ~1 s tool delay between turns; measured agentic traces show prefix-cache \
                 hit rates ~0.9 and input:output ~130:1. Here: 8k-token first prompt, 20 turns, \
                 1.5k tool-result tokens per turn (mean context ~27k, ideal hit ~0.93), outputs \
                 lognormal median 150 / P95 2k (mean 519, so input:output ~52:1)"
            }
            SessionPreset::ChatMultiTurn => {
                "Azure LLM conversation trace lengths per turn (MODEL.md §6.4, the chat preset); \
                 3 turns (assumption: LMSYS-Chat-1M averages 2.0 turns per conversation, \
                 Zheng et al. 2023), a 100-token user message and 20 s of reading and typing \
                 between turns (assumptions)"
            }
        }
    }

    fn numbers(self) -> PresetNumbers {
        match self {
            // Output lognormal with median 150 and P95 2000: σ = ln(2000/150)/1.645 = 1.575,
            // mean 150·exp(σ²/2) = 519.
            SessionPreset::AgenticCoding => (8000.0, 0.5, 519.0, 1.575, 20.0, 1500.0, 1.0),
            SessionPreset::ChatMultiTurn => (1155.0, 0.99, 211.0, 0.86, 3.0, 100.0, 20.0),
        }
    }

    /// An id of `ALL`, blanks ignored, case kept.
    pub fn parse(text: &str) -> Option<SessionPreset> {
        SessionPreset::parse_exact(text.trim())
    }

    /// Set the session fields (and the first prompt and output per turn) of `input`.
    pub fn apply(self, input: &mut ScenarioInput) {
        let (prompt, prompt_sigma, output, output_sigma, turns, tool_tokens, tool_s) =
            self.numbers();
        input.input_len = prompt;
        input.input_sigma = prompt_sigma;
        input.output_len = output;
        input.output_sigma = output_sigma;
        input.length_dist = LengthDist::Lognormal;
        input.session_turns = Some(turns);
        input.session_tool_tokens = Some(tool_tokens);
        input.session_tool_s = Some(tool_s);
    }

    /// The preset whose numbers `input` holds, if any.
    pub fn of_input(input: &ScenarioInput) -> Option<SessionPreset> {
        Self::ALL.iter().copied().find(|preset| {
            let mut expected = input.clone();
            preset.apply(&mut expected);
            expected == *input
        })
    }
}
