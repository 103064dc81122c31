//! Disaggregated serving's two pools (issue 14, MODEL.md §4.4): how a `serving = disaggregated`
//! input becomes a decode-pool `Scenario` carrying its prefill pool and the KV link between them.
//!
//! Each pool is an ordinary aggregated scenario validated through the same door (its own GPU
//! count, TP and EP; attention DP follows EP/TP as in any scenario), so both share the step-time
//! physics with everything else. The returned scenario *is* the decode pool (its replicas, KV
//! capacity and engine limit bound the requests in flight); `pools` holds the prefill pool.
//!
//! **The split.** `--prefill-gpus`/`--decode-gpus` fix it; one of them leaves the other the
//! rest of `--gpus` (the total of both pools). With neither, every split of `--gpus` is tried
//! and, evaluated at the scenario's own concurrency, the one with the highest throughput whose
//! prefill pool stays within `AUTO_SPLIT_PREFILL_CEILING` is kept (issue 26 §5); when none
//! does, the one with the highest system rate at the pools' capacities, `min(X_p, X_d)`
//! (`model::disagg::pool_capacities`): DistServe's placement rule (Zhong et al., OSDI
//! '24, §4: choose the prefill and decode instance counts that maximise per-GPU goodput; without
//! an SLO, goodput is the throughput) and Splitwise's pool sizing (Patel et al., ISCA '24, §5)
//! at one operating point, the capacity. `plan --serving` searches splits against the SLO itself.
//!
//! **The link.** The prompt's KV moves from the prefill GPUs to the decode GPUs over NVLink when
//! both pools fit one scale-up domain (`physics::parallelism::scale_up_domain`: 8 for an HGX
//! board, 72 for NVL72), else over the network at the per-GPU NIC rate
//! (`physics::parallelism::network_gb_s`: 400 Gb/s ≈ 50 GB/s, MODEL.md §4.4), each scaled by the
//! link efficiency knob like the step model's collectives.

use super::fields::{self, Field};
use super::{error, Batching, Scenario, ScenarioError, ScenarioInput};
use crate::choice::choices;
use crate::model::disagg::pool_capacities;
use crate::physics::parallelism::{network_gb_s, scale_up_domain};
use crate::units::{BytesPerSecond, Seconds};
use std::sync::Arc;

/// One pool for both phases, or a prefill and a decode pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    Aggregated,
    Disaggregated,
}

choices!(Serving {
    Serving::Aggregated => "aggregated", "Aggregated (one pool)";
    Serving::Disaggregated => "disaggregated", "Disaggregated (prefill + decode pools)";
}
    /// Blank also reads as aggregated.
    fn parse(text: &str) -> Option<Serving> {
        match text.trim() {
            "" => Some(Serving::Aggregated),
            text => crate::choice::parse_id(text),
        }
    }
);

/// Fixed set-up time of one KV hand-off over NVLink (a copy engine's launch and the block-list
/// exchange between the two engines): an assumption of 50 µs, not fitted.
pub const NVLINK_TRANSFER_LATENCY_MS: f64 = 0.05;
/// Fixed set-up time of one KV hand-off over the network: RDMA memory registration lookups and
/// the engines' handshake (Mooncake Transfer Engine, NIXL), an assumption of 0.5 ms, not fitted.
pub const NETWORK_TRANSFER_LATENCY_MS: f64 = 0.5;

/// How the prompt's KV reaches the decode pool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KvLink {
    /// Per GPU, one direction, after the link efficiency.
    pub bandwidth: BytesPerSecond,
    pub latency: Seconds,
    /// Both pools inside one scale-up (NVLink) domain.
    pub nvlink: bool,
}

/// The prefill pool and the link of a disaggregated scenario (the scenario is the decode pool).
#[derive(Debug, Clone, PartialEq)]
pub struct Pools {
    pub prefill: Scenario,
    pub link: KvLink,
    /// The split was chosen by the model (no pool GPU count given).
    pub auto_split: bool,
}

