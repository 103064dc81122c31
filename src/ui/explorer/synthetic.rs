//! "Synthetic vs production": the same settings with fixed lengths (what a benchmark with fixed
//! `input_len`/`output_len` measures) and with lognormal lengths (production-like: the user's σ,
//! or the Azure chat fit when the user's lengths are fixed), under both batching policies, at
//! the slider's concurrency, with the gap stated in words and numbers (MODEL.md §4.1, §6.4).
//!
//! The four scenarios are validated once per scenario (`model::techniques::LengthStudy`); a
//! slider move evaluates four operating points.

use crate::model::techniques::{LengthGap, TechniqueStudy};
use crate::page::state::Shared;
use crate::present::glossary;
use crate::present::report::format_number;
use crate::scenario::Batching;
use crate::ui::explorer::techniques::STATIC_BATCHING;
use crate::ui::widgets::glossary::Term;
use crate::ui::widgets::metric::group_thousands;
use yew::prelude::*;

pub const SYNTHETIC_SUMMARY_ID: &str = "synthetic-summary";

#[derive(Properties, PartialEq)]
pub struct SyntheticProps {
    pub techniques: Shared<TechniqueStudy>,
    pub concurrency: u32,
}

/// "2.1× lower", "1.3× higher", "the same": throughput with production-like lengths relative
/// to synthetic ones.
pub fn gap_words(gap: &LengthGap) -> String {
    match gap.throughput_ratio() {
        Some(ratio) if ratio >= 1.005 => format!("{}× lower", format_number(ratio)),
        Some(ratio) if ratio > 0.0 && ratio <= 0.995 => {
            format!("{}× higher", format_number(1.0 / ratio))
        }
        Some(_) => "the same".into(),
        None => "no".into(),
    }
}

fn policy_name(batching: Batching) -> &'static str {
    match batching {
        Batching::Continuous => "continuous",
        Batching::Static => "static",
    }
}

fn tok_s(value: f64) -> String {
    group_thousands(&format_number(value))
}

/// The headline sentence: the static-batching gap first (the large one), then continuous.
fn summary(gaps: &[LengthGap], concurrency: u32, sigmas: &str) -> String {
    let phrase = |batching: Batching| {
        gaps.iter().find(|g| g.batching == batching).map(|g| {
            format!(
                "{} throughput under {} batching",
                gap_words(g),
                policy_name(batching)
            )
        })
    };
    let parts: Vec<String> = [Batching::Static, Batching::Continuous]
        .into_iter()
        .filter_map(phrase)
        .collect();
    if parts.is_empty() {
        return "These settings cannot be evaluated with both length shapes.".into();
    }
    format!(
        "Production-like traffic ({sigmas}): {} at the same batch ({concurrency} in flight).",
        parts.join("; ")
    )
}

#[function_component(Synthetic)]
pub fn synthetic(props: &SyntheticProps) -> Html {
    let gaps = use_memo(
        (props.techniques.clone(), props.concurrency),
        |(study, concurrency)| study.lengths.at(*concurrency),
    );
    let lengths = &props.techniques.lengths;
    let sigmas = format!(
        "lognormal σ {} / {}{}",
        lengths.input_sigma,
        lengths.output_sigma,
        if lengths.sigmas_from_user {
            ""
        } else {
            ", the chat fit"
        }
    );
    let row = |gap: &LengthGap| {
        let name = policy_name(gap.batching);
        let label = match gap.batching {
            Batching::Continuous => {
                html! { <Term term={glossary::CONTINUOUS_BATCHING}>{ "Continuous" }</Term> }
            }
            Batching::Static => html! { <Term term={STATIC_BATCHING}>{ "Static" }</Term> },
        };
        let capacity_note = |fits: bool| (!fits).then_some(" (KV full)");
        html! {
            <tr>
                <th scope="row">{ label }</th>
                <td>
                    <span data-metric={format!("{name}_synthetic_output_tok_s_per_gpu")}>{ tok_s(gap.synthetic.output_tok_s_per_gpu) }</span>
                    { capacity_note(gap.synthetic.fits).unwrap_or_default() }
                </td>
                <td>
                    <span data-metric={format!("{name}_production_output_tok_s_per_gpu")}>{ tok_s(gap.production.output_tok_s_per_gpu) }</span>
                    { capacity_note(gap.production.fits).unwrap_or_default() }
                </td>
                <td data-metric={format!("{name}_length_gap")}>{ gap_words(gap) }</td>
            </tr>
        }
    };
    html! {
        <section class="panel synthetic" aria-labelledby="synthetic-title">
            <h2 id="synthetic-title">{ "Synthetic vs. production traffic" }</h2>
            <p class="lead" id={SYNTHETIC_SUMMARY_ID}>{ summary(&gaps, props.concurrency, &sigmas) }</p>
            <div class="table-scroll">
            <table class="data-table">
                <caption>{ format!("Output tok/s per GPU at {} in flight; production-like = {sigmas}", props.concurrency) }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ "Batching" }</th>
                        <th scope="col">{ "Synthetic (fixed)" }</th>
                        <th scope="col">{ "Production-like" }</th>
                        <th scope="col">{ "Production" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for gaps.iter().map(row) }
                </tbody>
            </table>
            </div>
            <p class="hint">{ "A benchmark with fixed input and output lengths cannot tell the batching policies apart: static batching pads every request to the batch's longest prompt and output, so varied lengths waste most of its slots. Reported numbers must state the length distribution." }</p>
        </section>
    }
}
