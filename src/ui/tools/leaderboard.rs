//! The hardware leaderboard panel: for the current model and workload, every catalog GPU ×
//! precision × layout at a target interactivity (tokens/s per user, or the SLO's TPOT), ranked
//! by $/M output (`decide::leaderboard`), as a sortable table (`#leaderboard`) and a bar chart,
//! with a Load button per row (into the explorer, through `servecost:apply` like the plan's
//! Apply), a CSV download and a PNG of the chart.
//!
//! It never runs on the slider path: the request leaves out everything a slider or the GPU
//! controls change (`page::leaderboard::request_for`), so it recomputes only when the model,
//! the workload or the target do; then after a 250 ms pause, one GPU × precision per browser
//! task (as the simulator panel runs its load sweep), with a generation counter that drops
//! stale work, and only once the panel has come near the viewport (an `IntersectionObserver`):
//! a page that is never scrolled down never pays for it.

use crate::choice::Choice;
use crate::decide::leaderboard::{rank, rows_for, work, Leaderboard, LeaderboardRequest, Row};
use crate::page::decision_data::ScenarioDecision;
use crate::page::decisions::DecisionState;
use crate::page::leaderboard::{
    bars, configuration_label, csv, order, price_text, request_for, Column, Sort, TargetMode,
};
use crate::page::state::Shared;
use crate::present::chart::leaderboard::{chart_height_css_px, draw_leaderboard, Bar};
use crate::present::format::format_number;
use crate::scenario::fields::{TOK_S_PER_USER, TTFT_CEILING_MS};
use crate::ui::platform::canvas_backend::{prefers_dark, prepare};
use crate::ui::platform::download::{chart_png, download_data_url, download_text};
use crate::ui::tools::decision_panels::{decision_field, LatestState};
use crate::ui::tools::sim_panel::{sleep_ms, DEBOUNCE_MS};
use crate::ui::widgets::decision_inputs::{select_field, NumberField};
use plotters::prelude::IntoDrawingArea;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub const LEADERBOARD_ID: &str = "leaderboard";
pub const LEADERBOARD_CHART_ID: &str = "leaderboard-chart";
/// Bars drawn: the first rows of the table as sorted.
const CHART_BARS: usize = 15;
const CHART_WIDTH_CSS_PX: f64 = 720.0;

#[derive(Properties, PartialEq)]
pub struct LeaderboardPanelProps {
    pub latest: LatestState,
    pub decisions: UseReducerHandle<DecisionState>,
    /// Changes when the scenario (not its concurrency) or the SLO does: when to re-render.
    pub key_scenario: Shared<ScenarioDecision>,
}

/// What the panel shows.
#[derive(Clone)]
enum Status {
    /// Not yet near the viewport, or no valid request.
    Waiting,
    Computing,
    Done(Rc<Leaderboard>),
    Failed(String),
}

/// One leaderboard for `generation`, one GPU × precision per browser task, stopping as soon as
/// a newer generation exists.
async fn run(
    generation: u64,
    request: LeaderboardRequest,
    newest: Rc<RefCell<u64>>,
    status: UseStateSetter<Status>,
) {
    let current = || *newest.borrow() == generation;
    sleep_ms(DEBOUNCE_MS).await;
    if !current() {
        return;
    }
    let (items, skipped) = match work(&request) {
        Ok(work) => work,
        Err(why) => {
            status.set(Status::Failed(why));
            return;
        }
    };
    let mut board = Leaderboard::empty(request.target, skipped);
    for (gpu, precision) in items {
        sleep_ms(0).await;
        if !current() {
            return;
        }
        board.add(rows_for(&request, gpu, precision));
    }
    rank(&mut board.rows);
    status.set(Status::Done(Rc::new(board)));
}

fn draw(canvas: &web_sys::HtmlCanvasElement, title: &str, bars: &[Bar]) -> Result<(), String> {
    let height = chart_height_css_px(bars.len());
    let (backend, options) = prepare(canvas, None, (CHART_WIDTH_CSS_PX, height))?;
    draw_leaderboard(backend.into_drawing_area(), title, bars, &options)
}

