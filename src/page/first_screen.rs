//! The default view's first screen as static HTML, drawn at build time (issue 28 §8): the
//! heading, the answer, the chart (an inline SVG drawn by `present::chart` through
//! `chart::svg::CompactSvg`), the slider and the headline numbers of the default scenario, in the
//! explorer's own classes and layout, so that the page paints a chart with its HTML before any
//! wasm runs. `scripts/build-tools` runs `src/bin/prerender.rs`, which prints
//! `default_first_screen()`, and puts it into the built `index.html` (never committed, so it is
//! never stale); the explorer removes it once its own chart and numbers are drawn
//! (`ui::explorer::chart_canvas`). The texts the explorer shows come from the same functions here
//! (`kv_status`, `in_flight_text`, `hardware`, `slider_scale`, `projection`), and the e2e test
//! (`tests/e2e/prerender.test.mjs`) compares the two screens' texts and boxes.
//!
//! The markup is inert (`inert`: not focusable, outside the accessibility tree while the live
//! explorer, which has the ids, replaces it) and carries no ids, so nothing on the page finds
//! two of anything. Only the first screen's controls are drawn (model, precision, GPU, GPU
//! count: the ones a phone shows above the chart) and only the first three groups of numbers.

use crate::catalog::catalog;
use crate::choice::Choice;
use crate::model::expected_error::{plus_minus, point_errors, throughput_by_regime, Class};
use crate::model::pareto::{slider_to_concurrency, SLIDER_STEPS};
use crate::page::state::{State, View};
use crate::present::chart::notes::static_batching_note;
use crate::present::chart::svg::{compact_svg_document, CompactSvg};
use crate::present::chart::{
    draw_pareto_placed, ChartOptions, Frame, Layers, Marker, OtherCurve, Overlay, Part, Placements,
    XAxis, YAxis,
};
use crate::present::format::{format_number, format_usd, group_thousands};
use crate::present::sentences::answer_sentence;
use crate::scenario::fields::{Field, GPU, GPUS, MODEL, PRECISION};
use crate::scenario::{Batching, Scenario};
use crate::share::{self, escape_attribute};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend, IntoDrawingArea};

/// The chart's size in the static page (CSS pixels): the pixel grid the live canvas gets for
/// the chart's box at a 1280 px wide window (614 x 460.5, whose `clientHeight` rounds to 461),
/// which the SVG's `viewBox` scales to whatever box it gets. Both charts lay their text out in
/// one estimate (`present::chart::svg::page_text_size`), so on one grid every label lands where
/// the live chart puts it; at 614 x 460 the current point's label went to the other side of its
/// marker, and moved when the explorer took over (e2e pre-2 compares the grids). The chart's
/// text is all 12 px, and SVG text is unhinted, as the page's text is
/// (`text-rendering: geometricPrecision`, static/style.css): it then shares the page's 12 px
/// platform font (Chrome trace, `GetWebFontRenderStyleForStrike` before the first paint: 5 with
/// or without the chart's text; with hinted page text and 12 and 13.5 px chart text it was 11,
/// two of them the chart's).
pub const CHART_SIZE: (u32, u32) = (614, 461);

/// Id of the static first screen in the built page; the explorer removes it.
pub const PRERENDER_ID: &str = "prerender";

/// The slider's value as shown beside its label: "64 requests in flight".
pub fn in_flight_text(concurrency: u32) -> String {
    match concurrency {
        1 => "1 request in flight".to_string(),
        c => format!("{c} requests in flight"),
    }
}

/// "8 × NVIDIA H100 SXM5 80GB": every GPU, both pools of a disaggregated scenario included
/// (issue 26 §5).
pub fn hardware(scenario: &Scenario) -> String {
    format!("{} × {}", scenario.total_gpus(), scenario.gpu.name)
}

/// Values shown under the slider's track: positions 0, ¼, ½, ¾ and the end.
pub fn slider_scale(steps: u32, max_value: u32) -> Vec<u32> {
    let mut labels: Vec<u32> = (0..=4u32)
        .map(|quarter| slider_to_concurrency(steps.saturating_mul(quarter) / 4, max_value))
        .collect();
    labels.dedup();
    labels
}

