//! The report crate's integration tests, one binary. The chart snapshots also run under wasm32;
//! the loss-curve goldens read files, so they are native only.

mod charts;
#[cfg(not(target_arch = "wasm32"))]
mod compare_golden;
