//! The embed widget's `controls=` list read as fields of the table: any field can be a control
//! (the widget renders the field's own control); an unknown key is named in a notice.

use crate::scenario::fields::{Field, GPUS};

/// The embed's `controls=` keys as fields, in order and without repeats, and a notice per key
/// that names no field.
pub fn embed_controls(ids: &[String]) -> (Vec<&'static Field>, Vec<String>) {
    let mut fields = Vec::new();
    let mut notices = Vec::new();
    for id in ids {
        // `gpu-count` is what links before the field table called `gpus`.
        let key = if id == "gpu-count" {
            GPUS.key
        } else {
            id.as_str()
        };
        match Field::by_key(key) {
            Some(field) if !fields.contains(&field) => fields.push(field),
            Some(_) => {}
            None => notices.push(format!(
                "ignored control `{id}`: not a field (see docs/EMBED.md for the list)"
            )),
        }
    }
    (fields, notices)
}
