//! The share layer's page-facing helpers: which view a page opens with (a link, the remembered
//! scenario or the defaults), the same view for the full explorer or as an `<iframe>` snippet,
//! and the names and captions of exported files. Pure like the rest of `share`: the page passes
//! `location.search` and the stored text in and gets text back.

use super::{decode, encode, sanitize, sanitize_link, EmbedOptions, ViewState};
use crate::choice::Choice;
use crate::model::OperatingPoint;
use crate::present::format::{format_number, format_usd};
use crate::scenario::Scenario;

/// Where the view a page opens with came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartSource {
    /// A non-empty query string: an explicit link always wins.
    Link,
    /// The last scenario remembered by this browser.
    Storage,
    Defaults,
}

/// The view a page opens with, already sanitized, and what could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct StartView {
    pub view: ViewState,
    /// What the link held that was ignored (empty unless `source` is `Link`).
    pub notices: Vec<String>,
    pub source: StartSource,
}

/// Sanitize the scenario and every pin of a decoded view, naming what was dropped. The scenario
/// keeps what the link asked for when that is well formed but does not fit (`sanitize_link`):
/// the page opens on it and its error, never on another scenario.
fn sanitize_view(mut view: ViewState, notices: &mut Vec<String>) -> ViewState {
    view.scenario = sanitize_link(view.scenario, notices).0;
    let mut pins = Vec::with_capacity(view.pins.len());
    for (index, pin) in view.pins.into_iter().enumerate() {
        let mut pin_notices = Vec::new();
        if let Some((input, _)) = sanitize(pin, &mut pin_notices) {
            pins.push(input);
        }
        notices.extend(
            pin_notices
                .into_iter()
                .map(|notice| format!("pin {}: {notice}", index + 1)),
        );
    }
    view.pins = pins;
    view
}

/// Choose the opening view: a non-empty `query` (an explicit link) always wins and is read with
/// notices; otherwise the `stored` text (the last scenario, as the query `encode` writes) if it
/// still reads cleanly, without a single notice; otherwise the defaults. Unreadable storage (an
/// entry of an older version, which stored JSON, included) is ignored without a notice: the user
/// did not ask for it, and a stale entry must never block the page. (A query, not JSON, so the
/// explorer's module needs no JSON code for it.)
pub fn start_view(query: &str, stored: Option<&str>) -> StartView {
    let query = query.trim().trim_start_matches('?');
    if !query.is_empty() {
        let (view, mut notices) = decode(query);
        let view = sanitize_view(view, &mut notices);
        return StartView {
            view,
            notices,
            source: StartSource::Link,
        };
    }
    let remembered = stored
        .filter(|text| text.starts_with("v="))
        .map(decode)
        .filter(|(_, notices)| notices.is_empty());
    match remembered {
        Some((view, _)) => StartView {
            view: without_embed(&view),
            notices: Vec::new(),
            source: StartSource::Storage,
        },
        _ => StartView {
            view: ViewState::default(),
            notices: Vec::new(),
            source: StartSource::Defaults,
        },
    }
}

/// The same view for the full explorer: no embed flag, controls or theme.
pub fn without_embed(view: &ViewState) -> ViewState {
    ViewState {
        embed: EmbedOptions::default(),
        ..view.clone()
    }
}

/// Escape text for an HTML attribute value.
pub fn escape_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// Height of the iframe in the embed snippet (CSS pixels) without controls; the widget fits
/// 600 × 400 and up.
pub const EMBED_SNIPPET_HEIGHT_PX: u32 = 420;
/// What each row of controls adds to it at 600 px: four controls to a row (`.embed .controls
/// .field`, `flex: 1 1 9rem`), 55 px a row with its label and the row above it (measured in
/// Chromium on 2026-12-03: the widget's natural height is 387 px bare, 442 px with one to four
/// controls, 494 px with five or six).
const EMBED_CONTROL_ROW_PX: u32 = 56;
const EMBED_CONTROLS_PER_ROW: usize = 4;

/// The snippet's frame height for `controls` controls: the widget's own height at 600 px wide,
/// so a page that ignores the height message still shows every control (issue 28 §5: four
/// controls needed 441 px in a 400 px frame).
pub fn embed_snippet_height(controls: usize) -> u32 {
    let rows = controls.div_ceil(EMBED_CONTROLS_PER_ROW);
    EMBED_SNIPPET_HEIGHT_PX
        + EMBED_CONTROL_ROW_PX * u32::try_from(rows).unwrap_or(u32::MAX / 2 / EMBED_CONTROL_ROW_PX)
}

/// The scheme and host of `url` (`https://example.com` of `https://example.com/sc/`): the
/// origin the snippet's listener accepts height messages from.
fn origin_of(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url.get(after_scheme..).and_then(|rest| rest.find('/')) {
        Some(slash) => url.get(..after_scheme + slash).unwrap_or(url),
        None => url,
    }
}

