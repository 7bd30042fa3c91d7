//! doc-v1 reasoning scorers: logic recall, precision, F1 and order-aware score.
//!
//! Inputs are operation names: the ground-truth program's operations in program order (FinQA
//! names: add, subtract, multiply, divide, exp, greater, table_max, table_min, table_sum,
//! table_average) and the plan's compute operations in plan order. Both are normalised by
//! [`normalize_ops`] first (case, separators, synonyms; `percentage` → divide,
//! `percentage_change` → subtract + divide). With `G` the truth's operations and `P` the plan's:
//!
//! | scorer | value | when `G` is empty (extract-only) | when `P` is empty |
//! |---|---|---|---|
//! | `logic_recall` | `overlap / \|G\|` | 1.0 if `P` is empty, else 0.0 | 0.0 (or 1.0 if `G` is empty) |
//! | `logic_precision` | `overlap / \|P\|` | 0.0 (or 1.0 if `P` is empty) | 1.0 if `G` is empty, else 0.0 |
//! | `logic_f1` | `2·R·P / (R + P)`, 0.0 when `R + P = 0` | | |
//! | `logic_order_score` | `LCS(G, P) / max(\|G\|, \|P\|)` | 1.0 when both are empty | |
//!
//! `overlap` is the order-insensitive multiset intersection size. Every score is `None` when
//! there is no ground-truth program or the plan is unknown: not computable, never a fake 0.

use crate::numeric_qa::finqa_program::Op as FinqaOp;
use crate::numeric_qa::score::qa_scorer as reasoning;
use crate::scorer_table::Scorer;

/// The reasoning scorers' version: tolerances do not affect them.
pub const VERSION: &str = "doc-v1";

pub const RECALL: Scorer = reasoning(
    "logic_recall@doc-v1",
    "Share of the ground-truth program's operations found in the plan (multiset overlap).",
    ["subtract, divide", "subtract", "0.5"],
);
pub const PRECISION: Scorer = reasoning(
    "logic_precision@doc-v1",
    "Share of the plan's compute operations found in the ground-truth program.",
    ["add", "add, lookup", "0.5"],
);
pub const F1: Scorer = reasoning(
    "logic_f1@doc-v1",
    "Harmonic mean of logic recall and precision.",
    ["add, add, divide", "add, divide", "0.8"],
);
pub const ORDER: Scorer = reasoning(
    "logic_order_score@doc-v1",
    "Longest common subsequence of the operation sequences over the longer one's length.",
    ["subtract, divide", "divide, subtract", "0.5"],
);

/// The reasoning scorers, in [`LogicScores`] order; each is `name@`[`VERSION`]. An example's
/// sides are the ground-truth program's operations and the plan's.
pub const SCORERS: [Scorer; 4] = [RECALL, PRECISION, F1, ORDER];

/// The four reasoning scores of one turn; all `None` when not computable.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LogicScores {
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    pub f1: Option<f64>,
    pub order: Option<f64>,
}

/// A normalised operation.
#[derive(Debug, Clone, Copy)]
pub enum Op<'a> {
    /// One of the ten FinQA operations.
    Finqa(FinqaOp),
    /// An operation this vocabulary does not know, trimmed as written. It still counts towards
    /// its side's length, and it matches an `Other` with the same normalised spelling.
    Other(&'a str),
}

impl<'a> Op<'a> {
    /// The canonical (FinQA) name; an unknown operation's name as written.
    pub fn name(&self) -> &'a str {
        match self {
            Op::Finqa(op) => op.name(),
            Op::Other(s) => s,
        }
    }
}

impl PartialEq for Op<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Op::Finqa(a), Op::Finqa(b)) => a == b,
            (Op::Other(a), Op::Other(b)) => key_chars(a).eq(key_chars(b)),
            _ => false,
        }
    }
}

