//! Aggregates: fold scored turns into run statistics (mergeable, deterministic order).
pub mod fa2;
pub mod doc;
