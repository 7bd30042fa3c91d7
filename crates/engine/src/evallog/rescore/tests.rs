//! The re-scorers on ordinary and nasty cases. Expected values of the Inspect-derived scorers were
//! checked against Inspect's own functions (`match_str` with `unicode_number_to_float`,
//! `max_exact_score`, `max_f1_score`, the answer patterns), transcribed from its source and run in
//! Python 3.11, and on some 30,000 random texts besides.

use super::*;

fn t(targets: &[&str]) -> Vec<String> {
    targets.iter().map(|s| s.to_string()).collect()
}

/// Every re-scorer's worked example in the scorer table gives its verdict.
#[test]
fn scorer_table_examples_hold() {
    for kind in RescoreKind::ALL {
        let s = kind.scorer();
        let e = &s.example;
        let output = e.predicted.replace("\\n", "\n");
        let got = Rescorer {
            kind,
            tolerance: NumericTolerance::default(),
        }
        .score(Some(&output), &t(&[e.expected]))
        .unwrap_or(f64::NAN);
        assert_eq!(got.to_string(), e.verdict, "{}", s.id);
        assert_eq!(RescoreKind::from_name(s.id), Some(kind));
        assert_eq!(RescoreKind::from_name(s.name()), Some(kind));
        assert_eq!(kind.id(), s.id);
    }
    assert_eq!(RescoreKind::ALL.map(|k| *k.scorer()), SCORERS);
    assert_eq!(
        RescoreKind::from_name("last-number"),
        Some(RescoreKind::LastNumber)
    );
    assert_eq!(RescoreKind::from_name("as-recorded"), None);
    assert_eq!(RescoreKind::from_name(""), None);
}

#[test]
fn ids_name_the_numeric_tolerances() {
    let mut r = Rescorer {
        kind: RescoreKind::Numeric,
        tolerance: NumericTolerance::default(),
    };
    assert_eq!(r.id(), "numeric@v1");
    r.tolerance.rel = 0.02;
    assert_eq!(r.id(), "numeric@v1+rel0.02");
    r.tolerance.abs = 0.5;
    assert_eq!(r.id(), "numeric@v1+rel0.02+abs0.5");
    r.kind = RescoreKind::Match;
    assert_eq!(r.id(), "match@v1", "tolerances change numeric@v1 only");
}

#[test]
fn nothing_to_score_is_none() {
    for kind in RescoreKind::ALL {
        let r = Rescorer {
            kind,
            tolerance: NumericTolerance::default(),
        };
        assert_eq!(r.score(None, &t(&["4"])), None, "{kind:?}: no output");
        assert_eq!(r.score(Some("4"), &[]), None, "{kind:?}: no target");
        assert_eq!(
            r.score(Some("4"), &t(&["", " \n"])),
            None,
            "{kind:?}: blank"
        );
        // An empty output is an answer, and a wrong one.
        assert_eq!(r.score(Some(""), &t(&["4"])), Some(0.0), "{kind:?}: empty");
    }
    // The numeric scorers read numeric targets only.
    assert_eq!(last_number("4", &t(&["four"])), None);
    assert_eq!(
        numeric("4", &t(&["NaN"]), NumericTolerance::default()),
        None
    );
    assert_eq!(last_number("4", &t(&["four", "4"])), Some(1.0));
}

#[test]
fn exact_is_inspects() {
    let cases: [(&str, &[&str], f64); 15] = [
        ("eiffel tower!", &["The Eiffel Tower"], 1.0),
        ("Paris", &["paris", "London"], 1.0),
        ("London", &["Paris", "london"], 1.0),
        ("4", &["4.0"], 1.0),
        ("four", &["4"], 0.0),
        ("", &["x"], 0.0),
        ("the", &["a"], 1.0),
        ("A", &["B"], 0.0),
        ("C", &["c"], 1.0),
        // Inspect skips a target whose first character is whitespace.
        ("Paris", &[" Paris"], 0.0),
        ("naïve café", &["NAÏVE CAFÉ"], 1.0),
        ("Straße", &["STRASSE"], 1.0),
        ("1,000", &["1000"], 1.0),
        ("NaN", &["nan"], 1.0),
        ("cat cat", &["cat"], 1.0),
    ];
    for (output, targets, want) in cases {
        assert_eq!(
            exact(output, &t(targets)),
            Some(want),
            "{output:?} {targets:?}"
        );
    }
}

