//! The numbers beside the chart for the current operating point: cost, throughput, latency,
//! capacity, the GPU memory split, what bounds the step, and where the step time goes.
//!
//! Each definition is worded to match the model (`model::serving`, `physics::cost`): TPOT excludes
//! the first token; $/M output is the whole bill over output tokens; $/M input is the prefill
//! share of GPU time over input tokens; blended mixes 3 input : 1 output. Terms that the
//! glossary defines (TPOT, TTFT, interactivity, $/M) take their definition from it. Without a
//! price per GPU-hour the costs read "—" and a hint asks for a price. Throughput, TPOT, TTFT and
//! $/M output carry their expected error ("±18 %", `model::expected_error`), and the tools
//! module's `<details>` below the latencies (`ui::tools::error_source`) says which class, rows
//! and fallback it comes from.

use crate::choice::Choice;
use crate::model::expected_error::{plus_minus, point_errors, Class};
use crate::model::OperatingPoint;
use crate::physics::memory::MemorySplit;
use crate::physics::step::StepBreakdown;
use crate::present::format::format_number;
use crate::present::glossary;
use crate::ui::widgets::metric::{group_thousands, Metric};
use crate::ui::widgets::price::{enter_price_hint, usd_or_dash};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NumbersProps {
    pub point: crate::page::state::Shared<OperatingPoint>,
    /// The GPU's name, for the hint asking for a price when the scenario has none.
    pub gpu_name: AttrValue,
    /// The scenario's class at this point: which expected errors to show (`model::expected_error`).
    pub class: Class,
    /// The simulator's figures that replace the analytic ones at this point (`decide::headline`),
    /// once the tools module's run of it is in.
    #[prop_or_default]
    pub simulated: Option<crate::decide::headline::Reconciled>,
}

/// The hint under the costs when there is no price per GPU-hour.
pub const NO_PRICE_HINT_ID: &str = "numbers-no-price";

fn number(value: f64) -> AttrValue {
    AttrValue::from(group_thousands(&format_number(value)))
}

fn gb(value: f64) -> AttrValue {
    AttrValue::from(format!("{value:.1}"))
}

