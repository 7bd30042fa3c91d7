//! Python syntax validity of generated code, by a real parser (`rustpython-parser`, behind the
//! `python-syntax` feature). Without the feature nothing is guessed: validity is `Unchecked`.
//!
//! The seed system used `ast.parse(code)`; on `SyntaxError` it kept `{line, message, text}` with
//! `message = str(e)` (`"<msg> (<unknown>, line N)"`) and `text` = the offending source line with its
//! newline. This module fills the same shape; the `<msg>` wording is the Rust parser's, not
//! CPython's (validity itself is what the scores use).

use serde::{Deserialize, Serialize};

/// Whether the code parses: JSON `true` / `false`, or the string `"unchecked"` when no parser ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxValidity {
    Valid,
    Invalid,
    Unchecked,
}

impl SyntaxValidity {
    pub fn is_valid(self) -> Option<bool> {
        match self {
            SyntaxValidity::Valid => Some(true),
            SyntaxValidity::Invalid => Some(false),
            SyntaxValidity::Unchecked => None,
        }
    }
}

impl Serialize for SyntaxValidity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SyntaxValidity::Valid => s.serialize_bool(true),
            SyntaxValidity::Invalid => s.serialize_bool(false),
            SyntaxValidity::Unchecked => s.serialize_str("unchecked"),
        }
    }
}

impl<'de> Deserialize<'de> for SyntaxValidity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Bool(true) => Ok(SyntaxValidity::Valid),
            serde_json::Value::Bool(false) => Ok(SyntaxValidity::Invalid),
            serde_json::Value::String(s) if s == "unchecked" => Ok(SyntaxValidity::Unchecked),
            other => Err(serde::de::Error::custom(format!(
                "syntax_valid must be true, false or \"unchecked\", got {other}"
            ))),
        }
    }
}

/// One entry of `syntax_errors`. `Bare` is the seed system's shape for a non-`SyntaxError`
/// failure of `ast.parse` (source with a NUL byte): `{message}` only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SyntaxErrorDto {
    Bare(BareSyntaxError),
    Located {
        line: Option<u32>,
        message: String,
        text: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BareSyntaxError {
    pub message: String,
}

/// Result of checking one code string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxCheck {
    pub validity: SyntaxValidity,
    pub errors: Vec<SyntaxErrorDto>,
}

/// True when this build carries the Python parser.
pub const PARSER_AVAILABLE: bool = cfg!(feature = "python-syntax");

/// Parses `code` as a Python module.
pub fn check_syntax(code: &str) -> SyntaxCheck {
    if code.contains('\0') {
        // CPython 3.11's ast.parse raises ValueError here, which the seed system records bare.
        return SyntaxCheck {
            validity: SyntaxValidity::Invalid,
            errors: vec![SyntaxErrorDto::Bare(BareSyntaxError {
                message: "source code string cannot contain null bytes".into(),
            })],
        };
    }
    parse(code)
}

#[cfg(feature = "python-syntax")]
fn parse(code: &str) -> SyntaxCheck {
    use rustpython_parser::lexer::LexicalErrorType;
    use rustpython_parser::{ast, Mode, ParseErrorType};
    let invalid = |offset: usize, at_eof: bool, msg: String| {
        let (line, text) = locate(code, offset, at_eof);
        SyntaxCheck {
            validity: SyntaxValidity::Invalid,
            errors: vec![SyntaxErrorDto::Located {
                line: Some(line),
                message: format!("{msg} (<unknown>, line {line})"),
                text: Some(format!("{text}\n")),
            }],
        }
    };
    // The parser recurses once per nesting level: code past CPython's own limits is refused
    // before it runs, as CPython refuses it.
    match super::nesting::too_deep(code) {
        Some(super::nesting::TooDeep::Brackets { offset }) => {
            return invalid(offset, false, "too many nested parentheses".into());
        }
        Some(super::nesting::TooDeep::Operators { offset }) => {
            let (line, _) = locate(code, offset, false);
            return SyntaxCheck {
                validity: SyntaxValidity::Invalid,
                errors: vec![SyntaxErrorDto::Bare(BareSyntaxError {
                    message: format!(
                        "nested deeper than {} operators at line {line} (CPython: RecursionError)",
                        super::nesting::MAX_OPERATORS
                    ),
                })],
            };
        }
        None => {}
    }
    match rustpython_parser::parse(code, Mode::Module, "<unknown>") {
        Ok(ast::Mod::Module(m)) => match targets::first_invalid(&m.body) {
            Some((offset, msg)) => invalid(offset, false, msg),
            None => SyntaxCheck {
                validity: SyntaxValidity::Valid,
                errors: Vec::new(),
            },
        },
        Ok(_) => SyntaxCheck {
            validity: SyntaxValidity::Valid,
            errors: Vec::new(),
        },
        Err(e) => {
            let offset = usize::try_from(u32::from(e.offset)).unwrap_or(usize::MAX);
            let at_eof = matches!(
                e.error,
                ParseErrorType::Eof | ParseErrorType::Lexical(LexicalErrorType::Eof)
            ) || offset >= code.trim_end().len();
            invalid(offset, at_eof, e.error.to_string())
        }
    }
}

