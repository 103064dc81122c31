//! The decision tools' own state and reducer: the texts of the decision fields (SLO targets,
//! traffic, offered load, blend ratio, electricity, the plan's GPUs; `scenario::fields`, group
//! `Decision`), the last good `DecisionInput` they describe, the plan search and the calibration
//! fit. It lives beside the page's `State` (its own reducer in the tools module), and its input
//! travels in links and exports through the page's `State::decision`.
//!
//! Like the scenario controls, every text is kept as typed; a text that does not parse or is out
//! of range sets an error on its field and the last good value stays in use, so the numbers never
//! go blank.

use crate::calibration::calibrate::Calibration;
use crate::decide::plan::{Plan, PlanInput, PlanRequest};
use crate::decide::pricing::tier_of;
use crate::page::state::Shared;
use crate::physics::economics::{Energy, PriceTier};
use crate::scenario::fields::{Field, Group, FIELDS, TRAFFIC, TRAFFIC_UNIT};
pub use crate::scenario::{Blend, DecisionInput, LoadUnit, TrafficUnit};
use crate::scenario::{Scenario, ScenarioError, ScenarioInput};
use crate::scenario::{Slo, SloInput, SloMethod, SloSettings};
use std::collections::BTreeMap;

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

/// The decision fields, in table order.
fn decision_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS
        .iter()
        .copied()
        .filter(|field| field.group == Group::Decision)
}

/// Everything the decision panels hold.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionState {
    /// The decision fields' texts as typed, by key.
    texts: BTreeMap<&'static str, String>,
    /// The last good value of every field.
    pub input: DecisionInput,
    /// Fields whose text does not parse or is out of range, with the message.
    pub errors: Vec<(&'static Field, String)>,
    /// The price tier select says "custom" even when the price equals a catalog tier.
    pub custom_price: bool,
    /// The latest message of the compare panel (a refused pin, unreadable saved pins).
    pub pins_notice: Option<String>,
    pub plan: PlanStatus,
    pub calibration_text: String,
    pub calibration: Option<Shared<CalibrationRun>>,
}

impl Default for DecisionState {
    fn default() -> DecisionState {
        DecisionState::from_input(DecisionInput::default())
    }
}

