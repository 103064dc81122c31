//! The technique, workload and advanced fields (`scenario::fields`, groups `Technique`,
//! `Workload`, `Advanced`), the page flags and the pasted model (`page::knobs`), and what they do
//! to the page state: keys and labels, texts that round-trip an input, workload presets, the
//! ideal-roofline switch, a bad efficiency knob, static batching and a pasted `config.json`.

use super::{apply, shown};
use crate::choice::Choice;
use crate::model::evaluate;
use crate::page::fields::{label_for_field, Texts};
use crate::page::knobs::{set_by_ideal_roofline, KnobAction, Knobs};
use crate::page::state::{Action, State};
use crate::physics::efficiency::Efficiency;
use crate::scenario::fields::{
    efficiency_knobs, in_group, workload_of, Field, Group, BATCHING_FIELD, CUSTOM_MODEL,
    CUSTOM_WORKLOAD, ETA_COMPUTE, ETA_MEM, FIELDS, INPUT_LEN, INPUT_SIGMA, LENGTH_DIST_FIELD,
    MAX_NUM_SEQS, MODEL, NUM_PROMPTS, OUTPUT_LEN, PREFIX_HIT, PROTOCOL, SERVER_OVERHEAD_MS,
    SPEC_DECODE_FIELD, UNIFORM_WORKLOAD, WORKLOAD,
};
use crate::scenario::{Scenario, ScenarioInput, WORKLOAD_PRESETS};

fn edit(state: &State, field: &'static Field, text: &str) -> State {
    apply(state, Action::Edit(field, text.into()))
}

/// The preset the `#workload` select shows for the state's texts (as `ui::explorer` reads it).
fn workload(state: &State) -> &'static str {
    state
        .texts
        .parse(&ScenarioInput::default(), None)
        .map_or(CUSTOM_WORKLOAD, |input| workload_of(&input))
}

#[test]
fn every_knob_is_in_the_table_once_with_a_key_that_finds_it_and_a_label() {
    let mut grouped = 0;
    for group in [Group::Technique, Group::Workload, Group::Advanced] {
        for field in in_group(group) {
            assert_eq!(field.group, group, "{field:?}");
            assert_eq!(Field::by_key(field.key), Some(field), "{field:?}");
            assert!(!field.label.is_empty(), "{field:?}");
            assert_eq!(label_for_field(field.key), field.label);
            grouped += 1;
        }
    }
    assert!(grouped > 20, "{grouped}");
    let all: usize = Group::ALL.iter().map(|g| in_group(*g).count()).sum();
    assert_eq!(all, FIELDS.len(), "every field is in exactly one group");
    assert_eq!(Field::by_key("no-such-knob"), None);
}

#[test]
fn error_field_keys_beyond_the_table_get_the_custom_models_labels() {
    assert_eq!(
        label_for_field(CUSTOM_MODEL.key),
        "Custom model (config.json)"
    );
    assert_eq!(
        label_for_field("custom-model.hidden_size"),
        "Custom model `hidden_size`"
    );
    assert_eq!(label_for_field("zzz"), "zzz");
}

#[test]
fn exactly_the_efficiency_knobs_have_a_default_within_their_range() {
    let defaults = Efficiency::NVIDIA_DATACENTER;
    let knobs: Vec<&Field> = efficiency_knobs().collect();
    let advanced: Vec<&Field> = in_group(Group::Advanced).collect();
    // The advanced panel is the engine limit, the efficiency knobs and how the TTFT is measured
    // (server overhead, protocol, benchmark prompts: issue 12 §3).
    assert_eq!(advanced.first(), Some(&&MAX_NUM_SEQS));
    assert_eq!(advanced.get(1..=knobs.len()), Some(knobs.as_slice()));
    assert_eq!(
        advanced.get(knobs.len() + 1..),
        Some([&SERVER_OVERHEAD_MS, &PROTOCOL, &NUM_PROMPTS].as_slice())
    );
    for knob in knobs {
        let value_of = knob.efficiency.expect("an efficiency knob");
        let default = value_of(&defaults);
        let (min, max) = knob.range.expect("a range");
        assert!(min <= default && default <= max, "{knob:?}: {default}");
        assert!(knob.optional, "{knob:?}: blank = the GPU family's default");
    }
    // The ideal roofline overrides only efficiency knobs.
    let ideal: Vec<&Field> = FIELDS
        .iter()
        .copied()
        .filter(|f| set_by_ideal_roofline(f))
        .collect();
    assert_eq!(ideal.len(), 7);
    assert!(ideal.iter().all(|f| f.efficiency.is_some()), "{ideal:?}");
}

