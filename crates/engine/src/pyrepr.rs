//! Python-compatible formatting: float repr, str() of values, dict repr, round() half-even on the binary value.
//!
//! The financial-agent-2 compatibility profile must reproduce files written by CPython 3.11 byte for
//! byte, so every conversion Python performed on the way to disk is reimplemented here:
//!
//! - [`py_float_repr`]: `repr(float)` (shortest round-trip digits, `1e-05`, `1e+16`, `inf`, `nan`);
//! - [`py_round`]: `round(float, ndigits)`, correctly rounded half-to-even on the exact binary value;
//! - [`py_float_parse`]: `float(str)` (Unicode digits and spaces, `1_000`, `inf`, `nan`);
//! - [`py_str`] / [`py_csv_cell`]: `str()` of a value and what `csv.writer` writes for it;
//! - [`PyObj`]: a Python object tree with `repr()` (dict repr) and `json.dump` output;
//! - [`csv_row`]: one `csv.writer` row (QUOTE_MINIMAL, `\r\n`);
//! - [`parse_py_json`]: `json.load`, which (unlike strict JSON) accepts `NaN` and `Infinity`.

mod tables;

use std::cmp::Ordering;

use crate::numeric_qa::model::RawValue;

// ---------------------------------------------------------------------------------------------
// float repr

/// Python's `repr(x)` for a float (`str(x)` is the same in Python 3).
///
/// Shortest digits that round-trip; fixed notation when the decimal exponent is in `-4..16`,
/// otherwise `d.ddde±XX` with at least two exponent digits; fixed notation always has a `.0`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let (digits, exp) = shortest_digits(x.abs());
    let sign = if x < 0.0 { "-" } else { "" };
    let n = digits.len() as i32;
    let mut out = String::from(sign);
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
        return out;
    }
    let decpt = exp + 1; // digits before the decimal point
    if decpt <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-decpt) as usize));
        out.push_str(&digits);
    } else if decpt < n {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    } else {
        out.push_str(&digits);
        out.push_str(&"0".repeat((decpt - n) as usize));
        out.push_str(".0");
    }
    out
}

/// Shortest round-trip decimal digits of a finite positive float and the decimal exponent of the
/// first digit (`1350.0` → `("135", 3)`). Rust's `{:e}` is the shortest representation that
/// round-trips, nearest to the exact value, which is what CPython's `repr` uses too.
///
/// One difference is fixed up here: when `x` lies exactly halfway between two shortest candidates
/// (e.g. `1231789256873381.25`), Rust rounds the last digit up while CPython's dtoa picks the even
/// digit (`1231789256873381.2`).
fn shortest_digits(x: f64) -> (String, i32) {
    let s = format!("{x:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    match tie_to_even(x, &digits, exp) {
        Some(fixed) => fixed,
        None => (digits, exp),
    }
}

/// If `x` is exactly halfway between `digits` and a neighbour with the same number of digits, and
/// the last digit of `digits` is odd, the even neighbour (when it round-trips too).
fn tie_to_even(x: f64, digits: &str, exp: i32) -> Option<(String, i32)> {
    let last = digits.bytes().last()?;
    if (last - b'0') & 1 == 0 || digits.len() > 17 {
        return None;
    }
    let d: u64 = digits.parse().ok()?;
    // Exponent of the last digit of `digits`; the midpoints have one more digit.
    let last_exp = exp - (digits.len() as i32 - 1);
    for (mid, neighbour) in [(d * 10 - 5, d - 1), (d * 10 + 5, d + 1)] {
        if !exact_decimal_eq(x, mid, last_exp - 1) {
            continue;
        }
        let text = neighbour.to_string();
        // A carry (…9 + 1) changes the digit count; the shorter form would have been found already.
        if text.len() != digits.len() {
            return None;
        }
        let back: f64 = format!("{text}e{last_exp}").parse().ok()?;
        if back == x {
            let trimmed = text.trim_end_matches('0');
            return Some((trimmed.to_string(), exp));
        }
    }
    None
}

