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

use crate::model::evaluate::{evaluate, evaluate_in, SteadyMemo};
use crate::model::pareto::sweep_in;
use crate::model::pareto::{concurrency_to_slider, slider_to_concurrency, SLIDER_STEPS};
use crate::model::techniques::TechniqueStudy;
use crate::model::{Curve, OperatingPoint};
use crate::page::fields::{InputError, Texts};
use crate::page::knobs::{KnobAction, Knobs};
use crate::present::chart::Projection;
use crate::scenario::fields::{Field, CONCURRENCY, GPU, USD_PER_GPU_HOUR};
use crate::scenario::{DecisionInput, Scenario, ScenarioError, ScenarioInput};
use crate::share::ViewState;
use std::cell::RefCell;
use std::ops::Deref;
use std::rc::Rc;

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
    /// The technique ladder's other curves (`model::techniques`); like the curve,
    /// recomputed only when the scenario changes.
    pub techniques: Shared<TechniqueStudy>,
    /// The batch steady states the sweep computed, kept for the slider's evaluations of the
    /// same scenario (`model::evaluate::SteadyMemo`); shared and replaced with the curve.
    pub steady: Shared<RefCell<SteadyMemo>>,
}

/// Evaluate `scenario` with the view's memo (a fresh evaluation if the memo is in use).
fn evaluate_with(steady: &RefCell<SteadyMemo>, scenario: &Scenario) -> OperatingPoint {
    match steady.try_borrow_mut() {
        Ok(mut memo) => evaluate_in(scenario, &mut memo),
        Err(_) => evaluate(scenario),
    }
}

impl View {
    /// Evaluate `scenario` (concurrency clamped to the engine limit), re-using `previous`'s curve
    /// when only the concurrency differs.
    pub fn compute(scenario: Scenario, previous: Option<&View>) -> View {
        let input = scenario.input.clone();
        View::compute_shown(scenario, input, previous)
    }

    /// The same for a scenario validated from page flags applied to `shown_input` (the ideal
    /// roofline, `knobs.rs`): the view's `scenario.input` is `shown_input`, which is what links,
    /// exports and pins carry; the numbers are the evaluated scenario's.
    pub fn compute_shown(
        scenario: Scenario,
        shown_input: ScenarioInput,
        previous: Option<&View>,
    ) -> View {
        View::compute_with(scenario, shown_input, previous, Ladder::Now)
    }

    fn compute_with(
        scenario: Scenario,
        shown_input: ScenarioInput,
        previous: Option<&View>,
        ladder: Ladder,
    ) -> View {
        let limit = scenario.engine_limit().max(1);
        let scenario = if scenario.concurrency > limit {
            scenario.with_concurrency(limit)
        } else {
            scenario
        };
        let mut shown = scenario.clone();
        shown.input = ScenarioInput {
            concurrency: scenario.input.concurrency,
            ..shown_input
        };
        let (curve, techniques, steady) = match previous {
            Some(view) if same_curve(&view.scenario, &shown) => (
                view.curve.clone(),
                view.techniques.clone(),
                view.steady.clone(),
            ),
            _ => {
                let mut memo = SteadyMemo::default();
                let curve = sweep_in(&scenario, &mut memo);
                (
                    Shared::new(curve),
                    Shared::new(match ladder {
                        Ladder::Now => TechniqueStudy::new(&scenario),
                        Ladder::Later => TechniqueStudy::first_screen(&scenario),
                    }),
                    Shared::new(RefCell::new(memo)),
                )
            }
        };
        let point = Shared::new(evaluate_with(&steady, &shown));
        View {
            scenario: Shared::new(shown),
            curve,
            point,
            techniques,
            steady,
        }
    }

    /// The same view at another concurrency: the curve, ladder and memo kept, the point
    /// evaluated with the view's memo (what the slider, a typed batch size and a sync do).
    pub fn at(&self, concurrency: u32) -> View {
        let scenario = self.scenario.with_concurrency(concurrency);
        View {
            point: Shared::new(evaluate_with(&self.steady, &scenario)),
            scenario: Shared::new(scenario),
            ..self.clone()
        }
    }

    pub fn concurrency(&self) -> u32 {
        self.scenario.concurrency
    }

    pub fn engine_limit(&self) -> u32 {
        self.scenario.engine_limit().max(1)
    }
}

/// Two scenarios give the same curve when their inputs differ at most in concurrency (and
/// their efficiencies agree: the ideal-roofline flag changes them without changing the input).
fn same_curve(a: &Scenario, b: &Scenario) -> bool {
    let mut a_input = a.input.clone();
    a_input.concurrency = b.input.concurrency;
    a_input == b.input && a.efficiency == b.efficiency
}