/// Other spellings (in normalised form) and the FinQA operations they stand for; a FinQA
/// operation's own name ([`FinqaOp::name`]) stands for itself.
const VOCABULARY: &[(&str, &[FinqaOp])] = {
    use FinqaOp::*;
    &[
        ("addition", &[Add]),
        ("plus", &[Add]),
        ("subtraction", &[Subtract]),
        ("sub", &[Subtract]),
        ("minus", &[Subtract]),
        ("difference", &[Subtract]),
        ("diff", &[Subtract]),
        ("multiplication", &[Multiply]),
        ("mul", &[Multiply]),
        ("times", &[Multiply]),
        ("product", &[Multiply]),
        ("division", &[Divide]),
        ("div", &[Divide]),
        ("ratio", &[Divide]),
        ("quotient", &[Divide]),
        ("power", &[Exp]),
        ("pow", &[Exp]),
        ("exponent", &[Exp]),
        ("exponentiation", &[Exp]),
        ("greater_than", &[Greater]),
        ("gt", &[Greater]),
        ("max", &[TableMax]),
        ("maximum", &[TableMax]),
        ("min", &[TableMin]),
        ("minimum", &[TableMin]),
        ("sum", &[TableSum]),
        ("table_avg", &[TableAverage]),
        ("table_mean", &[TableAverage]),
        ("average", &[TableAverage]),
        ("avg", &[TableAverage]),
        ("mean", &[TableAverage]),
        ("percentage", &[Divide]),
        ("percent", &[Divide]),
        ("pct", &[Divide]),
        ("percentage_change", &[Subtract, Divide]),
        ("percent_change", &[Subtract, Divide]),
        ("pct_change", &[Subtract, Divide]),
    ]
};

/// An operation name's normalised spelling: trimmed, lowercased, with every run of spaces,
/// `-` and `_` turned into one `_` (`"Percentage-Change"` → `percentage_change`).
fn key_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut prev_sep = false;
    s.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| {
            if c == ' ' || c == '-' || c == '_' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .filter(move |&c| {
            let sep = c == '_';
            let keep = !(sep && prev_sep);
            prev_sep = sep;
            keep
        })
}

/// Normalises one operation name into zero (blank name), one or two operations.
pub fn normalize_op<'a>(op: &'a str) -> impl Iterator<Item = Op<'a>> {
    let trimmed = crate::numeric_qa::answer::trim_by(op, char::is_whitespace);
    let (expansion, other): (&'static [FinqaOp], Option<Op<'a>>) = match lookup(trimmed) {
        Some(ops) => (ops, None),
        None if trimmed.is_empty() => (&[], None),
        None => (&[], Some(Op::Other(trimmed))),
    };
    expansion.iter().map(|op| Op::Finqa(*op)).chain(other)
}

/// Finds a name among the FinQA operations' names and in [`VOCABULARY`]: normalises an ASCII
/// name like [`key_chars`] into a stack buffer (every spelling there is short ASCII, so a longer
/// name is simply not in it) and compares bytes.
fn lookup(name: &str) -> Option<&'static [FinqaOp]> {
    const CAP: usize = 24;
    let mut buf = [0u8; CAP];
    let mut n = 0;
    let mut prev_sep = false;
    for b in crate::numeric_qa::answer::trim_by(name, char::is_whitespace).bytes() {
        if !b.is_ascii() {
            // Rare: Unicode spaces or case. Same result, slower.
            return spellings()
                .find_map(|(spelling, ops)| key_chars(name).eq(spelling.chars()).then_some(ops));
        }
        let sep = matches!(b, b' ' | b'-' | b'_') || b.is_ascii_whitespace();
        if sep && prev_sep {
            continue;
        }
        prev_sep = sep;
        let slot = buf.get_mut(n)?;
        *slot = if sep { b'_' } else { b.to_ascii_lowercase() };
        n += 1;
    }
    let key = buf.get(..n)?;
    // The first byte rules out most spellings without a slice comparison (a call in wasm).
    spellings().find_map(|(spelling, ops)| {
        (spelling.as_bytes().first() == key.first() && spelling.as_bytes() == key).then_some(ops)
    })
}

