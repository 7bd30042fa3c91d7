//! Re-scoring: a log's samples judged again from each sample's output and target(s), by a named,
//! versioned, deterministic scorer, beside the scores the log recorded ("as originally scored",
//! [`super::score::ScoredLog`]). Each scorer is a pure function of the output and the targets
//! returning a 0–1 reading (`None`: nothing to score — no usable target; a sample without output
//! or with an error has no verdict either, [`Rescorer::score`]); correct = the reading is 1.
//!
//! The scorers follow Inspect AI's built-in ones (`inspect_ai/scorer/`), rule by rule, as
//! docs/formats.md ("Re-scoring") states with every difference:
//!
//! - `exact@v1` — Inspect `exact()`: the normalised word sets are equal ([`normalize::word_set`]);
//! - `includes@v1` — Inspect `includes()`: a target, case-folded, is a substring of the output;
//! - `match@v1` — Inspect `match(location="end")`, numeric when the target is a number
//!   (`numeric=True`: the output's last number equals it to five significant digits), else the
//!   output ends with the target (case-folded, edge punctuation stripped);
//! - `answer_pattern@v1` — Inspect `answer("letter")` for a one-letter target, else
//!   `answer("line")` (the text after `ANSWER:`), compared as `exact@v1` compares;
//! - `last_number@v1` — the output's last number equals the target's number;
//! - `f1@v1` — Inspect `f1()`: the best word-set F1 over the targets, rounded to 2 decimals;
//! - `numeric@v1` — the output's last number within a relative or absolute tolerance of the
//!   target's ([`NumericTolerance`]).
//!
//! Model-graded scores (Inspect `model_graded_qa`, promptfoo `llm-rubric`, HELM's judged metrics)
//! cannot be re-scored: they stay as recorded. Every function is linear in its input (a sample's
//! first [`MAX_TARGETS`] usable targets are used); nothing recurses.

mod casefold_table;
pub mod normalize;
pub mod numbers;

use serde::{Deserialize, Serialize};

use crate::family::Family;
use crate::pyrepr::{py_isspace, py_round, py_strip};
use crate::scorer_table::Scorer;
use normalize::{casefold, f1_of, is_word_char, strip_numeric_punctuation, strip_punctuation};
use numbers::{format_g5, inspect_number, whole_number};

/// A sample's targets beyond this many usable ones are not read.
pub const MAX_TARGETS: usize = 256;

/// Which re-scorer judges a log's samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RescoreKind {
    #[serde(rename = "exact@v1")]
    Exact,
    #[serde(rename = "includes@v1")]
    Includes,
    #[serde(rename = "match@v1")]
    Match,
    #[serde(rename = "answer_pattern@v1")]
    AnswerPattern,
    #[serde(rename = "last_number@v1")]
    LastNumber,
    #[serde(rename = "f1@v1")]
    F1,
    #[serde(rename = "numeric@v1")]
    Numeric,
}

