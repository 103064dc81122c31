//! `servecost simulate`: one discrete-event simulation run (closed or open loop), its latency
//! percentiles, throughput and goodput, as text or JSON.

use super::args::{Flags, UsageError, SCENARIO_FLAGS};
use super::{scenario_from, Outcome};
use crate::present::format::format_number;
use crate::scenario::fields::BURSTINESS;
use crate::scenario::DecisionInput;
use crate::sim::{LatencySummary, SimConfig, SimInput, SimResult};

pub(super) fn simulate_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    // `--burstiness` is a field of the table (`SCENARIO_FLAGS` has them all).
    known.extend(["--rate", "--requests", "--seed"]);
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let input = match sim_input(&flags) {
        Ok(input) => input,
        Err(outcome) => return outcome,
    };
    let closed_loop = input.concurrency.is_some();
    let requests_given = input.requests.is_some();
    let mut config = match SimConfig::try_from(input) {
        Ok(config) => config,
        Err(e) => return Outcome::bad_field(&e),
    };
    // The scenario's operating point is the closed-loop concurrency (or 1 for open loop).
    let mut scenario_flags = rest.to_vec();
    if !closed_loop {
        scenario_flags.extend(["--concurrency".to_string(), "1".to_string()]);
    }
    let Ok(parsed) = Flags::parse(&scenario_flags, &known) else {
        return Outcome::usage("could not read the scenario flags");
    };
    let scenario = match scenario_from(&parsed) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    // A closed loop runs at least 4 × C requests unless `--requests` says otherwise, the sample
    // the SLO checks use (`slo_sim::simulated_tail`): so `simulate` on a plan's configuration
    // reproduces the plan's simulated check, and the first wave weighs the same in both.
    if closed_loop && !requests_given {
        config.requests = config.requests.max(scenario.concurrency.saturating_mul(4));
    }
    // `--protocol benchmark`: replay the benchmark, `num-prompts` (10 × C) unless `--requests`.
    if closed_loop && scenario.protocol == crate::scenario::Protocol::Benchmark {
        config.protocol = crate::scenario::Protocol::Benchmark;
        if !requests_given {
            config.requests = scenario.benchmark_prompts();
        }
    }
    let result = match crate::sim::simulate(&scenario, &config) {
        Ok(result) => result,
        Err(e) => return Outcome::usage(format!("--{}: {}", e.field.replace('_', "-"), e.message)),
    };
    if flags.has("--json") {
        return Outcome::json(&simulation_json(&result));
    }
    let mut out = format!(
        "Simulated {} requests ({} completed, {} measured) on {} busy replica(s), seed {}\n",
        result.requests, result.completed, result.measured, result.busy_replicas, config.seed
    );
    out.push_str(&format!(
        "output tok/s {} ({} per GPU), total tok/s {}, requests/s {}\n",
        format_number(result.output_tok_s),
        format_number(result.output_tok_s_per_gpu),
        format_number(result.total_tok_s),
        format_number(result.requests_per_s)
    ));
    out.push_str(&latency_row("ms", STATISTICS.map(String::from)));
    for (name, summary) in summaries(&result) {
        out.push_str(&latency_row(name, statistics(summary).map(format_number)));
    }
    out.push_str(&format!(
        "mean batch {:.1}, KV utilization {:.0} % (peak {:.0} %), preemptions {}, iterations {}, events {}\n",
        result.mean_batch,
        result.kv_utilization_mean * 100.0,
        result.kv_utilization_peak * 100.0,
        result.preemptions,
        result.iterations,
        result.events
    ));
    if let Some(slo) = &result.slo {
        out.push_str(&format!(
            "SLO attainment {:.1} %, goodput {} req/s ({} output tok/s)\n",
            slo.attainment * 100.0,
            format_number(slo.goodput_requests_per_s),
            format_number(slo.goodput_output_tok_s)
        ));
    }
    if let Some(reason) = &result.truncated {
        out.push_str(&format!(
            "TRUNCATED: {reason:?} — results cover only part of the run\n"
        ));
    }
    if result.low_confidence {
        out.push_str("low confidence: fewer than 500 measured requests after warm-up\n");
    }
    Outcome::ok(out)
}

/// The simulation flags as given.
fn sim_input(flags: &Flags) -> Result<SimInput, Outcome> {
    Ok(SimInput {
        concurrency: flags.number("--concurrency")?,
        rate: flags.number("--rate")?,
        burstiness: burstiness(flags)?,
        requests: flags.number("--requests")?,
        seed: flags.text("--seed").map(str::to_string),
        slo_ttft_ms: flags.number("--slo-ttft-ms")?,
        slo_tpot_ms: flags.number("--slo-tpot-ms")?,
    })
}

/// `--burstiness`, read through its field (`fields::BURSTINESS`, the waterfall's input too);
/// unset is `None`, a Poisson open loop, and `SimConfig::try_from` checks the range.
fn burstiness(flags: &Flags) -> Result<Option<f64>, UsageError> {
    let flag = format!("--{}", BURSTINESS.key);
    let Some(text) = flags.text(&flag) else {
        return Ok(None);
    };
    let mut decision = DecisionInput::default();
    BURSTINESS
        .set_decision(&mut decision, text)
        .map_err(|why| UsageError(format!("{flag}: {why}")))?;
    Ok(Some(decision.burstiness))
}

/// The latency summaries by name, in the order of the table and the JSON keys.
fn summaries(result: &SimResult) -> [(&'static str, &LatencySummary); 4] {
    [
        ("TTFT", &result.ttft),
        ("TPOT", &result.tpot),
        ("ITL", &result.itl),
        ("E2E", &result.e2e),
    ]
}

/// The statistics of a summary, named as the table's columns (lower-cased in the JSON keys).
const STATISTICS: [&str; 6] = ["mean", "P50", "P90", "P95", "P99", "max"];

fn statistics(summary: &LatencySummary) -> [f64; 6] {
    [
        summary.mean_ms,
        summary.p50_ms,
        summary.p90_ms,
        summary.p95_ms,
        summary.p99_ms,
        summary.max_ms,
    ]
}

/// One line of the latency table; the header and the metrics share the column widths.
fn latency_row(name: &str, cells: [String; 6]) -> String {
    let [mean, p50, p90, p95, p99, max] = cells;
    format!("{name:<6} {mean:>10} {p50:>10} {p90:>10} {p95:>10} {p99:>10} {max:>10}\n")
}

/// The simulation result as JSON, with flat percentile keys (`ttft_ms_p99`, `tpot_ms_p95`,
/// `itl_ms_p99`, ...) beside the nested summaries, and `bound_hit` saying whether a bound cut the run.
fn simulation_json(result: &SimResult) -> serde_json::Value {
    let mut value = serde_json::to_value(result).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        for (name, summary) in summaries(result) {
            for (statistic, v) in STATISTICS.iter().zip(statistics(summary)) {
                let key = format!("{name}_ms_{statistic}").to_lowercase();
                object.insert(key, v.into());
            }
        }
        object.insert("bound_hit".into(), result.truncated.is_some().into());
    }
    value
}