/// Assignment and deletion targets: the rustpython parser accepts any expression there, CPython's
/// parser does not (`1 = x`, `f() = 1`, `del x + 1`, `a + 1 += 2`). Checked on the parsed tree
/// for statement-level targets (not for walrus or comprehension targets).
#[cfg(feature = "python-syntax")]
mod targets {
    use rustpython_parser::ast::{self, Expr, Ranged, Stmt};

    /// Statement nesting beyond this is not checked (keeps the walk's stack bounded).
    const MAX_DEPTH: u32 = 200;

    #[derive(Clone, Copy, PartialEq)]
    enum Ctx {
        Assign,
        AugAssign,
        Delete,
    }

    fn kind(e: &Expr) -> &'static str {
        match e {
            Expr::Constant(_) => "literal",
            Expr::Call(_) => "function call",
            Expr::Lambda(_) => "lambda",
            Expr::Compare(_) => "comparison",
            Expr::NamedExpr(_) => "named expression",
            Expr::Await(_) => "await expression",
            Expr::Yield(_) | Expr::YieldFrom(_) => "yield expression",
            Expr::IfExp(_) => "conditional expression",
            Expr::Dict(_) => "dict literal",
            Expr::Set(_) => "set display",
            Expr::ListComp(_) => "list comprehension",
            Expr::SetComp(_) => "set comprehension",
            Expr::DictComp(_) => "dict comprehension",
            Expr::GeneratorExp(_) => "generator expression",
            Expr::JoinedStr(_) | Expr::FormattedValue(_) => "f-string expression",
            Expr::Starred(_) => "starred",
            Expr::Tuple(_) => "tuple",
            Expr::List(_) => "list",
            _ => "expression",
        }
    }

    fn check(e: &Expr, ctx: Ctx) -> Option<(usize, String)> {
        let ok = match e {
            Expr::Name(_) | Expr::Attribute(_) | Expr::Subscript(_) => return None,
            Expr::Starred(s) if ctx == Ctx::Assign => return check(&s.value, ctx),
            Expr::Tuple(t) if ctx != Ctx::AugAssign => {
                return t.elts.iter().find_map(|x| check(x, ctx))
            }
            Expr::List(l) if ctx != Ctx::AugAssign => {
                return l.elts.iter().find_map(|x| check(x, ctx))
            }
            _ => false,
        };
        if ok {
            return None;
        }
        let offset = usize::try_from(u32::from(e.range().start())).unwrap_or(usize::MAX);
        let msg = match ctx {
            Ctx::Assign => format!("cannot assign to {}", kind(e)),
            Ctx::AugAssign => format!(
                "'{}' is an illegal expression for augmented assignment",
                kind(e)
            ),
            Ctx::Delete => format!("cannot delete {}", kind(e)),
        };
        Some((offset, msg))
    }

    fn handlers(hs: &[ast::ExceptHandler], depth: u32) -> Option<(usize, String)> {
        hs.iter().find_map(|h| match h {
            ast::ExceptHandler::ExceptHandler(h) => body(&h.body, depth),
        })
    }

    fn body(stmts: &[Stmt], depth: u32) -> Option<(usize, String)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        stmts.iter().find_map(|s| match s {
            Stmt::Assign(a) => a.targets.iter().find_map(|t| check(t, Ctx::Assign)),
            Stmt::AugAssign(a) => check(&a.target, Ctx::AugAssign),
            Stmt::AnnAssign(a) => check(&a.target, Ctx::AugAssign),
            Stmt::Delete(x) => x.targets.iter().find_map(|t| check(t, Ctx::Delete)),
            Stmt::For(f) => check(&f.target, Ctx::Assign)
                .or_else(|| body(&f.body, d))
                .or_else(|| body(&f.orelse, d)),
            Stmt::AsyncFor(f) => check(&f.target, Ctx::Assign)
                .or_else(|| body(&f.body, d))
                .or_else(|| body(&f.orelse, d)),
            Stmt::With(w) => w
                .items
                .iter()
                .find_map(|i| i.optional_vars.as_ref().and_then(|v| check(v, Ctx::Assign)))
                .or_else(|| body(&w.body, d)),
            Stmt::AsyncWith(w) => w
                .items
                .iter()
                .find_map(|i| i.optional_vars.as_ref().and_then(|v| check(v, Ctx::Assign)))
                .or_else(|| body(&w.body, d)),
            Stmt::While(w) => body(&w.body, d).or_else(|| body(&w.orelse, d)),
            Stmt::If(i) => body(&i.body, d).or_else(|| body(&i.orelse, d)),
            Stmt::Try(t) => body(&t.body, d)
                .or_else(|| handlers(&t.handlers, d))
                .or_else(|| body(&t.orelse, d))
                .or_else(|| body(&t.finalbody, d)),
            Stmt::TryStar(t) => body(&t.body, d)
                .or_else(|| handlers(&t.handlers, d))
                .or_else(|| body(&t.orelse, d))
                .or_else(|| body(&t.finalbody, d)),
            Stmt::FunctionDef(f) => body(&f.body, d),
            Stmt::AsyncFunctionDef(f) => body(&f.body, d),
            Stmt::ClassDef(c) => body(&c.body, d),
            Stmt::Match(m) => m.cases.iter().find_map(|c| body(&c.body, d)),
            _ => None,
        })
    }

    /// The first invalid statement-level target: its byte offset and CPython-style message.
    pub fn first_invalid(stmts: &[Stmt]) -> Option<(usize, String)> {
        body(stmts, 0)
    }
}

