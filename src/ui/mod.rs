//! The dashboard UI (Leptos, client-side). Pure helpers (URL hash, drop grouping)
//! compile everywhere and are tested natively; the views compile for wasm32 only.

pub mod load_plan;
pub mod order;
pub mod route;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
pub mod breakdowns;
#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
pub mod compare;
#[cfg(target_arch = "wasm32")]
pub mod complexity;
#[cfg(target_arch = "wasm32")]
pub mod conversation;
#[cfg(target_arch = "wasm32")]
pub mod dropped;
#[cfg(target_arch = "wasm32")]
pub mod dropzone;
#[cfg(target_arch = "wasm32")]
pub mod errors;
#[cfg(target_arch = "wasm32")]
pub mod export;
#[cfg(target_arch = "wasm32")]
pub mod files;
#[cfg(target_arch = "wasm32")]
#[cfg(target_arch = "wasm32")]
pub mod many;
#[cfg(target_arch = "wasm32")]
pub mod overview;
#[cfg(target_arch = "wasm32")]
pub mod picked_files;
#[cfg(target_arch = "wasm32")]
pub mod query;
#[cfg(target_arch = "wasm32")]
pub mod review;
#[cfg(target_arch = "wasm32")]
pub mod rows;
#[cfg(target_arch = "wasm32")]
pub mod saved;
#[cfg(target_arch = "wasm32")]
pub mod screen;
#[cfg(target_arch = "wasm32")]
pub mod settings;
#[cfg(target_arch = "wasm32")]
pub mod sidebar;
#[cfg(target_arch = "wasm32")]
pub mod store;
#[cfg(target_arch = "wasm32")]
pub mod tabs;
#[cfg(target_arch = "wasm32")]
pub mod watch;
#[cfg(target_arch = "wasm32")]
pub mod widgets;

#[cfg(target_arch = "wasm32")]
pub use app::App;