#[function_component(Numbers)]
pub fn numbers(props: &NumbersProps) -> Html {
    let p = &*props.point;
    // The simulator's figures where its run of this point replaces the analytic ones
    // (`decide::headline`), each labelled "(simulated)".
    let sim = props.simulated.unwrap_or_default();
    let label = |base: &str, replaced: Option<f64>| match replaced {
        Some(_) => format!("{base} (simulated)"),
        None => base.to_string(),
    };
    const SIM_NOTE: &str = " Here the simulator's mean at this point (closed loop, the simulator panel's run): the analytic form is saturated or differs from it by more than the stated error.";
    let tok_s = sim.output_tok_s.unwrap_or(p.output_tok_s);
    let tok_s_per_gpu = tok_s / f64::from(p.gpus.max(1));
    let tpot_ms = sim.tpot_ms.unwrap_or(p.tpot_ms);
    let ttft_ms = sim.ttft_ms.unwrap_or(p.ttft_ms);
    let gpus = p.gpus;
    let errors = point_errors(props.class);
    let pm = |pct: Option<f64>| pct.map(|pct| AttrValue::from(plus_minus(pct)));
    let usd_error = p.cost.as_ref().and(pm(errors.usd_per_m_output_error_pct));
    let tok_s_error = pm(errors.output_tok_s_error_pct);
    html! {
        <div class="numbers">
            <div class="metric-group">
                <h3>{ "Cost per million tokens" }</h3>
                <div class="metrics">
                    <Metric name="usd_per_m_output" label="Output" primary=true
                        value={usd_or_dash(p.usd_per_m_output)} unit="per M" error={usd_error}
                        definition={glossary::USD_PER_M_TOKENS.definition} />
                    <Metric name="usd_per_m_input" label="Input"
                        value={usd_or_dash(p.usd_per_m_input)} unit="per M"
                        definition="The prefill share of GPU time ÷ input (prompt) tokens, per million. With the decode share billed to output tokens, the two add up to the whole bill." />
                    <Metric name="usd_per_m_blended" label="Blended 3:1"
                        value={usd_or_dash(p.usd_per_m_blended)} unit="per M"
                        definition="3 input : 1 output mix of the input price and the decode-share output price, per million tokens: comparable to an API's blended price." />
                </div>
                if p.cost.is_none() {
                    { enter_price_hint(NO_PRICE_HINT_ID, &props.gpu_name, true) }
                }
            </div>
            if let Some(d) = p.disagg {
                <p class="pools" id="numbers-pools">{ format!(
                    "Prefill {} × TP{} ({:.0} % busy) → KV {:.1} ms over {} → decode {} × TP{} ({:.0} % busy); prefill queue {:.0} ms",
                    d.prefill_replicas, d.prefill_tp, 100.0 * d.prefill_utilization, d.kv_transfer_ms,
                    d.kv_link.id(), d.decode_replicas, d.decode_tp, 100.0 * d.decode_utilization, d.prefill_queue_ms
                ) }</p>
            }
            <div class="metric-group">
                <h3>{ "Throughput" }</h3>
                <div class="metrics">
                    <Metric name="output_tok_s_per_gpu" label={label("Per GPU", sim.output_tok_s)} primary=true
                        value={number(tok_s_per_gpu)} unit="output tok/s" error={tok_s_error.clone()}
                        definition="Output tokens per second divided by the number of GPUs: the chart's y axis." />
                    <Metric name="output_tok_s" label={format!("All {gpus} GPUs")}
                        value={number(tok_s)} unit="output tok/s" error={tok_s_error}
                        definition="Generated tokens per second across every GPU, in steady state with this many requests in flight (closed loop)." />
                    <Metric name="tok_s_per_user" label="Per user"
                        value={number(p.tok_s_per_user)} unit="tok/s"
                        definition={glossary::INTERACTIVITY.definition} />
                </div>
            </div>
            <div class="metric-group">
                <h3>{ "Latency (means)" }</h3>
                <div class="metrics">
                    <Metric name="tpot_ms" label={label("TPOT", sim.tpot_ms)}
                        value={number(tpot_ms)} unit="ms" error={pm(errors.tpot_ms_error_pct)}
                        definition={match sim.tpot_ms {
                            Some(_) => AttrValue::from(format!("{}{SIM_NOTE}", glossary::TPOT.definition)),
                            None => AttrValue::from(glossary::TPOT.definition),
                        }} />
                    // A saturated point's TTFT is the simulator's to give (issue 12 §5; 26 §4): the
                    // analytic figure stands only until the tools module's run of this point is in.
                    <Metric name="ttft_ms"
                        label={match (sim.ttft_ms, p.saturated) {
                            (Some(_), _) => "TTFT (simulated)",
                            (None, true) => "TTFT (saturated)",
                            (None, false) => "TTFT",
                        }}
                        value={number(ttft_ms)} error={pm(errors.ttft_ms_error_pct)}
                        unit={if p.saturated && sim.ttft_ms.is_none() { "ms · simulating…" } else { "ms" }}
                        definition={match (sim.ttft_ms, p.saturated) {
                            (Some(_), _) => AttrValue::from(format!("{}{SIM_NOTE}", glossary::TTFT.definition)),
                            (None, true) => AttrValue::from(format!("{} Saturated: requests queue for admission here (KV cache, engine limit or token budget nearly full), a queue the closed form cannot follow; the simulator's mean replaces this figure once its run is in.", glossary::TTFT.definition)),
                            (None, false) => AttrValue::from(glossary::TTFT.definition),
                        }} />
                </div>
            </div>
            // The tools module's "± expected error" details (`ui::tools::error_source`).
            <div id={crate::ui::platform::bridge::ERROR_SOURCE_SLOT_ID}></div>
            <div class="metric-group">
                <h3>{ "What limits it" }</h3>
                <div class="metrics">
                    <Metric name="max_concurrency" label="Max concurrency"
                        value={group_thousands(&p.max_concurrency.to_string())} unit="requests"
                        definition="The most requests in flight whose KV cache fits in GPU memory at these lengths, over all replicas. Beyond it, extra requests wait." />
                    <Metric name="bound" label="Bound by" wide=true
                        value={p.bound_label}
                        definition="The largest part of the decode step at this batch (streaming weights, streaming the KV cache, compute, communication, fixed overheads), or the capacity limit holding extra requests back." />
                </div>
                <StepTime step={p.decode_step} batch={p.batch_per_replica} />
            </div>
            <div class="metric-group">
                <h3>{ "GPU memory, per GPU" }</h3>
                <MemoryBar memory={p.memory} />
            </div>
        </div>
    }
}

/// One segment of a stacked bar.
struct Segment {
    class: &'static str,
    label: &'static str,
    value: f64,
}