/// What a decision control can do.
#[derive(Debug, Clone, PartialEq)]
pub enum DecisionAction {
    /// A decision field's text or selection changed.
    Edit(&'static Field, String),
    /// Traffic typed in this unit.
    EditTraffic(TrafficUnit, String),
    /// Replace every input (a JSON import, Reset, a link).
    Load(Box<DecisionInput>),
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
    /// The panels showing `input`, every text its table text.
    pub fn from_input(input: DecisionInput) -> DecisionState {
        DecisionState {
            texts: decision_fields()
                .filter_map(|field| field.get_decision(&input).map(|text| (field.key, text)))
                .collect(),
            input,
            errors: Vec::new(),
            custom_price: false,
            pins_notice: None,
            plan: PlanStatus::Idle,
            calibration_text: String::new(),
            calibration: None,
        }
    }

    /// A field's text as typed.
    pub fn text(&self, field: &Field) -> &str {
        self.texts.get(field.key).map_or("", String::as_str)
    }

    /// The SLO, when at least one target is set (an unset target does not constrain). The
    /// input in use was validated (`DecisionInput::validate`), so this does not fail.
    pub fn slo(&self) -> Option<Slo> {
        SloSettings::try_from(self.input.slo_input())
            .ok()
            .and_then(|settings| settings.slo)
    }

    /// The offered load as a utilization of an operating point with this output tok/s, and
    /// whether it was capped at 100 %.
    pub fn utilization(&self, capacity_output_tok_s: f64) -> (f64, bool) {
        let load = self.input.offered_load;
        let u = match self.input.load_unit {
            LoadUnit::PercentOfCapacity => load / 100.0,
            LoadUnit::OutputTokS if capacity_output_tok_s > 0.0 => load / capacity_output_tok_s,
            LoadUnit::OutputTokS => 1.0,
        };
        (u.min(1.0), u > 1.0 + 1e-9)
    }

    /// Electricity, when switched on.
    pub fn energy(&self) -> Option<Energy> {
        energy_of(&self.input)
    }

    /// Requests/s of the traffic for a workload with these mean lengths.
    pub fn traffic_req_s(&self, input_len: f64, output_len: f64) -> Option<f64> {
        traffic_req_s(&self.input, input_len, output_len)
    }

    /// The text a traffic box shows: as typed for the unit typed last, else converted.
    pub fn traffic_text(&self, unit: TrafficUnit, input_len: f64, output_len: f64) -> String {
        if unit == self.input.traffic_unit {
            return self.text(&TRAFFIC).to_string();
        }
        self.input
            .traffic()
            .and_then(|t| t.in_unit(unit, input_len, output_len))
            .map_or_else(String::new, sig_text)
    }

    pub fn error(&self, field: &Field) -> Option<&str> {
        self.errors
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, message)| message.as_str())
    }

    /// Re-read every text on top of the last good input (units before the values they qualify,
    /// as the table orders them): a field that does not parse or is out of range keeps its last
    /// good value and gets an error.
    fn reparse(&mut self) {
        self.errors.clear();
        let mut good = self.input.clone();
        for field in decision_fields() {
            let mut candidate = good.clone();
            let text = self.texts.get(field.key).map_or("", String::as_str);
            match field.set_decision(&mut candidate, text) {
                Err(message) => self.errors.push((field, message)),
                Ok(()) => match candidate.validate() {
                    Err(ScenarioError {
                        field: named,
                        message,
                    }) if named == field.key => self.errors.push((field, message)),
                    _ => good = candidate,
                },
            }
        }
        // A unit switch can leave a value that was good in the old unit out of range in the new
        // one (50 000 tok/s read as a percentage): its error is recorded above, and the inputs in
        // use stay the last ones that were valid together.
        if good.validate().is_ok() {
            self.input = good;
        }
    }

    fn edit(&mut self, field: &'static Field, text: String) {
        if field.is_decision() {
            self.texts.insert(field.key, text);
            self.reparse();
        }
    }

    pub fn apply(&self, action: DecisionAction) -> DecisionState {
        let mut next = self.clone();
        match action {
            DecisionAction::Edit(field, text) => next.edit(field, text),
            DecisionAction::EditTraffic(unit, text) => {
                next.texts.insert(
                    TRAFFIC_UNIT.key,
                    crate::choice::Choice::id(unit).to_string(),
                );
                next.edit(&TRAFFIC, text);
            }
            DecisionAction::Load(input) => {
                let kept = DecisionState {
                    plan: next.plan.clone(),
                    calibration_text: next.calibration_text.clone(),
                    calibration: next.calibration.clone(),
                    pins_notice: next.pins_notice.clone(),
                    ..DecisionState::from_input(*input)
                };
                next = kept;
            }
            DecisionAction::SetCustomPrice(custom) => next.custom_price = custom,
            DecisionAction::PinsNotice(notice) => next.pins_notice = notice,
            DecisionAction::TogglePlanGpu { gpu, allowed, all } => {
                let mut chosen = next.input.gpus_allowed.take().unwrap_or(all);
                chosen.retain(|id| *id != gpu);
                if allowed {
                    chosen.push(gpu);
                }
                next.input.gpus_allowed = Some(chosen);
                let text = crate::scenario::fields::GPUS_ALLOWED
                    .get_decision(&next.input)
                    .unwrap_or_default();
                next.texts
                    .insert(crate::scenario::fields::GPUS_ALLOWED.key, text);
            }
            DecisionAction::PlanStarted => next.plan = PlanStatus::Running,
            DecisionAction::PlanFinished(status) => next.plan = status,
            DecisionAction::CalibrationText(text) => next.calibration_text = text,
            DecisionAction::CalibrationFinished(run) => next.calibration = Some(run),
        }
        next
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

/// The price tier a plan for `scenario` ranks by: the tier its price is (a catalog tier, or the
/// owned price), else the typical tier (a typed price, or `custom_price`: a price typed in the
/// Cost panel, is the user's own and says nothing about other GPUs).
pub fn plan_price_tier(
    scenario: &Scenario,
    decision: &DecisionInput,
    custom_price: bool,
) -> PriceTier {
    if custom_price {
        return PriceTier::Typical;
    }
    let ownership = decision.ownership();
    let owned_price = PriceTier::Owned.price_with(&scenario.gpu, ownership.as_ref());
    scenario
        .usd_per_gpu_hour
        .and_then(|price| {
            tier_of(&scenario.gpu, price).or_else(|| {
                owned_price
                    .filter(|o| (o - price).abs() < 1e-9)
                    .map(|_| PriceTier::Owned)
            })
        })
        .unwrap_or(PriceTier::Typical)
}

/// The plan the Plan panel and the client report run: `scenario`'s model and workload at
/// `traffic_tok_s` output tokens/s under the decision inputs' SLO and buyer's rules, over
/// `allowed` GPUs (empty: every catalog GPU with a price), `top` candidates. As `servecost plan`
/// does: an analytic search, then the cheapest re-searched with simulated percentiles
/// (`decide::plan`'s verification, each at the largest batch its simulated tails allow). Only
/// checking the listed candidates at their analytic batch dropped them all whenever the analytic
/// tails were optimistic at the edge (lognormal lengths), so the page said "No configuration met
/// the SLO" where the CLI listed five.
pub fn plan_request(
    scenario: &Scenario,
    decision: &DecisionInput,
    tier: PriceTier,
    traffic_tok_s: f64,
    allowed: Vec<String>,
    top: usize,
) -> Result<PlanRequest, String> {
    PlanRequest::try_from(PlanInput {
        base: scenario.input.clone(),
        // The CLI's search space: aggregated replicas and disaggregated xPyD units (`plan
        // --serving any`, its default), whatever the page's own serving is.
        serving: crate::decide::plan_disagg::ServingSearch::Any,
        traffic: Some(crate::scenario::Traffic {
            amount: traffic_tok_s,
            unit: TrafficUnit::OutputTokS,
        }),
        slo: SloInput {
            method: Some(SloMethod::Simulated),
            ..decision.slo_input()
        },
        gpus_allowed: allowed,
        price_tier: Some(tier),
        top: Some(top as f64),
        precisions_allowed: decision.precisions_allowed.clone(),
        max_utilization: Some(decision.max_utilization),
        gpus_per_node: Some(decision.gpus_per_node),
        ownership: decision.ownership(),
        energy: energy_of(decision),
    })
    .map_err(|e| format!("{}: {}", e.field, e.message))
}

/// Electricity, when the decision inputs switch it on (the panels and the client report).
pub fn energy_of(decision: &DecisionInput) -> Option<Energy> {
    crate::decide::sizing::energy_of(decision)
}

/// Requests/s of the decision inputs' traffic for a workload with these mean lengths.
pub fn traffic_req_s(decision: &DecisionInput, input_len: f64, output_len: f64) -> Option<f64> {
    decision.traffic()?.req_s(input_len, output_len)
}
