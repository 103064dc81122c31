//! The page: holds the `State` reducer and lays out controls, chart, slider and numbers, with
//! empty slots the tools module fills (measured points, notes). Every user action marks the start
//! of an update (see `perf`) and dispatches one `Action`; everything shown is derived from the
//! state on render.

use crate::catalog::catalog;
use crate::model::pareto::SLIDER_STEPS;
use crate::page::embed::embed_controls;
use crate::page::first_screen::{hardware, in_flight_text, kv_status};
use crate::page::knobs::{KnobAction, Knobs};
use crate::page::state::{Action, State, View};
use crate::present::assumptions::parallelism_hint;
use crate::present::chart::notes::static_batching_note;
use crate::present::chart::{Marker, Projection, XAxis, YAxis};
use crate::present::format::format_number;
use crate::present::glossary;
use crate::scenario::fields::{
    Field, CONCURRENCY, DEPLOYMENT, ENGINE, GPU, GPUS, MODEL, PRECISION,
};
use crate::share::{self, ViewState};
use crate::ui::explorer::advanced::Advanced;
use crate::ui::explorer::chart_axes::ChartAxes;
use crate::ui::explorer::chart_canvas::ChartCanvas;
use crate::ui::explorer::controls::{Controls, INPUT_ERROR_ID};
use crate::ui::explorer::custom_model::CustomModel;
use crate::ui::explorer::embed::{EmbedView, EMBED_ID, OPEN_EXPLORER_ID};
use crate::ui::explorer::numbers::Numbers;
use crate::ui::explorer::techniques::{ladder_summary, TechniqueControls, WorkloadSelect};
use crate::ui::platform::perf;
use crate::ui::platform::share_sync::{self, RestoredNotice, UrlNotice};
use crate::ui::platform::tools_link::{use_tools_link, LinkOptions};
use crate::ui::widgets::field_control::show_error;
use crate::ui::widgets::glossary::Term;
use crate::ui::widgets::slider::Slider;
use yew::prelude::*;

pub const SLIDER_ID: &str = "batch-size";
const KV_STATUS_ID: &str = "kv-status";

/// The chart's heading on its chosen axes, each axis's words a glossary term.
fn chart_heading(projection: &Projection) -> Html {
    let y_term = match projection.y {
        YAxis::PerGpu | YAxis::Aggregate => glossary::THROUGHPUT,
        YAxis::UsdPerMOutput | YAxis::TokensPerUsd => glossary::USD_PER_M_TOKENS,
    };
    let x_term = match projection.x {
        XAxis::Interactivity => glossary::INTERACTIVITY,
        XAxis::Tpot => glossary::TPOT,
    };
    html! {
        <>
            <Term term={y_term}>{ projection.y.heading() }</Term>{ " vs. " }
            <Term term={x_term}>{ projection.x.heading() }</Term>
        </>
    }
}

/// "auto chose TP 2: the cheapest meeting P90 TTFT ≤ 500 ms …: 4 replicas of 2 GPUs", or the
/// default rule's "auto TP 1, the smallest that fits: …" (issue 26 §2: auto says which).
fn tp_hint(view: &View, knobs: &Knobs) -> String {
    let s = &view.scenario;
    let per_replica = s.par.gpus_per_replica();
    let replicas = match s.replicas {
        1 => "1 replica".to_string(),
        n => format!("{n} replicas"),
    };
    let gpus = if per_replica == 1 { "GPU" } else { "GPUs" };
    let chosen = knobs.auto_layout.as_ref().filter(|c| c.applies(&s.input));
    match (chosen, s.tp_auto) {
        (Some(choice), _) => format!(
            "{}: {replicas} of {per_replica} {gpus}",
            choice.why.split([';', '(']).next().unwrap_or_default().trim()
        ),
        (None, true) => format!(
            "auto TP {}, the smallest that fits (set an SLO to choose by cost): {replicas} of {per_replica} {gpus}",
            s.par.tp
        ),
        (None, false) => format!("{replicas} of {per_replica} {gpus}"),
    }
}