/// Validate `input` with the page's flags and compute its view.
fn view_of(
    knobs: &Knobs,
    input: &ScenarioInput,
    previous: Option<&View>,
) -> Result<View, ScenarioError> {
    view_with(knobs, input, previous, Ladder::Now)
}

fn view_with(
    knobs: &Knobs,
    input: &ScenarioInput,
    previous: Option<&View>,
    ladder: Ladder,
) -> Result<View, ScenarioError> {
    let scenario = Scenario::try_from(knobs.effective(input))?;
    Ok(View::compute_with(
        scenario,
        input.clone(),
        previous,
        ladder,
    ))
}

/// When a new view sweeps the technique ladder's other curves: with the view, or (the page's
/// first screen, `State::first_screen`) later, on `Action::CompleteLadder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ladder {
    Now,
    Later,
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The scenario as last parsed (may fail validation; then `error` says why).
    pub input: ScenarioInput,
    /// The controls' texts as typed (`fields.rs`).
    pub texts: Texts,
    /// The decision inputs (SLO, traffic, cost): the tools module's panels edit them; they
    /// travel in links and exports with the scenario.
    pub decision: DecisionInput,
    /// The slider's position in `0..=SLIDER_STEPS`; kept as moved, because several positions
    /// map to one concurrency at the low end and snapping back would trap the keyboard there.
    pub slider_position: u32,
    /// The last good view; `None` only when even the default scenario failed (a broken build).
    pub view: Option<View>,
    pub error: Option<InputError>,
    /// Pinned scenarios to compare against (they travel in links and JSON exports).
    pub pins: Vec<ScenarioInput>,
    /// The chart's axis choices (they travel in links and JSON exports).
    pub chart: Projection,
    /// Technique, workload-shape and advanced controls, the ideal-roofline switch and the
    /// pasted custom model (`knobs.rs`).
    pub knobs: Knobs,
}

/// What a control can do to the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The batch-size slider moved to this position.
    MoveSlider(u32),
    /// A control's text or selection changed (any field of `scenario::fields`).
    Edit(&'static Field, String),
    /// The decision panels' inputs changed (the tools module's, already parsed).
    Decision(Box<DecisionInput>),
    /// Replace scenario, pins and chart options at once (a JSON import). If the scenario does
    /// not validate, the last good view stays and the error names the field.
    Load(Box<ViewState>),
    /// Pin, unpin or restore pinned scenarios (`pins.rs`).
    Pins(crate::page::pins::PinAction),
    /// A page flag or the pasted model changed (`knobs.rs`).
    Knob(KnobAction),
    /// The chart's axis choices changed (`#chart-x`, `#chart-y`).
    Chart(Projection),
    /// Follow the explorer's state (the deferred module's copy, `tools.rs`): a change of
    /// concurrency alone only re-evaluates the point, anything else loads the view.
    Sync(Box<ViewState>),
    /// Sweep the technique ladder's other curves if the view still waits for them
    /// (`State::first_screen`); nothing else changes.
    CompleteLadder,
}

impl State {
    /// The glossary scenario, or a state that says why it could not be built.
    pub fn initial() -> State {
        State::from_input(ScenarioInput::default())
    }

    pub fn from_input(input: ScenarioInput) -> State {
        State::from_input_with(input, Ladder::Now)
    }

    fn from_input_with(input: ScenarioInput, ladder: Ladder) -> State {
        let texts = Texts::from_input(&input);
        let knobs = Knobs::from_input(&input);
        match view_with(&knobs, &input, None, ladder) {
            Ok(view) => State {
                input,
                texts,
                slider_position: concurrency_to_slider(view.concurrency(), view.engine_limit()),
                view: Some(view),
                error: None,
                decision: DecisionInput::default(),
                pins: Vec::new(),
                chart: Projection::default(),
                knobs,
            },
            Err(error) => State {
                input,
                texts,
                slider_position: 0,
                view: None,
                error: Some(error.into()),
                decision: DecisionInput::default(),
                pins: Vec::new(),
                chart: Projection::default(),
                knobs,
            },
        }
    }

    /// The state a link or an import describes (the embed options are the page's business).
    pub fn from_view(view: ViewState) -> State {
        State::from_view_with(view, Ladder::Now)
    }

    /// `from_view` for the page's first screen: the technique ladder's other curves (three
    /// sweeps of the first chart's cold code) wait for `Action::CompleteLadder`, which the page
    /// dispatches a browser task after its first chart (ARCHITECTURE.md "The first chart waits
    /// for little").
    pub fn first_screen(view: ViewState) -> State {
        State::from_view_with(view, Ladder::Later)
    }

