//! Answer number parsing for the doc profile: currency, thousands separators, percent marks, parentheses negatives.
//!
//! [`parse_answer`] turns one recorded answer ([`RawValue`]) into a number (percent applied), a
//! piece of text (`yes`/`no`), or a reason why it is missing. [`parse_answer_ref`] is the same
//! without allocating (text is borrowed, not lowercased); the scorers use it on every turn.
//!
//! The accepted string grammar (whitespace, including no-break and zero-width spaces, may separate
//! every token but never sits inside the digits):
//!
//! ```text
//! answer    = [ "(" ] prefix* magnitude [ currency ] [ "%" ] [ ")" ] [ "%" ]
//! prefix    = sign | currency                  (at most one of each; no sign inside parentheses)
//! sign      = "+" | "-" | U+2212 | U+2012 | U+2013 | U+FE63 | U+FF0D | U+FF0B
//! currency  = "$" | "€" | "£" | "¥"            (at most one, before or after the digits)
//! magnitude = mantissa [ ("e" | "E") [ "+" | "-" ] digit+ ]
//! mantissa  = ( digits | grouped ) [ "." digit* ] | "." digit+
//! grouped   = digit{1,3} ( "," digit{3} )+     (first group has no leading zero)
//! ```
//!
//! Rules in words:
//! - `"(3.2)"` is −3.2 (accounting negative); `"(3.2%)"` and `"(3.2)%"` are −3.2 %.
//! - `"12.5%"` is raw 12.5 with a percent mark; its value is 0.125.
//! - Thousands separators must group exactly three digits: `"1,234.5"` is 1234.5, but `"1,23"`,
//!   `"1,2345"`, `"0,5"` and `"1.234,5"` are not numbers (a decimal comma is ambiguous).
//! - Anything after the number other than one currency sign, one percent mark and a closing
//!   parenthesis makes it unparseable: `"12 million"`, `"5 USD"`, `"1 234"`. Scale words are never
//!   guessed.
//! - `"None"`, `"null"`, `"n/a"` (any case) are a missing answer, as are JSON null, empty text, NaN
//!   (`"nan"`) and infinities (`"inf"`, `"1e999"`).
//! - Text with no digit and at least one letter (`"yes"`, `"No"`) is [`Parsed::Text`]; text with a
//!   digit that does not fit the grammar is unparseable.
//! - JSON numbers are numbers with no percent mark; JSON bools are the text `true`/`false`.

use std::fmt;

use crate::numeric_qa::model::RawValue;

/// A parsed answer (owned form).
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Number {
        /// The value with a percent mark applied (`"12.5%"` → 0.125).
        value: f64,
        /// The number as written, sign included, percent mark not applied (`"12.5%"` → 12.5).
        raw: f64,
        /// Whether the answer carried a percent mark.
        percent: bool,
    },
    /// A non-numeric answer: trimmed and lowercased.
    Text(String),
    Missing(MissReason),
}

impl Parsed {
    /// The value with the percent mark applied, when this is a number.
    pub fn value(&self) -> Option<f64> {
        match self {
            Parsed::Number { value, .. } => Some(*value),
            _ => None,
        }
    }
}

/// A parsed number: always finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// The value with a percent mark applied.
    pub value: f64,
    /// The number as written (sign included, percent mark not applied).
    pub raw: f64,
    pub percent: bool,
}

impl Number {
    /// A number written without a percent mark.
    pub fn plain(x: f64) -> Number {
        Number {
            value: x,
            raw: x,
            percent: false,
        }
    }
}

/// A parsed answer that borrows its text: no allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParsedRef<'a> {
    Number(Number),
    /// Trimmed text, case as written (compare it with [`text_eq`]).
    Text(&'a str),
    Missing(MissReason),
}

