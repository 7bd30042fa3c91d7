//! Format readers: detect by content, lower into the canonical model, report diagnostics.
pub mod convfinqa;
pub mod fa2_traces;
