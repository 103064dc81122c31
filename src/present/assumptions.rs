//! The assumptions that must travel with every number, as copyable plain text: batch
//! composition, lengths, hardware, precision, parallelism, price, efficiencies, and the expected
//! error of the numbers (`expected_error_text`). Also how a layout is named (`layout_name`, the
//! page's `parallelism_hint`, the CLI's `parallelism_line`), which the sentences share.

use crate::choice::Choice;
use crate::model::expected_error::{band, plus_minus, point_errors, Class, Metric};
use crate::model::OperatingPoint;
use crate::physics::memory::Parallelism;
use crate::scenario::{Batching, KvAlloc, Scenario};

/// The assumptions' price line: the price and the whole bill, or that there is none.
fn price_text(scenario: &Scenario) -> String {
    match scenario.usd_per_gpu_hour {
        Some(usd_per_gpu_hour) => format!(
            "Price: ${:.3} per GPU-hour, ${:.2}/hour in all ({}); input/output split by GPU time (prefill vs decode); blended = 3:1 input:output",
            usd_per_gpu_hour,
            f64::from(scenario.total_gpus()) * usd_per_gpu_hour,
            crate::decide::pricing::price_provenance(&scenario.gpu, usd_per_gpu_hour, None)
        ),
        None => format!(
            "Price: none per GPU-hour (none entered, and the catalog has none for the {}), so no cost is shown",
            scenario.gpu.name
        ),
    }
}

/// A layout as the engines name it (MODEL.md §2.8): "DEP 8" for TP 1 with attention DP 8 and
/// EP 8 (TensorRT-LLM's name), else "TP 2 × attention DP 4, EP 8", "TP 8 with EP 8", "TP 4";
/// "× PP 2" when pipelined.
pub fn layout_name(par: Parallelism) -> String {
    let mut name = if par.dp > 1 {
        if par.tp == 1 && par.ep == par.dp {
            format!("DEP {}", par.dp)
        } else if par.ep > 1 {
            format!("TP {} × attention DP {}, EP {}", par.tp, par.dp, par.ep)
        } else {
            format!(
                "TP {} × attention DP {}, experts tensor-split over {}",
                par.tp,
                par.dp,
                par.gpus_per_stage()
            )
        }
    } else if par.ep > 1 {
        format!("TP {} with EP {}", par.tp, par.ep)
    } else {
        format!("TP {}", par.tp)
    };
    if par.pp > 1 {
        name.push_str(&format!(" × PP {}", par.pp));
    }
    name
}

/// What the layout means, for the page's hint beside the parallelism controls: "DEP 8: 8
/// attention ranks, experts over 8 GPUs" (with the moe-TP split and PP stages when there are
/// any); `None` for plain TP without EP, which the TP control's hint already states.
pub fn parallelism_hint(scenario: &Scenario) -> Option<String> {
    let par = scenario.par;
    if par.dp <= 1 && par.ep <= 1 {
        return None;
    }
    let mut hint = layout_name(par);
    if par.dp > 1 {
        let ranks = if par.tp > 1 {
            format!("{} attention ranks of {} GPUs", par.dp, par.tp)
        } else {
            format!("{} attention ranks", par.dp)
        };
        hint.push_str(&format!(
            ": {ranks}, experts over {} GPUs",
            par.gpus_per_stage()
        ));
    } else {
        hint.push_str(&format!(": experts over {} GPUs", par.gpus_per_stage()));
    }
    if par.ep > 1 && par.moe_tp() > 1 {
        hint.push_str(&format!(" (EP {} × moe-TP {})", par.ep, par.moe_tp()));
    }
    if par.pp > 1 {
        hint.push_str(&format!(", in each of {} pipeline stages", par.pp));
    }
    Some(hint)
}

/// The CLI's parallelism line: "TP 2 × PP 1 (EP 1), 4 replicas on 8 GPUs" as before without
/// attention DP; with it "DEP 8 (TP 1 × attention DP 8, EP 8 × moe-TP 1, PP 1), 1 replicas on 8
/// GPUs".
pub fn parallelism_line(par: Parallelism, replicas: u32, gpus: u32) -> String {
    if par.dp > 1 {
        format!(
            "{} (TP {} × attention DP {}, EP {} × moe-TP {}, PP {}), {replicas} replicas on {gpus} GPUs",
            layout_name(par),
            par.tp,
            par.dp,
            par.ep,
            par.moe_tp(),
            par.pp
        )
    } else {
        format!(
            "TP {} × PP {} (EP {}), {replicas} replicas on {gpus} GPUs",
            par.tp, par.pp, par.ep
        )
    }
}

