//! A JSON parser for the readers' hot path: well-formed JSON text straight into a [`PyVal`] tree
//! in a bump arena.
//!
//! It gives exactly what serde_json reads (the same number kinds, the same correctly rounded
//! floats, the same strings; every object entry in file order, so a repeated key's last value
//! wins as in `serde_json::Map`, and whether any object repeated a key, so that the reader scans
//! for them ([`crate::json_keys`]) only then) or `None`, in which case the caller parses again the slow way
//! (`pyrepr::parse_py_json`: serde_json, plus Python's `NaN`/`Infinity`), which also words the
//! error. `None` is returned for anything it does not take on itself: malformed JSON, control
//! characters in strings, lone surrogates, integers beyond 64 bits, floats out of range, nesting
//! deeper than [`MAX_DEPTH`]. A differential test holds it to serde_json on generated and mutated
//! input.
//!
//! Why not serde_json: a trace folder is ~200 MB of pretty-printed JSON, and building a tree with
//! serde_json (a `Vec` per object, grown as entries come, then freed) took ~60 % of a trace
//! folder's load (callgrind). Here each object's entries are gathered on a scratch stack and
//! copied into the arena once, the arena is reused from file to file, and indentation and strings
//! are read 8 bytes at a time.

use bumpalo::Bump;

use super::pyval::PyVal;

/// Deeper nesting is left to serde_json (its own limit is 128).
const MAX_DEPTH: u32 = 100;

/// The tree of `text` and whether an object in it repeats a key, or `None` when the slow path
/// must decide (see the module docs).
pub(crate) fn parse<'a>(text: &'a str, bump: &'a Bump) -> Option<(PyVal<'a>, bool)> {
    thread_local! {
        /// The repeated-key table and its last stamp, kept from file to file (see
        /// [`Parser::repeats_a_key`]).
        static KEY_TABLE: std::cell::Cell<(Vec<u16>, u16)> = const {
            std::cell::Cell::new((Vec::new(), 0))
        };
    }
    let (key_slots, stamp) = KEY_TABLE.with(std::cell::Cell::take);
    let mut p = Parser {
        s: text,
        b: text.as_bytes(),
        i: 0,
        depth: 0,
        bump,
        entries: Vec::with_capacity(64),
        items: Vec::with_capacity(16),
        unescaped: String::new(),
        repeated_key: false,
        key_slots,
        stamp,
    };
    p.ws();
    let v = p.value();
    p.ws();
    let whole = p.i == p.b.len();
    KEY_TABLE.with(|t| t.set((std::mem::take(&mut p.key_slots), p.stamp)));
    v.filter(|_| whole).map(|v| (v, p.repeated_key))
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: u32,
    bump: &'a Bump,
    /// Entries of the objects being read (innermost last).
    entries: Vec<(&'a str, PyVal<'a>)>,
    /// Items of the arrays being read (innermost last).
    items: Vec<PyVal<'a>>,
    /// A string with escapes, decoded (then copied into the arena).
    unescaped: String,
    /// Whether an object read so far repeats a key.
    repeated_key: bool,
    /// [`Parser::repeats_a_key`]'s table: per slot, the stamp of the last object with a key
    /// there ([`KEY_SLOTS`] slots, made at the first object that needs them, then kept for the
    /// thread's next files).
    key_slots: Vec<u16>,
    /// The stamp of the object being checked.
    stamp: u16,
}

/// The powers of ten that are exact doubles.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `w` that is zero (exact for the lowest such byte).
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// Marks the bytes that end a string's plain run: `"`, `\` or a control character (exact for
/// the lowest marked byte, which is all the caller uses).
#[inline(always)]
fn string_stops(w: u64) -> u64 {
    zero_bytes(w ^ (ONES * u64::from(b'"')))
        | zero_bytes(w ^ (ONES * u64::from(b'\\')))
        | (w.wrapping_sub(ONES * 0x20) & !w & HIGHS)
}

/// Slots of the repeated-key table: a power of two, and several times an object's usual number
/// of keys, so that distinct keys seldom share one.
const KEY_SLOTS: usize = 1024;

/// Objects of up to this many keys compare them pairwise (cheaper than hashing so few).
const PAIRWISE_KEYS: usize = 8;

/// 8 bytes of `b` from `at` as a little-endian word (0 past the end).
#[inline(always)]
fn word_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at.wrapping_add(8))
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map_or(0, u64::from_le_bytes)
}

