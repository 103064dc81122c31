//! The `servecost` command line: `estimate` (one operating point), `sweep` (the curve),
//! `validate` (predicted vs published measurements), and catalog listings. Pure: `run` maps
//! arguments to the text to print and an exit code, so tests call it without a process.
//!
//! One file per command (`estimate`, `sweep`, `validate`, `plan`, `leaderboard`, `calibrate`,
//! `simulate`, `listing` for models and GPUs); `args` reads flags, `output` holds what a command
//! returns and the outcomes the commands share (JSON, bad input). Flags are read into raw inputs
//! (`ScenarioInput`, `SloInput`, `PlanInput`, `SimInput`) that the core checks once with
//! `try_from`; the CLI checks only which flags go together.

#[cfg(feature = "session-model")]
mod agents;
mod args;
mod calibrate;
mod estimate;
mod leaderboard;
mod listing;
mod output;
mod plan;
mod simulate;
mod sweep;
mod validate;

pub use output::Outcome;

use crate::choice::Choice as _;
use crate::decide::plan_disagg::ServingSearch;
use crate::scenario::{Scenario, ScenarioInput};
use crate::scenario::{SloInput, SloMethod, SloSettings};
use args::{scenario_input, Flags, UsageError};

/// The usage text; the field flags' section is generated from the field table (`args::fields_help`)
/// and each `{placeholder}` is a closed set's ids (`usage_choices`).
pub(super) fn help() -> String {
    let mut help = HELP.to_string();
    for (placeholder, ids) in usage_choices() {
        help = help.replace(&format!("{{{placeholder}}}"), &ids);
    }
    let (usage, end) = help.split_at(help.find("Bad input exits").unwrap_or(help.len()));
    format!("{usage}{}\n{end}", args::fields_help())
}