/// Whether the finite positive float `x` equals `c * 10^p` exactly.
fn exact_decimal_eq(x: f64, c: u64, p: i32) -> bool {
    let (mant, exp2) = decompose(x);
    let mut lhs = Big::from_u64(mant);
    let mut rhs = Big::from_u64(c);
    if exp2 > 0 {
        lhs = lhs.shl(exp2 as u32);
    } else {
        rhs = rhs.shl((-exp2) as u32);
    }
    if p > 0 {
        rhs.mul_pow10(p as u32);
    } else {
        lhs.mul_pow10((-p) as u32);
    }
    lhs == rhs
}

/// `|x| = mant * 2^exp2` exactly, for a finite float.
pub(crate) fn decompose(x: f64) -> (u64, i32) {
    let bits = x.abs().to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    }
}

// ---------------------------------------------------------------------------------------------
// round()

/// Python's `round(x, ndigits)` for a float: the decimal value with `ndigits` fraction digits
/// nearest to the exact binary value of `x` (ties to even), converted back to the nearest float.
/// `None` where Python raises `OverflowError` (only possible for negative `ndigits`, e.g.
/// `round(1.7976931348623157e308, -308)`).
pub fn py_round(x: f64, ndigits: i32) -> Option<f64> {
    if !x.is_finite() {
        return Some(x);
    }
    // CPython: NDIGITS_MAX = (53 + 1021) * 0.30103, NDIGITS_MIN = -(1024 + 1) * 0.30103.
    if ndigits > 323 {
        return Some(x);
    }
    if ndigits < -308 {
        return Some(0.0 * x);
    }
    if x == 0.0 {
        return Some(x);
    }
    let (mant, exp2) = decompose(x);
    // |x| = mant * 2^exp2; we want q = round_half_even(|x| * 10^ndigits).
    let mut num = Big::from_u64(mant);
    if exp2 > 0 {
        num = num.shl(exp2 as u32);
    }
    if ndigits > 0 {
        num.mul_pow10(ndigits as u32);
    }
    let pow2 = if exp2 < 0 { (-exp2) as u32 } else { 0 };
    let q = if ndigits >= 0 {
        // Denominator is 2^pow2: a shift, and the dropped bits decide the rounding.
        let q = num.shr(pow2);
        match num.low_bits_vs_half(pow2) {
            Ordering::Less => q,
            Ordering::Greater => q.add_one(),
            Ordering::Equal => {
                if q.is_odd() {
                    q.add_one()
                } else {
                    q
                }
            }
        }
    } else {
        let mut den = Big::from_u64(1);
        den.mul_pow10((-ndigits) as u32);
        let den = den.shl(pow2);
        let (q, r) = num.divmod(&den);
        match r.shl(1).cmp_big(&den) {
            Ordering::Less => q,
            Ordering::Greater => q.add_one(),
            Ordering::Equal => {
                if q.is_odd() {
                    q.add_one()
                } else {
                    q
                }
            }
        }
    };
    let text = format!("{}e{}", q.to_decimal(), -ndigits);
    let value: f64 = text.parse().ok()?;
    if value.is_infinite() {
        return None;
    }
    Some(if x < 0.0 { -value } else { value })
}

