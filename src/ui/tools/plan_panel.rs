//! The plan panel: for the current model, workload, SLO and traffic, search GPU type × GPUs per
//! replica (TP) × precision × batch size with `plan::plan` and rank the cheapest deployments,
//! with why the others lost and an Apply button that loads a configuration into the scenario.
//!
//! The search takes tens to hundreds of milliseconds, so it runs on a button press (`#plan-run`),
//! after the browser has painted "Searching…", never on every input.
//!
//! The rules a buyer signs under are the panel's own inputs (decision fields, so they travel in
//! links): the weight precisions allowed (FP4 / INT4 unticked by default, and flagged with a
//! quality caveat when ticked), the utilization ceiling and the GPUs per server. Each listed
//! candidate's SLO check in the simulator is its own column, and the table downloads as CSV
//! (`#plan-csv`, `plan::candidates_csv`).

use crate::catalog::{catalog, Gpu};
use crate::choice::Choice;
use crate::decide::plan::{candidates_csv, plan, why_not_plannable, Candidate, Plan, PlanRequest};
use crate::decide::sizing::candidate_input;
use crate::page::decision_data::ScenarioDecision;
use crate::page::decisions::{
    plan_price_tier, plan_request, DecisionAction, DecisionState, PlanStatus,
};
use crate::page::state::{Shared, State};
use crate::physics::economics::PriceTier;
use crate::physics::precision::Precision;
use crate::present::format::{format_number, format_usd};
use crate::scenario::fields::{GPUS_PER_NODE, MAX_UTILIZATION, PRECISIONS_ALLOWED};
use crate::scenario::{LatencyMethod, ScenarioInput};
use crate::ui::platform::download::download_text;
use crate::ui::tools::decision_panels::{decision_field, LatestState};
use crate::ui::tools::targets::slo_text;
use crate::ui::widgets::decision_inputs::{grouped, percent, usd_amount, TermHead};
use gloo::timers::callback::Timeout;
use yew::prelude::*;

/// Candidates shown.
const PLAN_TOP: usize = 8;
/// Delay before searching, so "Searching…" is painted first.
const PAINT_DELAY_MS: u32 = 30;

#[derive(Properties, PartialEq)]
pub struct PlanPanelProps {
    pub latest: LatestState,
    pub decisions: UseReducerHandle<DecisionState>,
    /// Changes when the scenario (not its concurrency) or the SLO does: when to re-render.
    pub key_scenario: Shared<ScenarioDecision>,
}

/// GPUs the plan can price: a complete spec and a typical price (`plan::why_not_plannable`).
pub fn plannable_gpus() -> Vec<&'static Gpu> {
    catalog()
        .map(|c| {
            c.gpus
                .iter()
                .filter(|g| why_not_plannable(g, PriceTier::Typical).is_none())
                .collect()
        })
        .unwrap_or_default()
}