/// The slot of `key` in the repeated-key table: a hash of its length and its first and last 8
/// bytes (all of a key of up to 16 bytes).
#[inline(always)]
fn key_slot(key: &str) -> usize {
    let b = key.as_bytes();
    let n = b.len();
    let (head, tail) = if n >= 8 {
        (word_at(b, 0), word_at(b, n - 8))
    } else {
        let short = b
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &c)| w | u64::from(c) << (8 * i));
        (short, 0)
    };
    let h = (head ^ tail.rotate_left(29) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> (64 - KEY_SLOTS.trailing_zeros())) as usize
}

impl<'a> Parser<'a> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline(always)]
    fn word(&self, at: usize) -> Option<u64> {
        let bytes: [u8; 8] = self.b.get(at..at.checked_add(8)?)?.try_into().ok()?;
        Some(u64::from_le_bytes(bytes))
    }

    /// Skips whitespace; runs of spaces (pretty-printed indentation) 8 bytes at a time.
    #[inline(always)]
    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' => {
                    while let Some(w) = self.word(self.i) {
                        let other = w ^ (ONES * u64::from(b' '));
                        if other != 0 {
                            self.i += (other.trailing_zeros() / 8) as usize;
                            break;
                        }
                        self.i += 8;
                    }
                    while self.peek() == Some(b' ') {
                        self.i += 1;
                    }
                }
                b'\n' | b'\r' | b'\t' => self.i += 1,
                _ => return,
            }
        }
    }

    fn value(&mut self) -> Option<PyVal<'a>> {
        match self.peek()? {
            b'"' => self.string().map(PyVal::Str),
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.literal(b"true", PyVal::Bool(true)),
            b'f' => self.literal(b"false", PyVal::Bool(false)),
            b'n' => self.literal(b"null", PyVal::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], v: PyVal<'a>) -> Option<PyVal<'a>> {
        let end = self.i.checked_add(word.len())?;
        (self.b.get(self.i..end)? == word).then(|| {
            self.i = end;
            v
        })
    }

    /// The elements of an object or array at its opening bracket, up to `close`: `element` reads
    /// one (and pushes it onto its scratch stack); commas, whitespace and nesting depth are
    /// handled here.
    #[inline(always)]
    fn elements(
        &mut self,
        close: u8,
        mut element: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.i += 1; // '{' or '['
        self.ws();
        if self.peek()? != close {
            loop {
                element(self)?;
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        self.ws();
                    }
                    c if c == close => break,
                    _ => return None,
                }
            }
        }
        self.i += 1; // `close`
        self.depth -= 1;
        Some(())
    }

    fn object(&mut self) -> Option<PyVal<'a>> {
        let start = self.entries.len();
        self.elements(b'}', |p| {
            if p.peek()? != b'"' {
                return None;
            }
            let key = p.string()?;
            p.ws();
            if p.peek()? != b':' {
                return None;
            }
            p.i += 1;
            p.ws();
            let v = p.value()?;
            p.entries.push((key, v));
            Some(())
        })?;
        if !self.repeated_key {
            self.repeated_key = self.repeats_a_key(start);
        }
        let entries = self.bump.alloc_slice_copy(self.entries.get(start..)?);
        self.entries.truncate(start);
        Some(PyVal::Obj(entries))
    }

    /// Whether the object whose entries start at `start` repeats a key. On the trace reader's hot
    /// path (every object of every trace file), so: a few keys are compared pairwise; more go
    /// through a table of slots by [`key_slot`], and only a key whose slot this object already
    /// took is compared with the earlier keys (stamps tell this object's slots from those of
    /// earlier objects, so the table is not cleared per object); an object of more keys than
    /// the table has slots takes a hash set.
    fn repeats_a_key(&mut self, start: usize) -> bool {
        use super::pyval::same_key;
        let entries = self.entries.get(start..).unwrap_or_default();
        let earlier_has = |i: usize, k: &str| {
            entries
                .get(..i)
                .unwrap_or_default()
                .iter()
                .any(|(k2, _)| same_key(k, k2))
        };
        if entries.len() <= PAIRWISE_KEYS {
            return entries
                .iter()
                .enumerate()
                .any(|(i, (k, _))| earlier_has(i, k));
        }
        if entries.len() > KEY_SLOTS / 4 {
            let mut seen = std::collections::HashSet::with_capacity(entries.len());
            return !entries.iter().all(|(k, _)| seen.insert(*k));
        }
        if self.key_slots.len() != KEY_SLOTS {
            self.key_slots = vec![0; KEY_SLOTS];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.key_slots.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let slots = &mut self.key_slots;
        for (i, (k, _)) in entries.iter().enumerate() {
            match slots.get_mut(key_slot(k)) {
                Some(slot) if *slot != stamp => *slot = stamp,
                _ => {
                    if earlier_has(i, k) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn array(&mut self) -> Option<PyVal<'a>> {
        let start = self.items.len();
        self.elements(b']', |p| {
            let v = p.value()?;
            p.items.push(v);
            Some(())
        })?;
        let items = self.bump.alloc_slice_copy(self.items.get(start..)?);
        self.items.truncate(start);
        Some(PyVal::Arr(items))
    }

    /// A string at `"`: borrowed from the text when it has no escapes, else decoded into the
    /// arena.
    fn string(&mut self) -> Option<&'a str> {
        self.i += 1; // '"'
        let start = self.i;
        let stop = self.plain_run()?;
        match stop {
            b'"' => {
                let s = self.s.get(start..self.i)?;
                self.i += 1;
                Some(s)
            }
            b'\\' => {
                let mut out = std::mem::take(&mut self.unescaped);
                out.clear();
                out.push_str(self.s.get(start..self.i)?);
                let done = self.escaped(&mut out);
                let s = self.bump.alloc_str(&out);
                self.unescaped = out;
                done.map(|()| &*s)
            }
            _ => None, // a control character: serde_json's error
        }
    }

    /// Advances to the next `"`, `\` or control character and returns it.
    #[inline(always)]
    fn plain_run(&mut self) -> Option<u8> {
        while let Some(w) = self.word(self.i) {
            let stops = string_stops(w);
            if stops != 0 {
                self.i += (stops.trailing_zeros() / 8) as usize;
                return self.peek();
            }
            self.i += 8;
        }
        loop {
            let c = self.peek()?;
            if c == b'"' || c == b'\\' || c < 0x20 {
                return Some(c);
            }
            self.i += 1;
        }
    }

    /// The rest of a string from its first `\`, decoded into `out`.
    fn escaped(&mut self, out: &mut String) -> Option<()> {
        loop {
            // At a '\'.
            self.i += 1;
            let c = self.peek()?;
            self.i += 1;
            match c {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let hi = self.hex4()?;
                    let code = match hi {
                        0xD800..=0xDBFF => {
                            if self.b.get(self.i..self.i + 2)? != b"\\u" {
                                return None;
                            }
                            self.i += 2;
                            let lo = self.hex4()?;
                            if !(0xDC00..=0xDFFF).contains(&lo) {
                                return None;
                            }
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        0xDC00..=0xDFFF => return None,
                        _ => hi,
                    };
                    out.push(char::from_u32(code)?);
                }
                _ => return None,
            }
            let start = self.i;
            let stop = self.plain_run()?;
            out.push_str(self.s.get(start..self.i)?);
            match stop {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => {}
                _ => return None,
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.i..self.i.checked_add(4)?)?;
        let mut v = 0u32;
        for &d in digits {
            v = v * 16 + char::from(d).to_digit(16)?;
        }
        self.i += 4;
        Some(v)
    }

    /// A number by JSON's grammar, kinds as serde_json gives them: a non-negative integer is
    /// `U64`, a negative one `I64` (`-0` is the float `-0.0`), anything with a fraction or an
    /// exponent a correctly rounded `F64`.
    fn number(&mut self) -> Option<PyVal<'a>> {
        let start = self.i;
        let neg = self.peek() == Some(b'-');
        if neg {
            self.i += 1;
        }
        let mut sig: u64 = 0;
        let mut overflow = false;
        match self.peek()? {
            b'0' => {
                self.i += 1;
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return None;
                }
            }
            b'1'..=b'9' => self.significand(&mut sig, &mut overflow),
            _ => return None,
        }
        let mut float = false;
        let mut exponent = false;
        let mut frac_digits = 0usize;
        if self.peek() == Some(b'.') {
            self.i += 1;
            let from = self.i;
            // The fraction's digits go on in the same significand (for the fast path below).
            self.significand(&mut sig, &mut overflow);
            frac_digits = self.i - from;
            if frac_digits == 0 {
                return None;
            }
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.digits()?;
            float = true;
            exponent = true;
        }
        if float || overflow {
            // Integers past 64 bits are left to serde_json: it rounds them by its own path.
            if overflow && !float {
                return None;
            }
            // Clinger's fast path: a significand below 2^53 and a power of ten up to 10^22 are
            // both exact doubles, so one division is correctly rounded (what parsing gives).
            if !overflow && !exponent && sig <= 1 << 53 {
                if let Some(p) = POW10.get(frac_digits) {
                    let f = sig as f64 / p;
                    return Some(PyVal::F64(if neg { -f } else { f }));
                }
            }
            let f: f64 = self.s.get(start..self.i)?.parse().ok()?;
            return f.is_finite().then_some(PyVal::F64(f));
        }
        if !neg {
            return Some(PyVal::U64(sig));
        }
        let n = (sig as i64).wrapping_neg();
        Some(if n >= 0 {
            PyVal::F64(-(sig as f64))
        } else {
            PyVal::I64(n)
        })
    }

    /// Digits appended to `sig` (`overflow` set when they no longer fit in 64 bits).
    #[inline(always)]
    fn significand(&mut self, sig: &mut u64, overflow: &mut bool) {
        while let Some(d @ b'0'..=b'9') = self.peek() {
            match sig
                .checked_mul(10)
                .and_then(|s| s.checked_add(u64::from(d - b'0')))
            {
                Some(s) => *sig = s,
                None => *overflow = true,
            }
            self.i += 1;
        }
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        (self.i > start).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a reader can observe of a tree, every bit of it: objects as `serde_json::Map`
    /// iterates them (each key once, first position, last value), numbers with their kind and
    /// float bits (Debug prints `-0.0` and the shortest round-trip digits).
    fn canon(v: &PyVal<'_>) -> String {
        match v {
            PyVal::Obj(entries) => {
                let parts: Vec<String> = crate::numeric_qa::formats::pyval::entries(entries)
                    .map(|(k, v)| format!("{k:?}:{}", canon(v)))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }
            PyVal::Arr(items) => {
                let parts: Vec<String> = items.iter().map(canon).collect();
                format!("[{}]", parts.join(","))
            }
            other => format!("{other:?}"),
        }
    }

    /// The contract: a tree from the fast path is the one serde_json reads.
    fn agrees(text: &str) -> Option<()> {
        let bump = Bump::new();
        let (fast, repeated_key) = parse(text, &bump)?;
        let short: String = text.chars().take(300).collect();
        assert_eq!(
            repeated_key,
            !crate::json_keys::duplicate_keys(text.as_bytes()).is_empty(),
            "the parser and the scan disagree on repeated keys: {short:?}"
        );
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(slow) => assert!(
                canon(&fast) == canon(&PyVal::from_value(&slow, &bump)),
                "trees differ: {short:?}"
            ),
            Err(e) => panic!("fast path read what serde_json rejects ({e}): {short:?}"),
        }
        Some(())
    }

    /// Read by the fast path, as serde_json reads it.
    fn fast(text: &str) {
        assert!(agrees(text).is_some(), "left to the slow path: {text:?}");
    }

    /// Left to the slow path.
    fn slow(text: &str) {
        assert!(
            parse(text, &Bump::new()).is_none(),
            "fast path took {text:?}"
        );
    }

    #[test]
    fn repeated_keys_are_all_kept_in_file_order() {
        let bump = Bump::new();
        let (v, repeated) = parse(r#"{"a": 1, "b": [], "a": "two"}"#, &bump).unwrap();
        assert!(repeated);
        let PyVal::Obj(entries) = v else {
            panic!("{v:?}")
        };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["a", "b", "a"]);
        assert_eq!(v.get("a"), Some(&PyVal::Str("two")));
    }

    /// The repeated-key flag, at every object size (pairwise, the slot table, the hash set),
    /// agrees with the scan (`agrees` checks it), for repeats near and far, nested, escaped.
    #[test]
    fn repeated_keys_are_noted_at_every_object_size() {
        for n in [2, 3, 8, 9, 40, 255, 256, 257, 2000] {
            let keys: Vec<String> = (0..n).map(|i| format!("key_number_{i}")).collect();
            let object = |keys: &[String]| {
                let body: Vec<String> = keys.iter().map(|k| format!("\"{k}\": 1")).collect();
                format!("{{{}}}", body.join(", "))
            };
            fast(&object(&keys));
            let pairs = [(0, n - 1), (n / 2 - 1, n / 2), (n - 2, n - 1)];
            for (a, b) in pairs {
                let mut repeated = keys.clone();
                repeated[b] = repeated[a].clone();
                let text = object(&repeated);
                fast(&text);
                assert!(parse(&text, &Bump::new()).unwrap().1, "{n} keys, {a} = {b}");
                // The same object nested, and with the repeat spelled with an escape.
                fast(&format!("[{{\"x\": {text}}}, {}]", object(&keys)));
                let escaped = text.replacen("\"key", "\"\\u006bey", 2);
                fast(&escaped);
            }
        }
        // Many objects in one file: the table's stamps never confuse one object with another.
        let row = |i: usize| {
            format!("{{\"a{}\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5, \"f\": 6, \"g\": 7, \"h\": 8, \"i\": 9}}", i % 3)
        };
        let rows: Vec<String> = (0..70_000).map(row).collect();
        fast(&format!("[{}]", rows.join(",")));
    }

    #[test]
    fn escaped_strings_are_decoded_into_the_arena() {
        let bump = Bump::new();
        let text = String::from(r#"["a\nb", "plain", "\u00e9\ud83d\ude00"]"#);
        let (v, _) = parse(&text, &bump).unwrap();
        assert_eq!(
            v.as_array().unwrap(),
            [
                PyVal::Str("a\nb"),
                PyVal::Str("plain"),
                PyVal::Str("\u{e9}\u{1f600}")
            ]
        );
        // The plain string borrows the text; the decoded ones live in the arena.
        let PyVal::Str(plain) = v.as_array().unwrap()[1] else {
            panic!()
        };
        assert!(text.as_bytes().as_ptr_range().contains(&plain.as_ptr()));
    }

    #[test]
    fn numbers_keep_serde_jsons_kinds_and_bits() {
        for t in [
            "0",
            "-0",
            "-0.0",
            "0.0",
            "1",
            "-1",
            "1e3",
            "1E+3",
            "1e-3",
            "2.5e-2",
            "1e-400",
            "-1e-400",
            "0.1",
            "0.30000000000000004",
            "123456789012345678901234567890.5",
            "1234567890123456789012345e-5",
            "18446744073709551615",
            "-9223372036854775808",
            "-9223372036854775807",
            "-9223372036854775809",
            "-18446744073709551615",
            "2.2250738585072011e-308",
            "4.9e-324",
            "2.4703282292062327e-324",
            "1.7976931348623157e308",
            "9007199254740993",
            "9007199254740993.0",
            "9007199254740992.5",
            "900719925474099.3",
            "0.1234567890123456789012",
            "0.12345678901234567890123",
            "1.0000000000000000000000001",
            "-123.456",
            "850.5",
            "0.9",
            "1.7976931348623157",
            "[1,-2,3.5,-0,1e2]",
        ] {
            fast(t);
        }
        for t in [
            "01",
            "-01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "1e+",
            "--1",
            "1.5.2",
            "0x10",
            "1e400",
            "-1e400",
            "1.7976931348623159e308",
            "NaN",
            "Infinity",
            "-Infinity",
            "[1,NaN]",
            // Beyond 64 bits: serde_json's own path decides.
            "18446744073709551616",
            "-18446744073709551617",
        ] {
            slow(t);
        }
    }

    #[test]
    fn strings_borrow_or_decode_as_serde_json_does() {
        for t in [
            r#""""#,
            r#""plain""#,
            r#""a \"quoted\" word""#,
            r#""\\ \/ \b \f \n \r \t""#,
            r#""\u0041\u00e9\u20ac""#,
            r#""\u0000 is a NUL""#,
            r#""\ud83d\ude00 grin""#,
            r#""\uD83D\uDE00""#,
            "\"caf\u{e9} \u{1f600} \u{7f}\"",
            r#""exactly8""#,
            r#""sixteen chars!!!""#,
            r#""ends with escape\n""#,
            r#"{"k\"ey": "v\\"}"#,
        ] {
            fast(t);
        }
        for t in [
            "\"tab\tinside\"",
            "\"new\nline\"",
            "\"\u{1}\"",
            r#""\ud83d""#,
            r#""\ud83d\u0041""#,
            r#""\ude00""#,
            r#""\x41""#,
            r#""\u12""#,
            r#""\u12G4""#,
            r#""unterminated"#,
            r#""unterminated\"#,
            r#""escape at end\"#,
        ] {
            slow(t);
        }
    }

    #[test]
    fn structure_as_serde_json_reads_it() {
        for t in [
            "{}",
            "[]",
            " \t\r\n{ } \n",
            r#"{"a":1,"a":2}"#,
            r#"{"a": [1, {"b": null}], "c": true, "d": false}"#,
            "{\n        \"indented\": [\n                1,\n                2\n        ]\n}",
            "[[[[[]]]]]",
            "null",
            "true",
        ] {
            fast(t);
        }
        for t in [
            "",
            "   ",
            "{",
            "}",
            "[1,]",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{"a":1}{"#,
            "[1 2]",
            "tru",
            "nul",
            "falsey",
            "[1] x",
            "{\"a\":1}\u{0}",
        ] {
            slow(t);
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        fast(&deep(MAX_DEPTH as usize));
        slow(&deep(MAX_DEPTH as usize + 1));
    }

    #[test]
    fn fixture_json_files_take_the_fast_path() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dirs = [root.join("tests/fixtures"), root.join("../shared/data")];
        let mut seen = 0;
        for p in evalboard_test_support::files_under(&dirs, "json") {
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let serde_ok = serde_json::from_str::<serde_json::Value>(&text).is_ok();
            let got = agrees(&text);
            assert_eq!(got.is_some(), serde_ok, "{}", p.display());
            seen += 1;
        }
        assert!(seen > 10, "only {seen} JSON fixture files found");
    }

    /// JSON values with the awkward corners: any float bits, both integer kinds, strings of any
    /// characters (escaped by serde_json as needed), nesting, repeated keys.
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_filter_map("finite", |bits| {
                serde_json::Number::from_f64(f64::from_bits(bits)).map(Value::Number)
            }),
            (-1e6f64..1e6).prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[a-z\"\\\\/\u{0}-\u{1f}\u{e9}\u{1f600}]{0,20}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("[a-c]{1,2}", inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        #[test]
        fn decimals_round_as_serde_json_rounds_them(
            digits in "[0-9]{1,25}",
            point in 0usize..25,
            neg in any::<bool>(),
        ) {
            let digits = digits.trim_start_matches('0');
            let digits = if digits.is_empty() { "0" } else { digits };
            let point = point.min(digits.len().saturating_sub(1));
            let (int, frac) = digits.split_at(digits.len() - point);
            let sign = if neg { "-" } else { "" };
            let text = if frac.is_empty() {
                format!("{sign}{int}.0")
            } else {
                format!("{sign}{int}.{frac}")
            };
            fast(&text);
            fast(&format!("{sign}0.{digits}"));
        }

        #[test]
        fn serialized_values_read_fast_and_equal(v in json_value(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            fast(&text);
        }

        #[test]
        fn mutated_json_is_read_as_serde_json_reads_it_or_left_to_it(
            v in json_value(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(
                b" \n\t\"\\,:{}[]0123456789-+.eEtrunlfasx\x01\xff".to_vec())), 1..4),
        ) {
            let mut bytes = serde_json::to_string_pretty(&v).unwrap().into_bytes();
            for (at, op, b) in edits {
                if bytes.is_empty() {
                    bytes.push(b);
                    continue;
                }
                let i = at.index(bytes.len());
                match op {
                    0 => { bytes.remove(i); }
                    1 => bytes.insert(i, b),
                    _ => bytes[i] = b,
                }
            }
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let _ = agrees(text);
            }
        }
    }
}

#[cfg(test)]
mod speed {
    /// `cargo test --release -p evalboard-engine --lib fastjson::speed -- --ignored --nocapture`
    /// with EVALBOARD_JSON_DIR set to a folder of JSON files.
    #[test]
    #[ignore]
    fn parse_speed() {
        let Ok(dir) = std::env::var("EVALBOARD_JSON_DIR") else {
            return;
        };
        let texts: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        let bytes: usize = texts.iter().map(String::len).sum();
        for round in 0..3 {
            let t = std::time::Instant::now();
            let mut n = 0;
            let mut bump = bumpalo::Bump::new();
            for s in &texts {
                n += usize::from(super::parse(s, &bump).is_some());
                bump.reset();
            }
            let fast = t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            for s in &texts {
                n += usize::from(serde_json::from_str::<serde_json::Value>(s).is_ok());
            }
            let serde = t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            for s in &texts {
                n += usize::from(serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok());
            }
            let ignored = t.elapsed().as_secs_f64();
            let mb = bytes as f64 / 1e6;
            println!(
                "round {round}: {n} ok; fast {:.0} MB/s, serde Value {:.0} MB/s, serde IgnoredAny {:.0} MB/s",
                mb / fast,
                mb / serde,
                mb / ignored
            );
        }
    }
}
