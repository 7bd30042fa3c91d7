//! Unit tests for the financial-agent-2 compat writer (the byte-exact fixtures are in
//! `crates/engine/tests/fa2.rs`).

use super::*;
use crate::numeric_qa::model::{
    Features, Plan, PlanStep, QaConversation, QaTurn, Tokens, TurnError,
};

fn s(x: &str) -> RawValue {
    RawValue::Str(x.to_string())
}

fn turn(idx: u32, expected: RawValue, predicted: Option<RawValue>) -> QaTurn {
    QaTurn {
        turn_idx: idx,
        question: format!("q{idx}"),
        expected,
        predicted,
        ..QaTurn::default()
    }
}

fn plan(steps: &[(&str, Option<&str>)]) -> Plan {
    Plan {
        steps: steps
            .iter()
            .map(|(tool, op)| PlanStep {
                tool: tool.to_string().into(),
                operation: op.map(|o| o.to_string().into()),
                detail: None,
            })
            .collect(),
    }
}

fn check_scores(t: &QaTurn, want: (bool, bool, bool, Option<f64>, u32)) {
    let got = score_turn(t);
    assert_eq!(
        (
            got.numerical,
            got.financial,
            got.soft_match,
            got.logic_recall,
            got.operations_per_turn
        ),
        want,
        "{t:?}"
    );
}

#[test]
fn score_turn_recomputes_flags_and_uses_the_plan() {
    let mut t = turn(0, s("142.4%"), Some(RawValue::Float(1.42403)));
    // Stored flags are ignored.
    t.original.numerical_match = Some(true);
    check_scores(&t, (false, true, true, None, 0));

    // With a plan: compute steps count, recall against the program.
    t.plan = Some(plan(&[
        ("extract_value", None),
        ("compute", Some("subtract")),
        ("compute", Some("percentage_change")),
        ("compute", None),
    ]));
    t.ground_truth_program = Some("subtract(60.94, 25.14), divide(#0, 25.14)".into());
    check_scores(&t, (false, true, true, Some(0.5), 3));

    // log_plan only computes recall for a non-empty program.
    t.ground_truth_program = Some(String::new());
    check_scores(&t, (false, true, true, None, 3));
    t.ground_truth_program = None;
    check_scores(&t, (false, true, true, None, 3));

    // Without a plan the recorded recall and operations are kept.
    t.plan = None;
    t.original.logic_recall = Some(0.25);
    t.original.operations_per_turn = Some(7);
    check_scores(&t, (false, true, true, Some(0.25), 7));

    // No answer: not scored.
    let t = turn(0, s("0"), None);
    check_scores(&t, (false, false, false, None, 0));
}

#[test]
fn python_numbers() {
    assert_eq!(py_sum([Num::Int(1), Num::Int(2)]), Num::Int(3));
    assert_eq!(py_sum([Num::Int(1), Num::Float(0.5)]), Num::Float(1.5));
    assert_eq!(py_sum([]), Num::Int(0));
    assert_eq!(
        py_sum([Num::Float(0.1), Num::Float(0.2), Num::Float(0.3)]),
        Num::Float(0.6000000000000001)
    );
    assert_eq!(Num::Int(2).div(Num::Int(3)), Some(2.0 / 3.0));
    assert_eq!(Num::Int(2).div(Num::Int(0)), None);
    assert_eq!(Num::Float(f64::NAN).div(Num::Float(0.0)), None);
    assert_eq!(Num::Int(1350).text(), "1350");
    assert_eq!(Num::Float(1350.0).text(), "1350.0");
}

/// A conversation from another format: no fa2 extras, TurnMetrics defaults fill the gaps.
fn foreign_conversation() -> QaConversation {
    let mut t0 = turn(0, s("1,234"), Some(RawValue::Int(1234)));
    t0.tokens = Tokens {
        prompt: Some(100),
        completion: Some(20),
        total: None,
    };
    t0.latency_ms = Some(12.5);
    t0.plan = Some(plan(&[("compute", Some("add"))]));
    t0.ground_truth_program = Some("add(1000, 234)".into());
    let mut t1 = turn(1, s("yes"), Some(s("yes")));
    t1.error = Some(Box::new(TurnError {
        error_type: "KeyError".into(),
        message: "'row'".into(),
        context: Some(serde_json::json!({"turn_idx": 1, "why": "it's"})),
    }));
    QaConversation {
        id: "conv-1".into(),
        trace_id: None,
        conversation_type: None,
        features: Features {
            num_dialogue_turns: Some(3),
            has_type2_question: Some(true),
            ..Features::default()
        },
        turns: vec![t0, t1],
        ..QaConversation::default()
    }
}

