//! The Pareto chart's axis switches: x = tokens/s per user or TPOT (ms) (`#chart-x`); y = output
//! tokens/s per GPU, aggregate tokens/s, $ per M output tokens or tokens per dollar
//! (`#chart-y`). A switch only redraws: nothing is recomputed. The choice lives in the state's
//! `chart` options (the words `share.rs` puts in links: `x=tpot`, `y=usd`, ...).

use crate::choice::Choice;
use crate::present::chart::{Projection, XAxis, YAxis};
use yew::prelude::*;

pub const CHART_X_ID: &str = "chart-x";
pub const CHART_Y_ID: &str = "chart-y";

#[derive(Properties, PartialEq)]
pub struct ChartAxesProps {
    pub chart: Projection,
    pub on_change: Callback<Projection>,
}

#[function_component(ChartAxes)]
pub fn chart_axes(props: &ChartAxesProps) -> Html {
    let current = props.chart;
    let on_x = {
        let (on_change, chart) = (props.on_change.clone(), props.chart);
        Callback::from(move |event: Event| {
            if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
                if let Some(x) = XAxis::parse(&select.value()) {
                    on_change.emit(Projection { x, ..chart });
                }
            }
        })
    };
    let on_y = {
        let (on_change, chart) = (props.on_change.clone(), props.chart);
        Callback::from(move |event: Event| {
            if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
                if let Some(y) = YAxis::parse(&select.value()) {
                    on_change.emit(Projection { y, ..chart });
                }
            }
        })
    };
    html! {
        <div class="chart-axes" role="group" aria-label="Chart axes">
            <label for={CHART_X_ID}>{ "x" }</label>
            <select id={CHART_X_ID} onchange={on_x}>
                { for XAxis::ALL.iter().copied().map(|axis| html! {
                    <option value={axis.id()} selected={axis == current.x}>{ axis.label() }</option>
                }) }
            </select>
            <label for={CHART_Y_ID}>{ "y" }</label>
            <select id={CHART_Y_ID} onchange={on_y}>
                { for YAxis::ALL.iter().copied().map(|axis| html! {
                    <option value={axis.id()} selected={axis == current.y}>{ axis.label() }</option>
                }) }
            </select>
        </div>
    }
}