/// The catalog's rental prices for the GPU named in the GPU control.
fn price_hint(gpu_id: &str) -> String {
    let Some(gpu) = catalog().ok().and_then(|c| c.gpu(gpu_id.trim())) else {
        return String::new();
    };
    let price = |v: Option<f64>| v.map(|v| format!("${v:.2}"));
    match (
        price(gpu.usd_per_gpu_hour_low),
        price(gpu.usd_per_gpu_hour_typical),
        price(gpu.usd_per_gpu_hour_high),
    ) {
        (Some(low), Some(typical), Some(high)) if low != high => {
            format!(
                "catalog: {low}–{high}, typically {typical}, as of {}",
                gpu.price_as_of
            )
        }
        (_, Some(typical), _) => format!("catalog: typically {typical}, as of {}", gpu.price_as_of),
        _ => format!("no catalog price for the {}; enter one", gpu.name),
    }
}

/// A sentence describing the chart on its chosen axes, for screen readers (the canvas's
/// accessible name).
fn chart_summary(view: &View, projection: &Projection) -> String {
    let p = &view.point;
    let mut text = format!(
        "{} chart: {}. Current point: {} requests, {} tok/s per user, {} output tok/s per GPU{}.",
        projection.heading(),
        projection.describe(),
        p.concurrency,
        format_number(p.tok_s_per_user),
        format_number(p.output_tok_s_per_gpu),
        if p.fits { "" } else { " (beyond KV capacity)" }
    );
    if let Some(knee) = view.curve.knee.and_then(|i| view.curve.points.get(i)) {
        text.push_str(&format!(" Knee at {} requests.", knee.concurrency));
    }
    text
}

#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    /// Open this query string (`v=1&model=...`) instead of the built-in scenario (tests).
    #[prop_or_default]
    pub query: Option<AttrValue>,
    /// The real page: open the URL's query (else the remembered scenario) and keep the URL and
    /// `localStorage` up to date. Off by default, so tests mount an app that touches neither.
    #[prop_or_default]
    pub sync_location: bool,
    /// The element the page's second module (`tools.rs`: simulator, decision and glossary
    /// panels) mounts into, a sibling of the app's root (`tools_link.rs`); none: no tools.
    #[prop_or_default]
    pub tools: Option<web_sys::Element>,
}

/// The scenario fields of the page's first render: the ones the phone layout puts above the chart
/// (`static/style.css`, max-width 720px), which would push the chart down if they came later.
const FIRST_SCREEN_FIELDS: [&Field; 4] = [&MODEL, &PRECISION, &GPU, &GPUS];