impl Scenario {
    /// GPUs of the whole deployment: both pools when disaggregated.
    pub fn total_gpus(&self) -> u32 {
        self.gpu_count.saturating_add(
            self.pools
                .as_ref()
                .map_or(0, |pools| pools.prefill.gpu_count),
        )
    }
}

/// `None` for aggregated serving (the caller validates as always); else the disaggregated
/// scenario or the error naming the field.
pub(super) fn disaggregated(input: &ScenarioInput) -> Option<Result<Scenario, ScenarioError>> {
    match input.serving {
        Serving::Aggregated => None,
        Serving::Disaggregated => Some(build(input)),
    }
}

/// The fields a pool's own error is renamed to: `gpus`, `tp`, `ep` and `dp-attention` of a
/// pool are its `*-gpus`, `*-tp`, `*-ep`.
struct PoolFields {
    gpus: &'static Field,
    tp: &'static Field,
    ep: &'static Field,
}

const PREFILL: PoolFields = PoolFields {
    gpus: &fields::PREFILL_GPUS,
    tp: &fields::PREFILL_TP,
    ep: &fields::PREFILL_EP,
};
const DECODE: PoolFields = PoolFields {
    gpus: &fields::DECODE_GPUS,
    tp: &fields::DECODE_TP,
    ep: &fields::DECODE_EP,
};

fn pool(
    input: &ScenarioInput,
    gpus: u32,
    tp: Option<f64>,
    ep: Option<f64>,
    names: &PoolFields,
) -> Result<Scenario, ScenarioError> {
    let pool_input = ScenarioInput {
        serving: Serving::Aggregated,
        gpu_count: f64::from(gpus),
        tp,
        ep,
        dp_attention: None,
        prefill_gpus: None,
        prefill_tp: None,
        prefill_ep: None,
        decode_gpus: None,
        decode_tp: None,
        decode_ep: None,
        ..input.clone()
    };
    Scenario::try_from(pool_input).map_err(|e| {
        let field = match e.field.as_str() {
            f if f == fields::GPUS.key => names.gpus.key,
            // An automatic TP's error is the GPU count's, the field the user typed (issue 26
            // §5: 3 prefill GPUs are not "Prefill pool TP"'s fault when TP was left to auto).
            f if f == fields::TP.key && tp.is_none() => names.gpus.key,
            f if f == fields::TP.key => names.tp.key,
            f if f == fields::EP.key || f == fields::DP_ATTENTION.key => names.ep.key,
            _ => return e,
        };
        error(field, e.message)
    })
}

/// The busiest the prefill pool may be at the scenario's concurrency for the automatic split
/// (issue 26 §5): the plan's default utilization ceiling (`decide::plan::DEFAULT_MAX_UTILIZATION`).
/// The prefill pool is a queue in front of the decode pool whose wait, hence TTFT, grows as
/// ρ/(1−ρ) (`model::disagg`): DistServe sizes the prefill instances so that their queueing
/// stays within the TTFT SLO (Zhong et al., OSDI '24, §3.1, §4) and Splitwise keeps the prompt
/// pool from becoming the bottleneck (Patel et al., ISCA '24, §5). Maximising the pools'
/// capacities alone chose a 4P + 4D split whose prefill pool ran 98 % busy with a 7 s queue at
/// 256 in flight.
pub const AUTO_SPLIT_PREFILL_CEILING: f64 = 0.8;

fn optional_whole(field: &Field, value: Option<f64>) -> Result<Option<u32>, ScenarioError> {
    value.map(|v| field.whole(v)).transpose()
}