#[test]
fn f1_is_inspects() {
    let cases: [(&str, &[&str], f64); 8] = [
        ("Eiffel Tower in Paris", &["the Eiffel Tower"], 0.67),
        ("a b c", &["a b d", "b c d e"], 0.67),
        ("x y z", &["x y q"], 0.67),
        ("one two three", &["one two four five six"], 0.5),
        ("eiffel tower!", &["The Eiffel Tower"], 1.0),
        ("dog", &["cat"], 0.0),
        ("", &["cat"], 0.0),
        ("Paris", &[" Paris"], 0.0),
    ];
    for (output, targets, want) in cases {
        assert_eq!(
            f1(output, &t(targets)),
            Some(want),
            "{output:?} {targets:?}"
        );
    }
}

#[test]
fn includes_is_inspects() {
    assert_eq!(includes("The capital is PARIS.", &t(&["paris"])), Some(1.0));
    assert_eq!(includes("STRASSE", &t(&["straße"])), Some(1.0));
    assert_eq!(includes("answer 4", &t(&[" 4"])), Some(1.0));
    assert_eq!(includes("answer:4", &t(&[" 4"])), Some(0.0));
    assert_eq!(
        includes("14", &t(&["4"])),
        Some(1.0),
        "a substring, not a number"
    );
    assert_eq!(includes("", &t(&["x"])), Some(0.0));
    assert_eq!(includes("日本語のテキスト", &t(&["テキスト"])), Some(1.0));
}

#[test]
fn match_is_inspects() {
    // (output, target, Inspect match(location="end", numeric=<target is a number>))
    let cases: [(&str, &str, f64); 27] = [
        ("So the total is $12.", "12", 1.0),
        ("4", "4", 1.0),
        ("14", "4", 0.0),
        ("The answer is 1,234.", "1234", 1.0),
        ("1234.0", "1,234", 1.0),
        ("60%", "60", 0.0),
        ("60% or 0.6", "0.6", 1.0),
        ("(42)", "42", 1.0),
        ("42!", "42", 1.0),
        ("answer: -3", "-3", 1.0),
        ("−3", "-3", 1.0),
        ("It is Paris!", "Paris", 1.0),
        ("Paris is it", "Paris", 0.0),
        ("123456", "123457", 1.0),
        ("12 apples", "12", 1.0),
        ("twelve", "12", 0.0),
        ("$1,000,000", "1000000", 1.0),
        ("", "0", 0.0),
        ("nan", "nan", 1.0),
        ("x = 3.14159", "3.1416", 1.0),
        ("The answer is (B)", "B", 1.0),
        ("B", "b", 1.0),
        ("ab", "b", 1.0),
        ("", "x", 0.0),
        ("Result: **7**", "7", 1.0),
        ("Paris.", "paris.", 1.0),
        ("2½ cups", "2.5", 1.0),
    ];
    for (output, target, want) in cases {
        assert_eq!(
            match_end(output, &t(&[target])),
            Some(want),
            "{output:?} {target:?}"
        );
    }
    assert_eq!(match_end("It is 7", &t(&["seven", "7"])), Some(1.0));
    assert_eq!(
        match_end("-0", &t(&["0"])),
        Some(0.0),
        "Python: '-0' != '0'"
    );
}

