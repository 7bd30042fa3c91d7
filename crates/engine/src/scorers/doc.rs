//! doc-v1 answer scorers: exact, numerical, soft, unit-agnostic, sign-agnostic, general match.
