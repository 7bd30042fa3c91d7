//! FinQA program language: parse, execute against a table, operations, equivalence.
//!
//! A FinQA/ConvFinQA program is a list of steps like `subtract(60.94, 25.14), divide(#0, 25.14)`,
//! where `#N` is the result of step N; ConvFinQA also allows a bare value (`60.94`, `const_100`).
//! Execution and equivalence reproduce the official evaluators (`eval_program`, `equal_program` in
//! czyssrs/FinQA `code/evaluate/evaluate.py` and czyssrs/ConvFinQA `code/utils/general_utils.py`):
//! programs are first cut into the official tokens ([`tokenize`]), then processed with the same
//! string operations and Python number semantics, including their leniencies. [`parse`] is the
//! strict, typed view of a well-formed program. See `docs/program.md`.

mod equal;
mod exec;
mod poly;
mod pyfloat;
mod syntax;

use serde::{Deserialize, Serialize};

use crate::numeric_qa::model::RawValue;

pub use pyfloat::{py_float, py_float_repr, py_int, py_round};
pub use syntax::{operations, operations_iter, parse, tokenize};

/// Which official evaluator to reproduce. They differ in one rule: ConvFinQA accepts a program
/// that is a single value (`60.94`, `const_100`, `5%`) and returns it rounded; FinQA rejects it.
/// The same rule applies to [`equal_program`]: in ConvFinQA a single-value gold program equals a
/// prediction only when the prediction is that same token.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    #[default]
    ConvFinQa,
    FinQa,
}

/// The ten FinQA operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Add,
    Subtract,
    Multiply,
    Divide,
    Exp,
    Greater,
    TableMax,
    TableMin,
    TableSum,
    TableAverage,
}

impl Op {
    /// Every operation, in the official `all_ops` order.
    pub const ALL: [Op; 10] = [
        Op::Add,
        Op::Subtract,
        Op::Multiply,
        Op::Divide,
        Op::Exp,
        Op::Greater,
        Op::TableMax,
        Op::TableMin,
        Op::TableSum,
        Op::TableAverage,
    ];

    /// The name used in programs: `add`, `table_average`... The one spelling of the operations'
    /// names: the reasoning scorers' vocabulary and the compatibility logic recall read it.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Subtract => "subtract",
            Op::Multiply => "multiply",
            Op::Divide => "divide",
            Op::Exp => "exp",
            Op::Greater => "greater",
            Op::TableMax => "table_max",
            Op::TableMin => "table_min",
            Op::TableSum => "table_sum",
            Op::TableAverage => "table_average",
        }
    }

    /// The operation with exactly this name (case-sensitive, as the official evaluator).
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }

    /// `table_max`, `table_min`, `table_sum`, `table_average`: the first argument is a row name.
    pub fn is_table(self) -> bool {
        matches!(
            self,
            Op::TableMax | Op::TableMin | Op::TableSum | Op::TableAverage
        )
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One argument of a step, as written and as understood.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Arg {
    /// A number as written (`60.94`, `1,200`, `25%`, `-3e2`) and its value (`25%` is 0.25).
    Number { text: String, value: f64 },
    /// A constant (`const_100`, `const_m1` = -1) and its value.
    Const { text: String, value: f64 },
    /// `#N`: the result of step N (0-based), always an earlier step.
    Ref { step: usize },
    /// A table row name (first argument of a table operation). As the second argument of a table
    /// operation, anything other than `none` is kept here; execution ignores it.
    Row { name: String },
    /// `none`, the usual second argument of a table operation.
    None,
}

impl std::fmt::Display for Arg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arg::Number { text, .. } | Arg::Const { text, .. } => f.write_str(text),
            Arg::Ref { step } => write!(f, "#{step}"),
            Arg::Row { name } => f.write_str(name),
            Arg::None => f.write_str("none"),
        }
    }
}

/// One step: an operation on two arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub op: Op,
    pub args: [Arg; 2],
}

/// A well-formed program. `Display` writes it back in the canonical `op(a, b), op(c, d)` form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Program {
    /// A single value (ConvFinQA only; FinQA's executor rejects it).
    Value(Arg),
    Steps(Vec<Step>),
}

impl Program {
    /// The operations of the steps, in order (none for a single value).
    pub fn operations(&self) -> Vec<Op> {
        match self {
            Program::Value(_) => Vec::new(),
            Program::Steps(steps) => steps.iter().map(|s| s.op).collect(),
        }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Program::Value(arg) => write!(f, "{arg}"),
            Program::Steps(steps) => {
                for (i, s) in steps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let [a, b] = &s.args;
                    write!(f, "{}({a}, {b})", s.op)?;
                }
                Ok(())
            }
        }
    }
}

/// Why [`parse`] rejected a program. Steps and argument positions are 0-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    #[error("empty program")]
    Empty,
    #[error("step {step}: {message}")]
    Syntax { step: usize, message: String },
    #[error("step {step}, argument {position}: {message}: {text:?}")]
    Argument {
        step: usize,
        position: usize,
        text: String,
        message: String,
    },
}

/// What executing a program gives, after the official final `round(x, 5)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecOutcome {
    Number(f64),
    /// `greater(a, b)`: "yes" (true) or "no" (false).
    YesNo(bool),
    /// The official evaluator flags the program invalid (or, for an empty program, returns
    /// "n/a"); the reason says why, in the evaluator's terms.
    Invalid(String),
}

impl ExecOutcome {
    pub fn is_valid(&self) -> bool {
        !matches!(self, ExecOutcome::Invalid(_))
    }

