//! The official executor (`eval_program`), reproduced step for step: the structure check on
//! tokens, the `"|".join` / `split(")")` step cutting, Python number and string semantics, and
//! the final `round(x, 5)`.

use super::pyfloat::{py_float, py_int, py_round, py_strip};
use super::{Dialect, ExecOutcome, Op};

/// What the official `str_to_num` makes of an argument or table cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum NumText {
    Num(f64),
    /// `str_to_num` returns "n/a".
    NotANumber,
    /// `const_...` whose rest is not a number: `str_to_num` raises. Every caller turns this and
    /// `NotANumber` into an invalid program, and so do both dialects (FinQA tests `"const" in
    /// text`, ConvFinQA `"const_" in text`; the difference never changes an outcome).
    BadConst,
}

/// The official `str_to_num`: drop commas, then `float()`, else a percent (`"25%"` → 0.25), else
/// a constant (`const_100`, `const_m1` → -1).
pub(crate) fn str_to_num(text: &str) -> NumText {
    let text = text.replace(',', "");
    if let Some(v) = py_float(&text) {
        return NumText::Num(v);
    }
    if text.contains('%') {
        return match py_float(&text.replace('%', "")) {
            Some(v) => NumText::Num(v / 100.0),
            None => NumText::NotANumber,
        };
    }
    if text.contains("const") {
        let rest = text.replace("const_", "");
        let rest = if rest == "m1" { "-1" } else { rest.as_str() };
        return match py_float(rest) {
            Some(v) if text.contains("const_") => NumText::Num(v),
            _ => NumText::BadConst,
        };
    }
    NumText::NotANumber
}

/// The official structure check: tokens 0, 4, 8... (with `(` stripped from both ends) must be
/// operation names and tokens 3, 7, 11... must be `)`.
pub(crate) fn check_structure<S: AsRef<str>>(program: &[S]) -> Result<(), String> {
    for (ind, token) in program.iter().enumerate() {
        let token = token.as_ref();
        if ind % 4 == 0 && Op::from_name(token.trim_matches('(')).is_none() {
            return Err(format!("token {ind} {token:?} is not an operation"));
        }
        if (ind + 1) % 4 == 0 && token != ")" {
            return Err(format!("token {ind} {token:?} is not `)`"));
        }
    }
    Ok(())
}

/// The program's tokens without the last one (the official `program[:-1]`, removing `EOF`).
pub(crate) fn drop_last<S: AsRef<str>>(tokens: &[S]) -> Vec<&str> {
    let n = tokens.len().saturating_sub(1);
    tokens.iter().take(n).map(AsRef::as_ref).collect()
}

/// The official step cutting: `"|".join(program).split(")")[:-1]`, each step stripped.
pub(crate) fn split_steps(joined: &str) -> Vec<&str> {
    let mut steps: Vec<&str> = joined.split(')').map(py_strip).collect();
    steps.pop();
    steps
}

/// One step cut into operation and arguments as the official code does:
/// `op = step.split("(")[0].strip("|").strip()`, `args = step.split("(")[1]...`,
/// `arg1, arg2 = args.split("|")[0..2]`, each stripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CutStep<'a> {
    pub op: &'a str,
    pub arg1: &'a str,
    pub arg2: &'a str,
}

pub(crate) fn cut_step(step: &str) -> Result<CutStep<'_>, String> {
    let mut parts = step.split('(');
    let head = parts.next().unwrap_or_default();
    let Some(args) = parts.next() else {
        return Err(format!("step {step:?} has no `(`"));
    };
    if parts.next().is_some() {
        return Err(format!("step {step:?} has more than one `(`"));
    }
    let op = py_strip(head.trim_matches('|'));
    let args = py_strip(args.trim_matches('|'));
    let mut args = args.split('|');
    let arg1 = py_strip(args.next().unwrap_or_default());
    let Some(arg2) = args.next() else {
        return Err(format!("step {step:?} has fewer than two arguments"));
    };
    Ok(CutStep {
        op,
        arg1,
        arg2: py_strip(arg2),
    })
}

/// A Python value the executor can hold in `this_res` / `res_dict`.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Num(f64),
    /// A complex number: Python 3 returns one for a negative base to a fractional power.
    Complex(f64, f64),
    /// "yes"/"no" from `greater`, the initial "n/a", or their concatenations (`add` on strings).
    Str(String),
}

