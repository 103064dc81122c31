//! Self-hosting against API prices: for the current model, every API price in the catalog
//! (provider, $/M input and output, blended at the workload's own input:output mix) beside the
//! self-hosted price at the same mix, and the utilization u* above which self-hosting is
//! cheaper (`pricing::PointCost::break_even`, MODEL.md §7). Says so when the catalog lists no
//! API price for the model, and asks for one when the scenario has no price per GPU-hour.
//! Each API price shows its date (and its source on hover); the self-hosted price says where it
//! comes from (a catalog tier and its date, owned hardware, or "your price").

use crate::decide::pricing::PointCost;
use crate::page::decisions::DecisionState;
use crate::page::state::View;
use crate::present::format::format_usd;
use crate::ui::widgets::decision_inputs::{percent, TermHead};
use crate::ui::widgets::metric::Metric;
use crate::ui::widgets::price::enter_price_hint;
use yew::prelude::*;

/// The hint asking for a price when the scenario has none.
pub const BREAK_EVEN_NO_PRICE_ID: &str = "break-even-no-price";

/// What the panel shows from (a plain function, not a component: it re-renders with every
/// operating point anyway, and each component type costs the wasm binary its own code).
pub struct BreakEvenPanelProps {
    pub view: View,
    pub decisions: UseReducerHandle<DecisionState>,
    /// The decision data: the configuration sized for the traffic (`sizing::size`).
    pub data: crate::page::decision_data::DecisionData,
}

