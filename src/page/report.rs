//! The client report (issue 13 §6): one self-contained HTML file a sales engineer forwards after
//! a meeting. It holds the scenario and every decision input, the chart (inline SVG), the
//! numbers at the chosen batch size, the SLO point with its simulated tails, the traffic sizing,
//! the plan ranking and why the other configurations lost, the hardware leaderboard, the API comparison, and every
//! assumption with its source and date.
//!
//! Self-contained on purpose: inline styles (one `<style>` element) and inline SVG, no script,
//! no external request (links are text a reader may follow, never fetched). The print
//! stylesheet sets A4 and a small type scale so the report prints in at most three pages.
//!
//! Pure: everything is recomputed from the view's inputs by the same model the page runs
//! (`Scenario::try_from`, `sweep`, `evaluate`, `decide::*`); the caller gives the date and the
//! link (the core has no clock, and the page knows its own address). The plan is the Plan
//! panel's search (analytic ranking, the cheapest re-searched with simulated tails, as
//! `servecost plan` does) over the GPUs the decision inputs allow, at the decision inputs' traffic.

use crate::choice::Choice;
use crate::decide::leaderboard::leaderboard;
use crate::decide::plan::{plan, Lost, Plan};
use crate::decide::pricing::{price_provenance, PointCost};
use crate::decide::sizing::{rules_sentence, SizingRules};
use crate::decide::slo_sim::simulated_tail;
use crate::model::expected_error::{plus_minus, point_errors, throughput_by_regime, Class};
use crate::model::pareto::Curve;
use crate::model::techniques::TechniqueStudy;
use crate::model::{evaluate, sweep, OperatingPoint};
use crate::page::decision_data::ScenarioDecision;
use crate::page::decisions::{self, plan_price_tier, plan_request};
use crate::page::leaderboard::{request_for, TargetMode};
use crate::physics::economics::PriceTier;
use crate::present::assumptions::assumptions;
use crate::present::chart::{
    draw_pareto_layered, ChartOptions, Layers, Marker, OtherCurve, Overlay, Projection,
};
use crate::present::format::{format_cost, format_number, format_usd, usd_amount};
use crate::scenario::fields::{Group, FIELDS};
use crate::scenario::Scenario;
use crate::scenario::SloSettings;
use crate::share::ViewState;

/// Candidates the report's plan lists.
pub const REPORT_PLAN_TOP: usize = 5;
/// Rejected configurations the report lists (the rest are counted).
pub const REPORT_REJECTED: usize = 8;
/// The chart's size in the report, CSS pixels (fits an A4 column at 96 dpi).
pub const REPORT_CHART_PX: (u32, u32) = (680, 380);

/// What the caller knows that the model does not.
#[derive(Debug, Clone, Default)]
pub struct ReportContext {
    /// When the report was made, as the reader should see it (e.g. "2026-12-01 15:40 UTC").
    pub generated: String,
    /// The link that reopens this view.
    pub link: String,
}

/// `text` escaped for HTML text and attribute values (`& < > " '`).
pub fn escape(text: &str) -> String {
    crate::share::escape_attribute(text)
}

/// The report for `view`, or why the scenario could not be evaluated (the field and message).
pub fn client_report(view: &ViewState, context: &ReportContext) -> Result<String, String> {
    let scenario = Scenario::try_from(view.scenario.clone())
        .map_err(|e| format!("{}: {}", e.field, e.message))?;
    // Judged once, by the function the page's decision panels use (`decision_data::decide`: SLO
    // sweep, the one sizing, goodput, auto's layout), and read by every section below; the
    // scenario runs the layout auto chose, as the page draws it.
    let slo = SloSettings::try_from(view.decision.slo_input())
        .ok()
        .and_then(|s| s.slo);
    let (scenario, decided) = crate::page::decision_data::decide_with_layout(
        scenario,
        crate::page::decision_data::Demand::of(&view.decision, slo),
    );
    let point = evaluate(&scenario);
    let curve = sweep(&scenario);
    let chart = chart_svg(&scenario, &curve, &point, view)?;
    let mut body = String::new();
    body.push_str(&header(&scenario, &point, context));
    body.push_str(&numbers(&scenario, &point, view));
    body.push_str(&format!(
        "<section><h2>Throughput vs. interactivity</h2><figure class=\"chart\">{chart}\
         <figcaption>The model's curve for this configuration; the marker is the batch size \
         above ({} in flight).</figcaption></figure></section>",
        point.concurrency
    ));
    let agentic = agents_section(&scenario, view);
    body.push_str(&agentic);
    body.push_str(&slo_section(&scenario, &point, view, &decided));
    body.push_str(&pins_section(&scenario, view, slo, &decided));
    // In agentic mode the agentic section sizes the fleet and compares with API prices per
    // agent; the plan, the tok/s leaderboard and the API comparison of single requests give
    // way to it (the page keeps them), so the report stays within three pages.
    if agentic.is_empty() {
        body.push_str(&plan_section(&scenario, view));
        body.push_str(&leaderboard_section(&scenario, view));
        body.push_str(&api_section(&scenario, &point, view, &decided));
    }
    body.push_str(&inputs_section(view));
    body.push_str(&assumptions_section(&scenario, &point));
    Ok(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>{body}</body></html>\n",
        escape(&title(&scenario))
    ))
}

