//! The calibrate panel: paste measured points (CSV `concurrency,output_tok_s,tpot_ms,ttft_ms`)
//! or import a `vllm bench serve` result JSON from a file (read in the browser; nothing is
//! sent anywhere), fit the efficiency knobs with `calibrate::calibrate`, show the fitted knobs
//! and measured vs fitted with residuals, and apply the fit to the scenario (as efficiency
//! overrides, so it also travels in the share link). Bad input names the line or key. Beside
//! the fit, its verdict (`#calibrate-verdict`): too few points for the knobs (those kept at their
//! defaults are named and not applied), a knob at its bound, a poor median residual.
//!
//! A benchmark measures one engine, so the fit is made against one replica of the scenario
//! (`sizing::one_replica_input`); the knobs are per GPU and apply to every replica.

use crate::calibration::calibrate::{calibrate, parse_measurements, Residual};
use crate::choice::Choice;
use crate::decide::sizing::one_replica_input;
use crate::page::decision_data::ScenarioDecision;
use crate::page::decisions::{CalibrationRun, DecisionAction, DecisionState};
use crate::page::state::{Action, Shared, State};
use crate::present::format::format_number;
use crate::ui::tools::decision_panels::LatestState;
use crate::ui::widgets::decision_inputs::{grouped, TermHead};
use crate::ui::widgets::metric::Metric;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// Files larger than this are not a benchmark result.
const MAX_FILE_BYTES: f64 = 2_000_000.0;
const EXAMPLE: &str =
    "concurrency,output_tok_s,tpot_ms,ttft_ms\n1,60,16,120\n8,420,19,160\n32,1300,24,300";

#[derive(Properties, PartialEq)]
pub struct CalibratePanelProps {
    pub latest: LatestState,
    pub decisions: UseReducerHandle<DecisionState>,
    /// Changes when the scenario (not its concurrency) or the SLO does: when to re-render.
    pub key_scenario: Shared<ScenarioDecision>,
}

/// Parse and fit `text` against one replica of the state's scenario.
pub fn run_calibration(state: &State, text: &str) -> CalibrationRun {
    let Some(view) = state.view.as_ref() else {
        return CalibrationRun {
            result: Err("there is no valid scenario to fit".into()),
            against: String::new(),
        };
    };
    let s = &view.scenario;
    let against = format!(
        "one replica of the scenario: {} on {} × {} (TP {}), {}",
        s.model.name,
        s.par.gpus_per_replica(),
        s.gpu.name,
        s.par.tp,
        s.precision.id().to_ascii_uppercase()
    );
    let input = one_replica_input(s);
    let result = parse_measurements(text).and_then(|points| {
        calibrate(&input, &points).map_err(|e| format!("{}: {}", e.field, e.message))
    });
    CalibrationRun { result, against }
}

/// `ln(fitted/measured)` as a signed percentage error.
fn residual_text(residual: Option<f64>) -> String {
    residual.map_or_else(
        || "–".to_string(),
        |r| format!("{:+.1} %", (r.exp() - 1.0) * 100.0),
    )
}

fn measured(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), grouped)
}

fn residual_row(r: &Residual) -> Html {
    html! {
        <tr>
            <th scope="row">{ r.concurrency }</th>
            <td>{ measured(r.measured.output_tok_s) }</td><td>{ grouped(r.fitted_output_tok_s) }</td><td>{ residual_text(r.residual_output_tok_s) }</td>
            <td>{ measured(r.measured.tpot_ms) }</td><td>{ grouped(r.fitted_tpot_ms) }</td><td>{ residual_text(r.residual_tpot_ms) }</td>
            <td>{ measured(r.measured.ttft_ms) }</td><td>{ grouped(r.fitted_ttft_ms) }</td><td>{ residual_text(r.residual_ttft_ms) }</td>
        </tr>
    }
}

