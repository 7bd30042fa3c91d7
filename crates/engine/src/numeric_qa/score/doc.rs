//! doc-v1 answer scorers: exact, numerical, soft, unit-agnostic, sign-agnostic, general match.
//!
//! One call, [`score_answer`], gives all six verdicts for a turn. Let `v(x)` be an answer's value
//! with its percent mark applied (see [`crate::numeric_qa::answer`]) and `d = |v(e) − v(a)|` for expected `e`
//! and actual (predicted) `a`; `within(x, t)` means `|t − x| ≤ rel·|t|` or `|t − x| < abs`:
//!
//! | scorer | rule |
//! |---|---|
//! | `exact_match` | `within(v(a), v(e))` and `d ≤ exact_rel·max(1, \|v(e)\|)` |
//! | `numerical_match` | `within(v(a), v(e))` |
//! | `soft_match` | `d ≤ rel·\|v(e)\|` |
//! | `unit_agnostic_match` | `within(v(a), t)` for `t` in `v(e)`, `100·v(e)`, `v(e)/100` |
//! | `sign_agnostic_match` | `within(\|v(a)\|, \|v(e)\|)` |
//! | `general_match` | `within(x, t)` where each side is its value or, if it has a percent mark, its raw number |
//!
//! Text answers (`yes`/`no`) match on case-insensitive trimmed equality (all six flags equal).
//! A comparison that cannot be made (missing or unparseable answer, number vs text) gives six
//! `false` flags and a `reason`. The full rules, with a worked example table, are in
//! docs/scoring.md.

use serde::{Deserialize, Serialize};

use crate::numeric_qa::answer::{parse_answer_ref, text_eq, MissReason, Number, ParsedRef};
use crate::numeric_qa::model::RawValue;
use crate::numeric_qa::score::{logic, qa_scorer as answer};
use crate::scorer_table::Scorer;

/// The profile's base version label.
pub const VERSION: &str = "doc-v1";

pub const EXACT: Scorer = answer(
    "exact_match@doc-v1",
    "Equal up to float noise: |e - a| <= exact_rel * max(1, |e|), percent marks applied.",
    ["\"15.7\"", "15.686274509803921", "false"],
);
pub const NUMERICAL: Scorer = answer(
    "numerical_match@doc-v1",
    "Within tolerance: |e - a| <= rel * |e| or |e - a| < abs, percent marks applied.",
    ["\"15.7\"", "15.686274509803921", "true"],
);
pub const SOFT: Scorer = answer(
    "soft_match@doc-v1",
    "Within relative tolerance only: |e - a| <= rel * |e| (no absolute floor near zero).",
    ["\"0\"", "0.0001", "false"],
);
pub const UNIT_AGNOSTIC: Scorer = answer(
    "unit_agnostic_match@doc-v1",
    "Numerical match against e, 100 * e or e / 100: forgives percent-vs-fraction scaling.",
    ["\"0.1\"", "10", "true"],
);
pub const SIGN_AGNOSTIC: Scorer = answer(
    "sign_agnostic_match@doc-v1",
    "Numerical match of |a| against |e|: right magnitude, sign ignored.",
    ["\"-4\"", "4", "true"],
);
pub const GENERAL: Scorer = answer(
    "general_match@doc-v1",
    "Numerical match where a percent mark on either side may be honoured or ignored.",
    ["\"10%\"", "10", "true"],
);

/// The six answer scorers, in [`AnswerVerdict::flags`] order. Their version is
/// [`DocTolerances::version_label`] ([`VERSION`] under the default tolerances); the reasoning
/// scorers ([`logic::SCORERS`]) are always [`VERSION`].
pub const ANSWER_SCORERS: [Scorer; 6] = [
    EXACT,
    NUMERICAL,
    SOFT,
    UNIT_AGNOSTIC,
    SIGN_AGNOSTIC,
    GENERAL,
];

/// The full id (`name@version`) of a doc-v1 scorer under these tolerances; `None` for a name that
/// is not an answer scorer's or a reasoning scorer's.
pub fn scorer_id(name: &str, tol: &DocTolerances) -> Option<String> {
    if ANSWER_SCORERS.iter().any(|s| s.name() == name) {
        return Some(format!("{name}@{}", tol.version_label()));
    }
    logic::SCORERS
        .iter()
        .find(|s| s.name() == name)
        .map(|s| s.id.to_string())
}

