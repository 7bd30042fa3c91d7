//! Long texts cut while an archive member is inflated (issue 31, class 2: a 0.9 MB `.eval`
//! whose one output inflates to 900 MB took the CLI past 4 GB). A member's JSON goes through
//! [`TextCut`] a chunk at a time as it is decompressed ([`super::archive::Index::decode_to`]):
//! every byte is passed on unchanged, except that a string longer than [`MAX_TEXT_CHARS`]
//! characters keeps its first [`MAX_TEXT_CHARS`] and ends with a note giving its length
//! (`… (cut at 1,000,000 of 900,000,000 characters)`, the words of [`crate::text::clip_at`]);
//! the rest of it is counted, never kept. So a member holds at most its structure plus
//! [`MAX_TEXT_CHARS`] characters a text, whatever its texts inflate to, and a member with no text
//! that long comes out byte for byte as it went in (same parse, same diagnostics, same lines).
//!
//! Each cut is recorded ([`CutText`]: where in the JSON, kept, total), and the reader says so in
//! one diagnostic per member ([`cut_words`]): nothing is dropped silently.
//!
//! The scan only looks for string boundaries (`memchr`), and counts characters only in a string
//! already longer than the bound in bytes, so a log of ordinary texts costs one extra copy.

use crate::run_meta::fmt_int;

/// Most characters one text of a log member keeps (a model output, an input, a message): far
/// beyond any real answer (1,000,000 characters is ~250,000 tokens), and a bound on what a
/// compression bomb can make the reader hold.
pub const MAX_TEXT_CHARS: u64 = 1_000_000;

/// Where a cut text sits in its member (`output.completion`, `messages[3].content`), paths
/// being named for the first few cuts of a member only.
const NAMED_CUTS: usize = 3;

/// One text cut: where it was in the member's JSON, the characters kept and the characters it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutText {
    /// The JSON path of the text (`output.completion`; `$` for a member that is one string);
    /// empty past the first few cuts of a member, which are only counted.
    pub path: String,
    pub kept: u64,
    pub total: u64,
}

/// Where a string stands: before its bound (its bytes not counted yet), counted, or past the
/// bound (the rest only counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Fewer bytes than the bound so far: no character can be past it.
    Fast,
    /// Characters counted (`kept`), still within the bound.
    Counted,
    /// Past the bound: the rest of the string is counted (`total`), not kept.
    Cutting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Outside,
    InString,
    /// Inside an escape sequence (`\n`, `\u00e9`) of a string: the bytes so far in `esc`.
    Escape,
}

/// JSON text passed through with every string past a bound cut ([module docs](self)). Feed it
/// with [`TextCut::take`], then [`TextCut::finish`].
#[derive(Debug)]
pub struct TextCut {
    bound: u64,
    out: Vec<u8>,
    state: State,
    mode: Mode,
    /// Where the current string's characters start in `out`.
    content: usize,
    /// Characters of the current string kept (in [`Mode::Counted`] and [`Mode::Cutting`]).
    kept: u64,
    /// Characters of the current string in all (in [`Mode::Cutting`]).
    total: u64,
    /// The last character of the current string was a high-surrogate escape (`\ud83d`): a low
    /// one right after it is the same character, kept or dropped with it.
    prev_high: bool,
    esc: [u8; 6],
    esc_len: usize,
    cuts: Vec<CutText>,
}

impl TextCut {
    /// A cutter keeping `bound` characters a string ([`MAX_TEXT_CHARS`] for a log).
    pub fn new(bound: u64) -> TextCut {
        TextCut::with_capacity(bound, 0)
    }

    /// [`TextCut::new`], with room for `capacity` bytes of text.
    pub fn with_capacity(bound: u64, capacity: usize) -> TextCut {
        TextCut {
            bound,
            out: Vec::with_capacity(capacity),
            state: State::Outside,
            mode: Mode::Fast,
            content: 0,
            kept: 0,
            total: 0,
            prev_high: false,
            esc: [0; 6],
            esc_len: 0,
            cuts: Vec::new(),
        }
    }