/// `exact@v1`.
pub const EXACT: Scorer = Scorer::new(
    "exact@v1",
    Family::EvalLog,
    "Inspect's exact(): the output's words equal a target's, both case-folded, ASCII punctuation and the articles a/an/the removed, numbers written as Python floats, compared as sets.",
    ["The Eiffel Tower", "eiffel tower!", "1"],
);
/// `includes@v1`.
pub const INCLUDES: Scorer = Scorer::new(
    "includes@v1",
    Family::EvalLog,
    "Inspect's includes(): a target is a substring of the output, both case-folded.",
    ["Paris", "The capital is paris.", "1"],
);
/// `match@v1`.
pub const MATCH: Scorer = Scorer::new(
    "match@v1",
    Family::EvalLog,
    "Inspect's match(location=\"end\"): for a numeric target, the output's last number equals it to five significant digits (numeric=True); otherwise the output ends with the target, case-folded, edge punctuation stripped.",
    ["12", "So the total is $12.", "1"],
);
/// `answer_pattern@v1`. In an example, `\n` stands for a line break.
pub const ANSWER_PATTERN: Scorer = Scorer::new(
    "answer_pattern@v1",
    Family::EvalLog,
    "Inspect's answer() pattern: the letter after `ANSWER:` for a one-letter target, else the rest of that line, compared with the target as exact@v1 compares.",
    ["B", "Both fit, but only one is prime.\\nANSWER: B", "1"],
);
/// `last_number@v1`.
pub const LAST_NUMBER: Scorer = Scorer::new(
    "last_number@v1",
    Family::EvalLog,
    "The output's last number (thousands separators, signs, decimals, a trailing % dropped) equals the target's number.",
    ["1234", "2 boxes of 617 make 1,234.", "1"],
);
/// `f1@v1`.
pub const F1: Scorer = Scorer::new(
    "f1@v1",
    Family::EvalLog,
    "Inspect's f1(): the best F1 over the targets of the output's and the target's word sets (normalised as exact@v1), rounded to 2 decimals; correct when it is 1.",
    ["the Eiffel Tower", "Eiffel Tower in Paris", "0.67"],
);
/// `numeric@v1`.
pub const NUMERIC: Scorer = Scorer::new(
    "numeric@v1",
    Family::EvalLog,
    "The output's last number (as last_number@v1 reads it) within tolerance of the target's: |a - e| <= rel * |e| or |a - e| <= abs (defaults rel 0.01, abs 0.001).",
    ["100", "about 99.5", "1"],
);

/// The re-scorers, in [`RescoreKind::ALL`] order.
pub const SCORERS: [Scorer; 7] = [
    EXACT,
    INCLUDES,
    MATCH,
    ANSWER_PATTERN,
    LAST_NUMBER,
    F1,
    NUMERIC,
];

impl RescoreKind {
    /// Every re-scorer, in [`SCORERS`] order.
    pub const ALL: [RescoreKind; 7] = [
        RescoreKind::Exact,
        RescoreKind::Includes,
        RescoreKind::Match,
        RescoreKind::AnswerPattern,
        RescoreKind::LastNumber,
        RescoreKind::F1,
        RescoreKind::Numeric,
    ];

    /// The re-scorer's entry in the scorer table.
    pub fn scorer(self) -> &'static Scorer {
        match self {
            RescoreKind::Exact => &EXACT,
            RescoreKind::Includes => &INCLUDES,
            RescoreKind::Match => &MATCH,
            RescoreKind::AnswerPattern => &ANSWER_PATTERN,
            RescoreKind::LastNumber => &LAST_NUMBER,
            RescoreKind::F1 => &F1,
            RescoreKind::Numeric => &NUMERIC,
        }
    }

    /// `name@version` under the default settings (its serde name too).
    pub fn id(self) -> &'static str {
        self.scorer().id
    }

    /// The short name (`match`, `last_number`).
    pub fn name(self) -> &'static str {
        self.scorer().name()
    }

    /// Accepts the id (`match@v1`) or the short name (`match`), `-` for `_`
    /// (`last-number`).
    pub fn from_name(s: &str) -> Option<RescoreKind> {
        let s = s.trim().replace('-', "_");
        RescoreKind::ALL
            .into_iter()
            .find(|k| s == k.name() || s == k.id())
    }
}

/// The tolerances of `numeric@v1`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NumericTolerance {
    /// Relative: |a - e| <= rel * |e|.
    pub rel: f64,
    /// Absolute: |a - e| <= abs.
    pub abs: f64,
}

impl Default for NumericTolerance {
    /// The numeric QA family's defaults (1 %, 0.001), so one `--rel-tol`/`--abs-tol` means the
    /// same in both.
    fn default() -> Self {
        NumericTolerance {
            rel: 0.01,
            abs: 0.001,
        }
    }
}