#[test]
fn answer_patterns_are_inspects() {
    // (text, re.search(ANSWER_PATTERN_LINE, text).group(1))
    for (s, want) in [
        ("ANSWER: Paris", Some("Paris")),
        ("answer : paris\nmore", Some("paris")),
        ("ANSWER:\n\nParis", Some("Paris")),
        ("ANSWER: \n", Some(" ")),
        ("ANSWER:", None),
        ("The answer is 4. ANSWER: 4", Some("4")),
        ("ANSWER:  \t\n\n", Some("\t")),
        ("ANSWER : \n ", Some(" ")),
        ("no marker", None),
        ("", None),
    ] {
        assert_eq!(answer_line(s), want, "{s:?}");
    }
    for (s, want) in [
        ("ANSWER: B", Some('B')),
        ("ANSWER: B) blue", Some('B')),
        ("ANSWER: (B)", None),
        ("ANSWER: Bc", None),
        ("answer:\nc", Some('c')),
        ("ANSWER: BANSWER: C", Some('C')),
        ("ANSWER:B.", Some('B')),
        ("ANſWER: d", Some('d')),
        ("ANSWER: é", None),
    ] {
        assert_eq!(answer_letter(s), want, "{s:?}");
    }
    let ap = |o: &str, ts: &[&str]| answer_pattern(o, &t(ts));
    assert_eq!(ap("Reasoning.\nANSWER: b", &["B"]), Some(1.0));
    assert_eq!(ap("ANSWER: C", &["A", "B", "C"]), Some(1.0), "any target");
    assert_eq!(ap("ANSWER: D", &["A", "B", "C"]), Some(0.0));
    assert_eq!(
        ap("The answer is B", &["B"]),
        Some(0.0),
        "no ANSWER: marker"
    );
    assert_eq!(
        ap("ANSWER: The Eiffel Tower.", &["eiffel tower"]),
        Some(1.0)
    );
    assert_eq!(
        ap("ANSWER: Eiffel Tower\nbecause", &["Eiffel Tower"]),
        Some(1.0)
    );
    assert_eq!(ap("ANSWER: Tour Eiffel", &["Eiffel Tower"]), Some(0.0));
    assert_eq!(ap("ANSWER: 1,000", &["1000"]), Some(1.0));
}

#[test]
fn last_number_reads_numbers_as_written() {
    let ln = |o: &str, ts: &[&str]| last_number(o, &t(ts));
    assert_eq!(ln("2 boxes of 617 make 1,234.", &["1234"]), Some(1.0));
    assert_eq!(ln("It costs $1,234.50", &["1234.5"]), Some(1.0));
    assert_eq!(ln("a drop of -3.5 degrees", &["-3.5"]), Some(1.0));
    assert_eq!(ln("up 45%", &["45%"]), Some(1.0));
    assert_eq!(ln("up 45%", &["45"]), Some(1.0), "the % mark is dropped");
    assert_eq!(ln("up 45%", &["0.45"]), Some(0.0), "not scaled");
    assert_eq!(ln("first 7, then 8", &["7"]), Some(0.0), "the last number");
    assert_eq!(ln("NaN", &["0"]), Some(0.0));
    assert_eq!(ln("no number here", &["3"]), Some(0.0));
    assert_eq!(ln("", &["3"]), Some(0.0));
    assert_eq!(ln("0.1 + 0.2 = 0.30000000000000004", &["0.3"]), Some(1.0));
    assert_eq!(ln("1e3", &["1000"]), Some(1.0));
    assert_eq!(ln("٣", &["3"]), Some(0.0), "ASCII digits only");
    assert_eq!(ln("answer: 3", &["$3.", "4"]), Some(1.0));
    assert_eq!(ln("answer: 1,234", &["1,234"]), Some(1.0));
    assert_eq!(ln("B", &["B"]), None, "a letter target is no number");
}

#[test]
fn numeric_uses_its_tolerances() {
    let d = NumericTolerance::default();
    let n = |o: &str, ts: &[&str], tol| numeric(o, &t(ts), tol);
    assert_eq!(n("about 99.5", &["100"], d), Some(1.0));
    assert_eq!(n("about 98.9", &["100"], d), Some(0.0));
    assert_eq!(
        n("0.0005", &["0"], d),
        Some(1.0),
        "the absolute floor near zero"
    );
    assert_eq!(n("0.002", &["0"], d), Some(0.0));
    assert_eq!(n("-101", &["-100"], d), Some(1.0));
    assert_eq!(n("101", &["-100"], d), Some(0.0));
    let wide = NumericTolerance {
        rel: 0.05,
        abs: 0.0,
    };
    assert_eq!(n("about 96", &["100"], wide), Some(1.0));
    let nan = NumericTolerance {
        rel: f64::NAN,
        abs: f64::NAN,
    };
    assert_eq!(
        n("100", &["100"], nan),
        Some(0.0),
        "NaN tolerances accept nothing"
    );
}

