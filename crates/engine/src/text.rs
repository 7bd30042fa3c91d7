//! How log text is shown, one rule for the report and the dashboard: a long text is cut to a
//! bounded prefix with its full length said ([`clip_at`]), and the Unicode bidi controls a log
//! may carry are shown as visible escapes ([`neutralize_bidi`]), so none can reorder the text
//! around it (a scorer name ending in U+202E would otherwise mirror the sentence it sits in).

use std::borrow::Cow;

/// Longest text of one item shown in a table cell of the report or sent to the dashboard's
/// page; the rest is cut with a note saying so.
pub const MAX_TEXT: usize = 4000;

/// `s`, cut at `max` characters with a note saying so and how long it was:
/// `…… (cut at 4,000 of 1,000,000 characters)`. A text already cut with such a note (by a
/// reader that bounded it, [`crate::evallog::long_text`]) keeps the length it had at first:
/// cut again, it says `(cut at 4,000 of 900,000,000 characters)`; within `max`, it is left as
/// it is.
pub fn clip_at(s: &str, max: usize) -> Cow<'_, str> {
    let (text, first_total) = match already_cut(s) {
        Some((head, total)) => (head, Some(total)),
        None => (s, None),
    };
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((at, _)) => {
            let (head, rest) = text.split_at(at);
            let total = first_total.unwrap_or(max as u64 + rest.chars().count() as u64);
            Cow::Owned(format!("{head}{}", cut_note(max as u64, total)))
        }
    }
}

/// `cut at 4,000 of 1,000,000 characters`.
pub fn cut_words(kept: u64, total: u64) -> String {
    format!(
        "cut at {} of {} characters",
        crate::run_meta::fmt_int(kept),
        crate::run_meta::fmt_int(total)
    )
}

/// The note that ends a cut text: `… (cut at 4,000 of 1,000,000 characters)`.
pub fn cut_note(kept: u64, total: u64) -> String {
    format!("… ({})", cut_words(kept, total))
}

/// A text that ends with its own [`cut_note`] (its head as long as the note says): the head and
/// the length the text had.
fn already_cut(s: &str) -> Option<(&str, u64)> {
    let body = s.strip_suffix(" characters)")?;
    let at = body.rfind("… (cut at ")?;
    let (head, note) = body.split_at(at);
    let (kept, total) = note.strip_prefix("… (cut at ")?.split_once(" of ")?;
    let number = |n: &str| -> Option<u64> {
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b','))
            .then(|| n.replace(',', "").parse().ok())?
    };
    let (kept, total) = (number(kept)?, number(total)?);
    (kept < total && head.chars().count() as u64 == kept).then_some((head, total))
}

/// `s` cut at [`MAX_TEXT`] characters ([`clip_at`]).
pub fn clip(s: &str) -> Cow<'_, str> {
    clip_at(s, MAX_TEXT)
}

/// Whether `c` is a bidi control: the embeddings and overrides U+202A–U+202E, the isolates
/// U+2066–U+2069 and the marks U+200E, U+200F and U+061C.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// `s` with every bidi control ([`is_bidi_control`]) written as a visible escape (`\u{202e}`),
/// so log text cannot reverse the text around it, and a reader sees what the log holds.
pub fn neutralize_bidi(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_bidi_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_bidi_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_with_the_full_length_said() {
        assert_eq!(clip_at("hello", 5), "hello");
        assert_eq!(
            clip_at("héllo wörld", 5),
            "héllo… (cut at 5 of 11 characters)"
        );
        let long = "é".repeat(MAX_TEXT + 1_000_000);
        let c = clip(&long);
        assert!(c.starts_with(&"é".repeat(MAX_TEXT)));
        assert!(
            c.ends_with("… (cut at 4,000 of 1,004,000 characters)"),
            "{}",
            &c[c.len() - 60..]
        );
    }

    #[test]
    fn a_cut_text_keeps_its_first_length() {
        let once = clip_at(&"x".repeat(50), 20).into_owned();
        assert_eq!(
            once,
            format!("{}… (cut at 20 of 50 characters)", "x".repeat(20))
        );
        // Cut again: the length it had at first; within the bound: as it is.
        assert_eq!(
            clip_at(&once, 5),
            format!("{}… (cut at 5 of 50 characters)", "x".repeat(5))
        );
        assert!(matches!(clip_at(&once, 20), Cow::Borrowed(_)));
        assert!(matches!(clip_at(&once, 1000), Cow::Borrowed(_)));
        let big = format!("{}{}", "é".repeat(30), cut_note(30, 900_000_000));
        assert!(clip_at(&big, 10).ends_with("… (cut at 10 of 900,000,000 characters)"));
        // A note whose count is not its head's is text like any other.
        let fake = format!("ab{}", cut_note(5, 10));
        assert_eq!(
            clip_at(&fake, 3),
            format!("ab…… (cut at 3 of {} characters)", fake.chars().count())
        );
    }

    #[test]
    fn bidi_controls_become_visible_escapes() {
        assert!(matches!(neutralize_bidi("plain عربي"), Cow::Borrowed(_)));
        assert_eq!(
            neutralize_bidi("exact\u{202E} records 0.3333"),
            "exact\\u{202e} records 0.3333"
        );
        let all = "\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}";
        let n = neutralize_bidi(all);
        assert!(!n.chars().any(is_bidi_control), "{n}");
        assert_eq!(n.matches("\\u{").count(), 12);
        assert!(
            !is_bidi_control('\u{200D}'),
            "the zero-width joiner is not a bidi control"
        );
    }
}