/// How eval logs are judged: as recorded (the default), or re-scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalLogOptions {
    /// `None`: items are judged by the log's own headline score, as recorded.
    pub scorer: Option<RescoreKind>,
    /// The tolerances of `numeric@v1` (they change no other scorer).
    pub numeric: NumericTolerance,
    /// The `k` of pass@k and pass^k over an item's repeats (epochs) that the run's summary
    /// shows; `None`: every `k` from 1 to the most repeats of an item, at most 20
    /// ([`crate::repeats::default_ks`]).
    pub pass_k: Option<u64>,
}

impl EvalLogOptions {
    /// The re-scorer these options select, if any.
    pub fn rescorer(&self) -> Option<Rescorer> {
        self.scorer.map(|kind| Rescorer {
            kind,
            tolerance: self.numeric,
        })
    }
}

/// A re-scorer with its settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rescorer {
    pub kind: RescoreKind,
    /// Used by `numeric@v1` only.
    pub tolerance: NumericTolerance,
}

impl Rescorer {
    /// `name@version`; a non-default tolerance of `numeric@v1` changes the version
    /// (`numeric@v1+rel0.02+abs0.5`).
    pub fn id(&self) -> String {
        let mut id = self.kind.id().to_string();
        if self.kind == RescoreKind::Numeric {
            let (t, d) = (self.tolerance, NumericTolerance::default());
            if t.rel.to_bits() != d.rel.to_bits() {
                id.push_str(&format!("+rel{}", t.rel));
            }
            if t.abs.to_bits() != d.abs.to_bits() {
                id.push_str(&format!("+abs{}", t.abs));
            }
        }
        id
    }

    /// The reading of a sample's output against its targets; `None` without output or without a
    /// usable target.
    pub fn score(&self, output: Option<&str>, targets: &[String]) -> Option<f64> {
        let output = output?;
        match self.kind {
            RescoreKind::Exact => exact(output, targets),
            RescoreKind::Includes => includes(output, targets),
            RescoreKind::Match => match_end(output, targets),
            RescoreKind::AnswerPattern => answer_pattern(output, targets),
            RescoreKind::LastNumber => last_number(output, targets),
            RescoreKind::F1 => f1(output, targets),
            RescoreKind::Numeric => numeric(output, targets, self.tolerance),
        }
    }
}

/// The targets a re-scorer reads: those that are not blank, at most [`MAX_TARGETS`]; `None` when
/// there is none.
fn usable(targets: &[String]) -> Option<Vec<&str>> {
    let ts: Vec<&str> = targets
        .iter()
        .map(String::as_str)
        .filter(|t| !py_strip(t).is_empty())
        .take(MAX_TARGETS)
        .collect();
    (!ts.is_empty()).then_some(ts)
}

/// Inspect's `max_exact_score`/`max_f1_score` skip a target whose first character is whitespace
/// (`if target[0].strip()`).
fn inspect_reads(target: &str) -> bool {
    target.chars().next().is_some_and(|c| !py_isspace(c))
}

fn reading(correct: bool) -> f64 {
    if correct {
        1.0
    } else {
        0.0
    }
}

/// `exact@v1`: Inspect `exact()` (`max_exact_score`).
pub fn exact(output: &str, targets: &[String]) -> Option<f64> {
    let ts = usable(targets)?;
    let answer = normalize::word_set(output);
    Some(reading(
        ts.into_iter()
            .filter(|t| inspect_reads(t))
            .any(|t| normalize::word_set(t) == answer),
    ))
}

/// `includes@v1`: Inspect `includes(ignore_case=True)`.
pub fn includes(output: &str, targets: &[String]) -> Option<f64> {
    let ts = usable(targets)?;
    let v = casefold(output);
    Some(reading(
        ts.into_iter().any(|t| v.contains(casefold(t).as_str())),
    ))
}