impl<'a> From<ParsedRef<'a>> for Parsed {
    fn from(p: ParsedRef<'a>) -> Parsed {
        match p {
            ParsedRef::Number(n) => Parsed::Number {
                value: n.value,
                raw: n.raw,
                percent: n.percent,
            },
            ParsedRef::Text(t) => Parsed::Text(t.to_lowercase()),
            ParsedRef::Missing(r) => Parsed::Missing(r),
        }
    }
}

/// Why an answer has no comparable value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MissReason {
    /// JSON null (Python `None`).
    Null,
    /// Empty or whitespace-only text.
    Empty,
    /// A placeholder text for "no value": `None`, `null`, `n/a` (any case).
    NullText,
    /// NaN: a JSON NaN or the text `nan`.
    NaN,
    /// ±infinity: the text `inf`/`infinity`/`∞`, or a number too large for a 64-bit float.
    Infinite,
    /// Text that is neither a number in the accepted grammar nor a word answer.
    Unparseable(Unparseable),
}

/// What made a text unparseable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unparseable {
    /// Only punctuation: no digit and no letter (`"-"`, `"$"`, `"%"`).
    NoDigits,
    /// Something other than a sign, currency sign or `(` before the digits (`"about 5"`, `"USD 5"`).
    LeadingText,
    /// Something after the number (`"12 million"`, `"1 234"`, `"5-"`).
    TrailingText,
    /// Thousands separators that do not group exactly three digits (`"1,23"`, `"0,5"`, `"1.234,5"`).
    Thousands,
    /// Unbalanced parentheses, or a sign inside accounting parentheses (`"(3"`, `"(-3)"`).
    Parentheses,
    /// More than one sign (`"--5"`, `"-$-5"`).
    Signs,
}

impl MissReason {
    /// A short human message; reads after "is" (`prediction "abc" is not a number: ...`).
    pub fn message(&self) -> &'static str {
        match self {
            MissReason::Null => "null",
            MissReason::Empty => "empty text",
            MissReason::NullText => "a placeholder for no value (None, null, n/a)",
            MissReason::NaN => "NaN",
            MissReason::Infinite => "infinite or too large for a 64-bit float",
            MissReason::Unparseable(k) => match k {
                Unparseable::NoDigits => "not a number: no digits and no words",
                Unparseable::LeadingText => "not a number: text before the number",
                Unparseable::TrailingText => {
                    "not a number: text after the number (units and scale words such as \
                     'million' are not read)"
                }
                Unparseable::Thousands => {
                    "not a number: thousands separators must group exactly three digits \
                     (\"1,234.5\")"
                }
                Unparseable::Parentheses => {
                    "not a number: unbalanced parentheses or a sign inside accounting parentheses"
                }
                Unparseable::Signs => "not a number: more than one sign",
            },
        }
    }
}

impl fmt::Display for MissReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// Parses one answer (owned result; text is lowercased).
pub fn parse_answer(v: &RawValue) -> Parsed {
    parse_answer_ref(v).into()
}

/// Parses one answer without allocating.
pub fn parse_answer_ref(v: &RawValue) -> ParsedRef<'_> {
    match v {
        RawValue::Null => ParsedRef::Missing(MissReason::Null),
        RawValue::Bool(true) => ParsedRef::Text("true"),
        RawValue::Bool(false) => ParsedRef::Text("false"),
        RawValue::Int(i) => ParsedRef::Number(Number::plain(*i as f64)),
        RawValue::Float(x) => from_f64(*x),
        RawValue::Str(s) => parse_str_ref(s),
    }
}

/// Parses an answer string (see the module docs for the grammar) without allocating.
pub fn parse_str_ref(s: &str) -> ParsedRef<'_> {
    let t = trim_by(s, is_space);
    if t.is_empty() {
        return ParsedRef::Missing(MissReason::Empty);
    }
    if ["none", "null", "n/a"]
        .iter()
        .any(|w| t.eq_ignore_ascii_case(w))
    {
        return ParsedRef::Missing(MissReason::NullText);
    }
    if let Some(r) = non_finite_word(t) {
        return ParsedRef::Missing(r);
    }
    if !t.chars().any(char::is_numeric) {
        return if t.chars().any(char::is_alphabetic) {
            ParsedRef::Text(t)
        } else {
            ParsedRef::Missing(MissReason::Unparseable(Unparseable::NoDigits))
        };
    }
    match parse_number(t) {
        Ok(n) if n.value.is_finite() && n.raw.is_finite() => ParsedRef::Number(n),
        Ok(_) => ParsedRef::Missing(MissReason::Infinite),
        Err(k) => ParsedRef::Missing(MissReason::Unparseable(k)),
    }
}

