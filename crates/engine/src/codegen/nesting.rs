//! How deeply a piece of Python code nests, measured by a flat scan before any parser runs: a
//! parser (and the tree it builds) recurses once per level, and a few kilobytes of `-` or `(`
//! would otherwise overflow the stack — natively an abort, in the browser a dead worker.
//!
//! The limits follow CPython 3.11's own: its tokenizer refuses more than 200 nested brackets
//! (`SyntaxError: too many nested parentheses`), and its compiler gives up on expressions nested
//! a few thousand deep (`RecursionError`; 1,000 levels still compile, 3,000 do not). Code past
//! either limit is invalid Python for the scorers, as it is for `ast.parse`.

/// CPython's `MAXLEVEL`: bracket nesting beyond this is a syntax error.
pub const MAX_BRACKETS: usize = 200;

/// Operators nested in one expression (a chain of prefix operators, of binary operators between
/// two separators, of `lambda`s or conditional expressions in one statement, of trailers —
/// attributes, calls, subscripts — of one primary) beyond which the code is refused: within
/// what CPython compiles, and far within what the parser's stack holds.
pub const MAX_OPERATORS: usize = 1000;

/// Why the code nests too deeply, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TooDeep {
    /// More than [`MAX_BRACKETS`] open brackets, the last opened at this byte offset.
    Brackets { offset: usize },
    /// More than [`MAX_OPERATORS`] nested operators, the last at this byte offset.
    Operators { offset: usize },
}

