//! The agentic panel (issue 27 §4): "how many coding agents does this deployment serve at the
//! tier, and what does each earn per GPU-hour?". Its mode select is how the page enters agentic
//! mode: choosing a session preset sets the scenario's session fields (the `workload` field's
//! rule), which travel in links and which the explorer carries without modelling them; the base
//! scenario (model, GPU, GPUs, layout, precision, the first prompt and output per turn as input
//! and output length) stays the explorer's, and its slider's unit becomes agents in flight.
//! The session and economics controls are generated from the field table (its session rows);
//! the numbers (`page::agents::point_rows`, `economics_rows`) and the chart
//! (`present::chart::agents`) come from `decide::agents::answer`, with its assumptions listed
//! under them.

use crate::page::agents::{
    agent_view, economics_rows, headline, mode_choices, mode_of, point_rows, tier_text, with_mode,
    AgentView,
};
use crate::page::decisions::{DecisionAction, DecisionState};
use crate::page::state::State;
use crate::present::chart::agents::{draw_agents, AgentChart};
use crate::scenario::fields::{
    Field, Kind, FIELDS, SESSION_KEYS, TOK_S_PER_USER, TTFT_CEILING_MS, WORKLOAD,
};
use crate::ui::platform::canvas_backend::prepare;
use crate::ui::widgets::decision_inputs::{select_field, NumberField};
use plotters::prelude::IntoDrawingArea;
use std::rc::Rc;
use yew::prelude::*;

/// Id of the panel's mode select.
pub const AGENT_MODE_ID: &str = "agent-mode";
/// Id of the panel's chart.
pub const AGENT_CHART_ID: &str = "agent-chart";
const FALLBACK_SIZE_CSS_PX: (f64, f64) = (640.0, 380.0);

#[derive(Properties, PartialEq)]
pub struct AgentPanelProps {
    pub state: UseReducerHandle<State>,
    pub decisions: UseReducerHandle<DecisionState>,
    /// Edits a scenario control (the mode select writes the workload, the session fields).
    pub on_edit: Callback<(&'static Field, String)>,
}

/// The session rows of the table, scenario or decision.
fn session_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS
        .iter()
        .copied()
        .filter(|f| SESSION_KEYS.contains(&f.key))
}

#[function_component(AgentPanel)]
pub fn agent_panel(props: &AgentPanelProps) -> Html {
    let state = &*props.state;
    let d = &*props.decisions;
    let scenario = state.view.as_ref().map(|v| v.scenario.clone());
    let input = scenario.as_ref().map(|s| s.input.clone());
    let computed = use_memo((input, d.input.clone()), {
        let scenario = scenario.clone();
        move |(_, decision)| {
            scenario
                .as_ref()
                .and_then(|s| agent_view(s, decision))
                .map(Rc::new)
        }
    });
    let Some(scenario) = scenario else {
        return Html::default();
    };
    let mode = mode_of(&scenario.input);
    let on_mode = {
        let (on_edit, input) = (props.on_edit.clone(), scenario.input.clone());
        Callback::from(move |choice: String| {
            // The workload field's own rule: a preset's shape, or single requests (chat).
            if with_mode(&input, &choice).is_ok() {
                let value = if choice == crate::page::agents::MODE_OFF {
                    "chat".to_string()
                } else {
                    choice
                };
                on_edit.emit((&WORKLOAD, value));
            }
        })
    };
    let edit_decision = |field: &'static Field| {
        let decisions = props.decisions.clone();
        Callback::from(move |text: String| decisions.dispatch(DecisionAction::Edit(field, text)))
    };
    let edit_scenario = |field: &'static Field| {
        let on_edit = props.on_edit.clone();
        Callback::from(move |text: String| on_edit.emit((field, text)))
    };
    let control = |field: &'static Field| -> Html {
        let decision = field.is_decision();
        let (value, error) = if decision {
            (
                d.text(field).to_string(),
                d.error(field).map(str::to_string),
            )
        } else {
            (
                state.texts.get(field).to_string(),
                state
                    .error
                    .as_ref()
                    .filter(|e| e.field == field.key)
                    .map(|e| e.message.clone()),
            )
        };
        let on_input = if decision {
            edit_decision(field)
        } else {
            edit_scenario(field)
        };
        if field.kind == Kind::Choice {
            let options: Vec<(String, String)> = field
                .choices
                .iter()
                .map(|(v, l)| ((*v).to_string(), (*l).to_string()))
                .collect();
            select_field(field.key, field.label, &options, &value, None, on_input)
        } else {
            NumberField::of(field, value, error, on_input).render()
        }
    };
    let tier_box = |id: &'static str, field: &'static Field, placeholder: &'static str| {
        NumberField {
            id,
            placeholder: Some(placeholder),
            ..NumberField::of(
                field,
                d.text(field).to_string(),
                d.error(field).map(str::to_string),
                edit_decision(field),
            )
        }
        .render()
    };
    html! {
        <section class="panel agents-panel" id="agents" aria-labelledby="agents-title">
            <h2 id="agents-title">{ "Agents: sessions, tier, revenue" }</h2>
            <p class="hint">{ "Agentic mode models coding and tool-using agents: sessions of many turns, each re-sending a growing context the prefix cache mostly holds. The scenario above (model, GPUs, layout, precision) is the deployment; its input and output lengths are a session's first prompt and each turn's output, and the slider counts agents in flight." }</p>
            { select_field(AGENT_MODE_ID, "Agentic mode (workload)", &mode_choices(), mode, None, on_mode) }
            if mode != crate::page::agents::MODE_OFF {
                <fieldset class="decision-fieldset">
                    <legend>{ "Sessions, tier and prices" }</legend>
                    <div class="decision-fields">
                        { for session_fields().map(control) }
                        { tier_box("agents-tok-s-per-user", &TOK_S_PER_USER, "50") }
                        { tier_box("agents-ttft-ceiling-ms", &TTFT_CEILING_MS, "2000") }
                    </div>
                    <p class="hint">{ "The tier's TTFT is the Targets panel's TTFT target when one is set, else this ceiling. Blank API prices: the model's cheapest listing in the catalog, with its date." }</p>
                </fieldset>
                { match computed.as_ref() {
                    Some(view) => agent_numbers(&scenario, view),
                    None => html! { <p class="notice" role="status">{ "The per-turn scenario does not validate here (see the error above)." }</p> },
                } }
            }
        </section>
    }
}

