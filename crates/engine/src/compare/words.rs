//! The word diff of two texts ([`word_diff`], [`super::diff_text`]): Myers over word tokens, a
//! number one token, two numbers that differ only in how they are written (`4.5` / `4.50`,
//! `1,000` / `1000`, `-3` / `−3`) equal, and two texts that share little shown whole rather than
//! interleaved word by word. Rules in docs/scoring.md ("The word diff").

use serde::{Deserialize, Serialize};

use super::{DiffKind, DiffSpan};

/// What an Equal span of two numbers written differently says
/// ([`DiffSpan::other`]: `4.5` against `4.50`).
pub const EQUAL_AS_NUMBERS: &str = "equal as numbers";

/// Below this share of common words two texts are shown whole ([`WordDiff::whole`]): twice the
/// words they share over the words of both (whitespace not counted).
pub const MIN_COMMON_SHARE: f64 = 0.3;

/// Texts with fewer words than this together are always diffed word by word (a one-word answer
/// against another reads the same either way).
pub const MIN_WORDS_WHOLE: usize = 6;

/// A word diff, and whether the texts share too little to be read interleaved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordDiff {
    /// Equal, deleted and inserted spans; concatenating Equal + Delete gives `a`, Equal (their
    /// [`DiffSpan::other`] where set) + Insert gives `b`. When [`WordDiff::whole`], one Delete
    /// span (all of `a`) then one Insert span (all of `b`).
    pub spans: Vec<DiffSpan>,
    /// Set when the texts share less than [`MIN_COMMON_SHARE`] of their words: "no common
    /// text", and how much they share. Show both texts whole, not the spans interleaved.
    pub whole: Option<String>,
}

/// One token: its text, and what it is compared by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key<'a> {
    /// Compared as written.
    Text(&'a str),
    /// A number, compared by its value: sign, integer digits without separators or leading
    /// zeros, fraction without trailing zeros, and whether it is a percentage.
    Number(bool, String, String, bool),
}

struct Token<'a> {
    text: &'a str,
    key: Key<'a>,
}

impl Token<'_> {
    fn is_space(&self) -> bool {
        self.text.chars().all(char::is_whitespace)
    }
}

/// The word diff of `a` → `b`.
pub fn word_diff(a: &str, b: &str) -> WordDiff {
    let (ta, tb) = (tokens(a), tokens(b));
    let (ka, kb): (Vec<&Key>, Vec<&Key>) = (
        ta.iter().map(|t| &t.key).collect(),
        tb.iter().map(|t| &t.key).collect(),
    );
    let part = |v: &[Token], at: usize, len: usize| -> String {
        v.get(at..at + len)
            .unwrap_or(&[])
            .iter()
            .map(|t| t.text)
            .collect()
    };
    let mut common = 0usize;
    let out = myers_spans(
        &ka,
        &kb,
        (&|at, len| part(&ta, at, len), &|at, len| part(&tb, at, len)),
        |old_index, new_index, len, out| {
            let olds = ta.get(old_index..old_index + len).unwrap_or(&[]);
            let news = tb.get(new_index..new_index + len).unwrap_or(&[]);
            for (x, y) in olds.iter().zip(news) {
                common += usize::from(!x.is_space());
                let other = (x.text != y.text).then(|| y.text.to_string());
                out.push(DiffKind::Equal, x.text.to_string(), other);
            }
        },
    );
    let words = |v: &[Token]| v.iter().filter(|t| !t.is_space()).count();
    let (na, nb) = (words(&ta), words(&tb));
    let share = if na + nb == 0 {
        1.0
    } else {
        (2 * common) as f64 / (na + nb) as f64
    };
    if na > 0 && nb > 0 && na + nb >= MIN_WORDS_WHOLE && share < MIN_COMMON_SHARE {
        let mut whole = Spans::default();
        whole.push(DiffKind::Delete, a.to_string(), None);
        whole.push(DiffKind::Insert, b.to_string(), None);
        return WordDiff {
            spans: whole.0,
            whole: Some(format!(
                "no common text ({}% of the words shared): both shown whole",
                (share * 100.0).round()
            )),
        };
    }
    WordDiff {
        spans: out.0,
        whole: None,
    }
}

/// Spans, adjacent ones of a kind merged (an Equal span of two spellings of a number stays on
/// its own).
#[derive(Default)]
pub(super) struct Spans(pub(super) Vec<DiffSpan>);

/// The text of a run of tokens: (index, length) → text.
type Part<'p> = &'p dyn Fn(usize, usize) -> String;

