//! Glossary terms on the page, from the one table in `crate::present::glossary`: `Term` marks a name
//! where it appears (focusable, its definition shows on hover and on keyboard focus, Escape
//! hides it again, WCAG 1.4.13), and `GlossaryPanel` lists every entry with its definition.
//!
//! Use it wherever a metric or technique is named, e.g. a control's label:
//! `<Term term={glossary::SPECULATIVE_DECODING} />` (shows the table's name) or with children
//! for different wording: `<Term term={glossary::TPOT}>{ "time per token" }</Term>`.

use crate::present::glossary::{Term as Entry, TERMS};
use std::sync::atomic::{AtomicU32, Ordering};
use yew::prelude::*;

/// Id of the glossary panel (`#glossary`), e.g. for a "see the glossary" link.
pub const GLOSSARY_ID: &str = "glossary";

/// Numbers the tooltips so a term named twice on the page gets two distinct ids.
static NEXT_TOOLTIP: AtomicU32 = AtomicU32::new(0);

#[derive(Properties, PartialEq)]
pub struct TermProps {
    pub term: Entry,
    /// The text shown; the table's name when empty.
    #[prop_or_default]
    pub children: Html,
}

/// A tooltip the reader can dismiss (WCAG 1.4.13): Escape hides it while focus or the pointer
/// stays, leaving (blur, mouse leave) re-arms it. Shared by every element with a definition
/// (`Term`, `Metric`, `TermHead`).
pub struct DismissableTip {
    /// Add `tip-dismissed` to the element's classes when set.
    pub dismissed: bool,
    pub onkeydown: Callback<KeyboardEvent>,
    pub onblur: Callback<FocusEvent>,
    pub onmouseleave: Callback<MouseEvent>,
}

#[hook]
pub fn use_dismissable_tip() -> DismissableTip {
    let dismissed = use_state(|| false);
    let onkeydown = {
        let dismissed = dismissed.clone();
        Callback::from(move |event: KeyboardEvent| {
            if event.key() == "Escape" {
                dismissed.set(true);
            }
        })
    };
    let onblur = {
        let dismissed = dismissed.clone();
        Callback::from(move |_: FocusEvent| dismissed.set(false))
    };
    let onmouseleave = {
        let dismissed = dismissed.clone();
        Callback::from(move |_: MouseEvent| dismissed.set(false))
    };
    DismissableTip {
        dismissed: *dismissed,
        onkeydown,
        onblur,
        onmouseleave,
    }
}

#[function_component(Term)]
pub fn term(props: &TermProps) -> Html {
    let tip_id = use_state(|| {
        format!(
            "term-{}-{}",
            props.term.id,
            NEXT_TOOLTIP.fetch_add(1, Ordering::Relaxed)
        )
    });
    let tip = use_dismissable_tip();
    let text = if props.children == Html::default() {
        Html::from(props.term.name)
    } else {
        props.children.clone()
    };
    html! {
        <span class={classes!("term", tip.dismissed.then_some("tip-dismissed"))}
            tabindex="0" data-term={props.term.id} aria-describedby={(*tip_id).clone()}
            onkeydown={tip.onkeydown} onblur={tip.onblur} onmouseleave={tip.onmouseleave}>
            { text }
            <span class="tooltip" role="tooltip" id={(*tip_id).clone()}>{ props.term.definition }</span>
        </span>
    }
}

/// Every glossary entry with its definition, always readable (not only on hover). A component
/// without props, so the page's re-renders (every slider move) skip it.
#[function_component(GlossaryPanel)]
pub fn glossary_panel() -> Html {
    html! {
        <section class="panel glossary" id={GLOSSARY_ID} aria-labelledby="glossary-title">
            <h2 id="glossary-title">{ "Glossary" }</h2>
            <dl class="glossary-list">
                { for TERMS.iter().map(|entry| html! {
                    <div class="glossary-entry">
                        <dt id={format!("glossary-{}", entry.id)} data-term={entry.id}>{ entry.name }</dt>
                        <dd>{ entry.definition }</dd>
                    </div>
                }) }
            </dl>
        </section>
    }
}
