//! Scorers: named and versioned (`name@version`), pure functions over the canonical model.
pub mod doc;
pub mod fa2;
pub mod logic;
