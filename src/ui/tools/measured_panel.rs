//! Measured points beside the model (issue 13 §2), rendered by the tools module into the
//! explorer's `#measured-slot` under the chart through a portal: a toggle that shows or hides the
//! points on the chart (they travel in the `servecost:overlay` event, `Overlay::measured`) and a
//! table `#measured-points` of the matching rows of `data/measurements.csv` (`calibration::measured`)
//! with validation's prediction and the error.
//!
//! The chart's legend is drawn on the canvas, so the DOM entries carry the attribute: the
//! toggle's label is the legend entry (`data-measured-point="legend"`), each table row carries
//! `data-measured-point="ROW-ID"`, and its `title` is the tooltip (source, engine, precision;
//! the file has no date column, so the source names the publication and its date where it has one).

use crate::calibration::measured::MeasuredRow;
use crate::calibration::validate::Comparison;
use crate::present::format::format_number;
use yew::prelude::*;

/// The table's id.
pub const MEASURED_TABLE_ID: &str = "measured-points";
/// The toggle's id (a page-local view switch, not a link field: it changes no number).
pub const MEASURED_TOGGLE_ID: &str = "measured-toggle";

/// The chart's legend text for `n` points.
pub fn legend_label(n: usize) -> String {
    format!("measured ({n})")
}

#[derive(Properties, PartialEq)]
pub struct MeasuredProps {
    pub rows: std::rc::Rc<Vec<MeasuredRow>>,
    pub shown: bool,
    pub on_toggle: Callback<bool>,
}

fn cells(c: Option<Comparison>) -> Html {
    match c {
        Some(c) => html! {
            <>
                <td>{ format_number(c.measured) }</td>
                <td>{ format_number(c.predicted) }</td>
                <td>{ format!("{:+.0} %", c.error * 100.0) }</td>
            </>
        },
        None => html! { <><td>{ "—" }</td><td>{ "—" }</td><td></td></> },
    }
}

#[function_component(MeasuredPanel)]
pub fn measured_panel(props: &MeasuredProps) -> Html {
    // The panel is a portal into the explorer's `#measured-slot`, inside the explorer's Yew root,
    // whose event delegation would swallow a Yew `onchange` here: the toggle listens on its own
    // element instead.
    let toggle = use_node_ref();
    {
        let (toggle, on_toggle) = (toggle.clone(), props.on_toggle.clone());
        use_effect_with((on_toggle, props.rows.is_empty()), move |(on_toggle, _)| {
            let on_toggle = on_toggle.clone();
            let listener = toggle.cast::<web_sys::HtmlInputElement>().map(|input| {
                let target = input.clone();
                gloo::events::EventListener::new(&input, "change", move |_| {
                    on_toggle.emit(target.checked());
                })
            });
            move || drop(listener)
        });
    }
    let rows = &props.rows;
    if rows.is_empty() {
        return html! {
            <p class="measured-none">{ "No row of data/measurements.csv matches this model, GPU and lengths (within 15 %)." }</p>
        };
    }
    let plotted = rows.iter().filter(|r| r.chart_point.is_some()).count();
    html! {
        <div class="measured">
            <label data-measured-point="legend">
                <input type="checkbox" id={MEASURED_TOGGLE_ID} checked={props.shown} ref={toggle} />
                { format!(" Show measured points on the chart ({plotted} of {} rows; hollow squares)", rows.len()) }
            </label>
            <table id={MEASURED_TABLE_ID} class="measured-table">
                <caption>{ "Measurements for this model and GPU (lengths within 15 %), against the model's prediction for each row" }</caption>
                <thead>
                    <tr>
                        <th>{ "row" }</th><th>{ "Engine" }</th><th>{ "Precision" }</th><th>{ "GPUs" }</th><th>{ "conc." }</th>
                        <th>{ "tok/s" }</th><th>{ "predicted" }</th><th>{ "err" }</th>
                        <th>{ "TPOT ms" }</th><th>{ "predicted" }</th><th>{ "err" }</th>
                        <th>{ "TTFT ms" }</th><th>{ "predicted" }</th><th>{ "err" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|r| {
                        let p = r.prediction.as_ref();
                        let title = format!("{} · {} · {} · {} · source: {}", r.id, r.engine, r.precision, r.mode, r.source);
                        html! {
                            <tr data-measured-point={r.id.clone()} {title}>
                                <td>{ r.id.clone() }</td>
                                <td>{ r.engine.clone() }</td>
                                <td>{ r.precision.clone() }</td>
                                <td>{ format_number(r.num_gpus) }</td>
                                <td>{ r.concurrency.map_or_else(|| r.mode.clone(), format_number) }</td>
                                { cells(p.and_then(|p| p.throughput)) }
                                { cells(p.and_then(|p| p.tpot)) }
                                { cells(p.and_then(|p| p.ttft)) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}
