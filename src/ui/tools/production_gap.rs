//! The production-gap waterfall (issue 15 §4), rendered by the tools module into the explorer's
//! `#production-gap-slot` through a portal (as `measured_panel` renders into `#measured-slot`):
//! from a synthetic uniform benchmark in a saturated closed loop to production-like traffic,
//! one table row per step in `#production-gap` carrying `data-factor` (length spread, Poisson or
//! bursty arrivals, P99 SLO headroom, prefix-cache hits, average utilization over a day), the
//! total (`#production-gap-total`, `data-total-factor`) and the glossary's 4,000 → 800 tok/s as
//! the reference line. The numbers are `decide::production_gap`'s. The panel's one control is the
//! arrivals' burstiness (`#burstiness`, the decision field `fields::BURSTINESS`: the CV of the
//! gaps between arrivals, 1 = Poisson).
//!
//! The simulator never runs on the slider path: the waterfall does not depend on the slider's
//! concurrency, so it reruns only when the scenario (concurrency aside) or the decision inputs
//! it reads change, after the simulator panel's 250 ms pause, one run per browser task; a
//! generation counter drops a stale job, and until the new waterfall arrives the old one stays,
//! outlined, marked "updating…". It first runs only once the panel comes into the viewport
//! (`leaderboard::use_seen`, no margin: at 1280 × 900 it starts about 150 px below the fold): a run of 6,000 requests can take ~50 ms in the browser,
//! too long a task to meet while dragging the slider just after the page loads.

use crate::decide::production_gap::{
    GapStudy, GapTargets, ProductionGap, GLOSSARY_PRODUCTION_TOK_S, GLOSSARY_SYNTHETIC_TOK_S,
};
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::state::Shared;
use crate::physics::efficiency::Efficiency;
use crate::present::format::format_number;
use crate::scenario::fields::BURSTINESS;
use crate::scenario::{DecisionInput, Scenario, ScenarioInput};
use crate::ui::tools::leaderboard::use_seen;
use crate::ui::tools::sim_panel::{sleep_ms, DEBOUNCE_MS};
use crate::ui::widgets::decision_inputs::NumberField;
use crate::ui::widgets::metric::group_thousands;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The waterfall's table body: one row per step with `data-factor`.
pub const GAP_ID: &str = "production-gap";
/// The total line, with `data-total-factor`.
pub const GAP_TOTAL_ID: &str = "production-gap-total";

/// What the waterfall depends on: the scenario without its concurrency, the efficiencies
/// evaluated and the decision inputs it reads (`GapTargets`: SLO, burstiness, offered load).
#[derive(Debug, Clone, PartialEq)]
struct GapKey {
    input: ScenarioInput,
    efficiency: Efficiency,
    targets: GapTargets,
}

fn gap_key(scenario: &Scenario, decision: &DecisionInput) -> GapKey {
    GapKey {
        input: ScenarioInput {
            concurrency: 0.0,
            ..scenario.input.clone()
        },
        efficiency: scenario.efficiency,
        targets: GapTargets::of(decision),
    }
}

#[derive(Properties, PartialEq)]
pub struct ProductionGapProps {
    pub scenario: Shared<Scenario>,
    /// The decision panels' state: the inputs the waterfall reads, and the burstiness box's text.
    pub decisions: UseReducerHandle<DecisionState>,
}

/// The hint under the burstiness box (MODEL.md §4.2: the Azure traces' inter-arrival CVs).
const BURSTINESS_HINT: &str = "1 = Poisson; Azure chat ≈ 1.1, Azure code ≈ 13";

