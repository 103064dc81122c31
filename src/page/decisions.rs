//! The decision tools' own state and reducer: SLO targets, traffic, offered load, blend ratio,
//! energy, the plan search and the calibration fit. It lives beside the page's `State` (its own
//! `use_reducer` in `App`), so loading a scenario from a link or a file keeps the user's targets.
//!
//! Like the scenario controls, every text is kept as typed; a text that does not parse sets an
//! error on its field and the last good value stays in use, so the numbers never go blank.

use crate::calibration::calibrate::Calibration;
use crate::decide::plan::Plan;
use crate::decide::pricing::DEFAULT_INPUT_PER_OUTPUT;
use crate::decide::sizing::{req_s_from_tokens_per_day, tokens_per_day_from_req_s};
use crate::model::economics::Energy;
use crate::model::slo::{Slo, SloInput, SloSettings};
pub use crate::page::decision_fields::{
    parse_field, sig_text, Blend, DecisionField, LoadUnit, TrafficUnit,
};
use crate::page::state::Shared;
use crate::scenario::ScenarioInput;

/// The texts of the number fields, as typed.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionTexts {
    pub slo_ttft_ms: String,
    pub slo_tpot_ms: String,
    pub slo_percentile: String,
    pub traffic: String,
    pub offered_load: String,
    pub energy_usd_per_kwh: String,
    pub energy_pue: String,
}

/// The last good value of every field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecisionValues {
    pub slo_ttft_ms: Option<f64>,
    pub slo_tpot_ms: Option<f64>,
    pub slo_percentile: f64,
    /// In `traffic_unit`; `None` when no traffic is given.
    pub traffic: Option<f64>,
    pub offered_load: f64,
    pub energy_usd_per_kwh: f64,
    pub energy_pue: f64,
}

/// The plan search: not run, running, or its result with what it was run for.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanStatus {
    Idle,
    Running,
    Done {
        result: Shared<Result<Plan, String>>,
        /// Model, workload and engine settings the plan searched with (for "Apply").
        base: Shared<ScenarioInput>,
        /// "for 2,110 output tok/s at P90 TTFT ≤ 2000 ms, TPOT ≤ 50 ms".
        target: String,
    },
}

/// A fit of the pasted measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationRun {
    pub result: Result<Calibration, String>,
    /// What the fit was measured against ("1 replica of 2 × H100 SXM").
    pub against: String,
}

/// Everything the decision panels hold.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionState {
    pub texts: DecisionTexts,
    pub values: DecisionValues,
    /// Fields whose text does not parse, with the message.
    pub errors: Vec<(DecisionField, String)>,
    pub traffic_unit: TrafficUnit,
    pub load_unit: LoadUnit,
    pub blend: Blend,
    pub energy_on: bool,
    /// The price tier select says "custom" even when the price equals a catalog tier.
    pub custom_price: bool,
    /// The latest message of the compare panel (a refused pin, unreadable saved pins).
    pub pins_notice: Option<String>,
    /// GPUs the plan may use; `None` = every catalog GPU with a price and a complete spec.
    pub plan_gpus: Option<Vec<String>>,
    pub plan: PlanStatus,
    pub calibration_text: String,
    pub calibration: Option<Shared<CalibrationRun>>,
}

impl Default for DecisionState {
    fn default() -> DecisionState {
        DecisionState {
            texts: DecisionTexts {
                slo_ttft_ms: String::new(),
                slo_tpot_ms: String::new(),
                slo_percentile: "90".into(),
                traffic: "10".into(),
                offered_load: "50".into(),
                energy_usd_per_kwh: "0.10".into(),
                energy_pue: "1.3".into(),
            },
            values: DecisionValues {
                slo_ttft_ms: None,
                slo_tpot_ms: None,
                slo_percentile: 90.0,
                traffic: Some(10.0),
                offered_load: 50.0,
                energy_usd_per_kwh: 0.10,
                energy_pue: 1.3,
            },
            errors: Vec::new(),
            traffic_unit: TrafficUnit::RequestsPerS,
            load_unit: LoadUnit::PercentOfCapacity,
            blend: Blend::Ratio(DEFAULT_INPUT_PER_OUTPUT),
            energy_on: false,
            custom_price: false,
            pins_notice: None,
            plan_gpus: None,
            plan: PlanStatus::Idle,
            calibration_text: String::new(),
            calibration: None,
        }
    }
}

/// What a decision control can do.
#[derive(Debug, Clone, PartialEq)]
pub enum DecisionAction {
    Edit(DecisionField, String),
    /// Traffic typed in this unit.
    EditTraffic(TrafficUnit, String),
    SetLoadUnit(LoadUnit),
    SetBlend(Blend),
    SetEnergy(bool),
    SetCustomPrice(bool),
    PinsNotice(Option<String>),
    /// Allow or forbid a GPU in the plan; `all` is the full default list the checkbox belongs to.
    TogglePlanGpu {
        gpu: String,
        allowed: bool,
        all: Vec<String>,
    },
    PlanStarted,
    PlanFinished(PlanStatus),
    CalibrationText(String),
    CalibrationFinished(Shared<CalibrationRun>),
}

impl DecisionState {
    /// The SLO, when at least one target is set (an unset target does not constrain). The
    /// values were checked field by field when typed, so this does not fail.
    pub fn slo(&self) -> Option<Slo> {
        let v = &self.values;
        SloSettings::try_from(SloInput {
            ttft_ms: v.slo_ttft_ms,
            tpot_ms: v.slo_tpot_ms,
            percentile: Some(v.slo_percentile),
            method: None,
        })
        .ok()
        .and_then(|settings| settings.slo)
    }