/// Whether the page's second pass has come: false in the first render, true from a browser task
/// after it. The first render holds the chart's panel (heading, axes, chart, slider) and the
/// `FIRST_SCREEN_FIELDS`; the other scenario controls and the numbers panel render in the second
/// pass, so the first chart waits for building, laying out and compiling (wasm compiles each
/// function on its first call) only what it needs. The chart's panel sits in the layout's first
/// row at every width (below those fields on a phone), and its neighbours' columns have fixed
/// widths, so what comes later does not move it.
#[hook]
fn use_second_pass() -> bool {
    let ready = use_state(|| false);
    {
        let ready = ready.setter();
        // Effects run after the first render and its chart draw; the timeout puts the second
        // render in a task of its own, queued before the tools module's import.
        use_effect_with((), move |_| {
            let timer = gloo::timers::callback::Timeout::new(0, move || ready.set(true));
            move || drop(timer)
        });
    }
    *ready
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let start = use_memo((), |_| {
        share_sync::page_start(props.query.as_deref(), props.sync_location)
    });
    let state = use_reducer({
        let view = start.start.view.clone();
        move || State::first_screen(view)
    });
    share_sync::use_persist(&state, start.persist);
    let on_import = use_callback(state.dispatcher(), |view: ViewState, dispatcher| {
        perf::mark_update_start();
        dispatcher.dispatch(Action::Load(Box::new(view)));
    });
    let on_reset = use_callback(on_import.clone(), |(), on_import| {
        on_import.emit(ViewState::default());
    });
    let embed = start.start.view.embed.embed;
    let second_pass = use_second_pass();
    // The technique ladder's other curves come with the second pass (`State::first_screen`).
    use_effect_with(second_pass, {
        let dispatcher = state.dispatcher();
        move |ready| {
            if *ready {
                dispatcher.dispatch(Action::CompleteLadder);
            }
        }
    });
    let (overlay, headline) = use_tools_link(
        LinkOptions {
            host: if embed { None } else { props.tools.clone() },
            load: props.sync_location && !embed,
            persist: start.persist,
            restore_pins: start.start.source != share::StartSource::Link,
            ideal_roofline: state.knobs.ideal_roofline,
        },
        &state,
        on_import,
    );
    let on_edit = use_callback(
        state.dispatcher(),
        |(field, text): (&'static Field, String), dispatcher| {
            perf::mark_update_start();
            dispatcher.dispatch(Action::Edit(field, text));
        },
    );
    let on_move = use_callback(state.dispatcher(), |position: u32, dispatcher| {
        perf::mark_update_start();
        dispatcher.dispatch(Action::MoveSlider(position));
    });
    let on_type = use_callback(state.dispatcher(), |text: String, dispatcher| {
        perf::mark_update_start();
        dispatcher.dispatch(Action::Edit(&CONCURRENCY, text));
    });
    let on_knob = use_callback(state.dispatcher(), |action: KnobAction, dispatcher| {
        perf::mark_update_start();
        dispatcher.dispatch(Action::Knob(action));
    });
    let on_chart = use_callback(
        state.dispatcher(),
        |chart: crate::present::chart::Projection, dispatcher| {
            perf::mark_update_start();
            dispatcher.dispatch(Action::Chart(chart));
        },
    );

    if state.view.is_none() && state.error.is_none() {
        // Neither a view nor an error: only a broken build gets here.
        return html! {
            <main class="startup-error" role="alert">
                <h1>{ "servecost could not start" }</h1>
                <p>{ "The built-in scenario could not be evaluated. This is a bug in this build of the page; please report it." }</p>
            </main>
        };
    }
    // Without a view (an opening link that asked for a scenario that does not validate: the
    // controls keep what it asked for) the chart's place states the error, once; with one, the
    // error also appears under the control it names and the last good view stays.
    let view = state.view.clone();
    show_error(state.error.as_ref().filter(|_| view.is_some()));
    let unfit_text = state
        .error
        .as_ref()
        .filter(|_| view.is_none())
        .map(|e| format!("{}.", e.text().trim_end_matches('.')));
    let explorer = || share_sync::link_to(&share::without_embed(&state.view_state()));
    if embed {
        let Some(view) = view else {
            return html! {
                <main class="embed" id={EMBED_ID}>
                    <p id={INPUT_ERROR_ID} class="input-error embed-unfit" role="alert">{ unfit_text }</p>
                    <a id={OPEN_EXPLORER_ID} class="embed-open" href={explorer()} target="_blank" rel="noopener">
                        { "Open in the full explorer" }<span aria-hidden="true">{ " ↗" }</span>
                    </a>
                </main>
            };
        };
        let (controls, mut notices) = embed_controls(&start.start.view.embed.controls);
        notices.splice(0..0, start.start.notices.iter().cloned());
        return html! {
            <EmbedView
                view={view}
                texts={state.texts.clone()}
                knobs={state.knobs.clone()}
                decision={state.decision.clone()}
                error={state.error.clone()}
                slider_position={state.slider_position}
                {controls}
                explorer_href={explorer()}
                projection={state.chart}
                {notices}
                {on_move}
                {on_edit}
                {on_knob}
            />
        };
    }
    html! {
        <div class="app">
            <UrlNotice notices={start.start.notices.clone()} />
            if start.start.source == share::StartSource::Storage {
                <RestoredNotice on_reset={on_reset} />
            }
            <main class="layout">
                { scenario_panel(&state, view.as_ref(), second_pass, on_edit.clone(), on_knob) }
                if let Some(view) = view {
                    { explorer_view(&state, view, (overlay, headline), on_chart, on_move, on_type, second_pass) }
                } else {
                    <section class="panel hero unfit" aria-labelledby="chart-title">
                        <h2 id="chart-title">{ "No curve for this scenario" }</h2>
                        <div id={INPUT_ERROR_ID} class="input-error" role="alert">{ unfit_text }</div>
                        <p class="hint">{ "The controls show what the link asked for; change the marked field to see a curve." }</p>
                    </section>
                }
                // The tools module's notes (`ui::tools::notes`) and production-gap waterfall
                // (`ui::tools::production_gap`).
                <div id={crate::ui::platform::bridge::NOTES_SLOT_ID} class="notes-slot"></div>
                <section id={crate::ui::platform::bridge::GAP_SLOT_ID} class="synthetic"></section>
            </main>
        </div>
    }
}