/// The headline, the numbers table, the chart and the assumptions.
fn agent_numbers(scenario: &crate::scenario::Scenario, view: &AgentView) -> Html {
    let answer = &view.answer;
    let rows = point_rows(answer);
    let economics = economics_rows(answer);
    let tier_head = match &answer.at_tier {
        Some(p) => format!("At the tier ({} agents)", p.agents),
        None => "At the tier (none meets it)".to_string(),
    };
    let basis = if answer.at_tier.is_some() {
        "at the tier's point"
    } else {
        "at the slider's agents (none meets the tier)"
    };
    html! {
        <>
            <p class="agents-headline" id="agents-headline" role="status">{ headline(scenario, answer) }</p>
            <table class="agents-numbers" id="agents-numbers">
                <caption>{ format!("Tier: {}", tier_text(answer)) }</caption>
                <thead><tr><th scope="col">{ "Figure" }</th><th scope="col">{ format!("At the slider ({} agents)", answer.at_agents.agents) }</th><th scope="col">{ tier_head }</th><th scope="col">{ "Unit" }</th></tr></thead>
                <tbody>
                    { for rows.into_iter().map(|row| html! {
                        <tr id={format!("agents-{}", row.id)}><th scope="row">{ row.label }</th><td>{ row.at_agents }</td><td>{ row.at_tier }</td><td>{ row.unit }</td></tr>
                    }) }
                </tbody>
            </table>
            <table class="agents-numbers" id="agents-economics">
                <caption>{ format!("Cost and revenue, {basis}") }</caption>
                <tbody>
                    { for economics.into_iter().map(|(id, label, value)| html! {
                        <tr id={format!("agents-{id}")}><th scope="row">{ label }</th><td>{ value }</td></tr>
                    }) }
                </tbody>
            </table>
            <AgentCanvas view={Rc::new(view.clone())} />
            <details class="agents-assumptions" open=true>
                <summary>{ "What these numbers assume" }</summary>
                <ul>{ for answer.assumptions.iter().map(|line| html! { <li>{ line.clone() }</li> }) }</ul>
            </details>
        </>
    }
}

#[derive(Properties, PartialEq)]
struct AgentCanvasProps {
    view: Rc<AgentView>,
}

fn draw(canvas: &web_sys::HtmlCanvasElement, view: &AgentView) -> Result<(), String> {
    let (backend, options) = prepare(canvas, None, FALLBACK_SIZE_CSS_PX)?;
    let answer = &view.answer;
    let chart = AgentChart {
        points: &view.curve,
        tier_tok_s_per_user: answer.tier.tok_s_per_user,
        current: Some((
            answer.figures_at_agents.interactivity_tok_s,
            answer.figures_at_agents.agents_per_gpu,
        )),
        at_tier: answer
            .figures_at_tier
            .as_ref()
            .map(|f| (f.interactivity_tok_s, f.agents_per_gpu)),
    };
    draw_agents(backend.into_drawing_area(), &chart, &options)
}

