//! Why a wrong answer is wrong, in words: the nearest scorer that accepts it and what that means
//! (a ×100 scale, a flipped sign, a percent mark, rounding at k decimals, within x% but outside the
//! tolerance, not a number, no answer, a failed turn). Computed on demand for the rows a screen
//! or a report shows, never stored per turn.

use crate::numeric_qa::answer::{parse_answer_ref, Number, ParsedRef};
use crate::numeric_qa::model::{QaConversation, QaTurn, RawValue};
use crate::numeric_qa::score::doc::{quoted, DocTolerances};
use crate::numeric_qa::score::{Profile, TurnScore};

/// Why `turn` of `conv`, scored `score` under `profile` and `tol`, is wrong; `None` when it is
/// correct.
pub fn why_wrong(
    conv: &QaConversation,
    turn: &QaTurn,
    score: &TurnScore,
    profile: Profile,
    tol: &DocTolerances,
) -> Option<String> {
    if score.correct(profile) {
        return None;
    }
    let mut why = match &score.answer.reason {
        Some(reason) => not_compared(reason, conv, turn),
        None => compared(turn, score, profile, tol),
    };
    if let Some(e) = &turn.error {
        if turn.predicted.is_some() {
            why.push_str(&format!("; the turn also recorded {}", error_text(e)));
        }
    }
    Some(why)
}

/// A comparison that could not be made: the scorer's reason, with the turn's error when the
/// answer is missing because the turn failed.
fn not_compared(reason: &str, conv: &QaConversation, turn: &QaTurn) -> String {
    if let (None, Some(failure)) = (&turn.predicted, &conv.failure) {
        let cut: String = failure.chars().take(80).collect();
        return format!("no answer: the whole conversation failed ({cut})");
    }
    match (&turn.predicted, &turn.error) {
        (None, Some(e)) => format!("no answer: the turn failed with {}", error_text(e)),
        (None, None) => "no answer: the agent gave none for this turn".to_string(),
        _ => format!("not comparable: {reason}"),
    }
}

fn error_text(e: &crate::numeric_qa::model::TurnError) -> String {
    let message = crate::diag::shortened(&e.message, 80);
    match (e.error_type.trim(), message.trim()) {
        ("", "") => "an error".to_string(),
        (t, "") => t.to_string(),
        ("", m) => format!("an error ({m})"),
        (t, m) => format!("{t} ({m})"),
    }
}

fn compared(turn: &QaTurn, score: &TurnScore, profile: Profile, tol: &DocTolerances) -> String {
    let expected = parse_answer_ref(&turn.expected);
    let predicted = turn.predicted.as_ref().map(parse_answer_ref);
    let (e, a) = match (expected, predicted) {
        (ParsedRef::Number(e), Some(ParsedRef::Number(a))) => (e, a),
        (ParsedRef::Text(e), Some(ParsedRef::Text(a))) => {
            return format!("different text: expected {}, got {}", quoted(e), quoted(a));
        }
        _ => return "no comparison could be made".to_string(),
    };
    let a_ = &score.answer;
    let tolerance = format!("±{}", tolerance_percent(tol.rel));
    if profile == Profile::Fa2 && a_.numerical_match {
        let d = (e.value - a.value).abs();
        let mut s = format!(
            "off by {} (within {tolerance}, which numerical_match@doc-v1 accepts), but \
             financial-agent-2's numerical match needs a difference under 0.00001",
            number(d)
        );
        if score.fa2.financial {
            s.push_str("; its financial match accepts it");
        }
        return s;
    }
    let ratio = if e.value != 0.0 {
        a.value / e.value
    } else {
        f64::NAN
    };
    let exp = expected_text(&turn.expected, e);
    let mut s = if a_.unit_agnostic_match && !a_.numerical_match {
        if (ratio.abs() - 100.0).abs() < (ratio.abs() - 0.01).abs() {
            format!(
                "scale: {} is 100× the expected {exp} (a percentage where a fraction was \
                 expected); unit_agnostic_match accepts it",
                number(a.value),
            )
        } else {
            format!(
                "scale: {} is the expected {exp} ÷ 100 (a fraction where a percentage was \
                 expected); unit_agnostic_match accepts it",
                number(a.value),
            )
        }
    } else if a_.sign_agnostic_match && !a_.numerical_match {
        format!(
            "sign: {} has the expected magnitude with the opposite sign (e.g. A − B for B − A, \
             a decrease for an increase); sign_agnostic_match accepts it",
            number(a.value)
        )
    } else if a_.general_match && !a_.numerical_match {
        format!(
            "percent mark: equal to the expected {} once the percent mark is ignored; \
             general_match accepts it",
            written(&turn.expected, e)
        )
    } else if let Some(k) = rounded(&turn.expected, e, turn.predicted.as_ref(), a) {
        k
    } else if let Some(f) = big_scale(ratio) {
        format!(
            "scale: {} is {f} the expected {exp} (units: thousands vs millions?); no scorer \
             accepts it",
            number(a.value),
        )
    } else if let Some((f, off)) = scaled_miss(ratio, tol) {
        format!(
            "scale and value: {} is about {f} the expected {exp} (a percentage where a \
             fraction was expected, or the reverse), and still {} off after that",
            number(a.value),
            percent(off)
        )
    } else {
        let rel = if e.value != 0.0 {
            ((a.value - e.value) / e.value).abs()
        } else {
            f64::INFINITY
        };
        let d = a.value - e.value;
        let side = if d > 0.0 { "high" } else { "low" };
        if rel.is_finite() && rel <= (tol.rel * 10.0).max(0.1) {
            format!(
                "near miss: {} is {} {side} ({} off), outside the {tolerance} tolerance",
                number(a.value),
                number(d.abs()),
                percent(rel)
            )
        } else if rel.is_finite() {
            format!(
                "wrong value: {} vs the expected {exp} ({} off)",
                number(a.value),
                percent(rel)
            )
        } else {
            format!("wrong value: {} vs the expected {exp}", number(a.value))
        }
    };
    if profile == Profile::Fa2 && (score.fa2.financial || score.fa2.soft_match) {
        let which = if score.fa2.financial {
            "financial match"
        } else {
            "soft match"
        };
        s.push_str(&format!(" (financial-agent-2's {which} accepts it)"));
    }
    s
}

