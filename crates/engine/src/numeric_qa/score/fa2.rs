//! financial-agent-2 compatibility scorers: calculate_accuracy and logic recall as that code computes them.
//!
//! A faithful reimplementation of `MetricsTracker.calculate_accuracy` (`_normalize_value`,
//! `_calculate_financial_match`, `_calculate_soft_match`) and `_calculate_logic_recall`
//! (`_parse_ground_truth_operations`) from varshav2801/financial-agent-2, `src/evaluation/tracker.py`
//! at commit 6737f6a, including every quirk (see `docs/fa2-compat.md`): the numerical match is
//! `|e - a| < 1e-5`, `"(3.2)"` is not a number, the soft match forgives the sign, `round()` is
//! Python's half-even on the binary value, and so on.

use crate::numeric_qa::finqa_program::Op as FinqaOp;
use crate::numeric_qa::model::RawValue;
use crate::numeric_qa::score::qa_scorer as flag;
use crate::pyrepr::{py_float_parse, py_round, py_strip};
use crate::scorer_table::Scorer;

pub const NUMERICAL: Scorer = flag(
    "numerical_match@financial-agent-2",
    "The financial-agent-2 system's numerical match: |e - a| < 1e-5 after its own number reading.",
    ["\"15.7\"", "15.686274509803921", "false"],
);
pub const FINANCIAL: Scorer = flag(
    "financial_match@financial-agent-2",
    "The financial-agent-2 system's financial match: within 1 %, or equal once one side is scaled by 100 or both are rounded.",
    ["\"0.157\"", "15.7", "true"],
);
pub const SOFT: Scorer = flag(
    "soft_match@financial-agent-2",
    "The financial-agent-2 system's soft match: within 1 %, or equal up to sign or a 100x scale, or within 5 % when one side alone has a percent mark.",
    ["\"-4\"", "4", "true"],
);

/// The three flags [`calculate_accuracy`] returns, in [`Fa2Verdict::flags`] order.
pub const SCORERS: [Scorer; 3] = [NUMERICAL, FINANCIAL, SOFT];

/// The tracker's `epsilon`.
const EPSILON: f64 = 1e-5;

/// The three flags `calculate_accuracy` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fa2Verdict {
    pub numerical: bool,
    pub financial: bool,
    pub soft_match: bool,
}

impl Fa2Verdict {
    /// The three flags, in [`SCORERS`] order.
    pub fn flags(&self) -> [bool; 3] {
        [self.numerical, self.financial, self.soft_match]
    }

    /// The verdict of the scorer with this id (`financial_match@financial-agent-2`); `None` for
    /// another id.
    pub fn flag(&self, id: &str) -> Option<bool> {
        let i = SCORERS.iter().position(|s| s.id == id)?;
        self.flags().get(i).copied()
    }
}

/// Python raised (`ValueError`/`TypeError` are caught by the original and give all-false flags;
/// `ZeroDivisionError` is not caught there, see [`calculate_accuracy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyRaised {
    ValueError,
    ZeroDivisionError,
}

/// The turn's flags as `finalize_turn` sets them: when the agent gave no answer (`actual` is
/// `None` or JSON null) the turn is not scored and keeps the model defaults (all false).
///
/// The original raises `ZeroDivisionError` for exactly one input shape (expected normalises to 0
/// and actual to NaN); the exception escapes the tracker, so no scored turn exists in that case.
/// Here it gives all-false flags, like an unparseable answer.
pub fn calculate_accuracy(expected: &RawValue, actual: Option<&RawValue>) -> Fa2Verdict {
    match actual {
        None | Some(RawValue::Null) => Fa2Verdict::default(),
        Some(actual) => calculate_accuracy_py(expected, actual).unwrap_or_default(),
    }
}

