//! A small backtracking matcher for the subset of Python `re` syntax that the ISE547 system's
//! metric patterns use, with Python's semantics (leftmost match, greedy backtracking, `findall`).
//!
//! Supported: literals and `\`-escaped punctuation, `.`, `^`, `$`, `\s \S \d \D \w \W \b \B`,
//! classes `[...]`/`[^...]` with ranges, groups `(...)` and `(?:...)`, `|`, and the greedy
//! quantifiers `* + ?`. Flags: IGNORECASE, MULTILINE. Text is matched as `char`s (code points),
//! as Python matches `str`. Character classes follow Python's Unicode rules (see `is_word`,
//! `is_digit`, `crate::codegen::pystr::is_space`).
//!
//! Every search runs under a step budget and a recursion limit, so a pathological input ends
//! with "no match" instead of hanging or overflowing the stack (Python would hang).

use super::pystr;

/// Matching flags (Python's `re.IGNORECASE`, `re.MULTILINE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    pub ignore_case: bool,
    pub multiline: bool,
}

impl Flags {
    pub const NONE: Flags = Flags {
        ignore_case: false,
        multiline: false,
    };
    pub const I: Flags = Flags {
        ignore_case: true,
        multiline: false,
    };
    pub const M: Flags = Flags {
        ignore_case: false,
        multiline: true,
    };
}

/// Steps one search may take before it gives up (counts as no match).
const STEP_BUDGET: u64 = 2_000_000;
/// Nesting depth one search may reach before it gives up (counts as no match).
const DEPTH_LIMIT: u32 = 1_000;

#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    Range(char, char),
    Digit(bool),
    Space(bool),
    Word(bool),
}

#[derive(Debug, Clone, PartialEq)]
struct Class {
    negated: bool,
    items: Vec<ClassItem>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Char(char),
    Any,
    Class(Class),
    Start,
    End,
    WordBoundary(bool),
    Group(Vec<Vec<Node>>, Option<usize>),
    Repeat(Box<Node>, u32, Option<u32>),
}

impl Node {
    fn is_single(&self) -> bool {
        matches!(self, Node::Char(_) | Node::Any | Node::Class(_))
    }
}

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Regex {
    root: Vec<Node>,
    n_groups: usize,
    flags: Flags,
    /// Per top-level branch: must the match start where `^` holds, and the single-char node
    /// its first char must match. `None` when some branch can start anywhere.
    leads: Option<Vec<(bool, Option<Node>)>>,
}

/// What a branch's first char must be (zero-width `\b` skipped), and whether it starts with `^`.
fn branch_lead(nodes: &[Node]) -> (bool, Option<Node>) {
    let mut anchored = false;
    for n in nodes {
        match n {
            Node::Start => anchored = true,
            Node::WordBoundary(_) => {}
            Node::Char(_) | Node::Any | Node::Class(_) => return (anchored, Some(n.clone())),
            Node::Repeat(inner, min, _) if *min >= 1 && inner.is_single() => {
                return (anchored, Some((**inner).clone()))
            }
            _ => return (anchored, None),
        }
    }
    (anchored, None)
}

fn leads(branches: &[Vec<Node>]) -> Option<Vec<(bool, Option<Node>)>> {
    let leads: Vec<(bool, Option<Node>)> = branches.iter().map(|b| branch_lead(b)).collect();
    if leads
        .iter()
        .any(|(anchored, lead)| !anchored && lead.is_none())
    {
        None
    } else {
        Some(leads)
    }
}

/// Text prepared for matching: its code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    chars: Vec<char>,
}

impl Text {
    pub fn new(s: &str) -> Text {
        Text {
            chars: s.chars().collect(),
        }
    }
    fn slice(&self, start: usize, end: usize) -> String {
        self.chars
            .get(start..end)
            .map(|c| c.iter().collect())
            .unwrap_or_default()
    }
}