fn build(input: &ScenarioInput) -> Result<Scenario, ScenarioError> {
    if input.batching == Batching::Static {
        return Err(error(
            fields::SERVING.key,
            "disaggregated serving runs continuous batching in both pools; set batching to continuous",
        ));
    }
    let total = fields::GPUS.whole(input.gpu_count)?;
    let prefill_gpus = optional_whole(&fields::PREFILL_GPUS, input.prefill_gpus)?;
    let decode_gpus = optional_whole(&fields::DECODE_GPUS, input.decode_gpus)?;
    let rest = |given: u32, field: &Field| {
        total.checked_sub(given).filter(|n| *n >= 1).ok_or_else(|| {
            error(
                field.key,
                format!("leaves no GPU for the other pool of the {total} GPUs in all (--gpus)"),
            )
        })
    };
    let splits: Vec<(u32, u32)> = match (prefill_gpus, decode_gpus) {
        (Some(p), Some(d)) => vec![(p, d)],
        (Some(p), None) => vec![(p, rest(p, &fields::PREFILL_GPUS)?)],
        (None, Some(d)) => vec![(rest(d, &fields::DECODE_GPUS)?, d)],
        (None, None) => (1..total).map(|p| (p, total - p)).collect(),
    };
    let auto_split = splits.len() > 1;
    if splits.is_empty() {
        return Err(error(
            fields::GPUS.key,
            "disaggregated serving needs at least 2 GPUs: one prefill and one decode pool",
        ));
    }
    let mut fitting: Vec<(f64, Scenario, Scenario)> = Vec::new();
    let mut last_error = None;
    for (p, d) in splits {
        let built =
            pool(input, p, input.prefill_tp, input.prefill_ep, &PREFILL).and_then(|prefill| {
                pool(input, d, input.decode_tp, input.decode_ep, &DECODE)
                    .map(|decode| (prefill, decode))
            });
        match built {
            Ok((prefill, decode)) => {
                let (x_p, x_d) = pool_capacities(&prefill, &decode);
                fitting.push((x_p.min(x_d), prefill, decode));
            }
            Err(e) => last_error = Some((p, d, e)),
        }
    }
    if fitting.is_empty() {
        return Err(match (auto_split, last_error) {
            (false, Some((_, _, e))) => e,
            (_, last) => error(
                fields::GPUS.key,
                format!(
                    "no split of {total} GPUs into a prefill and a decode pool fits{}",
                    last.map(|(p, d, e)| format!(
                        " (the last split tried, {p} prefill + {d} decode GPUs: {})",
                        e.message.trim_end_matches('.')
                    ))
                    .unwrap_or_default()
                ),
            ),
        });
    }
    let candidates: Vec<(f64, Scenario)> = fitting
        .into_iter()
        .map(|(rate, prefill, decode)| (rate, assemble(input, prefill, decode, auto_split)))
        .collect();
    if !auto_split {
        return candidates
            .into_iter()
            .next()
            .map(|(_, s)| s)
            .ok_or_else(|| error(fields::GPUS.key, "no split of the GPUs fits"));
    }
    // At the scenario's own concurrency, the split with the highest throughput whose prefill
    // pool stays within the ceiling (issue 26 §5); failing that, the old rule: the highest rate
    // at both pools' capacity.
    let at_concurrency = |s: &Scenario| crate::model::disagg::evaluate_disaggregated(s);
    let balanced = candidates
        .iter()
        .map(|(_, s)| (at_concurrency(s), s))
        .filter(|(p, _)| {
            p.fits
                && p.disagg
                    .is_some_and(|d| d.prefill_utilization <= AUTO_SPLIT_PREFILL_CEILING)
        })
        .max_by(|a, b| a.0.output_tok_s.total_cmp(&b.0.output_tok_s))
        .map(|(_, s)| s.clone());
    let (mut chosen, rule) = match balanced {
        Some(s) => (
            s,
            format!(
                "the split with the highest throughput at {} in flight whose prefill pool is at most {:.0} % busy there",
                input.concurrency,
                AUTO_SPLIT_PREFILL_CEILING * 100.0
            ),
        ),
        None => (
            candidates
                .into_iter()
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, s)| s)
                .ok_or_else(|| error(fields::GPUS.key, "no split of the GPUs fits"))?,
            format!(
                "the split with the highest throughput at both pools' capacity (none keeps the prefill pool at most {:.0} % busy at {} in flight)",
                AUTO_SPLIT_PREFILL_CEILING * 100.0,
                input.concurrency
            ),
        ),
    };
    let prefill_gpus = chosen.pools.as_deref().map_or(0, |p| p.prefill.gpu_count);
    chosen.warnings.push(format!(
        "pools not given: chose {prefill_gpus} prefill + {} decode GPUs of {total}, {rule}",
        chosen.gpu_count
    ));
    Ok(chosen)
}