/// The closed sets USAGE names, as `a|b|c`: `{placeholder}` in `HELP` (a field's key where
/// there is one) becomes these ids.
/// (`--batching static|continuous` and `--length-dist fixed|lognormal` keep their own order,
/// which is not their menus'; `tests::usage_lists_are_closed_sets` checks them as sets.)
fn usage_choices() -> [(&'static str, String); 11] {
    use crate::choice::Choice;
    use crate::decide::agents::AgentRank;
    use crate::physics::economics::PriceTier;
    use crate::physics::precision::{KvPrecision, Precision};
    use crate::scenario::{fields, SpecMethod, UserPercentile, WORKLOAD_PRESETS};
    let presets: Vec<&str> = WORKLOAD_PRESETS.iter().map(|preset| preset.id).collect();
    [
        (fields::PRECISION.key, Precision::ids("|")),
        ("kv-precision", KvPrecision::ids("|")),
        (fields::WORKLOAD.key, presets.join("|")),
        ("kv-alloc", crate::scenario::KvAlloc::ids("|")),
        ("spec-decode", <Option<SpecMethod>>::ids("|")),
        ("slo-method", SloMethod::ids("|")),
        ("price-tier", PriceTier::ids("|")),
        ("group-by", crate::calibration::profiles::GroupBy::ids("|")),
        (
            "session-workload",
            crate::scenario::fields::SESSION_WORKLOADS.join("|"),
        ),
        ("user-percentile", UserPercentile::ids("|")),
        ("rank-by", AgentRank::ids("|")),
    ]
}

const HELP: &str = "servecost — LLM serving performance and cost model

USAGE
  servecost estimate --model ID --gpu ID [--gpus N] [--tp N|auto] [--pp N] [--ep N]
                     [--precision {precision}] [--kv-precision {kv-precision}]
                     --input-len N --output-len N [--input-sigma S] [--output-sigma S] [--prefix-hit R]
                     [--length-dist fixed|lognormal] [--workload {workload}]
                     [--batching static|continuous] [--kv-alloc {kv-alloc}] [--max-model-len N]
                     [--chunk-tokens N] [--spec-decode {spec-decode}] [--spec-accept A]
                     [--spec-len G] [--spec-draft-cost C]
                     [--model-config config.json]   (a Hugging Face config.json instead of --model)
                     (--concurrency N | --max-throughput | --slo-ttft-ms X --slo-tpot-ms Y [--slo-percentile P])
                     [--slo-method {slo-method}]   (SLO tails from the simulator by default)
                     [--usd-per-gpu-hour X | --price-tier {price-tier}] [--json]
                     (owned: --capex-usd-per-gpu X [--depreciation-years Y --hosting-usd-per-kw-month H
                      --ops-usd-per-gpu-hour O --owned-power-w W --energy-usd-per-kwh E --energy-pue P])
  servecost sweep    (same scenario flags, no operating point) [--csv] [--json]
  servecost validate FILE.csv [--json] [--fit | --cross-validate [--group-by {group-by}] | --markdown]
                     predicted vs measured for a measurements.csv-format file, each row under
                     its engine × stack × deployment profile;
                     --fit fits the profiles (η_mem, η_compute, step, layer, per-sequence and
                     server overheads) and prints them as physics::engine::FITTED;
                     --cross-validate re-fits with one publication, GPU type or model held out
                     at a time (all three by default) and reports the out-of-sample errors;
                     --cross-validate --write-bands OUT writes the expected-error table;
                     --markdown prints docs/VALIDATION.md
  servecost plan     --model ID --input-len N --output-len N [length flags]
                     (--traffic-tok-s X | --traffic-req-s R) [--slo-ttft-ms X --slo-tpot-ms Y [--slo-percentile P]]
                     [--gpus-allowed id,id,...] [--price-tier {price-tier}] [--top K] [--json]
                     [--precisions-allowed bf16,fp8[,fp4,int4]] [--max-utilization 0.8] [--gpus-per-node 8]
                     the cheapest GPU × TP × precision × batch meeting the SLOs for the traffic
                     (4-bit weights only when allowed, with a quality caveat; replicas sized to
                     the utilization ceiling; whole servers past one)
  servecost leaderboard --model ID --input-len N --output-len N [length flags]
                     [--tok-s-per-user X | --slo-tpot-ms Y] [--ttft-ceiling-ms T] [--gpus-allowed id,id,...]
                     [--all-layouts] [--json]
                     every GPU × precision × layout at X tok/s per user (default 50) or mean TPOT Y,
                     within the KV capacity and a TTFT at the SLO percentile (--slo-percentile, default 90)
                     of at most T ms (--ttft-ceiling-ms, default 2000),
                     cheapest $/M output first, each row with the `estimate` command that reproduces it
  servecost estimate --workload {session-workload} --model ID --gpu ID [--gpus N] [--tp N]
                     [--concurrency AGENTS] [--session-turns T --session-tool-tokens R --session-tool-s S]
                     [--tok-s-per-user X] [--slo-ttft-ms T] [--interactivity-percentile {user-percentile}]
                     [--api-usd-per-m-input I --api-usd-per-m-output O [--api-usd-per-m-cached-input C]]
                     [--licence-fee-pct F] [--billed-utilization U] [--fleet-agents N] [--owned-power-w W] [--json]
                     agentic sessions (issue 27): agents per GPU, server and MW at the tier (P90 by
                     default), J per output token, the prefix-hit rate reached, $/M cached input,
                     revenue and margin per GPU-hour at API prices, self-host vs API for a fleet
  servecost leaderboard --workload agentic-coding --model ID [--rank-by {rank-by}]
                     [--tok-s-per-user X] [--gpus-allowed id,id,...] [--all-layouts] [--json]
                     each GPU × precision at its best layout of the hardware leaderboard's (TP 1–8,
                     EP and DEP for MoE, TP 8 × PP past a server), ranked by agents at the tier per
                     MW or per $/h (GPUs without a catalog price ranked per MW only)
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
    // `servecost plan --help` is help, not "--model is required".
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        return Outcome::ok(help());
    }
    match command.as_str() {
        "estimate" => estimate::estimate(rest),
        "sweep" => sweep::sweep_command(rest),
        "validate" => validate::validate_command(rest),
        "plan" => plan::plan_command(rest),
        "leaderboard" => leaderboard::leaderboard_command(rest),
        "simulate" => simulate::simulate_command(rest),
        "calibrate" => calibrate::calibrate_command(rest),
        "models" => listing::list_models(),
        "gpus" => listing::list_gpus(),
        "help" | "--help" | "-h" => Outcome::ok(help()),
        other => Outcome::usage(format!(
            "unknown command `{other}` (estimate, sweep, validate, plan, leaderboard, simulate, calibrate, models, gpus, help)"
        )),
    }
}