/// Inspect's `_TOKEN_PUNCTUATION`: stripped from a word's edges before it is read as a number.
const TOKEN_PUNCTUATION: &[char] = &[
    '!', '?', ':', ';', '(', ')', '[', ']', '{', '}', '\'', '"', '`', '~', '<', '=', '>', '@', '#',
    '^', '&', '|',
];

/// Inspect's `first_number_normalized` on the reversed words of `v` (already case-folded and
/// through `strip_numeric_punctuation`): the last word that reads as a number (edge punctuation
/// allowed), as `format(x, ".5g")`; `None` when no word does.
fn last_inspect_number(v: &str) -> Option<String> {
    v.split(py_isspace).rev().find_map(|w| {
        let stripped = w.trim_matches(TOKEN_PUNCTUATION);
        let whole = inspect_number(w);
        let edge = (stripped != w).then(|| inspect_number(stripped)).flatten();
        // `_number_token`: the stripped word when it differs and reads, else the word.
        edge.or(whole).map(format_g5)
    })
}

/// `match@v1`: Inspect `match(location="end", ignore_case=True)`, numeric for a target that reads
/// as a number.
pub fn match_end(output: &str, targets: &[String]) -> Option<f64> {
    let ts = usable(targets)?;
    let v = casefold(py_strip(output));
    let mut number: Option<Option<String>> = None;
    let mut text: Option<String> = None;
    for t in ts {
        let t = casefold(py_strip(t));
        let correct = match inspect_number(&strip_numeric_punctuation(&t)) {
            Some(x) => {
                let got = number
                    .get_or_insert_with(|| last_inspect_number(&strip_numeric_punctuation(&v)));
                got.as_deref() == Some(format_g5(x).as_str())
            }
            None => text
                .get_or_insert_with(|| strip_punctuation(&v).to_string())
                .ends_with(strip_punctuation(&t)),
        };
        if correct {
            return Some(1.0);
        }
    }
    Some(0.0)
}

/// Where `answer` (case-insensitive, `ſ` for `s` as Python's `(?i)` allows) starts at byte `i`:
/// the byte after it.
fn answer_word_at(s: &str, i: usize) -> Option<usize> {
    let mut chars = s.get(i..)?.char_indices();
    for want in ['a', 'n', 's', 'w', 'e', 'r'] {
        let (_, c) = chars.next()?;
        let ok = c.to_ascii_lowercase() == want || (want == 's' && c == 'ſ');
        if !ok {
            return None;
        }
    }
    Some(chars.next().map_or(s.len(), |(j, _)| i + j))
}

/// Past `ANSWER\s*:\s*` at byte `i`: the byte after the colon and the byte after the
/// whitespace that follows it.
fn after_answer_colon(s: &str, i: usize) -> Option<(usize, usize)> {
    let j = answer_word_at(s, i)?;
    let rest = s.get(j..)?;
    let k = j + (rest.len() - rest.trim_start_matches(py_isspace).len());
    if s.get(k..)?.chars().next()? != ':' {
        return None;
    }
    let colon_end = k + 1;
    let rest = s.get(colon_end..)?;
    Some((
        colon_end,
        colon_end + (rest.len() - rest.trim_start_matches(py_isspace).len()),
    ))
}

/// Byte positions where `answer` may start (an `a` or `A`).
fn answer_starts(s: &str) -> impl Iterator<Item = usize> + '_ {
    s.char_indices()
        .filter(|(_, c)| *c == 'a' || *c == 'A')
        .map(|(i, _)| i)
}

/// Inspect's `ANSWER_PATTERN_LINE`, `(?i)ANSWER\s*:\s*([^\n]+)`, searched as `re.search` does:
/// the first capture.
pub fn answer_line(s: &str) -> Option<&str> {
    let line_from = |p: usize| -> Option<&str> {
        let rest = s.get(p..)?;
        Some(rest.split('\n').next().unwrap_or(rest))
    };
    answer_starts(s).find_map(|i| {
        let (colon_end, p) = after_answer_colon(s, i)?;
        if p < s.len() {
            return line_from(p);
        }
        // The whitespace runs to the end: the regex gives characters back, and the capture is
        // the last of them that is not a line break.
        let ws = s.get(colon_end..)?;
        let (q, _) = ws.char_indices().rev().find(|(_, c)| *c != '\n')?;
        line_from(colon_end + q)
    })
}