/// A ×100 or ÷100 scale that misses by more than the tolerance but less than 10% after it:
/// the factor's words and the relative miss once scaled.
fn scaled_miss(ratio: f64, tol: &DocTolerances) -> Option<(&'static str, f64)> {
    let r = ratio.abs();
    [(100.0, "100×"), (0.01, "1/100 of")]
        .into_iter()
        .map(|(f, words)| (words, (r / f - 1.0).abs()))
        .find(|&(_, off)| off.is_finite() && off > tol.rel && off <= 0.1)
}

/// The expected answer as written, with its value when a percent mark changes it
/// (`"15.7%" (= 0.157)`).
fn expected_text(v: &RawValue, e: Number) -> String {
    if e.percent {
        format!("{} (= {})", written(v, e), number(e.value))
    } else {
        number(e.value)
    }
}

/// Rounding at k decimals: one side is the other rounded to the decimals it was written with.
fn rounded(
    expected: &RawValue,
    e: Number,
    predicted: Option<&RawValue>,
    a: Number,
) -> Option<String> {
    if e.percent != a.percent {
        return None;
    }
    let de = decimals(expected)?;
    let da = predicted.and_then(decimals)?;
    let same = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
    if da < de && same(round_to(e.raw, da), a.raw) {
        return Some(format!(
            "rounding: {} is the expected {} rounded to {da} decimal{}, too coarse for the \
             tolerance",
            written(predicted?, a),
            written(expected, e),
            plural(da)
        ));
    }
    if de < da && same(round_to(a.raw, de), e.raw) {
        return Some(format!(
            "rounding: {} rounds to the expected {} at its {de} decimal{}, but the difference \
             is outside the tolerance",
            written(predicted?, a),
            written(expected, e),
            plural(de)
        ));
    }
    None
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Decimals an answer was written with (`"15.70%"` → 2); `None` for a value that is not a
/// plain decimal (exponent notation, text).
fn decimals(v: &RawValue) -> Option<u32> {
    let text = match v {
        RawValue::Str(s) => s.trim().to_string(),
        RawValue::Float(x) => crate::pyrepr::py_float_repr(*x),
        RawValue::Int(_) => return Some(0),
        _ => return None,
    };
    if text.contains(['e', 'E']) {
        return None;
    }
    let digits = text.rsplit_once('.').map_or(0, |(_, frac)| {
        frac.chars().take_while(char::is_ascii_digit).count()
    });
    u32::try_from(digits).ok().filter(|&d| d <= 12)
}

fn round_to(x: f64, k: u32) -> f64 {
    let f = 10f64.powi(i32::try_from(k).unwrap_or(12));
    (x * f).round() / f
}

/// `×1000`-like factors between the two values (1,000 or 1,000,000, either way).
fn big_scale(ratio: f64) -> Option<&'static str> {
    let r = ratio.abs();
    [
        (1e3, "1,000×"),
        (1e6, "1,000,000×"),
        (1e-3, "1/1,000 of"),
        (1e-6, "1/1,000,000 of"),
    ]
    .into_iter()
    .find(|(f, _)| r.is_finite() && (r / f - 1.0).abs() <= 0.01)
    .map(|(_, s)| s)
}