/// A minimal unsigned big integer (little-endian 32-bit limbs) for exact rounding.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn is_odd(&self) -> bool {
        self.0.first().is_some_and(|l| l & 1 == 1)
    }
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in self.0.iter_mut() {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }
    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        if n > 0 {
            self.mul_small(10u32.pow(n));
        }
    }
    fn add_one(mut self) -> Big {
        for limb in self.0.iter_mut() {
            let (v, overflow) = limb.overflowing_add(1);
            *limb = v;
            if !overflow {
                return self;
            }
        }
        self.0.push(1);
        self
    }
    fn bit_len(&self) -> u32 {
        match self.0.last() {
            None => 0,
            Some(top) => (self.0.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }
    fn bit(&self, i: u32) -> bool {
        self.0
            .get((i / 32) as usize)
            .is_some_and(|l| (l >> (i % 32)) & 1 == 1)
    }
    fn shl(&self, bits: u32) -> Big {
        if self.is_zero() {
            return self.clone();
        }
        let words = (bits / 32) as usize;
        let shift = bits % 32;
        let mut out = vec![0u32; words];
        let mut carry = 0u32;
        for &limb in &self.0 {
            if shift == 0 {
                out.push(limb);
            } else {
                out.push((limb << shift) | carry);
                carry = limb >> (32 - shift);
            }
        }
        if carry > 0 {
            out.push(carry);
        }
        let mut b = Big(out);
        b.trim();
        b
    }
    fn shr(&self, bits: u32) -> Big {
        let words = (bits / 32) as usize;
        let shift = bits % 32;
        if words >= self.0.len() {
            return Big(Vec::new());
        }
        let src = &self.0[words..];
        let mut out = Vec::with_capacity(src.len());
        for (i, &limb) in src.iter().enumerate() {
            let hi = src.get(i + 1).copied().unwrap_or(0);
            if shift == 0 {
                out.push(limb);
            } else {
                out.push((limb >> shift) | (hi << (32 - shift)));
            }
        }
        let mut b = Big(out);
        b.trim();
        b
    }
    /// Compares `self mod 2^bits` with `2^(bits-1)` (half of the unit being dropped).
    fn low_bits_vs_half(&self, bits: u32) -> Ordering {
        if bits == 0 {
            return Ordering::Less;
        }
        let half_bit = bits - 1;
        if !self.bit(half_bit) {
            return Ordering::Less;
        }
        let any_below = (0..half_bit).any(|i| self.bit(i));
        if any_below {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
    fn cmp_big(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let o = i64::from(other.0.get(i).copied().unwrap_or(0));
            let mut v = i64::from(self.0[i]) - o - borrow;
            if v < 0 {
                v += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            self.0[i] = v as u32;
        }
        self.trim();
    }
    /// Schoolbook binary long division.
    fn divmod(&self, den: &Big) -> (Big, Big) {
        let n = self.bit_len();
        let mut q = Big(vec![0u32; (n as usize).div_ceil(32)]);
        let mut r = Big(Vec::new());
        for i in (0..n).rev() {
            r = r.shl(1);
            if self.bit(i) {
                if r.0.is_empty() {
                    r.0.push(1);
                } else {
                    r.0[0] |= 1;
                }
            }
            if r.cmp_big(den) != Ordering::Less {
                r.sub_assign(den);
                q.0[(i / 32) as usize] |= 1 << (i % 32);
            }
        }
        q.trim();
        (q, r)
    }
    fn to_decimal(&self) -> String {
        if self.is_zero() {
            return "0".to_string();
        }
        let mut limbs = self.0.clone();
        let mut chunks = Vec::new();
        while !limbs.is_empty() {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*limb);
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            while limbs.last() == Some(&0) {
                limbs.pop();
            }
            chunks.push(rem as u32);
        }
        let mut out = String::new();
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                out.push_str(&c.to_string());
            } else {
                out.push_str(&format!("{c:09}"));
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// float(str) and str.strip()

/// Python's `str.isspace()` for one character (`Py_UNICODE_ISSPACE`).
pub fn py_isspace(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\x1c'..='\x1f'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python's `s.strip()` (no argument).
pub fn py_strip(s: &str) -> &str {
    crate::numeric_qa::answer::trim_by(s, py_isspace)
}

/// The digit value of a Unicode decimal digit (category Nd), as Python's `float()` sees it.
pub(crate) fn unicode_decimal(c: char) -> Option<u8> {
    let cp = c as u32;
    let idx = tables::DECIMAL_ZEROS.partition_point(|&z| z <= cp);
    let zero = *tables::DECIMAL_ZEROS.get(idx.checked_sub(1)?)?;
    let d = cp - zero;
    (d < 10).then_some(d as u8)
}

/// Python's `float(s)` for a string; `None` where Python raises `ValueError`.
///
/// Unicode spaces and decimal digits are mapped to ASCII first; `_` is allowed only between
/// digits; surrounding ASCII whitespace is ignored; `inf`, `infinity` and `nan` in any case with an
/// optional sign; overflow gives `±inf` and underflow `0.0`, as in CPython.
pub fn py_float_parse(s: &str) -> Option<f64> {
    let mut ascii = String::with_capacity(s.len());
    for c in s.chars() {
        if (c as u32) < 127 {
            ascii.push(c);
        } else if py_isspace(c) {
            ascii.push(' ');
        } else if let Some(d) = unicode_decimal(c) {
            ascii.push(char::from(b'0' + d));
        } else {
            return None;
        }
    }
    if ascii.contains('\0') {
        return None;
    }
    let text = if ascii.contains('_') {
        let mut out = String::with_capacity(ascii.len());
        let mut prev = '\0';
        for c in ascii.chars() {
            if c == '_' {
                if !prev.is_ascii_digit() {
                    return None;
                }
            } else {
                if prev == '_' && !c.is_ascii_digit() {
                    return None;
                }
                out.push(c);
            }
            prev = c;
        }
        if prev == '_' {
            return None;
        }
        out
    } else {
        ascii
    };
    // Py_ISSPACE on ASCII: space and \t \n \v \f \r only.
    let t = text.trim_matches(|c: char| c == ' ' || ('\t'..='\r').contains(&c));
    parse_ascii_float(t)
}

/// `PyOS_string_to_double` on an already stripped ASCII string.
fn parse_ascii_float(t: &str) -> Option<f64> {
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if lower == "nan" {
        return Some(if neg { -f64::NAN } else { f64::NAN });
    }
    // Decimal literal: digits [. digits] [e [sign] digits], at least one mantissa digit.
    let b = body.as_bytes();
    let mut i = 0;
    let mut mant_digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        mant_digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            mant_digits += 1;
        }
    }
    if mant_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    let v: f64 = body.parse().ok()?;
    Some(if neg { -v } else { v })
}

// ---------------------------------------------------------------------------------------------
// str(), repr() of str, csv

/// Python's `str(v)` for a value stored in a TraceRecord (`None`, `True`, `60.94`, `'text'`).
pub fn py_str(v: &RawValue) -> String {
    match v {
        RawValue::Null => "None".to_string(),
        RawValue::Bool(true) => "True".to_string(),
        RawValue::Bool(false) => "False".to_string(),
        RawValue::Int(i) => i.to_string(),
        RawValue::Float(f) => py_float_repr(*f),
        RawValue::Str(s) => s.clone(),
    }
}

/// What Python's `csv.writer` writes for a value: `str(v)`, except that `None` is an empty field.
pub fn py_csv_cell(v: &RawValue) -> String {
    match v {
        RawValue::Null => String::new(),
        other => py_str(other),
    }
}

/// Python truthiness of a stored value (`x or ""` patterns): None, False, 0, 0.0 and "" are false.
pub fn py_truthy(v: &RawValue) -> bool {
    match v {
        RawValue::Null => false,
        RawValue::Bool(b) => *b,
        RawValue::Int(i) => *i != 0,
        RawValue::Float(f) => *f != 0.0,
        RawValue::Str(s) => !s.is_empty(),
    }
}

fn is_printable(c: char) -> bool {
    let cp = c as u32;
    if cp < 0x80 {
        return (0x20..0x7f).contains(&cp);
    }
    let idx = tables::PRINTABLE_NON_ASCII.partition_point(|&(lo, _)| lo <= cp);
    match idx
        .checked_sub(1)
        .and_then(|i| tables::PRINTABLE_NON_ASCII.get(i))
    {
        Some(&(_, hi)) => cp <= hi,
        None => false,
    }
}

/// Python's `repr(s)` for a str: single quotes unless the text has `'` and no `"`, backslash
/// escapes for quotes, `\\`, `\t`, `\n`, `\r`, and `\xhh`/`\uhhhh`/`\Uhhhhhhhh` for characters that
/// are not printable.
pub fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            _ if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ if is_printable(c) => out.push(c),
            _ => {
                let cp = c as u32;
                if cp <= 0xff {
                    out.push_str(&format!("\\x{cp:02x}"));
                } else if cp <= 0xffff {
                    out.push_str(&format!("\\u{cp:04x}"));
                } else {
                    out.push_str(&format!("\\U{cp:08x}"));
                }
            }
        }
    }
    out.push(quote);
    out
}

