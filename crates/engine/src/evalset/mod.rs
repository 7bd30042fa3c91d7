//! Answer-correctness eval sets (seed 004, tunix-rt): eval sets, predictions, scorecards.
