//! The leaderboard panel's data as plain Rust, tested natively: the request the page runs (the
//! scenario's model and workload, the target from the decision inputs), the table's sortable
//! columns, the CSV download and the bars of the chart (`decide::leaderboard` ranks;
//! `ui::tools::leaderboard` shows).

use crate::choice::Choice;
use crate::decide::leaderboard::{
    Leaderboard, LeaderboardInput, LeaderboardRequest, Row, DEFAULT_TOK_S_PER_USER,
};
use crate::present::chart::leaderboard::Bar;
use crate::present::format::{format_number, format_usd};
use crate::scenario::{DecisionInput, ScenarioError, ScenarioInput};
use std::cmp::Ordering;

/// Which target the panel ranks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TargetMode {
    /// The `tok-s-per-user` field (blank: `DEFAULT_TOK_S_PER_USER`).
    #[default]
    Interactivity,
    /// The SLO's TPOT (`slo-tpot-ms`), as a mean TPOT target.
    SloTpot,
}

/// The scenario with what a leaderboard searches cleared (GPU, count, layout, precision, price,
/// concurrency), so two scenarios that differ only in them give the same board.
fn searched_cleared(scenario: &ScenarioInput) -> ScenarioInput {
    let plain = ScenarioInput::default();
    ScenarioInput {
        gpu: plain.gpu,
        gpu_count: 1.0,
        tp: None,
        pp: None,
        ep: None,
        dp_attention: None,
        precision: plain.precision,
        usd_per_gpu_hour: None,
        concurrency: 1.0,
        ..scenario.clone()
    }
}

/// The request for the page's scenario and decision inputs. The searched fields of the base
/// (GPU, count, layout, precision, price, concurrency) are cleared, so two scenarios that differ
/// only in them give equal requests: the panel recomputes only when model, workload or target
/// change. Every catalog GPU is ranked (the plan's GPU list is the plan's).
pub fn request_for(
    scenario: &ScenarioInput,
    decision: &DecisionInput,
    mode: TargetMode,
) -> Result<LeaderboardRequest, ScenarioError> {
    let base = ScenarioInput {
        prefill_gpus: None,
        prefill_tp: None,
        prefill_ep: None,
        decode_gpus: None,
        decode_tp: None,
        decode_ep: None,
        ..searched_cleared(scenario)
    };
    let (tok_s_per_user, slo_tpot_ms) = match mode {
        TargetMode::Interactivity => (
            Some(decision.tok_s_per_user.unwrap_or(DEFAULT_TOK_S_PER_USER)),
            None,
        ),
        TargetMode::SloTpot => (None, decision.slo_tpot_ms),
    };
    if mode == TargetMode::SloTpot && slo_tpot_ms.is_none() {
        return Err(ScenarioError {
            field: crate::scenario::fields::SLO_TPOT_MS.key.into(),
            message: "set a TPOT target under Targets first".into(),
        });
    }
    LeaderboardRequest::try_from(LeaderboardInput {
        base,
        // Aggregated layouts and xPyD units both, whatever the scenario's own mode.
        serving: crate::decide::plan_disagg::ServingSearch::Any,
        tok_s_per_user,
        slo_tpot_ms,
        ttft_ceiling_ms: decision.ttft_ceiling_ms,
        ttft_percentile: Some(decision.slo_percentile),
        gpus_allowed: Vec::new(),
        all_layouts: false,
    })
}

/// A sortable column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Rank,
    Hardware,
    Format,
    Layout,
    Serving,
    ReplicaGpus,
    Batch,
    TokSPerGpu,
    TokSPerUser,
    Tpot,
    Ttft,
    UsdPerM,
}

impl Column {
    pub const ALL: [Column; 12] = [
        Column::Rank,
        Column::Hardware,
        Column::Format,
        Column::Layout,
        Column::Serving,
        Column::ReplicaGpus,
        Column::Batch,
        Column::TokSPerGpu,
        Column::TokSPerUser,
        Column::Tpot,
        Column::Ttft,
        Column::UsdPerM,
    ];