/// `calculate_accuracy(expected, actual)` called directly: `Err` where Python raises (a
/// `ValueError` is caught by the original and turned into all-false flags; a
/// `ZeroDivisionError` is not).
pub fn calculate_accuracy_py(
    expected: &RawValue,
    actual: &RawValue,
) -> Result<Fa2Verdict, PyRaised> {
    let (Some(e), Some(a)) = (normalize_value(expected), normalize_value(actual)) else {
        return Ok(Fa2Verdict::default());
    };
    let abs_diff = (e - a).abs();
    Ok(Fa2Verdict {
        numerical: abs_diff < EPSILON,
        financial: financial_match(e, a)?,
        soft_match: soft_match(e, a, expected, actual)?,
    })
}

/// `_normalize_value`: numbers (and bools) as floats; strings stripped, `,` and `$` removed, a `%`
/// anywhere means "remove every `%` and divide by 100"; then Python `float()`. `None` where
/// Python raises `ValueError` (e.g. `"(3.2)"`, `"yes"`, `""`, JSON null).
pub fn normalize_value(value: &RawValue) -> Option<f64> {
    match value {
        RawValue::Null => None,
        RawValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        RawValue::Int(i) => Some(*i as f64),
        RawValue::Float(f) => Some(*f),
        RawValue::Str(s) => {
            let stripped = py_strip(s);
            if let Some(v) = fast_decimal(stripped) {
                return Some(v);
            }
            let cleaned = stripped.replace([',', '$'], "");
            if cleaned.contains('%') {
                py_float_parse(&cleaned.replace('%', "")).map(|v| v / 100.0)
            } else {
                py_float_parse(&cleaned)
            }
        }
    }
}

/// Python's `float()` of a plain decimal literal (`[sign] digits [. digits] [e [sign] digits]`,
/// ASCII only), without allocating; `None` for anything else (the general path decides). For
/// this alphabet Rust's and Python's grammars are the same and both round correctly.
fn fast_decimal(s: &str) -> Option<f64> {
    if s.is_empty()
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    s.parse().ok()
}

/// Python's `a / b` for floats: `ZeroDivisionError` when `b == 0` (even if `a` is NaN).
fn py_div(a: f64, b: f64) -> Result<f64, PyRaised> {
    if b == 0.0 {
        Err(PyRaised::ZeroDivisionError)
    } else {
        Ok(a / b)
    }
}

/// Python's `max(a, b)`: the first argument unless the second compares greater (so NaN first
/// wins, NaN second loses).
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `round(x, n)` for `n >= 0`, which never overflows.
fn round_n(x: f64, n: i32) -> f64 {
    match fast_round(x, n) {
        Some(v) => v,
        None => py_round(x, n).unwrap_or(x),
    }
}

