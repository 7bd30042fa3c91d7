//! Program text: the official tokenization, the strict typed parser, and the tolerant operation scan.

use super::exec::{str_to_num, NumText};
use super::pyfloat::{py_int, py_strip};
use super::{Arg, Op, Program, ProgramError, Step};

/// The official `program_tokenization`: split on `", "`, then cut each piece after every `(`
/// and around every `)`; `EOF` is appended. `"subtract(60.94, 25.14)"` gives
/// `["subtract(", "60.94", "25.14", ")", "EOF"]`.
pub fn tokenize(src: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for piece in src.split(", ") {
        let mut cur = String::new();
        for c in piece.chars() {
            if c == ')' && !cur.is_empty() {
                tokens.push(std::mem::take(&mut cur));
            }
            cur.push(c);
            if c == '(' || c == ')' {
                tokens.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            tokens.push(cur);
        }
    }
    tokens.push("EOF".to_string());
    tokens
}

/// Parses a well-formed program: a single value, or steps `op(arg, arg)` joined by `", "`, where
/// arithmetic arguments are numbers (`1,200`, `25%`), constants (`const_100`, `const_m1`) or
/// references `#N` to an earlier step, and table operations take a row name and (normally)
/// `none`. Stricter than the official executor, which tolerates some malformed text (a trailing
/// incomplete step, `|` inside arguments); [`super::execute`] reproduces those leniencies.
pub fn parse(src: &str) -> Result<Program, ProgramError> {
    let all = tokenize(src);
    let tokens = all.split_last().map(|(_, rest)| rest).unwrap_or_default();
    match tokens {
        [] => return Err(ProgramError::Empty),
        [only] if !only.ends_with('(') && only != ")" => {
            return value_arg(only, 0, 0).map(Program::Value);
        }
        _ => {}
    }
    let mut steps = Vec::with_capacity(tokens.len() / 4);
    for (i, chunk) in tokens.chunks(4).enumerate() {
        let syntax = |message: String| ProgramError::Syntax { step: i, message };
        let [head, a1, a2, close] = chunk else {
            return Err(syntax(format!(
                "incomplete step: {:?}",
                chunk.concat().replace('(', "( ")
            )));
        };
        let op = head
            .strip_suffix('(')
            .ok_or_else(|| syntax(format!("expected an operation like `add(`, found {head:?}")))?;
        let op = Op::from_name(op).ok_or_else(|| syntax(format!("unknown operation {op:?}")))?;
        if close != ")" {
            return Err(syntax(format!(
                "expected `)` after two arguments, found {close:?}"
            )));
        }
        let args = if op.is_table() {
            [row_arg(a1, i, 0)?, none_or_row(a2, i)?]
        } else {
            [step_arg(a1, i, 0)?, step_arg(a2, i, 1)?]
        };
        steps.push(Step { op, args });
    }
    Ok(Program::Steps(steps))
}

fn arg_error(step: usize, position: usize, text: &str, message: &str) -> ProgramError {
    ProgramError::Argument {
        step,
        position,
        text: text.to_string(),
        message: message.to_string(),
    }
}

/// The stripped argument text, rejecting what the official step cutting would mangle.
fn clean_arg(raw: &str, step: usize, position: usize) -> Result<&str, ProgramError> {
    let text = py_strip(raw);
    if text.is_empty() {
        return Err(arg_error(step, position, raw, "empty argument"));
    }
    if text.contains(['|', '(', ')']) {
        return Err(arg_error(step, position, raw, "unexpected `|`, `(` or `)`"));
    }
    Ok(text)
}

/// A number or constant.
fn value_arg(raw: &str, step: usize, position: usize) -> Result<Arg, ProgramError> {
    let text = clean_arg(raw, step, position)?;
    match str_to_num(text) {
        NumText::Num(value) => {
            let is_const = text.starts_with("const_") && !text.contains('%');
            Ok(if is_const {
                Arg::Const {
                    text: text.to_string(),
                    value,
                }
            } else {
                Arg::Number {
                    text: text.to_string(),
                    value,
                }
            })
        }
        NumText::NotANumber | NumText::BadConst => {
            Err(arg_error(step, position, text, "not a number or constant"))
        }
    }
}

/// An arithmetic argument: `#N` (an earlier step) or a value.
fn step_arg(raw: &str, step: usize, position: usize) -> Result<Arg, ProgramError> {
    let text = clean_arg(raw, step, position)?;
    if text.contains('#') {
        return match py_int(&text.replace('#', "")) {
            Some(n) if n >= 0 && (n as u64) < step as u64 => Ok(Arg::Ref { step: n as usize }),
            _ => Err(arg_error(
                step,
                position,
                text,
                "a reference must be #N with N an earlier step",
            )),
        };
    }
    value_arg(text, step, position)
}

fn row_arg(raw: &str, step: usize, position: usize) -> Result<Arg, ProgramError> {
    let text = clean_arg(raw, step, position)?;
    if text.contains('#') {
        return Err(arg_error(
            step,
            position,
            text,
            "a table operation takes a row name, not a step reference",
        ));
    }
    Ok(Arg::Row {
        name: text.to_string(),
    })
}

fn none_or_row(raw: &str, step: usize) -> Result<Arg, ProgramError> {
    let text = clean_arg(raw, step, 1)?;
    Ok(if text == "none" {
        Arg::None
    } else {
        Arg::Row {
            name: text.to_string(),
        }
    })
}

/// Every operation name followed by `(` in the text, in order. Tolerant: works on malformed
/// programs and free text (`"then subtract( 5, 3 ) and divide(#0,2"` gives subtract, divide). An
/// operation must be a whole identifier (`mytable_sum(` does not count), spelled in lower case;
/// spaces between the name and `(` are allowed.
pub fn operations(src: &str) -> Vec<Op> {
    operations_iter(src).collect()
}

/// [`operations`] without allocating: the same operations, lazily.
pub fn operations_iter(src: &str) -> impl Iterator<Item = Op> + '_ {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = src;
    let mut prev_ident = false;
    std::iter::from_fn(move || {
        while let Some(c) = rest.chars().next() {
            if is_ident(c) && !prev_ident {
                let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
                let (word, after) = rest.split_at(end);
                rest = after;
                prev_ident = true;
                if let Some(op) = Op::from_name(word) {
                    if after.trim_start().starts_with('(') {
                        return Some(op);
                    }
                }
                continue;
            }
            prev_ident = is_ident(c);
            rest = &rest[c.len_utf8()..];
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_tokens(src: &str, expected: &[&str]) {
        assert_eq!(tokenize(src), expected, "tokenize({src:?})");
    }

    #[test]
    fn tokenization_matches_the_official_one() {
        check_tokens(
            "subtract(60.94, 25.14), divide(#0, 25.14)",
            &[
                "subtract(",
                "60.94",
                "25.14",
                ")",
                "divide(",
                "#0",
                "25.14",
                ")",
                "EOF",
            ],
        );
        check_tokens("60.94", &["60.94", "EOF"]);
        check_tokens("", &["EOF"]);
        check_tokens(
            "table_average(margin, none)",
            &["table_average(", "margin", "none", ")", "EOF"],
        );
        check_tokens("add(1,2)", &["add(", "1,2", ")", "EOF"]);
        check_tokens("add((1, 2))", &["add(", "(", "1", "2", ")", ")", "EOF"]);
        check_tokens("a)b(c", &["a", ")", "b(", "c", "EOF"]);
        check_tokens("add(1, 2)), ", &["add(", "1", "2", ")", ")", "EOF"]);
        check_tokens("greater(5 , 3)", &["greater(", "5 ", "3", ")", "EOF"]);
    }

    fn num(text: &str, value: f64) -> Arg {
        Arg::Number {
            text: text.into(),
            value,
        }
    }

    fn check_parse(src: &str, expected: Result<Program, &str>) {
        let got = parse(src);
        match expected {
            Ok(p) => assert_eq!(got, Ok(p), "parse({src:?})"),
            Err(msg) => {
                let err = got.expect_err(src).to_string();
                assert!(
                    err.contains(msg),
                    "parse({src:?}) error {err:?} lacks {msg:?}"
                );
            }
        }
    }

    #[test]
    fn parses_well_formed_programs() {
        check_parse(
            "subtract(60.94, 25.14), divide(#0, 25.14)",
            Ok(Program::Steps(vec![
                Step {
                    op: Op::Subtract,
                    args: [num("60.94", 60.94), num("25.14", 25.14)],
                },
                Step {
                    op: Op::Divide,
                    args: [Arg::Ref { step: 0 }, num("25.14", 25.14)],
                },
            ])),
        );
        check_parse("60.94", Ok(Program::Value(num("60.94", 60.94))));
        check_parse(
            "const_m1",
            Ok(Program::Value(Arg::Const {
                text: "const_m1".into(),
                value: -1.0,
            })),
        );
        check_parse("25%", Ok(Program::Value(num("25%", 0.25))));
        check_parse("$ 1,200", Err("not a number"));
        check_parse(
            "multiply(1,200, 5%)",
            Ok(Program::Steps(vec![Step {
                op: Op::Multiply,
                args: [num("1,200", 1200.0), num("5%", 0.05)],
            }])),
        );
        check_parse(
            "table_average(net income, none)",
            Ok(Program::Steps(vec![Step {
                op: Op::TableAverage,
                args: [
                    Arg::Row {
                        name: "net income".into(),
                    },
                    Arg::None,
                ],
            }])),
        );
        check_parse(
            "exp(1.05, const_2)",
            Ok(Program::Steps(vec![Step {
                op: Op::Exp,
                args: [
                    num("1.05", 1.05),
                    Arg::Const {
                        text: "const_2".into(),
                        value: 2.0,
                    },
                ],
            }])),
        );
    }

    #[test]
    fn rejects_malformed_programs() {
        check_parse("", Err("empty program"));
        check_parse("add(1,2)", Err("incomplete step"));
        check_parse("add(1, 2), subtract(", Err("incomplete step"));
        check_parse("add(1, 2, 3)", Err("expected `)`"));
        check_parse("sum(1, 2)", Err("unknown operation \"sum\""));
        check_parse("Add(1, 2)", Err("unknown operation"));
        check_parse("add(1, foo)", Err("not a number"));
        check_parse("add(#0, 1)", Err("earlier step"));
        check_parse("add(1, 2), add(#1, 1)", Err("earlier step"));
        check_parse("add(1, 2), add(#-1, 1)", Err("earlier step"));
        check_parse("add(1|2, 3)", Err("unexpected `|`"));
        check_parse("add( , 3)", Err("empty argument"));
        check_parse("table_sum(#0, none)", Err("row name"));
        check_parse("const_x", Err("not a number"));
        check_parse("yes", Err("not a number"));
    }

    #[test]
    fn display_writes_the_canonical_form() {
        for src in [
            "subtract(60.94, 25.14), divide(#0, 25.14)",
            "table_max(revenue, none)",
            "const_100",
            "greater(5, 3)",
        ] {
            let p = parse(src).expect(src);
            assert_eq!(p.to_string(), src);
        }
        let p = parse("add( 1 , 2 )").expect("spaces");
        assert_eq!(p.to_string(), "add(1, 2)");
    }

    fn check_ops(src: &str, expected: &[&str]) {
        let got: Vec<&str> = operations(src).into_iter().map(Op::name).collect();
        assert_eq!(got, expected, "operations({src:?})");
    }

    #[test]
    fn operations_are_found_tolerantly() {
        check_ops(
            "subtract(8181, 20454), divide(#0, 20454)",
            &["subtract", "divide"],
        );
        check_ops("4241", &[]);
        check_ops("", &[]);
        check_ops("greater(5, 3)", &["greater"]);
        check_ops("exp(1.05, const_2)", &["exp"]);
        check_ops(
            "table_sum(revenue, none), table_average(x, none)",
            &["table_sum", "table_average"],
        );
        check_ops("add(1,2", &["add"]);
        check_ops(
            "then subtract ( 5, 3 ) and divide(#0,2",
            &["subtract", "divide"],
        );
        check_ops("mytable_sum(1, 2), subtracted(1), add", &[]);
        check_ops("ADD(1, 2), add(add(1, 2), 3)", &["add", "add"]);
        check_ops("émultiply(1, 2) ×add(1, 2)", &["multiply", "add"]);
    }
}