/// Parse flags and validate the scenario, naming the offending flag on failure.
fn scenario_from(flags: &Flags) -> Result<Scenario, Outcome> {
    let mut input = scenario_input(flags).map_err(|UsageError(m)| Outcome::usage(m))?;
    if let Some(tier) = flags.text("--price-tier") {
        input.usd_per_gpu_hour = Some(tier_price(flags, tier, &input.gpu)?);
    }
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
    Scenario::try_from(input).map_err(|e| Outcome::bad_field(&e))
}

/// The price `--price-tier low|typical|high|owned` names for the GPU: a catalog quote, or the
/// effective price of owning it (`Ownership`, from the `capex-usd-per-gpu` and other flags).
fn tier_price(flags: &Flags, tier: &str, gpu_id: &str) -> Result<f64, Outcome> {
    use crate::choice::Choice;
    use crate::physics::economics::PriceTier;
    let price_flag = format!("--{}", crate::scenario::fields::USD_PER_GPU_HOUR.key);
    if flags.text(&price_flag).is_some() {
        return Err(Outcome::usage(format!(
            "--price-tier: give a tier or {price_flag}, not both"
        )));
    }
    let tier = PriceTier::parse(tier)
        .ok_or_else(|| Outcome::usage(format!("--price-tier: {}", PriceTier::not_one_of(tier))))?;
    let catalog = crate::catalog::catalog().map_err(Outcome::usage)?;
    let gpu = catalog
        .gpu(gpu_id.trim())
        .ok_or_else(|| Outcome::usage(format!("--gpu: unknown GPU `{gpu_id}`")))?;
    let ownership = args::decision_input(flags)?.ownership();
    tier.price_with(gpu, ownership.as_ref()).ok_or_else(|| {
        Outcome::usage(match tier {
            PriceTier::Owned => format!(
                "--price-tier owned: give --{} (and a power per GPU where the catalog has no TDP)",
                crate::scenario::fields::CAPEX_USD_PER_GPU.key
            ),
            rental => format!(
                "--price-tier: no {} price for {} in the catalog",
                rental.id(),
                gpu.name
            ),
        })
    })
}

/// `--slo-ttft-ms X --slo-tpot-ms Y [--slo-percentile P] [--slo-method M]` as given: the
/// command line takes both targets or neither (the page lets one alone constrain).
fn slo_input(flags: &Flags) -> Result<SloInput, Outcome> {
    let decision = args::decision_input(flags)?.slo_input();
    // The percentile "as given": tails are quoted only when it is asked for.
    let percentile_given = flags
        .text(&format!(
            "--{}",
            crate::scenario::fields::SLO_PERCENTILE.key
        ))
        .is_some();
    let input = SloInput {
        percentile: decision.percentile.filter(|_| percentile_given),
        ..decision
    };
    match (input.ttft_ms, input.tpot_ms) {
        (None, Some(_)) => Err(Outcome::usage(
            "--slo-ttft-ms is required with --slo-tpot-ms",
        )),
        (Some(_), None) => Err(Outcome::usage(
            "--slo-tpot-ms is required with --slo-ttft-ms",
        )),
        _ => Ok(SloInput {
            method: choice_flag(
                flags,
                "--slo-method",
                <SloMethod as crate::choice::Choice>::parse_exact,
            )?,
            ..input
        }),
    }
}

/// A closed-set flag, if given, read by `parse` (the set's exact parser, or its forgiving one
/// that ignores blanks and case); a value outside the set is a usage error naming the flag and
/// the set's ids (`--slo-method`, `--price-tier`).
fn choice_flag<C: crate::choice::Choice>(
    flags: &Flags,
    flag: &str,
    parse: fn(&str) -> Option<C>,
) -> Result<Option<C>, Outcome> {
    match flags.text(flag) {
        None => Ok(None),
        Some(text) => parse(text)
            .map(Some)
            .ok_or_else(|| Outcome::usage(format!("{flag}: {}", C::not_one_of(text)))),
    }
}