/// Myers over the keys `ka` → `kb`, every op as spans: an equal run through `equal(old index,
/// new index, length, spans)`, a deleted (inserted) run as the text `parts.0` (`parts.1`) gives
/// for (index, length) — the one walk of a diff's ops, for words and characters alike.
pub(super) fn myers_spans<K: std::hash::Hash + Ord>(
    ka: &[K],
    kb: &[K],
    parts: (Part, Part),
    mut equal: impl FnMut(usize, usize, usize, &mut Spans),
) -> Spans {
    use similar::{capture_diff_slices, Algorithm, DiffOp};
    let (part_a, part_b) = parts;
    let mut out = Spans::default();
    for op in capture_diff_slices(Algorithm::Myers, ka, kb) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => equal(old_index, new_index, len, &mut out),
            DiffOp::Delete {
                old_index, old_len, ..
            } => out.push(DiffKind::Delete, part_a(old_index, old_len), None),
            DiffOp::Insert {
                new_index, new_len, ..
            } => out.push(DiffKind::Insert, part_b(new_index, new_len), None),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                out.push(DiffKind::Delete, part_a(old_index, old_len), None);
                out.push(DiffKind::Insert, part_b(new_index, new_len), None);
            }
        }
    }
    out
}

impl Spans {
    pub(super) fn push(&mut self, kind: DiffKind, text: String, other: Option<String>) {
        if text.is_empty() && other.as_deref().is_none_or(str::is_empty) {
            return;
        }
        match self.0.last_mut() {
            Some(last) if last.kind == kind && last.other.is_none() && other.is_none() => {
                last.text.push_str(&text)
            }
            _ => self.0.push(DiffSpan { kind, text, other }),
        }
    }
}

#[derive(PartialEq, Clone, Copy)]
enum Class {
    Word,
    Space,
    Other,
}

fn class(c: char) -> Class {
    if c.is_alphanumeric() || c == '_' {
        Class::Word
    } else if c.is_whitespace() {
        Class::Space
    } else {
        Class::Other
    }
}

/// Runs of alphanumeric characters, runs of whitespace, single other characters, and numbers
/// ([`number_at`]) as one token each.
fn tokens(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut prev: Option<char> = None;
    while let Some(rest) = s.get(at..) {
        let Some(c) = rest.chars().next() else { break };
        let boundary = prev.is_none_or(|p| class(p) != Class::Word && p != '.' && p != ',');
        if boundary {
            if let Some((len, key)) = number_at(rest) {
                let text = rest.get(..len).unwrap_or("");
                out.push(Token { text, key });
                prev = text.chars().next_back();
                at += len;
                continue;
            }
        }
        // One token of `c`'s class: a word or whitespace run, or one other character.
        let k = class(c);
        let len = if k == Class::Other {
            c.len_utf8()
        } else {
            rest.char_indices()
                .find(|(_, x)| class(*x) != k)
                .map_or(rest.len(), |(i, _)| i)
        };
        let text = rest.get(..len).unwrap_or("");
        out.push(Token {
            text,
            key: Key::Text(text),
        });
        prev = text.chars().next_back();
        at += len.max(1);
    }
    out
}

