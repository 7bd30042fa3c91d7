//! The code-generation section of the report: summary cards, per-session summaries with a chart
//! of their overall scores, diagnostics and the table of entries.

use std::fmt::Write as _;

use evalboard_engine::codegen;
use serde_json::Value;

use super::build::{
    bar_figure, capped_note, card, diagnostics, filter_box, h, int, json_text, num, sortable_items,
    table, Cell, Head, Row, TableOpts,
};
use super::HtmlOptions;
use crate::codegen_statistics;

/// Scalar fields of a JSON object as (key, text, number) in order.
fn scalars(v: &Value) -> Vec<(String, String, Option<f64>)> {
    match v {
        Value::Object(m) => m
            .iter()
            .filter(|(_, x)| !x.is_object() && !x.is_array())
            .map(|(k, x)| (k.clone(), json_text(x), x.as_f64()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The code-generation section of run `idx`; returns its statistics value.
pub(crate) fn section(
    out: &mut String,
    idx: usize,
    s: &codegen::ScoredRun,
    o: &HtmlOptions,
) -> Value {
    let st = codegen_statistics(s);
    let id = |part: &str| format!("run{idx}-{part}");
    h(out, 3, &id("headline"), "Summary");
    out.push_str("<div class=\"eb-cards\">\n");
    card(
        out,
        "sessions",
        "Sessions",
        &int(s.sessions.len() as u64),
        Some(s.sessions.len().to_string()),
        false,
    );
    for (k, main) in [
        ("average_overall_score", true),
        ("average_correctness_score", false),
        ("average_quality_score", false),
        ("average_performance_score", false),
        ("average_understanding_score", false),
        ("average_coverage_score", false),
        ("average_recovery_score", false),
        ("recovery_success_rate", false),
    ] {
        if let Some(v) = st.get(k).and_then(Value::as_f64) {
            card(out, k, k, &num(Some(v), 3), Some(v.to_string()), main);
        }
    }
    out.push_str("</div>\n");

    // Per-session summaries, and a chart of the average scores per session.
    h(out, 3, &id("sessions"), "Sessions");
    let summaries: Vec<(String, Value, bool)> = s
        .sessions
        .iter()
        .map(|sess| {
            let (sum, original) = match (&sess.summary, &sess.original_summary) {
                (Some(x), _) => (serde_json::to_value(x).ok(), false),
                (None, Some(x)) => (serde_json::to_value(x).ok(), true),
                (None, None) => (None, false),
            };
            let inner = sum
                .and_then(|v| v.get("summary").cloned())
                .unwrap_or(Value::Null);
            (sess.session_id.clone(), inner, original)
        })
        .collect();
    let mut keys: Vec<String> = Vec::new();
    for (_, v, _) in &summaries {
        for (k, _, _) in scalars(v) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut heads: Vec<Head> = vec![("Session", false), ("Source", false)];
    heads.extend(keys.iter().map(|k| (k.as_str(), true)));
    let rows: Vec<Row> = summaries
        .iter()
        .map(|(sid, v, original)| {
            let sc = scalars(v);
            let mut cells = vec![
                Cell::text(sid),
                Cell::text(if *original {
                    "original metrics"
                } else {
                    "re-scored"
                }),
            ];
            for k in &keys {
                match sc.iter().find(|(kk, _, _)| kk == k) {
                    Some((_, t, n)) => cells.push(Cell::num(t, *n)),
                    None => cells.push(Cell::num("", None)),
                }
            }
            Row {
                cells,
                ..Default::default()
            }
        })
        .collect();
    table(
        out,
        &heads,
        &rows,
        TableOpts {
            sortable: true,
            scroll: true,
            ..Default::default()
        },
    );
    let bars: Vec<(String, Option<f64>)> = summaries
        .iter()
        .map(|(sid, v, _)| {
            (
                sid.chars().take(8).collect::<String>(),
                v.get("average_overall_score").and_then(Value::as_f64),
            )
        })
        .collect();
    if !bars.is_empty() {
        out.push_str("<div class=\"eb-grid\">\n");
        bar_figure(
            out,
            "overall_by_session",
            "Average overall score by session",
            "Overall score",
            &bars,
            false,
        );
        out.push_str("</div>\n");
    }
    diagnostics(out, &s.diagnostics, o);

    // Entries.
    h(out, 3, &id("items"), "Entries");
    let entries: Vec<(String, Value)> = s
        .sessions
        .iter()
        .flat_map(|sess| {
            sess.entries.iter().map(|e| {
                (
                    sess.session_id.clone(),
                    serde_json::to_value(e).unwrap_or(Value::Null),
                )
            })
        })
        .collect();
    let total = entries.len();
    let mut ekeys: Vec<String> = Vec::new();
    for (_, v) in entries.iter().take(o.max_table_rows) {
        for (k, _, _) in scalars(v) {
            if !ekeys.contains(&k) {
                ekeys.push(k);
            }
        }
    }
    let mut heads: Vec<Head> = vec![("Session", false)];
    heads.extend(ekeys.iter().map(|k| (k.as_str(), false)));
    let rows: Vec<Row> = entries
        .iter()
        .take(o.max_table_rows)
        .map(|(sid, v)| {
            let sc = scalars(v);
            let mut cells = vec![Cell::text(sid)];
            for k in &ekeys {
                match sc.iter().find(|(kk, _, _)| kk == k) {
                    Some((_, t, Some(n))) => cells.push(Cell::num(t, Some(*n))),
                    Some((_, t, None)) => cells.push(Cell::long(t)),
                    None => cells.push(Cell::text("")),
                }
            }
            Row {
                cells,
                ..Default::default()
            }
        })
        .collect();
    let table_id = id("items-table");
    filter_box(out, &table_id, &[]);
    capped_note(out, &rows, total, "entries.jsonl", &|| {
        let mut jsonl = String::new();
        for (_, v) in &entries {
            let _ = writeln!(jsonl, "{v}");
        }
        jsonl
    });
    sortable_items(out, &table_id, &heads, &rows);
    st
}

/// A code-generation run, as the report takes it ([`super::FamilyReport`]).
pub(crate) struct Report<'a>(pub &'a codegen::Loaded);

impl<'a> super::FamilyReport<'a> for Report<'a> {
    fn section(&self, out: &mut String, idx: usize, o: &HtmlOptions) -> Value {
        section(out, idx, &self.0.scored, o)
    }
    fn settings(&self, out: &mut String, family: evalboard_engine::family::Family) {
        super::build::kv_table(
            out,
            &[
                ("Family".into(), family.label().into()),
                ("Profile".into(), self.0.scored.profile.name().into()),
            ],
        )
    }
    fn output_plan(&self) -> crate::RunOutputPlan<'a> {
        crate::RunOutputPlan::made(
            codegen_statistics(&self.0.scored),
            crate::codegen_files(&self.0.scored),
        )
    }
}
