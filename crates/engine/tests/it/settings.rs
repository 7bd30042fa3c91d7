//! `run::Settings::non_default` names every non-default setting of a family in words (the
//! dashboard's "custom settings" badge), only that family's, and `reset` brings them back.

use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::score::{ModelPrice, Profile};
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
    s.numeric_qa.prices.models.push((
        "gpt-4o".into(),
        ModelPrice {
            input_per_mtok: 2.5,
            output_per_mtok: 10.0,
        },
    ));
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