/// True once the element has come within `margin` (a CSS root margin: "300px") of the viewport;
/// also the production-gap waterfall's trigger (`production_gap.rs`).
#[hook]
pub fn use_seen(node: &NodeRef, margin: &'static str) -> bool {
    let seen = use_state(|| false);
    {
        let (node, setter) = (node.clone(), seen.setter());
        use_effect_with((), move |_| {
            let on_change =
                Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                    let near = entries.iter().any(|entry| {
                        entry
                            .dyn_into::<web_sys::IntersectionObserverEntry>()
                            .is_ok_and(|e| e.is_intersecting())
                    });
                    if near {
                        setter.set(true);
                    }
                });
            let options = web_sys::IntersectionObserverInit::new();
            options.set_root_margin(margin);
            let observer = web_sys::IntersectionObserver::new_with_options(
                on_change.as_ref().unchecked_ref(),
                &options,
            )
            .ok();
            if let (Some(observer), Some(element)) = (&observer, node.cast::<web_sys::Element>()) {
                observer.observe(&element);
            }
            move || {
                if let Some(observer) = observer {
                    observer.disconnect();
                }
                drop(on_change);
            }
        });
    }
    *seen
}

fn load_button(rank: usize, label: String, onclick: Callback<MouseEvent>) -> Html {
    html! {
        <button type="button" class="button small" id={format!("leaderboard-load-{rank}")}
            aria-label={format!("Load #{rank} into the explorer: {label}")} {onclick}>{ "Load" }</button>
    }
}

#[function_component(LeaderboardPanel)]
pub fn leaderboard_panel(props: &LeaderboardPanelProps) -> Html {
    let d = &*props.decisions;
    let mode = use_state(TargetMode::default);
    // In agentic mode, "agents-per-mw" or "agents-per-usd" (`decide::agents::AgentRank`): the
    // agentic board replaces the tok/s one.
    let agent_rank = use_state(|| None::<String>);
    let sort = use_state(Sort::default);
    let status = use_state(|| Status::Waiting);
    let newest = use_mut_ref(|| 0u64);
    let panel = use_node_ref();
    let canvas = use_node_ref();
    let seen = use_seen(&panel, "300px");
    let state = props.latest.handle();
    let view = state.as_ref().and_then(|s| s.view.clone());
    let agent_base = view.as_ref().and_then(|v| agentic_base(&v.scenario.input));
    let agent_rank_now = (*agent_rank).clone().filter(|_| agent_base.is_some());
    let request = view
        .as_ref()
        .filter(|_| agent_rank_now.is_none())
        .ok_or_else(|| "no valid scenario".to_string())
        .and_then(|v| {
            request_for(&v.scenario.input, &d.input, *mode)
                .map_err(|e| format!("{}: {}", e.field, e.message))
        });
    use_board_run(&status, &newest, request.clone().ok(), seen);
    let board = match &*status {
        Status::Done(board) => Some(board.clone()),
        _ => None,
    };
    let shown: Vec<usize> = board
        .as_ref()
        .map(|b| order(&b.rows, *sort))
        .unwrap_or_default();
    let model_name = view
        .as_ref()
        .map(|v| v.scenario.model.name.clone())
        .unwrap_or_default();
    let chart = BoardChart {
        title: board
            .as_ref()
            .map(|b| format!("{model_name}: output tok/s per GPU at {}", b.target.text()))
            .unwrap_or_default(),
        bars: board
            .as_ref()
            .map(|b| bars(&b.rows, &shown, CHART_BARS))
            .unwrap_or_default(),
        canvas,
        model_id: view
            .as_ref()
            .map(|v| v.scenario.model.id.clone())
            .unwrap_or_default(),
    };
    use_chart_draw(&chart.canvas, chart.bars.clone(), chart.title.clone());
    let computing = matches!(*status, Status::Computing);
    html! {
        <section class="panel decision leaderboard-panel" ref={panel} aria-labelledby="leaderboard-title" aria-busy={computing.then_some("true")}>
            <h2 id="leaderboard-title">{ "Hardware leaderboard at a fixed interactivity" }</h2>
            { board_inputs(props, &mode, &agent_rank, agent_rank_now.as_deref(), agent_base.is_some()) }
            <p class="hint">{ "Every catalog GPU × precision × layout (TP 1–8; for MoE models also EP and DEP; several nodes only when one does not hold the model) and, marked xPyD in the Serving column, the best disaggregated unit filling one node (x prefill and y decode replicas), each at its highest-throughput batch size meeting the target on its own curve with a TTFT within the ceiling at the SLO's percentile (the analytic tail, shown in the TTFT column) (a point beyond the KV capacity, or one that reaches its throughput by queueing prefill, is never ranked). * FP4/INT4: accuracy depends on the checkpoint." }</p>
            if let (Some(base), Some(rank)) = (agent_base.clone(), agent_rank_now.clone()) {
                { agent_board(base, d.input.clone(), rank, seen) }
            }
            if agent_rank_now.is_none() {
                <p class="hint" role="status" id="leaderboard-status">{ status_text(&request, &status) }</p>
            }
            if let Some(board) = board.as_ref().filter(|_| agent_rank_now.is_none()) {
                { board_view(props, board, &shown, &sort, &chart) }
            }
        </section>
    }
}