/// Whether `code` nests beyond the limits; `None` when it does not. Strings and comments are
/// skipped; the scan is one pass over the bytes, with no recursion and no allocation.
pub fn too_deep(code: &str) -> Option<TooDeep> {
    let b = code.as_bytes();
    let mut i = 0;
    // Bracket depth, and per depth level the binary operators since the last separator.
    let mut depth = 0usize;
    let mut binary = [0usize; MAX_BRACKETS + 1];
    // Per depth level, the trailers (`.name`, `(…)`, `[…]`) of the primary being read: each
    // nests the parser's tree one level deeper (`x.a.a…`, `f()()…`, `a[0][0]…` overflowed the
    // stack when the tree was dropped; found with evalboard-fuzz).
    let mut trailers = [0usize; MAX_BRACKETS + 1];
    // The previous significant token was a `.` after an operand: the name after it continues
    // the primary instead of starting one.
    let mut after_dot = false;
    // Consecutive prefix operators with no operand between them.
    let mut prefix_run = 0usize;
    // `lambda`s and `if`s in the current logical line.
    let mut keywords = 0usize;
    // The previous significant token was an operand (name, number, string, closing bracket).
    let mut after_operand = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'#' => {
                while b.get(i).is_some_and(|&x| x != b'\n' && x != b'\r') {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(b, i);
                if !after_dot {
                    if let Some(t) = trailers.get_mut(depth) {
                        *t = 0;
                    }
                }
                after_dot = false;
                after_operand = true;
                prefix_run = 0;
                continue;
            }
            b'\\' if matches!(b.get(i + 1), Some(b'\n' | b'\r')) => {
                // A line continuation: the logical line goes on.
                i += 2;
                continue;
            }
            b'\n' | b'\r' | b';' if depth == 0 => {
                keywords = 0;
                prefix_run = 0;
                after_operand = false;
                after_dot = false;
                if let Some(n) = binary.get_mut(0) {
                    *n = 0;
                }
                if let Some(t) = trailers.get_mut(0) {
                    *t = 0;
                }
            }
            b'.' if after_operand => {
                if let Some(t) = trailers.get_mut(depth) {
                    *t += 1;
                    if *t > MAX_OPERATORS {
                        return Some(TooDeep::Operators { offset: i });
                    }
                }
                after_dot = true;
                after_operand = false;
            }
            b'(' | b'[' | b'{' => {
                // After an operand, `(` and `[` are a call and a subscript of the primary.
                if after_operand && c != b'{' {
                    if let Some(t) = trailers.get_mut(depth) {
                        *t += 1;
                        if *t > MAX_OPERATORS {
                            return Some(TooDeep::Operators { offset: i });
                        }
                    }
                }
                after_dot = false;
                depth += 1;
                if depth > MAX_BRACKETS {
                    return Some(TooDeep::Brackets { offset: i });
                }
                if let Some(n) = binary.get_mut(depth) {
                    *n = 0;
                }
                if let Some(t) = trailers.get_mut(depth) {
                    *t = 0;
                }
                prefix_run = 0;
                after_operand = false;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                after_operand = true;
                prefix_run = 0;
            }
            b',' | b':' => {
                if let Some(n) = binary.get_mut(depth) {
                    *n = 0;
                }
                if let Some(t) = trailers.get_mut(depth) {
                    *t = 0;
                }
                prefix_run = 0;
                after_operand = false;
                after_dot = false;
            }
            b'+' | b'-' | b'~' | b'*' | b'/' | b'%' | b'@' | b'&' | b'|' | b'^' | b'<' | b'>'
            | b'=' | b'!' => {
                // One operator token: a maximal run of operator characters, except that each
                // `+`, `-` and `~` not right after an operand is a prefix operator of its own.
                // Past the run's first character the code is after an operator: Python makes
                // `t---1` `t - (-(-1))` and `x=-1` `x = (-1)` (counting the run after an operand
                // as one binary operator let `t` and 46,000 `-` through, and the parser's tree
                // of them overflowed the stack when dropped; found by evalboard-fuzz).
                let start = i;
                after_dot = false;
                let mut operand_before = after_operand;
                while b.get(i).is_some_and(|x| is_operator_byte(*x)) {
                    if !operand_before && matches!(b.get(i), Some(b'+' | b'-' | b'~')) {
                        prefix_run += 1;
                        if prefix_run > MAX_OPERATORS {
                            return Some(TooDeep::Operators { offset: i });
                        }
                    }
                    operand_before = false;
                    i += 1;
                }
                let token = b.get(start..i).unwrap_or_default();
                let assignment = matches!(token, b"=" | b"+=" | b"-=" | b"*=" | b"/=" | b":=");
                if after_operand && !assignment {
                    if let Some(n) = binary.get_mut(depth) {
                        *n += 1;
                        if *n > MAX_OPERATORS {
                            return Some(TooDeep::Operators { offset: start });
                        }
                    }
                } else if assignment {
                    if let Some(n) = binary.get_mut(depth) {
                        *n = 0;
                    }
                }
                after_operand = false;
                continue;
            }
            c if c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80 => {
                let start = i;
                while b
                    .get(i)
                    .is_some_and(|&x| x == b'_' || x.is_ascii_alphanumeric() || x >= 0x80)
                {
                    i += 1;
                }
                // A string prefix (`r"…"`, `f'…'`, `rb"…"`) belongs to the string that follows.
                if matches!(b.get(i), Some(b'\'' | b'"')) && i - start <= 2 {
                    continue;
                }
                match b.get(start..i).unwrap_or_default() {
                    b"not" | b"await" => {
                        prefix_run += 1;
                        if prefix_run > MAX_OPERATORS {
                            return Some(TooDeep::Operators { offset: start });
                        }
                        after_operand = false;
                    }
                    b"lambda" | b"if" => {
                        keywords += 1;
                        if keywords > MAX_OPERATORS {
                            return Some(TooDeep::Operators { offset: start });
                        }
                        after_operand = false;
                    }
                    b"and" | b"or" | b"in" | b"is" | b"else" => {
                        if let Some(n) = binary.get_mut(depth) {
                            *n += 1;
                            if *n > MAX_OPERATORS {
                                return Some(TooDeep::Operators { offset: start });
                            }
                        }
                        after_operand = false;
                    }
                    _ => {
                        if !after_dot {
                            if let Some(t) = trailers.get_mut(depth) {
                                *t = 0;
                            }
                        }
                        after_operand = true;
                        prefix_run = 0;
                    }
                }
                after_dot = false;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_operator_byte(c: u8) -> bool {
    matches!(
        c,
        b'+' | b'-'
            | b'~'
            | b'*'
            | b'/'
            | b'%'
            | b'@'
            | b'&'
            | b'|'
            | b'^'
            | b'<'
            | b'>'
            | b'='
            | b'!'
    )
}

/// The index just past the string literal that starts at `start` (a quote): single or triple
/// quoted, backslash escapes skipped; an unterminated string runs to the end of its line (or,
/// triple quoted, of the code).
fn skip_string(b: &[u8], start: usize) -> usize {
    let Some(&q) = b.get(start) else {
        return start + 1;
    };
    let triple = b.get(start + 1) == Some(&q) && b.get(start + 2) == Some(&q);
    let mut i = start + if triple { 3 } else { 1 };
    while let Some(&c) = b.get(i) {
        if c == b'\\' {
            i += 2;
            continue;
        }
        if triple {
            if c == q && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                return i + 3;
            }
        } else if c == q {
            return i + 1;
        } else if c == b'\n' || c == b'\r' {
            return i;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(code: &str) -> bool {
        too_deep(code).is_some()
    }

    #[test]
    fn everyday_code_is_not_too_deep() {
        for code in [
            "import pandas as pd\ndf = pd.read_csv('x.csv')\nresult = df.groupby('a')['b'].mean()",
            "x = -1\ny = - - -2\nz = not not True",
            "s = '((((((' + \"[[[[\" # ((((((\n",
            "t = '''\n((((\n'''\nu = r'\\(' ",
            "a = [-1, -2, -3] * 10\nb = {'k': -5, 'l': [1, 2, (3, 4)]}",
            "f = lambda x: x + 1 if x > 0 else x - 1",
        ] {
            assert!(!deep(code), "{code}");
        }
        // A flat literal with many negative numbers nests one level per element.
        let list = format!("x = [{}]", vec!["-1"; 5000].join(", "));
        assert!(!deep(&list));
        // A long sum split by commas is many short chains.
        let args = format!("f({})", vec!["a + b"; 5000].join(", "));
        assert!(!deep(&args));
    }

    #[test]
    fn brackets_past_cpythons_limit() {
        assert!(!deep(&format!(
            "x = {}1{}",
            "(".repeat(200),
            ")".repeat(200)
        )));
        assert_eq!(
            too_deep(&format!("x = {}1{}", "(".repeat(201), ")".repeat(201))),
            Some(TooDeep::Brackets { offset: 4 + 200 })
        );
        assert!(deep(&format!(
            "x = {}{}",
            "f(".repeat(300),
            ")".repeat(300)
        )));
        assert!(deep(&format!(
            "x = {}{}",
            "[".repeat(1_000_000),
            "]".repeat(1_000_000)
        )));
    }

    #[test]
    fn operator_chains_past_the_limit() {
        let n = MAX_OPERATORS;
        assert!(!deep(&format!("x = {}1", "-".repeat(n))));
        assert!(deep(&format!("x = {}1", "-".repeat(n + 1))));
        assert!(deep(&format!("x = {}1", "- ".repeat(n + 1))));
        assert!(deep(&format!("x = {}1", "not ".repeat(n + 1))));
        assert!(deep(&format!("x = {}1", "~".repeat(1_000_000))));
        assert!(!deep(&format!("x = {}", vec!["1"; n + 1].join("+"))));
        assert!(deep(&format!("x = {}", vec!["1"; n + 2].join("+"))));
        assert!(deep(&format!("x = {}", vec!["a"; n + 2].join(" and "))));
        assert!(deep(&format!("x = {}", vec!["2"; n + 2].join("**"))));
        assert!(deep(&format!("x = {}1", "lambda: ".repeat(n + 1))));
        assert!(deep(&format!("x = {}1", "1 if 1 else ".repeat(n + 1))));
        // Statements reset the count.
        let many = "x = 1 + 1\n".repeat(10 * n);
        assert!(!deep(&many));
        // Fuzz finding (evalboard-fuzz, python_syntax: a stack overflow): after an operand the
        // first operator character is binary and every `+`, `-`, `~` after it a prefix, with or
        // without spaces.
        assert!(!deep(&format!("t{}1", "-".repeat(n + 1))));
        assert!(deep(&format!("t{}1", "-".repeat(n + 2))));
        assert!(deep(&format!("t{}O", "-".repeat(46_563))));
        assert!(deep(&format!("x={}1", "-".repeat(n + 1))));
        assert!(deep(&format!("x**{}1", "~".repeat(n + 1))));
        assert!(!deep(&format!("x = a{}b", "+-".repeat(n / 2))));
    }

    /// Trailers nest like operators: `x.a.a…`, `f()()…`, `a[0][0]…` past the limit are refused
    /// (100,000 of them overflowed the stack); chains that are not one primary are not.
    #[test]
    fn trailer_chains_past_the_limit() {
        let n = MAX_OPERATORS;
        for (head, trailer) in [("x", ".a"), ("f", "()"), ("a", "[0]"), ("'s'", ".upper()")] {
            let chain = |k: usize| format!("y = {head}{}", trailer.repeat(k));
            assert!(
                !deep(&chain(if trailer == ".upper()" { n / 2 } else { n })),
                "{head}{trailer}"
            );
            assert!(deep(&chain(n + 1)), "{head}{trailer}");
            assert!(deep(&chain(100_000)), "{head}{trailer}");
        }
        // Separate primaries and new statements each start again.
        let many = vec!["df.a.b.c(1)[2]"; n].join(" + ");
        assert!(!deep(&format!("x = [{}]", vec!["a.b.c"; 2 * n].join(", "))));
        assert!(!deep(&many));
        assert!(!deep(&"x = a.b.c.d\n".repeat(2 * n)));
        assert!(!deep(&format!("x = [{}]", vec!["1.5"; 5000].join(", "))));
        // Calls inside a call's arguments count in their own level.
        assert!(!deep(&format!("f({})", vec!["g(1).h"; 2 * n].join(", "))));
    }

    #[test]
    fn any_truncation_of_hostile_code_scans_without_panicking() {
        let code = "x = '''(\\'''' + r\"((\" # (\n\\\ny = -(-[{1: not f(-2)}])";
        for end in 0..=code.len() {
            if let Some(prefix) = code.get(..end) {
                let _ = too_deep(prefix);
            }
        }
    }
}