/// The snippet that embeds `view` as a widget: the `<iframe>` (width and height attributes, no
/// `style=`: CSP-clean, issue 28 §5) and a one-line listener that sizes it from the widget's
/// height message, accepted only from the widget's origin and only for the frame that sent it
/// (docs/EMBED.md, "The height message"); it also makes the frame fluid (100 % wide up to
/// 760 px, no border) through the CSSOM, which a host's `style-src` does not govern. `page_url`
/// is the explorer's address without a query (e.g. `https://example.com/servecost/`); `title`
/// names the figure for screen readers.
pub fn embed_snippet(page_url: &str, view: &ViewState, title: &str) -> String {
    let mut embedded = view.clone();
    embedded.embed.embed = true;
    let src = format!("{page_url}?{}", encode(&embedded));
    let origin = origin_of(page_url).replace(['"', '\\', '<', '>'], "");
    format!(
        "<iframe class=\"servecost-embed\" src=\"{}\" title=\"{}\" width=\"600\" height=\"{}\" loading=\"lazy\" frameborder=\"0\"></iframe>\n\
         <script>addEventListener(\"message\",function(e){{var d=e.data;if(e.origin!==\"{origin}\"||!d||d.type!==\"{HEIGHT}\"||!isFinite(d.height))return;\
         document.querySelectorAll(\"iframe.servecost-embed\").forEach(function(f){{if(f.contentWindow!==e.source)return;\
         f.style.width=\"100%\";f.style.maxWidth=\"760px\";f.style.border=\"0\";f.height=Math.min(2000,Math.max(200,Math.ceil(d.height)))}})}})</script>",
        escape_attribute(&src),
        escape_attribute(title),
        embed_snippet_height(view.embed.controls.len()),
        HEIGHT = EMBED_HEIGHT_MESSAGE,
    )
}

/// The `type` of the one message the widget sends its parent (`ui::explorer::embed`).
pub const EMBED_HEIGHT_MESSAGE: &str = "servecost:height";

/// A file name stem for exports: `servecost-llama-3.1-70b-8x-h100-sxm-c64`.
pub fn export_file_stem(scenario: &Scenario) -> String {
    let raw = format!(
        "servecost-{}-{}x-{}-c{}",
        scenario.model.id, scenario.gpu_count, scenario.gpu.id, scenario.concurrency
    );
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(96)
        .collect()
}