/// A decode-pool scenario carrying its prefill pool and the KV link between them.
fn assemble(
    input: &ScenarioInput,
    prefill: Scenario,
    mut decode: Scenario,
    auto_split: bool,
) -> Scenario {
    let gpu = &decode.gpu;
    let both = prefill.gpu_count.saturating_add(decode.gpu_count);
    let nvlink = both <= scale_up_domain(gpu) && gpu.link_gb_s.is_some();
    let efficiency = decode.efficiency.link_efficiency;
    let link = if nvlink {
        KvLink {
            bandwidth: BytesPerSecond::from_gb_s(gpu.link_gb_s.unwrap_or(0.0) * efficiency),
            latency: Seconds::from_ms(NVLINK_TRANSFER_LATENCY_MS),
            nvlink,
        }
    } else {
        KvLink {
            bandwidth: BytesPerSecond::from_gb_s(network_gb_s(gpu) * efficiency),
            latency: Seconds::from_ms(NETWORK_TRANSFER_LATENCY_MS),
            nvlink,
        }
    };
    // The decode pool reports for the whole deployment: the user's own input travels.
    decode.input = input.clone();
    decode.pools = Some(Arc::new(Pools {
        prefill,
        link,
        auto_split,
    }));
    decode
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qwen(edit: impl FnOnce(&mut ScenarioInput)) -> Result<Scenario, ScenarioError> {
        let mut input = ScenarioInput {
            model: "qwen3-32b".into(),
            gpu: "h200-sxm".into(),
            gpu_count: 8.0,
            precision: crate::physics::precision::Precision::Fp8,
            serving: crate::scenario::pools::Serving::Disaggregated,
            ..ScenarioInput::default()
        };
        edit(&mut input);
        Scenario::try_from(input)
    }

    #[test]
    fn pools_given_are_kept_and_the_total_is_their_sum() {
        let s = qwen(|i| {
            i.prefill_gpus = Some(2.0);
            i.prefill_tp = Some(1.0);
            i.decode_gpus = Some(4.0);
            i.decode_tp = Some(2.0);
        })
        .expect("valid");
        let pools = s.pools.as_deref().expect("pools");
        assert_eq!((pools.prefill.gpu_count, pools.prefill.par.tp), (2, 1));
        assert_eq!((s.gpu_count, s.par.tp, s.replicas), (4, 2, 2));
        assert_eq!(s.total_gpus(), 6);
        assert!(pools.link.nvlink, "6 H200s sit in one 8-GPU NVLink domain");
        assert!(!pools.auto_split);
    }

    #[test]
    fn one_pool_given_leaves_the_other_the_rest_and_none_given_splits_automatically() {
        let s = qwen(|i| i.prefill_gpus = Some(3.0)).expect("valid");
        assert_eq!(s.gpu_count, 5);
        let auto = qwen(|_| {}).expect("valid");
        assert_eq!(auto.total_gpus(), 8);
        assert!(auto.pools.as_deref().is_some_and(|p| p.auto_split));
        let across = qwen(|i| {
            i.prefill_gpus = Some(8.0);
            i.decode_gpus = Some(8.0);
        })
        .expect("valid");
        assert!(!across.pools.as_deref().expect("pools").link.nvlink);
    }

    #[test]
    fn bad_pools_name_their_field() {
        let e = qwen(|i| i.prefill_gpus = Some(8.0)).expect_err("no decode GPU left");
        assert_eq!(e.field, "prefill-gpus");
        let e = qwen(|i| {
            i.decode_gpus = Some(3.0);
            i.decode_tp = Some(2.0);
        })
        .expect_err("TP 2 does not divide 3");
        assert_eq!(e.field, "decode-tp");
        let mut inputs = fields::Inputs::default();
        let e = fields::SERVING
            .set(&mut inputs, "both")
            .expect_err("unknown mode");
        assert!(
            e.contains("`both` is not one of aggregated, disaggregated"),
            "{e}"
        );
        let e = qwen(|i| i.batching = crate::scenario::Batching::Static).expect_err("static");
        assert_eq!(e.field, "serving");
    }

    /// Issue 26 §5: 3 prefill GPUs of a model that needs TP 2 are the typed GPU count's error,
    /// not "Prefill pool TP"'s (left to auto); a TP the user typed keeps its own field.
    #[test]
    fn an_automatic_tp_that_cannot_split_the_typed_gpus_names_the_gpus() {
        let llama = |edit: &dyn Fn(&mut ScenarioInput)| {
            let mut input = ScenarioInput {
                model: "llama-3.1-70b".into(),
                precision: crate::physics::precision::Precision::Bf16,
                gpu: "h100-sxm".into(),
                gpu_count: 8.0,
                serving: crate::scenario::pools::Serving::Disaggregated,
                ..ScenarioInput::default()
            };
            edit(&mut input);
            Scenario::try_from(input)
        };
        let e = llama(&|i| i.prefill_gpus = Some(3.0)).expect_err("TP 2 does not divide 3");
        assert_eq!(e.field, "prefill-gpus", "{}", e.message);
        let e = llama(&|i| {
            i.prefill_gpus = Some(3.0);
            i.prefill_tp = Some(2.0);
        })
        .expect_err("typed TP 2 does not divide 3");
        assert_eq!(e.field, "prefill-tp", "{}", e.message);
    }

    /// Issue 26 §5: at the scenario's concurrency the automatic split keeps its prefill pool
    /// within the ceiling whenever some split does, and says which rule chose it.
    #[test]
    fn the_automatic_split_keeps_the_prefill_pool_within_the_ceiling() {
        for concurrency in [16.0, 64.0, 256.0] {
            let auto = qwen(|i| i.concurrency = concurrency).expect("valid");
            let point = crate::model::evaluate(&auto);
            let figures = point.disagg.expect("disaggregated figures");
            let note = auto
                .warnings
                .iter()
                .find(|w| w.starts_with("pools not given"))
                .expect("says how it split");
            if note.contains("whose prefill pool is at most") {
                assert!(
                    figures.prefill_utilization <= AUTO_SPLIT_PREFILL_CEILING + 1e-9,
                    "{figures:?}"
                );
            } else {
                assert!(note.contains("none keeps the prefill pool"), "{note}");
            }
        }
    }

    /// When no automatic split fits, the error says which split it tried last and why that one
    /// failed, in words: not a pool field's key the reader never set.
    #[test]
    fn no_split_fitting_says_the_last_split_tried_and_why() {
        // Experts over 8 GPUs in both pools (TP 1, EP 8: "DEP 8") need 8 GPUs in each.
        let e = qwen(|i| {
            i.model = "qwen3-30b-a3b".into();
            i.prefill_ep = Some(8.0);
            i.decode_ep = Some(8.0);
        })
        .expect_err("8 GPUs hold only one 8-GPU pool");
        assert_eq!(e.field, "gpus");
        assert!(
            e.message
                .starts_with("no split of 8 GPUs into a prefill and a decode pool fits")
                && e.message
                    .contains("(the last split tried, 7 prefill + 1 decode GPUs: ")
                && !e.message.contains("last: "),
            "{}",
            e.message
        );
    }
}
