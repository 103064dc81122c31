//! The compare panel: a Pin button (at most four pins; a fifth or a repeat is refused with a
//! message), and `#compare-table` with the current scenario and every pin side by side:
//! throughput at the SLO, tokens/s per user there, $/M output and blended, GPUs the traffic
//! needs and $/month ("—" for a scenario without a price per GPU-hour). Each pin's row carries the line style its curve has on the chart.
//! The table downloads as CSV (`#compare-csv`), built when clicked.

use crate::decide::pricing::PointCost;
use crate::page::decision_data::{DecisionData, ScenarioDecision};
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::pins::{label_against, pin_label, PinAction};
use crate::page::state::Action;
use crate::present::chart::{pin_style, MarkerShape, Theme};
use crate::scenario::{Scenario, ScenarioInput};
use crate::ui::platform::download::download_text;
use crate::ui::tools::decision_panels::LatestState;
use crate::ui::widgets::decision_inputs::{grouped, TermHead};
use crate::ui::widgets::price::{amount_or_dash, usd_or_dash};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ComparePanelProps {
    pub latest: LatestState,
    pub decisions: UseReducerHandle<DecisionState>,
    pub data: DecisionData,
    pub pins: Vec<ScenarioInput>,
}

/// One row's numbers.
struct RowNumbers {
    per_gpu: f64,
    per_user: f64,
    /// `None` (shown "—") without a price per GPU-hour, as is the month below.
    usd_per_m_output: Option<f64>,
    usd_per_m_blended: Option<f64>,
    /// GPUs and $/month for the traffic; `None` without traffic.
    sized: Option<(u32, Option<f64>)>,
    /// "$2.65 (catalog typical, as of 2026-05)", "$3.125 (your price)", or "—".
    price: String,
    /// Max req/s under the SLO (simulated goodput); `None` without an SLO.
    goodput_req_s: Option<f64>,
}

fn row_numbers(
    scenario: &Scenario,
    decision: &ScenarioDecision,
    d: &DecisionState,
) -> Result<RowNumbers, String> {
    let (at, _) = decision
        .capacity
        .as_ref()
        .ok_or("no batch size meets the SLO")?;
    let (input_len, output_len) = (scenario.workload.input_mean, scenario.workload.output_mean);
    let energy = d.energy();
    let cost = PointCost::new(
        scenario,
        at,
        d.input.blend.input_per_output(input_len, output_len),
        energy,
    )
    .map(|cost| cost.at_capacity());
    // The one sizing function's answer (`sizing::size_configuration`, in the decision data).
    let sized = decision
        .sized
        .as_ref()
        .and_then(|sized| sized.as_ref().ok())
        .map(|s| (s.sizing.gpus, s.sizing.usd_per_month));
    let goodput_req_s = decision.goodput.map(|g| g.max_req_s);
    Ok(RowNumbers {
        per_gpu: at.output_tok_s / f64::from(at.gpus.max(1)),
        per_user: at.tok_s_per_user,
        usd_per_m_output: cost.map(|c| c.usd_per_m_output),
        usd_per_m_blended: cost.map(|c| c.usd_per_m_blended),
        sized,
        goodput_req_s,
        price: scenario.usd_per_gpu_hour.map_or_else(
            || "—".to_string(),
            |p| {
                let owned = crate::physics::economics::PriceTier::Owned
                    .price_with(&scenario.gpu, d.input.ownership().as_ref());
                format!(
                    "${} ({})",
                    crate::page::fields::number_text(p),
                    crate::decide::pricing::price_provenance(&scenario.gpu, p, owned)
                )
            },
        ),
    })
}

/// The pin's line style as a small SVG: dash pattern and marker, coloured by CSS (`.pin-N`).
pub fn pin_swatch(index: usize) -> Html {
    let style = pin_style(index, Theme::Light);
    let (on, off) = style.dash_css_px;
    let marker = match style.marker {
        MarkerShape::Square => html! { <rect x="10" y="2" width="8" height="8" /> },
        MarkerShape::Triangle => html! { <polygon points="14,1 19,10 9,10" /> },
        MarkerShape::Cross => html! { <path class="stroke-only" d="M10 2 L18 10 M18 2 L10 10" /> },
        MarkerShape::Ring => html! { <circle class="stroke-only" cx="14" cy="6" r="4" /> },
    };
    html! {
        <svg class={classes!("pin-swatch", format!("pin-{}", index % 4))} viewBox="0 0 28 12" aria-hidden="true">
            <line x1="0" y1="6" x2="28" y2="6" stroke-dasharray={format!("{on} {off}")} />
            { marker }
        </svg>
    }
}

