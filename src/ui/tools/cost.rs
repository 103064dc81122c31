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

use crate::decide::pricing::{tier_of, PointCost, UTILIZATION_STEPS, YOUR_PRICE};
use crate::model::economics::{energy_usd_per_gpu_hour, Energy, PriceTier};
use crate::page::decision_data::DecisionData;
use crate::page::decisions::{sig_text, DecisionAction, DecisionState, LoadUnit};
use crate::page::fields::number_text;
use crate::page::state::View;
use crate::present::report::format_usd;
use crate::scenario::fields::{
    Field, BLEND, CAPEX_USD_PER_GPU, DEPRECIATION_YEARS, ENERGY, ENERGY_PUE, ENERGY_USD_PER_KWH,
    HOSTING_USD_PER_KW_MONTH, OFFERED_LOAD, OFFERED_LOAD_UNIT, OPS_USD_PER_GPU_HOUR, OWNED_POWER_W,
    USD_PER_GPU_HOUR,
};
use crate::ui::widgets::decision_inputs::{percent, select_field, usd_amount, NumberField};
use crate::ui::widgets::metric::Metric;
use crate::ui::widgets::price::{amount_or_dash, enter_price_hint, usd_or_dash};
use yew::prelude::*;

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

pub fn cost_panel(props: &CostPanelProps) -> Html {
    let d = &*props.decisions;
    let scenario = &props.view.scenario;
    let point = &props.view.point;
    let (input_len, output_len) = (scenario.workload.input_mean, scenario.workload.output_mean);
    let ratio = d.input.blend.input_per_output(input_len, output_len);
    let ratio_label = d.input.blend.label(input_len, output_len);
    // `None` without a price per GPU-hour: then every money figure below is "—".
    let cost = PointCost::new(scenario, point, ratio, d.energy());
    let full = cost.map(|c| c.at_capacity());
    let (u, capped) = d.utilization(point.output_tok_s);
    let at_load = cost.map(|c| c.at_load(u));

    // Price tier: picking one writes its price into the scenario's $/GPU-hour field.
    let gpu = &scenario.gpu;
    let ownership = d.input.ownership();
    let owned = ownership.and_then(|o| o.cost(gpu.tdp_w));
    let owned_price = owned.map(|c| c.usd_per_gpu_hour);
    let tier = if d.custom_price {
        None
    } else {
        scenario.usd_per_gpu_hour.and_then(|price| {
            tier_of(gpu, price).or_else(|| {
                owned_price
                    .filter(|o| (o - price).abs() < 1e-9)
                    .map(|_| PriceTier::Owned)
            })
        })
    };
    // Exactly the catalog's quotes (an unquoted tier is not offered), then the owned price.
    let quoted = |t: PriceTier| match t {
        PriceTier::Low => gpu.usd_per_gpu_hour_low,
        PriceTier::Typical => gpu.usd_per_gpu_hour_typical,
        PriceTier::High => gpu.usd_per_gpu_hour_high,
        PriceTier::Owned => owned_price,
    };
    let mut tiers: Vec<(String, String)> = PriceTier::RENTAL
        .into_iter()
        .chain([PriceTier::Owned])
        .filter_map(|t| Some((t.id().to_string(), format!("{} ${:.2}", t.id(), quoted(t)?))))
        .collect();
    tiers.push((
        "custom".into(),
        scenario.usd_per_gpu_hour.map_or_else(
            || "your price (none yet)".to_string(),
            |price| format!("{YOUR_PRICE} ${}", number_text(price)),
        ),
    ));
    let on_tier = {
        let (on_edit, decisions, gpu) =
            (props.on_edit.clone(), props.decisions.clone(), gpu.clone());
        Callback::from(move |value: String| match PriceTier::parse(&value) {
            Some(t) => {
                if let Some(price) = t.price_with(&gpu, ownership.as_ref()) {
                    decisions.dispatch(DecisionAction::SetCustomPrice(false));
                    on_edit.emit((&USD_PER_GPU_HOUR, number_text(price)));
                }
            }
            None => decisions.dispatch(DecisionAction::SetCustomPrice(true)),
        })
    };
    let options = |field: &Field| -> Vec<(String, String)> {
        field
            .choices
            .iter()
            .map(|(v, l)| (v.to_string(), l.to_string()))
            .collect()
    };
    let edit = |field: &'static Field| {
        let decisions = props.decisions.clone();
        Callback::from(move |text: String| decisions.dispatch(DecisionAction::Edit(field, text)))
    };
    let on_energy = {
        let decisions = props.decisions.clone();
        Callback::from(move |event: Event| {
            if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
                let value = if input.checked() { "on" } else { "off" };
                decisions.dispatch(DecisionAction::Edit(&ENERGY, value.into()));
            }
        })
    };
    // Switching the unit keeps the same load: 50 % of 4,000 tok/s becomes 2000 tok/s.
    let on_unit = {
        let (decisions, capacity, current) = (
            props.decisions.clone(),
            point.output_tok_s,
            d.input.load_unit,
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
    };
    // What electricity would add at the typed price and PUE, whether or not it is switched on.
    let typed_energy = Energy {
        usd_per_kwh: d.input.energy_usd_per_kwh,
        pue: d.input.energy_pue,
    };
    let rental_as_of = if gpu.price_as_of.is_empty() {
        "undated".to_string()
    } else {
        format!("as of {}", gpu.price_as_of)
    };
    let price_source = match tier {
        Some(PriceTier::Owned) => "The price is the owned-hardware tier below.".to_string(),
        Some(t) => format!(
            "The price is the catalog's {} on-demand quote for the {}, {rental_as_of}.",
            t.id(),
            gpu.name
        ),
        None if scenario.usd_per_gpu_hour.is_some() => {
            format!("The price is {YOUR_PRICE} (typed, not a catalog quote).")
        }
        None => String::new(),
    };
    let owned_line = owned.map(|c| {
        let rentals: Vec<String> = PriceTier::RENTAL
            .into_iter()
            .filter_map(|t| Some(format!("{} ${:.2}", t.id(), quoted(t)?)))
            .collect();
        format!(
            "Owned: ${:.3} capex + ${:.3} power ({:.0} W × PUE) + ${:.3} hosting + ${:.3} operations = ${:.3} per GPU-hour{}.",
            c.capex_usd_per_gpu_hour,
            c.power_usd_per_gpu_hour,
            c.power_w,
            c.hosting_usd_per_gpu_hour,
            c.ops_usd_per_gpu_hour,
            c.usd_per_gpu_hour,
            if rentals.is_empty() { String::new() } else { format!(", beside the rental tiers {} ({rental_as_of})", rentals.join(", ")) }
        )
    });
    let owned_fields: Vec<&'static Field> = if d.input.energy_on {
        vec![
            &CAPEX_USD_PER_GPU,
            &DEPRECIATION_YEARS,
            &OWNED_POWER_W,
            &HOSTING_USD_PER_KW_MONTH,
            &OPS_USD_PER_GPU_HOUR,
        ]
    } else {
        // Electricity's price and PUE price the owned hardware's power too; shown here when
        // electricity is off (their boxes above are hidden then).
        vec![
            &CAPEX_USD_PER_GPU,
            &DEPRECIATION_YEARS,
            &OWNED_POWER_W,
            &ENERGY_USD_PER_KWH,
            &ENERGY_PUE,
            &HOSTING_USD_PER_KW_MONTH,
            &OPS_USD_PER_GPU_HOUR,
        ]
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

    // This configuration sized for the traffic by the one sizing function (`sizing::size`,
    // computed with the decision data): at the SLO, checked in the simulator, or at max
    // throughput without one; under the Plan's utilization ceiling and GPUs per server.
    let rules = crate::decide::sizing::SizingRules::of(&d.input);
    let sized_at = if props.data.current.slo.is_some() {
        "at the SLO, checked in the simulator"
    } else {
        "at max throughput"
    };
    html! {
        <section class="panel decision cost-panel" aria-labelledby="cost-title">
            <h2 id="cost-title">{ "Cost" }</h2>
            <div class="decision-fields">
                { select_field("price-tier", "Price tier", &tiers, tier.map_or("custom", PriceTier::id), Some("$/GPU-hour: the catalog's on-demand quotes for this GPU, or custom (the Price per GPU-hour field).".into()), on_tier) }
                { select_field(BLEND.key, BLEND.label, &options(&BLEND), &d.input.blend.value(), None, edit(&BLEND)) }
            </div>
            <p class="hint" id="price-source">{ price_source }</p>
            if let Some(sources) = crate::catalog::gpu_provenance(&gpu.id).filter(|p| !p.source.is_empty()) {
                <details class="hint" id="price-sources">
                    <summary>{ format!("Sources of the catalog's {} quotes ({rental_as_of})", gpu.name) }</summary>
                    <p>{ sources.source.clone() }</p>
                </details>
            }
            <details class="owned-hardware" id="owned-hardware" open={ownership.is_some()}>
                <summary>{ "Owned hardware: an effective $/GPU-hour" }</summary>
                <p class="hint">{ "NVIDIA's TCO method (server cost ÷ depreciation + power + hosting + software), per GPU-hour: capex ÷ (years × 8760) + kW × PUE × $/kWh + hosting $/kW-month × kW × PUE ÷ 730 + operations. Enter a capex to add an \"owned\" tier to the price choice." }</p>
                <div class="decision-fields">
                    { for owned_fields.into_iter().map(|field| NumberField {
                        placeholder: if field == &OWNED_POWER_W { Some("catalog TDP") } else { field.optional.then_some("none") },
                        ..NumberField::of(field, d.text(field).to_string(), d.error(field).map(str::to_string), edit(field))
                    }.render()) }
                </div>
                if let Some(line) = owned_line.clone() {
                    <p class="hint" id="owned-price">{ line }</p>
                }
                if tier == Some(PriceTier::Owned) && d.input.energy_on {
                    <p class="notice" role="status">{ "The owned price already includes power: with Add electricity on, power is counted twice." }</p>
                }
            </details>
            <div class="field checkbox-field">
                <input type="checkbox" id={ENERGY.key} checked={d.input.energy_on} onchange={on_energy} />
                <label for={ENERGY.key}>{ ENERGY.label }</label>
            </div>
            if d.input.energy_on {
                <div class="decision-fields">
                    { for [&ENERGY_USD_PER_KWH, &ENERGY_PUE].map(|field| NumberField::of(field, d.text(field).to_string(), d.error(field).map(str::to_string), edit(field)).render()) }
                </div>
            }
            <p class="hint">{ energy_hint }</p>
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
                { enter_price_hint(COST_NO_PRICE_ID, &gpu.name, true) }
            }
            <h3>{ "At a lower load" }</h3>
            <div class="decision-fields">
                { NumberField { hint: capped.then(|| format!("Above this point's capacity of {:.0} output tok/s: counted as 100 %; the traffic sizing below buys more replicas.", point.output_tok_s)), ..NumberField::of(&OFFERED_LOAD, d.text(&OFFERED_LOAD).to_string(), d.error(&OFFERED_LOAD).map(str::to_string), edit(&OFFERED_LOAD)) }.render() }
                { select_field(OFFERED_LOAD_UNIT.key, OFFERED_LOAD_UNIT.label, &options(&OFFERED_LOAD_UNIT), d.text(&OFFERED_LOAD_UNIT), None, on_unit) }
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
            <h3>{ format!("For the traffic, {sized_at}") }</h3>
            { match &props.data.current.sized {
                Some(Ok(sized)) => {
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
                    <p class="hint" id="sizing-rules">{ crate::decide::sizing::rules_sentence(&rules, sized) }</p>
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
                Some(Err(why)) => html! { <p class="muted" id="sizing-none">{ format!("This configuration cannot carry the traffic within the SLO: {why}. Loosen a target or run the plan.") }</p> },
                None => html! { <p class="muted">{ "Enter a traffic volume under Targets to size a deployment." }</p> },
            } }
        </section>
    }
}
