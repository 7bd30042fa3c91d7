//! Text normalisation as Inspect AI's built-in scorers do it, by hand (no regex crate: the engine
//! builds for wasm32 too): Python's `casefold`, the word normalisation of `exact()` and `f1()`
//! (`_classification.py`), `strip_punctuation` and `strip_numeric_punctuation` (`_util/text.py`).
//! Every function is one pass over its input.

use std::collections::BTreeSet;

use super::casefold_table::FOLDS;
use crate::pyrepr::{py_float_parse, py_float_repr, py_isspace, unicode_decimal};

/// Python's `str.casefold()`: full case folding, character by character.
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let cp = c as u32;
        let cherokee = match cp {
            // Upper-case Cherokee letters fold to themselves (lower-casing would not keep them).
            0x13A0..=0x13F5 => Some(cp),
            0x13F8..=0x13FD => Some(cp - 8),
            0xAB70..=0xABBF => Some(cp - 0xAB70 + 0x13A0),
            _ => None,
        };
        if let Some(f) = cherokee.and_then(char::from_u32) {
            out.push(f);
        } else if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if let Ok(i) = FOLDS.binary_search_by_key(&cp, |(k, _)| *k) {
            out.push_str(FOLDS.get(i).map_or("", |(_, f)| *f));
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Python's `\d` (a Unicode decimal digit).
pub fn is_decimal_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && unicode_decimal(c).is_some())
}

/// Python's `\w` in a `str` pattern: alphanumeric or `_`.
pub fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// `string.punctuation`.
pub fn is_ascii_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// Inspect's `strip_punctuation`: `s.strip(string.whitespace + string.punctuation)` (ASCII
/// whitespace and punctuation, both ends).
pub fn strip_punctuation(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii_punctuation() || matches!(c, ' ' | '\t'..='\r'))
}

/// Inspect's `strip_numeric_punctuation`: `$`, `,`, `£`, `€`, `*` and `_` removed, then every
/// `.` that is not followed by a decimal digit (`\.(?=\s|$|\D)`; the look-ahead reads the text
/// before this second removal).
pub fn strip_numeric_punctuation(s: &str) -> String {
    let first: Vec<char> = s
        .chars()
        .filter(|c| !matches!(c, '$' | ',' | '£' | '€' | '*' | '_'))
        .collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in first.iter().enumerate() {
        if c == '.' && !first.get(i + 1).is_some_and(|n| is_decimal_digit(*n)) {
            continue;
        }
        out.push(c);
    }
    out
}