/// The page's chart as inline SVG: the same curve, technique ladder and axes as the explorer.
fn chart_svg(
    scenario: &Scenario,
    curve: &Curve,
    point: &OperatingPoint,
    view: &ViewState,
) -> Result<String, String> {
    let study = TechniqueStudy::new(scenario);
    let others: Vec<OtherCurve<'_>> = study.background.iter().map(OtherCurve::from).collect();
    let label = format!("{} (current)", study.current_label);
    let short = format!("{} (current)", study.current.short_label());
    let layers = Layers {
        projection: Projection {
            x: view.chart.x,
            y: view.chart.y,
        },
        others: &others,
        main: Some((label.as_str(), short.as_str(), study.current.index())),
        error_band: throughput_by_regime(scenario),
    };
    let mut svg = String::new();
    {
        let root = crate::present::chart::svg::svg_area(&mut svg, REPORT_CHART_PX);
        draw_pareto_layered(
            root,
            curve,
            &Marker::from(point),
            &Overlay::default(),
            &layers,
            &ChartOptions::default(),
        )?;
    }
    Ok(svg)
}

fn title(scenario: &Scenario) -> String {
    format!(
        "servecost report: {} on {} × {}",
        scenario.model.name,
        scenario.total_gpus(),
        scenario.gpu.name
    )
}

fn header(scenario: &Scenario, point: &OperatingPoint, context: &ReportContext) -> String {
    let link = if context.link.is_empty() {
        String::new()
    } else {
        format!(
            "<p class=\"link\">Reopen this view: <a href=\"{0}\">{0}</a></p>",
            escape(&context.link)
        )
    };
    format!(
        "<header><h1>{}</h1><p class=\"meta\">Generated {} by servecost, an analytic model of LLM \
         serving with a discrete-event simulator; {} requests in flight, {} input / {} output \
         tokens per request. Every number is the model's, not a measurement.</p>{link}</header>",
        escape(&title(scenario)),
        escape(&context.generated),
        point.concurrency,
        format_number(scenario.input.input_len),
        format_number(scenario.input.output_len),
    )
}

fn row(label: &str, value: &str) -> String {
    format!(
        "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
        escape(label),
        escape(value)
    )
}

fn numbers(scenario: &Scenario, point: &OperatingPoint, view: &ViewState) -> String {
    let blend = view
        .decision
        .blend
        .input_per_output(scenario.input.input_len, scenario.input.output_len);
    let blended = PointCost::new(scenario, point, blend, None)
        .map(|cost| format_usd(cost.at_capacity().usd_per_m_blended));
    // Each number with its expected error (the cross-validated band of its class,
    // `model::expected_error`); "unbounded" when the class's throughput error reaches 100 %.
    let errors = point_errors(Class::of(scenario, point));
    let with = |text: String, pct: Option<f64>| match pct {
        Some(pct) => format!("{text} {}", plus_minus(pct)),
        None => text,
    };
    let tok_s = errors.output_tok_s_error_pct;
    let rows = [
        row(
            "Output tokens/s (all GPUs)",
            &with(format_number(point.output_tok_s), tok_s),
        ),
        row(
            "Output tokens/s per GPU",
            &with(format_number(point.output_tok_s_per_gpu), tok_s),
        ),
        row("Tokens/s per user", &format_number(point.tok_s_per_user)),
        // The same scenario under the other deployment (issue 25 §2): a tuned number is never
        // read as a day-one number.
        row(
            &format!("Deployment: {}", scenario.profile.deployment.label()),
            &crate::decide::deployment::other_scenario(scenario).map_or_else(
                || "the other deployment does not validate".to_string(),
                |other| crate::decide::deployment::contrast(&other, point).sentence(),
            ),
        ),
        row(
            "TPOT (mean)",
            &with(
                format!("{} ms", format_number(point.tpot_ms)),
                errors.tpot_ms_error_pct,
            ),
        ),
        row(
            "TTFT (mean)",
            &with(
                format!("{} ms", format_number(point.ttft_ms)),
                errors.ttft_ms_error_pct,
            ),
        ),
        row(
            "$ per million output tokens",
            &match (point.usd_per_m_output, errors.usd_per_m_output_error_pct) {
                (Some(_), Some(pct)) => format!(
                    "{} (up to +{:.0} %)",
                    format_cost(point.usd_per_m_output),
                    pct
                ),
                _ => format_cost(point.usd_per_m_output),
            },
        ),
        row(
            &format!(
                "$ per million tokens, blended ({})",
                view.decision
                    .blend
                    .label(scenario.input.input_len, scenario.input.output_len)
            ),
            &blended.unwrap_or_else(|| "no price".into()),
        ),
        row("Price per GPU-hour", &price_text(scenario, view)),
    ];
    let basis = crate::model::expected_error::band(
        Class::of(scenario, point),
        crate::model::expected_error::Metric::OutputTokS,
    )
    .map_or_else(String::new, |b| {
        format!(
            "<p class=\"meta\">± is the expected error: the 68th percentile of the model's \
             cross-validated errors on published measurements of its class ({}).</p>",
            escape(&b.source())
        )
    });
    format!(
        "<section><h2>At {} in flight</h2><table class=\"numbers\">{}</table>{basis}{}</section>",
        point.concurrency,
        rows.concat(),
        warnings(&point.warnings)
    )
}

