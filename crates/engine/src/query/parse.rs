//! The query language's grammar: text → [`Expr`], with every bound stated.
//!
//! ```text
//! expr  := and ("or" and)*
//! and   := not ("and" not)*
//! not   := "not" not | atom
//! atom  := "(" expr ")" | path [op value]
//! op    := == | != | < | <= | > | >= | ~ | !~
//! value := "string" | number | /regex/flags | true | false | null | bare-word
//! path  := name ("." name)*        name: letters, digits, _ - * or a "quoted" name
//! ```
//!
//! `not` binds tighter than `and`, and `and` tighter than `or`, as in Python and SQL. Keywords
//! are case-free (`AND`, `Or`); `&&`, `||` and `!` are accepted for them. A query is at most
//! [`MAX_QUERY_CHARS`] characters and [`MAX_DEPTH`] levels deep; a regex at most
//! [`MAX_PATTERN_CHARS`] characters, compiled to at most [`REGEX_SIZE_LIMIT`] bytes.

use regex::{Regex, RegexBuilder};

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 10_000;
/// Deepest nesting of parentheses and `not`s accepted.
pub const MAX_DEPTH: usize = 64;
/// Longest regex accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 1_000;
/// Most bytes a compiled regex (and each of its lazy DFA caches) may take: a pattern that needs
/// more is refused with a message, never compiled.
pub const REGEX_SIZE_LIMIT: usize = 2 << 20;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Regex match (`~`).
    Match,
    /// No regex match (`!~`).
    NotMatch,
}

impl Op {
    pub fn text(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Match => "~",
            Op::NotMatch => "!~",
        }
    }
}

/// A literal a field is compared with.
#[derive(Debug, Clone)]
pub enum Literal {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
    /// A compiled regex and the text it was written as (`/…/i`).
    Regex(Regex, String),
}

/// A parsed query.
#[derive(Debug, Clone)]
pub enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    /// A field compared with a literal.
    Cmp {
        path: String,
        op: Op,
        value: Literal,
    },
    /// A field alone: true when it has a value that is not null, false, 0 or empty.
    Has(String),
}

/// Why a query does not parse: the message and the character offset it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    pub message: String,
    /// 0-based character offset in the query.
    pub at: usize,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at character {})", self.message, self.at + 1)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Op(Op),
    /// A bare word (a path, or a value on an operator's right).
    Word(String),
    Str(String),
    Num(f64),
    /// A regex literal's pattern and flags.
    Regex(String, String),
}

fn err(message: impl Into<String>, at: usize) -> QueryError {
    QueryError {
        message: message.into(),
        at,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '*' | '$' | '@' | ':' | '/')
}

/// The tokens of `src`, each with its character offset. A `/` begins a regex only where a value
/// is expected (after an operator); elsewhere it is part of a word (`a/b` paths, keys).
fn lex(src: &str) -> Result<Vec<(Tok, usize)>, QueryError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<(Tok, usize)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at = i;
        let after_op = matches!(out.last(), Some((Tok::Op(_), _)));
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                out.push((Tok::LParen, at));
                i += 1;
            }
            ')' => {
                out.push((Tok::RParen, at));
                i += 1;
            }
            '"' | '\'' => {
                let (s, next) = quoted(&chars, i)?;
                out.push((Tok::Str(s), at));
                i = next;
            }
            '/' if after_op => {
                let (pattern, flags, next) = regex_literal(&chars, i)?;
                out.push((Tok::Regex(pattern, flags), at));
                i = next;
            }
            '=' | '!' | '<' | '>' | '~' | '&' | '|' => {
                let next = chars.get(i + 1).copied();
                let (tok, len) = match (c, next) {
                    ('=', Some('=')) => (Tok::Op(Op::Eq), 2),
                    ('=', _) => (Tok::Op(Op::Eq), 1),
                    ('!', Some('=')) => (Tok::Op(Op::Ne), 2),
                    ('!', Some('~')) => (Tok::Op(Op::NotMatch), 2),
                    ('!', _) => (Tok::Not, 1),
                    ('<', Some('=')) => (Tok::Op(Op::Le), 2),
                    ('<', _) => (Tok::Op(Op::Lt), 1),
                    ('>', Some('=')) => (Tok::Op(Op::Ge), 2),
                    ('>', _) => (Tok::Op(Op::Gt), 1),
                    ('~', _) => (Tok::Op(Op::Match), 1),
                    ('&', Some('&')) => (Tok::And, 2),
                    ('|', Some('|')) => (Tok::Or, 2),
                    _ => return Err(err(format!("unexpected '{c}'"), at)),
                };
                out.push((tok, at));
                i += len;
            }
            c if is_word_char(c) || c == '+' => {
                let start = i;
                while i < chars.len() && (is_word_char(chars[i]) || chars[i] == '+') {
                    // `-`/`+` inside a number's exponent, or a sign before a digit, stays.
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let tok = match word.to_ascii_lowercase().as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    _ => match number(&word) {
                        Some(n) if after_op => Tok::Num(n),
                        _ => Tok::Word(word),
                    },
                };
                out.push((tok, start));
            }
            _ => return Err(err(format!("unexpected '{c}'"), at)),
        }
    }
    Ok(out)
}