fn cells(numbers: &Result<RowNumbers, String>) -> Html {
    match numbers {
        Ok(n) => {
            let (gpus, month) = match n.sized {
                Some((gpus, month)) => (gpus.to_string(), amount_or_dash(month)),
                None => ("–".into(), "–".into()),
            };
            html! { <>
                <td data-col="tok_s_per_gpu">{ grouped(n.per_gpu) }</td>
                <td data-col="tok_s_per_user">{ grouped(n.per_user) }</td>
                <td data-col="usd_per_m_output">{ usd_or_dash(n.usd_per_m_output) }</td>
                <td data-col="usd_per_m_blended">{ usd_or_dash(n.usd_per_m_blended) }</td>
                <td data-col="gpus_needed">{ gpus }</td>
                <td data-col="usd_per_month">{ month }</td>
                <td data-col="goodput_req_s">{ n.goodput_req_s.map_or_else(|| "–".to_string(), grouped) }</td>
                <td data-col="price">{ n.price.clone() }</td>
            </> }
        }
        Err(why) => html! { <td colspan="8" class="muted">{ why.clone() }</td> },
    }
}

/// The table as CSV rows: a header, then the current scenario and each pin (empty cells where
/// the page shows "—", the reason where a row has no numbers).
fn table_csv(
    current: (String, &Result<RowNumbers, String>),
    pins: &[(String, Result<RowNumbers, String>)],
) -> String {
    let mut rows = vec![[
        "scenario",
        "tok_s_per_gpu",
        "tok_s_per_user",
        "usd_per_m_output",
        "usd_per_m_blended",
        "gpus_needed",
        "usd_per_month",
        "goodput_req_s",
        "usd_per_gpu_hour_source",
        "note",
    ]
    .map(String::from)
    .to_vec()];
    let money = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_default();
    let row = |name: &str, numbers: &Result<RowNumbers, String>| match numbers {
        Ok(n) => vec![
            name.to_string(),
            format!("{:.1}", n.per_gpu),
            format!("{:.1}", n.per_user),
            money(n.usd_per_m_output),
            money(n.usd_per_m_blended),
            n.sized
                .map(|(gpus, _)| gpus.to_string())
                .unwrap_or_default(),
            money(n.sized.and_then(|(_, month)| month)),
            n.goodput_req_s
                .map(|g| format!("{g:.2}"))
                .unwrap_or_default(),
            n.price.clone(),
            String::new(),
        ],
        Err(why) => {
            let mut cells = vec![name.to_string()];
            cells.extend(std::iter::repeat_n(String::new(), 8));
            cells.push(why.clone());
            cells
        }
    };
    rows.push(row(&current.0, current.1));
    for (name, numbers) in pins {
        rows.push(row(name, numbers));
    }
    crate::catalog::csv::write_rows(&rows)
}

