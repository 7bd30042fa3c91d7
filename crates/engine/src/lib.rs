//! evalboard's scoring engine: pure Rust, no I/O, no clock, no DOM; the same code runs natively
//! (CLI) and in wasm32 (dashboard).
//!
//! Pipeline: [`input::RunInput`] → detect format ([`formats`]) → canonical [`model`] → score
//! ([`scorers`], versioned) → [`aggregate`] → typed output DTOs.

pub mod aggregate;
pub mod codegen;
pub mod compare;
pub mod diag;
pub mod evalset;
pub mod formats;
pub mod input;
pub mod model;
pub mod number;
#[cfg(not(target_arch = "wasm32"))]
pub mod parallel;
pub mod pipeline;
pub mod program;
pub mod pyrepr;
pub mod qa_compare;
pub mod run_meta;
pub mod scorers;
pub mod validate;
pub mod views;

pub use diag::{Diagnostic, Severity};
pub use input::{InputFile, RunInput};
