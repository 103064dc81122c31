//! The other deployment beside the headline (issue 25 §2): "stock launch: 1,480 tok/s, −38 %, TPOT
//! 31 ms" under a tuned scenario, "tuned benchmark: …" under a stock one, so nobody reads a tuned
//! number as a day-one number. Rendered by the tools module into the explorer's empty
//! `#deployment-contrast-slot` at the top of the numbers panel (the first load does not carry
//! a second scenario's evaluation); the number comes from `decide::deployment::contrast_in`.

use crate::model::evaluate::SteadyMemo;
use crate::model::OperatingPoint;
use crate::page::state::Shared;
use crate::present::glossary;
use crate::scenario::{Scenario, ScenarioInput};
use std::cell::RefCell;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ContrastProps {
    pub scenario: Shared<Scenario>,
    pub point: Shared<OperatingPoint>,
}

/// The line: the scenario under the other profile is validated once per scenario (the
/// concurrency aside) and evaluated at each concurrency with its own memo of batch steady
/// states, so a slider move costs one memoised evaluation.
#[function_component(DeploymentContrast)]
pub fn deployment_contrast(props: &ContrastProps) -> Html {
    let key = ScenarioInput {
        concurrency: 1.0,
        ..props.scenario.input.clone()
    };
    let scenario = props.scenario.clone();
    let other = use_memo(key, move |_| {
        (
            crate::decide::deployment::other_scenario(&scenario),
            RefCell::new(SteadyMemo::default()),
        )
    });
    let point = &*props.point;
    let text = other
        .0
        .as_ref()
        .map(|scenario| match other.1.try_borrow_mut() {
            Ok(mut memo) => {
                crate::decide::deployment::contrast_in(scenario, point, &mut memo).sentence()
            }
            Err(_) => crate::decide::deployment::contrast(scenario, point).sentence(),
        });
    match text {
        Some(text) => html! {
            <p class="hint" id="deployment-contrast" data-term={glossary::DEPLOYMENT.id}>{ format!("{text}.") }</p>
        },
        None => Html::default(),
    }
}
