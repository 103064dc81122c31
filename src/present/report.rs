//! Human-readable text shared by the page and the CLI: the assumptions block that must travel
//! with every number (batch composition, lengths, hardware, precision, parallelism, price,
//! efficiencies), and number formatting.

use crate::model::OperatingPoint;
use crate::scenario::{Batching, KvAlloc, Scenario};

/// Format a number with a sensible number of significant digits for display.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    let magnitude = value.abs();
    if magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// Format dollars per million tokens: three decimals ($1.157), more below a cent.
pub fn format_usd(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    if value.abs() >= 0.01 || value == 0.0 {
        format!("${value:.3}")
    } else {
        format!("${value:.5}")
    }
}

/// What a cost says where there is no price per GPU-hour (CLI tables, copied text).
pub const NO_PRICE: &str = "no price";

/// `format_usd`, or `NO_PRICE` when the scenario has no price per GPU-hour.
pub fn format_cost(value: Option<f64>) -> String {
    value.map_or_else(|| NO_PRICE.into(), format_usd)
}

/// The assumptions' price line: the price and the whole bill, or that there is none.
fn price_text(scenario: &Scenario) -> String {
    match scenario.usd_per_gpu_hour {
        Some(usd_per_gpu_hour) => format!(
            "Price: ${:.3} per GPU-hour, ${:.2}/hour in all; input/output split by GPU time (prefill vs decode); blended = 3:1 input:output",
            usd_per_gpu_hour,
            f64::from(scenario.gpu_count) * usd_per_gpu_hour
        ),
        None => format!(
            "Price: none per GPU-hour (none entered, and the catalog has none for the {}), so no cost is shown",
            scenario.gpu.name
        ),
    }
}

/// How requests are batched and their KV held, as the assumptions state it.
fn batching_text(scenario: &Scenario) -> String {
    match scenario.batching {
        Batching::Static => "static (request-level) batching: each batch pads to its longest prompt, runs to its longest output and reserves KV for both, contiguously (MODEL.md §4.1)".into(),
        Batching::Continuous => {
            let kv = match scenario.kv_alloc {
                KvAlloc::Paged => "paged KV (blocks of 16)".to_string(),
                KvAlloc::Contiguous => format!(
                    "contiguous KV ({:.0} tokens reserved per sequence)",
                    scenario.max_model_len
                ),
            };
            format!(
                "continuous batching, {kv}, chunked prefill budget {} tokens",
                scenario.chunk_tokens
            )
        }
    }
}

