//! Command-line flags → the raw `ScenarioInput` (parse, don't validate: numbers are read here,
//! ranges and catalog ids are checked once by `Scenario::try_from`).

use crate::scenario::{EfficiencyOverrides, ScenarioInput};
use std::collections::BTreeMap;

/// Flags that take no value.
const SWITCHES: &[&str] = &[
    "--json",
    "--csv",
    "--max-throughput",
    "--help",
    "-h",
    "--ideal-roofline",
    "--fit",
    "--cross-validate",
];

/// A usage error naming the flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

/// Flags as given: `--name value` pairs, switches, and positional arguments.
#[derive(Debug, Default, Clone)]
pub struct Flags {
    pub values: BTreeMap<String, String>,
    pub switches: Vec<String>,
    pub positional: Vec<String>,
}

impl Flags {
    /// Split raw arguments; `--name=value` and `--name value` are both accepted.
    pub fn parse(args: &[String], known_values: &[&str]) -> Result<Flags, UsageError> {
        let mut flags = Flags::default();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            if let Some(stripped) = arg.strip_prefix("--").filter(|_| arg.len() > 2) {
                let (name, inline) = match stripped.split_once('=') {
                    Some((name, value)) => (format!("--{name}"), Some(value.to_string())),
                    None => (arg.clone(), None),
                };
                if SWITCHES.contains(&name.as_str()) {
                    if inline.is_some() {
                        return Err(UsageError(format!("{name} takes no value")));
                    }
                    flags.switches.push(name);
                    continue;
                }
                if !known_values.contains(&name.as_str()) {
                    return Err(UsageError(format!("unknown flag {name} (see --help)")));
                }
                let value = match inline {
                    Some(value) => value,
                    None => iter
                        .next()
                        .cloned()
                        .ok_or_else(|| UsageError(format!("{name} needs a value")))?,
                };
                if flags.values.insert(name.clone(), value).is_some() {
                    return Err(UsageError(format!("{name} is given twice")));
                }
            } else if arg == "-h" {
                flags.switches.push(arg.clone());
            } else {
                flags.positional.push(arg.clone());
            }
        }
        Ok(flags)
    }

    pub fn has(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    pub fn text(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// A number flag; the error names the flag and shows what was given.
    pub fn number(&self, name: &str) -> Result<Option<f64>, UsageError> {
        match self.values.get(name) {
            None => Ok(None),
            Some(text) => text
                .trim()
                .parse::<f64>()
                .map(Some)
                .map_err(|_| UsageError(format!("{name}: `{text}` is not a number"))),
        }
    }
}

/// Flags that set the scenario (shared by estimate, sweep and simulate-like commands).
pub const SCENARIO_FLAGS: &[&str] = &[
    "--model",
    "--gpu",
    "--gpus",
    "--tp",
    "--pp",
    "--ep",
    "--precision",
    "--kv-precision",
    "--input-len",
    "--output-len",
    "--input-sigma",
    "--output-sigma",
    "--prefix-hit",
    "--usd-per-gpu-hour",
    "--concurrency",
    "--max-num-seqs",
    "--chunk-tokens",
    "--batching",
    "--kv-alloc",
    "--length-dist",
    "--max-model-len",
    "--spec-decode",
    "--spec-accept",
    "--spec-len",
    "--spec-draft-cost",
    "--workload",
    "--model-config",
    "--slo-ttft-ms",
    "--slo-tpot-ms",
    "--slo-percentile",
    "--slo-method",
    "--eta-mem",
    "--eta-compute",
    "--blend-p",
    "--layer-overhead-us",
    "--step-overhead-ms",
    "--allreduce-latency-us",
    "--link-efficiency",
    "--mem-utilization",
    "--reserved-gb",
    "--dequant-factor",
    "--causal-factor",
    "--moe-imbalance",
];

/// The CLI flag for a scenario field name (`ScenarioError::field`).
pub fn flag_for_field(field: &str) -> String {
    match field {
        "gpu-count" => "--gpus".into(),
        other => format!("--{other}"),
    }
}

/// Build the raw scenario from flags. `--model`, `--gpu`, `--input-len` and `--output-len` are
/// required; everything else falls back to `ScenarioInput::default()`.
pub fn scenario_input(flags: &Flags) -> Result<ScenarioInput, UsageError> {
    let mut input = ScenarioInput::default();
    for required in ["--model", "--gpu", "--input-len", "--output-len"] {
        let from_preset = flags.text("--workload").is_some() && required.ends_with("-len");
        let from_config = flags.text("--model-config").is_some() && required == "--model";
        if flags.text(required).is_none() && !from_preset && !from_config {
            return Err(UsageError(format!("{required} is required")));
        }
    }
    if let Some(model) = flags.text("--model") {
        input.model = model.to_string();
    }
    if let Some(path) = flags.text("--model-config") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError(format!("--model-config: {path}: {e}")))?;
        let spec = crate::catalog::parse_hf_config(&text)
            .map_err(|e| UsageError(format!("--model-config: {e}")))?;
        input.model = "custom".into();
        input.custom_model = Some(spec);
    }
    if let Some(gpu) = flags.text("--gpu") {
        input.gpu = gpu.to_string();
        // The page's default price is the glossary's $3.125; on the CLI an unpriced run takes
        // the catalog's typical price for the chosen GPU.
        input.usd_per_gpu_hour = None;
    }
    if let Some(precision) = flags.text("--precision") {
        input.precision = precision.to_string();
    }
    // The CLI's lengths are what the user typed: fixed unless a distribution is asked for.
    input.length_dist = "fixed".into();
    if let Some(preset) = flags.text("--workload") {
        input
            .apply_workload_preset(preset)
            .map_err(|e| UsageError(format!("--workload: {e}")))?;
    }
    for (flag, target) in [
        ("--batching", &mut input.batching),
        ("--kv-alloc", &mut input.kv_alloc),
        ("--length-dist", &mut input.length_dist),
        ("--spec-decode", &mut input.spec_decode),
    ] {
        if let Some(value) = flags.text(flag) {
            *target = value.to_string();
        }
    }
    input.max_model_len = flags.number("--max-model-len")?;
    input.spec_accept = flags.number("--spec-accept")?;
    input.spec_len = flags.number("--spec-len")?;
    input.spec_draft_cost = flags.number("--spec-draft-cost")?;
    if let Some(kv) = flags.text("--kv-precision") {
        input.kv_precision = kv.to_string();
    }
    input.gpu_count = flags.number("--gpus")?.unwrap_or(1.0);
    input.tp = match flags.text("--tp") {
        Some("auto") => None,
        _ => flags.number("--tp")?,
    };
    input.pp = flags.number("--pp")?;
    input.ep = flags.number("--ep")?;
    let set = |target: &mut f64, name: &str| -> Result<(), UsageError> {
        if let Some(value) = flags.number(name)? {
            *target = value;
        }
        Ok(())
    };
    set(&mut input.input_len, "--input-len")?;
    set(&mut input.output_len, "--output-len")?;
    set(&mut input.input_sigma, "--input-sigma")?;
    set(&mut input.output_sigma, "--output-sigma")?;
    let sigma_given =
        flags.text("--input-sigma").is_some() || flags.text("--output-sigma").is_some();
    if sigma_given && flags.text("--length-dist").is_none() {
        input.length_dist = "lognormal".into();
    }
    set(&mut input.prefix_hit, "--prefix-hit")?;
    set(&mut input.concurrency, "--concurrency")?;
    set(&mut input.max_num_seqs, "--max-num-seqs")?;
    set(&mut input.chunk_tokens, "--chunk-tokens")?;
    if let Some(price) = flags.number("--usd-per-gpu-hour")? {
        input.usd_per_gpu_hour = Some(price);
    }
    input.efficiency = efficiency_overrides(flags)?;
    Ok(input)
}

/// The efficiency-knob flags alone (also used by `validate`).
pub fn efficiency_overrides(flags: &Flags) -> Result<EfficiencyOverrides, UsageError> {
    let mut overrides = EfficiencyOverrides::default();
    let e = &mut overrides;
    e.eta_mem = flags.number("--eta-mem")?;
    e.eta_compute = flags.number("--eta-compute")?;
    e.blend_p = flags.number("--blend-p")?;
    e.layer_overhead_us = flags.number("--layer-overhead-us")?;
    e.step_overhead_ms = flags.number("--step-overhead-ms")?;
    e.allreduce_latency_us = flags.number("--allreduce-latency-us")?;
    e.link_efficiency = flags.number("--link-efficiency")?;
    e.mem_utilization = flags.number("--mem-utilization")?;
    e.reserved_gb = flags.number("--reserved-gb")?;
    e.dequant_factor = flags.number("--dequant-factor")?;
    e.causal_factor = flags.number("--causal-factor")?;
    e.moe_imbalance = flags.number("--moe-imbalance")?;
    Ok(overrides)
}