/// Runs the board for `request` once the panel has been `seen`, a newer request dropping the
/// older run (`run`); `Waiting` without either.
#[hook]
fn use_board_run(
    status: &UseStateHandle<Status>,
    newest: &Rc<RefCell<u64>>,
    request: Option<LeaderboardRequest>,
    seen: bool,
) {
    let (status, newest) = (status.clone(), newest.clone());
    use_effect_with((request, seen), move |(request, seen)| {
        let generation = {
            let mut newest = newest.borrow_mut();
            *newest += 1;
            *newest
        };
        match (request, seen) {
            (Some(request), true) => {
                status.set(Status::Computing);
                wasm_bindgen_futures::spawn_local(run(
                    generation,
                    request.clone(),
                    newest,
                    status.setter(),
                ));
            }
            _ => status.set(Status::Waiting),
        }
    });
}

/// Sizes the chart's canvas for its bars and draws them when there is a board.
#[hook]
fn use_chart_draw(canvas: &NodeRef, bars: Vec<Bar>, title: String) {
    let canvas = canvas.clone();
    use_effect_with((bars, title), move |(bars, title)| {
        if let Some(canvas) = canvas.cast::<web_sys::HtmlCanvasElement>() {
            // The height through the CSSOM, not a `style=` attribute: the page's CSP has no
            // `style-src-attr 'unsafe-inline'`.
            let height = format!("{}px", chart_height_css_px(bars.len()));
            let _ = canvas.style().set_property("height", &height);
            if !title.is_empty() {
                let _ = draw(&canvas, title, bars);
            }
        }
    });
}

/// The bar chart of the board: its title, bars and canvas, and the model its files are named by.
struct BoardChart {
    title: String,
    bars: Vec<Bar>,
    canvas: NodeRef,
    model_id: String,
}

/// "Rank at" (tokens/s per user, the SLO's TPOT, or an agentic rank in agentic mode), the
/// interactivity and the TTFT ceiling.
fn board_inputs(
    props: &LeaderboardPanelProps,
    mode: &UseStateHandle<TargetMode>,
    agent_rank: &UseStateHandle<Option<String>>,
    agent_rank_now: Option<&str>,
    agentic: bool,
) -> Html {
    let d = &*props.decisions;
    let on_mode = {
        let (mode, agent_rank) = (mode.clone(), agent_rank.clone());
        Callback::from(move |value: String| {
            agent_rank.set(is_agent_rank(&value).then(|| value.clone()));
            mode.set(if value == "slo" {
                TargetMode::SloTpot
            } else {
                TargetMode::Interactivity
            })
        })
    };
    let slo_label = match d.input.slo_tpot_ms {
        Some(ms) => format!("the SLO's TPOT (≤ {} ms, mean)", format_number(ms)),
        None => "the SLO's TPOT (set one under Targets)".to_string(),
    };
    let mode_value = match (agent_rank_now, **mode) {
        (Some(rank), _) => rank,
        (None, TargetMode::Interactivity) => "interactivity",
        (None, TargetMode::SloTpot) => "slo",
    };
    let mut targets = vec![
        ("interactivity".to_string(), "tokens/s per user".to_string()),
        ("slo".to_string(), slo_label),
    ];
    if agentic {
        targets.extend(agent_targets());
    }
    html! {
        <div class="decision-fields">
            { select_field("leaderboard-target", "Rank at", &targets, mode_value, None, on_mode) }
            { NumberField { placeholder: Some("50"), ..decision_field(&props.decisions, &TOK_S_PER_USER) }.render() }
            { NumberField { placeholder: Some("2000"), ..decision_field(&props.decisions, &TTFT_CEILING_MS) }.render() }
        </div>
    }
}

