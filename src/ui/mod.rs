//! The dashboard UI (Leptos, client-side). Pure helpers (formatting, URL hash, drop grouping)
//! compile everywhere and are tested natively; the views compile for wasm32 only.

pub mod format;
pub mod load_plan;
pub mod route;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod breakdowns;
#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
mod complexity;
#[cfg(target_arch = "wasm32")]
mod conversation;
#[cfg(target_arch = "wasm32")]
mod dropzone;
#[cfg(target_arch = "wasm32")]
mod errors;
#[cfg(target_arch = "wasm32")]
mod export;
#[cfg(target_arch = "wasm32")]
mod files;
#[cfg(target_arch = "wasm32")]
mod items;
#[cfg(target_arch = "wasm32")]
mod overview;
#[cfg(target_arch = "wasm32")]
mod settings;
#[cfg(target_arch = "wasm32")]
mod sidebar;
#[cfg(target_arch = "wasm32")]
pub mod store;
#[cfg(target_arch = "wasm32")]
mod tabs;
#[cfg(target_arch = "wasm32")]
pub mod widgets;

#[cfg(target_arch = "wasm32")]
pub use app::App;
