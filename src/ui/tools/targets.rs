//! The targets panel: latency SLO (TTFT and TPOT at a percentile) and the traffic volume
//! (requests/s or tokens per day, converted with the workload's mean lengths), with the
//! operating point the deployment is sized at: the highest throughput that meets the SLO
//! (`sizing::slo_sweep`), or the max-throughput point when no SLO is set.
//!
//! Tails are the analytic estimates of `model::slo` (stated as such).

use crate::model::slo::tail_estimate;
use crate::page::decision_data::DecisionData;
use crate::page::decisions::{DecisionAction, DecisionState, TrafficUnit};
use crate::page::fields::number_text;
use crate::page::state::View;
use crate::present::format::format_number;
use crate::scenario::fields::{Field, SLO_PERCENTILE, SLO_TPOT_MS, SLO_TTFT_MS, TRAFFIC};
use crate::scenario::Slo;
use crate::ui::widgets::decision_inputs::{grouped, NumberField};
use crate::ui::widgets::metric::Metric;
use yew::prelude::*;

/// Id of the second traffic box: the same `traffic` field, typed in tokens per day.
pub const TRAFFIC_TOKENS_PER_DAY_ID: &str = "traffic-tokens-per-day";

/// What the panel shows from (a plain function, not a component: it re-renders with every
/// operating point anyway, and each component type costs the wasm binary its own code).
pub struct TargetsPanelProps {
    pub view: View,
    pub decisions: UseReducerHandle<DecisionState>,
    pub data: DecisionData,
}

/// "P90 TTFT ≤ 2000 ms and TPOT ≤ 50 ms" (an unset target is left out).
pub fn slo_text(slo: &Slo) -> String {
    let targets: Vec<String> = [("TTFT", slo.ttft_ms), ("TPOT", slo.tpot_ms)]
        .into_iter()
        .filter(|(_, ms)| ms.is_finite())
        .map(|(name, ms)| format!("{name} ≤ {} ms", number_text(ms)))
        .collect();
    format!("P{} {}", number_text(slo.percentile), targets.join(" and "))
}

