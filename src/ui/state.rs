//! The page's state and its reducer: what the user typed, the last good view, and the current
//! error. Every control funnels through `Action`; nothing else changes the state.
//!
//! The texts of the controls (`fields.rs`) are the source of truth for the scenario's page
//! fields: every edit re-parses all of them into a `ScenarioInput` (so a bad field stays an error
//! until fixed, even while another field changes), then `Scenario::try_from` validates it once.
//! A bad value leaves the last good `View` (numbers and chart) on screen and sets `error`.
//!
//! Speed: a slider move evaluates one operating point and keeps the swept `Curve` (same `Rc`);
//! only a change of the scenario itself re-sweeps.

use super::fields::{input_from_texts, number_text, Field, FieldTexts, InputError};
use crate::catalog::catalog;
use crate::model::pareto::{concurrency_to_slider, slider_to_concurrency, SLIDER_STEPS};
use crate::model::{evaluate, sweep, Curve, OperatingPoint};
use crate::scenario::{Scenario, ScenarioInput};
use std::ops::Deref;
use std::rc::Rc;
use yew::Reducible;

/// An `Rc` compared by pointer: cheap equality for props and effect dependencies, and "same
/// value" means "same computation", which is what a redraw needs to know.
#[derive(Debug)]
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared(Rc::clone(&self.0))
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The last good computation: what the numbers and the chart show.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// The validated scenario at the current concurrency.
    pub scenario: Shared<Scenario>,
    /// The swept curve; the same `Rc` for as long as the scenario (concurrency aside) is unchanged.
    pub curve: Shared<Curve>,
    pub point: Shared<OperatingPoint>,
}

impl View {
    /// Evaluate `scenario` (concurrency clamped to the engine limit), re-using `previous`'s curve
    /// when only the concurrency differs.
    pub fn compute(scenario: Scenario, previous: Option<&View>) -> View {
        let limit = scenario.engine_limit().max(1);
        let scenario = if scenario.concurrency > limit {
            scenario.with_concurrency(limit)
        } else {
            scenario
        };
        let curve = match previous {
            Some(view) if same_curve(&view.scenario, &scenario) => view.curve.clone(),
            _ => Shared::new(sweep(&scenario)),
        };
        let point = Shared::new(evaluate(&scenario));
        View {
            scenario: Shared::new(scenario),
            curve,
            point,
        }
    }

    pub fn concurrency(&self) -> u32 {
        self.scenario.concurrency
    }

    pub fn engine_limit(&self) -> u32 {
        self.scenario.engine_limit().max(1)
    }
}

/// Two scenarios give the same curve when their inputs differ at most in concurrency.
fn same_curve(a: &Scenario, b: &Scenario) -> bool {
    let mut a_input = a.input.clone();
    a_input.concurrency = b.input.concurrency;
    a_input == b.input
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The scenario as last parsed (may fail validation; then `error` says why).
    pub input: ScenarioInput,
    /// The controls' texts as typed.
    pub texts: FieldTexts,
    /// The slider's position in `0..=SLIDER_STEPS`; kept as moved, because several positions
    /// map to one concurrency at the low end and snapping back would trap the keyboard there.
    pub slider_position: u32,
    /// The last good view; `None` only when even the default scenario failed (a broken build).
    pub view: Option<View>,
    pub error: Option<InputError>,
}

/// What a control can do to the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The batch-size slider moved to this position.
    MoveSlider(u32),
    /// A control's text or selection changed.
    Edit(Field, String),
}

impl State {
    /// The glossary scenario, or a state that says why it could not be built.
    pub fn initial() -> State {
        State::from_input(ScenarioInput::default())
    }

    pub fn from_input(input: ScenarioInput) -> State {
        let texts = FieldTexts::from_input(&input);
        match Scenario::try_from(input.clone()) {
            Ok(scenario) => {
                let view = View::compute(scenario, None);
                State {
                    input,
                    texts,
                    slider_position: concurrency_to_slider(view.concurrency(), view.engine_limit()),
                    view: Some(view),
                    error: None,
                }
            }
            Err(error) => State {
                input,
                texts,
                slider_position: 0,
                view: None,
                error: Some(error.into()),
            },
        }
    }

    /// The concurrency the slider stands for.
    pub fn concurrency(&self) -> Option<u32> {
        self.view.as_ref().map(View::concurrency)
    }

    /// Apply one action; `None` when nothing changed (so nothing re-renders).
    pub fn apply(&self, action: Action) -> Option<State> {
        match action {
            Action::MoveSlider(position) => self.move_slider(position),
            Action::Edit(field, text) => Some(self.edit(field, text)),
        }
    }

    fn move_slider(&self, position: u32) -> Option<State> {
        let view = self.view.as_ref()?;
        let position = position.min(SLIDER_STEPS);
        let concurrency = slider_to_concurrency(position, view.engine_limit());
        if position == self.slider_position && concurrency == view.concurrency() {
            return None;
        }
        let mut next = self.clone();
        next.slider_position = position;
        next.input.concurrency = f64::from(concurrency);
        if concurrency != view.concurrency() {
            let scenario = view.scenario.with_concurrency(concurrency);
            next.view = Some(View {
                point: Shared::new(evaluate(&scenario)),
                scenario: Shared::new(scenario),
                curve: view.curve.clone(),
            });
        }
        Some(next)
    }

    fn edit(&self, field: Field, text: String) -> State {
        let mut next = self.clone();
        if field == Field::Gpu && text != self.texts.gpu {
            // A new GPU brings its catalog price; a GPU without one keeps the price typed so far.
            let typical = catalog()
                .ok()
                .and_then(|c| c.gpu(text.trim()))
                .and_then(|gpu| gpu.usd_per_gpu_hour_typical);
            if let Some(price) = typical {
                next.texts.usd_per_gpu_hour = number_text(price);
            }
        }
        next.texts.set(field, text);
        let mut input = match input_from_texts(&self.input, &next.texts, Some(field)) {
            Ok(input) => input,
            Err(error) => {
                next.error = Some(error);
                return next;
            }
        };
        if let Some(concurrency) = self.concurrency() {
            input.concurrency = f64::from(concurrency);
        }
        next.input = input.clone();
        match Scenario::try_from(input) {
            Ok(scenario) => {
                let view = View::compute(scenario, self.view.as_ref());
                let limit = view.engine_limit();
                let keeps_position = self
                    .view
                    .as_ref()
                    .is_some_and(|old| old.engine_limit() == limit)
                    && slider_to_concurrency(self.slider_position, limit) == view.concurrency();
                if !keeps_position {
                    next.slider_position = concurrency_to_slider(view.concurrency(), limit);
                }
                next.input.concurrency = f64::from(view.concurrency());
                next.view = Some(view);
                next.error = None;
            }
            Err(error) => next.error = Some(error.into()),
        }
        next
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match self.apply(action) {
            Some(next) => Rc::new(next),
            None => self,
        }
    }
}
