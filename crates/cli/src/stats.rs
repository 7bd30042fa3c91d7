//! `evalboard stats --from-counts FILE.parquet|csv [--json]`: rows of counts (a SQL reduce over
//! a lake) turned into statistics by [`evalboard_engine::lake::counts::stats_of_row`], the
//! engine's functions `diff` and `score` use. This module reads the file and prints.

use anyhow::{Context, Result};
use evalboard_cli::{errln, outln};
use evalboard_engine::compare::CompareOptions;
use evalboard_engine::lake::counts::{stats_of_row, CountRow};
use evalboard_engine::lake::Cell;

use crate::cli::StatsArgs;

/// The rows of a CSV file with a header: each cell a number when it reads as one, else text
/// (empty: null).
fn csv_rows(bytes: &[u8], file: &str) -> Result<Vec<CountRow>> {
    let mut r = csv::ReaderBuilder::new().from_reader(bytes);
    let header: Vec<String> = r
        .headers()
        .with_context(|| format!("{file}: no header row"))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.with_context(|| format!("{file}: record {}", i + 1))?;
        rows.push(
            header
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| {
                    let v = v.trim();
                    let cell = if v.is_empty() {
                        Cell::Null
                    } else if let Ok(i) = v.parse::<i64>() {
                        Cell::Int(i)
                    } else if let Ok(x) = v.parse::<f64>() {
                        Cell::Float(x)
                    } else {
                        Cell::Str(v.to_string())
                    };
                    (h.clone(), cell)
                })
                .collect(),
        );
    }
    Ok(rows)
}

pub fn run(a: StatsArgs) -> Result<u8> {
    let file = a.from_counts.display().to_string();
    let bytes = std::fs::read(&a.from_counts).with_context(|| format!("cannot read {file}"))?;
    let rows = if bytes.starts_with(b"PAR1") {
        evalboard_lake::read_rows(bytes, &file)?
    } else {
        csv_rows(&bytes, &file)?
    };
    let opts = CompareOptions {
        resamples: a.resamples,
        seed: a.seed,
        ..CompareOptions::default()
    };
    let mut out = Vec::with_capacity(rows.len());
    let mut bad = 0usize;
    for (i, row) in rows.iter().enumerate() {
        match stats_of_row(row, &opts) {
            Ok(v) => out.push(v),
            Err(e) => {
                errln!("{file}: row {}: {e}", i + 1);
                bad += 1;
            }
        }
    }
    if a.json {
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&out)?);
    } else {
        for v in &out {
            let fields: Vec<String> = v
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| match v {
                    serde_json::Value::Object(o) => format!(
                        "{k} [{}, {}]",
                        o.get("low").unwrap_or(&serde_json::Value::Null),
                        o.get("high").unwrap_or(&serde_json::Value::Null)
                    ),
                    other => format!("{k} {other}"),
                })
                .collect();
            outln!("{}", fields.join("  "));
        }
    }
    Ok(if bad > 0 { 2 } else { 0 })
}