/// Every known spelling and what it stands for: the FinQA operations' own names first, then
/// [`VOCABULARY`].
fn spellings() -> impl Iterator<Item = (&'static str, &'static [FinqaOp])> {
    let all: &'static [FinqaOp] = &FinqaOp::ALL;
    let own = (0..all.len()).filter_map(move |i| {
        let op = all.get(i..=i)?;
        Some((op.first()?.name(), op))
    });
    own.chain(VOCABULARY.iter().copied())
}

/// Normalises a sequence of operation names, keeping order (expansions in place; blank names
/// dropped).
pub fn normalize_ops<'a>(ops: &[&'a str]) -> Vec<Op<'a>> {
    ops.iter().flat_map(|op| normalize_op(op)).collect()
}

/// Scores a plan's compute operations against a ground-truth program's operations.
/// `gt_ops`: `None` when the turn has no ground-truth program; `Some(&[])` for an extract-only
/// program (e.g. `"4241"`). `plan_ops`: `None` when the plan is unknown; `Some(&[])` for a plan
/// with no compute steps.
pub fn score(gt_ops: Option<&[&str]>, plan_ops: Option<&[&str]>) -> LogicScores {
    match (gt_ops, plan_ops) {
        (Some(g), Some(p)) => score_ops(&normalize_ops(g), &normalize_ops(p)),
        _ => LogicScores::default(),
    }
}

/// Reusable buffers for scoring many turns without allocating per turn.
#[derive(Debug, Default)]
pub struct Scratch<'a> {
    gt: Vec<Op<'a>>,
    plan: Vec<Op<'a>>,
    used: Vec<bool>,
    row: Vec<usize>,
}

/// [`score`] over operation-name iterators, with reusable buffers (same results).
pub fn score_with<'a>(
    scratch: &mut Scratch<'a>,
    gt_ops: Option<impl Iterator<Item = &'a str>>,
    plan_ops: Option<impl Iterator<Item = &'a str>>,
) -> LogicScores {
    let (Some(g), Some(p)) = (gt_ops, plan_ops) else {
        return LogicScores::default();
    };
    scratch.gt.clear();
    scratch.gt.extend(g.flat_map(normalize_op));
    scratch.plan.clear();
    scratch.plan.extend(p.flat_map(normalize_op));
    let Scratch {
        gt,
        plan,
        used,
        row,
    } = scratch;
    score_ops_in(gt, plan, used, row)
}

/// Scores two normalised operation sequences.
pub fn score_ops(gt: &[Op<'_>], plan: &[Op<'_>]) -> LogicScores {
    score_ops_in(gt, plan, &mut Vec::new(), &mut Vec::new())
}