/// A number at the start of `s`, as (its length in bytes, its value's key): an optional sign
/// (`+`, `-`, `−`), digits — grouped in threes by commas (`1,234,567`) or not —, an optional
/// decimal point with digits, an optional `%`, and no letter or digit right after it.
fn number_at(s: &str) -> Option<(usize, Key<'static>)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if let Some(rest) = s.strip_prefix('−') {
        negative = true;
        i = s.len() - rest.len();
    } else if let Some(&c) = b.first() {
        if c == b'-' || c == b'+' {
            negative = c == b'-';
            i = 1;
        }
    }
    let digits = |from: usize| {
        b.get(from..)
            .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
    };
    let lead = digits(i);
    if lead == 0 {
        return None;
    }
    let mut int = String::new();
    int.push_str(s.get(i..i + lead)?);
    i += lead;
    // Thousands groups: `,` then exactly three digits, after one to three leading digits.
    if lead <= 3 {
        let mut j = i;
        let mut groups = String::new();
        while b.get(j) == Some(&b',') && digits(j + 1) == 3 {
            groups.push_str(s.get(j + 1..j + 4)?);
            j += 4;
        }
        if !groups.is_empty() {
            int.push_str(&groups);
            i = j;
        }
    }
    let mut frac = String::new();
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n > 0 {
            frac.push_str(s.get(i + 1..i + 1 + n)?);
            i += 1 + n;
        }
    }
    let percent = b.get(i) == Some(&b'%');
    i += usize::from(percent);
    // `12abc`, `3.5x`: a word, not a number.
    if s.get(i..)?
        .chars()
        .next()
        .is_some_and(|c| class(c) == Class::Word)
    {
        return None;
    }
    let int = int.trim_start_matches('0').to_string();
    let frac = frac.trim_end_matches('0').to_string();
    let negative = negative && !(int.is_empty() && frac.is_empty());
    Some((i, Key::Number(negative, int, frac, percent)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(d: &WordDiff) -> Vec<(char, &str, Option<&str>)> {
        d.spans
            .iter()
            .map(|s| {
                let k = match s.kind {
                    DiffKind::Equal => '=',
                    DiffKind::Insert => '+',
                    DiffKind::Delete => '-',
                };
                (k, s.text.as_str(), s.other.as_deref())
            })
            .collect()
    }

    /// `a` from Equal + Delete, `b` from Equal (its other spelling) + Insert.
    fn rebuild(d: &WordDiff) -> (String, String) {
        let (mut a, mut b) = (String::new(), String::new());
        for s in &d.spans {
            match s.kind {
                DiffKind::Equal => {
                    a.push_str(&s.text);
                    b.push_str(s.other.as_deref().unwrap_or(&s.text));
                }
                DiffKind::Delete => a.push_str(&s.text),
                DiffKind::Insert => b.push_str(&s.text),
            }
        }
        (a, b)
    }

    #[test]
    fn a_number_is_one_token_and_equal_as_a_number() {
        // 4.5 against 4.50: equal as numbers, never "4.5 → 50".
        let d = word_diff("The answer is 4.5", "The answer is 4.50");
        assert_eq!(
            spans(&d),
            [('=', "The answer is ", None), ('=', "4.5", Some("4.50"))]
        );
        assert_eq!(d.whole, None);
        // Thousands separators.
        let d = word_diff("1,000", "1000");
        assert_eq!(spans(&d), [('=', "1,000", Some("1000"))]);
        // A minus sign or a hyphen-minus; a plus sign.
        let d = word_diff("-3", "−3");
        assert_eq!(spans(&d), [('=', "-3", Some("−3"))]);
        assert_eq!(spans(&word_diff("+3", "3")), [('=', "+3", Some("3"))]);
        // Leading zeros, a zero's sign.
        assert_eq!(spans(&word_diff("007", "7.0")), [('=', "007", Some("7.0"))]);
        assert_eq!(spans(&word_diff("-0", "0")), [('=', "-0", Some("0"))]);
        // Different values are one token each: a replaced number reads old → new.
        assert_eq!(
            spans(&word_diff("4.5", "50")),
            [('-', "4.5", None), ('+', "50", None)]
        );
        assert_eq!(
            spans(&word_diff("-3", "3")),
            [('-', "-3", None), ('+', "3", None)]
        );
    }

    #[test]
    fn a_percentage_is_not_its_fraction() {
        // 50% is a percentage, 0.5 a number: the diff shows what is written, it does not
        // re-read units (the scorers' tolerance does).
        assert_eq!(
            spans(&word_diff("50%", "0.5")),
            [('-', "50%", None), ('+', "0.5", None)]
        );
        assert_eq!(
            spans(&word_diff("50%", "50.0%")),
            [('=', "50%", Some("50.0%"))]
        );
        assert_eq!(
            spans(&word_diff("50%", "50")),
            [('-', "50%", None), ('+', "50", None)]
        );
    }

    #[test]
    fn what_is_not_a_number() {
        // A digit run inside a word, a number glued to letters, a list, a trailing full stop.
        for (text, want) in [
            ("abc123", vec!["abc123"]),
            ("12abc", vec!["12abc"]),
            ("1,2,3", vec!["1", ",", "2", ",", "3"]),
            ("1,2345", vec!["1", ",", "2345"]),
            ("42.", vec!["42", "."]),
            ("5-3", vec!["5", "-", "3"]),
            ("x -3", vec!["x", " ", "-3"]),
            ("1,234.5%", vec!["1,234.5%"]),
            ("- 3", vec!["-", " ", "3"]),
        ] {
            let got: Vec<&str> = tokens(text).iter().map(|t| t.text).collect();
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn texts_that_share_little_are_shown_whole() {
        let a = "The revenue grew by twelve percent in the third quarter";
        let b = "I cannot answer that from the table given";
        let d = word_diff(a, b);
        assert_eq!(spans(&d), [('-', a, None), ('+', b, None)]);
        let note = d.whole.unwrap_or_default();
        assert!(note.starts_with("no common text"), "{note}");
        // Sharing most words: interleaved.
        let d = word_diff("the total is 4.5 million", "the total is 4.50 million");
        assert_eq!(d.whole, None);
        // Short texts always interleave.
        assert_eq!(word_diff("42", "43").whole, None);
        assert_eq!(word_diff("yes", "no").whole, None);
    }

    #[test]
    fn the_spans_give_both_texts_back() {
        for (a, b) in [
            ("The answer is 4.5.", "The answer is 4.50"),
            ("15 + 27 = 42\n42\n42", "42"),
            ("naïve café ß", "naive cafe SS"),
            ("1,000 and 2,000", "1000 and 2000 units"),
            ("−3 −", "-3 -"),
            ("x", ""),
            ("", "x y"),
            ("a b c d e f", "u v w x y z"),
        ] {
            let d = word_diff(a, b);
            assert_eq!(rebuild(&d), (a.to_string(), b.to_string()), "{a:?} {b:?}");
        }
        assert!(word_diff("", "").spans.is_empty());
    }
}
