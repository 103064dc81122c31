//! One knob control's identity: its id (the scenario field's kebab-case name, also the element
//! id and the CLI flag), label, how its text is read, and, for the efficiency knobs, the default
//! and plausible range for a GPU family (`model::efficiency`). The state the knobs hold is
//! `knobs.rs`.

use crate::model::efficiency::{knob_ranges, Efficiency};

/// One control of the technique, workload-shape and advanced panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Knob {
    Batching,
    KvAlloc,
    ChunkTokens,
    SpecDecode,
    SpecAccept,
    SpecLen,
    SpecDraftCost,
    PrefixHit,
    LengthDist,
    InputSigma,
    OutputSigma,
    MaxNumSeqs,
    EtaMem,
    EtaCompute,
    BlendP,
    LayerOverheadUs,
    StepOverheadMs,
    AllreduceLatencyUs,
    LinkEfficiency,
    MemUtilization,
    ReservedGb,
    DequantFactor,
    CausalFactor,
    MoeImbalance,
}

/// How a knob's text becomes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnobKind {
    /// A `<select>`: the text is the value.
    Choice,
    /// A number that must be given.
    Number,
    /// A number, or empty for the default.
    Optional,
}

impl Knob {
    pub const ALL: [Knob; 24] = [
        Knob::Batching,
        Knob::KvAlloc,
        Knob::ChunkTokens,
        Knob::SpecDecode,
        Knob::SpecAccept,
        Knob::SpecLen,
        Knob::SpecDraftCost,
        Knob::PrefixHit,
        Knob::LengthDist,
        Knob::InputSigma,
        Knob::OutputSigma,
        Knob::MaxNumSeqs,
        Knob::EtaMem,
        Knob::EtaCompute,
        Knob::BlendP,
        Knob::LayerOverheadUs,
        Knob::StepOverheadMs,
        Knob::AllreduceLatencyUs,
        Knob::LinkEfficiency,
        Knob::MemUtilization,
        Knob::ReservedGb,
        Knob::DequantFactor,
        Knob::CausalFactor,
        Knob::MoeImbalance,
    ];

    /// The efficiency knobs, in the advanced panel's order.
    pub const EFFICIENCY: [Knob; 12] = [
        Knob::EtaMem,
        Knob::EtaCompute,
        Knob::BlendP,
        Knob::LayerOverheadUs,
        Knob::StepOverheadMs,
        Knob::AllreduceLatencyUs,
        Knob::LinkEfficiency,
        Knob::MemUtilization,
        Knob::ReservedGb,
        Knob::DequantFactor,
        Knob::CausalFactor,
        Knob::MoeImbalance,
    ];