/// Exact powers of ten (every one of them is a float without rounding).
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// [`py_round`] for `0 <= n <= 15` without big integers or text, where it can be done exactly in
/// 128-bit arithmetic; `None` where the caller must take the general path. Same rounding:
/// `q = round_half_even(|x| * 10^n)` on the exact binary value of `x`, then `q / 10^n`, which
/// is correctly rounded because `q < 2^53` and `10^n` are both exact floats.
///
/// The 128-bit product is kept as two `u64` halves: `u128` arithmetic is a library call per
/// multiply and per shift in WebAssembly, where this runs once per turn and rounding.
fn fast_round(x: f64, n: i32) -> Option<f64> {
    let (mant, shift, pow10) = match round_input(x, n) {
        Ok(parts) => parts,
        Err(done) => return done,
    };
    // mant < 2^53 and 10^n < 2^50 (exact as u64): the product fits in 103 bits.
    let num = Wide::mul(mant, pow10 as u64);
    let q = if shift > 110 {
        // num < 2^103 < half of 2^shift: rounds to zero.
        0
    } else {
        // q = num >> shift, then half-even on the dropped bits: up when the highest dropped
        // bit is set and either a lower dropped bit is set (above half) or q is odd (a tie).
        let q = num.shr(shift)?;
        if num.bit(shift - 1) && (num.any_below(shift - 1) || q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    round_output(x, q, pow10)
}

/// What [`fast_round`] rounds: `|x| = mant / 2^shift` with `shift >= 1`, and `10^n`; `Err`
/// with the answer when there is nothing to round (`Some(x)`: zero, not finite, an integer) or
/// no fast path (`None`: `n` outside `0..=15`).
fn round_input(x: f64, n: i32) -> Result<(u64, u32, f64), Option<f64>> {
    let pow10 = *POW10
        .get(usize::try_from(n).map_err(|_| None)?)
        .ok_or(None)?;
    if !x.is_finite() || x == 0.0 {
        return Err(Some(x));
    }
    let (mant, exp2) = crate::pyrepr::decompose(x);
    if exp2 >= 0 {
        // An integer: rounding to n >= 0 digits gives it back.
        return Err(Some(x));
    }
    Ok((mant, exp2.unsigned_abs(), pow10))
}

/// `±q / 10^n` with the sign of `x`; `None` when `q > 2^53` (not exact as a float).
fn round_output(x: f64, q: u64, pow10: f64) -> Option<f64> {
    if q > (1u64 << 53) {
        return None;
    }
    let value = q as f64 / pow10;
    Some(if x < 0.0 { -value } else { value })
}

/// An unsigned 128-bit number as its high and low 64-bit halves.
#[derive(Clone, Copy)]
struct Wide {
    hi: u64,
    lo: u64,
}

impl Wide {
    /// The full product of two `u64`s, from four 32 × 32-bit products.
    fn mul(a: u64, b: u64) -> Wide {
        const LOW: u64 = 0xffff_ffff;
        let (a1, a0) = (a >> 32, a & LOW);
        let (b1, b0) = (b >> 32, b & LOW);
        let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
        // Each term < 2^32: no overflow.
        let mid = (p00 >> 32) + (p01 & LOW) + (p10 & LOW);
        Wide {
            hi: p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32),
            lo: (mid << 32) | (p00 & LOW),
        }
    }

    /// `self >> s` for `1 <= s < 128`, `None` when it does not fit in a `u64`.
    fn shr(self, s: u32) -> Option<u64> {
        if s >= 64 {
            Some(self.hi >> (s - 64))
        } else if self.hi >> s != 0 {
            None
        } else {
            Some((self.hi << (64 - s)) | (self.lo >> s))
        }
    }

    /// Bit `k` (`k < 128`).
    fn bit(self, k: u32) -> bool {
        if k >= 64 {
            (self.hi >> (k - 64)) & 1 == 1
        } else {
            (self.lo >> k) & 1 == 1
        }
    }

    /// Whether any of bits `0..k` is set (`k < 128`).
    fn any_below(self, k: u32) -> bool {
        if k <= 64 {
            k > 0 && self.lo << (64 - k) != 0
        } else {
            self.lo != 0 || self.hi << (128 - k) != 0
        }
    }
}

/// `_calculate_financial_match`, rule by rule.
fn financial_match(e: f64, a: f64) -> Result<bool, PyRaised> {
    let abs_diff = (e - a).abs();
    if abs_diff < EPSILON {
        return Ok(true);
    }
    // 1% relative error.
    if e != 0.0 {
        if py_div(abs_diff, e.abs())? <= 0.01 {
            return Ok(true);
        }
    } else if abs_diff < EPSILON {
        return Ok(true);
    }
    // Expected as a decimal, actual as a percentage.
    if e != 0.0 {
        let scaled_e = e * 100.0;
        if py_div((scaled_e - a).abs(), py_max(scaled_e.abs(), a.abs()))? <= 0.01 {
            return Ok(true);
        }
        if (round_n(scaled_e, 0) - round_n(a, 0)).abs() < EPSILON {
            return Ok(true);
        }
        if (round_n(scaled_e, 1) - round_n(a, 1)).abs() < EPSILON {
            return Ok(true);
        }
    }
    // Actual as a decimal, expected as a percentage.
    if a != 0.0 {
        let scaled_a = a * 100.0;
        if py_div((e - scaled_a).abs(), py_max(e.abs(), scaled_a.abs()))? <= 0.01 {
            return Ok(true);
        }
        if (round_n(e, 0) - round_n(scaled_a, 0)).abs() < EPSILON {
            return Ok(true);
        }
        if (round_n(e, 1) - round_n(scaled_a, 1)).abs() < EPSILON {
            return Ok(true);
        }
    }
    // Same scale, rounded to 0, 1, 2 decimals.
    for n in 0..=2 {
        if (round_n(e, n) - round_n(a, n)).abs() < EPSILON {
            return Ok(true);
        }
    }
    // 0.5% relative (already covered by the 1% rule above; kept for fidelity).
    if e != 0.0 && py_div(abs_diff, e.abs())? <= 0.005 {
        return Ok(true);
    }
    Ok(false)
}

/// `_calculate_soft_match`, rule by rule.
fn soft_match(
    e: f64,
    a: f64,
    expected_raw: &RawValue,
    actual_raw: &RawValue,
) -> Result<bool, PyRaised> {
    let abs_diff = (e - a).abs();
    if abs_diff < EPSILON {
        return Ok(true);
    }
    if e != 0.0 {
        if py_div(abs_diff, e.abs())? <= 0.01 {
            return Ok(true);
        }
    } else if abs_diff < EPSILON {
        return Ok(true);
    }
    // Sign forgiven.
    if (e.abs() - a.abs()).abs() < EPSILON {
        return Ok(true);
    }
    // Scaled by 100 (absolute tolerance 0.1).
    if (e * 100.0 - a).abs() < 0.1 || (e - a * 100.0).abs() < 0.1 {
        return Ok(true);
    }
    // Scaled by 0.01 (absolute tolerance epsilon).
    if (e * 0.01 - a).abs() < EPSILON || (e - a * 0.01).abs() < EPSILON {
        return Ok(true);
    }
    // Exactly one side was written with a `%`: 5% relative.
    if has_percent(expected_raw) != has_percent(actual_raw)
        && e != 0.0
        && py_div(abs_diff, e.abs())? <= 0.05
    {
        return Ok(true);
    }
    Ok(false)
}

/// `"%" in str(value)`: only strings can hold a `%`.
fn has_percent(v: &RawValue) -> bool {
    matches!(v, RawValue::Str(s) if s.contains('%'))
}

/// The operation patterns the tracker counts, in its order.
const GT_OPERATIONS: [&str; 5] = [
    FinqaOp::Add.name(),
    FinqaOp::Subtract.name(),
    FinqaOp::Divide.name(),
    FinqaOp::Multiply.name(),
    FinqaOp::Exp.name(),
];

/// `_parse_ground_truth_operations`: for each of add, subtract, divide, multiply, exp (in that
/// order, not program order) as many copies as `"{op}("` occurs in the program text. Other FinQA
/// operations (`greater`, `table_*`) are not counted.
pub fn parse_ground_truth_operations(program: &str) -> Vec<&'static str> {
    let mut ops = Vec::new();
    for op in GT_OPERATIONS {
        let count = program.matches(&format!("{op}(")).count();
        ops.extend(std::iter::repeat_n(op, count));
    }
    ops
}