impl Val {
    fn type_name(&self) -> &'static str {
        match self {
            Val::Num(_) => "float",
            Val::Complex(..) => "complex",
            Val::Str(_) => "str",
        }
    }
    fn as_complex(&self) -> Option<(f64, f64)> {
        match self {
            Val::Num(x) => Some((*x, 0.0)),
            Val::Complex(re, im) => Some((*re, *im)),
            Val::Str(_) => None,
        }
    }
}

/// `eval_program(tokens, table)` of the chosen dialect.
pub(crate) fn execute_tokens<S: AsRef<str>>(
    tokens: &[S],
    table: &[Vec<String>],
    dialect: Dialect,
) -> ExecOutcome {
    match run(&drop_last(tokens), table, dialect) {
        Ok(outcome) => outcome,
        Err(reason) => ExecOutcome::Invalid(reason),
    }
}

fn run(program: &[&str], table: &[Vec<String>], dialect: Dialect) -> Result<ExecOutcome, String> {
    if dialect == Dialect::ConvFinQa {
        if let [only] = program {
            // round(float(str_to_num(token)), 5)
            return match str_to_num(only) {
                NumText::Num(v) => Ok(ExecOutcome::Number(py_round(v, 5))),
                _ => Err(format!("{only:?} is not a number")),
            };
        }
    }
    check_structure(program)?;
    let joined = program.join("|");
    let mut res: Vec<Option<Val>> = Vec::new(); // res_dict, by step index
    let mut num_row: Option<Vec<f64>> = None; // survives across steps, as in Python
    let mut this_res = Val::Str("n/a".into());
    for (ind, step) in split_steps(&joined).into_iter().enumerate() {
        let cut = cut_step(step)?;
        let lookup = |arg: &str| -> Result<Val, String> {
            py_int(&arg.replace('#', ""))
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| res.get(i).cloned().flatten())
                .ok_or_else(|| format!("step {ind}: {arg:?} refers to no computed step"))
        };
        let value = |arg: &str| -> Result<Val, String> {
            if arg.contains('#') {
                return lookup(arg);
            }
            match str_to_num(arg) {
                NumText::Num(v) => Ok(Val::Num(v)),
                _ => Err(format!("step {ind}: {arg:?} is not a number")),
            }
        };
        let arithmetic = matches!(
            cut.op,
            "add" | "subtract" | "multiply" | "divide" | "exp" | "greater"
        );
        if arithmetic {
            let a = value(cut.arg1)?;
            let b = value(cut.arg2)?;
            this_res = binary(cut.op, &a, &b).map_err(|e| format!("step {ind}: {e}"))?;
        } else if cut.op.contains("table") {
            let rows = table_rows(table).map_err(|e| format!("step {ind}: {e}"))?;
            if cut.arg1.contains('#') {
                lookup(cut.arg1)?; // evaluated for its KeyError; num_row keeps its old value
            } else {
                let Some(cells) = rows.iter().rev().find(|r| r.0 == cut.arg1).map(|r| r.1) else {
                    return Err(format!("step {ind}: no table row named {:?}", cut.arg1));
                };
                num_row = Some(
                    process_row(cells)
                        .map_err(|cell| format!("step {ind}: cell {cell:?} is not a number"))?,
                );
            }
            let Some(row) = &num_row else {
                return Err(format!("step {ind}: no table row to compute on"));
            };
            this_res = table_op(cut.op, row, &this_res).map_err(|e| format!("step {ind}: {e}"))?;
        } else {
            continue; // the official loop does nothing for other names
        }
        if res.len() <= ind {
            res.resize(ind + 1, None);
        }
        if let Some(slot) = res.get_mut(ind) {
            *slot = Some(this_res.clone());
        }
    }
    match this_res {
        Val::Num(x) => Ok(ExecOutcome::Number(py_round(x, 5))),
        Val::Str(s) if s == "yes" => Ok(ExecOutcome::YesNo(true)),
        Val::Str(s) if s == "no" => Ok(ExecOutcome::YesNo(false)),
        Val::Str(s) if s == "n/a" => Err("the program computes nothing".into()),
        other => Err(format!(
            "the result is a {}, not a number",
            other.type_name()
        )),
    }
}