/// One row as Python's `csv.writer` (excel dialect, QUOTE_MINIMAL) writes it, `\r\n` included.
/// A field is quoted when it holds `,`, `"`, `\r` or `\n`; quotes are doubled. A row made of one
/// empty field is written as `""`.
pub fn csv_row<S: AsRef<str>>(fields: &[S]) -> String {
    let mut out = String::new();
    if let [only] = fields {
        if only.as_ref().is_empty() {
            return "\"\"\r\n".to_string();
        }
    }
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let f = f.as_ref();
        if f.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push_str("\r\n");
    out
}

// ---------------------------------------------------------------------------------------------
// Python objects: repr() and json.dump

/// A Python object as far as these files need: what `json.load` returns, plus int dict keys.
#[derive(Debug, Clone, PartialEq)]
pub enum PyObj {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    List(Vec<PyObj>),
    /// Insertion-ordered, like a Python dict.
    Dict(Vec<(PyObj, PyObj)>),
}

/// Marker strings [`parse_py_json`] puts where `json.dump` wrote `NaN`, `Infinity`, `-Infinity`.
const NAN_MARKER: &str = "\u{0}evalboard:py-float:NaN";
const INF_MARKER: &str = "\u{0}evalboard:py-float:Infinity";
const NEG_INF_MARKER: &str = "\u{0}evalboard:py-float:-Infinity";

