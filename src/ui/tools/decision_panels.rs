//! The decision tools below the explorer, for sales engineers and procurement: targets (SLO and
//! traffic), cost, self-host vs API, compare pinned scenarios, plan the cheapest deployment, rank
//! the hardware at a fixed interactivity (leaderboard), and calibrate to a benchmark. This only
//! lays the panels out; each panel is its own file.

use crate::page::decision_data::DecisionData;
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::state::{Action, State};
use crate::scenario::fields::Field;
use crate::scenario::ScenarioInput;
use crate::ui::tools::break_even::{break_even_panel, BreakEvenPanelProps};
use crate::ui::tools::calibrate_panel::CalibratePanel;
use crate::ui::tools::compare::ComparePanel;
use crate::ui::tools::cost::{cost_panel, CostPanelProps};
use crate::ui::tools::leaderboard::LeaderboardPanel;
use crate::ui::tools::plan_panel::PlanPanel;
use crate::ui::tools::targets::{targets_panel, TargetsPanelProps};
use crate::ui::widgets::decision_inputs::NumberField;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page state as of the latest render, compared by pointer. Panels that need not re-render
/// on every slider move (compare, plan, calibrate) take this instead of the state and read it
/// when they render (their other props say when that is) or when the user acts.
#[derive(Clone)]
pub struct LatestState(Rc<RefCell<Option<UseReducerHandle<State>>>>);

impl PartialEq for LatestState {
    fn eq(&self, other: &LatestState) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl LatestState {
    pub fn handle(&self) -> Option<UseReducerHandle<State>> {
        self.0.borrow().clone()
    }

    /// A click that loads `input` into the explorer (a plan's Apply, a leaderboard row's Load):
    /// the replica takes it as its scenario, keeping the rest of the view, and
    /// `app_hooks::use_apply` sends that to the explorer (`servecost:apply`).
    pub fn load_on_click(&self, input: ScenarioInput) -> Callback<MouseEvent> {
        let latest = self.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(state) = latest.handle() else {
                return;
            };
            crate::ui::platform::perf::mark_update_start();
            let mut view = state.view_state();
            view.scenario = input.clone();
            state.dispatch(Action::Load(Box::new(view)));
        })
    }
}

/// What typing into a decision field does: edit that field of the decision inputs.
pub fn edit_decision(
    decisions: &UseReducerHandle<DecisionState>,
    field: &'static Field,
) -> Callback<String> {
    let decisions = decisions.clone();
    Callback::from(move |text: String| decisions.dispatch(DecisionAction::Edit(field, text)))
}

/// The box of a decision field: its text and error as the decision state has them, its edits
/// into that state.
pub fn decision_field(
    decisions: &UseReducerHandle<DecisionState>,
    field: &'static Field,
) -> NumberField<'static> {
    NumberField::of(
        field,
        decisions.text(field).to_string(),
        decisions.error(field).map(str::to_string),
        edit_decision(decisions, field),
    )
}

#[derive(Properties, PartialEq)]
pub struct DecisionPanelsProps {
    pub state: UseReducerHandle<State>,
    pub decisions: UseReducerHandle<DecisionState>,
    pub data: DecisionData,
    /// Edits a scenario control (the price tier writes the $/GPU-hour field).
    pub on_edit: Callback<(&'static Field, String)>,
}

#[function_component(DecisionPanels)]
pub fn decision_panels(props: &DecisionPanelsProps) -> Html {
    let latest = use_mut_ref(|| None);
    *latest.borrow_mut() = Some(props.state.clone());
    let latest = LatestState(latest);
    let Some(view) = props.state.view.clone() else {
        return Html::default();
    };
    let key = props.data.current.clone();
    html! {
        <section class="decisions" aria-labelledby="decisions-title">
            <h2 id="decisions-title" class="section-title">{ "Decisions: cost, compare, plan" }</h2>
            <div class="decision-grid">
                { targets_panel(&TargetsPanelProps { view: view.clone(), decisions: props.decisions.clone(), data: props.data.clone() }) }
                { cost_panel(&CostPanelProps { view: view.clone(), decisions: props.decisions.clone(), data: props.data.clone(), on_edit: props.on_edit.clone() }) }
                { break_even_panel(&BreakEvenPanelProps { view, decisions: props.decisions.clone(), data: props.data.clone() }) }
                <ComparePanel latest={latest.clone()} decisions={props.decisions.clone()} data={props.data.clone()} pins={props.state.pins.clone()} />
                <PlanPanel latest={latest.clone()} decisions={props.decisions.clone()} key_scenario={key.clone()} />
                <LeaderboardPanel latest={latest.clone()} decisions={props.decisions.clone()} key_scenario={key.clone()} />
                <CalibratePanel {latest} decisions={props.decisions.clone()} key_scenario={key} />
            </div>
        </section>
    }
}
