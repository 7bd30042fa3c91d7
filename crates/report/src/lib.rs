//! Pure output writers: scored runs → files (statistics.json, CSVs, SVG charts, HTML report).

pub mod charts;
