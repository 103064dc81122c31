//! Where the ± beside the headline comes from (issue 13 §1): the expected-error class, each
//! band's rows and fallback, one click away. Rendered by the tools module into the explorer's
//! empty `#error-source-slot` below the latencies, so the first load carries neither this nor
//! the bands' row ids (`model::expected_error::band_rows`).

use crate::model::expected_error::{band, band_rows, plus_minus, Class, Metric as ErrorMetric};
use yew::prelude::*;

/// The `<details>` saying where the expected errors come from.
pub const ERROR_SOURCE_ID: &str = "error-source";

#[derive(Properties, PartialEq)]
pub struct ErrorSourceProps {
    pub class: Class,
}

/// The expected errors' source, one click away: class, rows, fallback (issue 13 §1). A
/// component of its own so a slider move that keeps the class skips it.
#[function_component(ErrorSource)]
pub fn error_source(props: &ErrorSourceProps) -> Html {
    let class = props.class;
    let line = |label: &str, metric: ErrorMetric| match band(class, metric) {
        Some(b) => html! {
            <li data-band={metric.id()}>
                { format!("{label} {}: {} rows (fallback: {}): ", plus_minus(b.error_pct), b.n, b.fallback.id()) }
                <span class="band-rows">{ band_rows(class, metric).unwrap_or_default() }</span>
            </li>
        },
        None => html! {},
    };
    html! {
        <details class="error-source" id={ERROR_SOURCE_ID}>
            <summary>{ format!("± expected error: {}", class.id()) }</summary>
            <p>{ "Cross-validated against data/measurements.csv (each row predicted with its whole publication held out: what a source the model never saw should expect; docs/VALIDATION.md). $/M's ± follows from tok/s's: E/(1−E)." }</p>
            <ul>
                { line("tok/s", ErrorMetric::OutputTokS) }
                { line("TPOT", ErrorMetric::TpotMs) }
                { line("TTFT", ErrorMetric::TtftMs) }
            </ul>
        </details>
    }
}