/// A horizontal stacked bar in SVG (widths are attributes, not inline styles, so the page's
/// Content-Security-Policy need not allow styles from markup).
fn stacked_bar(segments: &[Segment], total: f64, label: String) -> Html {
    let total = if total > 0.0 { total } else { 1.0 };
    let mut x = 0.0;
    let rects: Html = segments
        .iter()
        .filter(|s| s.value > 0.0)
        .map(|s| {
            let width = (s.value / total * 100.0).clamp(0.0, 100.0 - x);
            let rect = html! {
                <rect class={s.class} x={format!("{x:.3}")} y="0" width={format!("{width:.3}")} height="10" />
            };
            x += width;
            rect
        })
        .collect();
    html! {
        <svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label={label}>
            <rect class="bar-track" x="0" y="0" width="100" height="10" />
            { rects }
        </svg>
    }
}

#[derive(Properties, PartialEq)]
struct MemoryBarProps {
    memory: MemorySplit,
}

#[function_component(MemoryBar)]
fn memory_bar(props: &MemoryBarProps) -> Html {
    let m = &props.memory;
    let kv_empty = (m.kv_pool_gb - m.kv_used_gb).max(0.0);
    let segments = [
        Segment {
            class: "seg-weights",
            label: "Weights",
            value: m.weights_gb,
        },
        Segment {
            class: "seg-reserved",
            label: "Reserved",
            value: m.reserved_gb,
        },
        Segment {
            class: "seg-kv",
            label: "KV cache in use",
            value: m.kv_used_gb,
        },
        Segment {
            class: "seg-kv-empty",
            label: "KV pool, empty",
            value: kv_empty,
        },
    ];
    let summary = format!(
        "Of {:.0} GB: weights {:.1} GB, reserved {:.1} GB, KV cache {:.1} GB, free {:.1} GB",
        m.total_gb, m.weights_gb, m.reserved_gb, m.kv_used_gb, m.free_gb
    );
    html! {
        <div class="breakdown">
            { stacked_bar(&segments, m.total_gb, summary) }
            <ul class="legend-list">
                <li><span class="swatch seg-weights"></span>{ "Weights " }<span data-metric="memory_weights_gb">{ gb(m.weights_gb) }</span>{ " GB" }</li>
                <li><span class="swatch seg-kv"></span>{ "KV cache " }<span data-metric="memory_kv_gb">{ gb(m.kv_used_gb) }</span>{ format!(" GB of a {:.1} GB pool", m.kv_pool_gb) }</li>
                <li><span class="swatch seg-reserved"></span>{ "Reserved " }<span data-metric="memory_reserved_gb">{ gb(m.reserved_gb) }</span>{ " GB (activations, graphs)" }</li>
                <li><span class="swatch seg-free"></span>{ "Free " }<span data-metric="memory_free_gb">{ gb(m.free_gb) }</span>{ format!(" GB of {:.0} GB", m.total_gb) }</li>
            </ul>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct StepTimeProps {
    step: StepBreakdown,
    batch: f64,
}

#[function_component(StepTime)]
fn step_time(props: &StepTimeProps) -> Html {
    let s = &props.step;
    let segments = [
        Segment {
            class: "seg-linear",
            label: "Linear layers",
            value: s.linear_ms,
        },
        Segment {
            class: "seg-attention",
            label: "Attention",
            value: s.attention_ms,
        },
        Segment {
            class: "seg-elementwise",
            label: "Elementwise",
            value: s.elementwise_ms,
        },
        Segment {
            class: "seg-communication",
            label: "Communication",
            value: s.communication_ms,
        },
        Segment {
            class: "seg-overhead",
            label: "Overhead",
            value: s.overhead_ms,
        },
    ];
    let total = s.total_ms;
    let share = |ms: f64| if total > 0.0 { ms / total * 100.0 } else { 0.0 };
    let summary = segments
        .iter()
        .map(|seg| format!("{} {:.0} %", seg.label, share(seg.value)))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        <div class="breakdown">
            <p class="breakdown-title">
                { "Where the step time goes: " }
                <strong>{ format!("{} ms", format_number(total)) }</strong>
                { format!(" per decode step at {} sequences per replica", format_number(props.batch)) }
            </p>
            { stacked_bar(&segments, total, format!("Decode step: {summary}")) }
            <ul class="legend-list">
                { for segments.iter().map(|seg| html! {
                    <li>
                        <span class={classes!("swatch", seg.class)}></span>
                        { format!("{} {} ms ({:.0} %)", seg.label, format_number(seg.value), share(seg.value)) }
                    </li>
                }) }
            </ul>
        </div>
    }
}
