//! financial-agent-2 compatibility outputs: statistics.json and CSVs exactly as its writer produces them.