#[test]
fn the_knob_texts_of_an_input_read_back_as_the_same_input() {
    let mut tuned = ScenarioInput {
        batching: crate::scenario::Batching::Static,
        spec_decode: Some(crate::scenario::SpecMethod::Eagle),
        spec_accept: Some(0.7),
        spec_len: Some(4.0),
        prefix_hit: 0.25,
        max_num_seqs: Some(128.0),
        ..ScenarioInput::default()
    };
    tuned.efficiency.eta_mem = Some(0.8);
    tuned.efficiency.step_overhead_ms = Some(1.5);
    for input in [ScenarioInput::default(), tuned] {
        let texts = Texts::from_input(&input);
        let knobs = Knobs::from_input(&input);
        let parsed = texts
            .parse(&ScenarioInput::default(), None)
            .and_then(|parsed| knobs.apply(parsed));
        assert_eq!(parsed, Ok(input.clone()));
        assert_eq!(texts.get(&BATCHING_FIELD), input.batching.id());
        assert_eq!(texts.get(&ETA_COMPUTE), "", "unset = the default");
    }
}

#[test]
fn an_empty_required_knob_names_itself() {
    let state = State::initial();
    let next = edit(&state, &PREFIX_HIT, "");
    let error = next.error.as_ref().expect("an error");
    assert_eq!(error.field, "prefix-hit");
    assert_eq!(error.text(), "Prefix-cache hit rate: enter a number");
    assert!(next.view == state.view, "the last good view stays");
}

/// `State::apply` returns `None` when nothing changed (so nothing re-renders): a knob set to
/// the text it already has is no change.
#[test]
fn the_same_knob_text_again_is_no_change() {
    let state = State::initial();
    assert!(
        state
            .apply(Action::Edit(&BATCHING_FIELD, "continuous".into()))
            .is_none(),
        "the same text is no change"
    );
}

/// The state part of the browser test of the same name.
#[test]
fn a_bad_efficiency_knob_names_the_field_and_its_range() {
    let state = State::initial();
    let good = shown(&state);
    let bad = edit(&state, &ETA_MEM, "1.5");
    let message = bad.error.as_ref().expect("an error").text();
    assert!(
        message.contains("Memory-bandwidth efficiency") && message.contains("0.05 to 1"),
        "{message}"
    );
    assert_eq!(
        bad.error.as_ref().map(|e| e.field.as_str()),
        Some("eta-mem")
    );
    assert!(bad.view == state.view, "the last good view stays");
    let empty = edit(&bad, &ETA_MEM, "");
    assert!(empty.error.is_none(), "{:?}", empty.error);
    assert_eq!(*shown(&empty).point, *good.point, "empty = the default");
    let tuned = edit(&empty, &ETA_MEM, "0.9");
    assert_ne!(*shown(&tuned).point, *good.point);
    assert!(shown(&tuned).curve != good.curve, "re-swept");
}

/// The state part of the browser test `static_batching_changes_the_numbers_to_what_the_model_says`.
#[test]
fn static_batching_gives_the_models_numbers_and_back_again() {
    let state = State::initial();
    let before = shown(&state);
    let static_state = edit(&state, &BATCHING_FIELD, "static");
    let scenario = Scenario::try_from(ScenarioInput {
        batching: crate::scenario::Batching::Static,
        ..ScenarioInput::default()
    })
    .expect("valid");
    assert_eq!(
        shown(&static_state).point.output_tok_s,
        evaluate(&scenario).output_tok_s
    );
    assert_ne!(
        shown(&static_state).point.output_tok_s,
        before.point.output_tok_s
    );
    let back = edit(&static_state, &BATCHING_FIELD, "continuous");
    assert_eq!(*shown(&back).point, *before.point, "deterministic");
}

