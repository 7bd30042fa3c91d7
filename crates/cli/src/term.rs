//! Human-readable output is text the runs chose: model answers, ids, file names. Printed raw, an
//! answer carrying `ESC ] 0 ; …` retitles the user's terminal, `ESC [ 2 J` clears it, and bidi
//! overrides reorder what a reader sees. Every human-readable line the CLI prints goes through
//! [`text`] (the macros below), whether or not a terminal is attached; `--json` output is JSON,
//! which escapes control characters itself.
//!
//! A line feed or carriage return inside a run's text would start a line the run wrote (a scorer
//! named `x\n  accuracy 0.0% → 100.0%` prints a fake result): every one-line print
//! ([`outln!`](crate::outln), [`errln!`](crate::errln)) escapes them too ([`one_line`]), and the multi-line summaries
//! printed with [`out!`](crate::out) put each piece of a run's text through [`one_line`] as they are built.

use std::borrow::Cow;

/// `s` with every control character but newline and tab shown as an escape (`\x1b`, `\u{9b}`),
/// and the Unicode bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and
/// line/paragraph separators too; other text unchanged.
pub fn text(s: &str) -> Cow<'_, str> {
    escaped(s, needs_escape)
}

/// [`text`] for a piece of text that must stay on one line (a run's text in a line, a whole
/// one-line message): line feeds are escaped too (`\x0a`).
pub fn one_line(s: &str) -> Cow<'_, str> {
    escaped(s, |c| c == '\n' || needs_escape(c))
}

/// Appends `line` to `out` as one line of a multi-line summary (printed with [`out!`](crate::out)): escaped
/// as [`one_line`], then a line feed.
pub fn push_line(out: &mut String, line: &str) {
    out.push_str(&one_line(line));
    out.push('\n');
}

fn escaped(s: &str, needs_escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&needs_escape) {
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
        || evalboard_engine::text::is_bidi_control(c)
        || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Writes `s` to standard output. A reader that went away (`evalboard query RUN X | head`) ends
/// the process quietly with status 0, as `head` expects of a Unix tool; `println!` would panic
/// on the broken pipe instead. Any other failed write ends it with status 2 and says why.
pub fn emit(s: &str) {
    emit_parts(&[s]);
}

/// [`emit`] of `s` and a line feed (machine output: JSON, already escaped), written under one
/// lock without copying `s`.
pub fn emit_line(s: &str) {
    emit_parts(&[s, "\n"]);
}

fn emit_parts(parts: &[&str]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = parts
        .iter()
        .try_for_each(|p| out.write_all(p.as_bytes()))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("evalboard: error: writing to standard output: {e}");
        std::process::exit(2);
    }
}

/// `println!` of one human-readable line: control characters and line feeds escaped
/// ([`one_line`]); a closed reader ends the process quietly ([`emit`]).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::term::emit_line(&$crate::term::one_line(&format!($($arg)*)))
    };
}

/// `print!` of human-readable text: control characters escaped ([`text`]); a closed reader ends
/// the process quietly ([`emit`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::term::emit(&$crate::term::text(&format!($($arg)*)))
    };
}

/// `eprintln!` of one human-readable line (a diagnostic, a warning, an error): control
/// characters and line feeds escaped ([`one_line`]), so a file name or message with a line
/// feed cannot split it.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::term::one_line(&format!($($arg)*)))
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
        for bidi in ['\u{200e}', '\u{200f}', '\u{061c}', '\u{2066}', '\u{202a}'] {
            assert_eq!(
                text(&format!("a{bidi}b")),
                format!("a\\u{{{:x}}}b", bidi as u32)
            );
        }
    }

    #[test]
    fn one_line_escapes_line_feeds_and_carriage_returns() {
        assert_eq!(text("a\nb"), "a\nb");
        assert_eq!(
            one_line("x\n  accuracy 0.0% → 100.0%\r"),
            "x\\x0a  accuracy 0.0% → 100.0%\\x0d"
        );
        assert_eq!(one_line("tab\tstays"), "tab\tstays");
        assert!(matches!(one_line("plain"), Cow::Borrowed(_)));
    }
}
