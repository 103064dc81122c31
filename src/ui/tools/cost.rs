//! The cost panel: $/M input, output and blended at the current operating point (any blend
//! ratio), the price tier, optional electricity, the effective price at an offered load below
//! capacity (the 1/u effect, as a table and a small chart), and the monthly bill of the GPUs a
//! traffic volume needs at the SLO. Formulas: `pricing` and `sizing` (MODEL.md §7). Without a
//! price per GPU-hour every money figure reads "—" (the GPUs a traffic needs are still counted)
//! and a hint points at the price control.
//!
//! Prices carry their provenance: the catalog tiers show their date and sources (`#price-source`),
//! a typed price is "your price", and owned hardware (`#owned-hardware`: capex, depreciation,
//! power, PUE and $/kWh, hosting, operations) gives an "owned" tier beside the rental ones at its
//! effective $/GPU-hour (`economics::Ownership::cost`, NVIDIA's TCO method), broken down.
//!
//! One function per part of the panel, in the order it shows them: the price (`cost/price.rs`:
//! tier, blend, sources, owned hardware), electricity, the per-token figures at capacity, at a
//! lower load (with the 1/u chart and table), and the sizing for the traffic.

use crate::decide::pricing::{PointCost, UTILIZATION_STEPS};
use crate::decide::sizing::{rules_sentence, Sized, SizingRules};
use crate::page::decision_data::DecisionData;
use crate::page::decisions::{sig_text, DecisionAction, DecisionState, LoadUnit};
use crate::page::state::View;
use crate::physics::economics::{energy_usd_per_gpu_hour, Energy};
use crate::present::format::format_usd;
use crate::scenario::fields::{
    Field, ENERGY, ENERGY_PUE, ENERGY_USD_PER_KWH, OFFERED_LOAD, OFFERED_LOAD_UNIT,
};
use crate::ui::tools::decision_panels::decision_field;
use crate::ui::widgets::decision_inputs::{percent, select_field, usd_amount, NumberField};
use crate::ui::widgets::metric::Metric;
use crate::ui::widgets::price::{amount_or_dash, enter_price_hint, usd_or_dash};
use yew::prelude::*;

mod price;
use price::{owned_hardware, price_inputs, PriceBasis};

/// The hint asking for a price when the scenario has none.
pub const COST_NO_PRICE_ID: &str = "cost-no-price";