/// A number as a query writes it (`600`, `-3.5`, `1e6`, `0.05`); thousands separators and
/// percent signs are not numbers here (they stay words, compared as text).
fn number(word: &str) -> Option<f64> {
    let ok = word
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
        && word.chars().any(|c| c.is_ascii_digit());
    ok.then(|| word.parse::<f64>().ok())
        .flatten()
        .filter(|n| n.is_finite())
}

/// A quoted string from `chars[i]` (its quote), with `\"`, `\\`, `\n`, `\t` escapes: the text and
/// the index after the closing quote.
fn quoted(chars: &[char], i: usize) -> Result<(String, usize), QueryError> {
    let q = chars[i];
    let mut s = String::new();
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' if j + 1 < chars.len() => {
                s.push(match chars[j + 1] {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
                j += 2;
            }
            c if c == q => return Ok((s, j + 1)),
            c => {
                s.push(c);
                j += 1;
            }
        }
    }
    Err(err("this string has no closing quote", i))
}

/// A regex literal `/pattern/flags` from `chars[i]`: `\/` is a slash inside it (other escapes
/// are the regex's own).
fn regex_literal(chars: &[char], i: usize) -> Result<(String, String, usize), QueryError> {
    let mut pattern = String::new();
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' if chars.get(j + 1) == Some(&'/') => {
                pattern.push('/');
                j += 2;
            }
            '\\' if j + 1 < chars.len() => {
                pattern.push('\\');
                pattern.push(chars[j + 1]);
                j += 2;
            }
            '/' => {
                let mut flags = String::new();
                j += 1;
                while j < chars.len() && chars[j].is_ascii_alphabetic() {
                    flags.push(chars[j]);
                    j += 1;
                }
                return Ok((pattern, flags, j));
            }
            c => {
                pattern.push(c);
                j += 1;
            }
        }
    }
    Err(err("this regex has no closing '/'", i))
}

/// `pattern` compiled with `flags` (`i` case-free, `m` multi-line, `s` dot matches newline),
/// within the stated bounds. The `regex` crate's matching is linear in the text searched,
/// whatever the pattern (`(a+)+$` costs what `a` costs).
pub fn compile(pattern: &str, flags: &str, at: usize) -> Result<Regex, QueryError> {
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return Err(err(
            format!("this regex is longer than {MAX_PATTERN_CHARS} characters"),
            at,
        ));
    }
    let mut b = RegexBuilder::new(pattern);
    b.size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .nest_limit(MAX_DEPTH as u32);
    for f in flags.chars() {
        match f {
            'i' => b.case_insensitive(true),
            'm' => b.multi_line(true),
            's' => b.dot_matches_new_line(true),
            other => {
                return Err(err(
                    format!("unknown regex flag '{other}' (known: i, m, s)"),
                    at,
                ))
            }
        };
    }
    b.build().map_err(|e| match e {
        regex::Error::CompiledTooBig(_) => err(
            "this regex compiles too big (more than 2 MB): write a simpler one",
            at,
        ),
        other => err(
            format!(
                "this regex does not parse: {}",
                other.to_string().lines().last().unwrap_or("")
            ),
            at,
        ),
    })
}

/// How dear a condition is to test: a field compared (0), a regex over a field (1), anything
/// that reads every text of an item (2, `text`), a nested group (the dearest of its parts).
fn cost(e: &Expr) -> u8 {
    let mut worst = 0;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Or(v) | Expr::And(v) => stack.extend(v),
            Expr::Not(x) => stack.push(x),
            Expr::Has(p) | Expr::Cmp { path: p, .. } if p == "text" => worst = 2,
            Expr::Cmp {
                value: Literal::Regex(..),
                ..
            } => worst = worst.max(1),
            Expr::Has(_) | Expr::Cmp { .. } => {}
        }
    }
    worst
}

