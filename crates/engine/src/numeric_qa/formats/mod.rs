//! Format readers: detect by content, lower into the canonical model, report diagnostics.
pub mod convfinqa;
pub mod fa2_results;
pub mod fa2_traces;
pub(crate) mod fastjson;
pub(crate) mod json_tree;
pub(crate) mod pyval;
pub mod qa_jsonl;

use crate::diag::Diagnostic;
use crate::numeric_qa::model::QaConversation;

/// Input for a JSON parse: text already known to be UTF-8 (serde_json then skips re-validating
/// every string), or bytes (validated by the parse).
#[derive(Clone, Copy)]
pub(crate) enum Src<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Src<'a> {
    pub(crate) fn as_bytes(self) -> &'a [u8] {
        match self {
            Src::Text(t) => t.as_bytes(),
            Src::Bytes(b) => b,
        }
    }

    pub(crate) fn len(self) -> usize {
        self.as_bytes().len()
    }

    /// `serde_json::from_str` of text, `from_slice` of bytes.
    pub(crate) fn parse<T: serde::Deserialize<'a>>(self) -> serde_json::Result<T> {
        match self {
            Src::Text(t) => serde_json::from_str(t),
            Src::Bytes(b) => serde_json::from_slice(b),
        }
    }
}

impl<'a> From<&'a [u8]> for Src<'a> {
    fn from(b: &'a [u8]) -> Src<'a> {
        Src::Bytes(b)
    }
}

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
