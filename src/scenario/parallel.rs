//! The parallelism a user gives (TP, attention DP, EP, PP, redundant experts) resolved into the
//! model's `Parallelism` and checked once, each error naming its field (`tp`, `dp-attention`,
//! `ep`, `eplb-redundant-experts`).
//!
//! The engines' conventions (MODEL.md §2.8, `physics::parallelism`): per pipeline stage
//! `TP·DP = moe-TP·EP`. Without `--dp-attention`, EP above TP means attention DP `EP/TP`, so
//! `--tp 1 --ep N` is "DEP N" (TensorRT-LLM's name for attention DP N with EP N; SGLang
//! `--enable-dp-attention --dp N --ep N`; vLLM `--data-parallel-size N --enable-expert-parallel`);
//! EP at or below TP stays inside the TP group, as before. With `--dp-attention` and no EP the
//! experts are tensor-split over the stage's `TP·DP` GPUs (vLLM's default without
//! `--enable-expert-parallel`: "expert layers form a tensor parallel group of size DP × TP").

use super::fields::{DP_ATTENTION, EP, EPLB_REDUNDANT_EXPERTS};
use super::{error, ScenarioError};
use crate::physics::memory::Parallelism;

/// The parallelism fields of a scenario, validated one by one (ranges) but not yet together.
pub(super) struct Request<'a> {
    pub ep: Option<u32>,
    pub dp: Option<u32>,
    pub pp: u32,
    pub redundant_experts: u32,
    pub is_moe: bool,
    /// Routed experts per MoE layer, `E`.
    pub experts: f64,
    pub model_name: &'a str,
}

impl Request<'_> {
    /// The layout at tensor-parallel degree `tp`, or an error naming the field at fault.
    pub(super) fn resolve(&self, tp: u32) -> Result<Parallelism, ScenarioError> {
        let ep = self.ep.unwrap_or(1);
        let dp = match self.dp {
            Some(dp) => dp,
            None if ep > tp => {
                if tp == 0 || !ep.is_multiple_of(tp) {
                    return Err(error(
                        EP.key,
                        format!(
                            "EP {ep} is not a multiple of TP {tp}: above TP, EP = TP × attention DP (TP 1 with EP N is DEP N); set attention DP to split them otherwise"
                        ),
                    ));
                }
                ep / tp
            }
            None => 1,
        };
        if dp > 1 && !self.is_moe {
            return Err(error(
                DP_ATTENTION.key,
                format!(
                    "{} is dense: attention data-parallel ranks only share the MoE layers; for a dense model use replicas (a smaller TP on the same GPUs)",
                    self.model_name
                ),
            ));
        }
        let stage = tp.saturating_mul(dp);
        if ep == 0 || ep > stage || !stage.is_multiple_of(ep) {
            let message = if dp > 1 {
                format!(
                    "expert parallelism {ep} must divide TP × attention DP = {stage} GPUs per stage (TP {tp} × DP {dp})"
                )
            } else {
                format!("expert parallelism {ep} must divide the tensor-parallel group ({tp})")
            };
            return Err(error(EP.key, message));
        }
        let slots = self.experts + f64::from(self.redundant_experts);
        if self.is_moe && f64::from(ep) > slots {
            return Err(error(
                EP.key,
                format!(
                    "EP {ep} exceeds the {slots:.0} expert slots of {}: every EP rank needs at least one expert",
                    self.model_name
                ),
            ));
        }
        if self.redundant_experts > 0 {
            if !self.is_moe {
                return Err(error(
                    EPLB_REDUNDANT_EXPERTS.key,
                    format!(
                        "{} is dense: it has no experts to replicate",
                        self.model_name
                    ),
                ));
            }
            if ep == 1 {
                return Err(error(
                    EPLB_REDUNDANT_EXPERTS.key,
                    "redundant experts balance the load across EP ranks: set EP above 1",
                ));
            }
        }
        Ok(Parallelism {
            tp,
            pp: self.pp,
            ep,
            dp,
        })
    }

    /// The field a "GPUs per replica do not divide the GPU count" error names: attention DP when
    /// given, EP when it implied attention DP, else TP.
    pub(super) fn layout_field(&self, par: Parallelism) -> &'static str {
        match (self.dp, par.dp > 1) {
            (Some(_), _) => DP_ATTENTION.key,
            (None, true) => EP.key,
            (None, false) => super::fields::TP.key,
        }
    }
}

/// "TP 1 × attention DP 8 × PP 1" (attention DP left out when 1, as the model printed before).
pub(super) fn layout_text(par: Parallelism) -> String {
    if par.dp > 1 {
        format!("TP {} × attention DP {} × PP {}", par.tp, par.dp, par.pp)
    } else {
        format!("TP {} × PP {}", par.tp, par.pp)
    }
}