    /// Whether this result equals a recorded answer the way the official evaluator compares
    /// them (Python `exe_res == gold_res`): numbers exactly (an int equals the same float, a bool
    /// counts as 0/1), "yes"/"no" as strings; an invalid result equals nothing.
    pub fn matches(&self, answer: &RawValue) -> bool {
        match (self, answer) {
            (ExecOutcome::Number(x), RawValue::Float(y)) => x == y,
            (ExecOutcome::Number(x), RawValue::Int(i)) => float_equals_int(*x, i128::from(*i)),
            (ExecOutcome::Number(x), RawValue::Bool(b)) => *x == if *b { 1.0 } else { 0.0 },
            (ExecOutcome::YesNo(b), RawValue::Str(s)) => s == if *b { "yes" } else { "no" },
            _ => false,
        }
    }

    /// The result as JSON: a number, "yes"/"no", or `"invalid: <reason>"` (non-finite numbers
    /// as their Python repr string, since JSON has no NaN).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ExecOutcome::Number(x) => serde_json::Number::from_f64(*x)
                .map(serde_json::Value::Number)
                .unwrap_or_else(|| serde_json::Value::String(py_float_repr(*x))),
            ExecOutcome::YesNo(b) => {
                serde_json::Value::String(if *b { "yes" } else { "no" }.into())
            }
            ExecOutcome::Invalid(reason) => serde_json::Value::String(format!("invalid: {reason}")),
        }
    }
}

impl std::fmt::Display for ExecOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecOutcome::Number(x) => f.write_str(&py_float_repr(*x)),
            ExecOutcome::YesNo(b) => f.write_str(if *b { "yes" } else { "no" }),
            ExecOutcome::Invalid(reason) => write!(f, "invalid ({reason})"),
        }
    }
}

/// Python's exact float == int comparison.
fn float_equals_int(x: f64, i: i128) -> bool {
    x.is_finite() && x.fract() == 0.0 && x.abs() < 1.7e38 && x as i128 == i
}

/// Executes a program string against a table (rows of cells; row 0 is usually the header, each
/// row starts with its name), exactly as the official `eval_program(program_tokenization(src),
/// table)` of the chosen dialect.
pub fn execute(src: &str, table: &[Vec<String>], dialect: Dialect) -> ExecOutcome {
    exec::execute_tokens(&tokenize(src), table, dialect)
}

/// [`execute`] for a program already cut into official tokens (the last token, normally `EOF`,
/// is dropped as the official evaluator does), e.g. FinQA prediction files.
pub fn execute_tokens<S: AsRef<str>>(
    tokens: &[S],
    table: &[Vec<String>],
    dialect: Dialect,
) -> ExecOutcome {
    exec::execute_tokens(tokens, table, dialect)
}

/// Whether a predicted program is equivalent to the gold one, as the official `equal_program`
/// decides it: gold arguments become symbols (the same text is the same symbol; the prediction
/// may only use the gold's arguments and table steps), `#N` references are substituted, and the
/// two expressions are compared symbolically, so `add(1, 2)` equals `add(2, 1)`. The official
/// code compares `sympy.simplify` results; see `docs/program.md` for how this is reproduced.
pub fn equal_program(gold: &str, pred: &str, dialect: Dialect) -> bool {
    equal::equal_program_tokens(&tokenize(gold), &tokenize(pred), dialect)
}

/// [`equal_program`] for programs already cut into official tokens (each ending with `EOF`).
pub fn equal_program_tokens<G: AsRef<str>, P: AsRef<str>>(
    gold: &[G],
    pred: &[P],
    dialect: Dialect,
) -> bool {
    equal::equal_program_tokens(gold, pred, dialect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_round_trip() {
        for op in Op::ALL {
            assert_eq!(Op::from_name(op.name()), Some(op));
        }
        assert_eq!(Op::from_name("Add"), None);
        assert_eq!(Op::from_name("percentage_change"), None);
        assert!(Op::TableSum.is_table() && !Op::Exp.is_table());
    }

    fn check_match(outcome: ExecOutcome, answer: RawValue, expected: bool) {
        assert_eq!(
            outcome.matches(&answer),
            expected,
            "{outcome:?} vs {answer:?}"
        );
    }

    #[test]
    fn outcome_matches_like_python_equality() {
        check_match(ExecOutcome::Number(35.8), RawValue::Float(35.8), true);
        check_match(ExecOutcome::Number(16.0), RawValue::Int(16), true);
        check_match(ExecOutcome::Number(16.5), RawValue::Int(16), false);
        check_match(ExecOutcome::Number(1.0), RawValue::Bool(true), true);
        check_match(
            ExecOutcome::Number(f64::NAN),
            RawValue::Float(f64::NAN),
            false,
        );
        check_match(ExecOutcome::YesNo(true), RawValue::Str("yes".into()), true);
        check_match(
            ExecOutcome::YesNo(false),
            RawValue::Str("yes".into()),
            false,
        );
        check_match(ExecOutcome::Number(1.0), RawValue::Str("1".into()), false);
        check_match(ExecOutcome::Invalid("x".into()), RawValue::Null, false);
        check_match(ExecOutcome::Number(1e300), RawValue::Int(i64::MAX), false);
    }

    #[test]
    fn outcome_json() {
        assert_eq!(ExecOutcome::Number(0.5).to_json(), serde_json::json!(0.5));
        assert_eq!(ExecOutcome::YesNo(false).to_json(), serde_json::json!("no"));
        assert_eq!(
            ExecOutcome::Number(f64::INFINITY).to_json(),
            serde_json::json!("inf")
        );
        assert_eq!(
            ExecOutcome::Invalid("division by zero".into()).to_json(),
            serde_json::json!("invalid: division by zero")
        );
    }
}