/// The state part of the browser test `a_workload_preset_sets_lengths_spreads_and_the_distribution`.
#[test]
fn a_workload_preset_sets_lengths_spreads_and_the_distribution() {
    let state = State::initial();
    assert_eq!(workload(&state), "chat");
    let code = edit(&state, &WORKLOAD, "code");
    assert_eq!(code.texts.get(&INPUT_LEN), "2048");
    assert_eq!(code.texts.get(&OUTPUT_LEN), "28");
    assert_eq!(code.texts.get(&INPUT_SIGMA), "1.36");
    assert_eq!(code.texts.get(&LENGTH_DIST_FIELD), "lognormal");
    assert_eq!(workload(&code), "code");
    assert_eq!(shown(&code).scenario.input.input_len, 2048.0);
    assert_ne!(*shown(&code).point, *shown(&state).point);
    let uniform = edit(&code, &WORKLOAD, UNIFORM_WORKLOAD);
    assert_eq!(uniform.texts.get(&LENGTH_DIST_FIELD), "fixed");
    assert_eq!(workload(&uniform), UNIFORM_WORKLOAD);
    // Typing a length that matches no preset shows "custom".
    let chat = edit(&uniform, &WORKLOAD, "chat");
    assert_eq!(workload(&chat), "chat");
    let typed = edit(&chat, &INPUT_LEN, "1000");
    assert_eq!(workload(&typed), CUSTOM_WORKLOAD);
    // Changed on purpose: an unknown preset is an error naming `#workload` (like any other bad
    // value; it used to be ignored), and the texts and the last good view stay.
    let unknown = edit(&state, &WORKLOAD, "no-such-preset");
    let error = unknown.error.as_ref().expect("an unknown preset");
    assert_eq!(error.field, "workload");
    assert!(
        error.text().starts_with("Workload: unknown workload"),
        "{}",
        error.text()
    );
    assert_eq!(unknown.texts, state.texts);
    assert!(unknown.view == state.view, "the last good view stays");
    let fixed = edit(&unknown, &WORKLOAD, "chat");
    assert!(fixed.error.is_none(), "{:?}", fixed.error);
}

#[test]
fn the_workload_choices_are_the_presets_then_uniform_and_custom() {
    let ids: Vec<&str> = WORKLOAD.choices.iter().map(|(id, _)| *id).collect();
    let mut expected: Vec<&str> = WORKLOAD_PRESETS.iter().map(|p| p.id).collect();
    // With the session model (issue 27), the agentic presets follow the single-request ones.
    #[cfg(feature = "session-model")]
    expected.extend(
        <crate::scenario::session_preset::SessionPreset as crate::choice::Choice>::ALL
            .iter()
            .map(|p| crate::choice::Choice::id(*p)),
    );
    expected.extend([UNIFORM_WORKLOAD, CUSTOM_WORKLOAD]);
    assert_eq!(ids, expected);
    assert!(ids.contains(&workload(&State::initial())));
    assert!(ids.contains(&workload_of(&ScenarioInput::default())));
}