/// Where the current concurrency stands against the KV capacity and the engine limit, and
/// whether it is beyond it. The capacity is the model's (`OperatingPoint::max_concurrency`):
/// paged under continuous batching, contiguous reservations for the padded maximum lengths under
/// static batching.
pub fn kv_status(view: &View) -> (String, bool) {
    let capacity = view.point.max_concurrency;
    let concurrency = view.concurrency();
    let static_batching = view.scenario.batching == Batching::Static;
    if !view.point.fits {
        let waiting = concurrency.saturating_sub(capacity);
        let reason = if static_batching {
            " (static batching reserves KV for the batch's longest prompt and output)"
        } else {
            ""
        };
        (
            format!("Beyond KV capacity: {capacity} requests fit{reason}; the other {waiting} wait, so latency grows while throughput stays flat."),
            true,
        )
    } else {
        let holds = if static_batching {
            "with static batching's padded reservations, the KV cache holds"
        } else {
            "the KV cache holds"
        };
        (
            format!(
                "Fits: {holds} up to {capacity} requests; engine limit {}.",
                view.engine_limit()
            ),
            false,
        )
    }
}

/// Text as HTML (the same escaping serves character data).
fn text(s: &str) -> String {
    escape_attribute(s)
}

/// The chart of `state`'s view as the page draws it (technique ladder, expected-error band), as
/// a compact SVG of `size` CSS pixels in the light theme (the stylesheet recolours it for a
/// dark one).
pub fn chart_svg(state: &State, view: &View, size: (u32, u32)) -> Result<String, String> {
    let mut body = String::new();
    draw_chart(
        CompactSvg::new(&mut body, size).into_drawing_area(),
        state,
        view,
    )?;
    Ok(compact_svg_document(size, &body, " role=\"img\""))
}

/// The same chart drawn on `root`, with its frame and where its in-plot labels went: what the
/// label geometry tests check against the page's own chart (tests/chart_labels.rs).
pub fn draw_chart<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    state: &State,
    view: &View,
) -> Result<(Frame, Placements), String> {
    let study = &*view.techniques;
    let others: Vec<OtherCurve<'_>> = study.background.iter().map(OtherCurve::from).collect();
    let main = (
        format!("{} (current)", study.current_label),
        format!("{} (current)", study.current.short_label()),
    );
    let layers = Layers {
        projection: state.chart,
        others: &others,
        main: Some((main.0.as_str(), main.1.as_str(), study.current.index())),
        // The ideal roofline is a bound, not a prediction: no expected-error band.
        error_band: if state.knobs.ideal_roofline {
            [None; 3]
        } else {
            throughput_by_regime(&view.scenario)
        },
    };
    draw_pareto_placed(
        root,
        &view.curve,
        &Marker::from(&*view.point),
        &Overlay::default(),
        &layers,
        &ChartOptions::default(),
        Part::All,
    )
}

/// A closed drop-down list showing the `selected` one of its `options`, drawn as plain boxes
/// that look and lay out like the explorer's `<select>` (static/style.css, `.select`): every
/// option in one grid cell, all but the selected one invisible, so the box is as wide as the
/// widest option, as a `<select>`'s is, and a chevron where Chrome draws its arrow. A real
/// `<select>` is a form control with a shadow tree of its own: the default screen's five cost its
/// first paint 16 ms with the page's scripts taken out (median first-contentful-paint of 40
/// interleaved loads each, 116 -> 100 ms) and 8 ms in the built page (101 loads each, 132 ->
/// 124 ms). The inert static screen is never operated, so nothing is lost.
fn select(options: &[(&str, bool)]) -> String {
    let items: String = options
        .iter()
        .map(|(label, selected)| {
            format!(
                "<span{}>{}</span>",
                if *selected { "" } else { " class=\"off\"" },
                text(label)
            )
        })
        .collect();
    format!("<span class=\"select\">{items}</span>")
}

/// A text box showing `value`, drawn as `select` draws a drop-down list: a plain box with the
/// box rules of the explorer's `<input>` (static/style.css, `.input`), its text centred in it as
/// Chrome centres an input's. An `<input>` is a form control with a shadow tree of its own; the
/// inert static screen is never typed into.
fn text_box(value: &str) -> String {
    format!("<span class=\"input\">{}</span>", text(value))
}

