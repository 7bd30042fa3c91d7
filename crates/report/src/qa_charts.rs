//! The numeric-QA chart set: one function, used by the dashboard's worker and the offline report,
//! so both show the same SVG for the same statistics.

use std::collections::BTreeMap;

use crate::charts::{
    bar_chart, dual_axis_line_chart, named, opts, NamedChart, Theme, XValues, YSeries,
};
use evalboard_engine::numeric_qa::aggregate::doc::{Breakdown, BucketSizes, Statistics, TurnKey};

fn breakdown_bars(m: &BTreeMap<String, Breakdown>) -> Vec<(String, Option<f64>)> {
    m.iter()
        .map(|(k, b)| (format!("{k} ({} turns)", b.turns), b.numerical_accuracy))
        .collect()
}

fn turn_label(k: &TurnKey) -> String {
    k.0.to_string()
}

/// Buckets with fewer items than this get no point or bar: one or two turns make a 0% or 100%
/// that reads like a finding.
pub const MIN_BUCKET: u64 = 3;

/// `label (n=k)`, the bucket's sample size beside its name.
fn with_n(label: &str, n: u64) -> String {
    format!("{label} (n={n})")
}

/// Every chart of the numeric-QA views, in display order. Keys: `accuracy_variants`,
/// `complexity`, `accuracy_by_ops`, `logic_recall_by_turn`, `by_has_type2_question`,
/// `by_has_non_numeric_values`, `by_has_duplicate_columns`, `by_conversation_type`, `by_model`,
/// `error_types`.
pub fn qa_charts(s: &Statistics, sizes: &BucketSizes, theme: Theme) -> Vec<NamedChart> {
    let mut out = Vec::new();
    let variants = vec![
        ("Exact".to_string(), s.exact_match_accuracy),
        ("Numerical".to_string(), s.numerical_accuracy),
        (
            format!(
                "Soft (±{})",
                evalboard_engine::numeric_qa::aggregate::tolerance_percent(s.tolerances().rel)
            ),
            s.soft_match_accuracy,
        ),
        ("Unit-agnostic".to_string(), s.unit_agnostic_accuracy),
        ("Sign-agnostic".to_string(), s.sign_agnostic_accuracy),
        ("General".to_string(), s.general_match_accuracy),
        ("Conversation".to_string(), s.conversation_level_accuracy),
    ];
    out.push(named(
        "accuracy_variants",
        "Accuracy variants",
        bar_chart(
            "Accuracy variants",
            "Accuracy (%)",
            &variants,
            &opts(theme, true),
        ),
    ));

    // Complexity ceiling: accuracy and average operations by turn number, on two axes.
    let big = |k: &TurnKey| sizes.by_turn_number.get(k).copied().unwrap_or(0) >= MIN_BUCKET;
    let turns: Vec<TurnKey> = s
        .accuracy_by_turn_number
        .keys()
        .chain(s.avg_operations_by_turn.keys())
        .copied()
        .filter(|k| sizes.by_turn_number.is_empty() || big(k))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let xs: Vec<f64> = turns.iter().map(|k| k.0 as f64).collect();
    let acc: Vec<Option<f64>> = turns
        .iter()
        .map(|k| s.accuracy_by_turn_number.get(k).copied())
        .collect();
    let ops: Vec<Option<f64>> = turns
        .iter()
        .map(|k| s.avg_operations_by_turn.get(k).copied())
        .collect();
    out.push(named(
        "complexity",
        "Accuracy and operations by turn",
        dual_axis_line_chart(
            "Accuracy and operations by turn",
            &format!("Turn index (0-based; turn indices with n ≥ {MIN_BUCKET} turns)"),
            XValues::Numbers(&xs),
            YSeries {
                name: "Numerical accuracy",
                y_label: "Accuracy (%)",
                values: &acc,
                percent: true,
            },
            YSeries {
                name: "Avg. operations",
                y_label: "Operations per turn",
                values: &ops,
                percent: false,
            },
            &opts(theme, false),
        ),
    ));
    let sized =
        |m: &BTreeMap<TurnKey, u64>, k: &TurnKey, label: String, v: f64| match m.get(k).copied() {
            Some(n) if n < MIN_BUCKET => None,
            Some(n) => Some((with_n(&label, n), Some(v))),
            None => Some((label, Some(v))),
        };
    let by_ops: Vec<(String, Option<f64>)> = s
        .accuracy_by_operations_per_turn
        .iter()
        .filter_map(|(k, v)| sized(&sizes.by_operations_per_turn, k, format!("{} ops", k.0), *v))
        .collect();
    out.push(named(
        "accuracy_by_ops",
        "Accuracy by operations per turn",
        bar_chart(
            "Accuracy by operations per turn",
            "Accuracy (%)",
            &by_ops,
            &opts(theme, true),
        ),
    ));
    let recall: Vec<(String, Option<f64>)> = s
        .logic_recall_by_turn
        .iter()
        .filter_map(|(k, v)| sized(&sizes.logic_recall_by_turn, k, turn_label(k), *v))
        .collect();
    out.push(named(
        "logic_recall_by_turn",
        "Logic recall by turn",
        bar_chart(
            "Logic recall by turn index",
            "Logic recall (%)",
            &recall,
            &opts(theme, true),
        ),
    ));
    for (key, title, m) in [
        (
            "by_has_type2_question",
            "Accuracy by has_type2_question",
            &s.by_has_type2_question,
        ),
        (
            "by_has_non_numeric_values",
            "Accuracy by has_non_numeric_values",
            &s.by_has_non_numeric_values,
        ),
        (
            "by_has_duplicate_columns",
            "Accuracy by has_duplicate_columns",
            &s.by_has_duplicate_columns,
        ),
        (
            "by_conversation_type",
            "Accuracy by conversation type",
            &s.by_conversation_type,
        ),
        ("by_model", "Accuracy by model", &s.by_model),
    ] {
        out.push(named(
            key,
            title,
            bar_chart(
                title,
                "Numerical accuracy (%)",
                &breakdown_bars(m),
                &opts(theme, true),
            ),
        ));
    }
    let errors: Vec<(String, Option<f64>)> = s
        .error_types
        .iter()
        .map(|(k, v)| (k.clone(), Some(*v as f64)))
        .collect();
    out.push(named(
        "error_types",
        "Errors by type",
        bar_chart(
            "Errors by type",
            "Turns with this error",
            &errors,
            &opts(theme, false),
        ),
    ));
    out
}