/// Inspect's `ANSWER_PATTERN_LETTER`, `(?i)ANSWER\s*:\s*([A-Za-z])(?:[^\w]|\n|$)`, searched as
/// `re.search` does.
pub fn answer_letter(s: &str) -> Option<char> {
    answer_starts(s).find_map(|i| {
        let (_, p) = after_answer_colon(s, i)?;
        let mut chars = s.get(p..)?.chars();
        let letter = chars.next().filter(char::is_ascii_alphabetic)?;
        match chars.next() {
            Some(c) if is_word_char(c) => None,
            _ => Some(letter),
        }
    })
}

/// `answer_pattern@v1`: the letter after `ANSWER:` for a one-letter target (compared without
/// case), else the rest of that line compared as `exact@v1` compares; no `ANSWER:` reads 0.
pub fn answer_pattern(output: &str, targets: &[String]) -> Option<f64> {
    let ts = usable(targets)?;
    let mut letter: Option<Option<char>> = None;
    let mut line: Option<Option<std::collections::BTreeSet<String>>> = None;
    for t in ts {
        let trimmed = py_strip(t);
        let mut tc = trimmed.chars();
        let correct = match (tc.next(), tc.next()) {
            (Some(want), None) if want.is_ascii_alphabetic() => letter
                .get_or_insert_with(|| answer_letter(output))
                .is_some_and(|got| got.eq_ignore_ascii_case(&want)),
            _ => line
                .get_or_insert_with(|| answer_line(output).map(normalize::word_set))
                .as_ref()
                .is_some_and(|got| *got == normalize::word_set(t)),
        };
        if correct {
            return Some(1.0);
        }
    }
    Some(0.0)
}

/// Two numbers equal up to float noise (relative 1e-9).
fn same_number(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * a.abs().max(e.abs())
}

/// The targets that are numbers ([`whole_number`]); `None` when none is.
fn number_targets(targets: &[String]) -> Option<Vec<f64>> {
    let ns: Vec<f64> = usable(targets)?
        .into_iter()
        .filter_map(whole_number)
        .collect();
    (!ns.is_empty()).then_some(ns)
}

/// `last_number@v1`: the output's last number equals a target's number (a target that is not a
/// number is not read; `None` when no target is one).
pub fn last_number(output: &str, targets: &[String]) -> Option<f64> {
    let es = number_targets(targets)?;
    let a = numbers::last_number(output);
    Some(reading(
        a.is_some_and(|a| es.iter().any(|e| same_number(a, *e))),
    ))
}

/// `numeric@v1`: the output's last number within `tol` of a target's number.
pub fn numeric(output: &str, targets: &[String], tol: NumericTolerance) -> Option<f64> {
    let es = number_targets(targets)?;
    let a = numbers::last_number(output);
    Some(reading(a.is_some_and(|a| {
        es.iter().any(|e| {
            let d = (a - e).abs();
            d <= tol.rel * e.abs() || d <= tol.abs
        })
    })))
}

/// `f1@v1`: Inspect `f1()` (`max_f1_score`): the best word-set F1, rounded to 2 decimals.
pub fn f1(output: &str, targets: &[String]) -> Option<f64> {
    let ts = usable(targets)?;
    let answer = normalize::word_set(output);
    let best = ts
        .into_iter()
        .filter(|t| inspect_reads(t))
        .map(|t| f1_of(&answer, &normalize::word_set(t)))
        .fold(0.0, f64::max);
    Some(py_round(best, 2).unwrap_or(best))
}

#[cfg(test)]
mod tests;