/// One match: char offsets and the first group's text, when the pattern has a group that took part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub group1: Option<String>,
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    n_groups: usize,
    _src: &'a str,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }
    fn alternation(&mut self) -> Result<Vec<Vec<Node>>, String> {
        let mut branches = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            branches.push(self.sequence()?);
        }
        Ok(branches)
    }
    fn sequence(&mut self) -> Result<Vec<Node>, String> {
        let mut seq = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let atom = self.quantified(atom)?;
            seq.push(atom);
        }
        Ok(seq)
    }
    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            _ => return Ok(atom),
        };
        self.pos += 1;
        if matches!(self.peek(), Some('?') | Some('*') | Some('+')) {
            return Err(format!("unsupported quantifier at {}", self.pos));
        }
        if matches!(atom, Node::Start | Node::End | Node::WordBoundary(_)) {
            return Err("nothing to repeat".into());
        }
        Ok(Node::Repeat(Box::new(atom), min, max))
    }
    fn atom(&mut self) -> Result<Node, String> {
        let Some(c) = self.bump() else {
            return Err("unexpected end".into());
        };
        match c {
            '(' => {
                let cap = if self.peek() == Some('?') {
                    self.pos += 1;
                    if self.bump() != Some(':') {
                        return Err("unsupported group".into());
                    }
                    None
                } else {
                    self.n_groups += 1;
                    Some(self.n_groups)
                };
                let alts = self.alternation()?;
                if self.bump() != Some(')') {
                    return Err("missing )".into());
                }
                Ok(Node::Group(alts, cap))
            }
            '[' => self.class().map(Node::Class),
            '.' => Ok(Node::Any),
            '^' => Ok(Node::Start),
            '$' => Ok(Node::End),
            '*' | '+' | '?' => Err("nothing to repeat".into()),
            '\\' => self.escape(),
            c => Ok(Node::Char(c)),
        }
    }
    fn escape(&mut self) -> Result<Node, String> {
        let Some(c) = self.bump() else {
            return Err("trailing backslash".into());
        };
        let class = |item| {
            Node::Class(Class {
                negated: false,
                items: vec![item],
            })
        };
        Ok(match c {
            's' => class(ClassItem::Space(true)),
            'S' => class(ClassItem::Space(false)),
            'd' => class(ClassItem::Digit(true)),
            'D' => class(ClassItem::Digit(false)),
            'w' => class(ClassItem::Word(true)),
            'W' => class(ClassItem::Word(false)),
            'b' => Node::WordBoundary(true),
            'B' => Node::WordBoundary(false),
            'n' => Node::Char('\n'),
            't' => Node::Char('\t'),
            c if c.is_ascii_alphanumeric() => return Err(format!("unsupported escape \\{c}")),
            c => Node::Char(c),
        })
    }
    fn class_char(&mut self) -> Result<ClassItem, String> {
        let Some(c) = self.bump() else {
            return Err("unterminated class".into());
        };
        if c != '\\' {
            return Ok(ClassItem::Range(c, c));
        }
        let Some(e) = self.bump() else {
            return Err("unterminated class".into());
        };
        Ok(match e {
            's' => ClassItem::Space(true),
            'S' => ClassItem::Space(false),
            'd' => ClassItem::Digit(true),
            'D' => ClassItem::Digit(false),
            'w' => ClassItem::Word(true),
            'W' => ClassItem::Word(false),
            'n' => ClassItem::Range('\n', '\n'),
            't' => ClassItem::Range('\t', '\t'),
            e if e.is_ascii_alphanumeric() => return Err(format!("unsupported escape \\{e}")),
            e => ClassItem::Range(e, e),
        })
    }
    fn class(&mut self) -> Result<Class, String> {
        let negated = if self.peek() == Some('^') {
            self.pos += 1;
            true
        } else {
            false
        };
        let mut items = Vec::new();
        let mut first = true;
        loop {
            match self.peek() {
                None => return Err("unterminated class".into()),
                Some(']') if !first => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            first = false;
            let item = self.class_char()?;
            if let ClassItem::Range(lo, _) = item {
                let is_range = self.peek() == Some('-')
                    && self.chars.get(self.pos + 1).is_some_and(|&n| n != ']');
                if is_range {
                    self.pos += 1;
                    match self.class_char()? {
                        ClassItem::Range(hi, _) if hi >= lo => {
                            items.push(ClassItem::Range(lo, hi));
                            continue;
                        }
                        _ => return Err("bad class range".into()),
                    }
                }
            }
            items.push(item);
        }
        Ok(Class { negated, items })
    }
}

