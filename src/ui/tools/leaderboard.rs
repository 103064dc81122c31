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

use crate::decide::leaderboard::{rank, rows_for, work, Leaderboard, LeaderboardRequest};
use crate::page::decision_data::ScenarioDecision;
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::leaderboard::{
    bars, configuration_label, csv, order, price_text, request_for, Column, Sort, TargetMode,
};
use crate::page::state::{Action, Shared};
use crate::present::chart::leaderboard::{chart_height_css_px, draw_leaderboard, Bar};
use crate::present::report::format_number;
use crate::scenario::fields::{Field, TOK_S_PER_USER, TTFT_CEILING_MS};
use crate::ui::platform::canvas_backend::{prefers_dark, prepare};
use crate::ui::platform::download::{chart_png, download_data_url, download_text};
use crate::ui::tools::decision_panels::LatestState;
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
    {
        let (status, newest) = (status.clone(), newest.clone());
        use_effect_with((request.clone().ok(), seen), move |(request, seen)| {
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
    let title = board
        .as_ref()
        .map(|b| format!("{model_name}: output tok/s per GPU at {}", b.target.text()))
        .unwrap_or_default();
    let chart_bars = board
        .as_ref()
        .map(|b| bars(&b.rows, &shown, CHART_BARS))
        .unwrap_or_default();
    {
        let canvas = canvas.clone();
        use_effect_with((chart_bars.clone(), title.clone()), move |(bars, title)| {
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
    let edit = |field: &'static Field| {
        let decisions = props.decisions.clone();
        Callback::from(move |text: String| decisions.dispatch(DecisionAction::Edit(field, text)))
    };
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
    let model_id = view
        .as_ref()
        .map(|v| v.scenario.model.id.clone())
        .unwrap_or_default();
    let on_csv = {
        let (board, shown, model_id) = (board.clone(), shown.clone(), model_id.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(board) = &board {
                let _ = download_text(
                    &format!("servecost-leaderboard-{model_id}.csv"),
                    "text/csv",
                    &csv(board, &shown, &model_id),
                );
            }
        })
    };
    let on_png = {
        let (canvas, title, model_id) = (canvas.clone(), title.clone(), model_id.clone());
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
    let load = |row_index: usize| {
        let latest = props.latest.clone();
        let input = board
            .as_ref()
            .and_then(|b| b.rows.get(row_index))
            .map(|r| r.input.clone());
        Callback::from(move |_: MouseEvent| {
            let (Some(state), Some(input)) = (latest.handle(), input.clone()) else {
                return;
            };
            crate::ui::platform::perf::mark_update_start();
            let mut view = state.view_state();
            view.scenario = input;
            state.dispatch(Action::Load(Box::new(view)));
        })
    };
    let header = |column: Column| {
        let (current, sort) = (*sort, sort.clone());
        let onclick = Callback::from(move |_: MouseEvent| sort.set(sort.clicked(column)));
        html! {
            <th scope="col" aria-sort={current.aria(column)} class={classes!((column == Column::Hardware).then_some("text-col"))}>
                <button type="button" class="sort-button" id={format!("leaderboard-sort-{}", column.id())} {onclick}>{ column.label() }</button>
            </th>
        }
    };
    let status_text = match (&request, &*status) {
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
    };
    let slo_label = match d.input.slo_tpot_ms {
        Some(ms) => format!("the SLO's TPOT (≤ {} ms, mean)", format_number(ms)),
        None => "the SLO's TPOT (set one under Targets)".to_string(),
    };
    let mode_value = match (&agent_rank_now, *mode) {
        (Some(rank), _) => rank.as_str(),
        (None, TargetMode::Interactivity) => "interactivity",
        (None, TargetMode::SloTpot) => "slo",
    };
    let mut targets = vec![
        ("interactivity".to_string(), "tokens/s per user".to_string()),
        ("slo".to_string(), slo_label),
    ];
    if agent_base.is_some() {
        targets.extend(agent_targets());
    }
    let computing = matches!(*status, Status::Computing);
    html! {
        <section class="panel decision leaderboard-panel" ref={panel} aria-labelledby="leaderboard-title" aria-busy={computing.then_some("true")}>
            <h2 id="leaderboard-title">{ "Hardware leaderboard at a fixed interactivity" }</h2>
            <div class="decision-fields">
                { select_field("leaderboard-target", "Rank at", &targets, mode_value, None, on_mode) }
                { NumberField { placeholder: Some("50"), ..NumberField::of(&TOK_S_PER_USER, d.text(&TOK_S_PER_USER).to_string(), d.error(&TOK_S_PER_USER).map(str::to_string), edit(&TOK_S_PER_USER)) }.render() }
                { NumberField { placeholder: Some("2000"), ..NumberField::of(&TTFT_CEILING_MS, d.text(&TTFT_CEILING_MS).to_string(), d.error(&TTFT_CEILING_MS).map(str::to_string), edit(&TTFT_CEILING_MS)) }.render() }
            </div>
            <p class="hint">{ "Every catalog GPU × precision × layout (TP 1–8; for MoE models also EP and DEP; several nodes only when one does not hold the model) and, marked xPyD in the Serving column, the best disaggregated unit filling one node (x prefill and y decode replicas), each at its highest-throughput batch size meeting the target on its own curve with a TTFT within the ceiling at the SLO's percentile (the analytic tail, shown in the TTFT column) (a point beyond the KV capacity, or one that reaches its throughput by queueing prefill, is never ranked). * FP4/INT4: accuracy depends on the checkpoint." }</p>
            if let (Some(base), Some(rank)) = (agent_base.clone(), agent_rank_now.clone()) {
                { agent_board(base, d.input.clone(), rank, seen) }
            }
            if agent_rank_now.is_none() {
                <p class="hint" role="status" id="leaderboard-status">{ status_text }</p>
            }
            if let Some(board) = board.as_ref().filter(|_| agent_rank_now.is_none()) {
                <div class="panel-head">
                    <button type="button" class="button" id="leaderboard-csv" onclick={on_csv}>{ "CSV of table" }</button>
                    <button type="button" class="button" id="leaderboard-png" onclick={on_png}>{ "PNG of chart" }</button>
                </div>
                <div class="table-scroll">
                    <table class="data-table phone-cards" id={LEADERBOARD_ID}>
                        <caption class="visually-hidden">{ "Hardware leaderboard; the column buttons sort it" }</caption>
                        <thead><tr>
                            { for Column::ALL.iter().map(|c| header(*c)) }
                            <th scope="col"><span class="visually-hidden">{ "Load" }</span></th>
                        </tr></thead>
                        <tbody>
                            { for shown.iter().filter_map(|&i| board.rows.get(i).map(|r| (i, r))).map(|(i, r)| html! {
                                <tr data-gpu-id={r.gpu.clone()}>
                                    <td data-col={Column::Rank.id()} data-label={Column::Rank.label()}>{ i + 1 }</td>
                                    <th scope="row" class="text-col" data-col={Column::Hardware.id()}>{ r.gpu_name.clone() }</th>
                                    <td data-col={Column::Format.id()} data-label={Column::Format.label()}>{ format!("{}{}", r.precision.to_ascii_uppercase(), if r.quality_caveat { "*" } else { "" }) }</td>
                                    <td data-col={Column::Layout.id()} data-label={Column::Layout.label()}>{ r.layout.clone() }</td>
                                    <td data-col={Column::Serving.id()} data-label={Column::Serving.label()} data-serving={r.serving}>{ r.serving_mark() }</td>
                                    <td data-col={Column::ReplicaGpus.id()} data-label={Column::ReplicaGpus.label()}>{ r.gpus }</td>
                                    <td data-col={Column::Batch.id()} data-label={Column::Batch.label()}>{ r.concurrency }</td>
                                    <td data-col={Column::TokSPerGpu.id()} data-label={Column::TokSPerGpu.label()}>{ format_number(r.output_tok_s_per_gpu) }</td>
                                    <td data-col={Column::TokSPerUser.id()} data-label={Column::TokSPerUser.label()}>{ format_number(r.tok_s_per_user) }</td>
                                    <td data-col={Column::Tpot.id()} data-label={Column::Tpot.label()}>{ format_number(r.tpot_ms) }</td>
                                    <td data-col={Column::Ttft.id()} data-label={Column::Ttft.label()}>{ format_number(r.ttft_tail_ms) }</td>
                                    <td data-col={Column::UsdPerM.id()} data-label={Column::UsdPerM.label()}>{ price_text(r) }</td>
                                    <td>{ load_button(i + 1, configuration_label(r), load(i)) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
                <div class="leaderboard-frame">
                    <canvas id={LEADERBOARD_CHART_ID} ref={canvas.clone()} role="img"
                        aria-label={format!("{title}; the first {} rows of the table as bars", chart_bars.len())}>
                        { title.clone() }
                    </canvas>
                </div>
                if !board.missed.is_empty() {
                    <details class="rejected" id="leaderboard-missed">
                        <summary>{ format!("No row ({})", board.missed.len()) }</summary>
                        <ul>
                            { for board.missed.iter().map(|m| html! {
                                <li>{ format!("{}, {}: {}", m.gpu, m.precision.to_ascii_uppercase(), m.reason) }</li>
                            }) }
                        </ul>
                    </details>
                }
            }
        </section>
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
    use crate::decide::agents::AgentRank;
    AgentRank::CHOICES
        .iter()
        .map(|(id, rank)| {
            let text = match rank {
                AgentRank::AgentsPerMw => "agents per MW at the agentic tier",
                AgentRank::AgentsPerUsd => "agents per $/hour at the agentic tier",
            };
            ((*id).to_string(), text.to_string())
        })
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
mod agentic {
    use crate::decide::agents::{AgentRank, AgentRow};
    use crate::page::leaderboard::agentic::{cells, items, part, rank_rows, HEADS};
    use crate::scenario::{DecisionInput, ScenarioInput};
    use crate::ui::tools::sim_panel::{sleep_ms, DEBOUNCE_MS};
    use std::cell::RefCell;
    use std::rc::Rc;
    use yew::prelude::*;

    /// Id of the agentic board's table.
    pub const AGENT_BOARD_ID: &str = "agent-leaderboard";

    #[derive(Properties, PartialEq)]
    pub struct AgentBoardProps {
        pub base: ScenarioInput,
        pub decision: DecisionInput,
        pub rank: AgentRank,
        /// The panel has come near the viewport.
        pub seen: bool,
    }

    #[derive(Clone, PartialEq)]
    enum Board {
        Waiting,
        Computing(usize, usize),
        Done(Rc<Vec<AgentRow>>, Rc<Vec<String>>),
    }

    async fn run(
        generation: u64,
        props: (ScenarioInput, DecisionInput, AgentRank),
        newest: Rc<RefCell<u64>>,
        board: UseStateSetter<Board>,
    ) {
        let current = || *newest.borrow() == generation;
        let (base, decision, rank) = props;
        sleep_ms(DEBOUNCE_MS).await;
        let work = items(&decision);
        let (mut rows, mut skipped) = (Vec::new(), Vec::new());
        for (done, item) in work.iter().enumerate() {
            sleep_ms(0).await;
            if !current() {
                return;
            }
            board.set(Board::Computing(done, work.len()));
            let (found, why) = part(&base, &decision, rank, item);
            rows.extend(found);
            skipped.extend(why);
        }
        rank_rows(&mut rows, rank);
        board.set(Board::Done(Rc::new(rows), Rc::new(skipped)));
    }

    #[function_component(AgentBoard)]
    pub fn agent_board(props: &AgentBoardProps) -> Html {
        let board = use_state(|| Board::Waiting);
        let newest = use_mut_ref(|| 0u64);
        {
            let (board, newest) = (board.clone(), newest.clone());
            use_effect_with(
                (
                    props.base.clone(),
                    props.decision.clone(),
                    props.rank,
                    props.seen,
                ),
                move |(base, decision, rank, seen)| {
                    let generation = {
                        let mut newest = newest.borrow_mut();
                        *newest += 1;
                        *newest
                    };
                    if *seen {
                        board.set(Board::Computing(0, 0));
                        wasm_bindgen_futures::spawn_local(run(
                            generation,
                            (base.clone(), decision.clone(), *rank),
                            newest,
                            board.setter(),
                        ));
                    } else {
                        board.set(Board::Waiting);
                    }
                },
            );
        }
        let tier = crate::decide::agents::tier_of(&props.decision);
        let tier_text = format!(
            "TTFT ≤ {} ms and ≥ {} tok/s per user at P{:.0}",
            crate::present::report::format_number(tier.ttft_ms),
            crate::present::report::format_number(tier.tok_s_per_user),
            tier.percentile.value()
        );
        let by = match props.rank {
            AgentRank::AgentsPerMw => "agents per MW (catalog TDP × PUE, or the measured watts)",
            AgentRank::AgentsPerUsd => "agents per $/hour of GPUs (catalog typical prices)",
        };
        let status = match &*board {
            Board::Waiting => "Waiting until this panel is in view.".to_string(),
            Board::Computing(done, of) => format!("Computing… ({done} of {of} GPU × precision)"),
            Board::Done(rows, skipped) => format!(
                "{} configurations (one server each, the best TP of 1, 2, 4 and 8) at {tier_text}, ranked by {by}; {} without a row.",
                rows.len(),
                skipped.len()
            ),
        };
        html! {
            <>
                <p class="hint" role="status" id="leaderboard-status">{ status }</p>
                if let Board::Done(rows, skipped) = &*board {
                    <div class="table-scroll">
                        <table class="data-table phone-cards" id={AGENT_BOARD_ID}>
                            <caption class="visually-hidden">{ format!("Agentic leaderboard by {by}") }</caption>
                            <thead><tr>
                                <th scope="col">{ "#" }</th>
                                { for HEADS.iter().map(|h| html! { <th scope="col">{ *h }</th> }) }
                            </tr></thead>
                            <tbody>
                                { for rows.iter().enumerate().map(|(i, row)| {
                                    let cells = cells(row);
                                    html! {
                                        <tr data-gpu-id={row.gpu.clone()}>
                                            <td data-label="#">{ i + 1 }</td>
                                            { for cells.iter().zip(HEADS).map(|(cell, head)| html! { <td data-label={head}>{ cell.clone() }</td> }) }
                                        </tr>
                                    }
                                }) }
                            </tbody>
                        </table>
                    </div>
                    if !skipped.is_empty() {
                        <details class="rejected">
                            <summary>{ format!("No row ({})", skipped.len()) }</summary>
                            <ul>{ for skipped.iter().map(|s| html! { <li>{ s.clone() }</li> }) }</ul>
                        </details>
                    }
                }
            </>
        }
    }
}
