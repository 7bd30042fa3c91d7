//! The engine's integration tests, one binary (one link of the engine and the Python parser):
//! each module was its own test target. Golden files and `../shared/data` go through
//! `evalboard_test_support` (see the README's testing note). proptest keeps the seeds of past
//! failures in `tests/proptest-regressions/<module>.txt` (its default place beside a `main.rs`).

// Test code: a helper that unwraps fails its test, which is what it is for (#[test] functions
// may unwrap through clippy.toml's allow-unwrap-in-tests; their helpers need this).
#![allow(clippy::unwrap_used)]

mod codegen;
mod cohorts;
mod doc_scorers;
mod docs_tables;
mod duplicate_keys;
mod evallog;
mod evallog_messages;
mod evallog_prices;
mod evallog_rescore;
mod evalset;
mod fa2;
mod family_dispatch;
mod hostile_logs;
mod judges;
mod lake;
mod live;
mod lm_eval_pairing;
mod many;
mod module_cycles;
mod program;
mod query;
mod readers_prop;
mod registry;
mod repeats;
mod series;
mod settings;
mod stats;
mod turns_csv;
mod views;