/// Case-insensitive equality of two answer texts (trimmed), where `true` ≡ `yes` and `false` ≡ `no`.
pub fn text_eq(a: &str, b: &str) -> bool {
    let (a, b) = (trim_by(a, is_space), trim_by(b, is_space));
    match (yes_no(a), yes_no(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a
            .chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase)),
    }
}

fn yes_no(t: &str) -> Option<bool> {
    if t.eq_ignore_ascii_case("yes") || t.eq_ignore_ascii_case("true") {
        Some(true)
    } else if t.eq_ignore_ascii_case("no") || t.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

fn from_f64(x: f64) -> ParsedRef<'static> {
    if x.is_nan() {
        ParsedRef::Missing(MissReason::NaN)
    } else if x.is_infinite() {
        ParsedRef::Missing(MissReason::Infinite)
    } else {
        ParsedRef::Number(Number::plain(x))
    }
}

/// Whitespace for trimming and token separation: Unicode White_Space (which includes U+00A0 and
/// U+202F) plus the zero-width space, word joiner and byte-order mark.
/// `s.trim_matches(pred)`, returning `s` at once when its first and last bytes are ASCII
/// characters `pred` rejects (the common case for answers: nothing to trim, no decoding).
#[inline]
pub(crate) fn trim_by(s: &str, pred: impl Fn(char) -> bool + Copy) -> &str {
    let keep = |b: Option<&u8>| b.is_some_and(|&b| b.is_ascii() && !pred(char::from(b)));
    if keep(s.as_bytes().first()) && keep(s.as_bytes().last()) {
        s
    } else {
        s.trim_matches(pred)
    }
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}')
}

fn is_minus(c: char) -> bool {
    matches!(
        c,
        '-' | '\u{2212}' | '\u{2012}' | '\u{2013}' | '\u{FE63}' | '\u{FF0D}'
    )
}

fn is_plus(c: char) -> bool {
    matches!(c, '+' | '\u{FF0B}')
}

fn is_currency(c: char) -> bool {
    matches!(c, '$' | '€' | '£' | '¥')
}

fn is_percent(c: char) -> bool {
    matches!(c, '%' | '\u{FF05}')
}

/// `nan`, `inf`, `infinity`, `∞` with an optional sign, any case.
fn non_finite_word(t: &str) -> Option<MissReason> {
    let mut chars = t.chars();
    let body = match chars.next() {
        Some(c) if is_minus(c) || is_plus(c) => chars.as_str().trim_start_matches(is_space),
        _ => t,
    };
    if body.eq_ignore_ascii_case("nan") {
        Some(MissReason::NaN)
    } else if body.eq_ignore_ascii_case("inf")
        || body.eq_ignore_ascii_case("infinity")
        || body == "∞"
    {
        Some(MissReason::Infinite)
    } else {
        None
    }
}

/// A cursor over a string that never indexes out of bounds.
struct Cursor<'a> {
    s: &'a str,
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i..).and_then(|r| r.chars().next())
    }
    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.i += c.len_utf8();
        }
    }
    fn eat(&mut self, pred: impl Fn(char) -> bool) -> bool {
        match self.peek() {
            Some(c) if pred(c) => {
                self.bump();
                true
            }
            _ => false,
        }
    }
    fn skip_space(&mut self) {
        while self.eat(is_space) {}
    }
    fn eat_digits(&mut self) -> usize {
        let mut n = 0;
        while self.eat(|c| c.is_ascii_digit()) {
            n += 1;
        }
        n
    }
}