/// `{row[0]: row[1:]}` over the table; an empty row raises IndexError in the official code.
fn table_rows(table: &[Vec<String>]) -> Result<Vec<(&str, &[String])>, String> {
    table
        .iter()
        .map(|row| match row.split_first() {
            Some((name, cells)) => Ok((name.as_str(), cells)),
            None => Err("the table has an empty row".to_string()),
        })
        .collect()
}

/// The official `process_row`: drop `$`, cut at the first `(`, then `str_to_num`; any cell that
/// is not a number makes the whole row unusable (returned as the failing cell).
fn process_row(cells: &[String]) -> Result<Vec<f64>, String> {
    cells
        .iter()
        .map(|cell| {
            let text = cell.replace('$', "");
            let text = py_strip(&text);
            let text = py_strip(text.split('(').next().unwrap_or_default());
            match str_to_num(text) {
                NumText::Num(v) => Ok(v),
                _ => Err(cell.clone()),
            }
        })
        .collect()
}

fn table_op(op: &str, row: &[f64], previous: &Val) -> Result<Val, String> {
    let first = row.first().copied();
    let rest = row.get(1..).unwrap_or_default();
    let v = match op {
        // Python max/min keep the first element and replace it only on a strict > / <.
        "table_max" => rest
            .iter()
            .fold(first.ok_or("max() of an empty row")?, |m, &x| {
                if x > m {
                    x
                } else {
                    m
                }
            }),
        "table_min" => rest
            .iter()
            .fold(first.ok_or("min() of an empty row")?, |m, &x| {
                if x < m {
                    x
                } else {
                    m
                }
            }),
        "table_sum" => row.iter().fold(0.0, |s, &x| s + x),
        "table_average" => {
            if row.is_empty() {
                return Err("average of an empty row".into());
            }
            row.iter().fold(0.0, |s, &x| s + x) / row.len() as f64
        }
        // Another name containing "table": the official code leaves this_res unchanged.
        _ => return Ok(previous.clone()),
    };
    Ok(Val::Num(v))
}

/// One arithmetic step with Python's semantics for float, complex and str operands.
fn binary(op: &str, a: &Val, b: &Val) -> Result<Val, String> {
    let type_error = || {
        format!(
            "unsupported operand types for {op}: {} and {}",
            a.type_name(),
            b.type_name()
        )
    };
    match (a, b) {
        (Val::Num(x), Val::Num(y)) => float_op(op, *x, *y),
        (Val::Str(x), Val::Str(y)) => match op {
            "add" => Ok(Val::Str(format!("{x}{y}"))),
            "greater" => Ok(yes_no(x > y)),
            _ => Err(type_error()),
        },
        _ => match (a.as_complex(), b.as_complex()) {
            (Some(x), Some(y)) if op != "greater" => complex_op(op, x, y),
            _ => Err(type_error()),
        },
    }
}

fn yes_no(b: bool) -> Val {
    Val::Str(if b { "yes" } else { "no" }.into())
}

fn float_op(op: &str, x: f64, y: f64) -> Result<Val, String> {
    Ok(Val::Num(match op {
        "add" => x + y,
        "subtract" => x - y,
        "multiply" => x * y,
        "divide" => {
            if y == 0.0 {
                return Err("float division by zero".into());
            }
            x / y
        }
        "exp" => return float_pow(x, y),
        _ => return Ok(yes_no(x > y)),
    }))
}

fn is_odd_integer(x: f64) -> bool {
    (x.abs() % 2.0) == 1.0
}

/// CPython's `float_pow`.
fn float_pow(iv: f64, iw: f64) -> Result<Val, String> {
    if iw == 0.0 {
        return Ok(Val::Num(1.0));
    }
    if iv.is_nan() {
        return Ok(Val::Num(iv));
    }
    if iw.is_nan() {
        return Ok(Val::Num(if iv == 1.0 { 1.0 } else { iw }));
    }
    if iw.is_infinite() {
        let a = iv.abs();
        return Ok(Val::Num(if a == 1.0 {
            1.0
        } else if (iw > 0.0) == (a > 1.0) {
            iw.abs()
        } else {
            0.0
        }));
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(Val::Num(match (iw > 0.0, odd) {
            (true, true) => iv,
            (true, false) => iv.abs(),
            (false, true) => 0.0f64.copysign(iv),
            (false, false) => 0.0,
        }));
    }
    if iv == 0.0 {
        if iw < 0.0 {
            return Err("0.0 cannot be raised to a negative power".into());
        }
        return Ok(Val::Num(if is_odd_integer(iw) { iv } else { 0.0 }));
    }
    let mut base = iv;
    let mut negate = false;
    if iv < 0.0 {
        if iw != iw.floor() {
            return complex_pow((iv, 0.0), (iw, 0.0));
        }
        base = -iv;
        negate = is_odd_integer(iw);
    }
    if base == 1.0 {
        return Ok(Val::Num(if negate { -1.0 } else { 1.0 }));
    }
    let r = base.powf(iw);
    if r.is_infinite() {
        return Err("float power overflow (Numerical result out of range)".into());
    }
    Ok(Val::Num(if negate { -r } else { r }))
}

