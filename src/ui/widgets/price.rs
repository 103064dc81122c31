//! What the page shows where a cost would be when the scenario has no price per GPU-hour (a GPU
//! the catalog has no rental price for, and none typed): "—" in the number's place, never a
//! made-up number, and a short hint whose link moves the focus to the price control.

use crate::present::format::format_usd;
use crate::scenario::fields::USD_PER_GPU_HOUR;
use crate::ui::widgets::decision_inputs::usd_amount;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A cost without a price.
pub const NO_COST: &str = "—";

/// `$/M` as the page writes it, or `NO_COST`.
pub fn usd_or_dash(value: Option<f64>) -> String {
    value.map_or_else(|| NO_COST.into(), format_usd)
}

/// A dollar amount (per hour, per month), or `NO_COST`.
pub fn amount_or_dash(value: Option<f64>) -> String {
    value.map_or_else(|| NO_COST.into(), usd_amount)
}

/// Focus the price control (which scrolls it into view) instead of following the link, so the
/// address keeps its query and gains no fragment.
fn focus_price(event: MouseEvent) {
    let control = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(USD_PER_GPU_HOUR.key))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(control) = control {
        event.prevent_default();
        let _ = control.focus();
    }
}

/// "No price per GPU-hour for the GPU: enter a price …", the link pointing at the price control
/// (`#usd-per-gpu-hour`), or plain text where that control is not on the page (an embed without
/// it). `id` names the hint; every such hint carries `data-no-price` for tests and scripts.
pub fn enter_price_hint(id: &'static str, gpu_name: &str, link: bool) -> Html {
    let lead = format!("No price per GPU-hour for the {gpu_name}: ");
    let action = if link {
        html! { <a href={format!("#{}", USD_PER_GPU_HOUR.key)} onclick={Callback::from(focus_price)}>{ "enter a price" }</a> }
    } else {
        html! { { "enter a price" } }
    };
    html! {
        <p class="hint no-price" {id} data-no-price="">
            { lead }{ action }{ " to see what it costs." }
        </p>
    }
}