    /// The offered load as a utilization of an operating point with this output tok/s, and
    /// whether it was capped at 100 %.
    pub fn utilization(&self, capacity_output_tok_s: f64) -> (f64, bool) {
        let load = self.values.offered_load;
        let u = match self.load_unit {
            LoadUnit::PercentOfCapacity => load / 100.0,
            LoadUnit::OutputTokS if capacity_output_tok_s > 0.0 => load / capacity_output_tok_s,
            LoadUnit::OutputTokS => 1.0,
        };
        (u.min(1.0), u > 1.0 + 1e-9)
    }

    /// Electricity, when switched on.
    pub fn energy(&self) -> Option<Energy> {
        self.energy_on.then_some(Energy {
            usd_per_kwh: self.values.energy_usd_per_kwh,
            pue: self.values.energy_pue,
        })
    }

    /// Requests/s of the traffic for a workload with these mean lengths.
    pub fn traffic_req_s(&self, input_len: f64, output_len: f64) -> Option<f64> {
        let traffic = self.values.traffic?;
        match self.traffic_unit {
            TrafficUnit::RequestsPerS => Some(traffic),
            TrafficUnit::TokensPerDay => req_s_from_tokens_per_day(traffic, input_len, output_len),
        }
    }

    /// The text a traffic box shows: as typed for the unit typed last, else converted.
    pub fn traffic_text(&self, unit: TrafficUnit, input_len: f64, output_len: f64) -> String {
        if unit == self.traffic_unit {
            return self.texts.traffic.clone();
        }
        let Some(req_s) = self.traffic_req_s(input_len, output_len) else {
            return String::new();
        };
        match unit {
            TrafficUnit::RequestsPerS => sig_text(req_s),
            TrafficUnit::TokensPerDay => {
                sig_text(tokens_per_day_from_req_s(req_s, input_len, output_len))
            }
        }
    }

    pub fn error(&self, field: DecisionField) -> Option<&str> {
        self.errors
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, message)| message.as_str())
    }

    fn text_mut(&mut self, field: DecisionField) -> &mut String {
        let t = &mut self.texts;
        match field {
            DecisionField::SloTtftMs => &mut t.slo_ttft_ms,
            DecisionField::SloTpotMs => &mut t.slo_tpot_ms,
            DecisionField::SloPercentile => &mut t.slo_percentile,
            DecisionField::Traffic => &mut t.traffic,
            DecisionField::OfferedLoad => &mut t.offered_load,
            DecisionField::EnergyUsdPerKwh => &mut t.energy_usd_per_kwh,
            DecisionField::EnergyPue => &mut t.energy_pue,
        }
    }

    fn store(&mut self, field: DecisionField, value: Option<f64>) {
        let v = &mut self.values;
        match field {
            DecisionField::SloTtftMs => v.slo_ttft_ms = value,
            DecisionField::SloTpotMs => v.slo_tpot_ms = value,
            DecisionField::SloPercentile => v.slo_percentile = value.unwrap_or(v.slo_percentile),
            DecisionField::Traffic => v.traffic = value,
            DecisionField::OfferedLoad => v.offered_load = value.unwrap_or(v.offered_load),
            DecisionField::EnergyUsdPerKwh => {
                v.energy_usd_per_kwh = value.unwrap_or(v.energy_usd_per_kwh)
            }
            DecisionField::EnergyPue => v.energy_pue = value.unwrap_or(v.energy_pue),
        }
    }

    fn edit(&mut self, field: DecisionField, text: String) {
        self.errors.retain(|(f, _)| *f != field);
        match parse_field(field, &text, self.load_unit) {
            Ok(value) => self.store(field, value),
            Err(message) => self.errors.push((field, message)),
        }
        *self.text_mut(field) = text;
    }

    pub fn apply(&self, action: DecisionAction) -> DecisionState {
        let mut next = self.clone();
        match action {
            DecisionAction::Edit(field, text) => next.edit(field, text),
            DecisionAction::EditTraffic(unit, text) => {
                next.traffic_unit = unit;
                next.edit(DecisionField::Traffic, text);
            }
            DecisionAction::SetLoadUnit(unit) => {
                next.load_unit = unit;
                let text = next.texts.offered_load.clone();
                next.edit(DecisionField::OfferedLoad, text);
            }
            DecisionAction::SetBlend(blend) => next.blend = blend,
            DecisionAction::SetEnergy(on) => next.energy_on = on,
            DecisionAction::SetCustomPrice(custom) => next.custom_price = custom,
            DecisionAction::PinsNotice(notice) => next.pins_notice = notice,
            DecisionAction::TogglePlanGpu { gpu, allowed, all } => {
                let mut chosen = next.plan_gpus.take().unwrap_or(all);
                chosen.retain(|id| *id != gpu);
                if allowed {
                    chosen.push(gpu);
                }
                next.plan_gpus = Some(chosen);
            }
            DecisionAction::PlanStarted => next.plan = PlanStatus::Running,
            DecisionAction::PlanFinished(status) => next.plan = status,
            DecisionAction::CalibrationText(text) => next.calibration_text = text,
            DecisionAction::CalibrationFinished(run) => next.calibration = Some(run),
        }
        next
    }
}