/// The assumptions' parallelism statement: as before for TP (× EP inside the TP group); under
/// attention DP what each rank holds and runs, where the experts sit and where the all-to-all
/// runs (MODEL.md §2.8). With EP, the expert load imbalance at this operating point follows.
fn parallelism_text(scenario: &Scenario, point: &OperatingPoint) -> Vec<String> {
    let par = scenario.par;
    let auto = if scenario.tp_auto {
        ", TP chosen automatically"
    } else {
        ""
    };
    let mut lines = Vec::new();
    if par.dp > 1 {
        let domain = scenario.step_cost.scale_up_domain();
        let placement = if !par.runs_all_to_all() {
            String::new()
        } else if par.gpus_per_stage() <= domain {
            format!("; MoE all-to-all inside the {domain}-GPU scale-up domain")
        } else {
            format!(
                "; MoE all-to-all across {} scale-up domains of {domain} GPUs (the network part at {:.0} GB/s per GPU)",
                par.gpus_per_stage().div_ceil(domain.max(1)),
                crate::physics::parallelism::network_gb_s(&scenario.gpu)
            )
        };
        lines.push(format!(
            "Parallelism: {} per replica, {} replica(s){auto}: {} attention ranks (TP {} each) run all heads on their own share of the batch and hold their own KV cache, attention and dense weights replicated; experts over EP {} × moe-TP {} = {} GPUs; PP {}{placement}",
            layout_name(par),
            scenario.replicas,
            par.dp,
            par.tp,
            par.ep,
            par.moe_tp(),
            par.gpus_per_stage(),
            par.pp
        ));
    } else {
        lines.push(format!(
            "Parallelism: TP {} × PP {} (EP {}) per replica, {} replica(s){auto}",
            par.tp, par.pp, par.ep, scenario.replicas
        ));
    }
    if par.ep > 1 {
        let tokens = point.batch_per_replica / f64::from(par.pp.max(1));
        let balancer = if scenario.redundant_experts > 0 {
            format!("EPLB with {} redundant experts", scenario.redundant_experts)
        } else {
            "static expert placement, no EPLB".to_string()
        };
        lines.push(format!(
            "Expert load: the busiest of {} EP ranks carries {:.2}× the mean routed load at {:.0} decoding sequences ({balancer}; calibration {:.2}; fitted to TensorRT-LLM's DeepSeek-R1 EP 32 measurement)",
            par.ep,
            scenario.step_cost.expert_imbalance(tokens),
            tokens,
            scenario.efficiency.moe_imbalance
        ));
    }
    lines
}

/// The assumptions behind every number, as copyable plain text, one statement per line.
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