/// The burstiness box, driven by its decision field like the other decision panels' boxes.
///
/// The panel is a portal into the explorer's `#production-gap-slot`, inside the explorer's Yew
/// root, whose event delegation swallows a Yew `oninput` here (as `measured_panel`'s toggle
/// finds): the box's wrapper listens for the `input` events itself.
#[function_component(BurstinessBox)]
fn burstiness_box(props: &BurstinessProps) -> Html {
    let wrapper = use_node_ref();
    {
        let (wrapper, decisions) = (wrapper.clone(), props.decisions.clone());
        use_effect_with(wrapper.clone(), move |wrapper| {
            let listener = wrapper.cast::<web_sys::Element>().map(|element| {
                gloo::events::EventListener::new(&element, "input", move |event| {
                    let input = event
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    if let Some(input) = input {
                        decisions.dispatch(DecisionAction::Edit(&BURSTINESS, input.value()));
                    }
                })
            });
            move || drop(listener)
        });
    }
    let decisions = &props.decisions;
    let field = NumberField::of(
        &BURSTINESS,
        decisions.text(&BURSTINESS).to_string(),
        decisions.error(&BURSTINESS).map(str::to_string),
        Callback::noop(),
    );
    html! {
        <div class="decision-fields" ref={wrapper}>
            { NumberField { hint: Some(BURSTINESS_HINT.to_string()), ..field }.render() }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct BurstinessProps {
    decisions: UseReducerHandle<DecisionState>,
}

/// A finished waterfall (or why there is none) and the generation it belongs to.
type Finished = Option<(u64, Result<Rc<ProductionGap>, String>)>;

/// One debounced job: the study, then its simulator runs one per browser task, stopping when a
/// newer generation exists or the panel left the document.
async fn run(
    generation: u64,
    scenario: Shared<Scenario>,
    decision: DecisionInput,
    newest: Rc<RefCell<u64>>,
    finished: UseStateSetter<Finished>,
    progress: UseStateSetter<(u64, usize, usize)>,
    panel: NodeRef,
) {
    let current =
        || *newest.borrow() == generation && panel.get().is_some_and(|node| node.is_connected());
    sleep_ms(DEBOUNCE_MS).await;
    if !current() {
        return;
    }
    let study = match GapStudy::new(&scenario, &decision) {
        Ok(study) => study,
        Err(message) => {
            finished.set(Some((generation, Err(message))));
            return;
        }
    };
    let runs = study.runs();
    let mut results = Vec::with_capacity(runs.len());
    for (done, config) in runs.iter().enumerate() {
        sleep_ms(0).await;
        if !current() {
            return;
        }
        match study.run(config) {
            Ok(result) => results.push(result),
            Err(error) => {
                finished.set(Some((generation, Err(error.to_string()))));
                return;
            }
        }
        progress.set((generation, done + 1, runs.len()));
    }
    finished.set(Some((generation, Ok(Rc::new(study.finish(&results))))));
}

fn tok_s(value: f64) -> String {
    group_thousands(&format_number(value))
}

/// `data-factor`: four decimals, so the product of the shown factors matches the total.
fn factor_attr(factor: f64) -> String {
    format!("{factor:.4}")
}

/// "× 0.83".
fn factor_text(factor: f64) -> String {
    format!("×\u{a0}{}", format_number(factor))
}

fn table(gap: &ProductionGap) -> Html {
    let scale = gap
        .steps
        .iter()
        .map(|s| s.tok_s)
        .fold(gap.synthetic_tok_s, f64::max)
        .max(f64::MIN_POSITIVE);
    let bar = |value: f64| {
        html! { <meter min="0" max={scale.to_string()} value={value.to_string()} aria-hidden="true"></meter> }
    };
    html! {
        <div class="table-scroll">
        <table class="data-table production-gap-table phone-cards">
            <caption>{ "Output tok/s of the whole deployment, step by step" }</caption>
            <thead>
                <tr>
                    <th scope="col">{ "Step" }</th>
                    <th scope="col">{ "Factor" }</th>
                    <th scope="col">{ "Output tok/s" }</th>
                    <th scope="col"><span class="visually-hidden">{ "Bar" }</span></th>
                    <th scope="col">{ "What was compared" }</th>
                </tr>
            </thead>
            <tbody id={GAP_ID}>
                <tr data-step="synthetic">
                    <th scope="row">{ "Tuned synthetic uniform benchmark, saturated closed loop" }</th>
                    <td></td>
                    <td data-metric="gap_synthetic_tok_s" data-label="Output tok/s">{ tok_s(gap.synthetic_tok_s) }</td>
                    <td>{ bar(gap.synthetic_tok_s) }</td>
                    <td class="card-note">{ "tuned engine profile, fixed lengths, every slot busy: what a vendor's benchmark at its highest concurrency reports" }</td>
                </tr>
                { for gap.steps.iter().map(|step| html! {
                    <tr data-step={step.step.id()} data-factor={factor_attr(step.factor)}>
                        <th scope="row">{ step.label.clone() }</th>
                        <td data-label="Factor">{ factor_text(step.factor) }</td>
                        <td data-label="Output tok/s">{ tok_s(step.tok_s) }</td>
                        <td>{ bar(step.tok_s) }</td>
                        <td class="card-note">{ step.note.clone() }</td>
                    </tr>
                }) }
            </tbody>
        </table>
        </div>
    }
}

#[function_component(ProductionGapPanel)]
pub fn production_gap_panel(props: &ProductionGapProps) -> Html {
    let finished = use_state(|| None as Finished);
    let progress = use_state(|| (0u64, 0usize, 0usize));
    let newest = use_mut_ref(|| 0u64);
    let panel = use_node_ref();
    // Its twelve simulations (runs of 6,000 requests, up to ~50 ms a browser task) start only
    // once the panel comes into view, as the leaderboard's work does: a reader dragging
    // the slider right after the page loads never meets one of them, and a page that is never
    // scrolled down never pays for them.
    let seen = use_seen(&panel, "0px");
    {
        let (finished, progress, panel) = (finished.setter(), progress.setter(), panel.clone());
        let newest = newest.clone();
        let (scenario, decision) = (props.scenario.clone(), props.decisions.input.clone());
        use_effect_with((gap_key(&scenario, &decision), seen), move |(_, seen)| {
            if !*seen {
                return;
            }
            let generation = {
                let mut newest = newest.borrow_mut();
                *newest += 1;
                *newest
            };
            wasm_bindgen_futures::spawn_local(run(
                generation, scenario, decision, newest, finished, progress, panel,
            ));
        });
    }
    let wanted = *newest.borrow();
    // Nothing runs before the panel is seen, so nothing is stale then.
    let stale = seen && finished.as_ref().is_none_or(|(g, _)| *g != wanted);
    let (_, done, total) = *progress;
    let running = if progress.0 == wanted && total > 0 {
        format!("updating… simulating run {done} of {total}")
    } else {
        "updating…".to_string()
    };
    let reference = GLOSSARY_PRODUCTION_TOK_S / GLOSSARY_SYNTHETIC_TOK_S;
    let body = match finished.as_ref().map(|(_, r)| r) {
        None if !seen => {
            html! { <p class="sim-status" role="status">{ "The waterfall is simulated when this panel comes into view." }</p> }
        }
        None => html! { <p class="sim-status" role="status">{ "Simulating the waterfall…" }</p> },
        Some(Err(message)) => html! {
            <p class="sim-status" role="status">{ format!("No waterfall for these settings: {message}") }</p>
        },
        Some(Ok(gap)) => {
            let total = gap.total_factor();
            html! {
                <>
                    <p class="lead" id={GAP_TOTAL_ID} data-total-factor={factor_attr(total)}>
                        { format!(
                            "{} output tok/s on a synthetic benchmark → {} on production-like traffic: {} the benchmark's figure.",
                            tok_s(gap.synthetic_tok_s),
                            tok_s(gap.production_tok_s()),
                            factor_text(total)
                        ) }
                    </p>
                    <div class={classes!(stale.then_some("stale"))}>{ table(gap) }</div>
                    <p class="hint" data-reference-factor={factor_attr(reference)}>
                        { format!(
                            "Reference: the glossary's example, {} tok/s synthetic and {} on production traffic, is {} ({} here). The factors multiply to the total.",
                            tok_s(GLOSSARY_SYNTHETIC_TOK_S),
                            tok_s(GLOSSARY_PRODUCTION_TOK_S),
                            factor_text(reference),
                            factor_text(total)
                        ) }
                    </p>
                </>
            }
        }
    };
    html! {
        <section class="panel production-gap" ref={panel} aria-labelledby="production-gap-title" aria-busy={stale.then_some("true")}>
            <h2 id="production-gap-title">{ "From a benchmark to production traffic" }</h2>
            <BurstinessBox decisions={props.decisions.clone()} />
            if stale {
                <p class="sim-status" role="status">{ running }</p>
            }
            { body }
        </section>
    }
}