#[test]
fn conversations_without_fa2_extras() {
    let run = QaRun {
        conversations: vec![foreign_conversation()],
        ..QaRun::default()
    };
    let out = write_outputs(&run, &Fa2Options::default());
    assert_eq!(out.diagnostics, vec![]);
    let summary: Vec<&str> = out.summary_csv.split("\r\n").collect();
    assert_eq!(
        summary[1],
        ",conv-1,3turn_type2True,3,120,100,20,0,0,12.5,0.3333333333333333,0,\
         0.3333333333333333,0.3333333333333333,0.3333333333333333,1.0,0.3333333333333333,\
         True,KeyError,'row',1,,,True,False"
    );
    let turns: Vec<&str> = out.turns_csv.split("\r\n").collect();
    assert_eq!(
        turns[1],
        ",conv-1,0,q0,\"1,234\",1234,120,100,20,0,0,12.5,,1,0.0,0,False,0.0,,\
         True,True,True,1.0,1,\"add(1000, 234)\",False,,"
    );
    assert_eq!(
        turns[2],
        ",conv-1,1,q1,yes,yes,0,0,0,0,0,0.0,,0,0.0,0,False,0.0,,\
         False,False,False,,0,,True,KeyError,'row'"
    );
    assert_eq!(
        out.errors_csv.split("\r\n").nth(1),
        Some(",conv-1,1,q1,yes,KeyError,'row',True,False,0,0,\"{'turn_idx': 1, 'why': \"\"it's\"\"}\"")
    );
    assert_eq!(
        out.validation_csv,
        "trace_id,conversation_id,turn_idx,retry_number,valid,confidence,failed_steps,issues\r\n"
    );
    let stats: serde_json::Value = serde_json::from_str(&out.statistics_json).unwrap();
    assert_eq!(stats["accuracy_by_type"]["3turn_type2True"], 0.0);
    assert_eq!(stats["total_turns"], 3);
    assert_eq!(stats["avg_validator_confidence"], 0.0);
    assert!(out
        .statistics_json
        .contains("\"avg_validator_confidence\": 0.0,"));
}

#[test]
fn failed_turn_zero_prints_empty_and_first_error_wins() {
    let mut conv = foreign_conversation();
    conv.turns[0].error = Some(Box::new(TurnError {
        error_type: String::new(),
        message: "first".into(),
        context: None,
    }));
    let run = QaRun {
        conversations: vec![conv],
        ..QaRun::default()
    };
    let out = write_outputs(&run, &Fa2Options::default());
    let row = out.summary_csv.split("\r\n").nth(1).unwrap();
    assert!(row.contains(",True,,first,,"), "{row}");
    // The trace error has no type: not counted in error_types, but counted in error_rate.
    let stats: serde_json::Value = serde_json::from_str(&out.statistics_json).unwrap();
    assert_eq!(stats["error_types"], serde_json::json!({}));
    assert_eq!(stats["error_rate"], 1.0);
    assert!(out.errors_csv.contains(",{}\r\n"));
}

#[test]
fn empty_runs_give_nulls_and_notes_not_crashes() {
    let out = write_outputs(&QaRun::default(), &Fa2Options::default());
    assert_eq!(out.diagnostics.len(), 1);
    assert!(out.diagnostics[0].message.contains("writes no files"));
    let stats: serde_json::Value = serde_json::from_str(&out.statistics_json).unwrap();
    assert_eq!(stats["numerical_accuracy"], serde_json::Value::Null);
    assert_eq!(stats["error_rate"], serde_json::Value::Null);
    assert_eq!(stats["avg_logic_recall"], 0.0);
    assert_eq!(stats["accuracy_by_turn_number"], serde_json::json!({}));
    assert_eq!(out.summary_csv.matches("\r\n").count(), 1);

    let conv = QaConversation {
        id: "c".into(),
        conversation_type: Some("2turn_type2False".into()),
        features: Features {
            num_dialogue_turns: Some(0),
            ..Features::default()
        },
        ..QaConversation::default()
    };
    let run = QaRun {
        conversations: vec![conv],
        ..QaRun::default()
    };
    let out = write_outputs(&run, &Fa2Options::default());
    assert!(out.diagnostics[0].message.contains("ZeroDivisionError"));
    let stats: serde_json::Value = serde_json::from_str(&out.statistics_json).unwrap();
    assert_eq!(stats["numerical_accuracy"], serde_json::Value::Null);
    assert_eq!(stats["conversation_level_accuracy"], 0.0);
}

#[test]
fn options_override_the_original_statistics() {
    let run = QaRun {
        conversations: vec![foreign_conversation()],
        original: crate::numeric_qa::model::OriginalFiles {
            json: vec![(
                "statistics.json".into(),
                serde_json::json!({"run_id": "orig", "timestamp": "t0", "sample_size": 5, "random_seed": 1}),
            )],
            csv: vec![],
        },
        ..QaRun::default()
    };
    let opts = Fa2Options {
        run_id: Some("mine".into()),
        random_seed: Some(9),
        ..Fa2Options::default()
    };
    let out = write_outputs(&run, &opts);
    assert!(out.statistics_json.starts_with(
        "{\n  \"run_id\": \"mine\",\n  \"timestamp\": \"t0\",\n  \"total_conversations\": 1,\n  \
         \"total_turns\": 3,\n  \"sample_size\": 5,\n  \"random_seed\": 9,\n"
    ));
}

#[test]
fn unknown_conversation_type_is_noted() {
    let mut conv = foreign_conversation();
    conv.features = Features::default();
    let run = QaRun {
        conversations: vec![conv],
        ..QaRun::default()
    };
    let out = write_outputs(&run, &Fa2Options::default());
    assert!(out.diagnostics[0]
        .message
        .contains("without a conversation_type"));
    assert!(out.statistics_json.contains("\"null\": 0.0"));
}