/// Tolerances of the answer scorers. Non-default values change the version label, so scores
/// made under different tolerances are never mixed up.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DocTolerances {
    /// Relative tolerance of numerical, soft, unit-agnostic, sign-agnostic and general match.
    pub rel: f64,
    /// Absolute tolerance (strict `<`) of numerical match and the matches built on it.
    pub abs: f64,
    /// Relative tolerance of exact match, against `max(1, |e|)`.
    pub exact_rel: f64,
}

impl DocTolerances {
    pub const DEFAULT: DocTolerances = DocTolerances {
        rel: 0.01,
        abs: 0.001,
        exact_rel: 1e-9,
    };

    /// `doc-v1` for the defaults; otherwise `doc-v1` followed by `+rel{x}`, `+abs{x}`,
    /// `+exact{x}` for each non-default tolerance, in that order, e.g. `doc-v1+rel0.02+exact1e-6`.
    /// `{x}` is the shortest decimal that reads back to the same f64: plain notation when
    /// `1e-4 <= |x| < 1e15`, else exponent notation (`1e-6`).
    pub fn version_label(&self) -> String {
        let mut label = String::from(VERSION);
        for (key, value, default) in self.parts() {
            if value.to_bits() != default.to_bits() {
                label.push('+');
                label.push_str(key);
                label.push_str(&format_tolerance(value));
            }
        }
        label
    }

    /// Reads a label written by [`DocTolerances::version_label`]; `None` unless the label is
    /// exactly the canonical label of the tolerances it names.
    pub fn from_version_label(label: &str) -> Option<DocTolerances> {
        let rest = label.strip_prefix(VERSION)?;
        let mut tol = DocTolerances::DEFAULT;
        for part in rest.split('+').skip(1) {
            let (slot, value) = if let Some(v) = part.strip_prefix("rel") {
                (&mut tol.rel, v)
            } else if let Some(v) = part.strip_prefix("abs") {
                (&mut tol.abs, v)
            } else if let Some(v) = part.strip_prefix("exact") {
                (&mut tol.exact_rel, v)
            } else {
                return None;
            };
            *slot = value.parse().ok()?;
        }
        (tol.version_label() == label).then_some(tol)
    }

    /// Checks that every tolerance is finite and not negative.
    pub fn validate(&self) -> Result<(), ToleranceError> {
        for (key, value, _) in self.parts() {
            if !value.is_finite() || value < 0.0 {
                return Err(ToleranceError {
                    name: key,
                    value: format_tolerance(value),
                });
            }
        }
        Ok(())
    }

    fn parts(&self) -> [(&'static str, f64, f64); 3] {
        let d = DocTolerances::DEFAULT;
        [
            ("rel", self.rel, d.rel),
            ("abs", self.abs, d.abs),
            ("exact", self.exact_rel, d.exact_rel),
        ]
    }
}

impl Default for DocTolerances {
    fn default() -> Self {
        DocTolerances::DEFAULT
    }
}

/// A tolerance that is negative, NaN or infinite.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("doc-v1 tolerance `{name}` must be a finite number >= 0, got {value}")]
pub struct ToleranceError {
    /// `rel`, `abs` or `exact`.
    pub name: &'static str,
    pub value: String,
}

fn format_tolerance(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-4..1e15).contains(&a) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// The six answer verdicts of one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerVerdict {
    pub exact_match: bool,
    pub numerical_match: bool,
    pub soft_match: bool,
    pub unit_agnostic_match: bool,
    pub sign_agnostic_match: bool,
    pub general_match: bool,
    /// Why nothing could be compared (every flag is then false): missing prediction, missing or
    /// unparseable answer on either side, number vs text. `None` when a comparison was made.
    pub reason: Option<String>,
}

impl AnswerVerdict {
    /// The six flags, in [`ANSWER_SCORERS`] order.
    pub fn flags(&self) -> [bool; 6] {
        [
            self.exact_match,
            self.numerical_match,
            self.soft_match,
            self.unit_agnostic_match,
            self.sign_agnostic_match,
            self.general_match,
        ]
    }

    /// The verdict of an answer scorer by name (`"soft_match"`); `None` for other names.
    pub fn flag(&self, name: &str) -> Option<bool> {
        let i = ANSWER_SCORERS.iter().position(|s| s.name() == name)?;
        self.flags().get(i).copied()
    }

    fn all(b: bool) -> AnswerVerdict {
        AnswerVerdict {
            exact_match: b,
            numerical_match: b,
            soft_match: b,
            unit_agnostic_match: b,
            sign_agnostic_match: b,
            general_match: b,
            reason: None,
        }
    }