    /// The next bytes of the text.
    pub fn take(&mut self, mut rest: &[u8]) {
        while !rest.is_empty() {
            match self.state {
                State::Outside => match memchr::memchr(b'"', rest) {
                    None => {
                        self.out.extend_from_slice(rest);
                        return;
                    }
                    Some(i) => {
                        let (head, tail) = rest.split_at(i + 1);
                        self.out.extend_from_slice(head);
                        self.open();
                        rest = tail;
                    }
                },
                State::InString => {
                    let stop = memchr::memchr2(b'"', b'\\', rest);
                    let (span, tail) = rest.split_at(stop.unwrap_or(rest.len()));
                    self.span(span);
                    let Some((&b, tail)) = tail.split_first() else {
                        return;
                    };
                    if b == b'"' {
                        self.close();
                    } else {
                        self.esc[0] = b'\\';
                        self.esc_len = 1;
                        self.state = State::Escape;
                    }
                    rest = tail;
                }
                State::Escape => {
                    let Some((&b, tail)) = rest.split_first() else {
                        return;
                    };
                    if let Some(slot) = self.esc.get_mut(self.esc_len) {
                        *slot = b;
                    }
                    self.esc_len += 1;
                    let unicode = self.esc.get(1) == Some(&b'u');
                    if !unicode || self.esc_len >= self.esc.len() {
                        let esc = self.esc;
                        self.escape(esc.get(..self.esc_len).unwrap_or(&[]));
                        self.state = State::InString;
                    }
                    rest = tail;
                }
            }
        }
    }

    /// The text and what was cut. A string still open at the end (a truncated member) keeps what
    /// it kept, with no note: the text does not parse either way.
    pub fn finish(mut self) -> (Vec<u8>, Vec<CutText>) {
        if self.state != State::Outside && self.mode == Mode::Cutting {
            self.record();
        }
        (self.out, self.cuts)
    }

    fn open(&mut self) {
        self.state = State::InString;
        self.mode = Mode::Fast;
        self.content = self.out.len();
        self.kept = 0;
        self.total = 0;
        self.prev_high = false;
    }

    fn close(&mut self) {
        if self.mode == Mode::Cutting {
            self.record();
            let note = crate::text::cut_note(self.kept, self.total);
            self.out.extend_from_slice(note.as_bytes());
        }
        self.out.push(b'"');
        self.state = State::Outside;
    }

    fn record(&mut self) {
        let path = if self.cuts.len() < NAMED_CUTS {
            // The opening quote is the byte before the string's characters.
            path_at(
                self.out
                    .get(..self.content.saturating_sub(1))
                    .unwrap_or(&[]),
            )
        } else {
            String::new()
        };
        self.cuts.push(CutText {
            path,
            kept: self.kept,
            total: self.total,
        });
    }

    /// Bytes of the current string in `out` not yet counted, as an upper bound of its characters.
    fn upper(&self) -> u64 {
        self.out.len().saturating_sub(self.content) as u64
    }

    /// Counts the current string's characters so far ([`Mode::Fast`] → [`Mode::Counted`]).
    fn settle(&mut self) {
        if self.mode == Mode::Fast {
            self.kept = count_chars(self.out.get(self.content..).unwrap_or(&[]));
            self.mode = Mode::Counted;
        }
    }

    /// A run of string bytes with no quote and no backslash.
    fn span(&mut self, s: &[u8]) {
        if s.is_empty() {
            return;
        }
        self.prev_high = false;
        if self.mode == Mode::Fast {
            if self.upper() + s.len() as u64 <= self.bound {
                self.out.extend_from_slice(s);
                return;
            }
            self.settle();
        }
        let n = starts(s);
        if self.mode == Mode::Cutting {
            self.total += n;
            return;
        }
        if self.kept + n <= self.bound {
            self.out.extend_from_slice(s);
            self.kept += n;
            return;
        }
        // Keep up to the first character past the bound (continuation bytes of the last kept
        // character, at the span's start, stay with it).
        let keep = self.bound - self.kept;
        let at = nth_start(s, keep);
        self.out.extend_from_slice(s.get(..at).unwrap_or(s));
        self.total = self.kept + n;
        self.kept = self.bound;
        self.mode = Mode::Cutting;
    }

