//! Answer number parsing for the doc profile: currency, thousands separators, percent marks, parentheses negatives.