/// The parts of an `and` (or an `or`) in the order they are cheapest to test, so a cheap
/// condition that decides the item spares a scan of its texts; stable, and the same answer in
/// any order (conditions have no side effects).
fn cheap_first(parts: &mut [Expr]) {
    parts.sort_by_key(cost);
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }
    fn at(&self) -> usize {
        self.toks.get(self.pos).map(|(_, a)| *a).unwrap_or(self.end)
    }
    fn next(&mut self) -> Option<(Tok, usize)> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn or(&mut self, depth: usize) -> Result<Expr, QueryError> {
        let mut parts = vec![self.and(depth)?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            parts.push(self.and(depth)?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            cheap_first(&mut parts);
            Expr::Or(parts)
        })
    }

    fn and(&mut self, depth: usize) -> Result<Expr, QueryError> {
        let mut parts = vec![self.not(depth)?];
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            parts.push(self.not(depth)?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            cheap_first(&mut parts);
            Expr::And(parts)
        })
    }

    fn not(&mut self, depth: usize) -> Result<Expr, QueryError> {
        if depth >= MAX_DEPTH {
            return Err(err(
                format!("the query nests deeper than {MAX_DEPTH} levels"),
                self.at(),
            ));
        }
        if self.peek() == Some(&Tok::Not) {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.not(depth + 1)?)));
        }
        self.atom(depth)
    }

    fn atom(&mut self, depth: usize) -> Result<Expr, QueryError> {
        let at = self.at();
        match self.next() {
            Some((Tok::LParen, _)) => {
                let e = self.or(depth + 1)?;
                match self.next() {
                    Some((Tok::RParen, _)) => Ok(e),
                    _ => Err(err("this '(' is never closed", at)),
                }
            }
            Some((Tok::Word(path), _)) | Some((Tok::Str(path), _)) => {
                let Some(Tok::Op(op)) = self.peek().cloned() else {
                    return Ok(Expr::Has(path));
                };
                self.pos += 1;
                let vat = self.at();
                let value = match self.next() {
                    Some((Tok::Str(s), _)) if matches!(op, Op::Match | Op::NotMatch) => {
                        Literal::Regex(compile(&s, "", vat)?, format!("\"{s}\""))
                    }
                    Some((Tok::Str(s), _)) => Literal::Str(s),
                    Some((Tok::Num(n), _)) => Literal::Num(n),
                    Some((Tok::Regex(p, f), _)) => {
                        let shown = format!("/{p}/{f}");
                        Literal::Regex(compile(&p, &f, vat)?, shown)
                    }
                    Some((Tok::Word(w), _)) => match w.to_ascii_lowercase().as_str() {
                        "true" => Literal::Bool(true),
                        "false" => Literal::Bool(false),
                        "null" | "none" => Literal::Null,
                        _ if matches!(op, Op::Match | Op::NotMatch) => {
                            Literal::Regex(compile(&w, "", vat)?, w)
                        }
                        _ => Literal::Str(w),
                    },
                    _ => return Err(err(format!("'{}' needs a value after it", op.text()), vat)),
                };
                if matches!(value, Literal::Regex(..)) != matches!(op, Op::Match | Op::NotMatch) {
                    return Err(err(
                        format!("a /regex/ goes with ~ or !~, not {}", op.text()),
                        vat,
                    ));
                }
                Ok(Expr::Cmp { path, op, value })
            }
            Some((Tok::RParen, _)) => Err(err("this ')' closes nothing", at)),
            Some((Tok::Op(op), _)) => {
                Err(err(format!("'{}' needs a field before it", op.text()), at))
            }
            Some((t, _)) => Err(err(
                match t {
                    Tok::And | Tok::Or => "'and'/'or' needs a condition before it".to_string(),
                    Tok::Not => "'not' needs a condition after it".to_string(),
                    _ => "expected a field (such as verdict, score.match, text)".to_string(),
                },
                at,
            )),
            None => Err(err("the query ends where a condition is expected", at)),
        }
    }
}

/// `src` parsed; an empty query is an `Err` (the caller decides what "no query" shows).
pub fn parse(src: &str) -> Result<Expr, QueryError> {
    let n = src.chars().count();
    if n > MAX_QUERY_CHARS {
        return Err(err(
            format!("the query is longer than {MAX_QUERY_CHARS} characters"),
            MAX_QUERY_CHARS,
        ));
    }
    let toks = lex(src)?;
    if toks.is_empty() {
        return Err(err("the query is empty", 0));
    }
    let mut p = Parser {
        toks,
        pos: 0,
        end: n,
    };
    let e = p.or(0)?;
    if p.pos < p.toks.len() {
        let at = p.at();
        return Err(err(
            match p.peek() {
                Some(Tok::RParen) => "this ')' closes nothing",
                _ => "expected 'and', 'or' or the end of the query here",
            },
            at,
        ));
    }
    Ok(e)
}
