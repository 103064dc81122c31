//! The decision controls' vocabulary: which fields there are, the units traffic and load are
//! stated in, the blend ratio, and how a typed text becomes a number (or an error that names
//! the field). Parsing only; `decisions.rs` holds the state.

use crate::decide::pricing::DEFAULT_INPUT_PER_OUTPUT;
use crate::model::slo::{SloInput, SloSettings};

/// The decision controls whose text is parsed into a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionField {
    SloTtftMs,
    SloTpotMs,
    SloPercentile,
    /// The traffic volume, in whichever unit was typed last (`TrafficUnit`).
    Traffic,
    OfferedLoad,
    EnergyUsdPerKwh,
    EnergyPue,
}

impl DecisionField {
    /// The label error messages start with.
    pub fn label(self) -> &'static str {
        match self {
            DecisionField::SloTtftMs => "TTFT target",
            DecisionField::SloTpotMs => "TPOT target",
            DecisionField::SloPercentile => "Percentile",
            DecisionField::Traffic => "Traffic",
            DecisionField::OfferedLoad => "Offered load",
            DecisionField::EnergyUsdPerKwh => "Electricity price",
            DecisionField::EnergyPue => "PUE",
        }
    }
}

/// How traffic is stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrafficUnit {
    RequestsPerS,
    /// Prompt + output tokens per day.
    TokensPerDay,
}

/// How the offered load is stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadUnit {
    /// Percent of the operating point's output tok/s.
    PercentOfCapacity,
    OutputTokS,
}

/// Input tokens per output token for blended prices: a fixed ratio, or the workload's own mix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blend {
    Ratio(f64),
    Workload,
}

impl Blend {
    /// The choices offered, as (select value, label).
    pub const CHOICES: [(&'static str, &'static str); 5] = [
        ("3", "3 : 1 (API convention)"),
        ("1", "1 : 1"),
        ("0.25", "1 : 4 (output-heavy)"),
        ("10", "10 : 1 (long prompts)"),
        ("workload", "the workload's own mix"),
    ];

    pub fn parse(value: &str) -> Blend {
        match value.trim().parse::<f64>() {
            Ok(r) if r.is_finite() && r >= 0.0 => Blend::Ratio(r),
            _ => Blend::Workload,
        }
    }

    pub fn value(self) -> String {
        match self {
            Blend::Ratio(r) => format!("{r}"),
            Blend::Workload => "workload".into(),
        }
    }

    /// Input tokens per output token for a workload with these mean lengths.
    pub fn input_per_output(self, input_len: f64, output_len: f64) -> f64 {
        match self {
            Blend::Ratio(r) => r,
            Blend::Workload if output_len > 0.0 => input_len / output_len,
            Blend::Workload => DEFAULT_INPUT_PER_OUTPUT,
        }
    }

    /// "3:1", "1:4", "5.5:1".
    pub fn label(self, input_len: f64, output_len: f64) -> String {
        let r = self.input_per_output(input_len, output_len);
        if r > 0.0 && r < 1.0 {
            format!("1:{}", trim_number(1.0 / r))
        } else {
            format!("{}:1", trim_number(r))
        }
    }
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// A number from a field: blank is `None` where blank means "not set".
fn parse_optional(text: &str) -> Result<Option<f64>, String> {
    let trimmed = text.trim().trim_start_matches('$').trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let cleaned: String = trimmed.chars().filter(|c| *c != ',' && *c != '_').collect();
    cleaned
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(Some)
        .ok_or_else(|| format!("“{trimmed}” is not a number"))
}

fn in_range(value: f64, low: f64, high: f64, what: &str) -> Result<f64, String> {
    if value >= low && value <= high {
        Ok(value)
    } else {
        Err(format!("{what} (got {value})"))
    }
}

/// An SLO field's value is checked where the CLI's is: `SloSettings::try_from`.
fn slo_field(input: SloInput) -> Result<(), String> {
    SloSettings::try_from(input)
        .map(|_| ())
        .map_err(|e| e.message)
}

/// Parse one field's text into its value, or say what is wrong with it.
pub fn parse_field(
    field: DecisionField,
    text: &str,
    load_unit: LoadUnit,
) -> Result<Option<f64>, String> {
    let value = parse_optional(text)?;
    let required = || value.ok_or_else(|| "enter a number".to_string());
    match field {
        DecisionField::SloTtftMs => slo_field(SloInput {
            ttft_ms: value,
            ..SloInput::default()
        })
        .map(|()| value),
        DecisionField::SloTpotMs => slo_field(SloInput {
            tpot_ms: value,
            ..SloInput::default()
        })
        .map(|()| value),
        DecisionField::SloPercentile => {
            let percentile = Some(required()?);
            slo_field(SloInput {
                percentile,
                ..SloInput::default()
            })
            .map(|()| percentile)
        }
        DecisionField::Traffic => value
            .map(|v| in_range(v, 0.0, 1e15, "must be zero or more"))
            .transpose(),
        DecisionField::OfferedLoad => {
            let v = required()?;
            match load_unit {
                LoadUnit::PercentOfCapacity => {
                    in_range(v, 0.1, 100.0, "must be from 0.1 to 100 % of capacity").map(Some)
                }
                LoadUnit::OutputTokS => in_range(
                    v,
                    1e-3,
                    1e12,
                    "must be a positive number of output tokens/s",
                )
                .map(Some),
            }
        }
        DecisionField::EnergyUsdPerKwh => {
            in_range(required()?, 0.0, 10.0, "must be from $0 to $10 per kWh").map(Some)
        }
        DecisionField::EnergyPue => {
            in_range(required()?, 1.0, 3.0, "must be from 1.0 to 3.0").map(Some)
        }
    }
}

/// Four significant digits, for a converted value shown in a text box: `0.1235`, `1180000000`.
pub fn sig_text(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return "0".into();
    }
    let digits = 3 - value.abs().log10().floor() as i32;
    if digits > 0 {
        let text = format!("{value:.prec$}", prec = digits.unsigned_abs() as usize);
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        let scale = 10f64.powi(-digits);
        format!("{:.0}", (value / scale).round() * scale)
    }
}