/// The status line of the tok/s board: why it cannot rank, that it waits or computes, or what
/// it ranked.
fn status_text(request: &Result<LeaderboardRequest, String>, status: &Status) -> String {
    match (request, status) {
        (Err(why), _) => format!("Cannot rank yet: {why}."),
        (_, Status::Waiting) => "Waiting until this panel is in view.".to_string(),
        (_, Status::Computing) => "Computing…".to_string(),
        (_, Status::Failed(why)) => format!("The leaderboard could not run: {why}."),
        (Ok(r), Status::Done(b)) => format!(
            "{} configurations at {} with a P{} TTFT of at most {} ms ({} layouts swept). Catalog typical prices; GPUs without a price are ranked last, by throughput.",
            b.rows.len(),
            b.target.text(),
            r.ttft_percentile,
            format_number(r.ttft_ceiling_ms),
            b.searched
        ),
    }
}

/// A finished tok/s board: its downloads, the sortable table, the bar chart and the
/// configurations without a row.
fn board_view(
    props: &LeaderboardPanelProps,
    board: &Rc<Leaderboard>,
    shown: &[usize],
    sort: &UseStateHandle<Sort>,
    chart: &BoardChart,
) -> Html {
    let on_csv = {
        let (board, shown, model_id) = (board.clone(), shown.to_vec(), chart.model_id.clone());
        Callback::from(move |_: MouseEvent| {
            let _ = download_text(
                &format!("servecost-leaderboard-{model_id}.csv"),
                "text/csv",
                &csv(&board, &shown, &model_id),
            );
        })
    };
    let on_png = {
        let (canvas, title, model_id) = (
            chart.canvas.clone(),
            chart.title.clone(),
            chart.model_id.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let caption = [
                title.clone(),
                "servecost · catalog typical prices · grey: no price".to_string(),
            ];
            if let Some(canvas) = canvas.cast::<web_sys::HtmlCanvasElement>() {
                let _ = chart_png(&canvas, &caption, prefers_dark()).and_then(|url| {
                    download_data_url(&format!("servecost-leaderboard-{model_id}.png"), &url)
                });
            }
        })
    };
    let title = &chart.title;
    html! {
        <>
            <div class="panel-head">
                <button type="button" class="button" id="leaderboard-csv" onclick={on_csv}>{ "CSV of table" }</button>
                <button type="button" class="button" id="leaderboard-png" onclick={on_png}>{ "PNG of chart" }</button>
            </div>
            { board_table(&props.latest, board, shown, sort) }
            <div class="leaderboard-frame">
                <canvas id={LEADERBOARD_CHART_ID} ref={chart.canvas.clone()} role="img"
                    aria-label={format!("{title}; the first {} rows of the table as bars", chart.bars.len())}>
                    { title.clone() }
                </canvas>
            </div>
            if !board.missed.is_empty() {
                <details class="rejected" id="leaderboard-missed">
                    <summary>{ format!("No row ({})", board.missed.len()) }</summary>
                    <ul>
                        { for board.missed.iter().map(|m| html! {
                            <li>{ format!("{}, {}: {}", m.gpu, m.precision.id().to_ascii_uppercase(), m.reason) }</li>
                        }) }
                    </ul>
                </details>
            }
        </>
    }
}

/// The board's table (`#leaderboard`) in the order `shown`, its column buttons sorting it.
fn board_table(
    latest: &LatestState,
    board: &Rc<Leaderboard>,
    shown: &[usize],
    sort: &UseStateHandle<Sort>,
) -> Html {
    let header = |column: Column| {
        let (current, sort) = (**sort, sort.clone());
        let onclick = Callback::from(move |_: MouseEvent| sort.set(sort.clicked(column)));
        html! {
            <th scope="col" aria-sort={current.aria(column)} class={classes!((column == Column::Hardware).then_some("text-col"))}>
                <button type="button" class="sort-button" id={format!("leaderboard-sort-{}", column.id())} {onclick}>{ column.label() }</button>
            </th>
        }
    };
    html! {
        <div class="table-scroll">
            <table class="data-table phone-cards" id={LEADERBOARD_ID}>
                <caption class="visually-hidden">{ "Hardware leaderboard; the column buttons sort it" }</caption>
                <thead><tr>
                    { for Column::ALL.iter().map(|c| header(*c)) }
                    <th scope="col"><span class="visually-hidden">{ "Load" }</span></th>
                </tr></thead>
                <tbody>
                    { for shown.iter().filter_map(|&i| board.rows.get(i).map(|r| (i, r))).map(|(i, r)| board_row(i, r, latest.load_on_click(r.input.clone()))) }
                </tbody>
            </table>
        </div>
    }
}