    /// Element id = scenario field name = CLI flag without `--`.
    pub fn id(self) -> &'static str {
        match self {
            Knob::Batching => "batching",
            Knob::KvAlloc => "kv-alloc",
            Knob::ChunkTokens => "chunk-tokens",
            Knob::SpecDecode => "spec-decode",
            Knob::SpecAccept => "spec-accept",
            Knob::SpecLen => "spec-len",
            Knob::SpecDraftCost => "spec-draft-cost",
            Knob::PrefixHit => "prefix-hit",
            Knob::LengthDist => "length-dist",
            Knob::InputSigma => "input-sigma",
            Knob::OutputSigma => "output-sigma",
            Knob::MaxNumSeqs => "max-num-seqs",
            Knob::EtaMem => "eta-mem",
            Knob::EtaCompute => "eta-compute",
            Knob::BlendP => "blend-p",
            Knob::LayerOverheadUs => "layer-overhead-us",
            Knob::StepOverheadMs => "step-overhead-ms",
            Knob::AllreduceLatencyUs => "allreduce-latency-us",
            Knob::LinkEfficiency => "link-efficiency",
            Knob::MemUtilization => "mem-utilization",
            Knob::ReservedGb => "reserved-gb",
            Knob::DequantFactor => "dequant-factor",
            Knob::CausalFactor => "causal-factor",
            Knob::MoeImbalance => "moe-imbalance",
        }
    }

    pub fn from_id(id: &str) -> Option<Knob> {
        Knob::ALL.into_iter().find(|knob| knob.id() == id)
    }

    /// The label the page shows (and error messages start with).
    pub fn label(self) -> &'static str {
        match self {
            Knob::Batching => "Batching",
            Knob::KvAlloc => "KV-cache allocation",
            Knob::ChunkTokens => "Chunked-prefill token budget",
            Knob::SpecDecode => "Speculative decoding",
            Knob::SpecAccept => "Acceptance rate α (0–0.99)",
            Knob::SpecLen => "Draft length γ (tokens)",
            Knob::SpecDraftCost => "Draft cost c (× a target step)",
            Knob::PrefixHit => "Prefix-cache hit rate",
            Knob::LengthDist => "Length distribution",
            Knob::InputSigma => "Input spread σ",
            Knob::OutputSigma => "Output spread σ",
            Knob::MaxNumSeqs => "Max sequences per replica",
            Knob::EtaMem => "Memory-bandwidth efficiency η_m",
            Knob::EtaCompute => "Compute efficiency η_c",
            Knob::BlendP => "Roofline blend exponent p",
            Knob::LayerOverheadUs => "Per-layer overhead (µs)",
            Knob::StepOverheadMs => "Per-step overhead (ms)",
            Knob::AllreduceLatencyUs => "All-reduce latency (µs)",
            Knob::LinkEfficiency => "Link efficiency",
            Knob::MemUtilization => "GPU memory utilization",
            Knob::ReservedGb => "Reserved memory (GB)",
            Knob::DequantFactor => "Dequantization factor",
            Knob::CausalFactor => "Causal attention factor",
            Knob::MoeImbalance => "MoE load imbalance",
        }
    }

    pub fn kind(self) -> KnobKind {
        match self {
            Knob::Batching | Knob::KvAlloc | Knob::SpecDecode | Knob::LengthDist => {
                KnobKind::Choice
            }
            Knob::ChunkTokens
            | Knob::PrefixHit
            | Knob::InputSigma
            | Knob::OutputSigma
            | Knob::MaxNumSeqs => KnobKind::Number,
            _ => KnobKind::Optional,
        }
    }

    /// The `model::efficiency::knob_ranges` name of an efficiency knob.
    fn efficiency_name(self) -> Option<&'static str> {
        Some(match self {
            Knob::EtaMem => "eta_mem",
            Knob::EtaCompute => "eta_compute",
            Knob::BlendP => "blend_p",
            Knob::LayerOverheadUs => "layer_overhead_us",
            Knob::StepOverheadMs => "step_overhead_ms",
            Knob::AllreduceLatencyUs => "allreduce_latency_us",
            Knob::LinkEfficiency => "link_efficiency",
            Knob::MemUtilization => "mem_utilization",
            Knob::ReservedGb => "reserved_gb",
            Knob::DequantFactor => "dequant_factor",
            Knob::CausalFactor => "causal_factor",
            Knob::MoeImbalance => "moe_imbalance",
            _ => return None,
        })
    }

    /// `(default, min, max)` of an efficiency knob for a GPU family's defaults.
    pub fn efficiency_default(self, defaults: &Efficiency) -> Option<(f64, f64, f64)> {
        let name = self.efficiency_name()?;
        knob_ranges(defaults)
            .into_iter()
            .find(|(n, _, _, _)| *n == name)
            .map(|(_, value, min, max)| (value, min, max))
    }

    /// Knobs the ideal-roofline switch overrides (η = 1, p = ∞, no fixed overheads).
    pub fn set_by_ideal_roofline(self) -> bool {
        matches!(
            self,
            Knob::EtaMem
                | Knob::EtaCompute
                | Knob::BlendP
                | Knob::LayerOverheadUs
                | Knob::StepOverheadMs
                | Knob::AllreduceLatencyUs
                | Knob::LinkEfficiency
        )
    }
}