/// The float a marker string of [`from_py_json`] stands for.
pub(crate) fn marker_float(s: &str) -> Option<f64> {
    match s {
        NAN_MARKER => Some(f64::NAN),
        INF_MARKER => Some(f64::INFINITY),
        NEG_INF_MARKER => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Parses JSON as Python's `json.load` does: like strict JSON, but the bare tokens `NaN`,
/// `Infinity` and `-Infinity` (which `json.dump` writes for non-finite floats) are accepted. They
/// come back as marker strings that [`raw_from_py_json`] and [`PyObj::from_json`] turn into floats.
/// Line numbers in errors are those of the original text.
pub fn parse_py_json(bytes: &[u8]) -> Result<serde_json::Value, serde_json::Error> {
    from_py_json(bytes)
}

/// [`parse_py_json`] into any type: strict JSON first; only when that fails are the bare
/// non-finite tokens rewritten (outside strings, into marker strings) and the text parsed again.
pub fn from_py_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    serde_json::from_slice(bytes).or_else(|first| match without_nonfinite_tokens(bytes) {
        std::borrow::Cow::Owned(rewritten) => serde_json::from_slice(&rewritten),
        std::borrow::Cow::Borrowed(_) => Err(first),
    })
}

/// The token (`NaN`, `Infinity`, `-Infinity`) a marker string of [`from_py_json`] stands for.
pub fn nonfinite_token(s: &str) -> Option<&'static str> {
    match s {
        NAN_MARKER => Some("NaN"),
        INF_MARKER => Some("Infinity"),
        NEG_INF_MARKER => Some("-Infinity"),
        _ => None,
    }
}

/// `bytes` with `NaN`, `Infinity`, `-Infinity` outside strings replaced by marker strings;
/// borrowed (no copy) when there are none.
pub(crate) fn without_nonfinite_tokens(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let tokens: [(&[u8], &str); 3] = [
        (b"-Infinity", NEG_INF_MARKER),
        (b"Infinity", INF_MARKER),
        (b"NaN", NAN_MARKER),
    ];
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let rest = bytes.get(i..).unwrap_or_default();
        match tokens.iter().find(|(tok, _)| rest.starts_with(tok)) {
            Some((tok, marker)) => {
                let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len() + 64));
                o.extend_from_slice(bytes.get(copied..i).unwrap_or_default());
                o.push(b'"');
                o.extend_from_slice(marker.replace('\0', "\\u0000").as_bytes());
                o.push(b'"');
                i += tok.len();
                copied = i;
            }
            None => i += 1,
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(bytes),
        Some(mut o) => {
            o.extend_from_slice(bytes.get(copied..).unwrap_or_default());
            std::borrow::Cow::Owned(o)
        }
    }
}

