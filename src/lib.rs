//! evalboard dashboard library: the worker protocol (pure, tested natively) and, on wasm32, the
//! Web Worker that owns the engine and the Leptos UI.

pub mod codegen;
pub mod evallog;
pub mod evalset;
pub mod exports;
pub mod families;
pub mod format;
pub mod lake_job;
#[cfg(any(feature = "lake", all(test, not(target_arch = "wasm32"))))]
pub mod lake_view;
pub mod many;
pub mod pair;
pub mod protocol;
pub mod qa_items;
pub mod qa_screens;
pub mod query_view;
pub mod review;
pub mod run_label;
pub mod screen;
pub mod ui;
pub mod warmup;

#[cfg(target_arch = "wasm32")]
pub mod charts;
#[cfg(target_arch = "wasm32")]
pub mod codegen_host;
#[cfg(target_arch = "wasm32")]
pub mod codegen_worker;
#[cfg(target_arch = "wasm32")]
pub mod js_error;
#[cfg(target_arch = "wasm32")]
pub mod lake_host;
#[cfg(all(target_arch = "wasm32", feature = "lake"))]
pub mod lake_worker;
#[cfg(target_arch = "wasm32")]
pub mod worker;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tidy;
