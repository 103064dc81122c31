//! The `servecost` command line: `estimate` (one operating point), `sweep` (the curve),
//! `validate` (predicted vs published measurements), and catalog listings. Pure: `run` maps
//! arguments to the text to print and an exit code, so tests call it without a process.

mod args;

use crate::catalog::catalog;
use crate::model::{evaluate, sweep, OperatingPoint};
use crate::present::report::{assumptions, format_number, format_usd};
use crate::scenario::Scenario;
use args::{flag_for_field, scenario_input, Flags, UsageError, SCENARIO_FLAGS};

/// What the process prints and returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Outcome {
    fn ok(stdout: String) -> Outcome {
        Outcome {
            stdout,
            stderr: String::new(),
            code: 0,
        }
    }
    fn usage(message: impl std::fmt::Display) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr: format!("error: {message}\n"),
            code: 2,
        }
    }
}

/// The usage text; the field flags' section is generated from the field table (`args::fields_help`).
fn help() -> String {
    let (usage, end) = HELP.split_at(HELP.find("Bad input exits").unwrap_or(HELP.len()));
    format!("{usage}{}\n{end}", args::fields_help())
}

const HELP: &str = "servecost — LLM serving performance and cost model

USAGE
  servecost estimate --model ID --gpu ID [--gpus N] [--tp N|auto] [--pp N] [--ep N]
                     [--precision bf16|fp8|fp4|int4] [--kv-precision bf16|fp8]
                     --input-len N --output-len N [--input-sigma S] [--output-sigma S] [--prefix-hit R]
                     [--length-dist fixed|lognormal] [--workload chat|code|summarize|rag|reasoning]
                     [--batching static|continuous] [--kv-alloc paged|contiguous] [--max-model-len N]
                     [--chunk-tokens N] [--spec-decode off|draft|eagle|mtp] [--spec-accept A]
                     [--spec-len G] [--spec-draft-cost C]
                     [--model-config config.json]   (a Hugging Face config.json instead of --model)
                     (--concurrency N | --max-throughput | --slo-ttft-ms X --slo-tpot-ms Y [--slo-percentile P])
                     [--slo-method simulated|analytic]   (SLO tails from the simulator by default)
                     [--usd-per-gpu-hour X] [--json]
  servecost sweep    (same scenario flags, no operating point) [--csv] [--json]
  servecost validate FILE.csv [--json] [--fit | --cross-validate] [efficiency knobs]
                     predicted vs measured for a measurements.csv-format file;
                     --fit grid-searches η_mem, η_compute, step and layer overheads;
                     --cross-validate reports out-of-sample errors of that fit, each row
                     predicted with knobs fitted on other sources' rows (5 folds of sources)
  servecost plan     --model ID --input-len N --output-len N [length flags]
                     (--traffic-tok-s X | --traffic-req-s R) [--slo-ttft-ms X --slo-tpot-ms Y [--slo-percentile P]]
                     [--gpus-allowed id,id,...] [--price-tier low|typical|high] [--top K] [--json]
                     the cheapest GPU × TP × precision × batch meeting the SLOs for the traffic
  servecost calibrate --measurements FILE.csv|FILE.json (scenario flags) [--json]
                     fit η_mem, η_compute and overheads to your benchmark (CSV columns concurrency,
                     output_tok_s, tpot_ms, ttft_ms; or vllm bench serve result JSON)
  servecost simulate (scenario flags) (--concurrency N | --rate R [--burstiness CV])
                     [--requests N] [--seed S] [--slo-ttft-ms X --slo-tpot-ms Y] [--json]
                     discrete-event simulation: P50/P90/P95/P99 TTFT, TPOT, ITL, E2E, goodput
  servecost models   list catalog models
  servecost gpus     list catalog GPUs

SWITCHES
  --max-throughput       the largest concurrency that fits in KV memory, capped by the engine limit
  --ideal-roofline       η = 1, max() roofline, no fixed overheads (an upper bound, not a prediction)
  --json, --csv          machine-readable output
Bad input exits with status 2 and a message naming the flag.
";