/// Parses a trimmed string against the grammar. The result may be non-finite (`1e999`).
fn parse_number(t: &str) -> Result<Number, Unparseable> {
    let mut c = Cursor { s: t, i: 0 };
    let paren = c.eat(|ch| ch == '(');
    let mut negative = false;
    let mut sign_seen = false;
    let mut currency_seen = false;

    // Prefix: signs and a currency sign, in any order, up to the first digit or '.'.
    loop {
        c.skip_space();
        match c.peek() {
            Some(ch) if is_minus(ch) || is_plus(ch) => {
                if paren {
                    return Err(Unparseable::Parentheses);
                }
                if sign_seen {
                    return Err(Unparseable::Signs);
                }
                sign_seen = true;
                negative = is_minus(ch);
                c.bump();
            }
            Some(ch) if is_currency(ch) && !currency_seen => {
                currency_seen = true;
                c.bump();
            }
            Some(ch) if ch.is_ascii_digit() || ch == '.' => break,
            Some('(') | Some(')') => return Err(Unparseable::Parentheses),
            Some(',') => return Err(Unparseable::Thousands),
            Some(_) => return Err(Unparseable::LeadingText),
            None => return Err(Unparseable::NoDigits),
        }
    }

    // Magnitude: integer digits with optional thousands groups.
    let start = c.i;
    let mut n_int = 0;
    let mut grouped = false;
    let mut group_len = 0;
    loop {
        match c.peek() {
            Some(ch) if ch.is_ascii_digit() => {
                n_int += 1;
                group_len += 1;
                c.bump();
            }
            Some(',') => {
                let ok = if grouped {
                    group_len == 3
                } else {
                    (1..=3).contains(&group_len) && t.get(start..start + 1) != Some("0")
                };
                if !ok {
                    return Err(Unparseable::Thousands);
                }
                grouped = true;
                group_len = 0;
                c.bump();
            }
            _ => break,
        }
    }
    if grouped && group_len != 3 {
        return Err(Unparseable::Thousands);
    }
    let mut n_frac = 0;
    if c.eat(|ch| ch == '.') {
        n_frac = c.eat_digits();
    }
    if n_int + n_frac == 0 {
        return Err(Unparseable::NoDigits);
    }
    if c.peek() == Some(',') {
        return Err(Unparseable::Thousands);
    }
    // Exponent: only when at least one digit follows; otherwise the 'e' is trailing text.
    let before_exp = c.i;
    if c.eat(|ch| ch == 'e' || ch == 'E') {
        c.eat(|ch| ch == '+' || ch == '-');
        if c.eat_digits() == 0 {
            c.i = before_exp;
        }
    }
    let end = c.i;

    // Suffix: currency, percent, closing parenthesis, percent.
    c.skip_space();
    if !currency_seen && c.eat(is_currency) {
        c.skip_space();
    }
    let mut percent = c.eat(is_percent);
    c.skip_space();
    if paren {
        if !c.eat(|ch| ch == ')') {
            return Err(Unparseable::Parentheses);
        }
        c.skip_space();
        if !percent {
            percent = c.eat(is_percent);
            c.skip_space();
        }
    }
    match c.peek() {
        None => {}
        Some('(') | Some(')') => return Err(Unparseable::Parentheses),
        Some(',') => return Err(Unparseable::Thousands),
        Some(_) => return Err(Unparseable::TrailingText),
    }

    let literal = t.get(start..end).unwrap_or("");
    let magnitude = if grouped {
        parse_without_commas(literal)
    } else {
        literal.parse::<f64>().ok()
    }
    .ok_or(Unparseable::NoDigits)?;
    let raw = if negative || paren {
        -magnitude
    } else {
        magnitude
    };
    let value = if percent { raw / 100.0 } else { raw };
    Ok(Number {
        value,
        raw,
        percent,
    })
}

