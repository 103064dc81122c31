//! The custom model box: shown when the model select says "Custom (paste config.json)". Pasting
//! a Hugging Face `config.json` parses it with `catalog::parse_hf_config` (dense, MoE and MLA
//! layouts; multimodal configs' `text_config`); a bad text shows the parser's message, which
//! names the missing or malformed key, and the last good view stays. A good one shows what was
//! read and the derived parameter count (MODEL.md §1.1).

use crate::catalog::{Arch, Attention, ModelSpec};
use crate::page::knobs::{KnobAction, Knobs};
use crate::physics::architecture::Architecture;
use crate::scenario::fields::{CUSTOM_MODEL, CUSTOM_MODEL_VALUE};

/// Id of the pasted `config.json` text area (and the field its errors name).
const CUSTOM_MODEL_ID: &str = CUSTOM_MODEL.key;
use crate::present::format::format_number;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CustomModelProps {
    pub knobs: Knobs,
    /// The model select's value; the box shows only for `custom`.
    pub model: AttrValue,
    pub error_field: Option<String>,
    pub on_knob: Callback<KnobAction>,
}

/// "8.03 B" from a parameter count.
pub fn billions(params: f64) -> String {
    format!("{} B", format_number(params / 1e9))
}

/// One line on what the pasted config describes.
fn summary(spec: &ModelSpec) -> String {
    let arch = Architecture::new(spec);
    let layout = match (spec.arch, spec.attention) {
        (Arch::Moe, _) => format!(
            "MoE, {} experts, {} per token",
            spec.num_experts.unwrap_or(0),
            spec.experts_per_token.unwrap_or(0)
        ),
        (Arch::Dense, Attention::Mla) => "dense, MLA".into(),
        (Arch::Dense, _) => "dense".into(),
    };
    let attention = match spec.attention {
        Attention::Mla => format!("MLA, KV rank {}", spec.kv_lora_rank.unwrap_or(0)),
        Attention::Gqa => format!("{} heads, {} KV heads", spec.num_heads, spec.num_kv_heads),
        Attention::Mha => format!("{} heads", spec.num_heads),
    };
    let active = if spec.arch == Arch::Moe {
        format!(" ({} active per token)", billions(arch.active_params()))
    } else {
        String::new()
    };
    format!(
        "{}: {layout}; {} layers, hidden {}, {attention}{active}",
        spec.name, spec.num_layers, spec.hidden_size
    )
}

#[function_component(CustomModel)]
pub fn custom_model(props: &CustomModelProps) -> Html {
    if props.model.trim() != CUSTOM_MODEL_VALUE {
        return Html::default();
    }
    let knobs = &props.knobs;
    let oninput = {
        let on_knob = props.on_knob.clone();
        Callback::from(move |event: InputEvent| {
            if let Some(area) = event.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                on_knob.emit(KnobAction::CustomConfig(area.value()));
            }
        })
    };
    let invalid = props
        .error_field
        .as_deref()
        .is_some_and(|f| f.split('.').next() == Some(CUSTOM_MODEL_ID));
    let status = match (&knobs.custom_error, &knobs.custom_model) {
        (Some(message), _) if !knobs.custom_text.is_empty() => html! {
            <p class="hint hint-error" id="custom-model-hint">{ message.clone() }</p>
        },
        (None, Some(spec)) => html! {
            <p class="hint" id="custom-model-hint">
                { "≈ " }<strong data-metric="custom_params_b">{ billions(Architecture::new(spec).total_params()) }</strong>
                { " parameters. " }{ summary(spec) }
            </p>
        },
        _ => html! {
            <p class="hint" id="custom-model-hint">{ "Paste the model's config.json from Hugging Face (dense, MoE or MLA)." }</p>
        },
    };
    html! {
        <div class="field custom-model">
            <label for={CUSTOM_MODEL_ID}>{ "Hugging Face config.json" }</label>
            <textarea
                id={CUSTOM_MODEL_ID}
                rows="6"
                spellcheck="false"
                autocomplete="off"
                placeholder="{ \"num_hidden_layers\": 32, \"hidden_size\": 4096, … }"
                value={knobs.custom_text.clone()}
                aria-invalid={invalid.then_some("true")}
                aria-describedby="custom-model-hint"
                {oninput}
            />
            { status }
        </div>
    }
}
