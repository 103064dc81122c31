//! The cost panel's price: the tier the scenario's $/GPU-hour matches (a dated catalog quote, the
//! owned-hardware price or "your price"), the blend, where the price comes from, and the owned
//! hardware's inputs with its effective $/GPU-hour broken down (`economics::Ownership::cost`).

use super::{field_options, CostPanelProps};
use crate::catalog::Gpu;
use crate::choice::Choice;
use crate::decide::pricing::{tier_of, YOUR_PRICE};
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::fields::number_text;
use crate::physics::economics::{OwnedCost, Ownership, PriceTier};
use crate::scenario::fields::{
    Field, BLEND, CAPEX_USD_PER_GPU, DEPRECIATION_YEARS, ENERGY_PUE, ENERGY_USD_PER_KWH,
    HOSTING_USD_PER_KW_MONTH, OPS_USD_PER_GPU_HOUR, OWNED_POWER_W, USD_PER_GPU_HOUR,
};
use crate::scenario::Scenario;
use crate::ui::tools::decision_panels::{decision_field, edit_decision};
use crate::ui::widgets::decision_inputs::{select_field, NumberField};
use yew::prelude::*;

/// What the scenario's price per GPU-hour is: the catalog tier or owned-hardware price it
/// matches (none for a typed price), the owned hardware's inputs and effective cost, and the
/// date of the catalog's rental quotes.
pub(super) struct PriceBasis {
    tier: Option<PriceTier>,
    ownership: Option<Ownership>,
    owned: Option<OwnedCost>,
    rental_as_of: String,
}

impl PriceBasis {
    pub(super) fn of(d: &DecisionState, scenario: &Scenario) -> PriceBasis {
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
        let rental_as_of = if gpu.price_as_of.is_empty() {
            "undated".to_string()
        } else {
            format!("as of {}", gpu.price_as_of)
        };
        PriceBasis {
            tier,
            ownership,
            owned,
            rental_as_of,
        }
    }

    /// Exactly the catalog's quote of a tier (an unquoted tier is not offered), or the owned price.
    fn quoted(&self, gpu: &Gpu, tier: PriceTier) -> Option<f64> {
        match tier {
            PriceTier::Low => gpu.usd_per_gpu_hour_low,
            PriceTier::Typical => gpu.usd_per_gpu_hour_typical,
            PriceTier::High => gpu.usd_per_gpu_hour_high,
            PriceTier::Owned => self.owned.map(|c| c.usd_per_gpu_hour),
        }
    }

    /// The price tier's choices: the quoted tiers, the owned price, then "custom".
    fn choices(&self, scenario: &Scenario) -> Vec<(String, String)> {
        let mut tiers: Vec<(String, String)> = PriceTier::RENTAL
            .into_iter()
            .chain([PriceTier::Owned])
            .filter_map(|t| {
                Some((
                    t.id().to_string(),
                    format!("{} ${:.2}", t.id(), self.quoted(&scenario.gpu, t)?),
                ))
            })
            .collect();
        tiers.push((
            "custom".into(),
            scenario.usd_per_gpu_hour.map_or_else(
                || "your price (none yet)".to_string(),
                |price| format!("{YOUR_PRICE} ${}", number_text(price)),
            ),
        ));
        tiers
    }

    /// Where the price comes from (`#price-source`).
    fn source(&self, scenario: &Scenario) -> String {
        let rental_as_of = &self.rental_as_of;
        match self.tier {
            Some(PriceTier::Owned) => "The price is the owned-hardware tier below.".to_string(),
            Some(t) => format!(
                "The price is the catalog's {} on-demand quote for the {}, {rental_as_of}.",
                t.id(),
                scenario.gpu.name
            ),
            None if scenario.usd_per_gpu_hour.is_some() => {
                format!("The price is {YOUR_PRICE} (typed, not a catalog quote).")
            }
            None => String::new(),
        }
    }