/// What the panel shows from (a plain function, not a component: it re-renders with every
/// operating point anyway, and each component type costs the wasm binary its own code).
pub struct CostPanelProps {
    pub view: View,
    pub decisions: UseReducerHandle<DecisionState>,
    pub data: DecisionData,
    pub on_edit: Callback<(&'static Field, String)>,
}

/// Effective $/M output against utilization: a polyline over 5–100 %, the current load marked.
fn utilization_chart(cost: &PointCost, current_u: f64) -> Html {
    const W: f64 = 240.0;
    const H: f64 = 90.0;
    const LEFT: f64 = 4.0;
    const TOP: f64 = 6.0;
    const BOTTOM: f64 = 16.0;
    let lowest = 0.05;
    let top_price = cost.at_load(lowest).usd_per_m_output.max(1e-12);
    let xy = |u: f64| {
        let price = cost.at_load(u).usd_per_m_output;
        let x = LEFT + (u - lowest) / (1.0 - lowest) * (W - 2.0 * LEFT);
        let y = TOP + (1.0 - price / top_price) * (H - TOP - BOTTOM);
        (x, y)
    };
    let points: Vec<String> = (1..=20)
        .map(|i| f64::from(i) * 0.05)
        .map(|u| {
            let (x, y) = xy(u);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let (cx, cy) = xy(current_u.max(lowest));
    let full = cost.at_capacity().usd_per_m_output;
    let label = format!(
        "Effective $/M output against utilization: {} at 10 %, {} at 50 %, {} at 100 %; this load ({} %) marked.",
        format_usd(cost.at_load(0.1).usd_per_m_output),
        format_usd(cost.at_load(0.5).usd_per_m_output),
        format_usd(full),
        percent(current_u)
    );
    html! {
        <svg class="u-chart" viewBox={format!("0 0 {W} {H}")} role="img" aria-label={label}>
            <line class="u-axis" x1={LEFT.to_string()} y1={(H - BOTTOM).to_string()} x2={(W - LEFT).to_string()} y2={(H - BOTTOM).to_string()} />
            <polyline class="u-curve" points={points.join(" ")} />
            <circle class="u-current" cx={format!("{cx:.1}")} cy={format!("{cy:.1}")} r="4" />
            <text class="u-tick" x={LEFT.to_string()} y={(H - 3.0).to_string()}>{ "5 %" }</text>
            <text class="u-tick" x={(W / 2.0).to_string()} y={(H - 3.0).to_string()} text-anchor="middle">{ "utilization" }</text>
            <text class="u-tick" x={(W - LEFT).to_string()} y={(H - 3.0).to_string()} text-anchor="end">{ "100 %" }</text>
        </svg>
    }
}

/// The panel: price inputs, electricity, the per-token figures at capacity and at a lower load,
/// and the GPUs the traffic needs.
pub fn cost_panel(props: &CostPanelProps) -> Html {
    let d = &*props.decisions;
    let scenario = &props.view.scenario;
    let (input_len, output_len) = (scenario.workload.input_mean, scenario.workload.output_mean);
    let ratio = d.input.blend.input_per_output(input_len, output_len);
    let ratio_label = d.input.blend.label(input_len, output_len);
    // `None` without a price per GPU-hour: then every money figure below is "—".
    let cost = PointCost::new(scenario, &props.view.point, ratio, d.energy());
    let basis = PriceBasis::of(d, scenario);
    html! {
        <section class="panel decision cost-panel" aria-labelledby="cost-title">
            <h2 id="cost-title">{ "Cost" }</h2>
            { price_inputs(props, &basis) }
            { owned_hardware(props, &basis) }
            { electricity(props) }
            { at_capacity(props, cost, &ratio_label) }
            { at_lower_load(props, cost, &ratio_label) }
            { traffic_sizing(props) }
        </section>
    }
}

/// The "Add electricity" switch, its price and PUE when on, and what it would add at full load.
fn electricity(props: &CostPanelProps) -> Html {
    let d = &*props.decisions;
    let gpu = &props.view.scenario.gpu;
    let point = &props.view.point;
    let on_energy = {
        let decisions = props.decisions.clone();
        Callback::from(move |event: Event| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                let value = if input.checked() { "on" } else { "off" };
                decisions.dispatch(DecisionAction::Edit(&ENERGY, value.into()));
            }
        })
    };
    // What electricity would add at the typed price and PUE, whether or not it is switched on.
    let typed_energy = Energy {
        usd_per_kwh: d.input.energy_usd_per_kwh,
        pue: d.input.energy_pue,
    };
    let energy_hint = match gpu.tdp_w {
        // As `PointCost::energy_usd_per_hour(1.0)`, which electricity needs no rental price for.
        Some(tdp) => format!(
            "{}: {tdp:.0} W TDP, idle taken as 20 % of it, times PUE; at full load +{}/h for {} GPUs.",
            gpu.name,
            usd_amount(f64::from(point.gpus.max(1)) * energy_usd_per_gpu_hour(tdp, 1.0, &typed_energy)),
            point.gpus
        ),
        None => format!("The catalog has no TDP for the {}: no electricity is added.", gpu.name),
    };
    html! {
        <>
            <div class="field checkbox-field">
                <input type="checkbox" id={ENERGY.key} checked={d.input.energy_on} onchange={on_energy} />
                <label for={ENERGY.key}>{ ENERGY.label }</label>
            </div>
            if d.input.energy_on {
                <div class="decision-fields">
                    { for [&ENERGY_USD_PER_KWH, &ENERGY_PUE].map(|field| decision_field(&props.decisions, field).render()) }
                </div>
            }
            <p class="hint">{ energy_hint }</p>
        </>
    }
}

/// A select field's choices as the field table lists them.
fn field_options(field: &Field) -> Vec<(String, String)> {
    field
        .choices
        .iter()
        .map(|(v, l)| (v.to_string(), l.to_string()))
        .collect()
}

/// $/M output, input and blended and $/hour at the operating point's full capacity; without a
/// price, the hint asking for one.
fn at_capacity(props: &CostPanelProps, cost: Option<PointCost>, ratio_label: &str) -> Html {
    let d = &*props.decisions;
    let point = &props.view.point;
    let full = cost.map(|c| c.at_capacity());
    html! {
        <>
            <h3>{ format!("At capacity, {} in flight", point.concurrency) }</h3>
            <div class="metrics">
                <Metric name="cost_usd_per_m_output" label="Output" primary=true value={usd_or_dash(full.map(|f| f.usd_per_m_output))} unit="per M"
                    definition="All-in $/hour (rental + electricity when on) ÷ output tokens per hour × 10⁶, serving at this operating point's full capacity." />
                <Metric name="cost_usd_per_m_input" label="Input" value={usd_or_dash(full.map(|f| f.usd_per_m_input))} unit="per M"
                    definition="The prefill share of the all-in $/hour ÷ prompt tokens per hour × 10⁶ (time attribution)." />
                <Metric name="cost_usd_per_m_blended" label={format!("Blended {ratio_label}")} value={usd_or_dash(full.map(|f| f.usd_per_m_blended))} unit="per M"
                    definition="(r × input price + decode-share output price) ÷ (r + 1), r input tokens per output token: comparable to an API's blended price." />
                <Metric name="usd_per_hour" label="All GPUs" value={amount_or_dash(full.map(|f| f.usd_per_hour))} unit="per hour"
                    definition="GPUs × $/GPU-hour, plus electricity at full load when it is on." />
                if let (true, Some(full)) = (d.input.energy_on, full) {
                    <Metric name="energy_usd_per_hour" label="Electricity" value={format!("+{}", usd_amount(full.energy_usd_per_hour))} unit="per hour"
                        definition="GPUs × TDP × PUE × $/kWh ÷ 1000 at full load (at a lower load: idle W + (TDP − idle W) × utilization, idle W = 20 % of TDP); included in every price here." />
                }
            </div>
            if cost.is_none() {
                { enter_price_hint(COST_NO_PRICE_ID, &props.view.scenario.gpu.name, true) }
            }
        </>
    }
}

/// Switching the offered load's unit keeps the same load: 50 % of 4,000 tok/s becomes 2000 tok/s.
fn on_load_unit(props: &CostPanelProps) -> Callback<String> {
    let (decisions, capacity, current) = (
        props.decisions.clone(),
        props.view.point.output_tok_s,
        props.decisions.input.load_unit,
    );
    Callback::from(move |value: String| {
        let unit = if value == "tok-s" {
            LoadUnit::OutputTokS
        } else {
            LoadUnit::PercentOfCapacity
        };
        if unit == current || capacity <= 0.0 {
            return;
        }
        let (u, _) = decisions.utilization(capacity);
        let text = match unit {
            LoadUnit::OutputTokS => sig_text(u * capacity),
            LoadUnit::PercentOfCapacity => sig_text(u * 100.0),
        };
        decisions.dispatch(DecisionAction::Edit(&OFFERED_LOAD_UNIT, value));
        decisions.dispatch(DecisionAction::Edit(&OFFERED_LOAD, text));
    })
}

/// The offered load, the utilization it means and the effective $/M there (the 1/u effect).
fn at_lower_load(props: &CostPanelProps, cost: Option<PointCost>, ratio_label: &str) -> Html {
    let d = &*props.decisions;
    let point = &props.view.point;
    let (u, capped) = d.utilization(point.output_tok_s);
    let at_load = cost.map(|c| c.at_load(u));
    html! {
        <>
            <h3>{ "At a lower load" }</h3>
            <div class="decision-fields">
                { NumberField { hint: capped.then(|| format!("Above this point's capacity of {:.0} output tok/s: counted as 100 %; the traffic sizing below buys more replicas.", point.output_tok_s)), ..decision_field(&props.decisions, &OFFERED_LOAD) }.render() }
                { select_field(OFFERED_LOAD_UNIT.key, OFFERED_LOAD_UNIT.label, &field_options(&OFFERED_LOAD_UNIT), d.text(&OFFERED_LOAD_UNIT), None, on_load_unit(props)) }
            </div>
            <div class="metrics">
                <Metric name="utilization_pct" label="Utilization" value={percent(u)} unit="%"
                    definition="u = offered output tok/s ÷ this operating point's output tok/s (its capacity)." />
                <Metric name="effective_usd_per_m_output" label="Effective output" primary=true value={usd_or_dash(at_load.map(|a| a.usd_per_m_output))} unit="per M"
                    definition="$/M output at capacity ÷ utilization: idle capacity still bills (electricity, when on, at the power drawn at this load)." />
                <Metric name="effective_usd_per_m_blended" label={format!("Effective {ratio_label}")} value={usd_or_dash(at_load.map(|a| a.usd_per_m_blended))} unit="per M"
                    definition="Blended $/M at capacity ÷ utilization." />
            </div>
            if let Some(cost) = &cost {
                { utilization_effect(cost, u, ratio_label) }
            }
        </>
    }
}

/// The 1/u effect as a small chart and a table of effective $/M by utilization.
fn utilization_effect(cost: &PointCost, u: f64, ratio_label: &str) -> Html {
    html! {
        <div class="u-effect">
            { utilization_chart(cost, u) }
            <table class="u-table" id="utilization-table">
                <caption>{ "Effective $/M as load rises (1/u)" }</caption>
                <thead><tr><th scope="col">{ "Utilization" }</th><th scope="col">{ "$/M output" }</th><th scope="col">{ format!("$/M {ratio_label}") }</th></tr></thead>
                <tbody>
                    { for UTILIZATION_STEPS.iter().map(|&step| {
                        let prices = cost.at_load(step);
                        html! { <tr><td>{ format!("{} %", percent(step)) }</td><td>{ format_usd(prices.usd_per_m_output) }</td><td>{ format_usd(prices.usd_per_m_blended) }</td></tr> }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// This configuration sized for the traffic by the one sizing function (`sizing::size`,
/// computed with the decision data): at the SLO, checked in the simulator, or at max
/// throughput without one; under the Plan's utilization ceiling and GPUs per server.
fn traffic_sizing(props: &CostPanelProps) -> Html {
    let sized_at = if props.data.current.slo.is_some() {
        "at the SLO, checked in the simulator"
    } else {
        "at max throughput"
    };
    html! {
        <>
            <h3>{ format!("For the traffic, {sized_at}") }</h3>
            { match &props.data.current.sized {
                Some(Ok(sized)) => sizing_figures(&props.decisions, sized, sized_at),
                Some(Err(why)) => html! { <p class="muted" id="sizing-none">{ format!("This configuration cannot carry the traffic within the SLO: {why}. Loosen a target or run the plan.") }</p> },
                None => html! { <p class="muted">{ "Enter a traffic volume under Targets to size a deployment." }</p> },
            } }
        </>
    }
}

/// The GPUs, replicas and monthly bill of a sizing, with its rules, layout and range.
fn sizing_figures(d: &DecisionState, sized: &Sized, sized_at: &str) -> Html {
    let rules = SizingRules::of(&d.input);
    let s = sized.sizing;
    html! {
        <>
        <div class="metrics">
            <Metric name="gpus_needed" label="GPUs needed" primary=true value={s.gpus.to_string()} unit="GPUs"
                definition={format!("Replicas × {} GPUs per replica; replicas = ceil(traffic output tok/s ÷ ({} % × one replica's output tok/s at C = {} {sized_at})), whole servers of {} past one.", s.gpus_per_replica, percent(rules.max_utilization), sized.point.concurrency, rules.gpus_per_node)} />
            <Metric name="replicas_needed" label="Replicas" value={s.replicas.to_string()} unit="replicas"
                definition="ceil(traffic output tok/s ÷ (utilization ceiling × one replica's output tok/s at the sizing point)), plus any the simulated check at the traffic added." />
            <Metric name="usd_per_month" label="Monthly" primary=true value={amount_or_dash(s.usd_per_month)} unit="per month"
                definition="GPUs needed × ($/GPU-hour + electricity when on) × 730 hours." />
            <Metric name="traffic_utilization_pct" label="Utilization" value={percent(s.utilization)} unit="%"
                definition="Traffic ÷ the capacity of the replicas bought, at most the utilization ceiling." />
            <Metric name="traffic_usd_per_m_output" label="Served output" value={usd_or_dash(s.usd_per_m_output)} unit="per M"
                definition="The monthly bill ÷ the output tokens the traffic actually generates, per million." />
        </div>
        <p class="hint" id="sizing-rules">{ rules_sentence(&rules, sized) }</p>
        if let Some(layout) = &sized.layout {
            <p class="hint" id="sizing-layout">{ format!("{layout}.") }</p>
        }
        if let Some(range) = &sized.range {
            <p class="hint" id="sizing-range">{ format!("Range: {}.", range.sentence()) }
                <span class={classes!("badge", format!("basis-{}", range.basis.id()))}>{ range.basis.id() }</span></p>
        }
        </>
    }
}
