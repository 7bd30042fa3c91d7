//! The CLI's integration tests, one binary: each runs the real `evalboard` binary on the fixtures.

mod diff;
mod golden;
mod hostile;
mod one_answer;
mod report;
