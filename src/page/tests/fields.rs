//! The scenario controls' texts (`page::fields`) over the field table (`scenario::fields`): keys
//! that find their field again, how a typed text becomes a number, texts that round-trip an
//! input, which error wins, and the messages that name the field.

use crate::page::fields::{has_text, label_for_field, number_text, InputError, Texts};
use crate::scenario::fields::{
    parse_number, Field, Group, CONCURRENCY, CUSTOM_MODEL, FIELDS, GPUS, INPUT_LEN, OUTPUT_LEN,
    SLO_TTFT_MS, TP, WORKLOAD,
};
use crate::scenario::{Scenario, ScenarioInput};

#[test]
fn every_field_has_a_distinct_key_that_finds_it_again() {
    for field in FIELDS {
        assert_eq!(Field::by_key(field.key), Some(*field), "{field:?}");
        assert!(!field.label.is_empty(), "{field:?}");
        let same_key = FIELDS.iter().filter(|f| f.key == field.key).count();
        assert_eq!(same_key, 1, "{} is unique", field.key);
    }
    assert_eq!(Field::by_key("no-such-field"), None);
    assert_eq!(Field::by_key("gpu-count"), None, "renamed to `gpus`");
    assert_eq!(Field::by_key("gpus"), Some(&GPUS));
}

#[test]
fn the_page_keeps_a_text_for_every_scenario_control_and_nothing_else() {
    // The slider's concurrency, the pasted model (`Knobs`), the derived workload preset and the
    // decision fields (`DecisionState`) have no text here.
    for field in [&CONCURRENCY, &CUSTOM_MODEL, &WORKLOAD, &SLO_TTFT_MS] {
        assert!(!has_text(field), "{field:?}");
    }
    let with_text = FIELDS.iter().filter(|f| has_text(f)).count();
    let decision = FIELDS.iter().filter(|f| f.group == Group::Decision).count();
    assert_eq!(with_text, FIELDS.len() - decision - 3);
    assert!(FIELDS
        .iter()
        .filter(|f| has_text(f))
        .all(|f| !f.is_decision()));
}

#[test]
fn numbers_allow_spaces_a_dollar_sign_and_separators_and_nothing_else() {
    assert_eq!(parse_number(" $3.5 "), Ok(3.5));
    assert_eq!(parse_number("$ 2"), Ok(2.0));
    assert_eq!(parse_number("1e3"), Ok(1000.0));
    assert_eq!(parse_number("1,000"), Ok(1000.0));
    assert_eq!(parse_number("  "), Err("enter a number".to_string()));
    assert_eq!(
        parse_number(" abc "),
        Err("“abc” is not a number".to_string())
    );
    // Through the page's texts the error names the field and its label.
    let mut texts = Texts::from_input(&ScenarioInput::default());
    texts.set(&GPUS, " abc ".into());
    let word = texts
        .parse(&ScenarioInput::default(), Some(&GPUS))
        .expect_err("a word");
    assert_eq!(word.field, "gpus");
    assert_eq!(word.message, "“abc” is not a number");
    assert_eq!(word.text(), "GPU count: “abc” is not a number");
}

#[test]
fn number_texts_are_the_shortest_round_trip_form() {
    assert_eq!(number_text(8.0), "8");
    assert_eq!(number_text(1155.0), "1155");
    assert_eq!(number_text(3.125), "3.125");
    assert_eq!(number_text(0.1), "0.1");
}

#[test]
fn the_texts_of_an_input_read_back_as_the_same_input() {
    let tp = ScenarioInput {
        model: "llama-3.1-8b".into(),
        gpu: "a100-sxm-80gb".into(),
        gpu_count: 2.0,
        tp: Some(2.0),
        precision: crate::physics::precision::Precision::Bf16,
        input_len: 2000.0,
        output_len: 300.0,
        usd_per_gpu_hour: Some(1.8),
        ..ScenarioInput::default()
    };
    for input in [ScenarioInput::default(), tp] {
        let texts = Texts::from_input(&input);
        assert_eq!(texts.parse(&input, None), Ok(input.clone()));
        // On top of another base, the texts carry every page field.
        let onto = texts
            .parse(&ScenarioInput::default(), None)
            .expect("parses");
        assert_eq!(onto, input);
    }
}

#[test]
fn every_text_is_set_and_read_through_its_field() {
    let mut texts = Texts::default();
    for field in FIELDS {
        texts.set(field, format!("text of {}", field.key));
    }
    for field in FIELDS {
        if has_text(field) {
            assert_eq!(texts.get(field), format!("text of {}", field.key));
        } else {
            assert_eq!(texts.get(field), "", "{field:?} keeps no text");
        }
    }
}

#[test]
fn tensor_parallel_auto_or_blank_means_the_default() {
    let base = ScenarioInput::default();
    for auto in ["auto", " AUTO ", "", "  "] {
        let mut texts = Texts::from_input(&base);
        texts.set(&TP, auto.into());
        let input = texts.parse(&base, None).expect("parses");
        assert_eq!(input.tp, None, "{auto:?}");
    }
    let mut texts = Texts::from_input(&base);
    // The table writes an unset optional as blank (it used to be "auto").
    assert_eq!(texts.get(&TP), "");
    texts.set(&TP, "4".into());
    assert_eq!(texts.parse(&base, None).map(|i| i.tp), Ok(Some(4.0)));
}

#[test]
fn the_edited_field_names_the_error_else_the_first_bad_one() {
    let base = ScenarioInput::default();
    let mut texts = Texts::from_input(&base);
    texts.set(&INPUT_LEN, "x".into());
    texts.set(&OUTPUT_LEN, "y".into());
    let first = texts.parse(&base, None).expect_err("bad");
    assert_eq!(first.field, "input-len");
    let edited = texts.parse(&base, Some(&OUTPUT_LEN)).expect_err("bad");
    assert_eq!(edited.field, "output-len");
    assert_eq!(edited.message, "“y” is not a number");
}

#[test]
fn an_error_text_starts_with_the_label_of_the_field_it_names() {
    let message = |field: &str| InputError {
        field: field.into(),
        message: "m".into(),
    };
    assert_eq!(InputError::new(&INPUT_LEN, "m").text(), "Input length: m");
    assert_eq!(
        message("eta-mem").text(),
        "Memory-bandwidth efficiency η_m: m"
    );
    assert_eq!(
        message("custom-model.hidden_size").text(),
        "Custom model `hidden_size`: m"
    );
    assert_eq!(message("zzz").text(), "zzz: m", "the raw name when unknown");
    // A validation error lands on the control that caused it.
    let invalid = Scenario::try_from(ScenarioInput {
        output_len: 0.0,
        ..ScenarioInput::default()
    })
    .expect_err("no output");
    let error = InputError::from(invalid);
    assert_eq!(error.field, OUTPUT_LEN.key);
    assert!(
        error.text().starts_with("Output length: "),
        "{}",
        error.text()
    );
}

#[test]
fn every_field_key_gets_its_own_label_and_the_rest_a_fallback() {
    for field in FIELDS {
        assert_eq!(label_for_field(field.key), field.label, "{field:?}");
    }
    assert_eq!(
        label_for_field(CUSTOM_MODEL.key),
        "Custom model (config.json)"
    );
    assert_eq!(
        label_for_field("custom-model.hidden_size"),
        "Custom model `hidden_size`"
    );
    assert_eq!(label_for_field("other.hidden_size"), "other.hidden_size");
    assert_eq!(label_for_field("zzz"), "zzz", "the raw name when unknown");
}
