//! A hidden hook for `scripts/bench`: the simulator's standard run, timed in the browser.
//!
//! `__servecostSimBench(kind)`, an export of the page's second module (`src/bin/tools.rs`;
//! `import()` the page's `tools-<hash>.js`) runs the same standard run as the native `simbench`
//! binary (`src/bin/simbench.rs`), both built by `sim::bench`: Llama-3.1-8B BF16 on one H100 SXM,
//! chat lengths, 10,000 requests, seed 1, either Poisson arrivals at 80 % of the analytic capacity
//! (`"poisson"`, the default) or a closed loop at concurrency 64 (`"closed"`). It returns `{ run,
//! requests, wall_ms, events, iterations, truncated }`; the caller also times the call with
//! `performance.now()`. Nothing in the page calls it, and it changes no state.

use crate::sim::bench::{BenchRun, StandardBench, BENCH_REQUESTS};
use crate::sim::simulate;
use wasm_bindgen::prelude::*;

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
    let kind = kind.as_deref().unwrap_or("poisson");
    let run = BenchRun::parse(kind)
        .ok_or_else(|| JsValue::from_str(&format!("unknown run `{kind}`: poisson or closed")))?;
    let bench = StandardBench::new().map_err(|e| JsValue::from_str(&e))?;
    let config = bench.config(run);
    let started_ms = now_ms();
    let result =
        simulate(&bench.scenario, &config).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let wall_ms = now_ms() - started_ms;

    let out = js_sys::Object::new();
    set(&out, "run", JsValue::from_str(run.id()))?;
    set(&out, "requests", JsValue::from(BENCH_REQUESTS))?;
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