pub fn targets_panel(props: &TargetsPanelProps) -> Html {
    let d = &*props.decisions;
    let scenario = &props.view.scenario;
    let (input_len, output_len) = (scenario.workload.input_mean, scenario.workload.output_mean);
    let edit = |field: &'static Field| {
        let decisions = props.decisions.clone();
        Callback::from(move |text: String| decisions.dispatch(DecisionAction::Edit(field, text)))
    };
    let traffic = |unit: TrafficUnit| {
        let decisions = props.decisions.clone();
        Callback::from(move |text: String| {
            decisions.dispatch(DecisionAction::EditTraffic(unit, text))
        })
    };
    let traffic_error = d.error(&TRAFFIC).map(str::to_string);
    let error_for = |unit: TrafficUnit| {
        if d.input.traffic_unit == unit {
            traffic_error.clone()
        } else {
            None
        }
    };
    let p = number_text(d.input.slo_percentile);
    let decision = &*props.data.current;
    let current_tail = tail_estimate(scenario, &props.view.point, d.input.slo_percentile);
    let verdict = decision.slo.map(|slo| {
        let fits = props.view.point.fits;
        let meets =
            fits && current_tail.ttft_ms <= slo.ttft_ms && current_tail.tpot_ms <= slo.tpot_ms;
        if meets {
            "meets the SLO"
        } else if fits {
            "misses the SLO"
        } else {
            "is beyond KV capacity"
        }
    });
    let heading = if decision.slo.is_some() {
        "Throughput at the SLO"
    } else {
        "Throughput at max batch (no SLO set)"
    };

    html! {
        <section class="panel decision targets-panel" aria-labelledby="targets-title">
            <h2 id="targets-title">{ "Targets" }</h2>
            <fieldset class="decision-fieldset">
                <legend>{ "Latency SLO (optional)" }</legend>
                <div class="decision-fields">
                    { for [&SLO_TTFT_MS, &SLO_TPOT_MS, &SLO_PERCENTILE].map(|field| NumberField::of(field, d.text(field).to_string(), d.error(field).map(str::to_string), edit(field)).render()) }
                </div>
                <p class="hint">{ "Tails are analytic estimates (a long prompt waits for its own prefill; decode stalls behind others' prefills). The chart crosses out points that miss." }</p>
            </fieldset>
            <fieldset class="decision-fieldset">
                <legend>{ "Traffic" }</legend>
                <div class="decision-fields">
                    { NumberField { id: TRAFFIC.key, label: "Requests", unit: Some("req/s"), value: d.traffic_text(TrafficUnit::RequestsPerS, input_len, output_len), placeholder: Some("none"), hint: None, error: error_for(TrafficUnit::RequestsPerS), on_input: traffic(TrafficUnit::RequestsPerS) }.render() }
                    { NumberField { id: TRAFFIC_TOKENS_PER_DAY_ID, label: "or tokens per day", unit: Some("in + out"), value: d.traffic_text(TrafficUnit::TokensPerDay, input_len, output_len), placeholder: Some("none"), hint: None, error: error_for(TrafficUnit::TokensPerDay), on_input: traffic(TrafficUnit::TokensPerDay) }.render() }
                </div>
                <p class="hint">{ format!("Converted with the workload's mean lengths: {} prompt + {} output tokens per request.", grouped(input_len), grouped(output_len)) }</p>
            </fieldset>
            <h3>{ heading }</h3>
            { match &decision.capacity {
                Some((at, tail)) => {
                    let gpus = f64::from(at.gpus.max(1));
                    html! {
                        <div class="metrics">
                            <Metric name="slo_output_tok_s_per_gpu" label="Per GPU" primary=true value={grouped(at.output_tok_s / gpus)} unit="output tok/s"
                                definition="Output tok/s per GPU at the highest-throughput batch size whose tail TTFT and TPOT meet the SLO (no SLO: the largest batch that fits)." />
                            <Metric name="slo_output_tok_s" label={format!("All {} GPUs", at.gpus)} value={grouped(at.output_tok_s)} unit="output tok/s"
                                definition="The same throughput summed over every GPU of this scenario." />
                            <Metric name="slo_tok_s_per_user" label="Per user there" value={grouped(at.tok_s_per_user)} unit="tok/s"
                                definition="1 ÷ mean TPOT at that batch size: the streaming speed one user sees." />
                            <Metric name="slo_concurrency" label="Batch there" value={at.concurrency.to_string()} unit="in flight"
                                definition="Requests in flight (all replicas) at that operating point." />
                            if let Some(tail) = tail {
                                <Metric name="slo_ttft_ms" label={format!("P{p} TTFT")} value={format_number(tail.ttft_ms)} unit="ms"
                                    definition="Analytic tail estimate: mean TTFT plus the prefill of a prompt at this percentile of the length distribution." />
                                <Metric name="slo_tpot_ms" label={format!("P{p} TPOT")} value={format_number(tail.tpot_ms)} unit="ms"
                                    definition="Analytic tail estimate: decode time per token plus the prefill stalls a request meets at this percentile (Poisson count of other requests' prefills)." />
                            }
                        </div>
                    }
                }
                None => html! {
                    <p class="notice" id="slo-unmet" role="status">{ format!("No batch size meets {} on this configuration. Loosen a target, or run the plan below to search other GPUs and precisions.", decision.slo.as_ref().map(slo_text).unwrap_or_default()) }</p>
                },
            } }
            if let (Some(slo), Some(goodput)) = (decision.slo, decision.goodput) {
                <h3>{ "Goodput (simulated)" }</h3>
                <div class="metrics">
                    <Metric name="goodput_req_s" label="Max req/s under the SLO" primary=true value={format_number(goodput.max_req_s)} unit="req/s"
                        definition={format!("The highest Poisson request rate at which {:.0} % of requests meet ttft_ms ≤ {} and tpot_ms ≤ {} in the simulator (DistServe's goodput; vLLM's bench serve --goodput ttft:… tpot:…), all {} replicas sharing the load.", goodput.target * 100.0, format_number(slo.ttft_ms), format_number(slo.tpot_ms), goodput.replicas)} />
                    if let Some(attainment) = decision.attainment_at_traffic {
                        <Metric name="slo_attainment_pct" label="SLO attainment at the traffic" value={format!("{:.1}", attainment * 100.0)} unit="%"
                            definition="Share of requests meeting both targets (ttft_ms and tpot_ms) when this configuration serves the traffic above, each replica its share of Poisson arrivals, in the simulator." />
                    }
                </div>
            }
            if let Some(verdict) = verdict {
                <div class="metrics">
                    <Metric name="current_ttft_ms_tail" label={format!("P{p} TTFT now")} value={format_number(current_tail.ttft_ms)} unit="ms"
                        definition="Analytic tail estimate of TTFT at the slider's batch size." />
                    <Metric name="current_tpot_ms_tail" label={format!("P{p} TPOT now")} value={format_number(current_tail.tpot_ms)} unit="ms"
                        definition="Analytic tail estimate of TPOT at the slider's batch size." />
                    <Metric name="slo_verdict" label="The slider's point" wide=true value={verdict}
                        definition="Whether the current batch size's tail estimates are within both targets." />
                </div>
            }
        </section>
    }
}