/// The scenario panel: the error of the last edit, the controls (the first screen's four until
/// the second pass, `FIRST_SCREEN_FIELDS`), the custom model and workload extras, then the
/// technique and advanced controls.
fn scenario_panel(
    state: &State,
    view: Option<&View>,
    second_pass: bool,
    on_edit: Callback<(&'static Field, String)>,
    on_knob: Callback<KnobAction>,
) -> Html {
    let error_text = state
        .error
        .as_ref()
        .map(|e| {
            format!(
                "{}. The numbers and chart still show the last valid scenario.",
                e.text().trim_end_matches('.')
            )
        })
        .unwrap_or_default();
    let error_field = state.error.as_ref().map(|e| e.field.clone());
    let hint = |text: Option<String>| AttrValue::from(text.unwrap_or_default());
    html! {
        <section class="panel scenario" aria-labelledby="scenario-title">
            <h2 id="scenario-title">{ "Scenario" }</h2>
            if view.is_some() {
                <div id={INPUT_ERROR_ID} class="input-error" role="alert">{ error_text }</div>
            }
            <Controls
                only={(!second_pass).then(|| FIRST_SCREEN_FIELDS.to_vec())}
                texts={state.texts.clone()}
                error_field={error_field.clone()}
                tp_hint={hint(view.as_ref().map(|v| tp_hint(v, &state.knobs)))}
                parallelism_hint={hint(view.as_ref().and_then(|v| parallelism_hint(&v.scenario)))}
                engine_hint={hint(view.as_ref().map(|v| v.scenario.profile.describe()))}
                price_hint={price_hint(state.texts.get(&GPU))}
                on_edit={on_edit.clone()}
                model_extra={html! {
                    <CustomModel knobs={state.knobs.clone()} model={AttrValue::from(state.texts.get(&MODEL).to_string())}
                        error_field={error_field.clone()} on_knob={on_knob.clone()} />
                }}
                workload_extra={html! {
                    <WorkloadSelect texts={state.texts.clone()} on_edit={on_edit.clone()} />
                }}
            />
            if second_pass {
                <TechniqueControls texts={state.texts.clone()} error_field={error_field.clone()} on_edit={on_edit.clone()} />
                <Advanced knobs={state.knobs.clone()} texts={state.texts.clone()} gpu={AttrValue::from(state.texts.get(&GPU).to_string())} engine={AttrValue::from(state.texts.get(&ENGINE).to_string())} deployment={AttrValue::from(state.texts.get(&DEPLOYMENT).to_string())} error_field={error_field.clone()} on_knob={on_knob.clone()} on_edit={on_edit.clone()} />
            }
        </section>
    }
}

/// The chart, slider and numbers of a view.
fn explorer_view(
    state: &State,
    view: View,
    (overlay, headline): (
        crate::page::state::Shared<crate::present::chart::Overlay>,
        Option<crate::ui::platform::tools_link::SimulatedHeadline>,
    ),
    on_chart: Callback<crate::present::chart::Projection>,
    on_move: Callback<u32>,
    on_type: Callback<String>,
    second_pass: bool,
) -> Html {
    let (status, beyond) = kv_status(&view);
    let concurrency = view.concurrency();
    // The simulator's headline figures, when they belong to this scenario and point (issue 26
    // §4: the headline never contradicts the simulator beside it).
    let simulated = headline
        .filter(|(_, r)| r.concurrency == view.point.concurrency)
        .filter(|(key, _)| *key == share::scenario_key(&view.scenario.input))
        .map(|(_, r)| r);
    let value_text = in_flight_text(concurrency);
    let chart_axes = state.chart;
    let model_name = view.scenario.model.name.clone();
    let hardware = hardware(&view.scenario);
    html! {
        <>
                <section class="panel hero" aria-labelledby="chart-title">
                    <div class="panel-head">
                        <h2 id="chart-title">{ chart_heading(&chart_axes) }</h2>
                        <p class="subtitle">{ format!("{model_name} on {hardware}") }</p>
                    </div>
                    // The page's answer at a glance (issue 28 §7), from the figures the numbers
                    // panel shows.
                    <p id="answer" class="answer">{ crate::present::sentences::answer_sentence(
                        &view.point, &hardware, simulated.and_then(|r| r.output_tok_s).unwrap_or(view.point.output_tok_s)) }</p>
                    <ChartAxes chart={state.chart} on_change={on_chart} />
                    <ChartCanvas
                        curve={view.curve.clone()}
                        current={Marker::from(&*view.point)}
                        summary={format!("{} {}", chart_summary(&view, &chart_axes), ladder_summary(&view.techniques))}
                        overlay={Some(overlay)}
                        techniques={Some(view.techniques.clone())}
                        projection={chart_axes}
                        on_pick={Some((on_move.clone(), view.engine_limit()))}
                        // The ideal roofline is a bound, not a prediction: no expected-error band.
                        error_band={if state.knobs.ideal_roofline { [None; 3] } else { crate::model::expected_error::throughput_by_regime(&view.scenario) }}
                    />
                    <Slider
                        id={SLIDER_ID}
                        label="Batch size (max concurrency)"
                        position={state.slider_position}
                        steps={SLIDER_STEPS}
                        max_value={view.engine_limit()}
                        value_text={value_text}
                        on_move={on_move}
                        describedby={Some(AttrValue::from(KV_STATUS_ID))}
                        value={concurrency}
                        on_type={Some(on_type)}
                        error={concurrency_error(state)}
                    />
                    <p id={KV_STATUS_ID} class={classes!("kv-status", beyond.then_some("beyond"))}>{ status }</p>
                    // A technique level with no curve says why (e.g. disaggregation on one GPU).
                    { for view.techniques.absent.iter().map(|a| html! { <p class="hint" data-absent-level={a.level.id()}>{ format!("{}.", a.reason) }</p> }) }
                    if let Some(note) = static_batching_note(&view.techniques, &view.curve, &view.scenario.workload, concurrency) {
                        <p id="static-batching-note" class="kv-status">{ note }</p>
                    }
                    // The tools module's measured points and their table (`ui::tools::measured_panel`).
                    <div id={crate::ui::platform::bridge::MEASURED_SLOT_ID}></div>
                </section>
                <section class="panel numbers-panel" aria-labelledby="numbers-title">
                    <h2 id="numbers-title">{ format!("At {concurrency} in flight") }</h2>
                    // The tools module's other-deployment line (`ui::tools::contrast`).
                    <div id={crate::ui::platform::bridge::CONTRAST_SLOT_ID}></div>
                    if second_pass {
                        <Numbers point={view.point.clone()} {simulated} gpu_name={AttrValue::from(view.scenario.gpu.name.clone())}
                            class={crate::model::expected_error::Class::of(&view.scenario, &view.point)} />
                    }
                </section>
        </>
    }
}

/// The message under the batch-size number box, when the current error is the concurrency's.
pub fn concurrency_error(state: &State) -> Option<AttrValue> {
    state
        .error
        .as_ref()
        .filter(|e| e.field == CONCURRENCY.key)
        .map(|e| AttrValue::from(e.message.clone()))
}
