//! financial-agent-2 run folder reader: traces/*.json (TraceRecord) into the canonical model.