/// An answer as written (a string as its text, quoted when it is not a plain number).
fn written(v: &RawValue, n: Number) -> String {
    match v {
        RawValue::Str(s) => quoted(s.trim()),
        _ => number(n.raw),
    }
}

/// A relative tolerance as a percentage (`0.01` → `1%`, `0.025` → `2.5%`).
pub fn tolerance_percent(rel: f64) -> String {
    format!("{}%", number(rel * 100.0))
}

/// A number in at most 6 significant digits, without trailing zeros.
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        return format!("{x:.3e}");
    }
    let int_digits = if a >= 1.0 {
        a.log10().floor() as i32 + 1
    } else {
        1
    };
    let prec = usize::try_from((6 - int_digits).max(0)).unwrap_or(0);
    let mut s = format!("{x:.prec$}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".into();
    }
    s
}

/// A fraction as a percentage in 3 significant digits (`0.0126225` → `1.26%`, `94.893` →
/// `9489%`).
fn percent(x: f64) -> String {
    let p = x * 100.0;
    if !p.is_finite() || p == 0.0 {
        return format!("{}%", number(p));
    }
    let digits = p.abs().log10().floor() as i32 + 1;
    let prec = usize::try_from((3 - digits).max(0)).unwrap_or(0);
    number(format!("{p:.prec$}").parse().unwrap_or(p)) + "%"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric_qa::model::TurnError;
    use crate::numeric_qa::score::doc::score_answer;
    use crate::numeric_qa::score::fa2::calculate_accuracy;

    fn s(x: &str) -> RawValue {
        RawValue::Str(x.to_string())
    }

    fn why(expected: RawValue, predicted: Option<RawValue>, profile: Profile) -> Option<String> {
        why_err(expected, predicted, None, profile)
    }

    fn why_err(
        expected: RawValue,
        predicted: Option<RawValue>,
        error: Option<TurnError>,
        profile: Profile,
    ) -> Option<String> {
        let tol = DocTolerances::DEFAULT;
        let turn = QaTurn {
            expected,
            predicted,
            error: error.map(Box::new),
            ..QaTurn::default()
        };
        let score = scored(&turn, &tol);
        why_wrong(&QaConversation::default(), &turn, &score, profile, &tol)
    }

    fn scored(turn: &QaTurn, tol: &DocTolerances) -> TurnScore {
        TurnScore {
            conv: 0,
            turn: 0,
            answer: score_answer(&turn.expected, turn.predicted.as_ref(), tol),
            fa2: calculate_accuracy(&turn.expected, turn.predicted.as_ref()),
            logic: Default::default(),
            operations_per_turn: None,
            from_failed_conversation: false,
        }
    }

    #[track_caller]
    fn check(expected: RawValue, predicted: RawValue, want: &str) {
        let got = why(expected, Some(predicted), Profile::Doc).unwrap_or_default();
        assert!(got.contains(want), "{got:?} lacks {want:?}");
    }

    #[test]
    fn a_correct_turn_has_no_why() {
        assert_eq!(why(s("15.7"), Some(s("15.69")), Profile::Doc), None);
    }

    #[test]
    fn every_wrong_verdict_says_why() {
        // The demo's 15.686 vs 15.7%: a percentage where a fraction was expected.
        check(
            s("15.7%"),
            RawValue::Float(15.686),
            "scale: 15.686 is 100× the expected \"15.7%\" (= 0.157)",
        );
        check(
            s("11%"),
            s("10.548"),
            "about 100× the expected \"11%\" (= 0.11)",
        );
        check(s("11%"), s("10.548"), "still 4.11% off after that");
        check(s("0.157"), s("15.7"), "unit_agnostic_match accepts it");
        check(s("15.7"), s("0.157"), "÷ 100");
        check(s("-4"), s("4"), "sign: 4 has the expected magnitude");
        check(s("1,234"), s("-1234"), "sign_agnostic_match");
        check(
            s("10%"),
            s("10"),
            "scale: 10 is 100× the expected \"10%\" (= 0.1)",
        );
        check(s("0.1568"), s("0.16"), "rounded to 2 decimals");
        check(
            s("0.16"),
            s("0.1568"),
            "rounds to the expected \"0.16\" at its 2 decimals",
        );
        check(s("5"), s("5000"), "1,000× the expected 5");
        check(s("5000000"), s("5"), "1/1,000,000 of");
        check(s("100"), s("103"), "near miss: 103 is 3 high (3% off)");
        check(
            s("3609"),
            s("3331"),
            "278 low (7.7% off), outside the ±1% tolerance",
        );
        check(s("0.43"), s("0.42457"), "(1.26% off)");
        check(s("2"), s("291.78"), "(14489% off)");
        check(s("100"), s("97.5"), "2.5 low");
        check(
            s("100"),
            s("250"),
            "wrong value: 250 vs the expected 100 (150% off)",
        );
        check(s("0"), s("3"), "wrong value: 3 vs the expected 0");
        check(
            s("yes"),
            s("no"),
            "different text: expected \"yes\", got \"no\"",
        );
        check(
            s("60.94"),
            s("NaN"),
            "not comparable: prediction \"NaN\" is NaN",
        );
        check(s("60.94"), s("about 5"), "not comparable");
        check(s("60.94"), s("yes"), "is text");
        check(RawValue::Null, s("5"), "expected answer is null");
    }

    #[test]
    fn a_missing_answer_names_the_turn_error() {
        let err = TurnError {
            error_type: "TimeoutError".into(),
            message: "Evaluation timeout (300s)".into(),
            context: None,
        };
        assert_eq!(
            why_err(s("5"), None, Some(err.clone()), Profile::Doc).as_deref(),
            Some("no answer: the turn failed with TimeoutError (Evaluation timeout (300s))")
        );
        assert_eq!(
            why(s("5"), None, Profile::Doc).as_deref(),
            Some("no answer: the agent gave none for this turn")
        );
        let got = why_err(s("5"), Some(s("7")), Some(err), Profile::Doc).unwrap_or_default();
        assert!(got.ends_with("; the turn also recorded TimeoutError (Evaluation timeout (300s))"));
        let conv = QaConversation {
            failure: Some("Evaluation timeout (300s)".into()),
            ..QaConversation::default()
        };
        let turn = QaTurn {
            expected: s("5"),
            ..QaTurn::default()
        };
        let tol = DocTolerances::DEFAULT;
        assert_eq!(
            why_wrong(&conv, &turn, &scored(&turn, &tol), Profile::Doc, &tol).as_deref(),
            Some("no answer: the whole conversation failed (Evaluation timeout (300s))")
        );
    }

    #[test]
    fn the_fa2_profile_says_what_its_strict_match_wants() {
        let got = why(s("15.7"), Some(RawValue::Float(15.686)), Profile::Fa2).unwrap_or_default();
        assert!(got.contains("off by 0.014 (within ±1%"), "{got}");
        assert!(got.contains("under 0.00001"), "{got}");
        let got = why(s("0.157"), Some(s("15.7")), Profile::Fa2).unwrap_or_default();
        assert!(got.contains("financial match accepts it"), "{got}");
    }

    #[test]
    fn the_tolerance_in_words_follows_the_settings() {
        let tol = DocTolerances {
            rel: 0.005,
            ..DocTolerances::DEFAULT
        };
        let turn = QaTurn {
            expected: s("100"),
            predicted: Some(s("101")),
            ..QaTurn::default()
        };
        let score = scored(&turn, &tol);
        let conv = QaConversation::default();
        let got = why_wrong(&conv, &turn, &score, Profile::Doc, &tol).unwrap_or_default();
        assert!(got.contains("outside the ±0.5% tolerance"), "{got}");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(0.157), "0.157");
        assert_eq!(number(15.686274509803921), "15.6863");
        assert_eq!(number(531191.007), "531191");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(2e20), "2.000e20");
        assert_eq!(number(3.0), "3");
    }
}