impl Regex {
    /// Compiles `pattern`; `Err` names what is outside the supported subset.
    pub fn new(pattern: &str, flags: Flags) -> Result<Regex, String> {
        let mut p = Parser {
            chars: pattern.chars().collect(),
            pos: 0,
            n_groups: 0,
            _src: pattern,
        };
        let branches = p.alternation()?;
        if p.pos != p.chars.len() {
            return Err(format!("unbalanced ) at {}", p.pos));
        }
        let leads = leads(&branches);
        Ok(Regex {
            root: vec![Node::Group(branches, None)],
            n_groups: p.n_groups,
            flags,
            leads,
        })
    }

    /// A pattern that matches nothing (an empty class).
    pub fn never() -> Regex {
        Regex {
            root: vec![Node::Class(Class {
                negated: false,
                items: Vec::new(),
            })],
            n_groups: 0,
            flags: Flags::NONE,
            leads: Some(Vec::new()),
        }
    }

    /// Python's `re.search(pattern, text) is not None`.
    pub fn is_match(&self, text: &Text) -> bool {
        self.search_from(text, 0).is_some()
    }

    /// Python's `re.search`: the leftmost match.
    pub fn search(&self, text: &Text) -> Option<Match> {
        self.search_from(text, 0)
    }

    /// Python's `re.findall`: group 1 of each non-overlapping match when the pattern has a group,
    /// else the whole match.
    pub fn findall(&self, text: &Text) -> Vec<String> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos <= text.chars.len() {
            let Some(m) = self.search_from(text, pos) else {
                break;
            };
            pos = if m.end > m.start { m.end } else { m.end + 1 };
            if self.n_groups > 0 {
                out.push(m.group1.unwrap_or_default());
            } else {
                out.push(m.text);
            }
        }
        out
    }

    /// `len(re.findall(pattern, text))`.
    pub fn count(&self, text: &Text) -> usize {
        self.findall(text).len()
    }

    fn search_from(&self, text: &Text, from: usize) -> Option<Match> {
        let mut m = Matcher {
            text: &text.chars,
            flags: self.flags,
            caps: vec![None; self.n_groups + 1],
            steps: 0,
            depth: 0,
            exhausted: false,
        };
        for start in from..=text.chars.len() {
            if let Some(leads) = &self.leads {
                let can_start = leads.iter().any(|(anchored, lead)| {
                    (!anchored || m.start_holds(start))
                        && lead
                            .as_ref()
                            .is_none_or(|n| text.chars.get(start).is_some_and(|&c| m.single(n, c)))
                });
                if !can_start {
                    continue;
                }
            }
            m.caps.iter_mut().for_each(|c| *c = None);
            let mut end = None;
            let found = m.seq(&self.root, start, &mut |_, p| {
                end = Some(p);
                true
            });
            if m.exhausted {
                return None;
            }
            if let (true, Some(end)) = (found, end) {
                let group1 = m
                    .caps
                    .get(1)
                    .copied()
                    .flatten()
                    .map(|(s, e)| text.slice(s, e));
                return Some(Match {
                    start,
                    end,
                    text: text.slice(start, end),
                    group1,
                });
            }
        }
        None
    }
}

type Cont<'k, 't> = dyn FnMut(&mut Matcher<'t>, usize) -> bool + 'k;

struct Matcher<'t> {
    text: &'t [char],
    flags: Flags,
    caps: Vec<Option<(usize, usize)>>,
    steps: u64,
    depth: u32,
    exhausted: bool,
}