/// Self-hosting against each API for the typed traffic (issue 26 §9): $/month on each side
/// and the daily volume from which self-hosting is cheaper.
fn for_the_traffic(props: &BreakEvenPanelProps) -> Html {
    let d = &*props.decisions;
    let scenario = &props.view.scenario;
    let w = &scenario.workload;
    let Some(traffic) = d
        .traffic_req_s(w.input_mean, w.output_mean)
        .map(|r| r * w.output_mean)
        .filter(|t| *t > 0.0)
    else {
        return html! { <p class="muted" id="traffic-vs-api-none">{ "Enter a traffic volume under Targets to compare monthly bills for it." }</p> };
    };
    let Some(Ok(sized)) = props.data.current.sized.as_ref() else {
        return Html::default();
    };
    let rules = crate::decide::sizing::SizingRules::of(&d.input);
    let Some(cmp) = crate::decide::pricing::traffic_vs_api(
        scenario,
        sized,
        traffic,
        &rules,
        d.input.ownership().as_ref(),
    ) else {
        return Html::default();
    };
    let grouped = |v: f64| crate::ui::widgets::metric::group_thousands(&format!("{v:.0}"));
    let self_line = cmp
        .self_hosted
        .iter()
        .map(|(tier, usd)| format!("{tier} {}", crate::present::format::usd_amount(*usd)))
        .collect::<Vec<_>>()
        .join(", ");
    // At the scenario's own price, as the break-even volume is.
    let own = sized.sizing.usd_per_month.unwrap_or(f64::INFINITY);
    html! {
        <div id="traffic-vs-api">
            <h3>{ format!("For your traffic: {} tokens/day", grouped(cmp.tokens_per_day)) }</h3>
            <p class="hint" id="traffic-self-hosted">{ format!("Self-hosted on the {} GPUs the Cost panel sizes: {self_line} per month.", cmp.gpus) }</p>
            <div class="table-scroll">
                <table class="data-table" id="traffic-vs-api-table">
                    <thead><tr>
                        <th scope="col">{ "Provider" }</th>
                        <th scope="col">{ "API $/month" }</th>
                        <th scope="col">{ "Self-hosting cheaper from" }</th>
                        <th scope="col">{ "At your traffic" }</th>
                    </tr></thead>
                    <tbody>
                        { for cmp.apis.iter().map(|api| html! {
                            <tr>
                                <th scope="row">{ api.provider.clone() }</th>
                                <td data-col="api_usd_per_month">{ crate::present::format::usd_amount(api.usd_per_month) }</td>
                                <td data-col="break_even_tokens_per_day">{ api.break_even_tokens_per_day.map_or_else(|| "never (the API is cheaper)".to_string(), |v| format!("{} tokens/day", grouped(v))) }</td>
                                <td>{ if own <= api.usd_per_month { "self-hosting" } else { "API" } }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}

pub fn break_even_panel(props: &BreakEvenPanelProps) -> Html {
    let d = &*props.decisions;
    let scenario = &props.view.scenario;
    let point = &props.view.point;
    let w = &scenario.workload;
    let mix = if w.output_mean > 0.0 {
        w.input_mean / w.output_mean
    } else {
        0.0
    };
    // `None` without a price per GPU-hour: nothing to weigh against the APIs.
    let cost = PointCost::new(scenario, point, mix, d.energy());
    let rows = cost.map_or_else(Vec::new, |c| c.break_even(&scenario.model.id));
    let (u, _) = d.utilization(point.output_tok_s);
    let head = |id: &'static str, label: &'static str, definition: &'static str| {
        html! {
            <th scope="col"><TermHead id={id} label={label} definition={definition} /></th>
        }
    };
    html! {
        <section class="panel decision break-even-panel" aria-labelledby="break-even-title">
            <h2 id="break-even-title">{ "Self-host or API?" }</h2>
            <p class="hint">{ format!(
                "At the slider's operating point ({} in flight, {} GPUs), at the workload's mix of {:.1} input tokens per output token; your load: {} % of capacity (Cost panel). Self-hosted at ${}/GPU-hour ({}).",
                point.concurrency, point.gpus, mix, percent(u),
                scenario.usd_per_gpu_hour.map_or_else(|| "—".to_string(), crate::page::fields::number_text),
                scenario.usd_per_gpu_hour.map_or_else(String::new, |p| crate::decide::pricing::price_provenance(&scenario.gpu, p, crate::physics::economics::PriceTier::Owned.price_with(&scenario.gpu, d.input.ownership().as_ref())))
            ) }</p>
            if cost.is_none() {
                { enter_price_hint(BREAK_EVEN_NO_PRICE_ID, &scenario.gpu.name, true) }
            } else if rows.is_empty() {
                <p class="notice" id="break-even-none" role="status">{ format!("The catalog lists no API prices for {}, so there is nothing to compare against.", scenario.model.name) }</p>
            } else {
                <div class="metrics">
                    <Metric name="self_usd_per_m_mix" label="Self-hosted, at the mix" value={format_usd(rows.first().map_or(f64::NAN, |r| r.self_usd_per_m_mixed))} unit="per M"
                        definition="The self-hosted $/hour ÷ all tokens (input + output) per hour × 10⁶, at full utilization of this operating point." />
                </div>
                <div class="table-scroll">
                    <table class="data-table" id="break-even-table">
                        <thead><tr>
                            <th scope="col">{ "Provider" }</th>
                            { head("col-api-in-out", "API $/M in/out", "The provider's list prices per million input (prompt) and output tokens.") }
                            { head("col-api-mix", "API $/M mix", "API price per million tokens at the workload's input:output mix: (in tok/s × $in + out tok/s × $out) ÷ total tok/s.") }
                            { head("col-u-star", "Break-even u*", "u* = self-hosted $/hour ÷ the API bill per hour for the same tokens at capacity; self-hosting is cheaper when utilization exceeds u*.") }
                            { head("col-cheaper", "At your load", "Which is cheaper at your utilization (Cost panel): self-hosting when it is at least u*, else the API.") }
                            { head("col-api-as-of", "Price as of", "When the API price was read; hover the provider for its source.") }
                        </tr></thead>
                        <tbody>
                            { for rows.iter().map(|row| {
                                let u_star = row.break_even_utilization;
                                let cheaper = if u_star > 1.0 {
                                    "API (always)"
                                } else if u >= u_star {
                                    "self-hosting"
                                } else {
                                    "API"
                                };
                                html! {
                                    <tr>
                                        <th scope="row" title={row.source.clone()}>{ row.provider.clone() }</th>
                                        <td>{ format!("{} / {}", format_usd(row.api_usd_per_m_input), format_usd(row.api_usd_per_m_output)) }</td>
                                        <td>{ format_usd(row.api_usd_per_m_mixed) }</td>
                                        <td data-col="u_star">{ if u_star > 1.0 { "> 100 %".to_string() } else { format!("{} %", percent(u_star)) } }</td>
                                        <td>{ cheaper }</td>
                                        <td data-col="as_of" title={row.source.clone()}>{ crate::catalog::dated(&row.as_of).to_string() }</td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </div>
                { for_the_traffic(props) }
            }
        </section>
    }
}
