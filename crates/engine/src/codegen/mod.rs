//! Code-generation runs (seed 001, ISE547): reading, re-scoring, metrics.json/metrics_summary.json.
