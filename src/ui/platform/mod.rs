//! Glue to the browser that is not a component: the panic banner, User Timing marks, the bench
//! hook, the plotters canvas backend, the URL and localStorage, downloads, the link to the
//! deferred tools module, and the names both modules use to talk (`bridge`).

pub mod bench_hook;
pub mod bridge;
pub mod canvas_backend;
pub mod download;
pub mod panic;
pub mod perf;
pub mod share_sync;
pub mod tools_link;
