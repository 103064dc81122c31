//! `servecost estimate`: one operating point (a concurrency, the largest that fits, or the best
//! meeting an SLO), as text or JSON, with the tails at a percentile when asked.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{help, scenario_from, slo_settings, Outcome};
use crate::model::slo::SloMethod;
use crate::model::{evaluate, OperatingPoint};
use crate::present::report::{assumptions, format_cost, format_number};
use crate::scenario::Scenario;

pub(super) fn estimate(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--help") || flags.has("-h") {
        return Outcome::ok(help());
    }
    let max_throughput = flags.has("--max-throughput");
    let has_concurrency = flags.text("--concurrency").is_some();
    let settings = match slo_settings(&flags) {
        Ok(settings) => settings,
        Err(outcome) => return outcome,
    };
    let chosen = [max_throughput, has_concurrency, settings.slo.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    if chosen != 1 {
        return Outcome::usage(
            "give exactly one operating point: --concurrency N, --max-throughput, or --slo-ttft-ms X --slo-tpot-ms Y",
        );
    }
    let scenario = match scenario_from(&flags) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let simulated = settings.method == SloMethod::Simulated;
    let (scenario, point, tail) = if let Some(slo) = settings.slo {
        let found = if simulated {
            crate::decide::slo_sim::best_point_meeting_simulated(&scenario, &slo)
                .map(|(point, tail)| (point, serde_json::to_value(tail).unwrap_or_default()))
        } else {
            crate::model::slo::best_point_meeting(&scenario, &slo)
                .map(|(point, tail)| (point, serde_json::to_value(tail).unwrap_or_default()))
        };
        match found {
            Some((point, tail)) => (scenario.with_concurrency(point.concurrency), point, Some(tail)),
            None => {
                return Outcome {
                    stdout: String::new(),
                    stderr: format!(
                        "no concurrency meets P{} TTFT <= {} ms and TPOT <= {} ms on this configuration ({} percentiles); relax the SLO or change hardware\n",
                        slo.percentile,
                        slo.ttft_ms,
                        slo.tpot_ms,
                        settings.method.id()
                    ),
                    code: 1,
                }
            }
        }
    } else {
        let scenario = if max_throughput {
            let c = scenario.max_feasible_concurrency();
            scenario.with_concurrency(c)
        } else {
            scenario
        };
        let point = evaluate(&scenario);
        // `--slo-percentile P` alone reports the tails at P (what `plan` quotes).
        let tail = settings.percentile.map(|p| {
            if simulated {
                crate::decide::slo_sim::simulated_tail(&scenario, p)
                    .map(|(tail, _)| serde_json::to_value(tail).unwrap_or_default())
                    .unwrap_or_default()
            } else {
                serde_json::to_value(crate::model::slo::tail_estimate(&scenario, &point, p))
                    .unwrap_or_default()
            }
        });
        (scenario, point, tail)
    };
    if flags.has("--json") {
        let mut value = match serde_json::to_value(&point) {
            Ok(value) => value,
            Err(e) => return Outcome::failure(e),
        };
        if let (Some(tail), Some(object)) = (tail, value.as_object_mut()) {
            object.insert("slo_tail".into(), tail);
        }
        return Outcome::json(&value);
    }
    let mut text = human_estimate(&scenario, &point);
    if let Some(tail) = tail {
        let number = |key: &str| {
            tail.get(key)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(f64::NAN)
        };
        text.push_str(&format!(
            "\nP{} tails ({}): TTFT {} ms, TPOT {} ms\n",
            number("percentile"),
            tail.get("method")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(""),
            format_number(number("ttft_ms")),
            format_number(number("tpot_ms"))
        ));
    }
    Outcome::ok(text)
}

fn human_estimate(scenario: &Scenario, p: &OperatingPoint) -> String {
    let mut out = String::new();
    let mut line = |label: &str, value: String| {
        out.push_str(&format!("{label:<28} {value}\n"));
    };
    line(
        "concurrency (system)",
        format!(
            "{} ({:.1} per busy replica)",
            p.concurrency, p.batch_per_replica
        ),
    );
    line(
        "output tok/s",
        format!(
            "{} ({} per GPU)",
            format_number(p.output_tok_s),
            format_number(p.output_tok_s_per_gpu)
        ),
    );
    line("total tok/s", format_number(p.total_tok_s));
    line("tok/s per user", format_number(p.tok_s_per_user));
    line("TPOT", format!("{} ms", format_number(p.tpot_ms)));
    line("TTFT", format!("{} ms", format_number(p.ttft_ms)));
    line("E2E", format!("{} ms", format_number(p.e2e_ms)));
    line(
        "max concurrency (KV)",
        format!("{} (engine limit {})", p.max_concurrency, p.engine_limit),
    );
    line(
        "parallelism",
        format!(
            "TP {} × PP {} (EP {}), {} replicas on {} GPUs",
            p.tp, p.pp, p.ep, p.replicas, p.gpus
        ),
    );
    line(
        "memory per GPU",
        format!(
            "weights {:.1} GB, KV {:.1} GB used of {:.1} GB pool, free {:.1} GB",
            p.memory.weights_gb, p.memory.kv_used_gb, p.memory.kv_pool_gb, p.memory.free_gb
        ),
    );
    line(
        "bound by",
        format!(
            "{}{}",
            p.bound_label,
            if p.fits {
                ""
            } else {
                " (infeasible: beyond capacity)"
            }
        ),
    );
    line(
        "decode step",
        format!(
            "{} ms = linear {} + attention {} + elementwise {} + comm {} + overhead {}",
            format_number(p.decode_step.total_ms),
            format_number(p.decode_step.linear_ms),
            format_number(p.decode_step.attention_ms),
            format_number(p.decode_step.elementwise_ms),
            format_number(p.decode_step.communication_ms),
            format_number(p.decode_step.overhead_ms)
        ),
    );
    line("$/M output (all-in)", format_cost(p.usd_per_m_output));
    line("$/M input (GPU time)", format_cost(p.usd_per_m_input));
    line("$/M blended (3:1)", format_cost(p.usd_per_m_blended));
    out.push_str("\nAssumptions\n");
    for assumption in assumptions(scenario, p).lines() {
        out.push_str("  ");
        out.push_str(assumption);
        out.push('\n');
    }
    out
}