/// Multiple-choice letters under each scorer.
#[test]
fn multiple_choice_letters() {
    let ts = t(&["C"]);
    assert_eq!(exact("C", &ts), Some(1.0));
    assert_eq!(exact("(C)", &ts), Some(1.0));
    assert_eq!(exact("C) 42", &ts), Some(0.0));
    assert_eq!(match_end("The answer is C", &ts), Some(1.0));
    assert_eq!(match_end("The answer is C.", &ts), Some(1.0));
    assert_eq!(match_end("C is wrong, it is D", &ts), Some(0.0));
    assert_eq!(includes("Definitely", &ts), Some(0.0));
    assert_eq!(
        includes("Because", &ts),
        Some(1.0),
        "includes finds a letter anywhere"
    );
    assert_eq!(answer_pattern("ANSWER: C", &ts), Some(1.0));
    // The article rule: "A" is a word Inspect's exact() removes, on both sides.
    assert_eq!(exact("A", &t(&["A"])), Some(1.0));
    assert_eq!(exact("A", &t(&["B"])), Some(0.0));
}

/// Long and hostile inputs finish (linear scans) and never panic.
#[test]
fn long_and_hostile_inputs_are_bounded() {
    let long_digits = "9".repeat(200_000);
    let answers = "answer ".repeat(50_000) + "ANSWER:" + &" ".repeat(50_000);
    let colons = "ANSWER:".repeat(50_000);
    let commas = "1,".repeat(100_000);
    let mixed = "-.".repeat(100_000) + "½²³⁻" + &"①٣".repeat(10_000);
    let superscripts = format!("2{}", "⁹".repeat(100_000));
    let many_targets: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let inputs = [
        long_digits.as_str(),
        answers.as_str(),
        colons.as_str(),
        commas.as_str(),
        mixed.as_str(),
        superscripts.as_str(),
        "\u{0}\u{feff}\u{202e}",
        "ANSWER:\n",
    ];
    for kind in RescoreKind::ALL {
        let r = Rescorer {
            kind,
            tolerance: NumericTolerance::default(),
        };
        for s in inputs {
            for ts in [t(&[s]), t(&["4", "B", "Paris"]), many_targets.clone()] {
                let v = r.score(Some(s), &ts);
                assert!(v.is_none_or(|v| (0.0..=1.0).contains(&v)), "{kind:?}");
            }
        }
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    /// Text from pieces the scorers treat specially, mixed with arbitrary characters.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("ANSWER:".to_string()),
            Just("answer".to_string()),
            Just("1,234".to_string()),
            Just("-3.5e2".to_string()),
            Just("45%".to_string()),
            Just("½²⁻¹".to_string()),
            Just("the ".to_string()),
            Just("\n".to_string()),
            Just("$".to_string()),
            "[0-9.,]{1,6}",
            any::<char>().prop_map(String::from),
            ".{0,8}",
        ];
        proptest::collection::vec(piece, 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

        /// Any output against any targets: no panic, a reading in 0–1 or none, the same twice.
        #[test]
        fn every_rescorer_is_total_and_deterministic(
            output in text(),
            targets in proptest::collection::vec(text(), 0..4),
        ) {
            for kind in RescoreKind::ALL {
                let r = Rescorer { kind, tolerance: NumericTolerance::default() };
                let a = r.score(Some(&output), &targets);
                prop_assert!(a.is_none_or(|v| (0.0..=1.0).contains(&v)), "{kind:?} {a:?}");
                prop_assert_eq!(a, r.score(Some(&output), &targets));
                // The output against itself as the target: a match for the text scorers.
                if matches!(kind, RescoreKind::Exact | RescoreKind::Includes | RescoreKind::F1)
                    && !crate::pyrepr::py_strip(&output).is_empty()
                    && inspect_reads(&output)
                {
                    prop_assert_eq!(r.score(Some(&output), std::slice::from_ref(&output)), Some(1.0), "{:?}", kind);
                }
            }
        }
    }
}
