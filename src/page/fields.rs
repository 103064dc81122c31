//! The scenario controls as the page knows them: which fields there are (ids = scenario field
//! names = control ids), their raw texts, how a text becomes a number, and the `InputError`
//! message that names the field. Parsing only; validation is `Scenario::try_from`'s job.

use crate::scenario::{ScenarioError, ScenarioInput};

/// The scenario controls on the page. `id()` is both the element id and the `ScenarioError`
/// field name, so an error lands on the control that caused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Model,
    Gpu,
    GpuCount,
    Tp,
    Precision,
    KvPrecision,
    InputLen,
    OutputLen,
    UsdPerGpuHour,
}

impl Field {
    pub const ALL: [Field; 9] = [
        Field::Model,
        Field::Gpu,
        Field::GpuCount,
        Field::Tp,
        Field::Precision,
        Field::KvPrecision,
        Field::InputLen,
        Field::OutputLen,
        Field::UsdPerGpuHour,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Field::Model => "model",
            Field::Gpu => "gpu",
            Field::GpuCount => "gpu-count",
            Field::Tp => "tp",
            Field::Precision => "precision",
            Field::KvPrecision => "kv-precision",
            Field::InputLen => "input-len",
            Field::OutputLen => "output-len",
            Field::UsdPerGpuHour => "usd-per-gpu-hour",
        }
    }

    /// The label the page shows (and error messages start with).
    pub fn label(self) -> &'static str {
        match self {
            Field::Model => "Model",
            Field::Gpu => "GPU",
            Field::GpuCount => "GPU count",
            Field::Tp => "Tensor parallel (TP)",
            Field::Precision => "Weight precision",
            Field::KvPrecision => "KV-cache precision",
            Field::InputLen => "Input length",
            Field::OutputLen => "Output length",
            Field::UsdPerGpuHour => "Price per GPU-hour",
        }
    }

    pub fn from_id(id: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|field| field.id() == id)
    }
}

/// The raw text of every control, exactly as shown.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldTexts {
    pub model: String,
    pub gpu: String,
    pub gpu_count: String,
    pub tp: String,
    pub precision: String,
    pub kv_precision: String,
    pub input_len: String,
    pub output_len: String,
    pub usd_per_gpu_hour: String,
}

/// How a number is shown in a text box: `8`, `1155`, `3.125` (Rust's shortest round-trip form).
pub fn number_text(value: f64) -> String {
    format!("{value}")
}

impl FieldTexts {
    pub fn from_input(input: &ScenarioInput) -> FieldTexts {
        FieldTexts {
            model: input.model.clone(),
            gpu: input.gpu.clone(),
            gpu_count: number_text(input.gpu_count),
            tp: input.tp.map_or_else(|| "auto".to_string(), number_text),
            precision: input.precision.clone(),
            kv_precision: input.kv_precision.clone(),
            input_len: number_text(input.input_len),
            output_len: number_text(input.output_len),
            usd_per_gpu_hour: input.usd_per_gpu_hour.map_or_else(String::new, number_text),
        }
    }

    pub fn get(&self, field: Field) -> &str {
        match field {
            Field::Model => &self.model,
            Field::Gpu => &self.gpu,
            Field::GpuCount => &self.gpu_count,
            Field::Tp => &self.tp,
            Field::Precision => &self.precision,
            Field::KvPrecision => &self.kv_precision,
            Field::InputLen => &self.input_len,
            Field::OutputLen => &self.output_len,
            Field::UsdPerGpuHour => &self.usd_per_gpu_hour,
        }
    }

    fn slot(&mut self, field: Field) -> &mut String {
        match field {
            Field::Model => &mut self.model,
            Field::Gpu => &mut self.gpu,
            Field::GpuCount => &mut self.gpu_count,
            Field::Tp => &mut self.tp,
            Field::Precision => &mut self.precision,
            Field::KvPrecision => &mut self.kv_precision,
            Field::InputLen => &mut self.input_len,
            Field::OutputLen => &mut self.output_len,
            Field::UsdPerGpuHour => &mut self.usd_per_gpu_hour,
        }
    }

    pub fn set(&mut self, field: Field, text: String) {
        *self.slot(field) = text;
    }
}

/// A message for the `#input-error` box, naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Kebab-case field id (a control id when the field is on the page).
    pub field: String,
    pub message: String,
}

impl InputError {
    pub fn new(field: Field, message: impl Into<String>) -> InputError {
        InputError {
            field: field.id().to_string(),
            message: message.into(),
        }
    }

    /// "Input length: must be a number from 1 to …": the control's label, or the raw field name.
    pub fn text(&self) -> String {
        let label = match Field::from_id(&self.field) {
            Some(field) => field.label().to_string(),
            None => crate::page::knobs::label_for_field(&self.field)
                .unwrap_or_else(|| self.field.clone()),
        };
        format!("{label}: {}", self.message)
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

/// Parse a number typed by a user: surrounding spaces and a leading `$` are fine; anything else
/// that is not a number is an error naming the field.
pub fn parse_number(field: Field, text: &str) -> Result<f64, InputError> {
    let trimmed = text.trim();
    let trimmed = trimmed.strip_prefix('$').unwrap_or(trimmed).trim();
    if trimmed.is_empty() {
        return Err(InputError::new(field, "enter a number"));
    }
    trimmed
        .parse::<f64>()
        .map_err(|_| InputError::new(field, format!("“{}” is not a number", text.trim())))
}

/// The scenario the texts describe, on top of `base` (which supplies everything the page does
/// not show, and the current concurrency). The first unparseable field is the error, preferring
/// `edited` so the message matches what the user just typed.
pub fn input_from_texts(
    base: &ScenarioInput,
    texts: &FieldTexts,
    edited: Option<Field>,
) -> Result<ScenarioInput, InputError> {
    let mut input = base.clone();
    let order = edited
        .into_iter()
        .chain(Field::ALL.into_iter().filter(|f| Some(*f) != edited));
    let mut first_error = None;
    for field in order {
        let text = texts.get(field);
        let parsed = match field {
            Field::Model => {
                input.model = text.to_string();
                Ok(())
            }
            Field::Gpu => {
                input.gpu = text.to_string();
                Ok(())
            }
            Field::Precision => {
                input.precision = text.to_string();
                Ok(())
            }
            Field::KvPrecision => {
                input.kv_precision = text.to_string();
                Ok(())
            }
            Field::GpuCount => parse_number(field, text).map(|v| input.gpu_count = v),
            Field::Tp => {
                if text.trim().eq_ignore_ascii_case("auto") || text.trim().is_empty() {
                    input.tp = None;
                    Ok(())
                } else {
                    parse_number(field, text).map(|v| input.tp = Some(v))
                }
            }
            Field::InputLen => parse_number(field, text).map(|v| input.input_len = v),
            Field::OutputLen => parse_number(field, text).map(|v| input.output_len = v),
            Field::UsdPerGpuHour => {
                parse_number(field, text).map(|v| input.usd_per_gpu_hour = Some(v))
            }
        };
        if let (Err(error), None) = (parsed, &first_error) {
            first_error = Some(error);
        }
    }
    match first_error {
        Some(error) => Err(error),
        None => Ok(input),
    }
}