#[test]
fn ideal_roofline_raises_throughput_and_stays_out_of_links() {
    let state = State::initial();
    let view = shown(&state);
    let ideal = apply(&state, Action::Knob(KnobAction::IdealRoofline(true)));
    let ideal_view = shown(&ideal);
    assert!(ideal_view.point.output_tok_s > view.point.output_tok_s);
    assert!(ideal_view.scenario.efficiency.blend_p.is_infinite());
    assert_eq!(
        ideal_view.scenario.input.efficiency.blend_p, None,
        "URL-safe"
    );
    assert!(ideal_view.curve != view.curve, "re-swept");
    assert!(ideal
        .apply(Action::Knob(KnobAction::IdealRoofline(true)))
        .is_none());
    let back = apply(&ideal, Action::Knob(KnobAction::IdealRoofline(false)));
    assert_eq!(*shown(&back).point, *view.point, "the same numbers again");
    // A page flag: loading a view (an import, or a state the tools apply) keeps it on.
    let mut other = ideal.view_state();
    other.scenario.gpu_count = 2.0;
    let loaded = apply(&ideal, Action::Load(Box::new(other)));
    assert!(loaded.knobs.ideal_roofline);
    assert!(shown(&loaded).scenario.efficiency.blend_p.is_infinite());
}

#[test]
fn ideal_roofline_survives_a_slider_move_and_an_edit() {
    let ideal = apply(
        &State::initial(),
        Action::Knob(KnobAction::IdealRoofline(true)),
    );
    let moved = apply(&ideal, Action::MoveSlider(0));
    assert!(shown(&moved).scenario.efficiency.blend_p.is_infinite());
    assert!(shown(&moved).curve == shown(&ideal).curve, "no re-sweep");
    let edited = edit(&moved, &OUTPUT_LEN, "400");
    assert!(shown(&edited).scenario.efficiency.blend_p.is_infinite());
    let spec = edit(&edited, &SPEC_DECODE_FIELD, "eagle");
    assert!(shown(&spec).scenario.efficiency.blend_p.is_infinite());
}

const LLAMA_8B_CONFIG: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
  "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
  "tie_word_embeddings": false, "model_type": "llama", "_name_or_path": "my-llama"}"#;

/// The state part of the browser test `a_pasted_config_json_becomes_the_model`.
#[test]
fn a_pasted_config_json_becomes_the_model() {
    let state = State::initial();
    let paste = |state: &State, text: &str| {
        apply(state, Action::Knob(KnobAction::CustomConfig(text.into())))
    };
    let custom = edit(&state, &MODEL, "custom");
    let message = custom.error.as_ref().expect("nothing pasted yet").text();
    assert!(message.contains("custom"), "{message}");
    assert!(custom.view == state.view, "the last good view stays");

    let not_json = paste(&custom, "{ not json");
    let message = not_json.error.as_ref().expect("an error").text();
    assert!(message.contains("not valid JSON"), "{message}");
    assert_eq!(
        not_json.error.as_ref().map(|e| e.field.as_str()),
        Some(CUSTOM_MODEL.key)
    );
    let partial = paste(&not_json, r#"{"num_hidden_layers": 32}"#);
    let message = partial.error.as_ref().expect("an error").text();
    assert!(message.contains("`hidden_size` is missing"), "{message}");
    assert!(partial.view == state.view, "the last good view stays");
    let blank = paste(&partial, "  ");
    assert!(blank.error.is_some(), "a blank paste is still no model");

    let llama = paste(&blank, LLAMA_8B_CONFIG);
    assert!(llama.error.is_none(), "{:?}", llama.error);
    assert!(
        llama.view_state().scenario.custom_model.is_some(),
        "in links"
    );
    let catalog_8b = Scenario::try_from(ScenarioInput {
        model: "llama-3.1-8b".into(),
        ..ScenarioInput::default()
    })
    .expect("valid");
    assert_eq!(
        shown(&llama).point.output_tok_s,
        evaluate(&catalog_8b).output_tok_s,
        "the same architecture as the catalog's Llama 3.1 8B"
    );
    // Back to a catalog model: the pasted one no longer rides along.
    let catalog = edit(&llama, &MODEL, "llama-3.1-8b");
    assert_eq!(catalog.view_state().scenario.custom_model, None);
    assert!(
        llama
            .apply(Action::Knob(KnobAction::CustomConfig(
                LLAMA_8B_CONFIG.into()
            )))
            .is_none(),
        "the same paste is no change"
    );
}