#[function_component(AgentCanvas)]
fn agent_canvas(props: &AgentCanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let failure = use_state(|| None::<String>);
    {
        let (canvas_ref, failure) = (canvas_ref.clone(), failure.clone());
        use_effect_with(props.view.clone(), move |view| {
            if let Some(canvas) = canvas_ref.cast::<web_sys::HtmlCanvasElement>() {
                let outcome = draw(&canvas, view).err();
                if *failure != outcome {
                    failure.set(outcome);
                }
            }
        });
    }
    let summary = format!(
        "Agents per GPU against interactivity at P{:.0}, agents doubling from 1 to {}; the slider's {} agents and the most agents at the tier marked.",
        props.view.answer.tier.percentile.value(),
        props.view.curve.last().map_or(1, |p| p.agents),
        props.view.answer.at_agents.agents
    );
    html! {
        <div class="load-frame agents-frame">
            <canvas id={AGENT_CHART_ID} ref={canvas_ref} role="img" aria-label={summary.clone()}>
                { summary }
            </canvas>
            if let Some(message) = (*failure).clone() {
                <p class="chart-failure" role="status">{ format!("The agentic chart could not be drawn ({message}).") }</p>
            }
        </div>
    }
}

/// The embed widget's agentic figures (docs/EMBED.md): agents per GPU and per MW and $/M at the
/// tier, with the tier, the hit rate reached and the conditions line, for the state in the
/// slot's `data-state` (the widget keeps it current; a `MutationObserver` follows it).
#[derive(Properties, PartialEq)]
pub struct EmbedAgentsProps {
    pub slot: web_sys::Element,
}

/// The embed's figures as text lines (`None`: the scenario is not agentic or does not validate).
fn embed_lines(query: &str) -> Option<Vec<String>> {
    use crate::present::format::{format_number, format_usd};
    use crate::present::sentences::conditions_line;
    let (view, _) = crate::share::decode(query);
    let scenario = crate::scenario::Scenario::try_from(view.scenario).ok()?;
    let answer = crate::decide::agents::answer(&scenario, &view.decision)?;
    let mut lines = vec![headline(&scenario, &answer)];
    if let Some(tier) = &answer.figures_at_tier {
        let mut figures = format!(
            "At the tier: {} agents per GPU",
            format_number(tier.agents_per_gpu)
        );
        if let Some(per_mw) = tier.agents_per_mw {
            figures.push_str(&format!(", {} per MW", format_number(per_mw)));
        }
        if let Some(cost) = &answer.cost {
            figures.push_str(&format!(
                "; {}/M input, {}/M cached input, {}/M output",
                format_usd(cost.usd_per_m_input),
                format_usd(cost.usd_per_m_cached_input),
                format_usd(cost.usd_per_m_output)
            ));
        }
        lines.push(figures);
    }
    let point = answer.at_tier.as_ref().unwrap_or(&answer.at_agents);
    lines.push(format!(
        "Tier: {} · prefix-cache hit rate reached {:.0} % · {} · {}",
        tier_text(&answer),
        point.hit_rate * 100.0,
        answer
            .power
            .as_ref()
            .map_or_else(|| "no power basis".to_string(), |p| p.describe()),
        conditions_line(&scenario)
    ));
    // The widget's chart and numbers above come from the explorer, which models single requests:
    // say so, so nobody reads them as the sessions' figures.
    lines.push(
        "The chart and figures above are single requests at the link's own lengths; these lines \
         are its agentic sessions (the full explorer's agentic panel has the rest)."
            .to_string(),
    );
    Some(lines)
}

#[function_component(EmbedAgents)]
pub fn embed_agents(props: &EmbedAgentsProps) -> Html {
    let query = use_state({
        let slot = props.slot.clone();
        move || crate::ui::tools::state_of(&slot)
    });
    {
        let setter = query.setter();
        use_effect_with(props.slot.clone(), move |slot| {
            let on_change = Callback::from(move |(text, _): (String, bool)| setter.set(text));
            let watch = crate::ui::tools::StateWatch::new(slot, on_change);
            move || drop(watch)
        });
    }
    let lines = use_memo((*query).clone(), |query| embed_lines(query));
    match lines.as_ref() {
        Some(lines) => html! {
            <div id="embed-agents" class="embed-agents" role="status">
                { for lines.iter().enumerate().map(|(i, line)| html! {
                    <p class={if i == 0 { "embed-agents-headline" } else { "embed-conditions" }}>{ line.clone() }</p>
                }) }
            </div>
        },
        None => Html::default(),
    }
}

/// Mount the embed's agentic figures into the widget's slot, if it has one.
pub fn mount_embed() -> bool {
    let slot = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(crate::ui::platform::bridge::EMBED_AGENTS_SLOT_ID));
    match slot {
        Some(slot) => {
            yew::Renderer::<EmbedAgents>::with_root_and_props(
                slot.clone(),
                EmbedAgentsProps { slot },
            )
            .render();
            true
        }
        None => false,
    }
}