#[cfg(not(feature = "python-syntax"))]
fn parse(_code: &str) -> SyntaxCheck {
    SyntaxCheck {
        validity: SyntaxValidity::Unchecked,
        errors: Vec::new(),
    }
}

/// 1-based line (Python counts `\n`, `\r\n` and `\r` as line ends) and that line's text, for a
/// byte offset. An error at end of input is reported on the last non-blank line, as CPython does
/// for unclosed brackets.
#[cfg_attr(not(feature = "python-syntax"), allow(dead_code))]
fn locate(code: &str, offset: usize, at_eof: bool) -> (u32, &str) {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut start = 0;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'\n') => {
                lines.push((start, code.get(start..i).unwrap_or("")));
                start = i + 1;
            }
            Some(b'\r') => {
                lines.push((start, code.get(start..i).unwrap_or("")));
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    lines.push((start, code.get(start..).unwrap_or("")));
    let mut idx = lines
        .iter()
        .rposition(|&(s, _)| s <= offset)
        .unwrap_or_default();
    if at_eof {
        while idx > 0 && lines.get(idx).is_some_and(|(_, t)| t.trim().is_empty()) {
            idx -= 1;
        }
    }
    let text = lines.get(idx).map(|&(_, t)| t).unwrap_or("");
    (u32::try_from(idx + 1).unwrap_or(u32::MAX), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_serializes_as_bool_or_unchecked() {
        let check = |v: SyntaxValidity, json: &str| {
            assert_eq!(serde_json::to_string(&v).ok().as_deref(), Some(json));
            assert_eq!(serde_json::from_str::<SyntaxValidity>(json).ok(), Some(v));
        };
        check(SyntaxValidity::Valid, "true");
        check(SyntaxValidity::Invalid, "false");
        check(SyntaxValidity::Unchecked, "\"unchecked\"");
        assert!(serde_json::from_str::<SyntaxValidity>("1").is_err());
    }

    #[test]
    fn syntax_error_shapes_round_trip() {
        let located = r#"{"line":1,"message":"m","text":"x\n"}"#;
        let bare = r#"{"message":"m"}"#;
        for json in [located, bare] {
            let v: Result<SyntaxErrorDto, _> = serde_json::from_str(json);
            let back = v.ok().and_then(|v| serde_json::to_string(&v).ok());
            assert_eq!(back.as_deref(), Some(json));
        }
    }

    #[test]
    fn nul_bytes_are_a_bare_error() {
        let got = check_syntax("x = 1\0");
        assert_eq!(got.validity, SyntaxValidity::Invalid);
        assert!(matches!(got.errors.as_slice(), [SyntaxErrorDto::Bare(_)]));
    }

    #[test]
    fn locate_counts_python_line_ends() {
        assert_eq!(locate("a\nb\r\nc\rd", 7, false), (4, "d"));
        assert_eq!(locate("a\nb\r\nc\rd", 5, false), (3, "c"));
        assert_eq!(locate("x = (1,\n\n", 9, true), (1, "x = (1,"));
        assert_eq!(locate("", 0, true), (1, ""));
        assert_eq!(locate("é = 1", 99, false), (1, "é = 1"));
    }

    #[cfg(feature = "python-syntax")]
    #[test]
    fn parser_decides_validity() {
        let check = |code: &str, valid: bool| {
            let got = check_syntax(code);
            let want = if valid {
                SyntaxValidity::Valid
            } else {
                SyntaxValidity::Invalid
            };
            assert_eq!(got.validity, want, "{code:?}: {:?}", got.errors);
            assert_eq!(got.errors.is_empty(), valid);
        };
        check("result = df.groupby('a')['b'].mean()", true);
        check("import pandas as pd\n# c\nresult = df[df['x'] > 1]\n", true);
        check("for i in range(3):\n    print(i)\n", true);
        check("match x:\n    case 1:\n        pass\n", true);
        check("f = lambda x: x if x else -x", true);
        check("x = f'{a!r:>10}'", true);
        check("", true);
        check("   \n\n", true);
        check("result = len(df", false);
        check("if x\n    y = 1", false);
        check("x = = 1", false);
        check("def f(:\n  pass", false);
        check("for i in range(3):\nprint(i)", false);
        check("1 = x", false);
        check("f() = 1", false);
        check("x, 1 = y", false);
        check("[a, *b] = y", true);
        check("a.b, c[0] = 1, 2", true);
        check("del x + 1", false);
        check("del a, b[0]", true);
        check("x + 1 += 2", false);
        check("x: int = 1", true);
        check("for f() in y:\n    pass", false);
        check("with open(p) as (a, 1):\n    pass", false);
        check("if a:\n    while b:\n        try:\n            pass\n        except E:\n            g() = 1", false);
    }

    /// Fuzz finding (evalboard-fuzz, python_syntax: `t` and 46,563 `-` overflowed a 2 MiB stack
    /// when the parser's tree of nested negations was dropped; long attribute, call and
    /// subscript chains did the same): such code is refused before the parser runs, on wasm's
    /// 1 MiB stack too.
    #[cfg(feature = "python-syntax")]
    #[test]
    fn long_operator_and_trailer_chains_are_refused_not_parsed() {
        let run = std::thread::Builder::new().stack_size(1 << 20).spawn(|| {
            let refused: Vec<SyntaxCheck> = [
                format!("t{}O", "-".repeat(46_563)),
                format!("x{}", ".a".repeat(100_000)),
                format!("f{}", "()".repeat(100_000)),
                format!("a{}", "[0]".repeat(100_000)),
            ]
            .iter()
            .map(|code| check_syntax(code))
            .collect();
            // At the limit the parser runs, and its tree still fits a 1 MiB stack.
            let limit = super::super::nesting::MAX_OPERATORS;
            let at_limit = check_syntax(&format!("x = a{}", ".b".repeat(limit)));
            (refused, at_limit.validity)
        });
        let (refused, at_limit) = run
            .expect("thread starts")
            .join()
            .expect("no stack overflow");
        for got in refused {
            assert_eq!(got.validity, SyntaxValidity::Invalid);
            assert!(
                matches!(got.errors.as_slice(), [SyntaxErrorDto::Bare(_)]),
                "{:?}",
                got.errors
            );
        }
        assert_eq!(at_limit, SyntaxValidity::Valid);
    }

    #[cfg(feature = "python-syntax")]
    #[test]
    fn error_carries_line_message_and_text() {
        let got = check_syntax("a = 1\nresult = len(df\n");
        match got.errors.as_slice() {
            [SyntaxErrorDto::Located {
                line: Some(2),
                message,
                text: Some(text),
            }] => {
                assert!(message.ends_with("(<unknown>, line 2)"), "{message}");
                assert_eq!(text, "result = len(df\n");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[cfg(not(feature = "python-syntax"))]
    #[test]
    fn without_parser_nothing_is_guessed() {
        let got = check_syntax("result = len(df");
        assert_eq!(got.validity, SyntaxValidity::Unchecked);
        assert!(got.errors.is_empty());
    }
}
