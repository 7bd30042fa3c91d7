//! evalboard's scoring engine: pure Rust, no I/O, no clock, no DOM; the same code runs natively
//! (CLI) and in wasm32 (dashboard).
//!
//! Input is a set of files ([`input::RunInput`]). [`family::detect_family`] says which family a
//! run belongs to; each family is one folder with the same stages ([`numeric_qa`], [`codegen`],
//! [`evalset`]: sniff → read → model → score → aggregate → views → compare), reached through one
//! dispatch, [`run`] (its lists of every family's headline tables and scorers in [`run::lists`], its settings in [`run::settings`]).
//! Shared pieces sit outside the families: [`input`], [`diag`],
//! [`accounting`] (every file's status), [`compare`] (paired statistics), [`prices`] (the one
//! price table and the billing of a token split), [`run_meta`] (what a run is), [`pyrepr`] (CPython's number and string formatting).

pub mod accounting;
pub mod codegen;
pub mod cohorts;
pub mod compare;
pub mod csv_cell;
pub mod csv_rows;
pub mod diag;
pub mod evallog;
pub mod evalset;
pub mod family;
pub mod family_run;
pub mod headline;
pub mod input;
pub mod json_array;
pub mod json_keys;
pub mod lake;
pub mod live;
pub mod marks;
pub mod numeric_qa;
pub(crate) mod par;
#[cfg(not(target_arch = "wasm32"))]
pub mod parallel;
pub mod prices;
pub mod pyrepr;
pub mod query;
pub mod repeats;
pub mod run;
pub mod run_meta;
pub mod run_table;
pub mod scorer_table;
pub mod series;
pub mod slices;
pub mod stats;
pub mod text;

pub use diag::{Diagnostic, Severity};
pub use input::{InputFile, RunInput};