    /// Part of the header button's id (`leaderboard-sort-ID`).
    pub fn id(self) -> &'static str {
        match self {
            Column::Rank => "rank",
            Column::Hardware => "hardware",
            Column::Format => "format",
            Column::Layout => "layout",
            Column::Serving => crate::scenario::fields::SERVING.key,
            Column::ReplicaGpus => "replica-gpus",
            Column::Batch => "batch",
            Column::TokSPerGpu => "tok-s-gpu",
            Column::TokSPerUser => "tok-s-user",
            Column::Tpot => "tpot",
            Column::Ttft => "ttft",
            Column::UsdPerM => "usd-m",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Column::Rank => "#",
            Column::Hardware => "GPU",
            Column::Format => "Precision",
            Column::Layout => "Layout",
            Column::Serving => "Serving",
            Column::ReplicaGpus => "GPUs",
            Column::Batch => "Batch",
            Column::TokSPerGpu => "tok/s per GPU",
            Column::TokSPerUser => "tok/s per user",
            Column::Tpot => "TPOT ms",
            Column::Ttft => "tail TTFT ms",
            Column::UsdPerM => "$/M output",
        }
    }

    /// The direction a first click sorts in: the better end first (more throughput, less
    /// latency and cost), names A to Z.
    fn first_ascending(self) -> bool {
        !matches!(self, Column::TokSPerGpu | Column::TokSPerUser)
    }
}

/// The table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub column: Column,
    pub ascending: bool,
}

impl Default for Sort {
    /// The board's own ranking.
    fn default() -> Sort {
        Sort {
            column: Column::Rank,
            ascending: true,
        }
    }
}

impl Sort {
    /// After clicking `column`: the same column flips, another starts at its better end.
    pub fn clicked(self, column: Column) -> Sort {
        if column == self.column {
            Sort {
                column,
                ascending: !self.ascending,
            }
        } else {
            Sort {
                column,
                ascending: column.first_ascending(),
            }
        }
    }

    /// `aria-sort` of a column's header: "ascending", "descending" or "none".
    pub fn aria(self, column: Column) -> &'static str {
        match (column == self.column, self.ascending) {
            (false, _) => "none",
            (true, true) => "ascending",
            (true, false) => "descending",
        }
    }
}

fn compare(a: &Row, b: &Row, column: Column) -> Ordering {
    let number = |x: f64, y: f64| x.total_cmp(&y);
    match column {
        Column::Rank => Ordering::Equal,
        Column::Hardware => a.gpu_name.cmp(&b.gpu_name),
        Column::Format => a.precision.id().cmp(b.precision.id()),
        Column::Layout => a.layout.cmp(&b.layout),
        Column::Serving => a.serving_mark().cmp(&b.serving_mark()),
        Column::ReplicaGpus => a.gpus.cmp(&b.gpus),
        Column::Batch => a.concurrency.cmp(&b.concurrency),
        Column::TokSPerGpu => number(a.output_tok_s_per_gpu, b.output_tok_s_per_gpu),
        Column::TokSPerUser => number(a.tok_s_per_user, b.tok_s_per_user),
        Column::Tpot => number(a.tpot_ms, b.tpot_ms),
        Column::Ttft => number(a.ttft_tail_ms, b.ttft_tail_ms),
        Column::UsdPerM => match (a.usd_per_m_output, b.usd_per_m_output) {
            (Some(x), Some(y)) => number(x, y),
            _ => Ordering::Equal,
        },
    }
}