/// Lone surrogate escapes found by [`without_lone_surrogates`]: how many, and the byte offset of
/// the first (its backslash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoneSurrogates {
    pub count: usize,
    pub first_at: usize,
}

/// `bytes` with every lone surrogate escape — a `\ud800`–`\udbff` escape not followed by a
/// `\udc00`–`\udfff` one, or a `\udc00`–`\udfff` escape not preceded by the former — rewritten to
/// `\ufffd`, which is how Python's `json.load` (which accepts them) would show such a string
/// on a UTF-8 page. serde_json refuses them, and would drop the whole file. The rewrite keeps
/// the text's length, so byte offsets and line numbers stay those of `bytes`. Escapes are read
/// as JSON reads them, left to right from each backslash: `\\ud800` is an escaped backslash
/// and the text `ud800`, untouched. Borrowed (no copy) when there are none; at most one copy of
/// `bytes` otherwise.
pub fn without_lone_surrogates(
    bytes: &[u8],
) -> (std::borrow::Cow<'_, [u8]>, Option<LoneSurrogates>) {
    fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
        let digits = bytes.get(at..at.checked_add(4)?)?;
        let text = std::str::from_utf8(digits).ok()?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(text, 16).ok()
    }
    let high = |v: u32| (0xD800..0xDC00).contains(&v);
    let low = |v: u32| (0xDC00..0xE000).contains(&v);
    let mut out: Option<Vec<u8>> = None;
    let mut found: Option<LoneSurrogates> = None;
    let mut i = 0usize;
    while let Some(n) = bytes.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let at = i + n;
        if bytes.get(at + 1) != Some(&b'u') {
            // Any other escape is two bytes (`\\`, `\"`, `\n`, …).
            i = at + 2;
            continue;
        }
        let Some(v) = hex4(bytes, at + 2) else {
            i = at + 2;
            continue;
        };
        if high(v)
            && bytes.get(at + 6..at + 8) == Some(b"\\u".as_slice())
            && hex4(bytes, at + 8).is_some_and(low)
        {
            i = at + 12;
            continue;
        }
        if high(v) || low(v) {
            let o = out.get_or_insert_with(|| bytes.to_vec());
            if let Some(digits) = o.get_mut(at + 2..at + 6) {
                digits.copy_from_slice(b"fffd");
            }
            let f = found.get_or_insert(LoneSurrogates {
                count: 0,
                first_at: at,
            });
            f.count += 1;
        }
        i = at + 6;
    }
    match out {
        Some(o) => (std::borrow::Cow::Owned(o), found),
        None => (std::borrow::Cow::Borrowed(bytes), None),
    }
}

/// Lowers a JSON value read with [`parse_py_json`] into a [`RawValue`] (markers become floats;
/// arrays and objects become their JSON text, as [`RawValue::from_json`] does).
pub fn raw_from_py_json(v: &serde_json::Value) -> RawValue {
    match v {
        serde_json::Value::String(s) => match marker_float(s) {
            Some(f) => RawValue::Float(f),
            None => RawValue::Str(s.clone()),
        },
        other => RawValue::from_json(other),
    }
}