type Complex = (f64, f64);

fn c_prod(a: Complex, b: Complex) -> Complex {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// CPython's `_Py_c_quot`; `None` for division by zero.
fn c_quot(a: Complex, b: Complex) -> Option<Complex> {
    let (abs_re, abs_im) = (b.0.abs(), b.1.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            return None;
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Some(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_im >= abs_re {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Some(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        Some((f64::NAN, f64::NAN))
    }
}

fn complex_op(op: &str, a: Complex, b: Complex) -> Result<Val, String> {
    let (re, im) = match op {
        "add" => (a.0 + b.0, a.1 + b.1),
        "subtract" => (a.0 - b.0, a.1 - b.1),
        "multiply" => c_prod(a, b),
        "divide" => c_quot(a, b).ok_or("complex division by zero")?,
        _ => return complex_pow(a, b),
    };
    Ok(Val::Complex(re, im))
}

/// CPython's `complex_pow` (repeated multiplication for small integral exponents, else polar).
fn complex_pow(a: Complex, b: Complex) -> Result<Val, String> {
    let zero_error = "0.0 to a negative or complex power";
    let p = if b.1 == 0.0 && b.0 == b.0.floor() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        let mut r = (1.0, 0.0);
        let mut p = a;
        let mut mask: i64 = 1;
        let m = n.abs();
        while mask > 0 && m >= mask {
            if m & mask != 0 {
                r = c_prod(r, p);
            }
            mask <<= 1;
            p = c_prod(p, p);
        }
        if n > 0 {
            r
        } else {
            c_quot((1.0, 0.0), r).ok_or(zero_error)?
        }
    } else if b == (0.0, 0.0) {
        (1.0, 0.0)
    } else if a == (0.0, 0.0) {
        if b.1 != 0.0 || b.0 < 0.0 {
            return Err(zero_error.into());
        }
        (0.0, 0.0)
    } else {
        let vabs = a.0.hypot(a.1);
        let mut len = vabs.powf(b.0);
        let at = a.1.atan2(a.0);
        let mut phase = at * b.0;
        if b.1 != 0.0 {
            len /= (at * b.1).exp();
            phase += b.1 * vabs.ln();
        }
        (len * phase.cos(), len * phase.sin())
    };
    if p.0.is_infinite() || p.1.is_infinite() {
        return Err("complex exponentiation overflow".into());
    }
    Ok(Val::Complex(p.0, p.1))
}

#[cfg(test)]
mod tests {
    use super::super::{execute, execute_tokens};
    use super::*;

    fn table() -> Vec<Vec<String>> {
        let rows: [&[&str]; 6] = [
            &["", "2019", "2018", "2017"],
            &["revenue", "$ 1,200", "$ 1,000", "( 900 )"],
            &["net income", "300", "250", "n/a"],
            &["margin", "25%", "25%", "20%"],
            &["costs", "$ 100", "-50", "1,000.5 ( a )"],
            &["margin", "1", "2", "4"],
        ];
        rows.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    fn check(src: &str, dialect: Dialect, expected: &str) {
        let got = execute(src, &table(), dialect);
        let got_text = match &got {
            ExecOutcome::Invalid(_) => "invalid".to_string(),
            other => other.to_string(),
        };
        assert_eq!(
            got_text, expected,
            "execute({src:?}, {dialect:?}) = {got:?}"
        );
    }

    fn check_both(src: &str, expected: &str) {
        check(src, Dialect::ConvFinQa, expected);
        check(src, Dialect::FinQa, expected);
    }

    #[test]
    fn str_to_num_follows_the_official_rules() {
        let c = |t: &str, e: NumText| assert_eq!(str_to_num(t), e, "{t:?}");
        c("1,200", NumText::Num(1200.0));
        c("25%", NumText::Num(0.25));
        c("%25", NumText::Num(0.25));
        c("-3.5 %", NumText::Num(-0.035));
        c("const_100", NumText::Num(100.0));
        c("const_m1", NumText::Num(-1.0));
        c("const_1000000", NumText::Num(1e6));
        c("const_x", NumText::BadConst);
        c("const5", NumText::BadConst);
        c("x%", NumText::NotANumber);
        c("const_5%", NumText::NotANumber);
        c("n/a", NumText::NotANumber);
        c("", NumText::NotANumber);
        c("1_000", NumText::Num(1000.0));
    }

    #[test]
    fn arithmetic_and_rounding() {
        check_both("subtract(60.94, 25.14)", "35.8");
        check_both("subtract(60.94, 25.14), divide(#0, 25.14)", "1.42403");
        check_both("divide(2, 3)", "0.66667");
        check_both("subtract(0.1, 0.3)", "-0.2");
        check_both("add(2.675, 0)", "2.675");
        check_both("multiply(1,200, 5%)", "60.0");
        check_both("exp(1.05, const_2)", "1.1025");
        check_both("add(const_m1, 0)", "-1.0");
        check_both("divide(const_1, const_1000000000)", "0.0");
        check_both("multiply(-1, 0.000001)", "-0.0");
        check_both("add(inf, 1)", "inf");
        check_both("subtract(inf, inf)", "nan");
        check_both("multiply(1e308, 10)", "inf");
    }

    #[test]
    fn single_values_differ_by_dialect() {
        check("60.94", Dialect::ConvFinQa, "60.94");
        check("60.94", Dialect::FinQa, "invalid");
        check("const_100", Dialect::ConvFinQa, "100.0");
        check("25%", Dialect::ConvFinQa, "0.25");
        check("1,234.567891", Dialect::ConvFinQa, "1234.56789");
        check("nan", Dialect::ConvFinQa, "nan");
        check("yes", Dialect::ConvFinQa, "invalid");
        check("add(", Dialect::ConvFinQa, "invalid");
        check(")", Dialect::ConvFinQa, "invalid");
    }

    #[test]
    fn greater_gives_yes_no_and_strings_behave_like_python() {
        check_both("greater(5, 3)", "yes");
        check_both("greater(3, 3)", "no");
        check_both("greater(nan, 3)", "no");
        check_both("greater(5, 3), greater(1, 3), greater(#0, #1)", "yes"); // "yes" > "no"
        check_both("greater(5, 3), greater(1, 3), add(#0, #1)", "invalid"); // "yesno"
        check_both(
            "greater(5, 3), greater(1, 3), add(#0, #1), add(1, 2)",
            "3.0",
        );
        check_both("greater(5, 3), add(#0, 1)", "invalid");
        check_both("greater(5, 3), multiply(#0, 2)", "invalid");
    }

    #[test]
    fn errors_make_the_program_invalid() {
        check_both("divide(1, 0)", "invalid");
        check_both("divide(1, -0.0)", "invalid");
        check_both("add(1, foo)", "invalid");
        check_both("add(#0, 1)", "invalid");
        check_both("add(1, 2), add(#1, 1)", "invalid");
        check_both("add(1, 2), add(#-1, 1)", "invalid");
        check_both("add(1,2)", "invalid");
        check_both("add(1, 2, 3)", "invalid");
        check_both("sum(1, 2)", "invalid");
        check_both("exp(10, 400)", "invalid");
        check_both("exp(0, -1)", "invalid");
        check_both("add(const_x, 1)", "invalid");
        check_both("", "invalid"); // official: flag 0 with "n/a"
    }

    #[test]
    fn python_power_rules() {
        check_both("exp(-8, 2)", "64.0");
        check_both("exp(-2, 3)", "-8.0");
        check_both("exp(0, 0)", "1.0");
        check_both("exp(nan, 0)", "1.0");
        check_both("exp(1, nan)", "1.0");
        check_both("exp(0.5, inf)", "0.0");
        check_both("exp(-inf, 3)", "-inf");
        check_both("exp(-8, 0.5)", "invalid"); // complex result
        check_both("exp(-8, 0.5), add(1, 2)", "3.0"); // unused complex step
        check_both("exp(-8, 0.5), multiply(#0, 0), divide(1, #1)", "invalid"); // 1 / 0j
        check_both("exp(-8, 0.5), greater(#0, 1)", "invalid");
        check_both("exp(1e-320, 2)", "0.0"); // underflow is not an error
    }

    #[test]
    fn official_leniencies_are_reproduced() {
        // The trailing incomplete step is dropped by split(")")[:-1].
        check_both("add(1, 2), subtract(", "3.0");
        // `|` inside an argument is re-split: arguments are 1 and 2.
        check_both("add(1|2, 3)", "3.0");
        // Whitespace around arguments is stripped.
        check_both("add( 1 , 2 )", "3.0");
        // `#` anywhere in an argument makes it a reference; int() accepts spaces and signs.
        check_both("add(1, 2), add(# 0, 1)", "4.0");
        check_both("add(1, 2), add(0#, 1)", "4.0");
        check_both("add(1, 2), add(#+0, 1)", "4.0");
    }

    #[test]
    fn table_operations() {
        check_both("table_average(margin, none)", "2.33333"); // the last "margin" row wins
        check_both("table_sum(revenue, none)", "invalid"); // "( 900 )" cuts to ""
        check_both("table_max(net income, none)", "invalid");
        check_both("table_max(costs, none)", "1000.5");
        check_both("table_min(costs, none)", "-50.0");
        check_both("table_sum(costs, none)", "1050.5");
        check_both("table_sum(costs, whatever)", "1050.5");
        check_both("table_sum(missing, none)", "invalid");
        check_both("table_sum(, none)", "invalid"); // a one-token arg list
        check_both("table_max(2019, none)", "invalid");
        check_both("table_max(, none)", "invalid");
        // A reference reuses the previous step's row (num_row survives in Python).
        check_both("table_min(costs, none), table_max(#0, none)", "1000.5");
        check_both("add(1, 2), table_max(#0, none)", "invalid");
        check_both("add(1, 2), table_max(#5, none)", "invalid");
    }

    #[test]
    fn table_edge_cases() {
        let t = |rows: &[&[&str]]| -> Vec<Vec<String>> {
            rows.iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect()
        };
        let ok = t(&[&["x"], &["y", "1"]]);
        let c = ExecOutcome::Number(0.0);
        assert_eq!(execute("table_sum(x, none)", &ok, Dialect::FinQa), c);
        assert!(!execute("table_max(x, none)", &ok, Dialect::FinQa).is_valid());
        assert!(!execute("table_average(x, none)", &ok, Dialect::FinQa).is_valid());
        let empty_row = t(&[&["y", "1"], &[]]);
        assert!(!execute("table_sum(y, none)", &empty_row, Dialect::FinQa).is_valid());
        assert_eq!(
            execute("add(1, 2)", &empty_row, Dialect::FinQa),
            ExecOutcome::Number(3.0)
        );
        let nan_first = t(&[&["z", "nan", "1", "3"]]);
        assert!(matches!(
            execute("table_max(z, none)", &nan_first, Dialect::FinQa),
            ExecOutcome::Number(x) if x.is_nan()
        ));
        let nan_later = t(&[&["z", "1", "nan", "3"]]);
        assert_eq!(
            execute("table_max(z, none)", &nan_later, Dialect::FinQa),
            ExecOutcome::Number(3.0)
        );
    }

    #[test]
    fn token_lists_run_as_given() {
        let tokens = ["subtract(", "5829", "5735", ")", "EOF"];
        assert_eq!(
            execute_tokens(&tokens, &[], Dialect::FinQa),
            ExecOutcome::Number(94.0)
        );
        let empty: [&str; 0] = [];
        assert!(!execute_tokens(&empty, &[], Dialect::FinQa).is_valid());
        // The last token is dropped whatever it is.
        let no_eof = ["add(", "1", "2", ")"];
        assert!(!execute_tokens(&no_eof, &[], Dialect::FinQa).is_valid());
        let odd = ["add(", "1)table_sum(x", "2", ")", "EOF"];
        assert!(!execute_tokens(&odd, &[], Dialect::FinQa).is_valid());
    }
}