/// Parses a grammar-checked grouped literal (`1,234.5`), copying it without commas into a stack
/// buffer (a heap one only for absurdly long literals).
fn parse_without_commas(literal: &str) -> Option<f64> {
    const CAP: usize = 64;
    if literal.len() > CAP {
        let s: String = literal.chars().filter(|&c| c != ',').collect();
        return s.parse().ok();
    }
    let mut buf = [0u8; CAP];
    let mut n = 0;
    for (slot, b) in buf.iter_mut().zip(literal.bytes().filter(|&b| b != b',')) {
        *slot = b;
        n += 1;
    }
    std::str::from_utf8(buf.get(..n)?).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_by_is_trim_matches() {
        let preds: [fn(char) -> bool; 2] = [is_space, crate::pyrepr::py_isspace];
        for t in [
            "",
            " ",
            "a",
            " a",
            "a ",
            " a ",
            "\u{a0}5\u{a0}",
            "5\u{a0}",
            "\u{3000}",
            "é",
            " é ",
            "\u{200B}1",
            "1\u{FEFF}",
            "\t\n1.5%\r",
            "\x1c1\x1f",
            "x\u{85}",
            "\u{85}x",
            "1 2",
        ] {
            for p in preds {
                assert_eq!(trim_by(t, p), t.trim_matches(p), "{t:?}");
            }
        }
    }

    /// What a string should parse to, in a compact form.
    #[derive(Debug, PartialEq)]
    enum Want {
        /// raw, percent
        Num(f64, bool),
        Text(&'static str),
        Miss(MissReason),
    }
    use Want::*;

    fn bad(k: Unparseable) -> Want {
        Miss(MissReason::Unparseable(k))
    }

    fn check(input: &str, want: Want) {
        let got = parse_answer(&RawValue::Str(input.to_string()));
        let ok = match (&got, &want) {
            (
                Parsed::Number {
                    value,
                    raw,
                    percent,
                },
                Num(w_raw, w_pct),
            ) => {
                let w_value = if *w_pct { w_raw / 100.0 } else { *w_raw };
                raw.to_bits() == w_raw.to_bits()
                    && percent == w_pct
                    && value.to_bits() == w_value.to_bits()
            }
            (Parsed::Text(t), Text(w)) => t == w,
            (Parsed::Missing(r), Miss(w)) => r == w,
            _ => false,
        };
        assert!(ok, "{input:?}: got {got:?}, want {want:?}");
        // The borrowed form agrees with the owned one.
        assert_eq!(Parsed::from(parse_str_ref(input)), got, "{input:?}");
    }

    #[test]
    fn plain_numbers() {
        check("0", Num(0.0, false));
        check("42", Num(42.0, false));
        check(" 42 ", Num(42.0, false));
        check("60.94", Num(60.94, false));
        check(".0751", Num(0.0751, false));
        check("-.24", Num(-0.24, false));
        check("5.", Num(5.0, false));
        check("007", Num(7.0, false));
        check("+7", Num(7.0, false));
        check("-4", Num(-4.0, false));
        check("-0", Num(-0.0, false));
        check("1e3", Num(1000.0, false));
        check("1E-3", Num(0.001, false));
        check("2.5e+2", Num(250.0, false));
        check("1e-400", Num(0.0, false));
    }

    #[test]
    fn percent_marks() {
        check("12.5%", Num(12.5, true));
        check("12.5 %", Num(12.5, true));
        check("-21.1%", Num(-21.1, true));
        check(".6%", Num(0.6, true));
        check("-.6%", Num(-0.6, true));
        check("142.4%", Num(142.4, true));
        check("10％", Num(10.0, true));
        check("1e1%", Num(10.0, true));
        check("12%%", bad(Unparseable::TrailingText));
        check("%12", bad(Unparseable::LeadingText));
        check("%", bad(Unparseable::NoDigits));
    }

    #[test]
    fn percent_value_is_raw_over_100() {
        let Parsed::Number { value, .. } = parse_answer(&RawValue::Str("12.5%".into())) else {
            panic!("not a number")
        };
        assert_eq!(value, 0.125);
    }

    #[test]
    fn currency() {
        check("$1,234", Num(1234.0, false));
        check("$ 1,200", Num(1200.0, false));
        check("$-5", Num(-5.0, false));
        check("-$5", Num(-5.0, false));
        check("+$5", Num(5.0, false));
        check("€12.5", Num(12.5, false));
        check("12 €", Num(12.0, false));
        check("5$", Num(5.0, false));
        check("-$-5", bad(Unparseable::Signs));
        check("$5$", bad(Unparseable::TrailingText));
        check("$$5", bad(Unparseable::LeadingText));
        check("USD 5", bad(Unparseable::LeadingText));
        check("5 USD", bad(Unparseable::TrailingText));
        check("$", bad(Unparseable::NoDigits));
    }

    #[test]
    fn thousands_separators() {
        check("1,234", Num(1234.0, false));
        check("1,234.5", Num(1234.5, false));
        check("-1,234,567.89", Num(-1234567.89, false));
        check("12,345,678", Num(12345678.0, false));
        check("1,234%", Num(1234.0, true));
        check("1,23", bad(Unparseable::Thousands));
        check("1,2345", bad(Unparseable::Thousands));
        check("1234,567", bad(Unparseable::Thousands));
        check("12,34,567", bad(Unparseable::Thousands));
        check("0,5", bad(Unparseable::Thousands));
        check("0,500", bad(Unparseable::Thousands));
        check("1,", bad(Unparseable::Thousands));
        check(",123", bad(Unparseable::Thousands));
        check("1.234,5", bad(Unparseable::Thousands));
        check("1,,234", bad(Unparseable::Thousands));
        check("1 234", bad(Unparseable::TrailingText));
        check("1\u{a0}234", bad(Unparseable::TrailingText));
        check("1_000", bad(Unparseable::TrailingText));
    }

    #[test]
    fn negatives_in_every_notation() {
        check("(3.2)", Num(-3.2, false));
        check("( 900 )", Num(-900.0, false));
        check("(3.2%)", Num(-3.2, true));
        check("(3.2)%", Num(-3.2, true));
        check("($1,234)", Num(-1234.0, false));
        check("\u{2212}5", Num(-5.0, false));
        check("\u{2212}12.5%", Num(-12.5, true));
        check("\u{2013}5", Num(-5.0, false));
        check("\u{FF0D}5", Num(-5.0, false));
        check("- 5", Num(-5.0, false));
        check("(-3.2)", bad(Unparseable::Parentheses));
        check("(+3.2)", bad(Unparseable::Parentheses));
        check("(3.2", bad(Unparseable::Parentheses));
        check("3.2)", bad(Unparseable::Parentheses));
        check("((3.2))", bad(Unparseable::Parentheses));
        check("-(3.2)", bad(Unparseable::Parentheses));
        check("(3.2%)%", bad(Unparseable::TrailingText));
        check("--5", bad(Unparseable::Signs));
        check("+-5", bad(Unparseable::Signs));
        check("5-", bad(Unparseable::TrailingText));
    }

    #[test]
    fn whitespace_kinds() {
        check("\u{a0}42\u{a0}", Num(42.0, false));
        check("\u{202f}42", Num(42.0, false));
        check("\u{feff}42\u{200b}", Num(42.0, false));
        check("\t\n 42 \r\n", Num(42.0, false));
        check("12.5\u{a0}%", Num(12.5, true));
    }

    #[test]
    fn trailing_and_leading_text() {
        check("12 million", bad(Unparseable::TrailingText));
        check("12million", bad(Unparseable::TrailingText));
        check("12m", bad(Unparseable::TrailingText));
        check("12 percent", bad(Unparseable::TrailingText));
        check("12euros", bad(Unparseable::TrailingText));
        check("1e", bad(Unparseable::TrailingText));
        check("1e+", bad(Unparseable::TrailingText));
        check("0x1F", bad(Unparseable::TrailingText));
        check("1.2.3", bad(Unparseable::TrailingText));
        check("about 5", bad(Unparseable::LeadingText));
        check("q3 2019", bad(Unparseable::LeadingText));
        check("[1, 2]", bad(Unparseable::LeadingText));
        check("１２", bad(Unparseable::LeadingText));
        check(".", bad(Unparseable::NoDigits));
        check("-", bad(Unparseable::NoDigits));
        check("$.e5", bad(Unparseable::NoDigits));
    }

    #[test]
    fn missing_values() {
        check("", Miss(MissReason::Empty));
        check("   ", Miss(MissReason::Empty));
        check("\u{a0}", Miss(MissReason::Empty));
        check("None", Miss(MissReason::NullText));
        check("NONE", Miss(MissReason::NullText));
        check("null", Miss(MissReason::NullText));
        check(" n/a ", Miss(MissReason::NullText));
        check("nan", Miss(MissReason::NaN));
        check("NaN", Miss(MissReason::NaN));
        check("-nan", Miss(MissReason::NaN));
        check("inf", Miss(MissReason::Infinite));
        check("-Infinity", Miss(MissReason::Infinite));
        check("∞", Miss(MissReason::Infinite));
        check("1e999", Miss(MissReason::Infinite));
        check("-1e999%", Miss(MissReason::Infinite));
    }

    #[test]
    fn text_answers() {
        check("yes", Text("yes"));
        check("YES ", Text("yes"));
        check(" No", Text("no"));
        check("Increase", Text("increase"));
        check("ÉTÉ", Text("été"));
        check("true", Text("true"));
    }

    #[test]
    fn json_values() {
        let p = |v: RawValue| parse_answer(&v);
        assert_eq!(p(RawValue::Null), Parsed::Missing(MissReason::Null));
        assert_eq!(p(RawValue::Bool(true)), Parsed::Text("true".into()));
        assert_eq!(p(RawValue::Bool(false)), Parsed::Text("false".into()));
        assert_eq!(p(RawValue::Int(-3)).value(), Some(-3.0));
        assert_eq!(p(RawValue::Float(2.5)).value(), Some(2.5));
        assert_eq!(
            p(RawValue::Float(f64::NAN)),
            Parsed::Missing(MissReason::NaN)
        );
        assert_eq!(
            p(RawValue::Float(f64::NEG_INFINITY)),
            Parsed::Missing(MissReason::Infinite)
        );
        assert_eq!(
            p(RawValue::Float(1.5)),
            Parsed::Number {
                value: 1.5,
                raw: 1.5,
                percent: false
            }
        );
    }

    #[test]
    fn long_grouped_literal_uses_heap_path() {
        let s = format!("1{}.5", ",000".repeat(30));
        let Parsed::Number { raw, .. } = parse_answer(&RawValue::Str(s)) else {
            panic!("not a number")
        };
        assert_eq!(raw, 1e90 + 0.5);
    }

    #[test]
    fn text_equality() {
        assert!(text_eq("yes", " YES "));
        assert!(text_eq("true", "yes"));
        assert!(text_eq("No", "false"));
        assert!(!text_eq("yes", "no"));
        assert!(!text_eq("yes", "yess"));
        assert!(text_eq("Été", "éTÉ"));
    }

    #[test]
    fn every_reason_has_a_message() {
        use Unparseable::*;
        let all = [
            MissReason::Null,
            MissReason::Empty,
            MissReason::NullText,
            MissReason::NaN,
            MissReason::Infinite,
            MissReason::Unparseable(NoDigits),
            MissReason::Unparseable(LeadingText),
            MissReason::Unparseable(TrailingText),
            MissReason::Unparseable(Thousands),
            MissReason::Unparseable(Parentheses),
            MissReason::Unparseable(Signs),
        ];
        for r in all {
            assert!(!r.message().is_empty());
            assert_eq!(r.to_string(), r.message());
        }
    }
}