impl<'t> Matcher<'t> {
    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps > STEP_BUDGET || self.depth > DEPTH_LIMIT {
            self.exhausted = true;
        }
        !self.exhausted
    }

    fn seq(&mut self, nodes: &[Node], pos: usize, k: &mut Cont<'_, 't>) -> bool {
        match nodes.split_first() {
            None => k(self, pos),
            Some((first, rest)) => {
                self.depth += 1;
                let r = self.node(first, pos, &mut |m: &mut Matcher<'t>, p| m.seq(rest, p, k));
                self.depth -= 1;
                r
            }
        }
    }

    fn start_holds(&self, pos: usize) -> bool {
        pos == 0 || (self.flags.multiline && pos > 0 && self.text.get(pos - 1) == Some(&'\n'))
    }

    fn single(&self, node: &Node, c: char) -> bool {
        match node {
            Node::Char(p) => {
                if self.flags.ignore_case {
                    chars_eq_ignore_case(*p, c)
                } else {
                    *p == c
                }
            }
            Node::Any => c != '\n',
            Node::Class(class) => self.class_matches(class, c),
            _ => false,
        }
    }

    fn class_matches(&self, class: &Class, c: char) -> bool {
        let hit = class.items.iter().any(|item| match *item {
            ClassItem::Range(lo, hi) => {
                (lo..=hi).contains(&c)
                    || (self.flags.ignore_case
                        && (!hi.is_ascii() || may_fold_to_ascii(c))
                        && case_variants(c).into_iter().any(|v| (lo..=hi).contains(&v)))
            }
            ClassItem::Digit(yes) => is_digit(c) == yes,
            ClassItem::Space(yes) => pystr::is_space(c) == yes,
            ClassItem::Word(yes) => is_word(c) == yes,
        });
        hit != class.negated
    }

    fn node(&mut self, node: &Node, pos: usize, k: &mut Cont<'_, 't>) -> bool {
        if !self.tick() {
            return false;
        }
        let text = self.text;
        match node {
            Node::Char(_) | Node::Any | Node::Class(_) => match text.get(pos) {
                Some(&c) if self.single(node, c) => k(self, pos + 1),
                _ => false,
            },
            Node::Start => self.start_holds(pos) && k(self, pos),
            Node::End => {
                let n = text.len();
                let ok = pos == n
                    || (self.flags.multiline && text.get(pos) == Some(&'\n'))
                    || (pos + 1 == n && text.get(pos) == Some(&'\n'));
                ok && k(self, pos)
            }
            Node::WordBoundary(want) => {
                let before = pos > 0 && text.get(pos - 1).is_some_and(|&c| is_word(c));
                let after = text.get(pos).is_some_and(|&c| is_word(c));
                ((before != after) == *want) && k(self, pos)
            }
            Node::Group(branches, cap) => {
                for branch in branches {
                    let ok = self.seq(branch, pos, &mut |m: &mut Matcher<'t>, p| match cap {
                        Some(ci) => {
                            let prev = m.caps.get(*ci).copied().flatten();
                            if let Some(slot) = m.caps.get_mut(*ci) {
                                *slot = Some((pos, p));
                            }
                            if k(m, p) {
                                true
                            } else {
                                if let Some(slot) = m.caps.get_mut(*ci) {
                                    *slot = prev;
                                }
                                false
                            }
                        }
                        None => k(m, p),
                    });
                    if ok {
                        return true;
                    }
                    if self.exhausted {
                        return false;
                    }
                }
                false
            }
            Node::Repeat(inner, min, max) => {
                if inner.is_single() {
                    let limit = max.map_or(usize::MAX, |m| m as usize);
                    let mut n = 0usize;
                    while n < limit {
                        match text.get(pos + n) {
                            Some(&c) if self.single(inner, c) => n += 1,
                            _ => break,
                        }
                    }
                    let min = *min as usize;
                    if n < min {
                        return false;
                    }
                    let mut j = n;
                    loop {
                        if k(self, pos + j) {
                            return true;
                        }
                        if self.exhausted || !self.tick() || j == min {
                            return false;
                        }
                        j -= 1;
                    }
                } else {
                    self.repeat(inner, *min, *max, 0, pos, k)
                }
            }
        }
    }

    fn repeat(
        &mut self,
        inner: &Node,
        min: u32,
        max: Option<u32>,
        count: u32,
        pos: usize,
        k: &mut Cont<'_, 't>,
    ) -> bool {
        if max.is_none_or(|m| count < m) {
            self.depth += 1;
            let more = self.node(inner, pos, &mut |m: &mut Matcher<'t>, p| {
                p != pos && m.repeat(inner, min, max, count + 1, p, k)
            });
            self.depth -= 1;
            if more {
                return true;
            }
            if self.exhausted {
                return false;
            }
        }
        count >= min && k(self, pos)
    }
}