/// One configuration of the board, `index` its place in the ranking.
fn board_row(index: usize, r: &Row, load: Callback<MouseEvent>) -> Html {
    html! {
        <tr data-gpu-id={r.gpu.clone()}>
            <td data-col={Column::Rank.id()} data-label={Column::Rank.label()}>{ index + 1 }</td>
            <th scope="row" class="text-col" data-col={Column::Hardware.id()}>{ r.gpu_name.clone() }</th>
            <td data-col={Column::Format.id()} data-label={Column::Format.label()}>{ format!("{}{}", r.precision.id().to_ascii_uppercase(), if r.quality_caveat { "*" } else { "" }) }</td>
            <td data-col={Column::Layout.id()} data-label={Column::Layout.label()}>{ r.layout.clone() }</td>
            <td data-col={Column::Serving.id()} data-label={Column::Serving.label()} data-serving={r.serving.id()}>{ r.serving_mark() }</td>
            <td data-col={Column::ReplicaGpus.id()} data-label={Column::ReplicaGpus.label()}>{ r.gpus }</td>
            <td data-col={Column::Batch.id()} data-label={Column::Batch.label()}>{ r.concurrency }</td>
            <td data-col={Column::TokSPerGpu.id()} data-label={Column::TokSPerGpu.label()}>{ format_number(r.output_tok_s_per_gpu) }</td>
            <td data-col={Column::TokSPerUser.id()} data-label={Column::TokSPerUser.label()}>{ format_number(r.tok_s_per_user) }</td>
            <td data-col={Column::Tpot.id()} data-label={Column::Tpot.label()}>{ format_number(r.tpot_ms) }</td>
            <td data-col={Column::Ttft.id()} data-label={Column::Ttft.label()}>{ format_number(r.ttft_tail_ms) }</td>
            <td data-col={Column::UsdPerM.id()} data-label={Column::UsdPerM.label()}>{ price_text(r) }</td>
            <td>{ load_button(index + 1, configuration_label(r), load) }</td>
        </tr>
    }
}

/// The agentic board's request base for `input` in agentic mode (issue 27 §4), else `None`.
#[cfg(feature = "session-model")]
fn agentic_base(input: &crate::scenario::ScenarioInput) -> Option<crate::scenario::ScenarioInput> {
    crate::page::leaderboard::agentic::agent_request(input)
}

/// Without the session model there is no agentic mode.
#[cfg(not(feature = "session-model"))]
fn agentic_base(_: &crate::scenario::ScenarioInput) -> Option<crate::scenario::ScenarioInput> {
    None
}

/// Whether a "Rank at" value is one of the agentic ranks.
#[cfg(feature = "session-model")]
fn is_agent_rank(value: &str) -> bool {
    crate::decide::agents::AgentRank::parse(value).is_some()
}

#[cfg(not(feature = "session-model"))]
fn is_agent_rank(_: &str) -> bool {
    false
}

/// The agentic ranks as "Rank at" choices.
#[cfg(feature = "session-model")]
fn agent_targets() -> Vec<(String, String)> {
    use crate::choice::Choice;
    use crate::decide::agents::AgentRank;
    AgentRank::CHOICES
        .iter()
        .map(|(id, label)| ((*id).to_string(), (*label).to_string()))
        .collect()
}

#[cfg(not(feature = "session-model"))]
fn agent_targets() -> Vec<(String, String)> {
    Vec::new()
}

#[cfg(feature = "session-model")]
fn agent_board(
    base: crate::scenario::ScenarioInput,
    decision: crate::scenario::DecisionInput,
    rank: String,
    seen: bool,
) -> Html {
    match crate::decide::agents::AgentRank::parse(&rank) {
        Some(rank) => html! { <agentic::AgentBoard {base} {decision} {rank} {seen} /> },
        None => Html::default(),
    }
}

#[cfg(not(feature = "session-model"))]
fn agent_board(
    _: crate::scenario::ScenarioInput,
    _: crate::scenario::DecisionInput,
    _: String,
    _: bool,
) -> Html {
    Html::default()
}

/// The agentic board (issue 27 §4): every catalog GPU × precision on one server at its best TP,
/// at the agentic tier, ranked by agents per MW or per $/hour (`decide::agents`), run a GPU ×
/// precision per browser task after a pause, like the tok/s board.
#[cfg(feature = "session-model")]
mod agentic;
