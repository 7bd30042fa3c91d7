//! Python-compatible formatting: float repr, str() of values, dict repr, round() half-even on the binary value.