    /// One whole escape sequence of the current string.
    fn escape(&mut self, e: &[u8]) {
        let unit = unicode_escape(e);
        let high = unit.is_some_and(is_high);
        let low_of_pair = self.prev_high && unit.is_some_and(is_low);
        self.prev_high = high && !low_of_pair;
        if self.mode == Mode::Fast {
            if self.upper() + e.len() as u64 <= self.bound {
                self.out.extend_from_slice(e);
                return;
            }
            self.settle();
        }
        if low_of_pair {
            // The second half of a character: kept when its first half was.
            if self.mode != Mode::Cutting {
                self.out.extend_from_slice(e);
            }
            return;
        }
        match self.mode {
            Mode::Cutting => self.total += 1,
            _ if self.kept < self.bound => {
                self.out.extend_from_slice(e);
                self.kept += 1;
            }
            _ => {
                self.total = self.kept + 1;
                self.mode = Mode::Cutting;
            }
        }
    }
}

/// The 16-bit unit of a `\uXXXX` escape.
fn unicode_escape(e: &[u8]) -> Option<u32> {
    let digits = e.strip_prefix(b"\\u")?;
    if digits.len() != 4 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

fn is_high(u: u32) -> bool {
    (0xD800..0xDC00).contains(&u)
}

fn is_low(u: u32) -> bool {
    (0xDC00..0xE000).contains(&u)
}

/// UTF-8 bytes that start a character (not continuation bytes `10xxxxxx`), eight at a time:
/// a byte starts one unless its bit 7 is set and its bit 6 is not.
fn starts(s: &[u8]) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = s.chunks_exact(8);
    let mut n = 0u64;
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let w = u64::from_le_bytes(b);
        // Bit 7 of each byte: not bit 7, or bit 6 (shifted up into bit 7 of the same byte).
        n += u64::from(((!w | (w << 1)) & HIGH).count_ones());
    }
    n + words
        .remainder()
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count() as u64
}

/// The offset of the character start numbered `n` (from 0) in `s`, or `s.len()`.
fn nth_start(s: &[u8], n: u64) -> usize {
    let mut seen = 0u64;
    for (i, &b) in s.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if seen == n {
                return i;
            }
            seen += 1;
        }
    }
    s.len()
}

/// The characters of a string's raw JSON text (escapes whole, a surrogate pair one character,
/// as serde_json and [`crate::pyrepr::without_lone_surrogates`] read it).
fn count_chars(raw: &[u8]) -> u64 {
    let mut chars = 0u64;
    let mut prev_high = false;
    let mut rest = raw;
    loop {
        let stop = memchr::memchr(b'\\', rest).unwrap_or(rest.len());
        let (span, tail) = rest.split_at(stop);
        if !span.is_empty() {
            chars += starts(span);
            prev_high = false;
        }
        if tail.is_empty() {
            return chars;
        }
        let len = if tail.get(1) == Some(&b'u') { 6 } else { 2 };
        let (e, after) = tail.split_at(len.min(tail.len()));
        let unit = unicode_escape(e);
        if prev_high && unit.is_some_and(is_low) {
            prev_high = false;
        } else {
            chars += 1;
            prev_high = unit.is_some_and(is_high);
        }
        rest = after;
    }
}

