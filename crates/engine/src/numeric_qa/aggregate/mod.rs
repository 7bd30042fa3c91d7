//! Aggregates: fold scored turns into run statistics (mergeable, deterministic order).
pub mod doc;
pub mod fa2;