/// The catalog GPUs the list leaves out, named: a plan ranks by price and never guesses one.
fn unplannable_gpu_names() -> Vec<String> {
    catalog()
        .map(|c| {
            c.gpus
                .iter()
                .filter(|g| why_not_plannable(g, PriceTier::Typical).is_some())
                .map(|g| g.name.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn gpu_name(id: &str) -> String {
    catalog()
        .ok()
        .and_then(|c| c.gpu(id))
        .map_or_else(|| id.to_string(), |g| g.name.clone())
}

/// The request the panel would run now, or why it cannot.
fn request(state: &State, d: &DecisionState) -> Result<(PlanRequest, String), String> {
    let view = state.view.as_ref().ok_or("no valid scenario")?;
    let s = &view.scenario;
    let (input_len, output_len) = (s.workload.input_mean, s.workload.output_mean);
    let traffic = d
        .input
        .traffic()
        .and_then(|t| t.output_tok_s(input_len, output_len))
        .filter(|out| *out > 0.0)
        .ok_or("enter a traffic volume under Targets first")?;
    let all: Vec<String> = plannable_gpus().iter().map(|g| g.id.clone()).collect();
    let allowed = d.input.gpus_allowed.clone().unwrap_or(all);
    if allowed.is_empty() {
        return Err("tick at least one GPU".into());
    }
    let tier = plan_price_tier(s, &d.input, d.custom_price);
    if d.input.precisions_allowed.is_empty() {
        return Err("tick at least one weight precision".into());
    }
    let slo = d.slo();
    let target = format!(
        "{} for {} output tok/s{}, {} prices, GPUs: {}; weights {}, at most {} % utilization, {} GPUs per server",
        s.model.name,
        grouped(traffic),
        slo.as_ref()
            .map(|slo| format!(" at {}", slo_text(slo)))
            .unwrap_or_else(|| " (no SLO: max throughput)".into()),
        tier.provenance(&s.gpu),
        allowed.join(", "),
        d.input
            .precisions_allowed
            .iter()
            .map(|p| p.id().to_ascii_uppercase())
            .collect::<Vec<_>>()
            .join(", "),
        percent(d.input.max_utilization),
        d.input.gpus_per_node
    );
    // Checked once, as the CLI's `plan` is; the search uses the analytic tails, and the cheapest
    // are then re-searched with simulated ones (`page::decisions::plan_request`).
    let request = plan_request(s, &d.input, tier, traffic, allowed, PLAN_TOP)?;
    Ok((request, target))
}

fn candidate_row(rank: usize, c: &Candidate, base: &ScenarioInput, latest: &LatestState) -> Html {
    let onclick = latest.load_on_click(candidate_input(base, c));
    let simulated = if c.latency_method == LatencyMethod::Simulated {
        ", sim"
    } else {
        ""
    };
    let p = c.percentile.map_or_else(
        || "mean".to_string(),
        |p| format!("P{}{simulated}", crate::page::fields::number_text(p)),
    );
    let check = match c.latency_method {
        LatencyMethod::Simulated => "✓ simulated",
        LatencyMethod::Analytic => "analytic only",
        LatencyMethod::Mean => "no SLO",
    };
    let precision = c.precision.id().to_ascii_uppercase();
    html! {
        <tr>
            <td>{ rank }</td>
            <th scope="row">{ gpu_name(&c.gpu) }
                if let Some(p) = &c.pools {
                    <span class="badge" data-serving="disaggregated" title="Disaggregated: a prefill pool and a decode pool per unit">
                        { format!(" {}P{}D", p.prefill_replicas, p.decode_replicas) }
                    </span>
                }
            </th>
            <td>{ c.gpus_per_replica }</td>
            <td>{ c.replicas }</td>
            <td data-col="total_gpus">{ c.total_gpus }</td>
            <td title={c.quality_caveat.unwrap_or_default()}>{ if c.quality_caveat.is_some() { format!("{precision} †") } else { precision } }</td>
            <td>{ c.concurrency }</td>
            <td>{ format!("{} ({p})", format_number(c.ttft_ms)) }</td>
            <td>{ format!("{} ({p})", format_number(c.tpot_ms)) }</td>
            <td data-col="usd_per_month">{ usd_amount(c.usd_per_month) }</td>
            <td data-col="range" title={c.range.as_ref().map(|r| r.sentence()).unwrap_or_default()}>{ c.range.as_ref().map_or_else(|| "—".to_string(), |r| match r.gpus_high {
                Some(high) => format!("{}–{high} GPUs", r.gpus_low),
                None => format!("≥ {} GPUs", r.gpus_low),
            }) }
            if let Some(r) = &c.range {
                <span class={classes!("badge", format!("basis-{}", r.basis.id()))}>{ r.basis.id() }</span>
            }
            </td>
            <td>{ format_usd(c.usd_per_m_output) }</td>
            <td>{ format!("{} %", percent(c.utilization)) }</td>
            <td data-col="slo_check" title={c.traffic_check().unwrap_or_default()}>{ check }</td>
            <td><button type="button" class="button small" id={format!("plan-apply-{rank}")}
                aria-label={format!("Apply plan {rank}: {} × {}", c.total_gpus, gpu_name(&c.gpu))} {onclick}>{ "Apply" }</button></td>
        </tr>
    }
}

fn head(
    id: &'static str,
    label: &'static str,
    unit: &'static str,
    definition: &'static str,
) -> Html {
    html! { <th scope="col"><TermHead {id} {label} {unit} {definition} /></th> }
}

#[function_component(PlanPanel)]
pub fn plan_panel(props: &PlanPanelProps) -> Html {
    let d = &*props.decisions;
    let gpus = plannable_gpus();
    let all: Vec<String> = gpus.iter().map(|g| g.id.clone()).collect();
    let allowed = d.input.gpus_allowed.clone().unwrap_or_else(|| all.clone());
    let Some(state) = props.latest.handle() else {
        return Html::default();
    };
    let now = request(&state, d);
    let left_out = unplannable_gpu_names();
    html! {
        <section class="panel decision plan-panel" aria-labelledby="plan-title">
            <h2 id="plan-title">{ "Plan: the cheapest deployment" }</h2>
            { gpu_choices(&props.decisions, &gpus, &allowed, &all) }
            { precision_choices(&props.decisions) }
            <div class="decision-fields">
                { for [&MAX_UTILIZATION, &GPUS_PER_NODE].map(|field| decision_field(&props.decisions, field).render()) }
            </div>
            if !left_out.is_empty() {
                <p class="hint" id="plan-skipped">{ format!("Not listed (no typical rental price in the catalog, or an incomplete spec): {}.", left_out.join(", ")) }</p>
            }
            <p class="hint">{ "Searches every ticked GPU × GPUs per replica (1, 2, 4, 8, up to one server) × ticked precision, and disaggregated xPyD units on one server (a prefill and a decode pool), each at its highest-throughput batch size meeting the SLO (analytic tail estimates), and buys enough replicas that the traffic fills at most the utilization ceiling of their capacity (whole servers once past one); 4-bit weights (FP4, INT4) can cost accuracy, which the model does not predict, so they are left out unless ticked and flagged † when listed; the cheapest are then re-searched in the simulator, each at the largest batch whose simulated tails meet the SLO, and the deployment is simulated at the traffic (each replica its share of Poisson arrivals), buying one more replica while its tails miss: the same sizing (`decide::sizing::size`) as the Cost panel, Compare, the client report and `servecost plan` (any that meets it at no batch is dropped: see why the others lost). Prices: the tier chosen in Cost (a catalog quote, dated; or owned hardware, the same capex per GPU for every GPU type; typical when the price is your own)." }</p>
            { run_row(props, &now) }
            if let PlanStatus::Done { result, base, target } = &d.plan {
                { match &**result {
                    Err(why) => html! { <p class="notice" role="alert">{ format!("The plan could not run: {why}.") }</p> },
                    Ok(found) => plan_found(props, found, base, target),
                } }
            }
        </section>
    }
}

/// The "GPUs to consider" checkboxes: every plannable GPU, ticked when allowed.
fn gpu_choices(
    decisions: &UseReducerHandle<DecisionState>,
    gpus: &[&Gpu],
    allowed: &[String],
    all: &[String],
) -> Html {
    let toggle = |id: String| {
        let (decisions, all) = (decisions.clone(), all.to_vec());
        Callback::from(move |event: Event| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                decisions.dispatch(DecisionAction::TogglePlanGpu {
                    gpu: id.clone(),
                    allowed: input.checked(),
                    all: all.clone(),
                });
            }
        })
    };
    html! {
        <fieldset class="decision-fieldset">
            <legend>{ "GPUs to consider" }</legend>
            <div class="checkbox-grid">
                { for gpus.iter().map(|g| {
                    let id = format!("plan-gpu-{}", g.id);
                    html! {
                        <div class="checkbox-field">
                            <input type="checkbox" id={id.clone()} checked={allowed.contains(&g.id)} onchange={toggle(g.id.clone())} />
                            <label for={id}>{ g.name.clone() }</label>
                        </div>
                    }
                }) }
            </div>
        </fieldset>
    }
}

/// The "Weight precisions" checkboxes, 4-bit ones marked with their quality caveat.
fn precision_choices(decisions: &UseReducerHandle<DecisionState>) -> Html {
    let chosen = &decisions.input.precisions_allowed;
    let toggle_precision = |precision: Precision| {
        let (decisions, chosen) = (decisions.clone(), chosen.clone());
        Callback::from(move |event: Event| {
            let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() else {
                return;
            };
            // In the table's order, whatever order they were ticked in.
            let list: Vec<&str> = Precision::ALL
                .iter()
                .map(|p| p.id())
                .filter(|id| {
                    if *id == precision.id() {
                        input.checked()
                    } else {
                        chosen.iter().any(|c| c.id() == *id)
                    }
                })
                .collect();
            decisions.dispatch(DecisionAction::Edit(&PRECISIONS_ALLOWED, list.join(",")));
        })
    };
    html! {
        <fieldset class="decision-fieldset">
            <legend>{ "Weight precisions" }</legend>
            <div class="checkbox-grid">
                { for Precision::ALL.iter().map(|p| {
                    let id = format!("plan-precision-{}", p.id());
                    let four_bit = matches!(p, Precision::Fp4 | Precision::Int4);
                    html! {
                        <div class="checkbox-field">
                            <input type="checkbox" id={id.clone()} checked={chosen.contains(p)} onchange={toggle_precision(*p)} />
                            <label for={id}>{ if four_bit { format!("{} (4-bit: quality caveat)", p.id().to_ascii_uppercase()) } else { p.id().to_ascii_uppercase() } }</label>
                        </div>
                    }
                }) }
            </div>
        </fieldset>
    }
}

/// The run button (`#plan-run`), which searches after "Searching…" has painted, and its status.
fn run_row(props: &PlanPanelProps, now: &Result<(PlanRequest, String), String>) -> Html {
    let d = &*props.decisions;
    let on_run = {
        let (latest, decisions) = (props.latest.clone(), props.decisions.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(state) = latest.handle() else {
                return;
            };
            let Ok((request, target)) = crate::ui::tools::plan_panel::request(&state, &decisions)
            else {
                return;
            };
            decisions.dispatch(DecisionAction::PlanStarted);
            let decisions = decisions.clone();
            Timeout::new(PAINT_DELAY_MS, move || {
                // Analytic search, then the cheapest re-searched in the simulator.
                let result = plan(&request);
                decisions.dispatch(DecisionAction::PlanFinished(PlanStatus::Done {
                    result: Shared::new(result),
                    base: Shared::new(request.base.clone()),
                    target,
                }));
            })
            .forget();
        })
    };
    let running = d.plan == PlanStatus::Running;
    html! {
        <div class="panel-head">
            <button type="button" class="button" id="plan-run" disabled={running || now.is_err()} onclick={on_run}>
                { if running { "Searching…" } else { "Find the cheapest" } }
            </button>
            <span class="hint" role="status" id="plan-status">{ match (now, &d.plan) {
                (Err(why), _) => format!("Cannot plan yet: {why}."),
                (_, PlanStatus::Running) => "Searching…".to_string(),
                (Ok((_, target)), PlanStatus::Done { target: done, .. }) if target != done => "The inputs changed since the last search; run it again.".to_string(),
                _ => String::new(),
            } }</span>
        </div>
    }
}

/// A finished search: what it met, the ranked candidates with their CSV, and why the others lost.
fn plan_found(props: &PlanPanelProps, found: &Plan, base: &ScenarioInput, target: &str) -> Html {
    let on_csv = {
        let decisions = props.decisions.clone();
        Callback::from(move |_: MouseEvent| {
            if let PlanStatus::Done { result, .. } = &decisions.plan {
                if let Ok(found) = &**result {
                    // A refused download leaves the table on the page; nothing else to do.
                    let _ = download_text(
                        "servecost-plan.csv",
                        "text/csv",
                        &candidates_csv(&found.candidates),
                    );
                }
            }
        })
    };
    html! { <>
        <p class="hint">{ format!("{target}: {}.", found.met()) }</p>
        if found.candidates.is_empty() {
            <p class="notice" role="status">{ "No configuration meets the targets. See why below; loosen the SLO or allow more GPUs." }</p>
        } else {
            { candidates_table(&found.candidates, base, &props.latest) }
        }
        if found.candidates.iter().any(|c| c.quality_caveat.is_some()) {
            <p class="hint" id="plan-caveat">{ "† 4-bit weights: quality caveat, check accuracy on your task before you sign." }</p>
        }
        if !found.candidates.is_empty() {
            <div class="button-row">
                <button type="button" class="button small" id="plan-csv" onclick={on_csv}>{ "CSV" }</button>
            </div>
        }
        <details class="rejected" id="plan-rejected">
            <summary>{ format!("Why the others lost ({})", found.rejected.len()) }</summary>
            <ul>
                { for found.rejected.iter().map(|r| html! {
                    <li>{ format!("{}, TP {}, {}: {}", gpu_name(&r.gpu), r.tp, r.precision.id().to_ascii_uppercase(), r.reason) }</li>
                }) }
            </ul>
        </details>
    </> }
}

/// The cheapest deployments, ranked by $/month (`#plan-results`), each with an Apply button.
fn candidates_table(candidates: &[Candidate], base: &ScenarioInput, latest: &LatestState) -> Html {
    html! {
        <div class="table-scroll">
            <table class="data-table" id="plan-results">
                <caption class="visually-hidden">{ "Cheapest deployments, ranked by $/month" }</caption>
                <thead><tr>
                    <th scope="col">{ "#" }</th><th scope="col" class="text-col">{ "GPU" }</th>
                    { head("col-plan-tp", "GPUs / replica", "", "Tensor-parallel degree: the GPUs one engine (replica) spans.") }
                    { head("col-plan-replicas", "Replicas", "", "ceil(traffic output tok/s ÷ one replica's output tok/s at its best batch).") }
                    { head("col-plan-gpus", "Total GPUs", "", "Replicas × GPUs per replica.") }
                    <th scope="col">{ "Precision" }</th>
                    { head("col-plan-batch", "Batch", "per replica", "Requests in flight per replica: the highest-throughput batch size whose tail TTFT and TPOT meet the SLO (no SLO: the largest that fits).") }
                    { head("col-plan-ttft", "TTFT", "ms", "Time to first token at that batch: the simulated tail at the SLO's percentile (\"sim\"), or the mean without an SLO.") }
                    { head("col-plan-tpot", "TPOT", "ms", "Time per output token at that batch: the simulated tail at the SLO's percentile (\"sim\"), or the mean without an SLO.") }
                    { head("col-plan-month", "$/month", "", "Total GPUs × $/GPU-hour (catalog tier) × 730 hours.") }
                    { head("col-plan-range", "Range", "± error", "GPUs and $/month if a replica serves as much more or less as the expected throughput error says (the ± beside the headline, cross-validated on published measurements): badged modeled, calibrated when efficiency knobs are set, or measured when a published measurement of the same configuration near its point backs it.") }
                    { head("col-plan-usd-m", "$/M output", "", "$/month ÷ the traffic's output tokens per month × 10⁶: idle capacity included.") }
                    { head("col-plan-util", "Utilization", "", "Traffic ÷ the output capacity of the replicas bought (at most the ceiling).") }
                    { head("col-plan-check", "SLO check", "", "✓ simulated: the discrete-event simulator ran this replica at its batch and its tail TTFT and TPOT met the SLO (a candidate that missed there is dropped, see why the others lost); analytic only: not simulated.") }
                    <th scope="col"><span class="visually-hidden">{ "Apply" }</span></th>
                </tr></thead>
                <tbody>
                    { for candidates.iter().enumerate().map(|(i, c)| candidate_row(i + 1, c, base, latest)) }
                </tbody>
            </table>
        </div>
    }
}