#[function_component(ComparePanel)]
pub fn compare_panel(props: &ComparePanelProps) -> Html {
    let d = &*props.decisions;
    let Some(state) = props.latest.handle() else {
        return Html::default();
    };
    let Some(view) = state.view.as_ref() else {
        return Html::default();
    };
    let on_pin = {
        let (latest, decisions) = (props.latest.clone(), props.decisions.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(state) = latest.handle() else {
                return;
            };
            match state.pin_candidate() {
                Ok(_) => {
                    decisions.dispatch(DecisionAction::PinsNotice(None));
                    state.dispatch(Action::Pins(PinAction::PinCurrent));
                }
                Err(why) => decisions.dispatch(DecisionAction::PinsNotice(Some(format!(
                    "Not pinned: {why}."
                )))),
            }
        })
    };
    let unpin = |index: usize| {
        let (latest, decisions) = (props.latest.clone(), props.decisions.clone());
        Callback::from(move |_: MouseEvent| {
            decisions.dispatch(DecisionAction::PinsNotice(None));
            if let Some(state) = latest.handle() {
                state.dispatch(Action::Pins(PinAction::Unpin(index)));
            }
        })
    };
    let current = row_numbers(&view.scenario, &props.data.current, d);
    let on_csv = {
        let (latest, decisions, data) = (
            props.latest.clone(),
            props.decisions.clone(),
            props.data.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let Some(state) = latest.handle() else {
                return;
            };
            let Some(view) = state.view.as_ref() else {
                return;
            };
            let current = row_numbers(&view.scenario, &data.current, &decisions);
            let pins: Vec<(String, Result<RowNumbers, String>)> = data
                .pinned
                .iter()
                .enumerate()
                .map(|(index, pin)| {
                    let numbers = match &pin.evaluated {
                        Ok((scenario, _, decision)) => row_numbers(scenario, decision, &decisions),
                        Err(why) => Err(format!("no longer valid: {why}")),
                    };
                    (
                        format!(
                            "pin {}: {}",
                            index + 1,
                            label_against(&view.scenario.input, &pin.input)
                        ),
                        numbers,
                    )
                })
                .collect();
            let name = format!("Current: {}", pin_label(&view.scenario.input));
            // A refused download leaves the table on the page; nothing else to do.
            let _ = download_text(
                "servecost-compare.csv",
                "text/csv",
                &table_csv((name, &current), &pins),
            );
        })
    };
    let at = if props.data.current.slo.is_some() {
        "at the SLO"
    } else {
        "at max batch"
    };
    let head = |id: &'static str, label: &'static str, unit: &'static str, definition: String| {
        html! {
            <th scope="col"><TermHead id={id} label={label} unit={unit} definition={definition} /></th>
        }
    };
    html! {
        <section class="panel decision compare-panel" aria-labelledby="compare-title">
            <div class="panel-head">
                <h2 id="compare-title">{ "Compare" }</h2>
                <button type="button" class="button" id="pin" onclick={on_pin}>{ format!("Pin this scenario ({}/4)", props.pins.len()) }</button>
                <button type="button" class="button small" id="compare-csv" onclick={on_csv}>{ "CSV" }</button>
            </div>
            <p class="notice-line" id="pins-notice" role="status">{ d.pins_notice.clone().unwrap_or_default() }</p>
            <div class="table-scroll">
                <table class="data-table" id="compare-table">
                    <thead><tr>
                        <th scope="col">{ "Scenario" }</th>
                        { head("col-cmp-tok-s-gpu", "Throughput", "tok/s per GPU", format!("Output tok/s per GPU {at}: the highest-throughput batch whose tail TTFT and TPOT meet the SLO (no SLO: the largest batch that fits).")) }
                        { head("col-cmp-tok-s-user", "Per user", "tok/s", format!("1 ÷ mean TPOT {at}.")) }
                        { head("col-cmp-usd-out", "$/M output", "", format!("All-in $/hour ÷ output tokens per hour × 10⁶ {at}, at full utilization.")) }
                        { head("col-cmp-usd-blend", "$/M blended", "", "(r × input + decode-share output price) ÷ (r + 1) at the chosen blend ratio, at full utilization.".into()) }
                        { head("col-cmp-gpus", "GPUs", "for the traffic", "ceil(traffic output tok/s ÷ one replica's output tok/s) × GPUs per replica; traffic from the Targets panel with each scenario's own lengths.".into()) }
                        { head("col-cmp-month", "$/month", "", "GPUs for the traffic × ($/GPU-hour + electricity when on) × 730 hours.".into()) }
                        { head("col-cmp-goodput", "Goodput", "req/s", "With an SLO: the most requests/s the scenario serves with the SLO's percentile of requests meeting ttft_ms and tpot_ms, in the simulator (vLLM's request goodput, DistServe's max rate at the attainment goal).".into()) }
                        { head("col-cmp-price", "Price", "$/GPU-hour", "The scenario's price per GPU-hour and where it comes from: a catalog tier and the date of its quotes, owned hardware, or your price.".into()) }
                        <th scope="col"><span class="visually-hidden">{ "Actions" }</span></th>
                    </tr></thead>
                    <tbody>
                        <tr class="current-row">
                            <th scope="row"><span class="swatch-current" aria-hidden="true"></span>{ format!("Current: {}", pin_label(&view.scenario.input)) }</th>
                            { cells(&current) }
                            <td></td>
                        </tr>
                        { for props.data.pinned.iter().enumerate().map(|(index, pin)| {
                            let numbers = match &pin.evaluated {
                                Ok((scenario, _, decision)) => row_numbers(scenario, decision, d),
                                Err(why) => Err(format!("no longer valid: {why}")),
                            };
                            let name = format!("pin {}: {}", index + 1, label_against(&view.scenario.input, &pin.input));
                            html! {
                                <tr class="pin-row">
                                    <th scope="row">{ pin_swatch(index) }{ name.clone() }</th>
                                    { cells(&numbers) }
                                    <td><button type="button" class="button small" id={format!("unpin-{}", index + 1)} aria-label={format!("Unpin {name}")} onclick={unpin(index)}>{ "Unpin" }</button></td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if props.pins.is_empty() {
                <p class="hint">{ "Pin up to four scenarios: change anything above, and each pin's curve stays on the chart to compare." }</p>
            }
        </section>
    }
}
