//! The simulator panel: once the user stops dragging or typing (a 250 ms debounce), the
//! discrete-event simulator runs the current operating point (closed loop at the slider's
//! concurrency) and then a latency-vs-load sweep (Poisson arrivals at 8 rates from 10 % to 110 %
//! of the analytic capacity), one run per browser task so the page stays responsive
//! (`sim::load` has the runs; MODEL.md §6).
//!
//! Every scenario change bumps a generation counter; a run checks it before it starts and the
//! reducer drops results of an old generation, so a stale result is never shown as current:
//! until the new ones arrive the old numbers stay, dimmed, marked "updating…". The headline
//! figures sent to the explorer (`decide::headline::reconcile`) are held to more: the run's own
//! scenario must be the one on screen. The generation cannot say so in the render that first sees
//! a new scenario, because the effect that bumps it runs after that render; the generation check
//! alone let that render reconcile the new point with the previous scenario's run and send the
//! previous scenario's tok/s and TPOT to the explorer under the new scenario's key, where they
//! stayed until the new run came in (250 ms and a run later). The load sweep
//! does not depend on the concurrency (except under static batching), so a slider move reruns
//! only the operating point.

use crate::model::OperatingPoint;
use crate::page::state::Shared;
use crate::physics::efficiency::Efficiency;
use crate::present::format::format_number;
use crate::present::glossary;
use crate::scenario::{Batching, Scenario, ScenarioInput};
use crate::sim::load::{
    analytic_capacity_per_s, load_rates, saturation_per_s, simulate_load_point,
    simulate_operating_point, LoadPoint, LOAD_POINTS, LOAD_REQUESTS, SEED,
};
use crate::sim::{LatencySummary, SimResult, Truncation};
use crate::ui::tools::load_canvas::LoadCanvas;
use crate::ui::widgets::glossary::Term;
use crate::ui::widgets::metric::group_thousands;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

pub const SIM_PANEL_ID: &str = "simulator";
pub const SIM_STATUS_ID: &str = "sim-status";
/// Quiet time after the last change before the simulator starts.
pub const DEBOUNCE_MS: i32 = 250;

/// End-to-end latency; not (yet) in the shared glossary table.
const E2E: glossary::Term = glossary::Term {
    id: "e2e",
    name: "E2E",
    definition: "End-to-end latency: from sending a request to its last output token, TTFT plus (output tokens − 1) × TPOT.",
};

