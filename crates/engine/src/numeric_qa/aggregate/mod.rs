//! Aggregates: fold scored turns into run statistics (mergeable, deterministic order), the
//! columns of the CSVs both profiles write alike, and the family's headline metrics.
pub mod doc;
pub mod fa2;

use crate::headline::{Metric, Shown::Percent};
use crate::numeric_qa::score::doc::DocTolerances;
/// Defined beside the numbers of wrong-answer explanations, which print it too.
pub use crate::numeric_qa::score::why::tolerance_percent;
use crate::numeric_qa::score::Profile;

/// The columns of validation.csv, the same in both profiles (financial-agent-2's
/// `write_validation_log`).
pub const VALIDATION_HEADER: [&str; 8] = [
    "trace_id",
    "conversation_id",
    "turn_idx",
    "retry_number",
    "valid",
    "confidence",
    "failed_steps",
    "issues",
];

/// The columns of errors.csv, the same in both profiles (financial-agent-2's `write_error_log`).
pub const ERRORS_HEADER: [&str; 12] = [
    "trace_id",
    "conversation_id",
    "turn_idx",
    "question",
    "expected_answer",
    "error_type",
    "error_message",
    "has_type2_question",
    "has_non_numeric_values",
    "plan_steps",
    "operations_per_turn",
    "error_context",
];

const fn rate(key: &'static str, label: &'static str, definition: &'static str) -> Metric {
    Metric {
        key,
        label,
        shown: Percent,
        definition,
    }
}

const NUMERICAL: Metric = rate(
    "numerical_accuracy",
    "Numerical accuracy",
    "Share of turns whose answer equals the expected number within the tolerances.",
);
const CONVERSATION: Metric = rate(
    "conversation_level_accuracy",
    "Conversation-level",
    "Share of conversations with every turn numerically correct.",
);
const RECALL: Metric = rate(
    "avg_logic_recall",
    "Logic recall",
    "Mean share of the expected program's operations found in the agent's plan.",
);
const ERRORS: Metric = rate(
    "error_rate",
    "Error rate",
    "Share of turns that recorded an error (tool failure, timeout, parse error).",
);

/// A headline metric's label and definition in the words of the tolerances the run was scored
/// with: "Soft match (±2%)" once the relative tolerance is 2%. Metrics that no tolerance
/// touches keep their table text.
pub fn metric_words(m: &Metric, tol: &DocTolerances) -> (String, String) {
    let rel = tolerance_percent(tol.rel);
    // Only the doc profile's metrics follow the tolerances.
    if !HEADLINE_DOC
        .iter()
        .any(|d| d.key == m.key && d.definition == m.definition)
    {
        return (m.label.to_string(), m.definition.to_string());
    }
    match m.key {
        "numerical_accuracy" => (
            m.label.to_string(),
            format!(
                "Share of turns whose answer is within ±{rel} (or {} absolute) of the expected \
                 number, percent marks applied.",
                tol.abs
            ),
        ),
        "soft_match_accuracy" if m.label.starts_with("Soft match (") => (
            format!("Soft match (±{rel})"),
            format!(
                "Share of turns within {rel} of the expected number (no absolute floor near zero)."
            ),
        ),
        "unit_agnostic_accuracy" => (
            m.label.to_string(),
            format!(
                "Share of turns within ±{rel} of the expected value, 100× it or 1/100 of it \
                 (percent vs fraction forgiven)."
            ),
        ),
        "sign_agnostic_accuracy" => (
            m.label.to_string(),
            format!("Share of turns within ±{rel} of the expected value once the sign is ignored."),
        ),
        _ => (m.label.to_string(), m.definition.to_string()),
    }
}

/// The headline metrics of a numeric QA run under `profile`, in display order.
pub fn headline(profile: Profile) -> &'static [Metric] {
    match profile {
        Profile::Doc => &HEADLINE_DOC,
        Profile::Fa2 => &HEADLINE_FA2,
    }
}

const HEADLINE_DOC: [Metric; 9] = [
    NUMERICAL,
    rate(
        "exact_match_accuracy",
        "Exact match",
        "Share of turns whose answer equals the expected value exactly, after normalising the text.",
    ),
    rate(
        "soft_match_accuracy",
        "Soft match (±1%)",
        "Share of turns within 1% of the expected number.",
    ),
    rate(
        "unit_agnostic_accuracy",
        "Unit-agnostic",
        "Share of turns correct once a ×100 / ÷100 scale (percent vs fraction) is allowed.",
    ),
    rate(
        "sign_agnostic_accuracy",
        "Sign-agnostic",
        "Share of turns correct once the sign is ignored.",
    ),
    rate(
        "general_match_accuracy",
        "General match",
        "Share of turns within tolerance when a percent mark on either side may be honoured or ignored.",
    ),
    CONVERSATION,
    RECALL,
    ERRORS,
];

const HEADLINE_FA2: [Metric; 6] = [
    rate(
        "numerical_accuracy",
        "Numerical accuracy",
        "The financial-agent-2 system's numerical match: |e − a| < 0.00001 after its own number reading.",
    ),
    rate(
        "financial_accuracy",
        "Financial accuracy",
        "The financial-agent-2 system's financial match: numbers equal after its unit and rounding rules.",
    ),
    rate(
        "soft_match_accuracy",
        "Soft match",
        "The financial-agent-2 system's soft match (relative tolerance).",
    ),
    CONVERSATION,
    RECALL,
    rate(
        "error_rate",
        "Error rate",
        "The financial-agent-2 system's error rate: share of conversations (traces) that recorded an error.",
    ),
];
