//! financial-agent-2 compatibility scorers: calculate_accuracy and logic recall as that code computes them.