fn score_ops_in(
    gt: &[Op<'_>],
    plan: &[Op<'_>],
    used: &mut Vec<bool>,
    row: &mut Vec<usize>,
) -> LogicScores {
    let overlap = multiset_overlap(gt, plan, used);
    let recall = share(overlap, gt.len(), plan.is_empty());
    let precision = share(overlap, plan.len(), gt.is_empty());
    let f1 = if recall + precision > 0.0 {
        2.0 * recall * precision / (recall + precision)
    } else {
        0.0
    };
    let longest = gt.len().max(plan.len());
    let order = if longest == 0 {
        1.0
    } else {
        lcs_len(gt, plan, row) as f64 / longest as f64
    };
    LogicScores {
        recall: Some(recall),
        precision: Some(precision),
        f1: Some(f1),
        order: Some(order),
    }
}

/// `part / whole`; for an empty whole, 1.0 if the other side is empty too, else 0.0.
fn share(part: usize, whole: usize, other_empty: bool) -> f64 {
    if whole == 0 {
        if other_empty {
            1.0
        } else {
            0.0
        }
    } else {
        part as f64 / whole as f64
    }
}

/// Size of the multiset intersection.
fn multiset_overlap(a: &[Op<'_>], b: &[Op<'_>], used: &mut Vec<bool>) -> usize {
    used.clear();
    used.resize(b.len(), false);
    let mut n = 0;
    for x in a {
        let free = b.iter().zip(used.iter_mut()).find(|(y, u)| !**u && *y == x);
        if let Some((_, u)) = free {
            *u = true;
            n += 1;
        }
    }
    n
}

/// Length of the longest common subsequence.
fn lcs_len(a: &[Op<'_>], b: &[Op<'_>], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.resize(b.len() + 1, 0);
    for x in a {
        let mut diag = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let v = if x == y { diag + 1 } else { up.max(left) };
            diag = up;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = v;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(s: &str) -> Vec<&str> {
        s.split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .collect()
    }

    /// `gt`/`plan`: comma-separated operations, `"-"` for None. `want`: recall, precision, f1,
    /// order (NaN standing for None).
    fn check(gt: &str, plan: &str, want: [f64; 4]) {
        let g = ops(gt);
        let p = ops(plan);
        let got = score(
            (gt != "-").then_some(&g[..]),
            (plan != "-").then_some(&p[..]),
        );
        let got = [got.recall, got.precision, got.f1, got.order];
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            let ok = match g {
                None => w.is_nan(),
                Some(g) => (g - w).abs() < 1e-12,
            };
            assert!(
                ok,
                "gt {gt:?} plan {plan:?}: score {i} got {got:?} want {want:?}"
            );
        }
    }

    const NONE: f64 = f64::NAN;

    #[test]
    fn seed_examples() {
        check("subtract, divide", "subtract, divide", [1.0, 1.0, 1.0, 1.0]);
        check("subtract, divide", "subtract", [0.5, 1.0, 2.0 / 3.0, 0.5]);
    }

    #[test]
    fn extract_only() {
        check("", "", [1.0, 1.0, 1.0, 1.0]);
        check("", "add", [0.0, 0.0, 0.0, 0.0]);
        check("add", "", [0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn not_computable() {
        check("-", "add", [NONE; 4]);
        check("-", "", [NONE; 4]);
        check("add", "-", [NONE; 4]);
        check("", "-", [NONE; 4]);
        check("-", "-", [NONE; 4]);
    }

    #[test]
    fn multiset_overlap_counts_duplicates_once_each() {
        check(
            "add, add, divide",
            "add, divide",
            [2.0 / 3.0, 1.0, 0.8, 2.0 / 3.0],
        );
        check(
            "add, divide",
            "add, add, divide",
            [1.0, 2.0 / 3.0, 0.8, 2.0 / 3.0],
        );
        check("add", "add, add, add", [1.0, 1.0 / 3.0, 0.5, 1.0 / 3.0]);
        check("multiply", "add", [0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn order_matters_only_for_the_order_score() {
        check("subtract, divide", "divide, subtract", [1.0, 1.0, 1.0, 0.5]);
        check(
            "add, add, add, divide",
            "divide, add, add, add",
            [1.0, 1.0, 1.0, 0.75],
        );
        check(
            "add, subtract, divide",
            "subtract, add",
            [2.0 / 3.0, 1.0, 0.8, 1.0 / 3.0],
        );
    }

    #[test]
    fn percentage_ops_expand() {
        check("divide", "percentage", [1.0, 1.0, 1.0, 1.0]);
        check(
            "subtract, divide",
            "percentage_change",
            [1.0, 1.0, 1.0, 1.0],
        );
        check(
            "subtract, divide",
            "Percentage Change",
            [1.0, 1.0, 1.0, 1.0],
        );
        check("subtract, divide", "percent-change", [1.0, 1.0, 1.0, 1.0]);
        check("divide", "percentage_change", [1.0, 0.5, 2.0 / 3.0, 0.5]);
        check(
            "subtract, divide, multiply",
            "percentage_change, multiply",
            [1.0, 1.0, 1.0, 1.0],
        );
    }

    #[test]
    fn spellings_and_case() {
        check("add", "ADD", [1.0, 1.0, 1.0, 1.0]);
        check("add", "  Add ", [1.0, 1.0, 1.0, 1.0]);
        check("table_average", "average", [1.0, 1.0, 1.0, 1.0]);
        check("table_average", "Table-Average", [1.0, 1.0, 1.0, 1.0]);
        check("table_max", "max", [1.0, 1.0, 1.0, 1.0]);
        check("exp", "power", [1.0, 1.0, 1.0, 1.0]);
        check("greater", "greater than", [1.0, 1.0, 1.0, 1.0]);
        check("Subtract", "minus", [1.0, 1.0, 1.0, 1.0]);
        check("table_sum", "sum", [1.0, 1.0, 1.0, 1.0]);
        check(
            "subtract, divide",
            "percentage\u{a0}change",
            [1.0, 1.0, 1.0, 1.0],
        );
        check("table_max", "\u{212A}max", [0.0, 0.0, 0.0, 0.0]);
        check("table_min", "MİN", [0.0, 0.0, 0.0, 0.0]);
        check("add", "a\u{2003}d\u{2003}d", [0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn unknown_ops_count_but_match_only_themselves() {
        check("add", "add, lookup", [1.0, 0.5, 2.0 / 3.0, 0.5]);
        check("table_median", "Table Median", [1.0, 1.0, 1.0, 1.0]);
        check("table_median", "median", [0.0, 0.0, 0.0, 0.0]);
        check("add", "addd", [0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn blank_ops_are_dropped() {
        let s = score(Some(&["add"][..]), Some(&["", "  ", "add"][..]));
        assert_eq!(s.recall, Some(1.0));
        assert_eq!(s.precision, Some(1.0));
        let s = score(Some(&[" "][..]), Some(&[][..]));
        assert_eq!(s.recall, Some(1.0));
    }

    #[test]
    fn normalisation_is_visible() {
        let names: Vec<&str> = normalize_ops(&["Percentage_Change", "ratio", "mystery op", ""])
            .iter()
            .map(Op::name)
            .collect();
        assert_eq!(names, ["subtract", "divide", "divide", "mystery op"]);
        assert_eq!(
            normalize_op("a__b").collect::<Vec<_>>(),
            [Op::Other("A - B")]
        );
    }

    #[test]
    fn every_spelling_is_normalised_and_unique() {
        let all: Vec<_> = spellings().collect();
        assert_eq!(all.len(), FinqaOp::ALL.len() + VOCABULARY.len());
        for (i, (spelling, ops)) in all.iter().enumerate() {
            assert!(key_chars(spelling).eq(spelling.chars()), "{spelling}");
            assert!(spelling.is_ascii() && spelling.len() <= 24, "{spelling}");
            assert_eq!(lookup(spelling), Some(*ops));
            assert!(!ops.is_empty());
            assert!(
                all.iter().skip(i + 1).all(|(s, _)| s != spelling),
                "{spelling} twice"
            );
        }
        for op in FinqaOp::ALL {
            assert_eq!(lookup(op.name()), Some(&[op][..]));
            let upper = op.name().to_uppercase();
            assert_eq!(normalize_op(&upper).collect::<Vec<_>>(), [Op::Finqa(op)]);
        }
    }

    #[test]
    fn lcs() {
        let o = |s: &'static str| normalize_ops(&ops(s));
        assert_eq!(
            lcs_len(
                &o("add, subtract, divide"),
                &o("add, divide"),
                &mut Vec::new()
            ),
            2
        );
        assert_eq!(lcs_len(&o(""), &o("add"), &mut Vec::new()), 0);
        assert_eq!(
            lcs_len(&o("a, b, c, d"), &o("b, d, a, c"), &mut Vec::new()),
            2
        );
    }
}