    fn from_view_with(view: ViewState, ladder: Ladder) -> State {
        let mut state = State::from_input_with(view.scenario, ladder);
        state.decision = view.decision;
        state.pins = view.pins;
        state.chart = view.chart;
        state
    }

    /// What a link or an export of this state holds: the last good scenario at the current
    /// concurrency (or the typed one if nothing was ever valid), pins and chart options.
    pub fn view_state(&self) -> ViewState {
        ViewState {
            scenario: self
                .view
                .as_ref()
                .map_or_else(|| self.input.clone(), |view| view.scenario.input.clone()),
            decision: self.decision.clone(),
            pins: self.pins.clone(),
            chart: self.chart,
            embed: Default::default(),
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
            Action::Edit(field, text) if *field == CONCURRENCY => self.type_concurrency(&text),
            Action::Edit(field, text) => {
                let unchanged =
                    crate::page::fields::has_text(field) && self.texts.get(field) == text;
                (!unchanged).then(|| self.edit(field, text))
            }
            Action::Decision(decision) => (*decision != self.decision).then(|| State {
                decision: *decision,
                ..self.clone()
            }),
            Action::Load(view) => Some(self.load(*view)),
            Action::Pins(action) => self.apply_pins(action),
            Action::Knob(action) => self.knob(action),
            Action::Chart(chart) => (chart != self.chart).then(|| State {
                chart,
                ..self.clone()
            }),
            Action::Sync(view) => self.sync(*view),
            Action::CompleteLadder => self.complete_ladder(),
        }
    }

    /// The view with the ladder's other curves swept, if it waits for them. They are swept for
    /// the scenario the view evaluates (the page flags applied, as `view_of` does).
    fn complete_ladder(&self) -> Option<State> {
        let view = self.view.as_ref()?;
        if !view.techniques.background_pending {
            return None;
        }
        let scenario = Scenario::try_from(self.knobs.effective(&view.scenario.input)).ok()?;
        let techniques = (*view.techniques).clone().with_background(&scenario);
        Some(State {
            view: Some(View {
                techniques: Shared::new(techniques),
                ..view.clone()
            }),
            ..self.clone()
        })
    }

    /// Follow the explorer. The decision inputs are the tools' own after they mounted (only they
    /// edit them; the explorer echoes them back), so a sync keeps this state's.
    fn sync(&self, mut target: ViewState) -> Option<State> {
        target.decision = self.decision.clone();
        if target == self.view_state() {
            return None;
        }
        if let Some(view) = &self.view {
            let mut same = target.scenario.clone();
            same.concurrency = view.scenario.input.concurrency;
            if same == view.scenario.input && target.pins == self.pins && target.chart == self.chart
            {
                let limit = view.engine_limit();
                // Saturating float-to-int cast: a hostile value clamps instead of wrapping.
                let concurrency = (target.scenario.concurrency.round() as u32).clamp(1, limit);
                let mut next = self.clone();
                next.input.concurrency = f64::from(concurrency);
                next.slider_position = concurrency_to_slider(concurrency, limit);
                next.view = Some(view.at(concurrency));
                return Some(next);
            }
        }
        Some(self.load(target))
    }

    fn load(&self, view: ViewState) -> State {
        // Only the decision inputs changed (the tools' panels): nothing to re-evaluate.
        let current = self.view_state();
        let same_but_decision = ViewState {
            decision: current.decision.clone(),
            ..view.clone()
        } == current;
        if same_but_decision {
            return State {
                decision: view.decision,
                ..self.clone()
            };
        }
        let loaded = State::from_view(view);
        // The ideal-roofline switch is a page flag, not part of what is loaded: it stays as set.
        let loaded = match self.knobs.ideal_roofline {
            true => loaded
                .knob(KnobAction::IdealRoofline(true))
                .unwrap_or(loaded),
            false => loaded,
        };
        // So does auto's layout choice, for the scenario it was made for.
        let loaded = match &self.knobs.auto_layout {
            Some(choice) if choice.applies(&loaded.input) => loaded
                .knob(KnobAction::AutoLayout(Some(choice.clone())))
                .unwrap_or(loaded),
            _ => loaded,
        };
        if loaded.view.is_some() {
            return loaded;
        }
        State {
            view: self.view.clone(),
            slider_position: self.slider_position,
            ..loaded
        }
    }