/// The expected-error statement (`model::expected_error`): each headline number's ± with the
/// class and the rows it comes from. The CLI's text and the page's exports (curve CSV) print it
/// after the assumptions; the explorer shows the ± beside its numbers instead (its size budget).
pub fn expected_error_text(class: Class) -> String {
    let errors = point_errors(class);
    let pct = |p: Option<f64>| p.map_or("?".to_string(), plus_minus);
    let source = band(class, Metric::OutputTokS).map_or_else(String::new, |b| {
        format!(" (tok/s band from {})", b.source())
    });
    format!(
        "Expected error ({}, cross-validated, 68th percentile): tok/s {}, TPOT {}, TTFT {}, $/M output {}{source}",
        class.id(),
        pct(errors.output_tok_s_error_pct),
        pct(errors.tpot_ms_error_pct),
        pct(errors.ttft_ms_error_pct),
        errors
            .usd_per_m_output_error_pct
            .map_or("unbounded".to_string(), |p| format!("up to +{p:.0} %")),
    )
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
        format!(
            "Model: {} ({}), {:.2} B parameters",
            scenario.model.name,
            scenario.model.id,
            scenario.arch.total_params() / 1e9
        ),
        format!(
            "Hardware: {} × {} ({:.0} GB HBM at {:.2} TB/s, {} dense BF16 TFLOP/s each)",
            scenario.total_gpus(),
            scenario.gpu.name,
            scenario.gpu.memory_gb,
            scenario.gpu.memory_bw_tb_s,
            scenario
                .gpu
                .bf16_tflops
                .map_or("?".into(), |t| format!("{t:.0}"))
        ),
    ];
    lines.extend(parallelism_text(scenario, point));
    lines.extend([
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
            "{}; server overhead {:.0} ms per request",
            scenario.profile.describe(),
            scenario.server_overhead.ms()
        ),
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
    ]);
    for warning in &point.warnings {
        lines.push(format!("Note: {warning}"));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;
    use crate::present::format::{format_cost, NO_PRICE};
    use crate::scenario::ScenarioInput;

    fn text_for(input: ScenarioInput) -> String {
        let scenario = Scenario::try_from(input).expect("valid");
        assumptions(&scenario, &evaluate(&scenario))
    }

    /// The page's hint and the assumptions state the layout as the engines name it; plain TP
    /// keeps its old line and no hint.
    #[test]
    fn parallelism_is_stated_as_the_engines_name_it() {
        let deepseek = |tp: f64, ep: Option<f64>, dp: Option<f64>| {
            Scenario::try_from(ScenarioInput {
                model: "deepseek-r1".into(),
                gpu: "h200-sxm".into(),
                tp: Some(tp),
                ep,
                dp_attention: dp,
                input_len: 1000.0,
                output_len: 1000.0,
                ..ScenarioInput::default()
            })
            .expect("valid")
        };
        let dep8 = deepseek(1.0, Some(8.0), None);
        assert_eq!(
            parallelism_hint(&dep8).as_deref(),
            Some("DEP 8: 8 attention ranks, experts over 8 GPUs")
        );
        let text = assumptions(&dep8, &evaluate(&dep8));
        assert!(
            text.contains("Parallelism: DEP 8 per replica, 1 replica(s): 8 attention ranks"),
            "{text}"
        );
        assert!(text.contains("inside the 8-GPU scale-up domain"), "{text}");
        assert!(
            text.contains("Expert load: the busiest of 8 EP ranks"),
            "{text}"
        );
        let mixed = deepseek(2.0, Some(4.0), Some(4.0));
        assert_eq!(
            parallelism_hint(&mixed).as_deref(),
            Some("TP 2 × attention DP 4, EP 4: 4 attention ranks of 2 GPUs, experts over 8 GPUs (EP 4 × moe-TP 2)")
        );
        let tp8_ep8 = deepseek(8.0, Some(8.0), None);
        assert_eq!(
            parallelism_hint(&tp8_ep8).as_deref(),
            Some("TP 8 with EP 8: experts over 8 GPUs")
        );
        let dense = Scenario::default_scenario().expect("valid");
        assert_eq!(parallelism_hint(&dense), None);
        let text = assumptions(&dense, &evaluate(&dense));
        assert!(text.contains("Parallelism: TP 2 × PP 1 (EP 1) per replica, 4 replica(s), TP chosen automatically"), "{text}");
        assert!(!text.contains("Expert load"), "{text}");
        assert_eq!(
            parallelism_line(dense.par, 4, 8),
            "TP 2 × PP 1 (EP 1), 4 replicas on 8 GPUs"
        );
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
            batching: crate::scenario::Batching::Static,
            ..ScenarioInput::default()
        })
        .expect("valid");
        let point = evaluate(&scenario);
        let fixed = assumptions(&scenario, &point);
        assert!(fixed.contains("static (request-level) batching"), "{fixed}");
        assert!(!fixed.contains("paged KV"), "{fixed}");
        assert!(fixed.contains(&format!("KV capacity {} requests", point.max_concurrency)));

        let contiguous = text_for(ScenarioInput {
            kv_alloc: crate::scenario::KvAlloc::Contiguous,
            ..ScenarioInput::default()
        });
        assert!(contiguous.contains("contiguous KV ("), "{contiguous}");

        let speculative = text_for(ScenarioInput {
            spec_decode: Some(crate::scenario::SpecMethod::Eagle),
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
        // The default price is the catalog's typical H100 quote, and says so (issue 26 §6).
        assert!(priced.contains("per GPU-hour, $"), "{priced}");
        assert!(priced.contains("(catalog typical, as of "), "{priced}");
        let typed = text_for(ScenarioInput {
            usd_per_gpu_hour: Some(3.125),
            ..ScenarioInput::default()
        });
        assert!(
            typed.contains("Price: $3.125 per GPU-hour, $25.00/hour in all (your price)"),
            "{typed}"
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
