//! Command-line flags → the raw `ScenarioInput` (parse, don't validate: numbers are read here,
//! ranges and catalog ids are checked once by `Scenario::try_from`).

use crate::scenario::fields::{
    efficiency_knobs, Field, Group, Inputs, CUSTOM_MODEL, CUSTOM_MODEL_VALUE, FIELDS, GPU,
    INPUT_LEN, INPUT_SIGMA, LENGTH_DIST_FIELD, MODEL, OUTPUT_LEN, OUTPUT_SIGMA, WORKLOAD,
};
use crate::scenario::{DecisionInput, EfficiencyOverrides, LengthDist, ScenarioInput};
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
    "--markdown",
    super::leaderboard::ALL_LAYOUTS,
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
                let field = name
                    .strip_prefix("--")
                    .is_some_and(|key| Field::by_key(key).is_some());
                let known = known_values.contains(&name.as_str())
                    || (field && known_values.contains(&FIELD_FLAGS));
                if !known {
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

/// Stands, in a list of known flags, for every field of the table (`--KEY` for each
/// `scenario::fields` key): `Flags::parse` accepts them all.
pub const FIELD_FLAGS: &str = "--<field>";

/// Flags that set the scenario and decision inputs (every field of the table), plus the CLI's
/// own scenario options: a pasted config file, how SLO tails are computed and the price tier
/// (a catalog quote or owned hardware instead of `--usd-per-gpu-hour`).
pub const SCENARIO_FLAGS: &[&str] = &[
    FIELD_FLAGS,
    "--model-config",
    "--slo-method",
    "--price-tier",
    RANK_BY,
];

/// The agentic leaderboard's ranking (`agents-per-mw`, `agents-per-usd`; issue 27).
pub const RANK_BY: &str = "--rank-by";

/// The CLI flag for a field name (`ScenarioError::field`): `--KEY`; a part of a custom model
/// (`custom-model.num_layers`) names the `--model-config` file.
pub fn flag_for_field(field: &str) -> String {
    match field.split_once('.') {
        Some((model, part)) if model == CUSTOM_MODEL.key => format!("--model-config ({part})"),
        _ => format!("--{field}"),
    }
}

/// The inputs a command line starts from: the page's defaults, except one GPU, the lengths as
/// typed (fixed, not lognormal) and the catalog's typical price for the chosen GPU.
pub fn cli_defaults() -> Inputs {
    Inputs {
        scenario: ScenarioInput {
            gpu_count: 1.0,
            length_dist: LengthDist::Fixed,
            usd_per_gpu_hour: None,
            ..ScenarioInput::default()
        },
        decision: DecisionInput::default(),
    }
}

/// Set every field flag given, derived fields (a `--workload` preset) first so explicit lengths
/// and spreads override it; the error names the flag.
fn set_fields(flags: &Flags, inputs: &mut Inputs) -> Result<(), UsageError> {
    let derived = FIELDS.iter().filter(|f| f.derived);
    let plain = FIELDS.iter().filter(|f| !f.derived);
    for field in derived.chain(plain) {
        if let Some(text) = flags.values.get(&format!("--{}", field.key)) {
            field
                .set(inputs, text)
                .map_err(|why| UsageError(format!("--{}: {why}", field.key)))?;
        }
    }
    Ok(())
}

/// Build the raw scenario from flags. `--model`, `--gpu`, `--input-len` and `--output-len` are
/// required (a `--workload` preset gives the lengths, `--model-config` the model); everything
/// else falls back to `cli_defaults()`.
pub fn scenario_input(flags: &Flags) -> Result<ScenarioInput, UsageError> {
    let given = |field: &Field| flags.text(&format!("--{}", field.key)).is_some();
    let from_preset = given(&WORKLOAD);
    let from_config = flags.text("--model-config").is_some();
    for (required, waived) in [
        (&MODEL, from_config),
        (&GPU, false),
        (&INPUT_LEN, from_preset),
        (&OUTPUT_LEN, from_preset),
    ] {
        if !given(required) && !waived {
            return Err(UsageError(format!("--{} is required", required.key)));
        }
    }
    let mut inputs = cli_defaults();
    set_fields(flags, &mut inputs)?;
    let mut input = inputs.scenario;
    if let Some(path) = flags.text("--model-config") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError(format!("--model-config: {path}: {e}")))?;
        let spec = crate::catalog::parse_hf_config(&text)
            .map_err(|e| UsageError(format!("--model-config: {e}")))?;
        input.model = CUSTOM_MODEL_VALUE.into();
        let name = crate::physics::architecture::name_with_size(&spec);
        input.custom_model = Some(crate::catalog::ModelSpec { name, ..spec });
    }
    // A spread given without a distribution asks for lognormal lengths.
    if (given(&INPUT_SIGMA) || given(&OUTPUT_SIGMA)) && !given(&LENGTH_DIST_FIELD) {
        input.length_dist = LengthDist::Lognormal;
    }
    Ok(input)
}

