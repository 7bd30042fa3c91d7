//! `run::Settings::non_default` names every non-default setting of a family in words (the
//! dashboard's "custom settings" badge), only that family's, and `reset` brings them back.

use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::score::Profile;
use evalboard_engine::prices::ModelPrice;
use evalboard_engine::run::Settings;

#[test]
fn defaults_are_not_listed() {
    let s = Settings::default();
    for f in Family::ALL {
        assert!(s.non_default(f).is_empty(), "{f:?}");
    }
}

#[test]
fn each_changed_setting_is_named_for_its_family_only() {
    let mut s = Settings::default();
    s.numeric_qa.profile = Profile::Fa2;
    s.numeric_qa.tolerances.rel = 0.05;
    s.numeric_qa.tolerances.abs = 0.01;
    s.numeric_qa
        .prices
        .models
        .push(("gpt-4o".into(), ModelPrice::new(2.5, 10.0)));
    assert_eq!(
        s.non_default(Family::NumericQa),
        [
            "profile financial-agent-2",
            "relative tolerance 5% (default 1%)",
            "absolute tolerance 0.01 (default 0.001)",
            "a price for gpt-4o",
        ]
    );
    assert!(s.non_default(Family::Evalset).is_empty());
    assert!(s.non_default(Family::Codegen).is_empty());
    // The price table is every billing family's: eval logs are priced by it too.
    assert_eq!(s.non_default(Family::EvalLog), ["a price for gpt-4o"]);
    assert!(
        s.reset(Family::EvalLog)
            .non_default(Family::NumericQa)
            .len()
            == 3
    );
    s.evalset.pass_threshold = 0.5;
    s.codegen.max_recovery_attempts = 3;
    assert_eq!(
        s.non_default(Family::Evalset),
        ["pass threshold 0.5 (default 1)"]
    );
    assert_eq!(
        s.non_default(Family::Codegen),
        ["3 recovery attempts (default 2)"]
    );
    let reset = s.reset(Family::NumericQa);
    assert!(reset.non_default(Family::NumericQa).is_empty());
    assert_eq!(
        reset.non_default(Family::Evalset).len(),
        1,
        "other families kept"
    );
}

#[test]
fn eval_log_profiles_name_the_rescorer() {
    use evalboard_engine::evallog::RescoreKind;
    use evalboard_engine::run::profile_names;
    let mut s = Settings::default();
    for (name, want) in [
        ("match", Some(RescoreKind::Match)),
        ("match@v1", Some(RescoreKind::Match)),
        ("last-number", Some(RescoreKind::LastNumber)),
        ("answer_pattern@v1", Some(RescoreKind::AnswerPattern)),
        ("as-recorded", None),
        ("doc", None),
    ] {
        s.set_profile(Family::EvalLog, name).expect(name);
        assert_eq!(s.evallog.scorer, want, "{name}");
    }
    let err = s.set_profile(Family::EvalLog, "v1-extract").unwrap_err();
    assert!(
        err.to_string()
            .contains("as-recorded, exact, includes, match"),
        "{err}"
    );
    for k in RescoreKind::ALL {
        assert!(
            profile_names(Family::EvalLog).contains(k.name()),
            "{}",
            k.id()
        );
    }

    s.set_profile(Family::EvalLog, "numeric").unwrap();
    s.evallog.numeric.rel = 0.05;
    s.numeric_qa.tolerances.rel = 0.05;
    assert_eq!(
        s.non_default(Family::EvalLog),
        [
            "re-scored by numeric@v1+rel0.05",
            "relative tolerance 0.05 (default 0.01)"
        ]
    );
    s.set_profile(Family::EvalLog, "exact").unwrap();
    assert_eq!(
        s.non_default(Family::EvalLog),
        ["re-scored by exact@v1"],
        "tolerances change numeric@v1 only"
    );
    let reset = s.reset(Family::EvalLog);
    assert!(reset.non_default(Family::EvalLog).is_empty());
    assert_eq!(reset.numeric_qa, s.numeric_qa, "other families kept");
    assert!(
        s.reset(Family::NumericQa)
            .non_default(Family::EvalLog)
            .len()
            == 1
    );
}
