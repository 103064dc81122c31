//! The agentic board (issue 27 §4): every catalog GPU × precision on one server at its best TP,
//! at the agentic tier, ranked by agents per MW or per $/hour (`decide::agents`), run a GPU ×
//! precision per browser task after a pause, like the tok/s board.

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
        crate::present::format::format_number(tier.ttft_ms),
        crate::present::format::format_number(tier.tok_s_per_user),
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