/// The assumptions behind every number, as copyable plain text, one statement per line.
pub fn assumptions(scenario: &Scenario, point: &OperatingPoint) -> String {
    let w = &scenario.workload;
    let e = &scenario.efficiency;
    let lengths = |mean: f64, sigma: f64| {
        if sigma > 0.0 {
            format!("lognormal, mean {mean:.0} tokens, log-σ {sigma:.2}")
        } else {
            format!("fixed {mean:.0} tokens (synthetic uniform)")
        }
    };
    let mut lines = vec![
        format!("Model: {} ({}), {:.2} B parameters", scenario.model.name, scenario.model.id, scenario.arch.total_params() / 1e9),
        format!(
            "Hardware: {} × {} ({:.0} GB HBM at {:.2} TB/s, {} dense BF16 TFLOP/s each)",
            scenario.gpu_count,
            scenario.gpu.name,
            scenario.gpu.memory_gb,
            scenario.gpu.memory_bw_tb_s,
            scenario.gpu.bf16_tflops.map_or("?".into(), |t| format!("{t:.0}"))
        ),
        format!(
            "Parallelism: TP {} × PP {} (EP {}) per replica, {} replica(s){}",
            scenario.par.tp,
            scenario.par.pp,
            scenario.par.ep,
            scenario.replicas,
            if scenario.tp_auto { ", TP chosen automatically" } else { "" }
        ),
        format!(
            "Precision: weights {}, KV cache {}; GEMMs at {:.0} TFLOP/s peak",
            scenario.precision.id(),
            scenario.kv_precision.id(),
            scenario.gemm.peak_tflops
        ),
        format!(
            "Batch composition: {}{}, closed loop, {} requests in flight ({:.1} batched per busy replica), engine limit {} sequences per replica, KV capacity {} requests",
            batching_text(scenario),
            scenario.spec.map_or_else(String::new, |s| format!(
                ", speculative decoding ({}, acceptance α {:.2}, draft length γ {}, draft cost c {:.2})",
                s.method.id(),
                s.accept,
                s.len,
                s.draft_cost
            )),
            point.concurrency,
            point.batch_per_replica,
            scenario.max_num_seqs,
            point.max_concurrency
        ),
        format!("Input length: {}", lengths(w.input_mean, w.input_sigma)),
        format!("Output length: {}", lengths(w.output_mean, w.output_sigma)),
        format!("Prefix-cache hit rate: {:.0} %", w.prefix_hit * 100.0),
        price_text(scenario),
        format!(
            "Efficiencies: η_mem {:.2}, η_compute {:.2}, roofline blend p {}, {:.0} µs per layer, {:.2} ms per step, all-reduce {:.0} µs + {:.0} % link, {:.0} % of HBM usable, {:.1} GB reserved",
            e.eta_mem,
            e.eta_compute,
            if e.blend_p.is_finite() { format!("{:.1}", e.blend_p) } else { "∞ (max)".into() },
            e.layer_overhead_us,
            e.step_overhead_ms,
            e.allreduce_latency_us,
            e.link_efficiency * 100.0,
            e.mem_utilization * 100.0,
            e.reserved_gb
        ),
        "Model: servecost analytic steady state (MODEL.md §2 step time, §4.2 closed loop); means, not percentiles".into(),
    ];
    for warning in &point.warnings {
        lines.push(format!("Note: {warning}"));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;
    use crate::scenario::ScenarioInput;

    fn text_for(input: ScenarioInput) -> String {
        let scenario = Scenario::try_from(input).expect("valid");
        assumptions(&scenario, &evaluate(&scenario))
    }

    /// The batch-composition line states the techniques that produced the numbers, and the KV
    /// capacity the model used for them.
    #[test]
    fn batch_composition_names_the_batching_kv_and_speculation() {
        let continuous = text_for(ScenarioInput::default());
        assert!(
            continuous.contains("continuous batching, paged KV"),
            "{continuous}"
        );
        assert!(!continuous.contains("speculative"));

        let scenario = Scenario::try_from(ScenarioInput {
            batching: "static".into(),
            ..ScenarioInput::default()
        })
        .expect("valid");
        let point = evaluate(&scenario);
        let fixed = assumptions(&scenario, &point);
        assert!(fixed.contains("static (request-level) batching"), "{fixed}");
        assert!(!fixed.contains("paged KV"), "{fixed}");
        assert!(fixed.contains(&format!("KV capacity {} requests", point.max_concurrency)));

        let contiguous = text_for(ScenarioInput {
            kv_alloc: "contiguous".into(),
            ..ScenarioInput::default()
        });
        assert!(contiguous.contains("contiguous KV ("), "{contiguous}");

        let speculative = text_for(ScenarioInput {
            spec_decode: "eagle".into(),
            ..ScenarioInput::default()
        });
        assert!(
            speculative.contains("speculative decoding (eagle, acceptance α 0.80"),
            "{speculative}"
        );
    }

    /// The price line states the price, or that there is none and so no cost; a cost without a
    /// price reads "no price", never a number.
    #[test]
    fn the_price_line_and_costs_say_when_there_is_no_price() {
        let priced = text_for(ScenarioInput::default());
        assert!(
            priced.contains("Price: $3.125 per GPU-hour, $25.00/hour in all"),
            "{priced}"
        );
        let unpriced = text_for(ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..ScenarioInput::default()
        });
        assert!(
            unpriced.contains("Price: none per GPU-hour (none entered, and the catalog has none for the NVIDIA GB200"),
            "{unpriced}"
        );
        assert!(unpriced.contains("Note: no rental price for NVIDIA GB200"));
        assert_eq!(format_cost(None), NO_PRICE);
        assert_eq!(format_cost(Some(1.157_407)), "$1.157");
    }
}
