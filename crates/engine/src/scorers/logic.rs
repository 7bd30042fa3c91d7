//! doc-v1 reasoning scorers: logic recall, precision, F1 and order-aware score.
