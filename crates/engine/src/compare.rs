//! Run comparison: per-item joins, flips, McNemar exact test, paired bootstrap CI.