/// The batch-size slider at `position` of `steps`, drawn: the track (a CSS box,
/// `.prerender .range::before`), the filled part up to the thumb and the thumb (an SVG line and
/// circle at a percentage of the thumb's travel: a position without a `style=` attribute,
/// which the Content-Security-Policy forbids), as Chrome draws the explorer's
/// `<input type="range">` in the accent colour. A range input is a form control whose native
/// look Chrome paints from a shadow tree of its own.
fn range(position: u32, steps: u32) -> String {
    let at = f64::from(position.min(steps)) * 100.0 / f64::from(steps.max(1));
    format!(
        "<span class=\"range\"><svg><line x1=\"-3\" y1=\"15\" x2=\"{at:.2}%\" y2=\"15\"/><circle cx=\"{at:.2}%\" cy=\"15\" r=\"8\"/></svg></span>"
    )
}

/// A labelled control showing `value`, as the explorer's field controls lay out.
fn field(field: &Field, value: &str, select_box: bool) -> String {
    let control = if select_box {
        select(&[(value, true)])
    } else {
        text_box(value)
    };
    format!(
        "<div class=\"field\"><label>{}</label>{control}</div>",
        text(&field.label_with_unit())
    )
}

/// One number as the explorer's `Metric` lays it out (its definition, a hidden tooltip, left out).
fn metric(label: &str, value: &str, unit: &str, error: Option<String>, primary: bool) -> String {
    let class = if primary {
        "metric metric-primary"
    } else {
        "metric"
    };
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!("<span class=\"metric-unit\">{}</span>", text(unit))
    };
    let error = error
        .map(|e| format!("<span class=\"metric-error\">{}</span>", text(&e)))
        .unwrap_or_default();
    format!(
        "<div class=\"{class}\"><span class=\"metric-label\">{}</span><span class=\"metric-value\"><span>{}</span>{unit}{error}</span></div>",
        text(label),
        text(value)
    )
}

fn group(title: &str, metrics: &[String]) -> String {
    format!(
        "<div class=\"metric-group\"><h3>{}</h3><div class=\"metrics\">{}</div></div>",
        text(title),
        metrics.concat()
    )
}

/// The first three groups of the numbers panel (cost, throughput, latency), as
/// `ui::explorer::numbers` writes them for an analytic point.
fn numbers(view: &View) -> String {
    let p = &*view.point;
    let errors = point_errors(Class::of(&view.scenario, p));
    let pm = |pct: Option<f64>| pct.map(plus_minus);
    let usd = |v: Option<f64>| v.map_or_else(|| "—".to_string(), format_usd);
    let number = |v: f64| group_thousands(&format_number(v));
    let tok_s_error = pm(errors.output_tok_s_error_pct);
    let cost = [
        metric(
            "Output",
            &usd(p.usd_per_m_output),
            "per M",
            p.cost.as_ref().and(pm(errors.usd_per_m_output_error_pct)),
            true,
        ),
        metric("Input", &usd(p.usd_per_m_input), "per M", None, false),
        metric(
            "Blended 3:1",
            &usd(p.usd_per_m_blended),
            "per M",
            None,
            false,
        ),
    ];
    let throughput = [
        metric(
            "Per GPU",
            &number(p.output_tok_s / f64::from(p.gpus.max(1))),
            "output tok/s",
            tok_s_error.clone(),
            true,
        ),
        metric(
            &format!("All {} GPUs", p.gpus),
            &number(p.output_tok_s),
            "output tok/s",
            tok_s_error,
            false,
        ),
        metric("Per user", &number(p.tok_s_per_user), "tok/s", None, false),
    ];
    let latency = [
        metric(
            "TPOT",
            &number(p.tpot_ms),
            "ms",
            pm(errors.tpot_ms_error_pct),
            false,
        ),
        metric(
            if p.saturated {
                "TTFT (saturated)"
            } else {
                "TTFT"
            },
            &number(p.ttft_ms),
            if p.saturated {
                "ms · simulating…"
            } else {
                "ms"
            },
            pm(errors.ttft_ms_error_pct),
            false,
        ),
    ];
    format!(
        "<div class=\"numbers\">{}{}{}</div>",
        group("Cost per million tokens", &cost),
        group("Throughput", &throughput),
        group("Latency (means)", &latency)
    )
}