impl PyObj {
    /// What `json.load` returns for a JSON value (markers from [`parse_py_json`] become floats).
    /// Integers beyond 64 bits were already floats in serde_json; they stay floats here.
    pub fn from_json(v: &serde_json::Value) -> PyObj {
        match v {
            serde_json::Value::Null => PyObj::None,
            serde_json::Value::Bool(b) => PyObj::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    PyObj::Int(i128::from(i))
                } else if let Some(u) = n.as_u64() {
                    PyObj::Int(i128::from(u))
                } else {
                    PyObj::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => match marker_float(s) {
                Some(f) => PyObj::Float(f),
                None => PyObj::Str(s.clone()),
            },
            serde_json::Value::Array(a) => PyObj::List(a.iter().map(PyObj::from_json).collect()),
            serde_json::Value::Object(o) => PyObj::Dict(
                o.iter()
                    .map(|(k, v)| (PyObj::Str(k.clone()), PyObj::from_json(v)))
                    .collect(),
            ),
        }
    }

    pub fn from_raw(v: &RawValue) -> PyObj {
        match v {
            RawValue::Null => PyObj::None,
            RawValue::Bool(b) => PyObj::Bool(*b),
            RawValue::Int(i) => PyObj::Int(i128::from(*i)),
            RawValue::Float(f) => PyObj::Float(*f),
            RawValue::Str(s) => PyObj::Str(s.clone()),
        }
    }

    /// Python's `repr()` (which is also `str()` for dicts and lists).
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            PyObj::None => out.push_str("None"),
            PyObj::Bool(true) => out.push_str("True"),
            PyObj::Bool(false) => out.push_str("False"),
            PyObj::Int(i) => out.push_str(&i.to_string()),
            PyObj::Float(f) => out.push_str(&py_float_repr(*f)),
            PyObj::Str(s) => out.push_str(&py_str_repr(s)),
            PyObj::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_repr(out);
                }
                out.push(']');
            }
            PyObj::Dict(items) => {
                out.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }

    /// Python's `json.dumps(obj, indent=indent)` with the defaults `ensure_ascii=True`,
    /// `allow_nan=True` and separators `(',', ': ')` when indenting, `(', ', ': ')` otherwise.
    /// No trailing newline, as `json.dump` writes none.
    pub fn json_dump(&self, indent: Option<usize>) -> String {
        let mut out = String::new();
        self.write_json(&mut out, indent, 0);
        out
    }

    fn write_json(&self, out: &mut String, indent: Option<usize>, level: usize) {
        match self {
            PyObj::None => out.push_str("null"),
            PyObj::Bool(true) => out.push_str("true"),
            PyObj::Bool(false) => out.push_str("false"),
            PyObj::Int(i) => out.push_str(&i.to_string()),
            PyObj::Float(f) => out.push_str(&json_float(*f)),
            PyObj::Str(s) => json_str(out, s),
            PyObj::List(items) => {
                if items.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    json_item_sep(out, indent, level + 1, i == 0);
                    item.write_json(out, indent, level + 1);
                }
                json_close(out, indent, level);
                out.push(']');
            }
            PyObj::Dict(items) => {
                if items.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    json_item_sep(out, indent, level + 1, i == 0);
                    let key = match k {
                        PyObj::Str(s) => s.clone(),
                        PyObj::Int(i) => i.to_string(),
                        PyObj::Float(f) => json_float(*f),
                        PyObj::Bool(true) => "true".to_string(),
                        PyObj::Bool(false) => "false".to_string(),
                        PyObj::None => "null".to_string(),
                        // Python raises TypeError for these keys; never produced here.
                        other => other.repr(),
                    };
                    json_str(out, &key);
                    out.push_str(": ");
                    v.write_json(out, indent, level + 1);
                }
                json_close(out, indent, level);
                out.push('}');
            }
        }
    }
}

fn json_item_sep(out: &mut String, indent: Option<usize>, level: usize, first: bool) {
    match indent {
        Some(n) => {
            if !first {
                out.push(',');
            }
            out.push('\n');
            out.push_str(&" ".repeat(n * level));
        }
        None => {
            if !first {
                out.push_str(", ");
            }
        }
    }
}

fn json_close(out: &mut String, indent: Option<usize>, level: usize) {
    if let Some(n) = indent {
        out.push('\n');
        out.push_str(&" ".repeat(n * level));
    }
}

fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        py_float_repr(f)
    }
}

/// A JSON string as `json.dumps` writes it with `ensure_ascii=True`.
fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests;