/// The caption drawn under an exported chart image: what, on which hardware, at which operating
/// point, at what cost, and where the rest of the assumptions are.
pub fn chart_caption(
    scenario: &Scenario,
    point: &OperatingPoint,
    app_version: &str,
) -> [String; 3] {
    [
        format!(
            "{} on {} × {} ({} weights), mean input {:.0} / output {:.0} tokens",
            scenario.model.name,
            scenario.gpu_count,
            scenario.gpu.name,
            scenario.precision.id(),
            scenario.workload.input_mean,
            scenario.workload.output_mean
        ),
        format!(
            "At {} in flight: {} output tok/s per GPU, {} tok/s per user, TPOT {} ms, {}",
            point.concurrency,
            format_number(point.output_tok_s_per_gpu),
            format_number(point.tok_s_per_user),
            format_number(point.tpot_ms),
            match (point.usd_per_m_output, scenario.usd_per_gpu_hour) {
                (Some(usd), Some(usd_per_gpu_hour)) => format!(
                    "{} per M output tokens at ${usd_per_gpu_hour:.3}/GPU-hour",
                    format_usd(usd)
                ),
                _ => "no cost (no price per GPU-hour)".into(),
            }
        ),
        format!(
            "servecost {app_version}, analytic steady-state model; every assumption is in the JSON and CSV exports"
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScenarioInput;
    use crate::share::to_json;

    fn custom() -> ViewState {
        let mut view = ViewState::default();
        view.scenario.model = "llama-3.1-8b".into();
        view.scenario.gpu = "a100-sxm-80gb".into();
        view.scenario.gpu_count = 2.0;
        view.scenario.concurrency = 37.0;
        view.pins.push(ScenarioInput {
            gpu: "h200-sxm".into(),
            ..ScenarioInput::default()
        });
        view.chart.x = crate::present::chart::XAxis::Tpot;
        view
    }

    #[test]
    fn an_explicit_link_wins_over_storage_and_bad_storage_is_ignored() {
        let stored = encode(&custom());
        let from_link = start_view("?v=1&gpus=4", Some(&stored));
        assert_eq!(from_link.source, StartSource::Link);
        assert_eq!(from_link.view.scenario.gpu_count, 4.0);
        assert_eq!(
            from_link.view.scenario.model,
            ScenarioInput::default().model
        );
        let from_storage = start_view("", Some(&stored));
        assert_eq!(from_storage.source, StartSource::Storage);
        assert_eq!(from_storage.view, custom());
        let older_json = to_json(&custom());
        for corrupt in [
            "",
            "{",
            "null",
            "[1,2]",
            r#"{"gpus":"x"}"#,
            "\u{0}\u{ffff}",
            "v=1&gpus=x",
            "v=1&bogus=1",
            "gpus=4",
            older_json.as_str(),
        ] {
            let start = start_view("?", Some(corrupt));
            assert_eq!(start.source, StartSource::Defaults, "{corrupt:?}");
            assert_eq!(start.view, ViewState::default());
            assert!(start.notices.is_empty());
        }
        assert_eq!(start_view("", None).source, StartSource::Defaults);
    }

    #[test]
    fn a_hostile_link_is_sanitized_with_notices_for_scenario_and_pins() {
        let start = start_view("tp=3&gpus=8&pin=tp:5;gpus:8&pin=model:%3Cb%3E", None);
        assert!(start.view.scenario.tp.is_none());
        // The second pin names only a refused model: dropped, not a default pin (issue 28 §4).
        assert_eq!(start.view.pins.len(), 1);
        assert!(start
            .view
            .pins
            .iter()
            .all(|p| Scenario::try_from(p.clone()).is_ok()));
        assert!(start.notices.iter().any(|n| n.starts_with("ignored tp")));
        assert!(
            start
                .notices
                .iter()
                .any(|n| n.starts_with("pin 1: ignored tp")),
            "{:?}",
            start.notices
        );
        assert!(start
            .notices
            .iter()
            .any(|n| n.starts_with("ignored pinned `model`")));
        assert!(start
            .notices
            .iter()
            .any(|n| n.contains("nothing in it could be read")));
    }

    #[test]
    fn the_embed_snippet_is_escaped_and_carries_the_view_in_embed_mode() {
        let mut view = custom();
        view.embed.theme = Some(crate::present::chart::Theme::Dark);
        let snippet = embed_snippet("https://example.com/sc/", &view, "Cost of \"Llama\" <8B>");
        assert!(
            snippet.starts_with(
                "<iframe class=\"servecost-embed\" src=\"https://example.com/sc/?v=2&amp;model="
            ),
            "{snippet}"
        );
        assert!(snippet.contains("&amp;embed=1"));
        assert!(snippet.contains("&amp;theme=dark"));
        assert!(snippet.contains("title=\"Cost of &quot;Llama&quot; &lt;8B&gt;\""));
        // The frame and its listener; no style attribute (CSP-clean, issue 28 §5).
        assert_eq!(snippet.matches('<').count(), 4, "{snippet}");
        assert!(!snippet.contains("style=\""), "{snippet}");
        assert!(
            snippet.contains("e.origin!==\"https://example.com\""),
            "{snippet}"
        );
        assert!(snippet.contains("height=\"420\""), "{snippet}");
        let mut four = view.clone();
        four.embed.controls = vec![
            "model".into(),
            "gpu".into(),
            "gpus".into(),
            "workload".into(),
        ];
        let taller = embed_snippet("https://example.com/sc/", &four, "t");
        assert!(
            taller.contains(&format!("height=\"{}\"", embed_snippet_height(4))),
            "{taller}"
        );
        assert!(
            embed_snippet_height(5) > embed_snippet_height(4)
                && embed_snippet_height(4) > embed_snippet_height(0)
        );
        let plain = without_embed(&view);
        assert_eq!(plain.embed, EmbedOptions::default());
        assert_eq!(plain.scenario, view.scenario);
        assert!(!encode(&plain).contains("embed"));
    }

    #[test]
    fn export_names_and_captions_describe_the_scenario() {
        let scenario = Scenario::default_scenario().expect("valid");
        let point = crate::model::evaluate(&scenario);
        assert_eq!(
            export_file_stem(&scenario),
            "servecost-llama-3.1-70b-8x-h100-sxm-c64"
        );
        let caption = chart_caption(&scenario, &point, "0.1.0");
        assert!(
            caption[0].starts_with("Llama 3.1 70B on 8 × NVIDIA H100"),
            "{}",
            caption[0]
        );
        assert!(caption[1].contains("At 64 in flight"), "{}", caption[1]);
        let usd = point
            .usd_per_m_output
            .expect("the default scenario has a price");
        assert!(caption[1].contains(&format_usd(usd)));
        let unpriced = Scenario::try_from(crate::scenario::ScenarioInput {
            gpu: "gb200".into(),
            usd_per_gpu_hour: None,
            ..crate::scenario::ScenarioInput::default()
        })
        .expect("valid without a price");
        let caption = chart_caption(&unpriced, &crate::model::evaluate(&unpriced), "0.1.0");
        assert!(
            caption[1].contains("no cost (no price per GPU-hour)"),
            "{}",
            caption[1]
        );
        assert!(!caption[1].contains('$'), "{}", caption[1]);
    }
}
