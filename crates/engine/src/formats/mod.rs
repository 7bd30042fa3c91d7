//! Format readers: detect by content, lower into the canonical model, report diagnostics.
pub mod convfinqa;
pub mod fa2_results;
pub mod fa2_traces;
pub(crate) mod pyval;
pub mod qa_jsonl;

use crate::diag::Diagnostic;
use crate::model::QaConversation;

/// Sorts a conversation's turns by `turn_idx` (stable), with a diagnostic when they were out of
/// order, and a warning for duplicated turn indices.
pub(crate) fn check_turn_order(path: &str, conv: &mut QaConversation, diags: &mut Vec<Diagnostic>) {
    let in_order = conv
        .turns
        .windows(2)
        .all(|w| w[0].turn_idx <= w[1].turn_idx);
    if !in_order {
        let seen: Vec<String> = conv.turns.iter().map(|t| t.turn_idx.to_string()).collect();
        diags.push(
            Diagnostic::warning(
                path,
                None,
                format!(
                    "turns out of order ({}); sorted by turn_idx",
                    seen.join(", ")
                ),
            )
            .with_record(conv.id.clone()),
        );
        conv.turns.sort_by_key(|t| t.turn_idx);
    }
    if conv
        .turns
        .windows(2)
        .any(|w| w[0].turn_idx == w[1].turn_idx)
    {
        diags.push(
            Diagnostic::warning(path, None, "duplicate turn_idx in conversation; all kept")
                .with_record(conv.id.clone()),
        );
    }
}
