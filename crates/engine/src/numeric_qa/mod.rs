//! Multi-turn numeric QA runs (ConvFinQA conversations; the financial-agent-2 system's trace
//! folders and batch `results.json`; the documented QA JSONL).
//!
//! The family's pipeline, one module per stage:
//! [`sniff`] (what each file is) → [`read`] (files → [`model::QaRun`], the ConvFinQA dataset
//! join, file accounting; per-format readers in [`formats`]) → [`score`] (named, versioned
//! scorers over [`answer`] parsing and the [`finqa_program`] language) → [`aggregate`]
//! (`doc::Statistics`; the financial-agent-2 writer) → [`views`] (what the dashboard and the
//! report show) → [`compare`] (the one pairing of two runs); output files are written by the report
//! crate (`evalboard_report::outputs`). [`validate`] checks a
//! ConvFinQA dataset; [`meta`] describes a run for comparisons.

pub mod aggregate;
pub mod answer;
pub mod compare;
pub mod finqa_program;
pub mod formats;
pub mod meta;
pub mod model;
pub mod read;
pub mod score;
pub mod sniff;
pub mod validate;
pub mod views;
