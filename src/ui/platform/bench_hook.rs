//! A hidden hook for `scripts/bench`: the simulator's standard run, timed in the browser.
//!
//! `__servecostSimBench(kind)`, an export of the page's second module (`src/bin/tools.rs`;
//! `import()` the page's `tools-<hash>.js`) runs the same standard run as the native `simbench` binary
//! (`src/bin/simbench.rs`): Llama-3.1-8B BF16 on one H100 SXM, chat lengths, 10,000 requests,
//! seed 1, either Poisson arrivals at 80 % of the analytic capacity (`"poisson"`, the default) or
//! a closed loop at concurrency 64 (`"closed"`). It returns `{ run, requests, wall_ms, events,
//! iterations, truncated }`; the caller also times the call with `performance.now()`. Nothing in
//! the page calls it, and it changes no state.

use crate::model::evaluate;
use crate::scenario::{Scenario, ScenarioInput};
use crate::sim::{simulate, Arrivals, SimConfig};
use wasm_bindgen::prelude::*;

/// Requests in the standard run (as in `simbench`).
pub const STANDARD_REQUESTS: u32 = 10_000;

/// The standard scenario (as in `simbench`).
fn standard_scenario() -> Result<Scenario, String> {
    let mut input = ScenarioInput {
        model: "llama-3.1-8b".into(),
        gpu: "h100-sxm".into(),
        gpu_count: 1.0,
        tp: Some(1.0),
        precision: "bf16".into(),
        ..ScenarioInput::default()
    };
    input.apply_workload_preset("chat")?;
    Scenario::try_from(input).map_err(|e| e.to_string())
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn set(object: &js_sys::Object, key: &str, value: JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(object, &JsValue::from_str(key), &value).map(|_| ())
}

/// Run the standard simulation once; see the module docs. Exported only by the tools module
/// (`src/bin/tools.rs`): an export in this library would land in both modules.
pub fn sim_bench(kind: Option<String>) -> Result<JsValue, JsValue> {
    let scenario = standard_scenario().map_err(|e| JsValue::from_str(&e))?;
    let (run, arrivals) = match kind.as_deref().unwrap_or("poisson") {
        "poisson" => {
            let saturated = scenario.with_concurrency(scenario.max_feasible_concurrency());
            let capacity_per_s = evaluate(&saturated).requests_per_s;
            (
                "poisson",
                Arrivals::Poisson {
                    rate_per_s: 0.8 * capacity_per_s,
                },
            )
        }
        "closed" => ("closed", Arrivals::Closed { concurrency: 64 }),
        other => {
            return Err(JsValue::from_str(&format!(
                "unknown run `{other}`: poisson or closed"
            )))
        }
    };
    let config = SimConfig {
        arrivals,
        requests: STANDARD_REQUESTS,
        seed: 1,
        ..SimConfig::default()
    };
    let started_ms = now_ms();
    let result = simulate(&scenario, &config).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let wall_ms = now_ms() - started_ms;

    let out = js_sys::Object::new();
    set(&out, "run", JsValue::from_str(run))?;
    set(&out, "requests", JsValue::from(STANDARD_REQUESTS))?;
    set(&out, "wall_ms", JsValue::from_f64(wall_ms))?;
    set(&out, "events", JsValue::from_f64(result.events as f64))?;
    set(
        &out,
        "iterations",
        JsValue::from_f64(result.iterations as f64),
    )?;
    set(
        &out,
        "truncated",
        JsValue::from_bool(result.truncated.is_some()),
    )?;
    Ok(out.into())
}
