//! The numeric-QA view models on the demo runs: every wrong turn says why, the conversation
//! view carries the model's work from the trace, and the financial-agent-2 profile's overview
//! shows that profile's own headline (the numbers its statistics.json has).

use evalboard_engine::numeric_qa::aggregate::fa2::statistics_value;
use evalboard_engine::numeric_qa::read::load_qa_run;
use evalboard_engine::numeric_qa::score::{score_qa_run, Profile, ScoreConfig, ScoredQaRun};
use evalboard_engine::numeric_qa::views::{self, ItemQuery};
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{read_folder, workspace_root};

fn demo(name: &str, cfg: &ScoreConfig) -> ScoredQaRun {
    let files = read_folder(&workspace_root().join("demo").join(name))
        .into_iter()
        .map(|(p, b)| InputFile::new(format!("{name}/{p}"), b))
        .collect();
    let run = load_qa_run(&RunInput::new(name.to_string(), files), None).expect("demo run");
    score_qa_run(run, cfg)
}

#[test]
fn every_wrong_turn_says_why_and_no_correct_one_does() {
    for name in ["gpt-4o", "o3", "simulated_eval_run"] {
        let s = demo(name, &ScoreConfig::default());
        let page = views::items(
            &s,
            &ItemQuery {
                limit: 100_000,
                ..ItemQuery::default()
            },
        );
        assert!(
            page.rows.iter().any(|r| !r.correct),
            "{name} has wrong turns"
        );
        for r in &page.rows {
            assert_eq!(r.reason.is_some(), !r.correct, "{name}: {r:?}");
            if let Some(why) = &r.reason {
                assert!(!why.trim().is_empty(), "{name}: {r:?}");
            }
        }
    }
    // The demo's 15.686 vs 15.7%: the reason names the percent-vs-fraction scale.
    let s = demo("gpt-4o", &ScoreConfig::default());
    let ov = views::overview(&s, 100);
    let w = ov
        .first_wrong
        .iter()
        .find(|w| w.expected == "15.7%")
        .expect("the 15.7% turn is wrong");
    let why = w.reason.as_deref().unwrap_or_default();
    assert!(why.starts_with("scale: 15.6863 is 100×"), "{why}");
    assert!(why.contains("unit_agnostic_match accepts it"), "{why}");
}

#[test]
fn the_conversation_view_has_the_models_work() {
    let s = demo("simulated_eval_run", &ScoreConfig::default());
    let c = views::conversation(&s, 0).expect("conversation 0");
    let work = &c.turns[0].work;
    assert!(!work.tool_calls.is_empty(), "{work:?}");
    assert!(!work.llm_calls.is_empty(), "{work:?}");
    assert!(!work.validator.is_empty(), "{work:?}");
    let call = &work.tool_calls[0];
    assert!(call.params.is_some() && call.result.is_some(), "{call:?}");
    let llm = &work.llm_calls[0];
    assert!(
        llm.total_tokens.is_some() && llm.latency_ms.is_some(),
        "{llm:?}"
    );
}

#[test]
fn the_fa2_profile_overview_shows_its_own_headline() {
    let doc = demo("simulated_eval_run", &ScoreConfig::default());
    assert!(views::overview(&doc, 10).profile_headline.is_empty());
    let cfg = ScoreConfig {
        profile: Profile::Fa2,
        ..ScoreConfig::default()
    };
    let s = demo("simulated_eval_run", &cfg);
    let ov = views::overview(&s, 10);
    assert_eq!(ov.profile, Profile::Fa2);
    let st = statistics_value(&s.run);
    let keys: Vec<&str> = ov.profile_headline.iter().map(|m| m.key.as_str()).collect();
    assert_eq!(
        keys[..3],
        [
            "numerical_accuracy",
            "financial_accuracy",
            "soft_match_accuracy"
        ]
    );
    for m in &ov.profile_headline {
        assert_eq!(m.value, st[&m.key].as_f64(), "{}", m.key);
        assert!(!m.definition.is_empty());
    }
    // The run list's number follows the profile too (it said the doc accuracy under fa2).
    let listed = evalboard_engine::run::RunRef::NumericQa(&s).headline_value();
    assert_eq!(listed, ov.profile_headline[0].value);
    assert_ne!(
        listed, ov.stats.numerical_accuracy,
        "the demo run must tell them apart"
    );
}