/// The base scenario `plan` and `leaderboard` search from, and what they search,
/// `--serving aggregated|disaggregated|any` (default `any`). The flag is taken out of `flags`, so
/// neither the scenario reader nor the decision reader takes it for the scenario's own serving,
/// which `any` is not; the GPU, which both search, is a placeholder the reader requires.
fn searched_base(flags: &mut Flags) -> Result<(ServingSearch, ScenarioInput), Outcome> {
    use crate::scenario::fields::{GPU, SERVING};
    let flag = format!("--{}", SERVING.key);
    let chosen = choice_flag(flags, &flag, ServingSearch::parse)?;
    flags.values.remove(&flag);
    let mut scenario_flags = flags.clone();
    scenario_flags
        .values
        .insert(format!("--{}", GPU.key), "h100-sxm".to_string());
    let base = scenario_input(&scenario_flags).map_err(|e| Outcome::usage(e.0))?;
    Ok((chosen.unwrap_or(ServingSearch::Any), base))
}

/// The SLO flags, checked once by `SloSettings::try_from`.
fn slo_settings(flags: &Flags) -> Result<SloSettings, Outcome> {
    SloSettings::try_from(slo_input(flags)?).map_err(|e| Outcome::bad_field(&e))
}

#[cfg(test)]
mod tests {
    use super::help;
    use crate::choice::Choice;

    /// `--serving` is what plan and the leaderboard search (`any` among its values, which no
    /// scenario's serving is); a value outside the set is an error naming the flag, not a silent
    /// aggregated search.
    #[test]
    fn serving_is_a_search_choice() {
        let args = |serving: &str| -> Vec<String> {
            [
                "leaderboard",
                "--model",
                "llama-3.1-8b",
                "--gpus-allowed",
                "h100-sxm",
                "--input-len",
                "1000",
                "--output-len",
                "200",
                "--serving",
                serving,
            ]
            .map(String::from)
            .to_vec()
        };
        let bad = super::run(&args("banana"));
        assert_eq!(bad.code, 2, "{}", bad.stdout);
        assert!(
            bad.stderr
                .contains("--serving: `banana` is not one of any, aggregated, disaggregated"),
            "{}",
            bad.stderr
        );
        for serving in ["any", "Aggregated", "disaggregated"] {
            let ok = super::run(&args(serving));
            assert_eq!(ok.code, 0, "{serving}: {}", ok.stderr);
        }
    }

    /// Every `a|b|c` list of lowercase ids in the help (not `N|auto` or `FILE.csv|FILE.json`).
    fn usage_lists(text: &str) -> Vec<String> {
        text.split_whitespace()
            .map(|word| word.trim_matches(|c: char| "[]()".contains(c)))
            .filter(|word| word.contains('|'))
            .filter(|word| {
                word.split('|').all(|id| {
                    !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                })
            })
            .map(str::to_string)
            .collect()
    }

    fn sorted(ids: &str) -> Vec<&str> {
        let mut ids: Vec<&str> = ids.split('|').collect();
        ids.sort_unstable();
        ids
    }

    /// A choice list typed into USAGE is a closed set's ids, every one of them, so a new
    /// variant cannot be left out of the help.
    #[test]
    fn usage_lists_are_closed_sets() {
        use crate::scenario::*;
        let presets: Vec<&str> = WORKLOAD_PRESETS.iter().map(|p| p.id).collect();
        let sets = [
            crate::physics::precision::Precision::ids("|"),
            crate::physics::precision::KvPrecision::ids("|"),
            crate::physics::economics::PriceTier::ids("|"),
            crate::physics::engine::Deployment::ids("|"),
            crate::calibration::profiles::GroupBy::ids("|"),
            crate::decide::agents::AgentRank::ids("|"),
            Batching::ids("|"),
            KvAlloc::ids("|"),
            LengthDist::ids("|"),
            Protocol::ids("|"),
            <Option<SpecMethod>>::ids("|"),
            pools::Serving::ids("|"),
            SloMethod::ids("|"),
            TrafficUnit::ids("|"),
            LoadUnit::ids("|"),
            UserPercentile::ids("|"),
            presets.join("|"),
            fields::SESSION_WORKLOADS.join("|"),
        ];
        let text = help();
        let lists = usage_lists(&text);
        assert!(lists.len() >= 13, "{lists:?}");
        for list in lists {
            assert!(
                sets.iter().any(|set| sorted(set) == sorted(&list)),
                "`{list}` in the help is no closed set's ids"
            );
        }
        assert!(!text.contains('{'), "a placeholder is left in the help");
    }
}