fn warnings(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let items: String = warnings
        .iter()
        .map(|w| format!("<li>{}</li>", escape(w)))
        .collect();
    format!("<ul class=\"warnings\">{items}</ul>")
}

/// The price in use and where it comes from (`pricing::price_provenance`: a catalog tier and
/// its date, the owned price, or "your price").
fn price_text(scenario: &Scenario, view: &ViewState) -> String {
    let gpu = &scenario.gpu;
    match scenario.usd_per_gpu_hour {
        None => format!("no price: the catalog has no rental price for {}", gpu.name),
        Some(usd) => {
            let ownership = view.decision.ownership();
            let owned = PriceTier::Owned.price_with(gpu, ownership.as_ref());
            // As typed or quoted (3.125, not 3 significant figures' 3.12).
            format!("${usd} ({})", price_provenance(gpu, usd, owned))
        }
    }
}

fn slo_section(
    scenario: &Scenario,
    point: &OperatingPoint,
    view: &ViewState,
    decided: &ScenarioDecision,
) -> String {
    let decision = &view.decision;
    let slo = decided.slo;
    let percentile = decision.slo_percentile;
    let mut rows = Vec::new();
    let target = match (&slo, decision.slo_ttft_ms, decision.slo_tpot_ms) {
        (None, _, _) => "none set (the plan maximises throughput)".to_string(),
        (Some(_), ttft, tpot) => format!(
            "P{} TTFT ≤ {} and TPOT ≤ {}",
            format_number(percentile),
            ttft.map_or_else(|| "any".into(), |v| format!("{} ms", format_number(v))),
            tpot.map_or_else(|| "any".into(), |v| format!("{} ms", format_number(v)))
        ),
    };
    rows.push(row("SLO", &target));
    if let Some(found) = &decided.sweep {
        match &found.best {
            Some((best, tail)) => rows.push(row(
                "Best batch size meeting it (analytic tails)",
                &format!(
                    "{} in flight: {} output tok/s, P{} TTFT {} ms, TPOT {} ms",
                    best.concurrency,
                    format_number(best.output_tok_s),
                    format_number(percentile),
                    format_number(tail.ttft_ms),
                    format_number(tail.tpot_ms)
                ),
            )),
            None => rows.push(row(
                "Best batch size meeting it",
                "no batch size of this configuration meets it",
            )),
        }
    }
    match simulated_tail(scenario, percentile) {
        Some((tail, _)) => rows.push(row(
            &format!(
                "Simulated tails at {} in flight (closed loop)",
                point.concurrency
            ),
            &format!(
                "P{} TTFT {} ms, TPOT {} ms, {} output tok/s{}",
                format_number(tail.percentile),
                format_number(tail.ttft_ms),
                format_number(tail.tpot_ms),
                format_number(tail.output_tok_s),
                if tail.low_confidence {
                    " (low confidence: short run)"
                } else {
                    ""
                }
            ),
        )),
        None => rows.push(row(
            "Simulated tails",
            "the simulator could not run this scenario",
        )),
    }
    // Goodput, named as vLLM names its objectives (issue 26 §8, `decide::goodput`).
    if let Some(slo) = &slo {
        if let Some(goodput) = decided.goodput {
            rows.push(row(
                "Max req/s under the SLO (simulated goodput)",
                &goodput.sentence(slo),
            ));
        }
        if let Some(attainment) = decided.attainment_at_traffic {
            rows.push(row(
                "SLO attainment at the traffic (simulated)",
                &format!(
                    "{:.1} % of requests meet ttft_ms ≤ {} and tpot_ms ≤ {}",
                    attainment * 100.0,
                    format_number(slo.ttft_ms),
                    format_number(slo.tpot_ms)
                ),
            ));
        }
    }
    if let (Some(req_s), Some(traffic_tok_s)) = (traffic_req_s(view), traffic_tok_s(view)) {
        let rules = SizingRules::of(decision);
        rows.push(row(
            "Traffic",
            &format!(
                "{} requests/s ({} output tok/s)",
                format_number(req_s),
                format_number(traffic_tok_s)
            ),
        ));
        match &decided.sized {
            Some(Ok(sized)) => {
                let s = sized.sizing;
                rows.push(row(
                    "This configuration for that traffic",
                    &format!(
                        "{} replicas, {} GPUs, {} % utilized, {} per month, at {} in flight per replica. {}{}",
                        s.replicas,
                        s.gpus,
                        format_number(s.utilization * 100.0),
                        s.usd_per_month.map_or_else(|| "no price".into(), usd_amount),
                        sized.point.concurrency,
                        rules_sentence(&rules, sized),
                        sized
                            .layout
                            .as_ref()
                            .map(|l| format!(" {l}."))
                            .unwrap_or_default()
                            + &sized
                            .range.as_ref()
                            .map(|r| format!(" Range: {}.", r.sentence()))
                            .unwrap_or_default()
                    ),
                ))
            }
            Some(Err(why)) => rows.push(row(
                "This configuration for that traffic",
                &format!("none: {why}"),
            )),
            None => {}
        }
    }
    format!(
        "<section><h2>Service level and traffic</h2><table>{}</table></section>",
        rows.concat()
    )
}