/// The option label of `value` among `choices` (the value itself if none matches).
fn choice_label(choices: &[(String, String)], value: &str) -> String {
    choices
        .iter()
        .find(|(v, _)| v == value)
        .map_or_else(|| value.to_string(), |(_, label)| label.clone())
}

/// The first screen of `state` (a state with a view; `None` without one) as static HTML.
pub fn first_screen(state: &State) -> Result<String, String> {
    let view = state.view.as_ref().ok_or("the state has no view")?;
    let scenario = &view.scenario;
    let hardware = hardware(scenario);
    let chart_axes = state.chart;
    let concurrency = view.concurrency();
    let cat = catalog().map_err(|e| format!("{e:?}"))?;
    let model_name = cat
        .models
        .iter()
        .find(|m| m.id == state.texts.get(&MODEL))
        .map_or_else(|| scenario.model.name.clone(), |m| m.name.clone());
    let precision: Vec<(String, String)> = PRECISION
        .choices
        .iter()
        .map(|(v, l)| ((*v).to_string(), (*l).to_string()))
        .collect();
    let controls = format!(
        "<form class=\"controls\"><fieldset><legend>Model</legend>{}{}</fieldset><fieldset><legend>Hardware</legend>{}{}</fieldset></form>",
        field(&MODEL, &model_name, true),
        field(
            &PRECISION,
            &choice_label(&precision, state.texts.get(&PRECISION)),
            true
        ),
        field(&GPU, &scenario.gpu.name, true),
        field(&GPUS, state.texts.get(&GPUS), false),
    );
    let x: Vec<(&str, bool)> = XAxis::ALL
        .iter()
        .map(|a| (a.label(), *a == chart_axes.x))
        .collect();
    let y: Vec<(&str, bool)> = YAxis::ALL
        .iter()
        .map(|a| (a.label(), *a == chart_axes.y))
        .collect();
    let axes = format!(
        "<div class=\"chart-axes\"><label>x</label>{}<label>y</label>{}</div>",
        select(&x),
        select(&y),
    );
    let value_text = in_flight_text(concurrency);
    let limit = view.engine_limit();
    let slider = format!(
        "<div class=\"slider\"><div class=\"slider-head\"><label>Batch size (max concurrency)</label><output class=\"slider-value\">{}</output><span class=\"slider-number\"><label>Batch size</label>{}</span></div>{}<div class=\"slider-scale\">{}</div></div>",
        text(&value_text),
        text_box(&concurrency.to_string()),
        range(state.slider_position, SLIDER_STEPS),
        slider_scale(SLIDER_STEPS, limit)
            .iter()
            .map(|v| format!("<span>{v}</span>"))
            .collect::<String>()
    );
    let (status, beyond) = kv_status(view);
    let mut below = format!(
        "<p class=\"kv-status{}\">{}</p>",
        if beyond { " beyond" } else { "" },
        text(&status)
    );
    for absent in &view.techniques.absent {
        below.push_str(&format!("<p class=\"hint\">{}.</p>", text(&absent.reason)));
    }
    if let Some(note) = static_batching_note(
        &view.techniques,
        &view.curve,
        &view.scenario.workload,
        concurrency,
    ) {
        below.push_str(&format!("<p class=\"kv-status\">{}</p>", text(&note)));
    }
    let hero = format!(
        "<section class=\"panel hero\"><div class=\"panel-head\"><h2><span class=\"term\">{}</span> vs. <span class=\"term\">{}</span></h2><p class=\"subtitle\">{}</p></div><p class=\"answer\">{}</p>{axes}<div class=\"chart-frame\">{}</div>{slider}{below}</section>",
        text(chart_axes.y.heading()),
        text(chart_axes.x.heading()),
        text(&format!("{} on {hardware}", scenario.model.name)),
        text(&answer_sentence(&view.point, &hardware, view.point.output_tok_s)),
        chart_svg(state, view, CHART_SIZE)?,
    );
    Ok(format!(
        "<div id=\"{PRERENDER_ID}\" class=\"prerender\" inert><div class=\"app\"><div class=\"layout\"><section class=\"panel scenario\"><h2>Scenario</h2>{controls}</section>{hero}<section class=\"panel numbers-panel\"><h2>At {concurrency} in flight</h2>{}</section></div></div></div>",
        numbers(view)
    ))
}

