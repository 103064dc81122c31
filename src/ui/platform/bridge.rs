//! The contract between the page's two wasm modules, the explorer (bin `web`) and the deferred
//! tools module (bin `tools`): every element id, attribute and event name both of them use. The
//! modules share no memory and talk only through the DOM, so a name here is written by one side
//! and read by the other. It sits in `platform`, on the explorer's side of the tree, so the
//! explorer never imports from the deferred module (`tests/tidy.rs` checks that nothing under
//! `ui/explorer`, `ui/widgets` or `ui/platform` names `ui::tools`). Plain `&str` constants: they
//! inline, so the contract costs the first load nothing.
//!
//! **The host.** `#tools` (`TOOLS_ROOT_ID`, in `index.html`, outside the explorer's `#app`: each
//! Yew root delegates events from its own root, and a nested root would see the other's). The
//! explorer writes its attributes (`tools_link::use_tools_link`); the tools mount into it and read
//! them (`ui::tools::mount`, `StateWatch`):
//! - `data-state` (`STATE_ATTR`): the explorer's state as a share query (`share::encode` of
//!   `State::view_state`), rewritten after a render that changed it. The tools follow it with a
//!   `MutationObserver` and a zero-delay timeout into their replica (`Action::Sync`).
//! - `data-ideal-roofline` (`IDEAL_ATTR`): present while the explorer's ideal-roofline switch is
//!   on (a page flag outside the share query).
//! - `data-persist` (`PERSIST_ATTR`): the real page; the tools read and save pins in
//!   `localStorage`. `data-restore-pins` (`RESTORE_PINS_ATTR`): the page did not open from a
//!   link, so saved pins come back. Both are set once, before the module is imported.
//!
//! **Events** the tools dispatch on the host (a `CustomEvent` whose `detail` is a string) and the
//! explorer listens to:
//! - `servecost:overlay` (`OVERLAY_EVENT`): `present::chart::Overlay::encode`, the pinned curves,
//!   SLO misses and measured points the chart draws.
//! - `servecost:apply` (`APPLY_EVENT`): a share query the explorer loads as if from a link (pins,
//!   a plan's or a calibration's Apply, a price tier, an import, a leaderboard row).
//! - `servecost:headline` (`HEADLINE_EVENT`): `share::scenario_key`, a line break, then
//!   `decide::headline::Reconciled::encode`: the simulator's run of the slider's point.
//! - `servecost:auto-layout` (`LAYOUT_EVENT`): `page::knobs::AutoLayout::encode`, empty for none:
//!   the layout "auto" chose for the question asked.
//!
//! **Slots.** Empty elements the explorer renders and the tools fill through portals, found by id
//! when the tools mount: `NOTES_SLOT_ID`, `GAP_SLOT_ID`, `MEASURED_SLOT_ID`, `CONTRAST_SLOT_ID`,
//! `ERROR_SOURCE_SLOT_ID`; `SHARE_SLOT_ID` is the masthead's (`index.html`). The embed widget's
//! `EMBED_AGENTS_SLOT_ID` carries its own `data-state` (the widget's state as a share query), which
//! the tools' agentic block follows the same way.
//!
//! When the tools have mounted they set the `servecost:tools-ready` performance mark
//! (`perf::TOOLS_READY_MARK`), which the browser tests and `scripts/bench` wait for.

/// The element the tools module mounts into: `<div id="tools">` in `index.html`.
pub const TOOLS_ROOT_ID: &str = "tools";
/// The masthead's slot for the tools' share-and-export bar (`index.html`).
pub const SHARE_SLOT_ID: &str = "share-slot";

/// explorer → tools: the explorer's state as a share query.
pub const STATE_ATTR: &str = "data-state";
/// explorer → tools: present while the "ideal roofline" switch is on, a page flag outside the
/// share query (`page::knobs`) that the tools' numbers must follow all the same.
pub const IDEAL_ATTR: &str = "data-ideal-roofline";
/// explorer → tools: the real page; read and save pins in `localStorage`.
pub const PERSIST_ATTR: &str = "data-persist";
/// explorer → tools: the page did not open from a link, so saved pins come back.
pub const RESTORE_PINS_ATTR: &str = "data-restore-pins";

/// tools → explorer: the chart overlay to draw (detail: `Overlay::encode`).
pub const OVERLAY_EVENT: &str = "servecost:overlay";
/// tools → explorer: a state the tools changed (detail: a share query) for the explorer to load.
pub const APPLY_EVENT: &str = "servecost:apply";
/// tools → explorer: the simulator's headline figures for the slider's point (detail:
/// `share::scenario_key`, a line break, `decide::headline::Reconciled::encode`; issue 26 §4).
pub const HEADLINE_EVENT: &str = "servecost:headline";
/// tools → explorer: the layout "auto" chose for the question asked (detail:
/// `page::knobs::AutoLayout::encode`, empty for none; issue 26 §2).
pub const LAYOUT_EVENT: &str = "servecost:auto-layout";

/// Slot beside the chart for the tools' notes (`ui::tools::notes`).
pub const NOTES_SLOT_ID: &str = "notes-slot";
/// Slot for the tools' production-gap waterfall (`ui::tools::production_gap`).
pub const GAP_SLOT_ID: &str = "production-gap-slot";
/// Slot under the chart for the tools' measured points (`ui::tools::measured_panel`).
pub const MEASURED_SLOT_ID: &str = "measured-slot";
/// Slot in the numbers panel for the tools' other-deployment line (`ui::tools::contrast`).
pub const CONTRAST_SLOT_ID: &str = "deployment-contrast-slot";
/// Slot below the latencies for the tools' "± expected error" details (`ui::tools::error_source`).
pub const ERROR_SOURCE_SLOT_ID: &str = "error-source-slot";
/// The embed widget's slot for the agentic figures when the link is agentic (issue 27 §4); its
/// `data-state` holds the widget's state as a share query.
pub const EMBED_AGENTS_SLOT_ID: &str = "embed-agents-slot";