/// The decision inputs from flags (SLO, traffic, load, blend, electricity, plan GPUs), checked
/// once by `DecisionInput::validate`; the error names the flag.
pub fn decision_input(flags: &Flags) -> Result<DecisionInput, UsageError> {
    let mut inputs = cli_defaults();
    set_fields(flags, &mut inputs)?;
    inputs
        .decision
        .validate()
        .map_err(|e| UsageError(format!("{}: {}", flag_for_field(&e.field), e.message)))?;
    Ok(inputs.decision)
}

/// The efficiency-knob flags alone (also used by `validate`).
pub fn efficiency_overrides(flags: &Flags) -> Result<EfficiencyOverrides, UsageError> {
    let mut inputs = cli_defaults();
    for field in efficiency_knobs() {
        if let Some(text) = flags.values.get(&format!("--{}", field.key)) {
            field
                .set(&mut inputs, text)
                .map_err(|why| UsageError(format!("--{}: {why}", field.key)))?;
        }
    }
    Ok(inputs.scenario.efficiency)
}

/// The field flags for `--help`, by group, generated from the table: each flag with its label,
/// unit, range or choices and the CLI's default.
pub fn fields_help() -> String {
    let defaults = cli_defaults();
    let mut out = String::new();
    for group in Group::ALL {
        out.push_str(&format!(
            "\n{} (--KEY VALUE)\n",
            group.title().to_uppercase()
        ));
        for field in FIELDS.iter().filter(|f| f.group == group) {
            out.push_str(&format!(
                "  --{:<22} {}\n",
                field.key,
                field.help_line(&defaults)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    /// Every key of the table is a flag, and the value reads back through the same field: the
    /// CLI parses exactly what a link or a JSON export carries.
    #[test]
    fn every_field_is_a_flag_and_round_trips() {
        let base = cli_defaults();
        let mut untried = Vec::new();
        for field in FIELDS.iter().filter(|f| !f.derived) {
            // A value that differs from the CLI's default where the field allows one.
            let mut changed = base.clone();
            let candidates = field
                .choices
                .iter()
                .map(|(value, _)| value.to_string())
                .chain(["2", "0.5", "llama-3.1-8b", "h100-sxm,l40s", "fp4,bf16"].map(String::from));
            let Some(text) = candidates
                .into_iter()
                .find(|text| field.set(&mut changed, text).is_ok() && changed != base)
            else {
                untried.push(field.key);
                continue;
            };
            let flags = Flags::parse(
                &strings(&[&format!("--{}", field.key), &text]),
                SCENARIO_FLAGS,
            )
            .unwrap_or_else(|e| panic!("--{} refused: {e:?}", field.key));
            let mut inputs = cli_defaults();
            set_fields(&flags, &mut inputs).unwrap_or_else(|e| panic!("--{}: {e:?}", field.key));
            assert_eq!(field.get(&inputs), field.get(&changed), "--{}", field.key);
        }
        // A pasted model is JSON text (the page's link format); the CLI reads `--model-config`.
        assert_eq!(untried, [CUSTOM_MODEL.key]);
        let unknown = Flags::parse(&strings(&["--no-such-flag", "1"]), SCENARIO_FLAGS);
        assert!(unknown.is_err());
    }

    #[test]
    fn a_preset_comes_first_and_explicit_lengths_override_it() {
        let flags = Flags::parse(
            &strings(&["--workload", "code", "--input-len", "500"]),
            SCENARIO_FLAGS,
        )
        .expect("flags");
        let mut inputs = cli_defaults();
        set_fields(&flags, &mut inputs).expect("valid");
        assert_eq!(inputs.scenario.input_len, 500.0);
        assert_eq!(
            inputs.scenario.output_len, 28.0,
            "the code preset's output length"
        );
        assert_eq!(inputs.scenario.length_dist, LengthDist::Lognormal);
    }

    #[test]
    fn bad_values_name_the_flag() {
        let flags = Flags::parse(&strings(&["--gpus", "lots"]), SCENARIO_FLAGS).expect("flags");
        let error = set_fields(&flags, &mut cli_defaults()).expect_err("not a number");
        assert!(error.0.starts_with("--gpus:"), "{}", error.0);
        let flags =
            Flags::parse(&strings(&["--slo-percentile", "20"]), SCENARIO_FLAGS).expect("flags");
        let error = decision_input(&flags).expect_err("out of range");
        assert!(error.0.starts_with("--slo-percentile:"), "{}", error.0);
        assert_eq!(
            flag_for_field("custom-model.num_layers"),
            "--model-config (num_layers)"
        );
    }
}