    /// A typed batch size (the number box beside the slider, an embed's `concurrency` control):
    /// the slider and the point move there; a value that is not a whole number from 1 to the
    /// engine limit is the concurrency's error, and the last good view stays.
    fn type_concurrency(&self, text: &str) -> Option<State> {
        let view = self.view.as_ref()?;
        let limit = view.engine_limit();
        let mut typed = self.input.clone();
        let concurrency = CONCURRENCY
            .set_scenario(&mut typed, text)
            .and_then(|()| {
                CONCURRENCY
                    .whole(typed.concurrency)
                    .map_err(|error| error.message)
            })
            .and_then(|concurrency| match concurrency <= limit {
                true => Ok(concurrency),
                false => Err(format!(
                    "{concurrency} is more than this scenario's engine limit of {limit} requests in flight ({} sequences per replica × {} replicas)",
                    view.scenario.max_num_seqs, view.scenario.replicas
                )),
            });
        let concurrency = match concurrency {
            Ok(concurrency) => concurrency,
            Err(message) => {
                return Some(State {
                    error: Some(InputError::new(&CONCURRENCY, message)),
                    ..self.clone()
                })
            }
        };
        let error_was_ours = self
            .error
            .as_ref()
            .is_some_and(|e| e.field == CONCURRENCY.key);
        if concurrency == view.concurrency() && !error_was_ours {
            return None;
        }
        let mut next = self
            .move_slider(concurrency_to_slider(concurrency, limit))
            .unwrap_or_else(|| self.clone());
        if next.concurrency() != Some(concurrency) {
            // The track's nearest position can be one off at large batch sizes: the typed value
            // is the point, the thumb is as near as the track allows.
            next.input.concurrency = f64::from(concurrency);
            next.view = Some(view.at(concurrency));
        }
        if error_was_ours {
            next.error = None;
        }
        Some(next)
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
            next.view = Some(view.at(concurrency));
        }
        Some(next)
    }

    fn edit(&self, field: &'static Field, text: String) -> State {
        let mut next = self.clone();
        if field.is_decision() {
            let mut decision = self.decision.clone();
            let parsed = field
                .set_decision(&mut decision, &text)
                .map_err(|message| InputError::new(field, message))
                .and_then(|()| decision.validate().map_err(InputError::from));
            match parsed {
                Ok(()) => {
                    next.decision = decision;
                    if next.error.as_ref().is_some_and(|e| e.field == field.key) {
                        next.error = None;
                    }
                }
                Err(error) => next.error = Some(error),
            }
            return next;
        }
        if field.derived {
            // A workload preset rewrites the lengths and spreads it stands for.
            let mut input = self.input.clone();
            if let Err(message) = field.set_scenario(&mut input, &text) {
                next.error = Some(InputError::new(field, message));
                return next;
            }
            for changed in crate::scenario::fields::FIELDS {
                let value = changed.get_scenario(&input);
                if value != changed.get_scenario(&self.input) {
                    if let Some(value) = value {
                        next.texts.set(changed, value);
                    }
                }
            }
            let parsed = next
                .texts
                .parse(&self.input, None)
                .and_then(|input| next.knobs.apply(input));
            return self.revalidate(next, parsed);
        }
        if *field == GPU && text != self.texts.get(&GPU) {
            // A new GPU brings its catalog price, by the rule links read (`price_when_unstated`);
            // a GPU without one empties the price box (its costs show "—" and ask for a price)
            // rather than keep another GPU's price.
            let typical = crate::decide::pricing::price_when_unstated(&text);
            next.texts.set(
                &USD_PER_GPU_HOUR,
                typical.map_or_else(String::new, crate::page::fields::number_text),
            );
        }
        next.texts.set(field, text);
        let parsed = next
            .texts
            .parse(&self.input, Some(field))
            .and_then(|input| next.knobs.apply(input));
        self.revalidate(next, parsed)
    }

    /// A page flag or the pasted model changed: re-parse every text and validate, as `edit` does.
    fn knob(&self, action: KnobAction) -> Option<State> {
        let mut next = self.clone();
        if !next.knobs.update(action) {
            return None;
        }
        let parsed = next
            .texts
            .parse(&self.input, None)
            .and_then(|input| next.knobs.apply(input));
        Some(self.revalidate(next, parsed))
    }

    /// Validate a freshly parsed input: a new view and slider position when it is good, else the
    /// error with the last good view kept.
    fn revalidate(&self, mut next: State, parsed: Result<ScenarioInput, InputError>) -> State {
        let mut input = match parsed {
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
        match view_of(&next.knobs, &input, self.view.as_ref()) {
            Ok(view) => {
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