/// Run the CLI on arguments (without the program name).
pub fn run(args: &[String]) -> Outcome {
    let Some((command, rest)) = args.split_first() else {
        return Outcome {
            stdout: help(),
            stderr: String::new(),
            code: 2,
        };
    };
    match command.as_str() {
        "estimate" => estimate(rest),
        "sweep" => sweep_command(rest),
        "validate" => validate_command(rest),
        "plan" => plan_command(rest),
        "simulate" => simulate_command(rest),
        "calibrate" => calibrate_command(rest),
        "models" => list_models(),
        "gpus" => list_gpus(),
        "help" | "--help" | "-h" => Outcome::ok(help()),
        other => Outcome::usage(format!(
            "unknown command `{other}` (estimate, sweep, validate, models, gpus)"
        )),
    }
}

/// Parse flags and validate the scenario, naming the offending flag on failure.
fn scenario_from(flags: &Flags) -> Result<Scenario, Outcome> {
    let mut input = scenario_input(flags).map_err(|UsageError(m)| Outcome::usage(m))?;
    if flags.has("--ideal-roofline") {
        let e = &mut input.efficiency;
        e.eta_mem = Some(1.0);
        e.eta_compute = Some(1.0);
        e.blend_p = Some(f64::INFINITY);
        e.layer_overhead_us = Some(0.0);
        e.step_overhead_ms = Some(0.0);
        e.allreduce_latency_us = Some(0.0);
        e.link_efficiency = Some(1.0);
    }
    Scenario::try_from(input)
        .map_err(|e| Outcome::usage(format!("{}: {}", flag_for_field(&e.field), e.message)))
}