/// Python's `" ".join(text.split())`.
fn normalize_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split(py_isspace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Inspect's `_remove_articles`: `re.sub(r"\b(a|an|the)\b", " ", text)` — a whole word (a run
/// of `\w` characters) that is `a`, `an` or `the` becomes a space.
fn remove_articles(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut word_start: Option<usize> = None;
    let flush = |out: &mut String, word: &str| {
        if matches!(word, "a" | "an" | "the") {
            out.push(' ');
        } else {
            out.push_str(word);
        }
    };
    for (i, c) in s.char_indices() {
        if is_word_char(c) {
            word_start.get_or_insert(i);
        } else {
            if let Some(st) = word_start.take() {
                flush(&mut out, s.get(st..i).unwrap_or(""));
            }
            out.push(c);
        }
    }
    if let Some(st) = word_start {
        flush(&mut out, s.get(st..).unwrap_or(""));
    }
    out
}

/// Inspect's `_normalize_token`: casefold; ASCII punctuation removed unless the token reads as a
/// Python float; a float written as Python's `str(float(token))`; articles removed; whitespace
/// collapsed.
fn normalize_token(token: &str) -> String {
    let mut t = casefold(token);
    if py_float_parse(&t).is_none() {
        t.retain(|c| !is_ascii_punctuation(c));
    }
    if let Some(x) = py_float_parse(&t) {
        t = py_float_repr(x);
    }
    normalize_whitespace(&remove_articles(&t))
}

/// Inspect's `_to_words` (no stop words): the text split on spaces and hyphens, each token
/// normalised (`_normalize_token`), the set of the resulting words.
pub fn word_set(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for token in text.split([' ', '-']) {
        let t = normalize_token(token);
        for w in t.split(' ').filter(|w| !w.is_empty()) {
            if !set.contains(w) {
                set.insert(w.to_string());
            }
        }
    }
    set
}

/// Inspect's `_f1` on two word sets: precision and recall of the overlap (1 for an empty side),
/// their harmonic mean (0 when both are 0).
pub fn f1_of(answer: &BTreeSet<String>, target: &BTreeSet<String>) -> f64 {
    let (small, big) = if answer.len() <= target.len() {
        (answer, target)
    } else {
        (target, answer)
    };
    let common = small.iter().filter(|w| big.contains(*w)).count() as f64;
    let precision = if answer.is_empty() {
        1.0
    } else {
        common / answer.len() as f64
    };
    let recall = if target.is_empty() {
        1.0
    } else {
        common / target.len() as f64
    };
    if precision == 0.0 && recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        word_set(s).into_iter().collect()
    }

    #[test]
    fn casefold_is_pythons() {
        assert_eq!(casefold("Straße"), "strasse");
        assert_eq!(casefold("ΣΊΣΥΦΟΣ"), "σίσυφοσ");
        assert_eq!(casefold("ﬁne ẞ µ"), "fine ss μ");
        assert_eq!(casefold("ᏸ ꭰ Ꭰ"), "Ᏸ Ꭰ Ꭰ");
        assert_eq!(casefold("İ"), "i\u{307}");
        assert_eq!(casefold("ÉCOLE"), "école");
    }

    #[test]
    fn words_follow_inspects_normalisation() {
        // Python: inspect_ai.scorer._classification._to_words
        assert_eq!(words("The Cat sat on a mat."), ["cat", "mat", "on", "sat"]);
        assert_eq!(words("well-known"), ["known", "well"]);
        assert_eq!(words("4"), ["4.0"]);
        assert_eq!(words("4."), ["4.0"]);
        assert_eq!(words("1,000"), ["1000.0"]);
        assert_eq!(words("1_000"), ["1000.0"]);
        assert_eq!(words("1e20"), ["1e+20"]);
        assert_eq!(words("NaN"), ["nan"]);
        assert_eq!(words("Infinity"), ["inf"]);
        assert_eq!(words("an the a"), Vec::<String>::new());
        assert_eq!(words("answer: the end"), ["answer", "end"]);
        assert_eq!(words("foo\nthe bar"), ["bar", "foo"]);
        assert_eq!(words("the_end"), ["theend"]);
        assert_eq!(words("¡Hola, Señor!"), ["señor", "¡hola"]);
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("  -  "), Vec::<String>::new());
        assert_eq!(words("٣"), ["3.0"]);
    }

    #[test]
    fn f1_is_inspects() {
        let f = |a: &str, t: &str| f1_of(&word_set(a), &word_set(t));
        assert_eq!(f("the cat", "cat"), 1.0);
        assert!((f("black cat", "cat") - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(f("dog", "cat"), 0.0);
        assert_eq!(f("", "cat"), 0.0);
        assert_eq!(f("the", "a"), 1.0);
    }

    #[test]
    fn punctuation_strippers() {
        assert_eq!(strip_punctuation("  ...Paris!! "), "Paris");
        assert_eq!(strip_punctuation("¿Qué?"), "¿Qué");
        assert_eq!(strip_numeric_punctuation("$1,234.50."), "1234.50");
        assert_eq!(strip_numeric_punctuation("**42**."), "42");
        assert_eq!(
            strip_numeric_punctuation("3.5 and 4. then .5"),
            "3.5 and 4 then .5"
        );
        assert_eq!(strip_numeric_punctuation("€5…"), "5…");
        assert_eq!(strip_numeric_punctuation("..5"), ".5");
        assert_eq!(strip_numeric_punctuation("1.٣"), "1.٣");
    }
}