/// "Fit quality: 4 points for 4 knobs, median residual 3.1 %.": said whether or not it warns.
fn quality(verdict: &crate::calibration::calibrate::FitVerdict) -> String {
    format!(
        "Fit quality: {} points for {} knobs, median residual {:.1} %.",
        verdict.points,
        verdict.knobs_fitted.len(),
        verdict.median_residual * 100.0
    )
}

#[function_component(CalibratePanel)]
pub fn calibrate_panel(props: &CalibratePanelProps) -> Html {
    let d = &*props.decisions;
    let run = {
        let (latest, decisions) = (props.latest.clone(), props.decisions.clone());
        move |text: &str| {
            let Some(state) = latest.handle() else {
                return;
            };
            let result = run_calibration(&state, text);
            decisions.dispatch(DecisionAction::CalibrationFinished(Shared::new(result)));
        }
    };
    let on_text = {
        let decisions = props.decisions.clone();
        Callback::from(move |event: InputEvent| {
            if let Some(area) = event.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                decisions.dispatch(DecisionAction::CalibrationText(area.value()));
            }
        })
    };
    let on_run = {
        let (run, text) = (run.clone(), d.calibration_text.clone());
        Callback::from(move |_: MouseEvent| run(&text))
    };
    let on_file = {
        let (decisions, run) = (props.decisions.clone(), run.clone());
        Callback::from(move |event: Event| {
            let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() else {
                return;
            };
            let Some(file) = input.files().and_then(|files| files.get(0)) else {
                return;
            };
            let (decisions, run) = (decisions.clone(), run.clone());
            if file.size() > MAX_FILE_BYTES {
                decisions.dispatch(DecisionAction::CalibrationFinished(Shared::new(
                    CalibrationRun {
                        result: Err(format!(
                            "{} is {:.1} MB; a benchmark result is a few kB",
                            file.name(),
                            file.size() / 1e6
                        )),
                        against: String::new(),
                    },
                )));
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                let text = JsFuture::from(file.text())
                    .await
                    .ok()
                    .and_then(|v| v.as_string());
                match text {
                    Some(text) => {
                        decisions.dispatch(DecisionAction::CalibrationText(text.clone()));
                        run(&text);
                    }
                    None => decisions.dispatch(DecisionAction::CalibrationFinished(Shared::new(
                        CalibrationRun {
                            result: Err(format!("{} could not be read as text", file.name())),
                            against: String::new(),
                        },
                    ))),
                }
            });
        })
    };
    let fit = d.calibration.as_ref();
    let on_apply = {
        let (latest, fit) = (props.latest.clone(), fit.cloned());
        Callback::from(move |_: MouseEvent| {
            let Some(Ok(calibration)) = fit.as_ref().map(|run| &run.result) else {
                return;
            };
            let Some(state) = latest.handle() else {
                return;
            };
            crate::ui::platform::perf::mark_update_start();
            let mut view = state.view_state();
            view.scenario.efficiency = calibration.overrides(&view.scenario.efficiency);
            state.dispatch(Action::Load(Box::new(view)));
        })
    };
    html! {
        <section class="panel decision calibrate-panel" aria-labelledby="calibrate-title">
            <h2 id="calibrate-title">{ "Calibrate to your benchmark" }</h2>
            <div class="field">
                <label for="calibrate-text">{ "Measured points: CSV (concurrency, output_tok_s, tpot_ms, ttft_ms) or vllm bench serve JSON" }</label>
                <textarea id="calibrate-text" rows="5" spellcheck="false" placeholder={EXAMPLE}
                    value={d.calibration_text.clone()} oninput={on_text}
                    aria-describedby="calibrate-hint" />
                <p class="hint" id="calibrate-hint">{ "Measured against one engine (one replica of this scenario): same model, GPU, TP, precision and workload. The file stays in your browser." }</p>
            </div>
            <div class="button-row">
                <button type="button" class="button" id="calibrate-run" onclick={on_run}>{ "Fit the knobs" }</button>
                <input type="file" id="calibrate-file" class="visually-hidden" accept=".json,.csv,.txt,application/json,text/csv" onchange={on_file} />
                <label class="button file-button" for="calibrate-file">{ "Import vllm bench serve JSON…" }</label>
            </div>
            if let Some(run) = fit {
                { match &run.result {
                    Err(why) => html! { <p class="field-error" id="calibrate-error" role="alert">{ format!("Could not fit: {why}") }</p> },
                    Ok(c) => html! { <>
                        <p class="hint">{ format!("Fitted against {}.", run.against) }</p>
                        if c.verdict.warnings.is_empty() {
                            <p class="hint" id="calibrate-verdict">{ quality(&c.verdict) }</p>
                        } else {
                            <div class="notice" id="calibrate-verdict" role="status">
                                <p>{ format!("{} This fit cannot be trusted as it stands:", quality(&c.verdict)) }</p>
                                <ul>{ for c.verdict.warnings.iter().map(|w| html! { <li>{ w.clone() }</li> }) }</ul>
                            </div>
                        }
                        <div class="metrics" id="calibrate-knobs">
                            <Metric name="fit_eta_mem" label="η memory" value={format!("{:.3}", c.eta_mem)} unit="of peak BW"
                                definition="Achieved fraction of peak memory bandwidth when streaming weights and KV cache (MODEL.md §8 knob 1); sets the batch-1 end of the curve." />
                            <Metric name="fit_eta_compute" label="η compute" value={format!("{:.3}", c.eta_compute)} unit="of peak FLOP/s"
                                definition="Achieved fraction of peak tensor FLOP/s in compute-bound steps (knob 3); sets prefill cost and the throughput ceiling." />
                            <Metric name="fit_step_overhead_ms" label="Step overhead" value={format_number(c.step_overhead_ms)} unit="ms"
                                definition="Fixed time per engine iteration (scheduling, launches), t_it0 (knob 2)." />
                            <Metric name="fit_layer_overhead_us" label="Layer overhead" value={format_number(c.layer_overhead_us)} unit="µs"
                                definition="Fixed time per layer per iteration, t_L0 (knob 2)." />
                            <Metric name="fit_rms_error_pct" label="RMS error" wide=true value={format!("{:.1} → {:.1}", (c.rms_log_error_before.exp() - 1.0) * 100.0, (c.rms_log_error_after.exp() - 1.0) * 100.0)} unit="% before → after"
                                definition="Root mean square of ln(fitted ÷ measured) over every measured number, shown as a percentage error, with the current knobs and with the fitted ones." />
                        </div>
                        <div class="table-scroll">
                            <table class="data-table" id="calibrate-table">
                                <caption>{ "Measured vs fitted (residual = fitted ÷ measured − 1)" }</caption>
                                <thead><tr>
                                    <th scope="col">{ "Concurrency" }</th>
                                    <th scope="col">{ "tok/s" }</th><th scope="col">{ "fitted" }</th>
                                    <th scope="col"><TermHead id="col-fit-resid-tok" label="resid." unit="%" definition="Fitted ÷ measured − 1 for output tok/s (the fit minimises ln(fitted ÷ measured) squared)." /></th>
                                    <th scope="col">{ "TPOT ms" }</th><th scope="col">{ "fitted" }</th>
                                    <th scope="col"><TermHead id="col-fit-resid-tpot" label="resid." unit="%" definition="Fitted ÷ measured − 1 for the mean TPOT." /></th>
                                    <th scope="col">{ "TTFT ms" }</th><th scope="col">{ "fitted" }</th>
                                    <th scope="col"><TermHead id="col-fit-resid-ttft" label="resid." unit="%" definition="Fitted ÷ measured − 1 for the mean TTFT." /></th>
                                </tr></thead>
                                <tbody>{ for c.residuals.iter().map(residual_row) }</tbody>
                            </table>
                        </div>
                        <button type="button" class="button" id="calibrate-apply" onclick={on_apply}>{ "Apply the fit to the scenario" }</button>
                    </> },
                } }
            }
        </section>
    }
}