/// Requests/s of the decision inputs' traffic, if one is set (`page::decisions::traffic_req_s`).
fn traffic_req_s(view: &ViewState) -> Option<f64> {
    decisions::traffic_req_s(
        &view.decision,
        view.scenario.input_len,
        view.scenario.output_len,
    )
}

/// Output tokens/s of the decision inputs' traffic, if one is set (`scenario::Traffic`).
fn traffic_tok_s(view: &ViewState) -> Option<f64> {
    view.decision
        .traffic()?
        .output_tok_s(view.scenario.input_len, view.scenario.output_len)
}

fn plan_section(scenario: &Scenario, view: &ViewState) -> String {
    let Some(planned) = traffic_tok_s(view).map(|tok_s| run_plan(scenario, view, tok_s)) else {
        return "<section><h2>Plan</h2><p>No traffic level is set, so no deployment was \
                planned. Set one (traffic) to rank configurations by cost.</p></section>"
            .into();
    };
    let found = match planned {
        Ok(found) => found,
        Err(why) => {
            return format!(
                "<section><h2>Plan</h2><p>The plan could not run: {}</p></section>",
                escape(&why)
            )
        }
    };
    let rows: String = found
        .candidates
        .iter()
        .enumerate()
        .map(|(rank, c)| {
            let p = c.percentile.map_or_else(
                || "mean".to_string(),
                |p| format!("P{} {}", format_number(p), c.latency_method),
            );
            format!(
                "<tr><td>{}</td><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{} / {} ms ({})</td><td>{}</td><td>{}</td><td>{} %</td></tr>",
                rank + 1,
                escape(&gpu_name(&c.gpu)),
                c.total_gpus,
                c.tp,
                c.precision.id().to_ascii_uppercase(),
                c.concurrency,
                format_number(c.ttft_ms),
                format_number(c.tpot_ms),
                escape(&p),
                usd_amount(c.usd_per_month),
                format_usd(c.usd_per_m_output),
                format_number(c.utilization * 100.0),
            )
        })
        .collect();
    let candidates = if found.candidates.is_empty() {
        "<p>No configuration met the SLO at this traffic.</p>".to_string()
    } else {
        format!(
            "<table class=\"plan\"><thead><tr><th>#</th><th>GPU</th><th>GPUs</th><th>TP</th>\
             <th>Precision</th><th>In flight</th><th>TTFT / TPOT</th><th>$/month</th>\
             <th>$/M output</th><th>Utilized</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    };
    // In `Lost`'s order: near misses first, what did not fit last. Those never simulated (the
    // listed ones, cheaper by the analytic tails, were confirmed first) are counted, not listed
    // one by one.
    let count = |lost: Lost| found.rejected.iter().filter(|r| r.lost == lost).count();
    let no_price = match count(Lost::NoPrice) {
        0 => String::new(),
        n => format!(", {n} had no price"),
    };
    let summary = format!(
        "<p class=\"meta\">{} configurations lost: {} missed the SLO or the traffic, {} met it \
         but cost more, {} met it by the analytic tails but were not simulated (the listed ones, \
         cheaper by those tails, were confirmed first), {} did not fit in GPU memory{no_price}.</p>",
        found.rejected.len(),
        count(Lost::MissedTarget),
        count(Lost::CostsMore),
        count(Lost::NotSimulated),
        count(Lost::DoesNotFit)
    );
    let mut rejected: Vec<_> = found
        .rejected
        .iter()
        .filter(|r| r.lost != Lost::NotSimulated)
        .collect();
    rejected.sort_by_key(|r| r.lost);
    let lost: String = rejected
        .iter()
        .take(REPORT_REJECTED)
        .map(|r| {
            format!(
                "<li>{} TP {} {}: {}</li>",
                escape(&gpu_name(&r.gpu)),
                r.tp,
                r.precision.id().to_ascii_uppercase(),
                escape(&r.reason)
            )
        })
        .chain(found.skipped.iter().map(|s| {
            format!(
                "<li>{}: not searched, {}</li>",
                escape(&gpu_name(&s.gpu)),
                escape(&s.reason)
            )
        }))
        .collect();
    let more = rejected.len().saturating_sub(REPORT_REJECTED);
    let more = if more > 0 {
        format!("<p class=\"meta\">and {more} more configurations that lost.</p>")
    } else {
        String::new()
    };
    format!(
        "<section><h2>Plan: the cheapest deployments for {} </h2><p class=\"meta\">{} (GPU × \
         precision × TP searched); the cheapest {} are listed.</p>{candidates}\
         <h3>Why the others lost</h3>{summary}<ul class=\"lost\">{lost}</ul>{more}</section>",
        escape(&scenario.model.name),
        found.met(),
        found.candidates.len(),
    )
}

fn run_plan(scenario: &Scenario, view: &ViewState, traffic_tok_s: f64) -> Result<Plan, String> {
    let decision = &view.decision;
    let tier = plan_price_tier(scenario, decision, false);
    let allowed = decision.gpus_allowed.clone().unwrap_or_default();
    let request = plan_request(
        scenario,
        decision,
        tier,
        traffic_tok_s,
        allowed,
        REPORT_PLAN_TOP,
    )?;
    plan(&request)
}

/// Rows of the leaderboard the report lists.
pub const REPORT_LEADERBOARD_ROWS: usize = 10;

/// The pinned scenarios beside the current one, as the page's Compare panel judges them
/// (`decision_data::evaluate_pin`: the same SLO, traffic and sizing rules): each one's best
/// point (meeting the SLO, else the max-throughput point), $/M output there, and the deployment
/// the traffic needs. Empty without pins.
fn pins_section(
    scenario: &Scenario,
    view: &ViewState,
    slo: Option<crate::scenario::Slo>,
    decided: &ScenarioDecision,
) -> String {
    if view.pins.is_empty() {
        return String::new();
    }
    let demand = crate::page::decision_data::Demand::of(&view.decision, slo);
    let cells = |label: &str, s: &Scenario, d: &ScenarioDecision| {
        let capacity = d.capacity.as_ref().map(|(p, _)| p);
        let per_gpu = capacity
            .map(|p| format_number(p.output_tok_s / f64::from(s.total_gpus().max(1))))
            .unwrap_or_else(|| "misses the SLO".into());
        let usd = capacity
            .and_then(|p| p.usd_per_m_output)
            .map(format_usd)
            .unwrap_or_else(|| "—".into());
        let sized = match &d.sized {
            Some(Ok(sized)) => format!(
                "{} GPUs{}",
                sized.sizing.gpus,
                sized
                    .sizing
                    .usd_per_month
                    .map(|m| format!(", {}/month", usd_amount(m)))
                    .unwrap_or_default()
            ),
            Some(Err(why)) => format!("none: {why}"),
            None => "no traffic set".into(),
        };
        format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(label),
            capacity.map_or_else(|| "—".to_string(), |p| p.concurrency.to_string()),
            per_gpu,
            usd,
            escape(&sized)
        )
    };
    let mut rows = cells(
        &format!("Current: {}", crate::page::pins::pin_label(&view.scenario)),
        scenario,
        decided,
    );
    for pin in &view.pins {
        let pinned = crate::page::decision_data::evaluate_pin(pin, demand);
        let label = crate::page::pins::label_against(&view.scenario, pin);
        match &pinned.evaluated {
            Ok((s, _, d)) => rows.push_str(&cells(&label, s, d)),
            Err(why) => rows.push_str(&format!(
                "<tr><th scope=\"row\">{}</th><td colspan=\"4\">does not validate: {}</td></tr>",
                escape(&label),
                escape(why)
            )),
        }
    }
    format!(
        "<section><h2>Pinned scenarios</h2><p class=\"meta\">As the page's Compare panel \
         judges them: each at its best point {} and sized for the same traffic under the same rules.</p>\
         <table class=\"board\"><thead><tr><th>Scenario</th><th>Batch</th><th>Output tok/s per GPU</th>\
         <th>$/M output</th><th>For the traffic</th></tr></thead><tbody>{rows}</tbody></table></section>",
        if slo.is_some() { "meeting the SLO" } else { "(max throughput; no SLO set)" }
    )
}

/// The hardware leaderboard for the model and workload, as the panel ranks it by default (at
/// the decision inputs' tokens/s per user, else 50).
fn leaderboard_section(scenario: &Scenario, view: &ViewState) -> String {
    let board = request_for(&view.scenario, &view.decision, TargetMode::Interactivity)
        .map_err(|e| format!("{}: {}", e.field, e.message))
        .and_then(|request| {
            leaderboard(&request)
                .map(|board| (board, (request.ttft_ceiling_ms, request.ttft_percentile)))
        });
    let (board, (ceiling, percentile)) = match board {
        Ok(found) => found,
        Err(why) => {
            return format!(
                "<section><h2>Hardware leaderboard</h2><p>The leaderboard could not run: {}</p></section>",
                escape(&why)
            )
        }
    };
    let rows: String = board
        .rows
        .iter()
        .take(REPORT_LEADERBOARD_ROWS)
        .enumerate()
        .map(|(rank, row)| {
            format!(
                "<tr><td>{}</td><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                rank + 1,
                escape(&row.gpu_name),
                escape(&format!("{}{}", row.precision.id().to_ascii_uppercase(), if row.quality_caveat { "†" } else { "" })),
                escape(&format!("{} GPUs, {}", row.gpus, row.layout)),
                format_number(row.output_tok_s_per_gpu),
                format_number(row.tok_s_per_user),
                format_number(row.ttft_tail_ms),
                escape(&row.usd_text()),
            )
        })
        .collect();
    format!(
        "<section><h2>Hardware leaderboard for {}</h2><p class=\"meta\">Every catalog GPU × \
         precision × layout at {} with a P{percentile} TTFT of at most {} ms ({} layouts swept); the best \
         layout per GPU and precision, cheapest $/M output first (GPUs without a price last, by \
         throughput). † 4-bit weights: check accuracy.</p><table class=\"board\"><thead><tr><th>#</th><th>GPU</th><th>Precision</th>\
         <th>Layout</th><th>Output tok/s per GPU</th><th>Tok/s per user</th><th>TTFT ms (P{percentile})</th><th>$/M output</th>\
         </tr></thead><tbody>{rows}</tbody></table></section>",
        escape(&scenario.model.name),
        escape(&board.target.text()),
        format_number(ceiling),
        board.searched,
    )
}

/// The agentic section (issue 27 §4), when the scenario is in session mode: the headline, the
/// figures at the slider's agents and at the tier, the cache-aware economics and every assumption the numbers rest
/// on, as the page's agentic panel shows them (`page::agents`). Empty otherwise. The agentic
/// leaderboard is the page's (a few seconds of work per catalog GPU in the browser: too slow
/// for a download); the plan, the tok/s leaderboard and the API comparison of single requests
/// give way to this section, so the report keeps to three pages.
#[cfg(feature = "session-model")]
fn agents_section(scenario: &Scenario, view: &ViewState) -> String {
    use crate::page::agents::{agent_view, economics_rows, headline, point_rows, tier_text};
    let Some(agentic) = agent_view(scenario, &view.decision) else {
        return String::new();
    };
    let answer = &agentic.answer;
    let rows: String = point_rows(answer)
        .into_iter()
        .map(|r| {
            format!(
                "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&r.label),
                escape(&r.at_agents),
                escape(&r.at_tier),
                escape(r.unit)
            )
        })
        .collect();
    let economics: String = economics_rows(answer)
        .into_iter()
        .map(|(_, label, value)| row(&label, &value))
        .collect();
    let assumptions: String = answer
        .assumptions
        .iter()
        .map(|line| format!("<li>{}</li>", escape(line)))
        .collect();
    format!(
        "<section class=\"agents\"><h2>Agents at the tier</h2><p>{}</p>\
         <table class=\"numbers\"><thead><tr><th></th><th>At {} agents</th><th>At the tier</th><th>Unit</th></tr></thead>\
         <tbody>{rows}</tbody></table><table>{economics}</table>\
         <p class=\"meta\">Tier: {}. The page's leaderboard panel ranks every catalog GPU by \
         agents per MW or per $ at this tier; its plan and API comparison of single requests \
         are left out of this report (the fleet row above sizes the agents).</p><ul class=\"assumptions\">{assumptions}</ul></section>",
        escape(&headline(scenario, answer)),
        answer.at_agents.agents,
        escape(&tier_text(answer)),
    )
}

/// Without the session model there is no agentic section.
#[cfg(not(feature = "session-model"))]
fn agents_section(_: &Scenario, _: &ViewState) -> String {
    String::new()
}

fn gpu_name(id: &str) -> String {
    crate::catalog::catalog()
        .ok()
        .and_then(|catalog| catalog.gpu(id))
        .map_or_else(|| id.to_string(), |gpu| gpu.name.clone())
}

fn api_section(
    scenario: &Scenario,
    point: &OperatingPoint,
    view: &ViewState,
    decided: &ScenarioDecision,
) -> String {
    let blend = view
        .decision
        .blend
        .input_per_output(scenario.input.input_len, scenario.input.output_len);
    let Some(cost) = PointCost::new(scenario, point, blend, None) else {
        return "<section><h2>Against API prices</h2><p>No price per GPU-hour for this GPU, so \
                self-hosting cannot be compared with API prices.</p></section>"
            .into();
    };
    // For the typed traffic (issue 26 §9): each API's $/month and the break-even volume, in the
    // same table; the self-hosted bills above it.
    let traffic = traffic_vs_api(scenario, view, decided);
    let own = traffic
        .as_ref()
        .and_then(|(sized, _)| sized.sizing.usd_per_month)
        .unwrap_or(f64::INFINITY);
    let all = cost.break_even(&scenario.model.id);
    let more = all.len().saturating_sub(REPORT_API_ROWS);
    let rows: String = all
        .iter()
        .take(REPORT_API_ROWS)
        .map(|b| {
            let verdict = if b.break_even_utilization > 1.0 {
                "never (API cheaper even at full load)".to_string()
            } else {
                format!("above {} % utilization", format_number(b.break_even_utilization * 100.0))
            };
            let for_traffic = traffic
                .as_ref()
                .and_then(|(_, cmp)| cmp.apis.iter().find(|a| a.provider == b.provider))
                .map(|api| {
                    format!(
                        "<td>{}{}</td><td>{}</td>",
                        usd_amount(api.usd_per_month),
                        if own <= api.usd_per_month { " (more than self-hosting)" } else { "" },
                        api.break_even_tokens_per_day
                            .map_or_else(|| "never".to_string(), volume)
                    )
                })
                .unwrap_or_default();
            format!(
                "<tr><th scope=\"row\">{}</th><td>{} / {}</td><td>{}</td><td>{}</td>{for_traffic}<td>{}</td></tr>",
                escape(&b.provider),
                format_usd(b.api_usd_per_m_input),
                format_usd(b.api_usd_per_m_output),
                format_usd(b.api_usd_per_m_mixed),
                escape(&verdict),
                api_source(b),
            )
        })
        .collect();
    if rows.is_empty() {
        return format!(
            "<section><h2>Against API prices</h2><p>The catalog lists no API price for {}.</p></section>",
            escape(&scenario.model.name)
        );
    }
    let (traffic_meta, traffic_heads) = match &traffic {
        Some((_, cmp)) => (
            format!(
                " For the traffic, {}: self-hosted on the {} GPUs sized above, {} per month.",
                volume(cmp.tokens_per_day),
                cmp.gpus,
                cmp.self_hosted
                    .iter()
                    .map(|(tier, usd)| format!("{} {}", escape(tier), usd_amount(*usd)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "<th>API $/month for the traffic</th><th>Self-hosting cheaper from</th>",
        ),
        None => (String::new(), ""),
    };
    format!(
        "<section><h2>Against API prices</h2><p class=\"meta\">Self-hosted at full load: {} per \
         million tokens at this workload's input:output mix.{traffic_meta}</p><table class=\"api\"><thead><tr>\
         <th>Provider</th><th>$/M in / out</th><th>$/M at this mix</th><th>Self-hosting is cheaper</th>\
         {traffic_heads}<th>Source (as of)</th></tr></thead><tbody>{rows}</tbody></table>{}</section>",
        format_usd(cost.at_capacity().usd_per_m_blended),
        if more > 0 {
            format!(
                "<p class=\"meta\">{more} dearer providers are left out here; the page's Self-host or \
                 API panel lists them all.</p>"
            )
        } else {
            String::new()
        }
    )
}

/// API rows the report lists (cheapest first; the page's panel lists every one).
pub const REPORT_API_ROWS: usize = 6;

/// A daily token volume, short: "2.36 B tokens/day", "636 M tokens/day".
fn volume(tokens_per_day: f64) -> String {
    if tokens_per_day >= 1e9 {
        format!("{:.2} B tokens/day", tokens_per_day / 1e9)
    } else if tokens_per_day >= 1e6 {
        format!("{:.0} M tokens/day", tokens_per_day / 1e6)
    } else {
        format!("{} tokens/day", format_number(tokens_per_day))
    }
}

/// Self-hosting against each API for the typed traffic (issue 26 §9), as the page's Self-host
/// or API panel shows it: the one sizing of this configuration and the comparison.
fn traffic_vs_api(
    scenario: &Scenario,
    view: &ViewState,
    decided: &ScenarioDecision,
) -> Option<(
    crate::decide::sizing::Sized,
    crate::decide::pricing::TrafficVsApi,
)> {
    let decision = &view.decision;
    let traffic = traffic_tok_s(view)?;
    let sized = decided.sized.as_ref()?.as_ref().ok()?.clone();
    let cmp = crate::decide::pricing::traffic_vs_api(
        scenario,
        &sized,
        traffic,
        &SizingRules::of(decision),
        decision.ownership().as_ref(),
    )?;
    Some((sized, cmp))
}

/// An API price's source as a short link and its date (the catalog row it came from).
fn api_source(price: &crate::physics::economics::BreakEven) -> String {
    let url = price.source.split_whitespace().next().unwrap_or_default();
    let host = url
        .split("//")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or(url);
    let date = match crate::catalog::dated(&price.as_of) {
        crate::catalog::UNDATED => format!(", {}", crate::catalog::UNDATED),
        as_of => format!(", as of {}", escape(as_of)),
    };
    format!("<a href=\"{}\">{}</a>{date}", escape(url), escape(host))
}

/// One group of inputs as listed: the group's title, then each field's label and shown value.
pub type InputGroup = (&'static str, Vec<(&'static str, String)>);

/// The inputs of `view` that differ from servecost's defaults, by group (the group's title, then
/// each field's label and value with its unit; "auto" for an unset optional), and how many are
/// at their defaults: what the report and the printed summary list (issue 28 §1–2), the link
/// carrying every one of them.
pub fn differing_inputs(view: &ViewState) -> (Vec<InputGroup>, usize) {
    let inputs = view.inputs();
    let defaults = crate::scenario::fields::Inputs::default();
    let differs = |field: &crate::scenario::fields::Field| {
        !field.derived && field.get(&inputs) != field.get(&defaults)
    };
    let at_default = FIELDS.iter().filter(|f| !f.derived && !differs(f)).count();
    let groups = Group::ALL
        .iter()
        .map(|group| {
            let rows = FIELDS
                .iter()
                .filter(|f| f.group == *group && differs(f))
                .map(|field| {
                    let value = field.get(&inputs);
                    let value = if value.is_empty() {
                        "auto".to_string()
                    } else {
                        value
                    };
                    let shown = if field.unit.is_empty() {
                        value
                    } else {
                        format!("{value} {}", field.unit)
                    };
                    (field.label, shown)
                })
                .collect::<Vec<_>>();
            (group.title(), rows)
        })
        .filter(|(_, rows)| !rows.is_empty())
        .collect();
    (groups, at_default)
}

/// The report's section of the inputs that differ from the defaults (issue 28 §2: what was
/// chosen, not 80 values many of them "auto"; the link in the header reopens every one).
fn inputs_section(view: &ViewState) -> String {
    let (groups, at_default) = differing_inputs(view);
    let groups: String = groups
        .iter()
        .map(|(title, rows)| {
            let rows: String = rows
                .iter()
                .map(|(label, shown)| {
                    format!(
                        "<div><dt>{}</dt><dd>{}</dd></div>",
                        escape(label),
                        escape(shown)
                    )
                })
                .collect();
            format!("<h3>{}</h3><dl>{rows}</dl>", escape(title))
        })
        .collect();
    format!(
        "<section class=\"inputs\"><h2>Every input that differs from the defaults</h2>{groups}\
         <p class=\"meta\">The other {at_default} inputs are at servecost's defaults; the link \
         at the top reopens this view with every one of them.</p></section>"
    )
}

fn assumptions_section(scenario: &Scenario, point: &OperatingPoint) -> String {
    let lines: String = assumptions(scenario, point)
        .lines()
        .map(|line| format!("<li>{}</li>", escape(line)))
        .collect();
    let gpu = &scenario.gpu;
    let sources = [
        format!(
            "<li>GPU specifications and rental prices ({}, prices as of {}): {}</li>",
            escape(&gpu.name),
            escape(&gpu.price_as_of),
            escape(
                &crate::catalog::gpu_provenance(&gpu.id)
                    .map(|p| p.source.clone())
                    .unwrap_or_default()
            )
        ),
        format!(
            "<li>Model architecture ({}): {}</li>",
            escape(&scenario.model.name),
            escape(&scenario.model.hf_id)
        ),
        format!("<li>{}</li>", escape(&scenario.profile.describe())),
    ]
    .concat();
    format!(
        "<section><h2>Assumptions and sources</h2><ul class=\"assumptions\">{lines}</ul>\
         <h3>Sources</h3><ul class=\"sources\">{sources}</ul></section>"
    )
}

/// The report's stylesheet: screen and A4 print, a small type scale (three pages at most).
const STYLE: &str = "\
body{font-family:system-ui,sans-serif;font-size:12px;line-height:1.35;color:#1b1f24;\
max-width:760px;margin:16px auto;padding:0 12px}\
h1{font-size:18px;margin:0 0 4px}h2{font-size:14px;margin:14px 0 4px;border-bottom:1px solid #ccd}\
h3{font-size:12px;margin:8px 0 2px}.meta{color:#555;margin:2px 0}\
table{border-collapse:collapse;width:100%;margin:4px 0}\
th,td{text-align:left;padding:1px 6px;vertical-align:top;border-bottom:1px solid #eee}\
thead th{border-bottom:1px solid #99a}.numbers th{width:45%}\
figure{margin:4px 0}figure svg{width:100%;height:auto}figcaption{color:#555}\
ul{margin:2px 0;padding-left:18px}.lost,.sources,.assumptions{font-size:10.5px}\
.inputs dl{display:grid;grid-template-columns:repeat(3,1fr);gap:0 10px;margin:0;font-size:10px}\
.inputs dl div{display:flex;justify-content:space-between;border-bottom:1px solid #eee}\
.inputs dt{color:#444}.inputs dd{margin:0 0 0 6px;font-weight:600;text-align:right}.warnings{color:#8a4b00}a{color:#0550ae;word-break:break-all}\
@page{size:A4;margin:10mm}\
@media print{body{margin:0;max-width:none;font-size:10.5px}h2{break-after:avoid;margin-top:10px}\
figure,tr{break-inside:avoid}}";