/// Python's `\w` for `str` patterns: alphanumeric or `_`.
pub fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `\d` for `str` patterns (Unicode decimal digits). ASCII digits, plus non-ASCII
/// numerics except the common superscripts and vulgar fractions (which are not decimal).
pub fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    c.is_numeric() && !matches!(c, '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{bc}'..='\u{be}')
}

/// Python's simple lowercase of one char (`İ` lowers to `i` in `re`).
fn lower1(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn upper1(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Chars Python's IGNORECASE treats as equal to `c`: its lower and upper forms, plus the
/// special folds i/ı and s/ſ.
fn case_variants(c: char) -> [char; 3] {
    let l = lower1(c);
    let extra = match l {
        'i' => '\u{131}',
        's' => '\u{17f}',
        '\u{131}' => 'i',
        '\u{17f}' => 's',
        _ => l,
    };
    [l, upper1(c), extra]
}

/// The only chars outside ASCII with an ASCII char among their case forms ([`lower1`],
/// [`upper1`], [`case_variants`]): İ (lower i), ı (upper I), ſ (upper S), the Kelvin sign
/// (lower k). A test checks this against every char.
const FOLDS_TO_ASCII: [char; 4] = ['\u{130}', '\u{131}', '\u{17f}', '\u{212a}'];

/// Whether `c` may equal some ASCII char when case is ignored. Any other non-ASCII char is
/// unequal to every ASCII one without a look at the Unicode case tables, which keeps non-ASCII
/// text as cheap to scan as ASCII: every lead check of every pattern looked them up, and 8 MB
/// of U+FFFD took 23 s to score (found by evalboard-fuzz).
fn may_fold_to_ascii(c: char) -> bool {
    c.is_ascii() || FOLDS_TO_ASCII.contains(&c)
}

fn chars_eq_ignore_case(p: char, c: char) -> bool {
    if p == c {
        return true;
    }
    if p.is_ascii() && c.is_ascii() {
        return p.eq_ignore_ascii_case(&c);
    }
    if (p.is_ascii() && !may_fold_to_ascii(c)) || (c.is_ascii() && !may_fold_to_ascii(p)) {
        return false;
    }
    lower1(p) == lower1(c) || case_variants(c).contains(&p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, flags: Flags, text: &str, expected: &[&str]) {
        let re = Regex::new(pattern, flags).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let got = re.findall(&Text::new(text));
        assert_eq!(got, expected, "findall({pattern:?}, {text:?})");
    }

    fn check_match(pattern: &str, flags: Flags, text: &str, expected: bool) {
        let re = Regex::new(pattern, flags).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert_eq!(
            re.is_match(&Text::new(text)),
            expected,
            "search({pattern:?}, {text:?})"
        );
    }

    /// [`FOLDS_TO_ASCII`] is exactly the non-ASCII chars with an ASCII case form, so skipping
    /// the case tables for the others changes no comparison.
    #[test]
    fn only_four_non_ascii_chars_fold_to_ascii() {
        let folding: Vec<char> = (0x80..=0x10_FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| {
                [lower1(c), upper1(c)]
                    .into_iter()
                    .chain(case_variants(c))
                    .any(|v| v.is_ascii())
            })
            .collect();
        assert_eq!(folding, FOLDS_TO_ASCII);
        // The ASCII chars' own case forms reach outside ASCII only through those four.
        for p in (0u8..0x80).map(char::from) {
            for v in [lower1(p), upper1(p)].into_iter().chain(case_variants(p)) {
                assert!(
                    v.is_ascii() || FOLDS_TO_ASCII.contains(&v),
                    "{p:?} -> {v:?}"
                );
            }
        }
        check_match("k", Flags::I, "\u{212a}", true);
        check_match("[a-z]+", Flags::I, "\u{17f}", true);
        check_match("S", Flags::I, "\u{17f}", true);
        check_match("i", Flags::I, "\u{130}", true);
        check_match("[a-z]", Flags::I, "\u{fffd}\u{e9}", false);
        check_match("e", Flags::I, "\u{e9}\u{c9}", false);
    }

    /// Fuzz finding (evalboard-fuzz, python_syntax: 1.3 MB of code that was mostly U+FFFD took
    /// 3.9 s to score, 8 MB took 23 s): every case-insensitive lead check of a non-ASCII char
    /// looked up the Unicode case tables. Now such a char costs what an ASCII one does, which
    /// is what this checks, against the same search through ASCII text (a ratio, so the
    /// machine's speed does not matter; it was 4x unoptimized and 10x optimized before).
    #[test]
    fn case_insensitive_search_through_non_ascii_text_costs_what_ascii_does() {
        let patterns: Vec<Regex> = ["import", "[a-z_]+\\(", "\\bfor\\s", "k|s|i"]
            .iter()
            .map(|p| Regex::new(p, Flags::I).unwrap_or_else(|e| panic!("{p}: {e}")))
            .collect();
        let time = |text: &Text| {
            let t = std::time::Instant::now();
            for _ in 0..5 {
                for re in &patterns {
                    assert!(!re.is_match(text));
                }
            }
            t.elapsed()
        };
        let ascii = Text::new(&"~".repeat(400_000));
        let other = Text::new(&"\u{fffd}".repeat(400_000));
        let (a, o) = (time(&ascii), time(&other));
        assert!(
            o < a * 2 + std::time::Duration::from_millis(50),
            "{o:?} vs {a:?}"
        );
    }

    #[test]
    fn literals_escapes_and_dot() {
        check_match(r"\.to_csv\(", Flags::I, "df.TO_CSV('x')", true);
        check_match(r"\.to_csv\(", Flags::NONE, "df.TO_CSV('x')", false);
        check_match(r"a.c", Flags::NONE, "abc", true);
        check_match(r"a.c", Flags::NONE, "a\nc", false);
    }

    #[test]
    fn unsupported_syntax_is_an_error_not_a_panic() {
        for p in [
            r"\x22", r"(?=a)", "a**", "a*?", "(a", "a)", "[a", r"\", "*a", "^*", "[z-a]",
        ] {
            assert!(Regex::new(p, Flags::NONE).is_err(), "{p}");
        }
        // `{` is a literal, as in Python when it is not a valid repeat.
        check_match("a{", Flags::NONE, "xa{", true);
    }

    #[test]
    fn dot_stops_at_newline_and_greedy_backtracks() {
        check(
            r"df\[.*\]",
            Flags::NONE,
            "df[a]['b']\nx = df[1]",
            &["df[a]['b']", "df[1]"],
        );
        check_match(r#"open\(.*['"]w"#, Flags::I, "open('a',\n 'w')", false);
        check_match(
            r#"open\(.*['"]w"#,
            Flags::I,
            "with open('f.txt', \"W\") as f:",
            true,
        );
    }

    #[test]
    fn anchors_multiline_and_space_across_lines() {
        let imports = r"^import\s+|^from\s+.*\s+import";
        check_match(imports, Flags::M, "x = 1\nimport pandas as pd", true);
        check_match(imports, Flags::M, "x = 1 import y", false);
        check_match(imports, Flags::M, "from\nx import y", true);
        check_match(imports, Flags::NONE, "x = 1\nimport pandas", false);
        check_match("a$", Flags::NONE, "ba\n", true);
        check_match("a$", Flags::NONE, "ba\nc", false);
        check_match("a$", Flags::M, "ba\nc", true);
    }

    #[test]
    fn word_boundaries_are_unicode() {
        check_match(r"\bfor\b", Flags::NONE, "for x in y", true);
        check_match(r"\bfor\b", Flags::NONE, "format", false);
        check_match(r"\bif\b", Flags::NONE, "éif", false);
        check_match(r"\bif\b", Flags::NONE, "_if", false);
        check_match(r"\bif\b", Flags::NONE, "-if-", true);
        check_match(r"\Bor", Flags::NONE, "for", true);
    }

    #[test]
    fn findall_returns_group_one() {
        check(
            r#"df\[['"]([^'"]+)['"]\]"#,
            Flags::I,
            "df['Age'] + DF[\"salary\"] + df[x]",
            &["Age", "salary"],
        );
        check(
            r"top\s+(\d+)",
            Flags::NONE,
            "top 5 and top\t10, top x",
            &["5", "10"],
        );
        check(
            r"group\s+by\s+([^,]+(?:,\s*[^,]+)+)",
            Flags::NONE,
            "group by a, b,c",
            &["a, b,c"],
        );
        check(r"by\s+([^,]+(?:,\s*[^,]+)+)", Flags::NONE, "sum by x", &[]);
    }

    #[test]
    fn groupby_pattern_backtracks_like_python() {
        let re =
            Regex::new(r"\.groupby\(\[?([^\]]+)\]?\)", Flags::I).unwrap_or_else(|e| panic!("{e}"));
        let m = re.search(&Text::new("df.groupby('department')['salary'].mean()"));
        assert_eq!(m.and_then(|m| m.group1).as_deref(), Some("'department'"));
        let m = re.search(&Text::new("df.groupby(['a', 'b']).size()"));
        assert_eq!(m.and_then(|m| m.group1).as_deref(), Some("'a', 'b'"));
        let m = re.search(&Text::new("df.groupby(['a'"));
        assert_eq!(m, None);
    }

    #[test]
    fn ignore_case_classes_and_special_folds() {
        check_match("[a-c]x", Flags::I, "Bx", true);
        check_match("[a-c]x", Flags::NONE, "Bx", false);
        check_match("is", Flags::I, "\u{130}S", true);
        check_match("s", Flags::I, "\u{17f}", true);
        check_match("k", Flags::I, "\u{212a}", true);
    }

    #[test]
    fn digits_spaces_and_negations() {
        check_match(r"top\s+\d", Flags::NONE, "top\u{a0}\u{663}", true);
        check_match(r"top\s+\d", Flags::NONE, "top \u{b2}", false);
        check_match(r"x\sy", Flags::NONE, "x\u{1c}y", true);
        check(r"\S+", Flags::NONE, "a b\tc", &["a", "b", "c"]);
        check(r"\D+", Flags::NONE, "a1b22", &["a", "b"]);
        check(r"\W", Flags::NONE, "a-b", &["-"]);
    }

    #[test]
    fn pathological_input_ends_as_no_match() {
        let re = Regex::new(r"(?:a|aa)+b", Flags::NONE).unwrap_or_else(|e| panic!("{e}"));
        let text = Text::new(&"a".repeat(60));
        assert!(!re.is_match(&text));
        // Deep repetition stops at the depth limit; run on a small stack to prove it cannot
        // overflow one (wasm's default stack is 1 MiB).
        let handle = std::thread::Builder::new().stack_size(1 << 20).spawn(|| {
            let re = Regex::new(r"(?:,\s*[^,]+)+", Flags::NONE).map_err(|e| e.to_string())?;
            let shallow = re.is_match(&Text::new(&", x".repeat(100)));
            let deep = re.is_match(&Text::new(&", x".repeat(50_000)));
            Ok::<_, String>((shallow, deep))
        });
        let got = handle
            .map_err(|e| e.to_string())
            .and_then(|h| h.join().map_err(|_| "panicked".to_string()));
        assert_eq!(got, Ok(Ok((true, false))));
    }
}