/// The JSON path (`output.completion`, `messages[3].content`, `$` at the top) of a string whose
/// opening quote follows `text`, the JSON before it. A key string is named by its object and
/// `(a key)`; nesting past 64 levels is shown as `…`.
fn path_at(text: &[u8]) -> String {
    enum Frame<'a> {
        Object {
            key: Option<&'a [u8]>,
            want_key: bool,
        },
        Array {
            index: u64,
        },
    }
    const DEPTH: usize = 64;
    let mut stack: Vec<Frame> = Vec::new();
    let mut deeper = 0usize;
    let mut i = 0usize;
    while let Some(&b) = text.get(i) {
        match b {
            b'"' => {
                let body = text.get(i + 1..).unwrap_or(&[]);
                let end = string_end(body);
                if deeper == 0 {
                    if let Some(Frame::Object { key, want_key }) = stack.last_mut() {
                        if *want_key {
                            *key = body.get(..end);
                            *want_key = false;
                        }
                    }
                }
                i += end + 2;
                continue;
            }
            b'{' | b'[' if stack.len() >= DEPTH => deeper += 1,
            b'{' => stack.push(Frame::Object {
                key: None,
                want_key: true,
            }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' if deeper > 0 => deeper -= 1,
            b'}' | b']' => {
                stack.pop();
            }
            b',' if deeper == 0 => match stack.last_mut() {
                Some(Frame::Object { want_key, .. }) => *want_key = true,
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let is_key = matches!(stack.last(), Some(Frame::Object { want_key: true, .. })) && deeper == 0;
    let mut path = String::new();
    let last = stack.len().saturating_sub(1);
    for (n, f) in stack.iter().enumerate() {
        match f {
            Frame::Object { .. } if n == last && is_key => {}
            Frame::Object { key, .. } => {
                let key = String::from_utf8_lossy(key.unwrap_or(b"?"));
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&crate::diag::shortened(&key, 60));
            }
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    if deeper > 0 {
        path.push_str(".…");
    }
    if path.is_empty() {
        path.push('$');
    }
    if is_key {
        path.push_str(" (a key)");
    }
    path
}

/// The length of a string's raw text in `body` (the bytes after its opening quote): up to its
/// closing quote, or all of `body`.
fn string_end(body: &[u8]) -> usize {
    let mut at = 0usize;
    loop {
        match memchr::memchr2(b'"', b'\\', body.get(at..).unwrap_or(&[])) {
            None => return body.len(),
            Some(j) if body.get(at + j) == Some(&b'"') => return at + j,
            Some(j) => at += j + 2,
        }
    }
}

/// The words of one diagnostic about the texts cut in one member (`None` when none was).
pub fn cut_words(cuts: &[CutText], bound: u64) -> Option<String> {
    let first = cuts.first()?;
    let why = format!(
        "each text of a log is kept up to {} characters; the rest was not read into memory",
        fmt_int(bound)
    );
    if cuts.len() == 1 {
        return Some(format!(
            "{}: text {} ({why})",
            first.path,
            crate::text::cut_words(first.kept, first.total)
        ));
    }
    let named: Vec<String> = cuts
        .iter()
        .filter(|c| !c.path.is_empty())
        .map(|c| format!("{} ({})", c.path, crate::text::cut_words(c.kept, c.total)))
        .collect();
    let more = cuts.len() - named.len();
    let mut s = format!(
        "{} texts cut at {} characters: {}",
        fmt_int(cuts.len() as u64),
        fmt_int(bound),
        named.join(", ")
    );
    if more > 0 {
        s.push_str(&format!(" and {} more", fmt_int(more as u64)));
    }
    s.push_str(&format!(" ({why})"));
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` through a cutter of `bound`, fed `step` bytes at a time.
    fn cut(text: &[u8], bound: u64, step: usize) -> (String, Vec<CutText>) {
        let mut c = TextCut::new(bound);
        for chunk in text.chunks(step.max(1)) {
            c.take(chunk);
        }
        let (out, cuts) = c.finish();
        (String::from_utf8(out).expect("UTF-8 out"), cuts)
    }

    #[test]
    fn texts_within_the_bound_pass_byte_for_byte() {
        let text =
            r#"{"a": "héllo \"wörld\" \ud83d\ude00 \n", "b": [1, NaN, "xyz"], "c\u00e9": {}}"#;
        for step in 1..12 {
            // The longest string has 17 characters: exactly the bound.
            let (out, cuts) = cut(text.as_bytes(), 17, step);
            assert_eq!(out, text, "step {step}");
            assert!(cuts.is_empty());
        }
    }

    #[test]
    fn a_long_text_keeps_its_head_and_says_its_length() {
        let text = format!(
            r#"{{"id": 1, "output": {{"completion": "{}"}}, "n": 2}}"#,
            "é".repeat(50)
        );
        for step in [1, 2, 3, 7, 64, 4096] {
            let (out, cuts) = cut(text.as_bytes(), 10, step);
            assert_eq!(
                out,
                format!(
                    r#"{{"id": 1, "output": {{"completion": "{}… (cut at 10 of 50 characters)"}}, "n": 2}}"#,
                    "é".repeat(10)
                ),
                "step {step}"
            );
            assert_eq!(
                cuts,
                vec![CutText {
                    path: "output.completion".into(),
                    kept: 10,
                    total: 50
                }]
            );
            let v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
            assert_eq!(v["n"], 2);
        }
    }

    #[test]
    fn escapes_count_as_one_character_and_pairs_stay_whole() {
        // 4 characters: a, é (escaped), 😀 (a surrogate pair), \n; bound 3 keeps a, é and the pair.
        let text = r#"["a\u00e9\ud83d\ude00\nzz"]"#;
        for step in 1..8 {
            let (out, cuts) = cut(text.as_bytes(), 3, step);
            assert_eq!(
                out, r#"["a\u00e9\ud83d\ude00… (cut at 3 of 6 characters)"]"#,
                "step {step}"
            );
            assert_eq!(cuts[0].path, "[0]");
            let v: Vec<String> = serde_json::from_str(&out).expect("JSON");
            assert!(v[0].starts_with("aé😀…"));
        }
        // The bound falls on the pair: it is dropped whole, never split.
        let (out, _) = cut(br#"["ab\ud83d\ude00c"]"#, 2, 1);
        assert_eq!(out, r#"["ab… (cut at 2 of 4 characters)"]"#);
        // A lone surrogate counts as one character, as it is read (U+FFFD).
        assert_eq!(count_chars(br"a\ud800b\udc00\ud83d\ude00"), 5);
    }

    #[test]
    fn counts_match_the_parsed_strings() {
        let texts = [
            "plain ascii text",
            "ünïcödé 日本語 😀😀",
            "with \"quotes\" and \\ backslashes\n\ttabs",
            "\u{1F600}\u{10FFFF}\u{0}",
        ];
        for t in texts {
            let raw = serde_json::to_string(t).expect("JSON");
            let body = raw.as_bytes().get(1..raw.len() - 1).expect("quoted");
            assert_eq!(count_chars(body), t.chars().count() as u64, "{t:?}");
            let n = t.chars().count() as u64;
            for bound in 0..n {
                let (out, cuts) = cut(raw.as_bytes(), bound, 3);
                let s: String = serde_json::from_str(&out).expect("JSON");
                let head: String = t.chars().take(bound as usize).collect();
                assert_eq!(s, format!("{head}{}", crate::text::cut_note(bound, n)));
                assert_eq!((cuts[0].kept, cuts[0].total), (bound, n));
            }
        }
    }

    #[test]
    fn starts_counts_characters_eight_bytes_at_a_time() {
        let text = "aé日😀\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}z".repeat(7);
        for from in 0..text.len() {
            let bytes = &text.as_bytes()[from..];
            let want = bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
            assert_eq!(starts(bytes), want, "from {from}");
        }
    }

    #[test]
    fn paths_name_keys_and_indices() {
        assert_eq!(path_at(br#"{"a": {"b": [1, {"c": "#), "a.b[1].c");
        assert_eq!(path_at(br#"{"a": "x", "b": "#), "b");
        assert_eq!(path_at(br#"{"a": "x", "#), "$ (a key)");
        assert_eq!(path_at(br#"{"a": {"k\"q": 1, "#), "a (a key)");
        assert_eq!(path_at(b""), "$");
        let deep = "[".repeat(100);
        assert_eq!(path_at(deep.as_bytes()), format!("{}.…", "[0]".repeat(64)));
    }

    #[test]
    fn many_cuts_name_the_first_few() {
        let text = format!("[{}]", vec![format!("\"{}\"", "x".repeat(20)); 5].join(","));
        let (_, cuts) = cut(text.as_bytes(), 4, 5);
        assert_eq!(cuts.len(), 5);
        let words = cut_words(&cuts, 4).expect("cuts");
        assert!(
            words.starts_with("5 texts cut at 4 characters: [0] (cut at 4 of 20 characters), [1] (cut at 4 of 20 characters), [2] (cut at 4 of 20 characters) and 2 more"),
            "{words}"
        );
        assert_eq!(cut_words(&[], 4), None);
    }

    #[test]
    fn broken_json_is_passed_on_without_panic() {
        for text in [
            &br#"{"a": "unterminated"#[..],
            br#""\u12"#,
            br#""\"#,
            b"\xff\xfe\"\x80\x80\x80\"",
        ] {
            for bound in [0, 1, 3] {
                let (out, _) = {
                    let mut c = TextCut::new(bound);
                    c.take(text);
                    c.finish()
                };
                assert!(out.len() <= text.len() + 64);
            }
        }
        let (out, cuts) = cut(br#"{"a": "0123456789"#, 4, 3);
        assert_eq!(out, r#"{"a": "0123"#);
        assert_eq!(cuts[0].total, 10);
    }
}
