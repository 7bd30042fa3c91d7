//! evalboard's stable-Rust fuzz harness (`make fuzz`): mutated inputs to every reader and parser
//! of the engine, whole run folders through the run registry and the report writers, and the
//! CLI end to end; crashes (panics, aborts, stack overflows, allocation failures) and hangs are
//! caught in a supervised worker process and saved for `--replay`. See `main.rs` for the
//! command line and README.md ("Fuzzing") for how it is run.

pub mod cli_target;
pub mod input;
pub mod mutate;
pub mod rng;
pub mod seeds;
pub mod supervise;
pub mod target;
pub mod targets;
pub mod worker;
