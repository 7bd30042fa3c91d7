//! The CLI's file-system edge as a library: the `evalboard` binary and the benchmark
//! (`crates/bench`) load run folders with the same code.

pub mod fsio;
pub mod memory;
#[macro_use]
pub mod term;