/// `_calculate_logic_recall(plan, ground_truth_program)`.
///
/// `program`: the turn's ground-truth program (`None`: no ground truth, so the tracker never
/// computes recall → `None`). `plan_compute_ops`: the `operation` of every compute step of the
/// plan (`None`: no plan object → `None`). Otherwise, as the original function returns:
/// an empty program gives 0.0; a program with none of the five operations gives 1.0 when the plan
/// has no (non-empty) compute operation and 0.0 otherwise; else the number of plan operations
/// matched one-for-one (multiset) against the program's operations, over the program's count.
///
/// Note that the tracker's `log_plan` only calls this when the program is non-empty; see
/// `aggregate::fa2::score_turn`.
pub fn logic_recall(program: Option<&str>, plan_compute_ops: Option<&[&str]>) -> Option<f64> {
    let program = program?;
    let plan_ops: Vec<&str> = plan_compute_ops?
        .iter()
        .copied()
        .filter(|op| !op.is_empty())
        .collect();
    if program.is_empty() {
        return Some(0.0);
    }
    let gt_ops = parse_ground_truth_operations(program);
    if gt_ops.is_empty() {
        return Some(if plan_ops.is_empty() { 1.0 } else { 0.0 });
    }
    let mut remaining = gt_ops.clone();
    let mut shared = 0u32;
    for op in plan_ops {
        if let Some(pos) = remaining.iter().position(|g| *g == op) {
            shared += 1;
            remaining.remove(pos);
        }
    }
    Some(f64::from(shared) / gt_ops.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> RawValue {
        RawValue::Str(x.to_string())
    }
    fn f(x: f64) -> RawValue {
        RawValue::Float(x)
    }

    /// `(numerical, financial, soft)` for an expected/actual pair.
    fn check(expected: RawValue, actual: Option<RawValue>, want: (bool, bool, bool)) {
        let v = calculate_accuracy(&expected, actual.as_ref());
        assert_eq!(
            (v.numerical, v.financial, v.soft_match),
            want,
            "calculate_accuracy({expected:?}, {actual:?})"
        );
    }

    #[test]
    fn fast_decimal_is_py_float() {
        for t in [
            "1",
            "-1",
            "+1",
            "1.5",
            ".5",
            "5.",
            "1e5",
            "1E-5",
            "1e+5",
            "-.5e3",
            "",
            ".",
            "e5",
            "1e",
            "--1",
            "+-1",
            "1.2.3",
            "1e5e5",
            "00012",
            "1-",
            "-",
            "+",
            "9007199254740993",
            "1e400",
            "-1e400",
            "1e-400",
            "12345678901234567890123",
            "0.1",
            "-0",
            "1..2",
            ".e1",
        ] {
            let want = py_float_parse(t).map(f64::to_bits);
            match fast_decimal(t) {
                Some(got) => assert_eq!(Some(got.to_bits()), want, "{t:?}"),
                None => assert!(t.parse::<f64>().is_err() || t.is_empty(), "{t:?}"),
            }
            assert_eq!(
                normalize_value(&s(t)).map(f64::to_bits),
                py_float_parse(t).map(f64::to_bits),
                "{t:?}"
            );
        }
    }

    /// `4 * count` doubles: random bit patterns (every exponent, subnormals, NaNs) and random
    /// decimals at `scales`, the scales answers have. Deterministic.
    fn random_doubles(count: usize, scales: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(4 * count);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..count {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.push(f64::from_bits(state));
            let scale = scales[(state >> 61) as usize % scales.len()];
            out.push(((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale);
            out.push((state >> 40) as f64 / 1000.0 + 0.0005);
            out.push((state >> 44) as f64 / 100.0 - 50.0);
        }
        out
    }

    #[test]
    fn fast_round_is_py_round() {
        let mut cases = vec![
            0.5,
            1.5,
            2.5,
            -0.5,
            -2.5,
            0.125,
            0.25,
            0.375,
            1.005,
            2.675,
            0.045,
            60.94,
            -25.14,
            1e-300,
            5e-324,
            -5e-324,
            0.0,
            -0.0,
            1e15,
            4503599627370495.5,
            9007199254740993.0,
            1e22,
            1.7976931348623157e308,
            123456.789,
            0.0049999999,
            99.995,
            -99.995,
        ];
        cases.extend(random_doubles(20_000, &[1.0, 100.0, 1e6, 1e12]));
        for x in cases {
            for n in 0..=15 {
                let want = py_round(x, n);
                match fast_round(x, n) {
                    Some(got) => assert_eq!(
                        Some(got.to_bits()),
                        want.map(f64::to_bits),
                        "round({x:?}, {n})"
                    ),
                    None => assert!(want.is_some(), "round({x:?}, {n})"),
                }
            }
        }
        assert_eq!(fast_round(1.0, 16), None);
        assert_eq!(fast_round(1.0, -1), None);
        assert!(fast_round(f64::NAN, 1).is_some_and(f64::is_nan));
    }

    /// The previous `fast_round`, in `u128` arithmetic: the oracle for the two-halves version.
    fn fast_round_u128(x: f64, n: i32) -> Option<f64> {
        let (mant, shift, pow10) = match round_input(x, n) {
            Ok(parts) => parts,
            Err(done) => return done,
        };
        let num = u128::from(mant) * 10u128.pow(n as u32);
        let q = if shift > 110 {
            0
        } else {
            let q = num >> shift;
            let rem = num & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            if rem > half || (rem == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        };
        round_output(x, u64::try_from(q).unwrap_or(u64::MAX), pow10)
    }

    fn next_up(x: f64) -> f64 {
        f64::from_bits(x.to_bits() + 1)
    }
    fn next_down(x: f64) -> f64 {
        f64::from_bits(x.to_bits() - 1)
    }

    #[test]
    fn wide_product_and_shifts_are_u128() {
        let mut state = 0x243F_6A88_85A3_08D3u64;
        let mut vals = vec![
            0,
            1,
            2,
            u64::MAX,
            u64::MAX - 1,
            1 << 32,
            (1 << 32) - 1,
            1 << 63,
        ];
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            vals.push(state);
            vals.push(state >> (state % 64));
        }
        for (i, &a) in vals.iter().enumerate() {
            let b = vals[(i * 7 + 3) % vals.len()];
            let w = Wide::mul(a, b);
            let want = u128::from(a) * u128::from(b);
            assert_eq!(
                (u128::from(w.hi) << 64) | u128::from(w.lo),
                want,
                "{a} * {b}"
            );
            for k in 0..128 {
                assert_eq!(w.bit(k), (want >> k) & 1 == 1, "bit {k} of {want}");
                assert_eq!(
                    w.any_below(k),
                    want & ((1u128 << k) - 1) != 0,
                    "below {k} of {want}"
                );
                if k >= 1 {
                    let q = want >> k;
                    assert_eq!(w.shr(k), u64::try_from(q).ok(), "{want} >> {k}");
                }
            }
        }
    }

    #[test]
    fn fast_round_is_the_u128_version_bit_for_bit() {
        let mut cases = vec![
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            1.0,
            0.5,
            2.675,
            1.005,
            -99.995,
        ];
        // Ties and their neighbours: odd / 2^j is a tie for n = j - 1 digits.
        for j in 1..=64 {
            for odd in [
                1u64,
                3,
                5,
                7,
                25,
                99,
                1001,
                65_535,
                1 << 20 | 1,
                (1 << 40) + 1,
            ] {
                let x = odd as f64 / 2f64.powi(j);
                cases.extend([x, -x, next_up(x), next_down(x), -next_up(x)]);
            }
        }
        // Where q = round(|x| * 10^n) crosses 2^53 (the fast path's limit).
        for pow10 in POW10 {
            let x = 2f64.powi(53) / pow10;
            let mut y = x;
            for _ in 0..8 {
                cases.extend([y, -y]);
                y = next_up(y);
            }
            y = x;
            for _ in 0..8 {
                y = next_down(y);
                cases.extend([y, -y]);
            }
        }
        cases.extend(random_doubles(
            30_000,
            &[1.0, 100.0, 1e6, 1e15, 1e-6, 1e-12],
        ));
        for x in cases {
            for n in -5..=20 {
                let (got, want) = (fast_round(x, n), fast_round_u128(x, n));
                assert_eq!(
                    got.map(f64::to_bits),
                    want.map(f64::to_bits),
                    "round({x:?}, {n})"
                );
                if n >= 0 {
                    let want = want.unwrap_or_else(|| py_round(x, n).unwrap_or(x));
                    assert_eq!(
                        round_n(x, n).to_bits(),
                        want.to_bits(),
                        "round_n({x:?}, {n})"
                    );
                }
            }
        }
    }

    #[test]
    fn exact_and_epsilon() {
        check(s("60.94"), Some(f(60.94)), (true, true, true));
        check(s("25.14"), Some(s("25.14")), (true, true, true));
        check(s("0"), Some(f(1e-6)), (true, true, true));
        check(s("0"), Some(f(1e-5)), (false, true, true)); // |d| < 1e-5 is strict; round(.,0) saves financial
        check(s(" 42 "), Some(RawValue::Int(42)), (true, true, true));
        check(s("1e3"), Some(RawValue::Int(1000)), (true, true, true));
        check(RawValue::Bool(true), Some(f(1.0)), (true, true, true));
    }

    #[test]
    fn formatting_is_removed() {
        check(s("$1,234"), Some(RawValue::Int(1234)), (true, true, true));
        check(s("5"), Some(s("$5")), (true, true, true));
        check(s("$-5"), Some(RawValue::Int(-5)), (true, true, true));
        check(s("-$5"), Some(RawValue::Int(-5)), (true, true, true));
        check(s("1,234"), Some(f(1234.5)), (false, true, true));
        check(s("1_000"), Some(RawValue::Int(1000)), (true, true, true)); // Python float() accepts _
    }

    #[test]
    fn percent_answers() {
        check(s("142.4%"), Some(f(1.42403)), (false, true, true));
        check(s("142.4%"), Some(f(142.403)), (false, true, true));
        check(s("-21.1%"), Some(f(-21.05)), (false, true, true));
        check(s("-21.1%"), Some(s("-21.1%")), (true, true, true));
        check(s("12.5%"), Some(s("12.5")), (false, true, true));
        check(s("1.11%"), Some(f(1.11111)), (false, true, true));
        check(s("10%"), Some(f(-0.09709)), (false, true, false));
        check(s("12%%"), Some(f(0.12)), (true, true, true)); // every % is removed
        check(s("%"), Some(f(0.0)), (false, false, false));
    }

    #[test]
    fn not_numbers_score_false() {
        check(s("(3.2)"), Some(f(-3.2)), (false, false, false));
        check(s("yes"), Some(f(1.0)), (false, false, false));
        check(s("yes"), Some(s("yes")), (false, false, false));
        check(s(""), Some(f(0.0)), (false, false, false));
        check(RawValue::Null, Some(f(0.0)), (false, false, false));
        check(s("60.94"), Some(s("n/a")), (false, false, false));
    }

    #[test]
    fn no_answer_is_not_scored() {
        check(f(60.94), None, (false, false, false));
        check(s("0"), Some(RawValue::Null), (false, false, false));
    }

    #[test]
    fn rounding_tolerances() {
        check(s("15.7"), Some(f(15.686274509803921)), (false, true, true));
        check(s("0.1"), Some(f(0.4)), (false, true, false)); // round(., 0): 0 == 0
        check(s("2.5"), Some(f(2.45)), (false, true, false));
        check(s("0.125"), Some(f(0.13)), (false, true, false));
        check(s("1.0751"), Some(f(1.07513)), (false, true, true));
        check(s("7.0"), Some(f(6.95522)), (false, true, true));
        check(s("10"), Some(f(10.6)), (false, false, false)); // rounds to 11
        check(s("1000"), Some(f(1010.1)), (false, false, false));
    }

    #[test]
    fn sign_and_scale_forgiveness() {
        check(s("-4"), Some(f(4.0)), (false, false, true));
        check(s("1"), Some(f(-1.0)), (false, false, true));
        check(s("1000"), Some(f(100000.0)), (false, true, true));
        check(s("0.05"), Some(f(5.2)), (false, true, false));
        check(s("0"), Some(f(100.0)), (false, false, false));
        check(s("0.0156"), Some(f(0.01434)), (false, true, false));
    }

    #[test]
    fn non_finite() {
        check(s("nan"), Some(s("nan")), (false, false, false));
        check(s("inf"), Some(f(f64::INFINITY)), (false, false, false)); // inf - inf is nan
                                                                        // Python raises ZeroDivisionError here (expected 0, actual NaN): not scored.
        check(s("0"), Some(f(f64::NAN)), (false, false, false));
        assert_eq!(
            calculate_accuracy_py(&s("0"), &f(f64::NAN)),
            Err(PyRaised::ZeroDivisionError)
        );
    }

    /// Every example quoted in docs/fa2-compat.md (values from the original functions).
    #[test]
    fn documented_examples() {
        let i = RawValue::Int;
        check(s("1,2,3"), Some(i(123)), (true, true, true));
        check(s("\u{661}\u{662}"), Some(i(12)), (true, true, true));
        check(s("12 %"), Some(f(0.12)), (true, true, true));
        check(s("1000000"), Some(f(1000000.1)), (false, true, true));
        check(s("0.5"), Some(f(0.5049)), (false, true, true));
        check(s("0.1234"), Some(f(12.3)), (false, true, true));
        check(s("1"), Some(f(101.0)), (false, true, false));
        check(s("1000"), Some(f(10.0)), (false, true, true));
        check(s("10"), Some(f(10.4)), (false, true, false));
        check(s("-0.5"), Some(s("0.5")), (false, true, true));
        check(s("7"), Some(f(-7.04)), (false, false, false));
        check(s("0.12"), Some(f(12.34)), (false, true, false));
        check(s("3"), Some(f(0.0300001)), (false, true, true));
        check(s("100%"), Some(f(1.04)), (false, true, true));
        check(s("100%"), Some(f(1.06)), (false, true, false));
    }

    fn check_lr(program: Option<&str>, ops: Option<&[&str]>, want: Option<f64>) {
        assert_eq!(logic_recall(program, ops), want, "{program:?} {ops:?}");
    }

    #[test]
    fn logic_recall_rules() {
        let p = "subtract(8181, 20454), divide(#0, 20454)";
        check_lr(Some(p), Some(&["subtract", "divide"]), Some(1.0));
        check_lr(Some(p), Some(&["divide"]), Some(0.5));
        check_lr(Some(p), Some(&["percentage_change"]), Some(0.0));
        check_lr(
            Some(p),
            Some(&["subtract", "subtract", "divide"]),
            Some(1.0),
        );
        check_lr(Some("add(1, 2), add(#0, 3)"), Some(&["add"]), Some(0.5));
        check_lr(Some("4241"), Some(&[]), Some(1.0));
        check_lr(Some("4241"), Some(&[""]), Some(1.0)); // empty operations are skipped
        check_lr(Some("4241"), Some(&["add"]), Some(0.0));
        check_lr(Some("greater(5, 3)"), Some(&[]), Some(1.0));
        check_lr(Some("exp(1.05, const_2)"), Some(&["multiply"]), Some(0.0));
        check_lr(Some(""), Some(&["add"]), Some(0.0));
        check_lr(Some(""), Some(&[]), Some(0.0));
        check_lr(None, Some(&["add"]), None);
        check_lr(Some(p), None, None);
    }

    #[test]
    fn ground_truth_operations() {
        assert_eq!(
            parse_ground_truth_operations("divide(1, 2), subtract(3, 4), add(#0, #1)"),
            vec!["add", "subtract", "divide"]
        );
        assert_eq!(parse_ground_truth_operations("madd(1, 2)"), vec!["add"]);
        assert_eq!(
            parse_ground_truth_operations("ADD(1, 2)"),
            Vec::<&str>::new()
        );
        assert_eq!(
            parse_ground_truth_operations("add (1, 2)"),
            Vec::<&str>::new()
        );
        assert_eq!(
            parse_ground_truth_operations("exp(2, 3), exp(#0, 2)"),
            vec!["exp", "exp"]
        );
    }
}
