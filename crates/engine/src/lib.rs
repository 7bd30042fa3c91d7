//! evalboard's scoring engine: pure Rust, no I/O, no clock, no DOM; the same code runs natively
//! (CLI) and in wasm32 (dashboard).
//!
//! Pipeline: [`input::RunInput`] → detect format ([`formats`]) → canonical [`model`] → score
//! ([`scorers`], versioned) → [`aggregate`] → typed output DTOs ([`output`]).

pub mod diag;
pub mod input;
pub mod model;

pub use diag::{Diagnostic, Severity};
pub use input::{InputFile, RunInput};