/// Resolve after `ms` milliseconds through the browser's timer queue (`setTimeout`), so the
/// browser handles input and paints before the caller goes on.
pub async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let scheduled = web_sys::window().and_then(|window| {
            window
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
                .ok()
        });
        if scheduled.is_none() {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// What the load sweep depends on: the scenario without its concurrency (which only static
/// batching's batch size uses in an open loop) and the efficiencies actually evaluated.
#[derive(Debug, Clone, PartialEq)]
struct LoadKey {
    input: ScenarioInput,
    efficiency: Efficiency,
}

fn load_key(scenario: &Scenario) -> LoadKey {
    let mut input = scenario.input.clone();
    if scenario.batching != Batching::Static {
        input.concurrency = 0.0;
    }
    LoadKey {
        input,
        efficiency: scenario.efficiency,
    }
}

/// The simulator's results as shown, with the generation each belongs to.
#[derive(Debug, Clone, PartialEq, Default)]
struct SimView {
    /// The newest generation (the current scenario).
    wanted: u64,
    operating: Option<Result<SimResult, String>>,
    operating_generation: u64,
    /// The scenario `operating` was simulated for (compared by pointer: the `Shared` the run
    /// was started with, which is the props' until the scenario changes).
    operating_scenario: Option<Shared<Scenario>>,
    operating_concurrency: u32,
    load_key: Option<LoadKey>,
    load: Vec<LoadPoint>,
    capacity_per_s: f64,
    load_generation: u64,
    load_done: bool,
    load_error: Option<String>,
}

enum SimAction {
    /// A new scenario: everything shown is stale until its runs arrive.
    Wanted(u64),
    Operating {
        generation: u64,
        scenario: Shared<Scenario>,
        result: Box<Result<SimResult, String>>,
    },
    /// The load sweep shown is already this scenario's.
    LoadKept(u64),
    LoadStart {
        generation: u64,
        key: Box<LoadKey>,
        capacity_per_s: f64,
    },
    LoadPoint(u64, LoadPoint),
    LoadFailed(u64, String),
    LoadDone(u64),
}

impl Reducible for SimView {
    type Action = SimAction;

    fn reduce(self: Rc<Self>, action: SimAction) -> Rc<Self> {
        let mut next = (*self).clone();
        let current = |generation: u64| generation == self.wanted;
        match action {
            SimAction::Wanted(generation) => next.wanted = generation,
            SimAction::Operating {
                generation,
                scenario,
                result,
            } if current(generation) => {
                next.operating = Some(*result);
                next.operating_generation = generation;
                next.operating_concurrency = scenario.concurrency;
                next.operating_scenario = Some(scenario);
            }
            SimAction::LoadKept(generation) if current(generation) => {
                next.load_generation = generation;
            }
            SimAction::LoadStart {
                generation,
                key,
                capacity_per_s,
            } if current(generation) => {
                next.load_key = Some(*key);
                next.load.clear();
                next.capacity_per_s = capacity_per_s;
                next.load_done = false;
                next.load_error = None;
                next.load_generation = generation;
            }
            SimAction::LoadPoint(generation, point) if current(generation) => {
                next.load.push(point);
            }
            SimAction::LoadFailed(generation, message) if current(generation) => {
                next.load_error = Some(message);
            }
            SimAction::LoadDone(generation) if current(generation) => {
                next.load_done = true;
            }
            // A result of an older scenario: never shown.
            _ => return self,
        }
        Rc::new(next)
    }
}

/// One debounced simulation job for generation `generation`: the operating point, then the
/// load sweep one rate per browser task, stopping as soon as a newer generation exists or the
/// panel has left the document (an app unmounted or detached: nobody would see the results).
async fn run(
    generation: u64,
    scenario: Shared<Scenario>,
    newest: Rc<RefCell<u64>>,
    finished_load: Rc<RefCell<Option<LoadKey>>>,
    dispatcher: UseReducerDispatcher<SimView>,
    panel: NodeRef,
) {
    let current =
        || *newest.borrow() == generation && panel.get().is_some_and(|node| node.is_connected());
    sleep_ms(DEBOUNCE_MS).await;
    if !current() {
        return;
    }
    dispatcher.dispatch(SimAction::Operating {
        generation,
        result: Box::new(simulate_operating_point(&scenario).map_err(|e| e.to_string())),
        scenario: scenario.clone(),
    });
    let key = load_key(&scenario);
    if finished_load.borrow().as_ref() == Some(&key) {
        dispatcher.dispatch(SimAction::LoadKept(generation));
        return;
    }
    *finished_load.borrow_mut() = None;
    let capacity_per_s = analytic_capacity_per_s(&scenario);
    dispatcher.dispatch(SimAction::LoadStart {
        generation,
        key: Box::new(key.clone()),
        capacity_per_s,
    });
    for rate in load_rates(capacity_per_s, LOAD_POINTS) {
        sleep_ms(0).await;
        if !current() {
            return;
        }
        match simulate_load_point(&scenario, rate) {
            Ok(point) => dispatcher.dispatch(SimAction::LoadPoint(generation, point)),
            Err(error) => {
                dispatcher.dispatch(SimAction::LoadFailed(generation, error.to_string()));
                return;
            }
        }
    }
    *finished_load.borrow_mut() = Some(key);
    dispatcher.dispatch(SimAction::LoadDone(generation));
}

#[derive(Properties, PartialEq)]
pub struct SimPanelProps {
    /// The current scenario at the slider's concurrency.
    pub scenario: Shared<Scenario>,
    /// Its analytic operating point, to compare with.
    pub point: Shared<OperatingPoint>,
    /// Called with the scenario's key and the headline figures this run replaces
    /// (`decide::headline::reconcile`), once per finished run of the current point.
    #[prop_or_default]
    pub on_headline: Callback<(String, crate::decide::headline::Reconciled)>,
}

fn ms(value: f64) -> String {
    group_thousands(&format_number(value))
}

/// One table row: mean, P50, P95, P99 of a latency, each in `[data-metric=NAME_ms_STAT]`.
fn latency_row(name: &'static str, label: Html, summary: Option<&LatencySummary>) -> Html {
    let cell = |stat: &str, value: Option<f64>| {
        html! {
            <td><span data-metric={format!("{name}_ms_{stat}")}>{ value.map_or_else(|| "–".to_string(), ms) }</span></td>
        }
    };
    html! {
        <tr>
            <th scope="row">{ label }</th>
            { cell("mean", summary.map(|s| s.mean_ms)) }
            { cell("p50", summary.map(|s| s.p50_ms)) }
            { cell("p95", summary.map(|s| s.p95_ms)) }
            { cell("p99", summary.map(|s| s.p99_ms)) }
        </tr>
    }
}

/// "low confidence: only 420 requests measured", "truncated by the event budget", or empty.
fn confidence(result: &SimResult) -> String {
    let mut flags = Vec::new();
    if let Some(reason) = result.truncated {
        flags.push(match reason {
            Truncation::EventBudget => "truncated by the event budget".to_string(),
            Truncation::Horizon => "truncated at the time horizon".to_string(),
            Truncation::Stalled => "stopped: the engine could schedule nothing".to_string(),
        });
    }
    if result.low_confidence {
        flags.push(format!(
            "low confidence: {} requests measured",
            group_thousands(&result.measured.to_string())
        ));
    }
    if flags.is_empty() {
        "steady state reached".into()
    } else {
        flags.join("; ")
    }
}

#[function_component(SimPanel)]
pub fn sim_panel(props: &SimPanelProps) -> Html {
    let view = use_reducer(SimView::default);
    let newest = use_mut_ref(|| 0u64);
    let finished_load = use_mut_ref(|| None::<LoadKey>);
    let panel = use_node_ref();
    {
        let dispatcher = view.dispatcher();
        let panel = panel.clone();
        use_effect_with(props.scenario.clone(), move |scenario| {
            let generation = {
                let mut newest = newest.borrow_mut();
                *newest += 1;
                *newest
            };
            dispatcher.dispatch(SimAction::Wanted(generation));
            wasm_bindgen_futures::spawn_local(run(
                generation,
                scenario.clone(),
                newest,
                finished_load,
                dispatcher,
                panel,
            ));
        });
    }

    let operating_stale = view.operating_generation != view.wanted;
    let load_stale = view.load_generation != view.wanted || !view.load_done;
    let result = view.operating.as_ref().and_then(|r| r.as_ref().ok());
    // The headline beside the chart takes this run's figures where the analytic point is
    // saturated or differs beyond its stated error (issue 26 §4), in a message to the explorer;
    // only a run of the scenario on screen is compared with its point (see the module's doc).
    let reconciled = result
        .filter(|_| !operating_stale && view.operating_scenario.as_ref() == Some(&props.scenario))
        .map(|r| crate::decide::headline::reconcile(&props.scenario, &props.point, r));
    {
        let on_headline = props.on_headline.clone();
        let key = crate::share::scenario_key(&props.scenario.input);
        use_effect_with(reconciled, move |r| {
            if let Some(r) = r {
                on_headline.emit((key, *r));
            }
        });
    }
    let status = match (&view.operating, operating_stale) {
        (None, _) => "Simulating…".to_string(),
        (_, true) => "updating…".to_string(),
        (Some(Err(message)), false) => format!("The simulator could not run: {message}"),
        (Some(Ok(r)), false) => format!(
            "Simulated {} requests, closed loop at {} in flight, seed {SEED}: {}.",
            group_thousands(&r.requests.to_string()),
            view.operating_concurrency,
            confidence(r)
        ),
    };
    let saturation = saturation_per_s(&view.load);
    let load_status = if let Some(message) = &view.load_error {
        format!("The load sweep could not run: {message}")
    } else if view.load.is_empty() && load_stale {
        "Latency vs. load: waiting for the simulator…".to_string()
    } else {
        let capacity = format_number(view.capacity_per_s);
        let outcome = match saturation {
            Some(rate) => format!(
                "the simulated engine saturates near {} req/s",
                format_number(rate)
            ),
            None => "no run saturated".to_string(),
        };
        format!(
            "{}{} Poisson runs of {} requests from 10 % to 110 % of the analytic capacity λmax = {capacity} req/s: {outcome}.",
            if load_stale { "updating… " } else { "" },
            view.load.len(),
            group_thousands(&LOAD_REQUESTS.to_string()),
        )
    };
    let load_summary = match (view.load.first(), view.load.last()) {
        (Some(first), Some(last)) => format!(
            "Latency against load: P99 TTFT {} ms at {} req/s and {} ms at {} req/s; P99 TPOT {} ms and {} ms.",
            ms(first.ttft.p99_ms),
            format_number(first.rate_per_s),
            ms(last.ttft.p99_ms),
            format_number(last.rate_per_s),
            ms(first.tpot.p99_ms),
            ms(last.tpot.p99_ms)
        ),
        _ => "Latency against load: no simulation yet.".to_string(),
    };
    let analytic = &props.point;
    html! {
        <section class="panel sim-panel" id={SIM_PANEL_ID} ref={panel} aria-labelledby="sim-title" aria-busy={(operating_stale || load_stale).then_some("true")}>
            <div class="panel-head">
                <h2 id="sim-title">{ "Tail latency (simulated)" }</h2>
                <p class="subtitle">{ "Discrete-event simulation of the same scenario, iteration by iteration" }</p>
            </div>
            <div class="sim-grid">
                <div class={classes!("sim-numbers", operating_stale.then_some("stale"))}>
                    <p id={SIM_STATUS_ID} class="sim-status" role="status">{ status }</p>
                    <div class="table-scroll">
                    <table class="data-table sim-table">
                        <caption>{ format!("Milliseconds at {} in flight", view.operating_concurrency.max(props.scenario.concurrency)) }</caption>
                        <thead>
                            <tr>
                                <th scope="col">{ "Latency" }</th>
                                <th scope="col">{ "Mean" }</th>
                                <th scope="col">{ "P50" }</th>
                                <th scope="col"><Term term={glossary::PERCENTILES}>{ "P95" }</Term></th>
                                <th scope="col"><Term term={glossary::PERCENTILES}>{ "P99" }</Term></th>
                            </tr>
                        </thead>
                        <tbody>
                            { latency_row("ttft", html! { <Term term={glossary::TTFT} /> }, result.map(|r| &r.ttft)) }
                            { latency_row("tpot", html! { <Term term={glossary::TPOT} /> }, result.map(|r| &r.tpot)) }
                            { latency_row("itl", html! { <Term term={glossary::ITL} /> }, result.map(|r| &r.itl)) }
                            { latency_row("e2e", html! { <Term term={E2E} /> }, result.map(|r| &r.e2e)) }
                        </tbody>
                    </table>
                    </div>
                    <ul class="sim-facts">
                        <li>
                            { "Output tok/s: " }
                            <span data-metric="sim_output_tok_s">{ result.map_or_else(|| "–".to_string(), |r| group_thousands(&format_number(r.output_tok_s))) }</span>
                            { format!(" simulated, {} analytic", group_thousands(&format_number(analytic.output_tok_s))) }
                        </li>
                        <li>
                            { "TPOT mean: " }
                            { result.map_or_else(|| "–".to_string(), |r| format!("{} ms simulated (token-weighted)", ms(r.tpot_token_mean_ms))) }
                            { format!(", {} ms analytic", ms(analytic.tpot_ms)) }
                        </li>
                        <li>
                            { "Preemptions: " }
                            <span data-metric="sim_preemptions">{ result.map_or_else(|| "–".to_string(), |r| group_thousands(&r.preemptions.to_string())) }</span>
                            { result.filter(|r| r.rejected > 0).map(|r| format!("; {} requests never fit the KV cache", r.rejected)).unwrap_or_default() }
                        </li>
                    </ul>
                </div>
                <div class={classes!("sim-load", load_stale.then_some("stale"))}>
                    <p class="sim-status" id="load-status">{ load_status }</p>
                    <LoadCanvas
                        points={view.load.clone()}
                        capacity_per_s={view.capacity_per_s}
                        saturation_per_s={saturation}
                        summary={load_summary}
                    />
                </div>
            </div>
        </section>
    }
}
