//! Which family a run belongs to: every file votes by content ([`family_vote`]), and the
//! family that recognises the most files wins ([`family_of_votes`]).

use serde::{Deserialize, Serialize};

use crate::input::{InputFile, RunInput};
use crate::numeric_qa::{formats::qa_jsonl, sniff as qa_sniff};

/// The run families evalboard reads. The serde names are the names the family travels under
/// everywhere (protocol, JSON outputs, CLI text): [`Family::name`] gives the same string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Family {
    /// Multi-turn numeric QA: traces, results.json, QA JSONL, ConvFinQA datasets.
    #[serde(rename = "numeric-qa")]
    NumericQa,
    /// Pandas code-generation chats: chat_history metrics, code-generation trace JSONL.
    #[serde(rename = "codegen")]
    Codegen,
    /// Answer-correctness eval sets: predictions, eval sets, summaries.
    #[serde(rename = "evalset")]
    Evalset,
    /// Other tools' evaluation logs: Inspect AI `.eval`/`.json`, lm-evaluation-harness results +
    /// samples. Last, so the others keep their index (`bench/wasm.mjs` decodes it by index).
    #[serde(rename = "eval-log")]
    EvalLog,
}

impl Family {
    /// Every family, in registry order.
    pub const ALL: [Family; 4] = [
        Family::NumericQa,
        Family::Codegen,
        Family::Evalset,
        Family::EvalLog,
    ];

    /// The family as one bit of a family set ([`crate::run::FamilySet`]).
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The family's name (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            Family::NumericQa => "numeric-qa",
            Family::Codegen => "codegen",
            Family::Evalset => "evalset",
            Family::EvalLog => "eval-log",
        }
    }

    /// What the family is, for people.
    pub fn label(self) -> &'static str {
        match self {
            Family::NumericQa => "numeric QA",
            Family::Codegen => "code generation",
            Family::Evalset => "eval set",
            Family::EvalLog => "eval log",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which family recognises one file, by content (`None`: no family, or not readable text). A
/// QA JSONL file with bytes that are not UTF-8 is still numeric QA: it is read line by line.
pub fn family_vote(f: &InputFile) -> Option<Family> {
    if f.bytes.starts_with(b"PK\x03\x04") {
        // A zip: an Inspect `.eval` log, or nothing evalboard reads.
        return evallog_vote(f);
    }
    if qa_sniff::text_of(f).is_err() {
        // Not UTF-8 as a whole (a bad byte on some line): the line-oriented readers still read
        // every other line, so the file votes for the family its start names. The eval-log
        // sniff looks at bytes (an OpenAI Evals record file or evalboard's run rows with a bad
        // line is still that).
        return if qa_sniff::is_jsonl_name(&f.path) && qa_jsonl::looks_like_qa_jsonl(&f.bytes) {
            Some(Family::NumericQa)
        } else {
            evallog_vote(f)
        };
    }
    vote_of_text(f, qa_sniff::kind_of(f))
}

/// [`family_vote`] of a file known to be UTF-8 text, given its numeric QA kind.
pub(crate) fn vote_of_text(
    f: &InputFile,
    kind: Result<qa_sniff::FileKind, String>,
) -> Option<Family> {
    if kind.is_ok_and(qa_sniff::FileKind::is_numeric_qa) {
        Some(Family::NumericQa)
    } else if let Some(v) = evallog_vote(f) {
        Some(v)
    } else if crate::codegen::sniff(&f.path, &f.bytes).is_some() {
        Some(Family::Codegen)
    } else if crate::evalset::sniff(&f.path, &f.bytes).is_some() {
        Some(Family::Evalset)
    } else {
        None
    }
}

/// [`Family::EvalLog`] for the evaluation-tool files that family reads (Inspect logs, lm-eval
/// results and samples, promptfoo exports, OpenAI Evals record files, HELM run files).
fn evallog_vote(f: &InputFile) -> Option<Family> {
    crate::evallog::sniff(f).map(|_| Family::EvalLog)
}

/// The family of a run folder from its files' [`family_vote`]s: the family that recognises the
/// most files (numeric QA on a tie, and when nothing is recognised so its reader can explain
/// why; an eval log only when it has more votes than every other family).
pub fn family_of_votes(votes: impl IntoIterator<Item = Option<Family>>) -> Family {
    let (mut qa, mut cg, mut ev, mut log) = (0usize, 0usize, 0usize, 0usize);
    for v in votes.into_iter().flatten() {
        match v {
            Family::NumericQa => qa += 1,
            Family::Codegen => cg += 1,
            Family::Evalset => ev += 1,
            Family::EvalLog => log += 1,
        }
    }
    if log > qa && log > cg && log > ev {
        Family::EvalLog
    } else if cg > qa && cg >= ev {
        Family::Codegen
    } else if ev > qa && ev > cg {
        Family::Evalset
    } else {
        Family::NumericQa
    }
}

/// Which family a run folder belongs to, by content (see [`family_of_votes`]).
pub fn detect_family(input: &RunInput) -> Family {
    family_of_votes(input.files.iter().map(family_vote))
}