/// Indices into `rows` (in rank order) in the table's order; ties keep the rank order, and
/// rows without a price stay after the priced ones when sorting by $/M either way.
pub fn order(rows: &[Row], sort: Sort) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..rows.len()).collect();
    if sort.column == Column::Rank {
        if !sort.ascending {
            indices.reverse();
        }
        return indices;
    }
    indices.sort_by(|&i, &j| {
        let (Some(a), Some(b)) = (rows.get(i), rows.get(j)) else {
            return Ordering::Equal;
        };
        let unpriced_last = if sort.column == Column::UsdPerM {
            a.usd_per_m_output
                .is_none()
                .cmp(&b.usd_per_m_output.is_none())
        } else {
            Ordering::Equal
        };
        let by_column = compare(a, b, sort.column);
        unpriced_last
            .then(if sort.ascending {
                by_column
            } else {
                by_column.reverse()
            })
            .then(i.cmp(&j))
    });
    indices
}

/// "B200 · FP4 · TP 1", "H200 · FP8 · 3P5D P TP 1 + D TP 1".
pub fn configuration_label(row: &Row) -> String {
    let serving = match row.pools {
        Some(_) => format!("{} ", row.serving_mark()),
        None => String::new(),
    };
    format!(
        "{} · {}{} · {serving}{}",
        row.gpu_name,
        row.precision.id().to_ascii_uppercase(),
        if row.quality_caveat { "*" } else { "" },
        row.layout
    )
}

/// "$0.736" or "no price".
pub fn price_text(row: &Row) -> String {
    row.usd_text()
}

