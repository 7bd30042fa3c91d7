//! Human-readable output is text the runs chose: model answers, ids, file names. Printed raw, an
//! answer carrying `ESC ] 0 ; …` retitles the user's terminal, `ESC [ 2 J` clears it, and bidi
//! overrides reorder what a reader sees. Every human-readable line the CLI prints goes through
//! [`text`] (the macros below), whether or not a terminal is attached; `--json` output is JSON,
//! which escapes control characters itself.

use std::borrow::Cow;

/// `s` with every control character but newline and tab shown as an escape (`\x1b`, `\u{9b}`),
/// and the Unicode bidi controls (U+202A–U+202E, U+2066–U+2069) and line/paragraph separators
/// too; other text unchanged.
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            let n = u32::from(c);
            if n < 0x80 {
                out.push_str(&format!("\\x{n:02x}"));
            } else {
                out.push_str(&format!("\\u{{{n:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

/// `println!` of human-readable text: control characters escaped ([`text`]).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        println!("{}", $crate::term::text(&format!($($arg)*)))
    };
}

/// `print!` of human-readable text: control characters escaped ([`text`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        print!("{}", $crate::term::text(&format!($($arg)*)))
    };
}

/// `eprintln!` of human-readable text: control characters escaped ([`text`]).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::term::text(&format!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(
            text("plain, ünïcode, 数字\n\ttab"),
            "plain, ünïcode, 数字\n\ttab"
        );
        assert!(matches!(text("plain"), Cow::Borrowed(_)));
        assert_eq!(text("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
        assert_eq!(text("a\x1b[2Jb\rc\x7f"), "a\\x1b[2Jb\\x0dc\\x7f");
        assert_eq!(text("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(text("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(text("\0"), "\\x00");
    }
}
