//! Instrumentation that tests and curious users read from outside the page: User Timing
//! measures of each update and a draw counter on `window`.
//!
//! Every control marks `servecost:update-start` before it dispatches; the chart marks the end
//! after it has drawn, as `performance.measure("servecost:update", start)`. So one measure spans
//! reducer (evaluate, maybe sweep), render, DOM patch and canvas draw. `window.__servecostDraws`
//! counts finished chart draws. Failures here are ignored: instrumentation must never break the
//! page.

use wasm_bindgen::JsValue;

pub const UPDATE_START_MARK: &str = "servecost:update-start";
pub const UPDATE_MEASURE: &str = "servecost:update";
pub const FIRST_DRAW_MARK: &str = "servecost:first-draw";
/// The chart draw alone (canvas sizing + plotters), inside each update.
pub const DRAW_START_MARK: &str = "servecost:draw-start";
pub const DRAW_MEASURE: &str = "servecost:draw";
pub const DRAWS_PROPERTY: &str = "__servecostDraws";

fn performance() -> Option<web_sys::Performance> {
    web_sys::window()?.performance()
}

/// Call at the start of every user-driven update, before dispatching.
/// Performance mark at the explorer module's entry (the wasm is fetched, compiled and running):
/// what comes before is download and compile, what comes after is start-up and first render.
pub const START_MARK: &str = "servecost:start";

/// Mark the explorer module's entry.
pub fn mark_start() {
    if let Some(performance) = performance() {
        let _ = performance.mark(START_MARK);
    }
}

/// Performance mark set once the page's second module has mounted its panels (`tools.rs`).
pub const TOOLS_READY_MARK: &str = "servecost:tools-ready";

/// Mark that the tools have mounted (tests and `scripts/bench` wait for it).
pub fn mark_tools_ready() {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(TOOLS_READY_MARK);
    }
}

/// Performance mark set when the explorer has removed the build-time first screen and shows its
/// own (`chart_canvas.rs`, `take_over`).
pub const TAKEOVER_MARK: &str = "servecost:takeover";

/// Mark the explorer's taking over from the build-time first screen.
pub fn mark_takeover() {
    if let Some(performance) = performance() {
        let _ = performance.mark(TAKEOVER_MARK);
    }
}

pub fn mark_update_start() {
    if let Some(performance) = performance() {
        performance.clear_marks_with_mark_name(UPDATE_START_MARK);
        let _ = performance.mark(UPDATE_START_MARK);
    }
}

/// Call just before a chart draw.
pub fn mark_draw_start() {
    if let Some(performance) = performance() {
        performance.clear_marks_with_mark_name(DRAW_START_MARK);
        let _ = performance.mark(DRAW_START_MARK);
    }
}

/// Call after every chart draw: measures the draw, closes the pending update measure, if any,
/// and counts the draw.
pub fn record_draw() {
    let draws = increment_draws();
    if let Some(performance) = performance() {
        let _ = performance.measure_with_start_mark(DRAW_MEASURE, DRAW_START_MARK);
        if draws == 1 {
            let _ = performance.mark(FIRST_DRAW_MARK);
        }
        let pending = performance.get_entries_by_name(UPDATE_START_MARK).length() > 0;
        if pending {
            let _ = performance.measure_with_start_mark(UPDATE_MEASURE, UPDATE_START_MARK);
            performance.clear_marks_with_mark_name(UPDATE_START_MARK);
        }
    }
}

/// `window.__servecostDraws += 1`; returns the new count.
fn increment_draws() -> u32 {
    let Some(window) = web_sys::window() else {
        return 0;
    };
    let key = JsValue::from_str(DRAWS_PROPERTY);
    let previous = js_sys::Reflect::get(&window, &key)
        .ok()
        .and_then(|value| value.as_f64())
        .unwrap_or(0.0);
    let next = previous + 1.0;
    let _ = js_sys::Reflect::set(&window, &key, &JsValue::from_f64(next));
    next as u32
}