    fn not_comparable(reason: String) -> AnswerVerdict {
        AnswerVerdict {
            reason: Some(reason),
            ..AnswerVerdict::all(false)
        }
    }
}

/// Scores one answer. `predicted` is `None` when the agent produced no answer. Allocates only
/// when it must explain why nothing could be compared.
pub fn score_answer(
    expected: &RawValue,
    predicted: Option<&RawValue>,
    tol: &DocTolerances,
) -> AnswerVerdict {
    let e = parse_answer_ref(expected);
    if let ParsedRef::Missing(r) = e {
        return AnswerVerdict::not_comparable(missing_reason("expected answer", expected, r));
    }
    let Some(predicted) = predicted else {
        return AnswerVerdict::not_comparable("no prediction".to_string());
    };
    let a = parse_answer_ref(predicted);
    match (e, a) {
        (_, ParsedRef::Missing(r)) => {
            AnswerVerdict::not_comparable(missing_reason("prediction", predicted, r))
        }
        (ParsedRef::Number(e), ParsedRef::Number(a)) => score_numbers(e, a, tol),
        (ParsedRef::Text(e), ParsedRef::Text(a)) => AnswerVerdict::all(text_eq(e, a)),
        (ParsedRef::Number(_), ParsedRef::Text(_)) => AnswerVerdict::not_comparable(format!(
            "expected a number ({}), prediction {} is text",
            shown(expected),
            shown(predicted)
        )),
        (ParsedRef::Text(_), ParsedRef::Number(_)) => AnswerVerdict::not_comparable(format!(
            "expected text {}, prediction {} is a number",
            shown(expected),
            shown(predicted)
        )),
        // Unreachable: a missing expected answer returned above.
        (ParsedRef::Missing(r), _) => {
            AnswerVerdict::not_comparable(missing_reason("expected answer", expected, r))
        }
    }
}

/// Scores two parsed numbers (the allocation-free core of [`score_answer`]).
pub fn score_numbers(e: Number, a: Number, tol: &DocTolerances) -> AnswerVerdict {
    let (ev, av) = (e.value, a.value);
    let numerical = within(av, ev, tol);
    let d = (ev - av).abs();
    let exact = numerical && d <= tol.exact_rel * ev.abs().max(1.0);
    let soft = d.is_finite() && d <= tol.rel * ev.abs();
    // "soft or numerical" at each scale reduces to numerical, since soft implies numerical.
    let unit_agnostic = numerical || within(av, ev * 100.0, tol) || within(av, ev / 100.0, tol);
    let sign_agnostic = within(av.abs(), ev.abs(), tol);
    let general = readings(e)
        .into_iter()
        .flatten()
        .any(|t| readings(a).into_iter().flatten().any(|x| within(x, t, tol)));
    AnswerVerdict {
        exact_match: exact,
        numerical_match: numerical,
        soft_match: soft,
        unit_agnostic_match: unit_agnostic,
        sign_agnostic_match: sign_agnostic,
        general_match: general,
        reason: None,
    }
}

/// `|t − x| ≤ rel·|t|` or `|t − x| < abs`; never true for an infinite difference (overflow).
#[inline]
fn within(x: f64, t: f64, tol: &DocTolerances) -> bool {
    let d = (t - x).abs();
    d.is_finite() && (d <= tol.rel * t.abs() || d < tol.abs)
}

/// The readings general match may use: the value, and the raw number when a percent mark can be
/// ignored.
#[inline]
fn readings(n: Number) -> [Option<f64>; 2] {
    [Some(n.value), n.percent.then_some(n.raw)]
}

fn missing_reason(side: &str, v: &RawValue, r: MissReason) -> String {
    match v {
        RawValue::Str(_) => format!("{side} {} is {r}", shown(v)),
        _ => format!("{side} is {r}"),
    }
}

/// Answer text as a reason quotes it: cut to 40 characters, quoted and escaped.
pub(crate) fn quoted(s: &str) -> String {
    format!("{:?}", crate::diag::shortened(s, 40))
}