/// The default view's first screen (what a page without a link or a remembered scenario opens
/// on: `share::start_view("", None)`), with the technique ladder the page draws a task later.
pub fn default_first_screen() -> Result<String, String> {
    let start = share::start_view("", None);
    first_screen(&State::from_view(start.view))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_first_screen_has_heading_chart_slider_and_numbers_and_no_ids_but_its_own() {
        let html = default_first_screen().expect("renders");
        assert!(html.starts_with("<div id=\"prerender\""), "{}", &html[..80]);
        assert_eq!(
            html.matches(" id=\"").count(),
            1,
            "only the wrapper has an id"
        );
        for needle in [
            "<svg",
            "class=\"answer\"",
            "class=\"range\"",
            "metric-primary",
            "in flight",
            "class=\"select\"",
            "class=\"input\"",
        ] {
            assert!(html.contains(needle), "missing {needle}");
        }
        // CSP: no inline styles or scripts.
        assert!(!html.contains("style="));
        assert!(!html.contains("<script"));
        assert!(!html.contains("<style"));
        // Drop-down lists, text boxes and the slider are drawn, not form controls (`select`,
        // `text_box`, `range`).
        assert!(!html.contains("<select"));
        assert!(!html.contains("<input"));
        // The chart in integer coordinates only.
        let svg = &html[html.find("<svg").unwrap_or(0)..html.find("</svg>").unwrap_or(0)];
        for part in svg.split("=\"").skip(1) {
            let value = part.split('"').next().unwrap_or_default();
            let name = svg[..svg.find(part).unwrap_or(0)]
                .rsplit([' ', '<'])
                .next()
                .unwrap_or_default();
            if ["x", "y", "cx", "cy", "r", "width", "height", "d"]
                .iter()
                .any(|n| name == format!("{n}=\""))
            {
                assert!(!value.contains('.'), "{name}{value}");
            }
        }
    }

    #[test]
    fn the_stylesheet_recolours_the_light_chart_for_a_dark_page() {
        use crate::present::chart::{series_look, Palette, Theme, SERIES_COUNT};
        let css = include_str!("../../static/style.css");
        let hex = |c: plotters::style::RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        let (light, dark) = (
            Palette::for_theme(Theme::Light),
            Palette::for_theme(Theme::Dark),
        );
        let mut pairs = vec![
            ("fill", light.background, dark.background),
            ("fill", light.text, dark.text),
            ("fill", light.muted_text, dark.muted_text),
            ("stroke", light.axis, dark.axis),
            ("stroke", light.grid_bold, dark.grid_bold),
            ("stroke", light.grid_light, dark.grid_light),
            ("stroke", light.curve, dark.curve),
            ("stroke", light.halo, dark.halo),
        ];
        for i in 0..SERIES_COUNT {
            let (l, d) = (
                series_look(i, Theme::Light).colour,
                series_look(i, Theme::Dark).colour,
            );
            pairs.push(("stroke", l, d));
        }
        for (attribute, l, d) in pairs {
            if l == d {
                continue;
            }
            let rule = format!(
                ".prerender [{attribute}=\"{}\"] {{ {attribute}: {}; }}",
                hex(l),
                hex(d)
            );
            assert!(css.contains(&rule), "static/style.css lacks {rule}");
        }
    }

    #[test]
    fn texts_are_the_explorers() {
        assert_eq!(in_flight_text(1), "1 request in flight");
        assert_eq!(in_flight_text(64), "64 requests in flight");
        let scale = slider_scale(SLIDER_STEPS, 4096);
        assert_eq!(scale.first(), Some(&1));
        assert_eq!(scale.last(), Some(&4096));
        assert!(scale.windows(2).all(|w| w.first() < w.get(1)));
    }
}