fn estimate(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--help") || flags.has("-h") {
        return Outcome::ok(help());
    }
    let max_throughput = flags.has("--max-throughput");
    let has_concurrency = flags.text("--concurrency").is_some();
    let slo = match slo_flags(&flags) {
        Ok(slo) => slo,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let chosen = [max_throughput, has_concurrency, slo.is_some()]
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
    let simulated = match flags.text("--slo-method") {
        None | Some("simulated") => true,
        Some("analytic") => false,
        Some(other) => {
            return Outcome::usage(format!(
                "--slo-method: `{other}` is not simulated or analytic"
            ))
        }
    };
    let (scenario, point, tail) = if let Some(slo) = slo {
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
                        if simulated { "simulated" } else { "analytic" }
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
        let tail = match flags.number("--slo-percentile") {
            Ok(Some(p)) if (50.0..=99.99).contains(&p) => Some(if simulated {
                crate::decide::slo_sim::simulated_tail(&scenario, p)
                    .map(|(tail, _)| serde_json::to_value(tail).unwrap_or_default())
                    .unwrap_or_default()
            } else {
                serde_json::to_value(crate::model::slo::tail_estimate(&scenario, &point, p))
                    .unwrap_or_default()
            }),
            Ok(Some(p)) => {
                return Outcome::usage(format!(
                    "--slo-percentile: must be from 50 to 99.99 (got {p})"
                ))
            }
            Ok(None) => None,
            Err(UsageError(m)) => return Outcome::usage(m),
        };
        (scenario, point, tail)
    };
    if flags.has("--json") {
        let mut value = match serde_json::to_value(&point) {
            Ok(value) => value,
            Err(e) => {
                return Outcome {
                    stdout: String::new(),
                    stderr: format!("error: {e}\n"),
                    code: 1,
                }
            }
        };
        if let (Some(tail), Some(object)) = (tail, value.as_object_mut()) {
            object.insert(
                "slo_tail".into(),
                serde_json::to_value(tail).unwrap_or_default(),
            );
        }
        return match serde_json::to_string_pretty(&value) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
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

/// `--slo-ttft-ms X --slo-tpot-ms Y [--slo-percentile P]`: both targets or neither. The values
/// are read and range-checked by the field table (`args::decision_input`).
fn slo_flags(flags: &Flags) -> Result<Option<crate::model::slo::Slo>, UsageError> {
    let decision = args::decision_input(flags)?;
    match (decision.slo_ttft_ms, decision.slo_tpot_ms) {
        (None, None) => Ok(None),
        (Some(ttft_ms), Some(tpot_ms)) => Ok(Some(crate::model::slo::Slo {
            ttft_ms,
            tpot_ms,
            percentile: decision.slo_percentile,
        })),
        (None, Some(_)) => Err(UsageError(
            "--slo-ttft-ms is required with --slo-tpot-ms".into(),
        )),
        (Some(_), None) => Err(UsageError(
            "--slo-tpot-ms is required with --slo-ttft-ms".into(),
        )),
    }
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
    line("$/M output (all-in)", format_usd(p.usd_per_m_output));
    line("$/M input (GPU time)", format_usd(p.usd_per_m_input));
    line("$/M blended (3:1)", format_usd(p.usd_per_m_blended));
    out.push_str("\nAssumptions\n");
    for assumption in assumptions(scenario, p).lines() {
        out.push_str("  ");
        out.push_str(assumption);
        out.push('\n');
    }
    out
}

fn sweep_command(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--max-throughput") || flags.text("--concurrency").is_some() {
        return Outcome::usage("sweep takes no operating point (--concurrency / --max-throughput)");
    }
    let scenario = match scenario_from(&flags) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let curve = sweep(&scenario);
    if flags.has("--json") {
        return match serde_json::to_string_pretty(&curve) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
    }
    let mut out = String::new();
    let csv = flags.has("--csv");
    if csv {
        out.push_str("concurrency,tok_s_per_user,output_tok_s_per_gpu,output_tok_s,tpot_ms,ttft_ms,usd_per_m_output,fits,pareto,knee,bound\n");
    } else {
        out.push_str(&format!(
            "{:>8} {:>12} {:>14} {:>12} {:>10} {:>10} {:>10}  {}\n",
            "conc", "tok/s/user", "tok/s/GPU", "tok/s", "TPOT ms", "TTFT ms", "$/M out", "notes"
        ));
    }
    for (index, p) in curve.points.iter().enumerate() {
        let knee = curve.knee == Some(index);
        if csv {
            out.push_str(&format!(
                "{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.6},{},{},{},{}\n",
                p.concurrency,
                p.tok_s_per_user,
                p.output_tok_s_per_gpu,
                p.output_tok_s,
                p.tpot_ms,
                p.ttft_ms,
                p.usd_per_m_output,
                p.fits,
                p.pareto,
                knee,
                p.bound_label
            ));
        } else {
            let mut notes = vec![p.bound_label.to_string()];
            if p.pareto {
                notes.push("pareto".into());
            }
            if knee {
                notes.push("KNEE".into());
            }
            if !p.fits {
                notes.push("infeasible".into());
            }
            out.push_str(&format!(
                "{:>8} {:>12} {:>14} {:>12} {:>10} {:>10} {:>10}  {}\n",
                p.concurrency,
                format_number(p.tok_s_per_user),
                format_number(p.output_tok_s_per_gpu),
                format_number(p.output_tok_s),
                format_number(p.tpot_ms),
                format_number(p.ttft_ms),
                format_usd(p.usd_per_m_output),
                notes.join(", ")
            ));
        }
    }
    Outcome::ok(out)
}

fn validate_command(rest: &[String]) -> Outcome {
    let flags = match Flags::parse(rest, SCENARIO_FLAGS) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let [path] = flags.positional.as_slice() else {
        return Outcome::usage("validate takes one file: servecost validate FILE.csv [--json]");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return Outcome::usage(format!("{path}: {e}")),
    };
    let overrides = match args::efficiency_overrides(&flags) {
        Ok(o) => o,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    if flags.has("--cross-validate") {
        return match crate::calibration::fit::cross_validate(&text, 5, &overrides) {
            Ok(report) => Outcome::ok(format!(
                "Cross-validation by source (5 folds of whole sources): each row predicted with knobs fitted on other sources' rows only\n\n{}",
                crate::calibration::validate::render(&report)
            )),
            Err(e) => Outcome::usage(format!("{path}: {e}")),
        };
    }
    if flags.has("--fit") {
        return match crate::calibration::fit::fit(&text, &overrides) {
            Ok(fit) if flags.has("--json") => match serde_json::to_string_pretty(&fit) {
                Ok(json) => Outcome::ok(json + "\n"),
                Err(e) => Outcome { stdout: String::new(), stderr: format!("error: {e}\n"), code: 1 },
            },
            Ok(fit) => Outcome::ok(format!(
                "Best knobs on the grid (mean |ln error| {:.3} over {} comparisons):\n  --eta-mem {} --eta-compute {} --step-overhead-ms {} --layer-overhead-us {}\n\n{}",
                fit.objective,
                fit.comparisons,
                fit.eta_mem,
                fit.eta_compute,
                fit.step_overhead_ms,
                fit.layer_overhead_us,
                crate::calibration::validate::render(&fit.report)
            )),
            Err(e) => Outcome::usage(format!("{path}: {e}")),
        };
    }
    match crate::calibration::validate::validate(&text, &overrides) {
        Ok(report) if flags.has("--json") => match serde_json::to_string_pretty(&report) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        },
        Ok(report) => Outcome::ok(crate::calibration::validate::render(&report)),
        Err(e) => Outcome::usage(format!("{path}: {e}")),
    }
}

fn plan_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    known.extend([
        "--traffic-tok-s",
        "--traffic-req-s",
        "--gpus-allowed",
        "--price-tier",
        "--top",
    ]);
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    for searched in [
        "--gpu",
        "--gpus",
        "--tp",
        "--precision",
        "--concurrency",
        "--usd-per-gpu-hour",
    ] {
        if flags.text(searched).is_some() {
            return Outcome::usage(format!(
                "{searched}: plan searches this itself; use --gpus-allowed / --price-tier"
            ));
        }
    }
    let mut with_gpu = rest.to_vec();
    with_gpu.extend(["--gpu".to_string(), "h100-sxm".to_string()]);
    let Ok(scenario_flags) = Flags::parse(&with_gpu, &known) else {
        return Outcome::usage("could not read the scenario flags");
    };
    let base = match scenario_input(&scenario_flags) {
        Ok(input) => input,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let slo = match slo_flags(&flags) {
        Ok(slo) => slo,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let traffic = match (flags.number("--traffic-tok-s"), flags.number("--traffic-req-s")) {
        (Ok(Some(tok)), Ok(None)) => tok,
        (Ok(None), Ok(Some(req))) => req * base.output_len,
        (Err(UsageError(m)), _) | (_, Err(UsageError(m))) => return Outcome::usage(m),
        _ => return Outcome::usage("give exactly one traffic level: --traffic-tok-s X (output tokens/s) or --traffic-req-s R"),
    };
    if !(traffic > 0.0 && traffic.is_finite()) {
        return Outcome::usage(format!(
            "--traffic-tok-s/--traffic-req-s: must be positive (got {traffic} output tok/s)"
        ));
    }
    let price_tier = match flags
        .text("--price-tier")
        .map(crate::model::economics::PriceTier::parse)
    {
        None => crate::model::economics::PriceTier::Typical,
        Some(Some(tier)) => tier,
        Some(None) => return Outcome::usage("--price-tier: one of low, typical, high"),
    };
    let top = match flags.number("--top") {
        Ok(None) => 5,
        Ok(Some(k)) if (1.0..=100.0).contains(&k) && k.fract() == 0.0 => k as usize,
        Ok(Some(k)) => {
            return Outcome::usage(format!("--top: a whole number from 1 to 100 (got {k})"))
        }
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let request = crate::decide::plan::PlanRequest {
        base,
        traffic_output_tok_s: traffic,
        slo,
        gpus_allowed: flags
            .text("--gpus-allowed")
            .map(|list| {
                list.split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| s.trim().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        price_tier,
        top,
        verify_with_simulator: !matches!(flags.text("--slo-method"), Some("analytic")),
    };
    let plan = match crate::decide::plan::plan(&request) {
        Ok(plan) => plan,
        Err(e) => return Outcome::usage(e),
    };
    if flags.has("--json") {
        return match serde_json::to_string_pretty(&plan.candidates) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
    }
    let mut out = format!(
        "Cheapest deployments for {} output tok/s ({} configurations searched; tails at the SLO from the {})\n",
        format_number(traffic),
        plan.searched,
        if request.verify_with_simulator && request.slo.is_some() { "simulator" } else { "analytic model" }
    );
    out.push_str(&format!(
        "{:>3} {:<14} {:>4} {:>6} {:>8} {:>6} {:>7} {:>11} {:>9} {:>9} {:>11} {:>9}\n",
        "#",
        "gpu",
        "prec",
        "GPU/rep",
        "replicas",
        "GPUs",
        "conc",
        "tok/s/rep",
        "TTFT ms",
        "TPOT ms",
        "$/month",
        "$/M out"
    ));
    for (i, c) in plan.candidates.iter().enumerate() {
        out.push_str(&format!(
            "{:>3} {:<14} {:>4} {:>6} {:>8} {:>6} {:>7} {:>11} {:>9} {:>9} {:>11} {:>9}\n",
            i + 1,
            c.gpu,
            c.precision,
            c.gpus_per_replica,
            c.replicas,
            c.total_gpus,
            c.concurrency,
            format_number(c.output_tok_s_per_replica),
            format_number(c.ttft_ms),
            format_number(c.tpot_ms),
            format!("${:.0}", c.usd_per_month),
            format_usd(c.usd_per_m_output)
        ));
    }
    if let Some(best) = plan.candidates.first() {
        out.push_str(&api_comparison(&request, best));
    }
    out.push_str("\nWhy the others lost\n");
    for r in &plan.rejected {
        out.push_str(&format!(
            "  {:<14} TP {:<2} {:<5} {}\n",
            r.gpu, r.tp, r.precision, r.reason
        ));
    }
    Outcome::ok(out)
}

fn calibrate_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    known.push("--measurements");
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let Some(path) = flags.text("--measurements") else {
        return Outcome::usage("--measurements FILE.csv|FILE.json is required");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return Outcome::usage(format!("--measurements: {path}: {e}")),
    };
    let points = match crate::calibration::calibrate::parse_measurements(&text) {
        Ok(points) => points,
        Err(e) => return Outcome::usage(format!("--measurements: {path}: {e}")),
    };
    let input = match scenario_input(&flags) {
        Ok(input) => input,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let fit = match crate::calibration::calibrate::calibrate(&input, &points) {
        Ok(fit) => fit,
        Err(e) => return Outcome::usage(format!("{}: {}", flag_for_field(&e.field), e.message)),
    };
    if flags.has("--json") {
        return match serde_json::to_string_pretty(&fit) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
    }
    let mut out = format!(
        "Fitted knobs (RMS log error {:.3} → {:.3}):\n  --eta-mem {:.3} --eta-compute {:.3} --step-overhead-ms {:.3} --layer-overhead-us {:.2}\n\n",
        fit.rms_log_error_before, fit.rms_log_error_after, fit.eta_mem, fit.eta_compute, fit.step_overhead_ms, fit.layer_overhead_us
    );
    out.push_str(&format!(
        "{:>6} | {:>10} {:>10} {:>7} | {:>8} {:>8} {:>7} | {:>8} {:>8} {:>7}\n",
        "conc", "tok/s", "fitted", "resid", "TPOT", "fitted", "resid", "TTFT", "fitted", "resid"
    ));
    let cell =
        |measured: Option<f64>, fitted: f64, residual: Option<f64>| match (measured, residual) {
            (Some(m), Some(r)) => format!(
                "{:>8} {:>8} {:>+6.1}%",
                format_number(m),
                format_number(fitted),
                (r.exp() - 1.0) * 100.0
            ),
            _ => format!("{:>8} {:>8} {:>7}", "–", format_number(fitted), ""),
        };
    for r in &fit.residuals {
        out.push_str(&format!(
            "{:>6} | {} | {} | {}\n",
            r.concurrency,
            cell(
                r.measured.output_tok_s,
                r.fitted_output_tok_s,
                r.residual_output_tok_s
            ),
            cell(r.measured.tpot_ms, r.fitted_tpot_ms, r.residual_tpot_ms),
            cell(r.measured.ttft_ms, r.fitted_ttft_ms, r.residual_ttft_ms)
        ));
    }
    Outcome::ok(out)
}

fn simulate_command(rest: &[String]) -> Outcome {
    let mut known: Vec<&str> = SCENARIO_FLAGS.to_vec();
    known.extend(["--rate", "--burstiness", "--requests", "--seed"]);
    let flags = match Flags::parse(rest, &known) {
        Ok(flags) => flags,
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let number = |flag: &str| flags.number(flag);
    let (concurrency, rate, burstiness) = match (
        number("--concurrency"),
        number("--rate"),
        number("--burstiness"),
    ) {
        (Err(UsageError(m)), _, _) | (_, Err(UsageError(m)), _) | (_, _, Err(UsageError(m))) => {
            return Outcome::usage(m)
        }
        (Ok(c), Ok(r), Ok(b)) => (c, r, b),
    };
    let arrivals = match (concurrency, rate) {
        (Some(c), None) => {
            if burstiness.is_some() {
                return Outcome::usage(
                    "--burstiness applies to --rate (open loop), not --concurrency",
                );
            }
            if !(c >= 1.0 && c.fract() == 0.0 && c <= 1_000_000.0) {
                return Outcome::usage(format!(
                    "--concurrency: a whole number from 1 to 1000000 (got {c})"
                ));
            }
            crate::sim::Arrivals::Closed {
                concurrency: c as u32,
            }
        }
        (None, Some(r)) => match burstiness {
            None => crate::sim::Arrivals::Poisson { rate_per_s: r },
            Some(cv) => crate::sim::Arrivals::Gamma { rate_per_s: r, cv },
        },
        _ => return Outcome::usage(
            "give exactly one of --concurrency N (closed loop) or --rate R (requests/s, open loop)",
        ),
    };
    let requests = match number("--requests") {
        Ok(None) => 2000,
        Ok(Some(n)) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(crate::sim::MAX_REQUESTS) => {
            n as u32
        }
        Ok(Some(n)) => {
            return Outcome::usage(format!(
                "--requests: a whole number from 1 to {} (got {n})",
                crate::sim::MAX_REQUESTS
            ))
        }
        Err(UsageError(m)) => return Outcome::usage(m),
    };
    let seed = match flags.text("--seed").map(|t| t.trim().parse::<u64>()) {
        None => 1,
        Some(Ok(seed)) => seed,
        Some(Err(_)) => {
            return Outcome::usage("--seed: a whole number from 0 to 18446744073709551615")
        }
    };
    let slo = match (number("--slo-ttft-ms"), number("--slo-tpot-ms")) {
        (Ok(Some(ttft_ms)), Ok(Some(tpot_ms))) => Some(crate::sim::Slo { ttft_ms, tpot_ms }),
        (Ok(None), Ok(None)) => None,
        _ => return Outcome::usage("give both --slo-ttft-ms and --slo-tpot-ms (or neither)"),
    };
    // The scenario's operating point is the closed-loop concurrency (or 1 for open loop).
    let mut scenario_flags = rest.to_vec();
    if concurrency.is_none() {
        scenario_flags.extend(["--concurrency".to_string(), "1".to_string()]);
    }
    let Ok(parsed) = Flags::parse(&scenario_flags, &known) else {
        return Outcome::usage("could not read the scenario flags");
    };
    let scenario = match scenario_from(&parsed) {
        Ok(s) => s,
        Err(outcome) => return outcome,
    };
    let config = crate::sim::SimConfig {
        arrivals,
        requests,
        seed,
        slo,
        ..crate::sim::SimConfig::default()
    };
    let result = match crate::sim::simulate(&scenario, &config) {
        Ok(result) => result,
        Err(e) => return Outcome::usage(format!("--{}: {}", e.field.replace('_', "-"), e.message)),
    };
    if flags.has("--json") {
        return match serde_json::to_string_pretty(&simulation_json(&result)) {
            Ok(json) => Outcome::ok(json + "\n"),
            Err(e) => Outcome {
                stdout: String::new(),
                stderr: format!("error: {e}\n"),
                code: 1,
            },
        };
    }
    let mut out = format!(
        "Simulated {} requests ({} completed, {} measured) on {} busy replica(s), seed {seed}\n",
        result.requests, result.completed, result.measured, result.busy_replicas
    );
    out.push_str(&format!(
        "output tok/s {} ({} per GPU), total tok/s {}, requests/s {}\n",
        format_number(result.output_tok_s),
        format_number(result.output_tok_s_per_gpu),
        format_number(result.total_tok_s),
        format_number(result.requests_per_s)
    ));
    out.push_str(&format!(
        "{:<6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "ms", "mean", "P50", "P90", "P95", "P99", "max"
    ));
    for (name, l) in [
        ("TTFT", &result.ttft),
        ("TPOT", &result.tpot),
        ("ITL", &result.itl),
        ("E2E", &result.e2e),
    ] {
        out.push_str(&format!(
            "{:<6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            name,
            format_number(l.mean_ms),
            format_number(l.p50_ms),
            format_number(l.p90_ms),
            format_number(l.p95_ms),
            format_number(l.p99_ms),
            format_number(l.max_ms)
        ));
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

/// The simulation result as JSON, with flat percentile keys (`ttft_ms_p99`, `tpot_ms_p95`,
/// `itl_ms_p99`, ...) beside the nested summaries, and `bound_hit` saying whether a bound cut the run.
fn simulation_json(result: &crate::sim::SimResult) -> serde_json::Value {
    let mut value = serde_json::to_value(result).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        for (name, summary) in [
            ("ttft", &result.ttft),
            ("tpot", &result.tpot),
            ("itl", &result.itl),
            ("e2e", &result.e2e),
        ] {
            for (suffix, v) in [
                ("mean", summary.mean_ms),
                ("p50", summary.p50_ms),
                ("p90", summary.p90_ms),
                ("p95", summary.p95_ms),
                ("p99", summary.p99_ms),
                ("max", summary.max_ms),
            ] {
                object.insert(format!("{name}_ms_{suffix}"), v.into());
            }
        }
        object.insert("bound_hit".into(), result.truncated.is_some().into());
    }
    value
}

/// The cheapest plan against every API price for the model (MODEL.md §7 break-even).
fn api_comparison(
    request: &crate::decide::plan::PlanRequest,
    best: &crate::decide::plan::Candidate,
) -> String {
    let model_id = request.base.model.trim();
    let prices = crate::catalog::api_prices_for(model_id);
    if prices.is_empty() {
        return format!("\nNo API prices in the catalog for {model_id}.\n");
    }
    let usd_per_hour = f64::from(best.total_gpus) * best.usd_per_gpu_hour;
    let capacity_output = best.output_tok_s_per_replica * f64::from(best.replicas);
    let ratio = request.base.input_len / request.base.output_len.max(1.0);
    let capacity_input = capacity_output * ratio;
    let traffic_input = request.traffic_output_tok_s * ratio;
    let self_at_traffic =
        usd_per_hour * 1e6 / ((request.traffic_output_tok_s + traffic_input) * 3600.0);
    let mut out = format!(
        "\nAgainst API prices ({} input : 1 output tokens; self-hosted ${:.3}/M at this traffic, utilization {:.0} %)\n",
        format_number(ratio),
        self_at_traffic,
        best.utilization * 100.0
    );
    out.push_str(&format!(
        "  {:<40} {:>9} {:>9} {:>10} {:>12}\n",
        "provider", "$/M in", "$/M out", "$/M mixed", "break-even u"
    ));
    for price in prices {
        if let Some(b) = crate::model::economics::break_even(
            usd_per_hour,
            capacity_input,
            capacity_output,
            price,
        ) {
            let verdict = if b.break_even_utilization > 1.0 {
                "never".to_string()
            } else {
                format!("{:.0} %", b.break_even_utilization * 100.0)
            };
            out.push_str(&format!(
                "  {:<40} {:>9.3} {:>9.3} {:>10.3} {:>12}\n",
                price.provider.chars().take(40).collect::<String>(),
                b.api_usd_per_m_input,
                b.api_usd_per_m_output,
                b.api_usd_per_m_mixed,
                verdict
            ));
        }
    }
    out
}

fn list_models() -> Outcome {
    match catalog() {
        Ok(cat) => Outcome::ok(
            cat.models
                .iter()
                .map(|m| {
                    format!(
                        "{:<20} {} ({:?}, {:?})\n",
                        m.id, m.name, m.arch, m.attention
                    )
                })
                .collect(),
        ),
        Err(e) => Outcome {
            stdout: String::new(),
            stderr: format!("error: {e}\n"),
            code: 1,
        },
    }
}

fn list_gpus() -> Outcome {
    match catalog() {
        Ok(cat) => Outcome::ok(
            cat.gpus
                .iter()
                .map(|g| {
                    let note = g
                        .missing_spec()
                        .map(|why| format!("  [cannot evaluate: {why}]"))
                        .unwrap_or_default();
                    format!("{:<16} {}{}\n", g.id, g.name, note)
                })
                .collect(),
        ),
        Err(e) => Outcome {
            stdout: String::new(),
            stderr: format!("error: {e}\n"),
            code: 1,
        },
    }
}