    /// The owned price broken down, beside the rental tiers (`#owned-price`).
    fn owned_line(&self, gpu: &Gpu) -> Option<String> {
        self.owned.map(|c| {
            let rentals: Vec<String> = PriceTier::RENTAL
                .into_iter()
                .filter_map(|t| Some(format!("{} ${:.2}", t.id(), self.quoted(gpu, t)?)))
                .collect();
            format!(
                "Owned: ${:.3} capex + ${:.3} power ({:.0} W × PUE) + ${:.3} hosting + ${:.3} operations = ${:.3} per GPU-hour{}.",
                c.capex_usd_per_gpu_hour,
                c.power_usd_per_gpu_hour,
                c.power_w,
                c.hosting_usd_per_gpu_hour,
                c.ops_usd_per_gpu_hour,
                c.usd_per_gpu_hour,
                if rentals.is_empty() { String::new() } else { format!(", beside the rental tiers {} ({})", rentals.join(", "), self.rental_as_of) }
            )
        })
    }
}

/// Picking a price tier writes its price into the scenario's $/GPU-hour field; "custom" keeps
/// the typed price.
fn on_price_tier(props: &CostPanelProps, ownership: Option<Ownership>) -> Callback<String> {
    let (on_edit, decisions, gpu) = (
        props.on_edit.clone(),
        props.decisions.clone(),
        props.view.scenario.gpu.clone(),
    );
    Callback::from(move |value: String| match PriceTier::parse(&value) {
        Some(t) => {
            if let Some(price) = t.price_with(&gpu, ownership.as_ref()) {
                decisions.dispatch(DecisionAction::SetCustomPrice(false));
                on_edit.emit((&USD_PER_GPU_HOUR, number_text(price)));
            }
        }
        None => decisions.dispatch(DecisionAction::SetCustomPrice(true)),
    })
}

/// The price tier and the blend, where the price comes from, and the catalog quotes' sources.
pub(super) fn price_inputs(props: &CostPanelProps, basis: &PriceBasis) -> Html {
    let d = &*props.decisions;
    let scenario = &props.view.scenario;
    let gpu = &scenario.gpu;
    let rental_as_of = &basis.rental_as_of;
    html! {
        <>
            <div class="decision-fields">
                { select_field("price-tier", "Price tier", &basis.choices(scenario), basis.tier.map_or("custom", PriceTier::id), Some("$/GPU-hour: the catalog's on-demand quotes for this GPU, or custom (the Price per GPU-hour field).".into()), on_price_tier(props, basis.ownership)) }
                { select_field(BLEND.key, BLEND.label, &field_options(&BLEND), &d.input.blend.value(), None, edit_decision(&props.decisions, &BLEND)) }
            </div>
            <p class="hint" id="price-source">{ basis.source(scenario) }</p>
            if let Some(sources) = crate::catalog::gpu_provenance(&gpu.id).filter(|p| !p.source.is_empty()) {
                <details class="hint" id="price-sources">
                    <summary>{ format!("Sources of the catalog's {} quotes ({rental_as_of})", gpu.name) }</summary>
                    <p>{ sources.source.clone() }</p>
                </details>
            }
        </>
    }
}

/// The owned hardware's inputs (`#owned-hardware`) and its effective $/GPU-hour, broken down.
pub(super) fn owned_hardware(props: &CostPanelProps, basis: &PriceBasis) -> Html {
    let d = &*props.decisions;
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
    html! {
        <details class="owned-hardware" id="owned-hardware" open={basis.ownership.is_some()}>
            <summary>{ "Owned hardware: an effective $/GPU-hour" }</summary>
            <p class="hint">{ "NVIDIA's TCO method (server cost ÷ depreciation + power + hosting + software), per GPU-hour: capex ÷ (years × 8760) + kW × PUE × $/kWh + hosting $/kW-month × kW × PUE ÷ 730 + operations. Enter a capex to add an \"owned\" tier to the price choice." }</p>
            <div class="decision-fields">
                { for owned_fields.into_iter().map(|field| NumberField {
                    placeholder: if field == &OWNED_POWER_W { Some("catalog TDP") } else { field.optional.then_some("none") },
                    ..decision_field(&props.decisions, field)
                }.render()) }
            </div>
            if let Some(line) = basis.owned_line(&props.view.scenario.gpu) {
                <p class="hint" id="owned-price">{ line }</p>
            }
            if basis.tier == Some(PriceTier::Owned) && d.input.energy_on {
                <p class="notice" role="status">{ "The owned price already includes power: with Add electricity on, power is counted twice." }</p>
            }
        </details>
    }
}
