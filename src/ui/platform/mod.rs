//! Glue to the browser that is not a component: the panic banner, User Timing marks, the bench
//! hook, the plotters canvas backend, the URL and localStorage, downloads, and the link to the
//! deferred tools module.

pub mod bench_hook;
pub mod canvas_backend;
pub mod download;
pub mod panic;
pub mod perf;
pub mod share_sync;
pub mod tools_link;