/// An answer as shown in a reason: strings quoted and cut to 40 characters.
fn shown(v: &RawValue) -> String {
    match v {
        RawValue::Str(s) => quoted(s),
        RawValue::Null => "null".to_string(),
        other => other.display(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(s: &str) -> RawValue {
        // Tests write JSON numbers as `#1.5`, JSON null as `null`, bools as `true`/`false`;
        // everything else is a JSON string.
        if let Some(n) = s.strip_prefix('#') {
            if let Ok(i) = n.parse::<i64>() {
                return RawValue::Int(i);
            }
            return RawValue::Float(n.parse().unwrap_or(f64::NAN));
        }
        match s {
            "null" => RawValue::Null,
            "true" => RawValue::Bool(true),
            "false" => RawValue::Bool(false),
            _ => RawValue::Str(s.to_string()),
        }
    }

    /// `flags` is six characters, one per scorer in [`ANSWER_SCORERS`] order (exact, numerical,
    /// soft, unit-agnostic, sign-agnostic, general): `1` true, `0` false.
    fn check(expected: &str, predicted: &str, flags: &str) {
        let v = score_answer(
            &val(expected),
            Some(&val(predicted)),
            &DocTolerances::default(),
        );
        let got: String = ANSWER_SCORERS
            .iter()
            .map(|s| {
                if v.flag(s.name()) == Some(true) {
                    '1'
                } else {
                    '0'
                }
            })
            .collect();
        assert_eq!(
            got, flags,
            "expected {expected:?} predicted {predicted:?}: {v:?}"
        );
        if v.reason.is_some() {
            assert_eq!(got, "000000", "a reason implies all flags false");
        }
    }

    /// Like [`check`] for a comparison that cannot be made: asserts the reason mentions `why`.
    fn check_reason(expected: &str, predicted: Option<&str>, why: &str) {
        let p = predicted.map(val);
        let v = score_answer(&val(expected), p.as_ref(), &DocTolerances::default());
        assert_eq!(
            (v.exact_match, v.numerical_match, v.soft_match),
            (false, false, false)
        );
        assert!(!v.unit_agnostic_match && !v.sign_agnostic_match && !v.general_match);
        let reason = v.reason.unwrap_or_default();
        assert!(
            reason.contains(why),
            "{expected:?} vs {predicted:?}: reason {reason:?} lacks {why:?}"
        );
    }

    #[test]
    fn equal_numbers_match_everything() {
        check("60.94", "#60.94", "111111");
        check("$1,234", "#1234", "111111");
        check(" 42 ", "#42", "111111");
        check("1e3", "#1000", "111111");
        check("1E-3", "0.001", "111111");
        check("5", "$5", "111111");
        check("$-5", "#-5", "111111");
        check("-$5", "$-5", "111111");
        check("+7", "7", "111111");
        check("\u{2212}5", "-5", "111111");
        check("\u{a0}12\u{a0}", "12", "111111");
        check("(3.2)", "#-3.2", "111111");
        check("(3.2%)", "-0.032", "111111");
        check("12.5%", "#0.125", "111111");
        check("0", "#0", "111111");
        check("-0", "0", "111111");
    }

    #[test]
    fn float_noise_is_exact() {
        check("0.3", "#0.30000000000000004", "111111");
        check("1000000", "#1000000.0000001", "111111");
        check("1", "#1.0000000005", "111111");
        check("1", "#1.0000001", "011111");
    }

    #[test]
    fn rounding_within_one_percent() {
        check("15.7", "#15.686274509803921", "011111");
        check("33.3", "33.33", "011111");
        check("100", "101", "011111");
        check("100", "101.01", "000000");
        check("-21.1%", "#-0.2105", "011111");
        check("14.1%", "#0.14079", "011111");
        check("10", "#10.6", "000000");
    }

    #[test]
    fn zero_expected() {
        check("0", "#0.0001", "010111");
        check("0", "#-0.0001", "010111");
        check("0", "#0.0009999", "010111");
        check("0", "#0.001", "000000");
        check("0", "#0.0011", "000000");
        check("0", "#1e-12", "110111");
        check("0", "#1e-9", "110111");
        check("0", "#1.1e-9", "010111");
    }

    #[test]
    fn small_values_use_absolute_floor() {
        // 0.05 vs 0.0504: within 1% (d = 0.0004 <= 0.0005) and within abs.
        check("0.05", "0.0504", "011111");
        // 0.05 vs 0.0509: outside 1% but d = 0.0009 < 0.001: numerical only.
        check("0.05", "0.0509", "010111");
        check("0.0156", "#0.01434", "000000");
    }

    #[test]
    fn unit_agnostic_scaling() {
        check("10%", "#10", "000101");
        check("142.4%", "#142.403", "000101");
        check("0.1", "10", "000100");
        check("10", "0.1", "000100");
        check("1000", "#100000", "000100");
        check("1000", "#10", "000100");
        check("5", "500.4", "000100");
        check("5", "505.1", "000000");
        check("0.05", "#5.2", "000000");
    }

    #[test]
    fn sign_agnostic() {
        check("-4", "#4", "000010");
        check("1", "#-1.0", "000010");
        check("(3.2)", "#3.2", "000010");
        check("-33.3", "33.33", "000010");
        check("-10%", "#10", "000000");
        check("-10%", "#0.1", "000010");
    }

    #[test]
    fn general_percent_readings() {
        check("10%", "#0.10", "111111");
        check("10%", "#10", "000101");
        check("10%", "10%", "111111");
        check("0.10", "10%", "111111");
        check("10", "10%", "000101");
        check("15.7%", "#15.686274509803921", "000101");
        check("1.11%", "#1.11111", "000101");
        check("-24.05%", "#-24.049999999999997", "000101");
        check("12.5%", "12.5", "000101");
        check("10%", "#-0.09709", "000000");
        check("10%", "#-9.709", "000000");
        check("50%", "#0.5", "111111");
    }

    #[test]
    fn text_answers() {
        check("yes", "yes", "111111");
        check("yes", "YES ", "111111");
        check("no", " No", "111111");
        check("yes", "no", "000000");
        check("yes", "true", "111111");
        check("no", "false", "111111");
        check("true", "yes", "111111");
        check("increase", "Increase", "111111");
    }

    #[test]
    fn json_values() {
        check("#60.94", "60.94", "111111");
        check("#5", "#5.0", "111111");
        check("#-3", "(3)", "111111");
        check("true", "yes", "111111");
        check("false", "true", "000000");
    }

    #[test]
    fn not_comparable() {
        check_reason("60.94", None, "no prediction");
        check_reason("60.94", Some("null"), "prediction is null");
        check_reason("60.94", Some(""), "prediction \"\" is empty text");
        check_reason("60.94", Some("None"), "placeholder for no value");
        check_reason("60.94", Some("nan"), "is NaN");
        check_reason("60.94", Some("NaN"), "is NaN");
        check_reason("60.94", Some("inf"), "infinite");
        check_reason("60.94", Some("#NaN"), "prediction is NaN");
        check_reason("60.94", Some("12 million"), "text after the number");
        check_reason("1234", Some("1,23"), "thousands separators");
        check_reason("1234", Some("-$-5"), "more than one sign");
        check_reason("null", Some("60.94"), "expected answer is null");
        check_reason("", Some("60.94"), "expected answer \"\" is empty text");
        check_reason("null", None, "expected answer is null");
        check_reason(
            "60.94",
            Some("yes"),
            "expected a number (\"60.94\"), prediction \"yes\" is text",
        );
        check_reason(
            "yes",
            Some("#1"),
            "expected text \"yes\", prediction 1 is a number",
        );
    }

    #[test]
    fn text_equal_has_no_reason_and_text_unequal_neither() {
        let t = DocTolerances::default();
        let v = score_answer(&val("yes"), Some(&val("no")), &t);
        assert_eq!(v, AnswerVerdict::default());
        let v = score_answer(&val("5"), Some(&val("6")), &t);
        assert_eq!(v.reason, None);
    }

    #[test]
    fn long_texts_are_cut_in_reasons() {
        let long = "x1".repeat(100);
        let v = score_answer(&val("5"), Some(&val(&long)), &DocTolerances::default());
        let reason = v.reason.unwrap_or_default();
        assert!(reason.len() < 200, "{reason}");
        assert!(reason.contains('…'));
    }

    #[test]
    fn overflowing_scales_never_match() {
        let big = f64::MAX.to_string();
        check(&big, "#1", "000000");
        check(&format!("-{big}"), &big, "000010");
        check(&big, &big, "111111");
    }

    #[test]
    fn custom_tolerances() {
        let t = DocTolerances {
            rel: 0.02,
            ..DocTolerances::default()
        };
        let v = score_answer(&val("100"), Some(&val("101.5")), &t);
        assert!(v.numerical_match && v.soft_match && !v.exact_match);
        // exact never exceeds numerical, even with a huge exact tolerance.
        let t = DocTolerances {
            exact_rel: 0.5,
            ..DocTolerances::default()
        };
        let v = score_answer(&val("100"), Some(&val("120")), &t);
        assert!(!v.exact_match && !v.numerical_match);
        // NaN tolerances match nothing except through abs.
        let t = DocTolerances {
            rel: f64::NAN,
            ..DocTolerances::default()
        };
        let v = score_answer(&val("100"), Some(&val("100")), &t);
        assert!(v.numerical_match && !v.soft_match);
    }

    #[test]
    fn version_labels() {
        let d = DocTolerances::default();
        let label = |t: DocTolerances| t.version_label();
        assert_eq!(label(d), "doc-v1");
        assert_eq!(label(DocTolerances { rel: 0.02, ..d }), "doc-v1+rel0.02");
        assert_eq!(
            label(DocTolerances { abs: 0.0005, ..d }),
            "doc-v1+abs0.0005"
        );
        assert_eq!(label(DocTolerances { abs: 0.0, ..d }), "doc-v1+abs0");
        assert_eq!(
            label(DocTolerances {
                exact_rel: 1e-6,
                ..d
            }),
            "doc-v1+exact1e-6"
        );
        assert_eq!(label(DocTolerances { rel: 5.0, ..d }), "doc-v1+rel5");
        assert_eq!(
            label(DocTolerances {
                rel: 0.05,
                abs: 0.01,
                exact_rel: 0.0
            }),
            "doc-v1+rel0.05+abs0.01+exact0"
        );
        assert_eq!(label(DocTolerances { rel: 0.01, ..d }), "doc-v1");
        assert_eq!(label(DocTolerances { abs: 1e20, ..d }), "doc-v1+abs1e20");
    }

    #[test]
    fn version_labels_read_back() {
        let d = DocTolerances::default();
        for t in [
            d,
            DocTolerances { rel: 0.02, ..d },
            DocTolerances { abs: 1e-7, ..d },
            DocTolerances {
                rel: 0.1,
                abs: 0.3,
                exact_rel: 1e-12,
            },
            DocTolerances {
                rel: 1.0 / 3.0,
                ..d
            },
        ] {
            assert_eq!(
                DocTolerances::from_version_label(&t.version_label()),
                Some(t)
            );
        }
        for bad in [
            "",
            "doc-v2",
            "doc-v1+rel0.01",
            "doc-v1+abs0.01+rel0.02",
            "doc-v1+foo1",
            "doc-v1+rel",
            "doc-v1+relx",
            "doc-v1rel0.02",
            "doc-v1+rel0.020",
        ] {
            assert_eq!(DocTolerances::from_version_label(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn tolerance_validation() {
        let d = DocTolerances::default();
        assert_eq!(d.validate(), Ok(()));
        let err = DocTolerances { rel: -0.1, ..d }.validate().unwrap_err();
        assert_eq!(err.name, "rel");
        assert!(err.to_string().contains("-0.1"));
        assert!(DocTolerances { abs: f64::NAN, ..d }.validate().is_err());
        assert!(DocTolerances {
            exact_rel: f64::INFINITY,
            ..d
        }
        .validate()
        .is_err());
    }

    #[test]
    fn tolerances_deserialize_with_defaults() {
        let t: DocTolerances = serde_json::from_str(r#"{"rel": 0.05}"#).unwrap_or_default();
        assert_eq!(t.rel, 0.05);
        assert_eq!(t.abs, 0.001);
        assert_eq!(t.exact_rel, 1e-9);
    }

    #[test]
    fn scorer_ids() {
        let d = DocTolerances::default();
        let t = DocTolerances { rel: 0.02, ..d };
        assert_eq!(
            scorer_id("soft_match", &d).as_deref(),
            Some("soft_match@doc-v1")
        );
        assert_eq!(
            scorer_id("soft_match", &t).as_deref(),
            Some("soft_match@doc-v1+rel0.02")
        );
        assert_eq!(
            scorer_id("logic_recall", &t).as_deref(),
            Some("logic_recall@doc-v1")
        );
        assert_eq!(scorer_id("nope", &d), None);
        // Every answer scorer has a verdict flag, in flag order; the reasoning scorers have none.
        let v = AnswerVerdict {
            sign_agnostic_match: true,
            ..AnswerVerdict::default()
        };
        for (i, s) in ANSWER_SCORERS.iter().enumerate() {
            assert_eq!(s.version(), VERSION, "{}", s.id);
            assert_eq!(v.flag(s.name()), Some(i == 4), "{}", s.id);
        }
        assert!(v.flags()[4]);
        for s in crate::numeric_qa::score::logic::SCORERS {
            assert_eq!(v.flag(s.name()), None, "{}", s.id);
        }
    }
}
