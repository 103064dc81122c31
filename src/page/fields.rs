//! The page's controls as texts: one text per scenario field that has a control (every field of
//! `scenario::fields` but the slider's concurrency, the pasted model and the derived workload
//! preset), exactly as typed, and the `InputError` that names a field. The texts are the source of
//! truth: every edit re-parses all of them through the table's setters (so a bad field stays an
//! error until fixed, even while another changes); validation is `Scenario::try_from`'s job.

use crate::scenario::fields::{Field, CONCURRENCY, CUSTOM_MODEL, FIELDS};
use crate::scenario::{ScenarioError, ScenarioInput};

pub use crate::scenario::fields::number_text;

/// True for the scenario fields whose text the page keeps (`Texts`).
pub fn has_text(field: &Field) -> bool {
    !field.is_decision() && !field.derived && *field != CONCURRENCY && *field != CUSTOM_MODEL
}

/// The text of every scenario control, keyed by field key, sorted by key. A sorted list, not a
/// `BTreeMap`: some forty keys, and the B-tree's code would be in the page's first load
/// (`catalog::csv::Record`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Texts(Vec<(&'static str, String)>);

impl Texts {
    /// The controls' texts for an input (a link, an import, the defaults).
    pub fn from_input(input: &ScenarioInput) -> Texts {
        // Inserted one by one: sorting the entries would bring a sort's code into the first
        // load (see `model::grid::sort_small`).
        let mut texts = Texts::default();
        for field in FIELDS.iter().copied().filter(|field| has_text(field)) {
            if let Some(text) = field.get_scenario(input) {
                texts.set(field, text);
            }
        }
        texts
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| (*k).cmp(key))
    }

    /// The field's text ("" for a field without one).
    pub fn get(&self, field: &Field) -> &str {
        self.find(field.key)
            .ok()
            .and_then(|at| self.0.get(at))
            .map_or("", |(_, text)| text.as_str())
    }

    pub fn set(&mut self, field: &'static Field, text: String) {
        if has_text(field) {
            match self.find(field.key) {
                Ok(at) => {
                    if let Some(entry) = self.0.get_mut(at) {
                        entry.1 = text;
                    }
                }
                Err(at) => self.0.insert(at, (field.key, text)),
            }
        }
    }

    /// The scenario the texts describe, on top of `base` (which supplies the concurrency and the
    /// custom model). The first text that does not parse is the error, preferring `edited` so the
    /// message matches what the user just typed.
    pub fn parse(
        &self,
        base: &ScenarioInput,
        edited: Option<&Field>,
    ) -> Result<ScenarioInput, InputError> {
        let mut input = base.clone();
        let order = edited
            .into_iter()
            .chain(FIELDS.iter().copied().filter(|f| Some(*f) != edited))
            .filter(|field| has_text(field));
        let mut first_error = None;
        for field in order {
            if let Err(message) = field.set_scenario(&mut input, self.get(field)) {
                first_error.get_or_insert(InputError {
                    field: field.key.to_string(),
                    message,
                });
            }
        }
        match first_error {
            Some(error) => Err(error),
            None => Ok(input),
        }
    }
}

/// A message for the `#input-error` box, naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The field's key (a control id when the field is on the page), or `custom-model.<key>`.
    pub field: String,
    pub message: String,
}

impl InputError {
    pub fn new(field: &Field, message: impl Into<String>) -> InputError {
        InputError {
            field: field.key.to_string(),
            message: message.into(),
        }
    }

    /// "Input length: must be a number from 1 to …": the field's label, or the raw name.
    pub fn text(&self) -> String {
        format!("{}: {}", label_for_field(&self.field), self.message)
    }
}

/// The label for an error's field: the table's, "Custom model `key`" for a part of a pasted
/// model, or the raw name.
pub fn label_for_field(key: &str) -> String {
    if let Some(field) = Field::by_key(key) {
        return field.label.to_string();
    }
    match key.split_once('.') {
        Some((model, part)) if model == CUSTOM_MODEL.key => format!("Custom model `{part}`"),
        _ => key.to_string(),
    }
}

impl From<ScenarioError> for InputError {
    fn from(error: ScenarioError) -> InputError {
        InputError {
            field: error.field,
            message: error.message,
        }
    }
}