/// The chart's bars: the first `limit` rows in the table's order.
pub fn bars(rows: &[Row], order: &[usize], limit: usize) -> Vec<Bar> {
    order
        .iter()
        .filter_map(|&i| rows.get(i))
        .take(limit)
        .map(|row| Bar {
            label: configuration_label(row),
            value: row.output_tok_s_per_gpu,
            value_text: format!(
                "{} tok/s/GPU · {}",
                format_number(row.output_tok_s_per_gpu),
                match row.usd_per_m_output {
                    Some(usd) => format!("{}/M", format_usd(usd)),
                    None => "no price".to_string(),
                }
            ),
            priced: row.usd_per_m_output.is_some(),
        })
        .collect()
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A pool cell of a disaggregated row; empty for an aggregated one.
fn pool(row: &Row, cell: fn(&crate::decide::plan_disagg::PlanPools) -> u32) -> String {
    row.pools
        .as_ref()
        .map(|p| cell(p).to_string())
        .unwrap_or_default()
}

fn optional(value: Option<f64>) -> String {
    value.map(|v| format!("{v}")).unwrap_or_default()
}

/// The table as CSV, in the table's order, with the board's rank and the target on the first
/// line (a `#` comment); an unpriced row has empty price cells.
pub fn csv(board: &Leaderboard, order: &[usize], model: &str) -> String {
    let mut out = format!(
        "# servecost hardware leaderboard: {model} at {} (catalog typical prices)\n",
        board.target.text()
    );
    out.push_str("rank,gpu,gpu_name,precision,quality_caveat,layout,serving,prefill_replicas,prefill_tp,decode_replicas,decode_tp,gpus,tp,pp,ep,dp_attention,concurrency,output_tok_s_per_gpu,tok_s_per_user,tpot_ms,ttft_ms,ttft_tail_ms,usd_per_gpu_hour,usd_per_m_output,usd_per_m_output_low,usd_per_m_output_high\n");
    for &i in order {
        let Some(r) = board.rows.get(i) else {
            continue;
        };
        let cells = [
            (i + 1).to_string(),
            r.gpu.clone(),
            csv_field(&r.gpu_name),
            r.precision.id().to_string(),
            r.quality_caveat.to_string(),
            csv_field(&r.layout),
            r.serving.id().to_string(),
            pool(r, |p| p.prefill_replicas),
            pool(r, |p| p.prefill_tp),
            pool(r, |p| p.decode_replicas),
            pool(r, |p| p.decode_tp),
            r.gpus.to_string(),
            r.tp.to_string(),
            r.pp.to_string(),
            r.ep.to_string(),
            r.dp_attention.to_string(),
            r.concurrency.to_string(),
            format!("{}", r.output_tok_s_per_gpu),
            format!("{}", r.tok_s_per_user),
            format!("{}", r.tpot_ms),
            format!("{}", r.ttft_ms),
            format!("{}", r.ttft_tail_ms),
            optional(r.usd_per_gpu_hour),
            optional(r.usd_per_m_output),
            optional(r.usd_per_m_output_range.map(|(low, _)| low)),
            optional(r.usd_per_m_output_range.map(|(_, high)| high)),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::leaderboard::{leaderboard, Target};

    fn board() -> Leaderboard {
        let mut base = ScenarioInput {
            model: "llama-3.1-8b".into(),
            ..ScenarioInput::default()
        };
        base.apply_workload_preset("chat").expect("preset");
        let mut request = request_for(&base, &DecisionInput::default(), TargetMode::Interactivity)
            .expect("valid");
        request.gpus_allowed = vec!["h100-sxm".into(), "l40s".into(), "gb200".into()];
        leaderboard(&request).expect("ranks")
    }

    #[test]
    fn the_request_ignores_the_searched_fields_and_takes_the_target() {
        let decision = DecisionInput::default();
        let a = ScenarioInput::default();
        let b = ScenarioInput {
            gpu: "b200".into(),
            gpu_count: 4.0,
            tp: Some(2.0),
            precision: crate::physics::precision::Precision::Bf16,
            concurrency: 17.0,
            usd_per_gpu_hour: Some(9.0),
            ..ScenarioInput::default()
        };
        let mode = TargetMode::Interactivity;
        assert_eq!(
            request_for(&a, &decision, mode),
            request_for(&b, &decision, mode)
        );
        let longer = ScenarioInput {
            output_len: 999.0,
            ..ScenarioInput::default()
        };
        assert_ne!(
            request_for(&a, &decision, mode),
            request_for(&longer, &decision, mode)
        );
        let target = |d: &DecisionInput, mode| request_for(&a, d, mode).map(|r| r.target);
        assert_eq!(
            target(&decision, mode),
            Ok(Target::TokSPerUser(DEFAULT_TOK_S_PER_USER))
        );
        let set = DecisionInput {
            tok_s_per_user: Some(80.0),
            slo_tpot_ms: Some(25.0),
            ..DecisionInput::default()
        };
        assert_eq!(target(&set, mode), Ok(Target::TokSPerUser(80.0)));
        assert_eq!(target(&set, TargetMode::SloTpot), Ok(Target::TpotMs(25.0)));
        let field = target(&decision, TargetMode::SloTpot).map_err(|e| e.field);
        assert_eq!(field, Err("slo-tpot-ms".to_string()));
    }

    #[test]
    fn sorting_flips_keeps_unpriced_last_by_price_and_restores_the_rank() {
        let board = board();
        let rows = &board.rows;
        assert_eq!(
            order(rows, Sort::default()),
            (0..rows.len()).collect::<Vec<_>>()
        );
        let by_throughput = Sort::default().clicked(Column::TokSPerGpu);
        assert_eq!(by_throughput.aria(Column::TokSPerGpu), "descending");
        assert_eq!(by_throughput.aria(Column::Rank), "none");
        let down = order(rows, by_throughput);
        for pair in down.windows(2) {
            assert!(rows[pair[0]].output_tok_s_per_gpu >= rows[pair[1]].output_tok_s_per_gpu);
        }
        let up = order(rows, by_throughput.clicked(Column::TokSPerGpu));
        for pair in up.windows(2) {
            assert!(rows[pair[0]].output_tok_s_per_gpu <= rows[pair[1]].output_tok_s_per_gpu);
        }
        let by_price = Sort::default()
            .clicked(Column::UsdPerM)
            .clicked(Column::UsdPerM);
        assert!(!by_price.ascending);
        let priced: Vec<bool> = order(rows, by_price)
            .iter()
            .map(|&i| rows[i].usd_per_m_output.is_some())
            .collect();
        assert!(priced.windows(2).all(|w| w[0] || !w[1]), "{priced:?}");
        assert!(priced.contains(&false), "gb200 has no price");
    }

    #[test]
    fn csv_and_bars_follow_the_table_order() {
        let board = board();
        let shown = order(&board.rows, Sort::default().clicked(Column::Hardware));
        let text = csv(&board, &shown, "llama-3.1-8b");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("# servecost hardware leaderboard: llama-3.1-8b at ≥ 50"));
        assert_eq!(lines.len(), board.rows.len() + 2);
        let first = &board.rows[shown[0]];
        assert!(
            lines[2].starts_with(&format!("{},{},", shown[0] + 1, first.gpu)),
            "{}",
            lines[2]
        );
        let unpriced = lines
            .iter()
            .find(|l| l.contains(",gb200,"))
            .expect("gb200 row");
        assert!(unpriced.ends_with(",,"), "{unpriced}");
        let bars = bars(&board.rows, &shown, 3);
        assert_eq!(bars.len(), 3);
        assert_eq!(bars[0].label, configuration_label(first));
        assert!(board
            .rows
            .iter()
            .any(|r| r.quality_caveat && configuration_label(r).contains('*')));
    }
}

/// The agentic leaderboard (issue 27 §4), a GPU × precision at a time so the page can run it one
/// per browser task (`decide::agents::agent_leaderboard` restricted to one of each; its own
/// ranking merges them), and its rows as the table's text.
#[cfg(feature = "session-model")]
pub mod agentic {
    use crate::choice::Choice;
    use crate::decide::agents::{agent_leaderboard, AgentRank, AgentRow};
    /// The GPU × precision pairs the board tries, and its ranking, as the whole board's.
    pub use crate::decide::agents::{board_items as items, rank_agent_rows as rank_rows};
    use crate::physics::precision::Precision;
    use crate::present::format::{format_number, format_usd};
    use crate::scenario::{DecisionInput, ScenarioInput};

    /// The request of the page's scenario in agentic mode: the searched fields cleared (GPU,
    /// count, layout, precision, price, concurrency), as `request_for` does, so the board
    /// recomputes only when the model, the session shape or the tier change; `None` outside
    /// agentic mode.
    pub fn agent_request(scenario: &ScenarioInput) -> Option<ScenarioInput> {
        scenario.session_turns?;
        Some(super::searched_cleared(scenario))
    }

    /// One GPU × precision of the board: its row, or why it has none.
    pub fn part(
        base: &ScenarioInput,
        decision: &DecisionInput,
        rank: AgentRank,
        (gpu, precision): &(String, Precision),
    ) -> (Vec<AgentRow>, Vec<String>) {
        let one = DecisionInput {
            gpus_allowed: Some(vec![gpu.clone()]),
            precisions_allowed: vec![*precision],
            ..decision.clone()
        };
        agent_leaderboard(base, &one, rank)
    }

    /// The table's columns.
    pub const HEADS: [&str; 8] = [
        "GPU",
        "Precision · layout",
        "Agents",
        "Agents per GPU",
        "Agents per MW",
        "Agents per $/hour",
        "Hit rate",
        "Margin per GPU-hour",
    ];

    /// A row's cells under `HEADS`.
    pub fn cells(row: &AgentRow) -> [String; 8] {
        let or_dash = |value: Option<f64>, text: fn(f64) -> String| {
            value.map_or_else(|| "—".to_string(), text)
        };
        [
            row.gpu.clone(),
            format!(
                "{} · {} GPUs, {}",
                row.precision.id().to_ascii_uppercase(),
                row.gpus,
                row.layout
            ),
            row.agents.to_string(),
            format_number(row.agents_per_gpu),
            or_dash(row.agents_per_mw, format_number),
            or_dash(row.agents_per_usd_hour, format_number),
            format!("{:.0} %", row.hit_rate * 100.0),
            or_dash(row.margin_usd_per_gpu_hour, format_usd),
        ]
    }
}
