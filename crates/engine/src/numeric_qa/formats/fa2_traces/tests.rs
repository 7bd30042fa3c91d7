//! Unit tests for the financial-agent-2 reader: traces, turns.csv, run folders.

use super::*;
use crate::input::InputFile;

/// A minimal trace with the given turns (JSON object texts).
fn trace_json(turns: &[&str]) -> String {
    format!(
        r#"{{"trace_id": "t-1", "conversation_id": "Single_X/2007/page_1.pdf-1",
            "conversation_type": "2turn_type2False", "num_turns": 2, "total_tokens": 0,
            "error_occurred": false, "turns": [{}],
            "timestamp_start": "2026-01-01 00:00:00.000001", "timestamp_end": null,
            "has_type2_question": true, "has_duplicate_columns": false,
            "has_non_numeric_values": false}}"#,
        turns.join(",")
    )
}

const FULL_TURN: &str = r#"{"turn_idx": 0, "question": "q0?", "expected_answer": "60.94",
    "actual_answer": 60.94, "turn_tokens": 1350, "prompt_tokens": 1200, "completion_tokens": 150,
    "turn_llm_calls": 1, "turn_tool_calls": 1, "turn_latency_ms": 0.5, "plan_type": "workflow",
    "plan_steps": 2, "plan_complexity": 0.0, "validator_retries": 0, "validator_valid": true,
    "validator_confidence": 0.9,
    "validator_logs": [{"valid": true, "confidence": 0.9, "failed_steps": ["s1"], "issues": ["x"], "retry_number": 0}],
    "tools_used": ["workflow_table_tool"],
    "tool_calls": [{"tool_name": "workflow_table_tool", "params": {}, "result": 1, "latency_ms": 1.2, "success": true, "error": null}],
    "llm_calls": [{"prompt_tokens": 1200, "completion_tokens": 150, "total_tokens": 1350, "latency_ms": 850.0, "model": "gpt-4o", "purpose": "plan_generation"}],
    "numerical_match": true, "financial_match": true, "soft_match": false, "logic_recall": 1.0,
    "ground_truth_program": "subtract(1, 2)", "operations_per_turn": 1, "error_occurred": true,
    "error_type": "ValueError", "error_message": "could not convert",
    "error_context": {"turn_idx": 0, "question": "q0?"},
    "timestamp_start": "2026-01-01 00:00:00.000002", "timestamp_end": "2026-01-01 00:00:00.000003"}"#;

fn read_ok(text: &str) -> (QaConversation, Vec<Diagnostic>) {
    match read_trace("traces/t-1.json", text.as_bytes()) {
        Ok(r) => r,
        Err(d) => panic!("read_trace failed: {d:?}"),
    }
}

#[test]
fn full_trace_lowers_every_field() {
    let (conv, diags) = read_ok(&trace_json(&[FULL_TURN]));
    assert_eq!(diags, vec![]);
    assert_eq!(conv.id, "Single_X/2007/page_1.pdf-1");
    assert_eq!(conv.trace_id.as_deref(), Some("t-1"));
    assert_eq!(conv.conversation_type.as_deref(), Some("2turn_type2False"));
    assert_eq!(conv.model.as_deref(), Some("gpt-4o"));
    assert_eq!(conv.features.num_dialogue_turns, Some(2));
    assert_eq!(conv.features.has_type2_question, Some(true));
    assert_eq!(&*conv.source.file, "traces/t-1.json");
    let t = &conv.turns[0];
    assert_eq!(t.question, "q0?");
    assert_eq!(t.expected, RawValue::Str("60.94".into()));
    assert_eq!(t.predicted, Some(RawValue::Float(60.94)));
    assert_eq!(t.plan_steps, Some(2));
    assert_eq!(t.ground_truth_program.as_deref(), Some("subtract(1, 2)"));
    assert_eq!(
        t.tokens,
        Tokens {
            prompt: Some(1200),
            completion: Some(150),
            total: Some(1350)
        }
    );
    assert_eq!(t.latency_ms, Some(0.5));
    let err = t.error.as_ref().unwrap();
    assert_eq!(err.error_type, "ValueError");
    assert_eq!(err.message, "could not convert");
    assert_eq!(err.context.as_ref().unwrap()["turn_idx"], 0);
    assert_eq!(t.original.numerical_match, Some(true));
    assert_eq!(t.original.soft_match, Some(false));
    assert_eq!(t.original.logic_recall, Some(1.0));
    assert_eq!(t.original.operations_per_turn, Some(1));
    assert_eq!(t.source.record, Some(0));
    let x = t.fa2.as_ref().unwrap();
    assert_eq!(x.plan_type, RawValue::Str("workflow".into()));
    assert_eq!(x.plan_complexity, RawValue::Float(0.0));
    assert_eq!(
        t.validator_logs[0].failed_steps,
        vec![RawValue::Str("s1".into())]
    );
    assert_eq!(x.tool_calls[0].success, RawValue::Bool(true));
    assert_eq!(x.tools_used, vec!["workflow_table_tool".to_string()]);
    let extra = conv.fa2.as_ref().unwrap();
    assert_eq!(
        extra.get("timestamp_start"),
        Some(&RawValue::Str("2026-01-01 00:00:00.000001".into()))
    );
    assert_eq!(extra.get("timestamp_end"), Some(&RawValue::Null));
    assert_eq!(extra.get("turns"), None);
}

#[test]
fn missing_fields_get_model_defaults_and_warnings() {
    let (conv, diags) = read_ok(
        r#"{"trace_id": "t-2", "turns": [{"turn_idx": 0, "expected_answer": 5, "actual_answer": null,
            "turn_latency_ms": 3, "plan_steps": 2.0, "turn_tokens": "many"}]}"#,
    );
    let messages: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages,
        vec![
            "traces/t-1.json [trace]: warning: missing required field `conversation_id`",
            "traces/t-1.json [trace]: warning: missing required field `conversation_type`",
            "traces/t-1.json [trace]: warning: missing required field `num_turns`",
            "traces/t-1.json [turns[0]]: warning: missing required field `question`",
            "traces/t-1.json [turns[0]]: warning: `turn_tokens` should be an integer, got Str(\"many\"); using 0",
        ]
    );
    assert_eq!(conv.id, "");
    assert_eq!(conv.conversation_type, None);
    assert_eq!(conv.features.num_dialogue_turns, None);
    let t = &conv.turns[0];
    assert_eq!(t.expected, RawValue::Int(5));
    assert_eq!(t.predicted, None);
    assert_eq!(t.error, None);
    let x = t.fa2.as_ref().unwrap();
    assert_eq!(x.turn_latency_ms, RawValue::Float(3.0)); // pydantic float
    assert_eq!(x.plan_steps, RawValue::Int(2)); // integral float accepted as int
    assert_eq!(x.turn_tokens, RawValue::Int(0));
    assert_eq!(x.validator_valid, RawValue::Bool(false));
    assert_eq!(x.logic_recall, RawValue::Null);
    assert_eq!(x.plan_type, RawValue::Null);
}

#[test]
fn out_of_order_turns_are_sorted_with_a_diagnostic() {
    let turn = |i: u32| {
        format!(
            r#"{{"turn_idx": {i}, "question": "q{i}", "expected_answer": "1", "actual_answer": 1}}"#
        )
    };
    let (t2, t0, t1) = (turn(2), turn(0), turn(1));
    let (conv, diags) = read_ok(&trace_json(&[&t2, &t0, &t1]));
    let idx: Vec<u32> = conv.turns.iter().map(|t| t.turn_idx).collect();
    assert_eq!(idx, vec![0, 1, 2]);
    let records: Vec<Option<u32>> = conv.turns.iter().map(|t| t.source.record).collect();
    assert_eq!(records, vec![Some(1), Some(2), Some(0)]);
    assert_eq!(diags.len(), 1);
    assert!(
        diags[0].message.contains("out of order (turn_idx 2, 0, 1)"),
        "{}",
        diags[0]
    );
}

/// The conversation's model is the first LLM call's that names one, in turn order (not file
/// order); calls without a string model are passed over.
#[test]
fn model_is_the_first_named_llm_call_in_turn_order() {
    let turn = |i: u32, calls: &str| {
        format!(
            r#"{{"turn_idx": {i}, "question": "q", "expected_answer": "1", "actual_answer": 1, "llm_calls": [{calls}]}}"#
        )
    };
    let t1 = turn(1, r#"{"model": "gpt-4o"}"#);
    let t0 = turn(0, r#"{"model": null}, {"model": 7}, {"model": "o3"}"#);
    let t2 = turn(2, "");
    assert_eq!(
        read_ok(&trace_json(&[&t1, &t0, &t2])).0.model.as_deref(),
        Some("o3")
    );
    let t0 = turn(0, r#"{"prompt_tokens": 3}"#);
    let t1b = turn(1, r#"{"model": "first"}"#);
    assert_eq!(
        read_ok(&trace_json(&[&t1, &t0, &t1b])).0.model.as_deref(),
        Some("gpt-4o")
    );
    assert_eq!(read_ok(&trace_json(&[&t2])).0.model, None);
}

#[test]
fn python_nan_and_infinity_are_read() {
    let t = r#"{"turn_idx": 0, "question": "q", "expected_answer": "0", "actual_answer": NaN,
        "turn_latency_ms": Infinity}"#;
    let (conv, _) = read_ok(&trace_json(&[t]));
    assert!(matches!(conv.turns[0].predicted, Some(RawValue::Float(f)) if f.is_nan()));
    assert_eq!(conv.turns[0].latency_ms, Some(f64::INFINITY));
}

#[test]
fn unusable_files_are_errors_with_lines() {
    let err = read_trace(
        "traces/bad.json",
        b"{\n\"trace_id\": \"x\",\n\"turns\": [\n}",
    )
    .unwrap_err();
    assert_eq!(err.len(), 1);
    assert_eq!(err[0].line, Some(4));
    assert!(err[0].message.starts_with("not valid JSON"));
    let err = read_trace("traces/list.json", b"[1, 2]").unwrap_err();
    assert!(err[0].message.contains("JSON object"));
}

#[test]
fn bad_turns_are_skipped_not_fatal() {
    let (conv, diags) = read_ok(&trace_json(&["42", FULL_TURN]));
    assert_eq!(conv.turns.len(), 1);
    assert_eq!(conv.turns[0].source.record, Some(1));
    assert_eq!(diags[0].record.as_deref(), Some("turns[0]"));
}

#[test]
fn sniffing() {
    assert!(looks_like_trace(trace_json(&[]).as_bytes()));
    assert!(looks_like_trace(
        format!("\u{feff}\n {}", trace_json(&[])).as_bytes()
    ));
    assert!(!looks_like_trace(br#"[{"example_id": "x", "turns": []}]"#));
    assert!(!looks_like_trace(br#"{"run_id": "x", "total_turns": 3}"#));
    assert!(looks_like_turns_csv(TURNS_CSV.as_bytes()));
    assert!(!looks_like_turns_csv(
        b"trace_id,conversation_id,conversation_type\r\n"
    ));
}

const TURNS_HEADER: &str = "trace_id,conversation_id,turn_idx,question,expected_answer,actual_answer,turn_tokens,prompt_tokens,completion_tokens,turn_llm_calls,turn_tool_calls,turn_latency_ms,plan_type,plan_steps,plan_complexity,validator_retries,validator_valid,validator_confidence,tools_used,numerical_match,financial_match,soft_match,logic_recall,operations_per_turn,ground_truth_program,error_occurred,error_type,error_message\r\n";

const TURNS_CSV: &str = concat!(
    "trace_id,conversation_id,turn_idx,question,expected_answer,actual_answer,turn_tokens,prompt_tokens,completion_tokens,turn_llm_calls,turn_tool_calls,turn_latency_ms,plan_type,plan_steps,plan_complexity,validator_retries,validator_valid,validator_confidence,tools_used,numerical_match,financial_match,soft_match,logic_recall,operations_per_turn,ground_truth_program,error_occurred,error_type,error_message\r\n",
    "a,conv-a,1,\"second, with comma\",35.80,,1350,1200,150,1,1,0.04,workflow,2,0.0,0,True,0.9,\"t1,t2\",False,False,False,1.0,1,\"subtract(60.94, 25.14)\",True,ValueError,could not convert\r\n",
    "b,conv-b,0,\"multi\nline\",3,3.0,10,5,5,1,0,0.1,,1,0.0,0,False,0.0,,True,True,True,,0,,False,,\r\n",
    "a,conv-a,0,first,60.94,60.94,1350,1200,150,1,1,0.7,workflow,1,0.0,0,True,0.9,t1,True,True,True,1.0,0,60.94,False,,\r\n",
    "a,conv-a,2,too few fields\r\n",
    "b,conv-b,1,q,1,x,lots,5,5,1,0,0.1,,1,0.0,0,Maybe,0.0,,True,True,True,,0,,False,,\r\n",
);

#[test]
fn turns_csv_groups_sorts_and_reports() {
    let (convs, diags) = read_turns_csv("turns.csv", TURNS_CSV.as_bytes());
    let got: Vec<(Option<&str>, &str, Vec<u32>)> = convs
        .iter()
        .map(|c| {
            (
                c.trace_id.as_deref(),
                c.id.as_str(),
                c.turns.iter().map(|t| t.turn_idx).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("a"), "conv-a", vec![0, 1]),
            (Some("b"), "conv-b", vec![0, 1])
        ]
    );
    let messages: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages,
        vec![
            "turns.csv:6: error: row has 4 fields, the header has 28; row skipped",
            "turns.csv:7: warning: `turn_tokens`: expected an integer, got \"lots\"; using the default",
            "turns.csv:7: warning: `validator_valid`: expected True or False, got \"Maybe\"; using the default",
            "turns.csv: info: scored from turns.csv, which does not record conversation_type, the dataset's num_turns (the row count is used), features, validator logs, tool calls or error contexts",
            "turns.csv [a]: warning: turns of a are out of order (turn_idx 1, 0); sorted by turn_idx",
        ]
    );
    let a1 = &convs[0].turns[1];
    assert_eq!(a1.question, "second, with comma");
    assert_eq!(a1.expected, RawValue::Str("35.80".into()));
    assert_eq!(a1.predicted, None);
    assert_eq!(a1.source.line, Some(2));
    assert_eq!(a1.error.as_ref().unwrap().message, "could not convert");
    let x = a1.fa2.as_ref().unwrap();
    assert_eq!(x.tools_used, vec!["t1".to_string(), "t2".to_string()]);
    assert_eq!(x.turn_latency_ms, RawValue::Float(0.04));
    assert_eq!(x.logic_recall, RawValue::Float(1.0));
    let b0 = &convs[1].turns[0];
    assert_eq!(b0.question, "multi\nline");
    assert_eq!(b0.predicted, Some(RawValue::Str("3.0".into())));
    assert_eq!(b0.ground_truth_program, None);
    assert_eq!(b0.fa2.as_ref().unwrap().logic_recall, RawValue::Null);
    assert_eq!(b0.fa2.as_ref().unwrap().plan_type, RawValue::Null);
    let b1 = &convs[1].turns[1];
    assert_eq!(b1.source.line, Some(7));
    assert_eq!(b1.fa2.as_ref().unwrap().turn_tokens, RawValue::Int(0));
}

#[test]
fn turns_csv_without_required_columns_is_rejected() {
    let (convs, diags) = read_turns_csv("turns.csv", b"trace_id,question\r\nx,y\r\n");
    assert!(convs.is_empty());
    assert_eq!(
        diags[0].to_string(),
        "turns.csv:1: error: turns.csv header lacks `turn_idx`"
    );
    let (convs, diags) = read_turns_csv("turns.csv", TURNS_HEADER.as_bytes());
    assert!(convs.is_empty());
    assert!(diags.is_empty());
}

/// Fuzz finding (evalboard-fuzz, turns_csv): each row's line was counted from the start of the
/// file, so reading was quadratic in its size (20,000 rows took 1.7 s in a release build, a
/// big run's 100,000 rows minutes). Now one pass, with the same lines.
#[test]
fn a_big_turns_csv_reads_in_one_pass_with_the_right_lines() {
    let row = "a,conv-a,0,first,60.94,60.94,1350,1200,150,1,1,0.7,workflow,1,0.0,0,True,0.9,t1,True,True,True,1.0,0,60.94,False,,\r\n";
    let n = 20_000;
    let mut text = TURNS_HEADER.to_string();
    for _ in 1..n {
        text.push_str(row);
    }
    text.push_str("a,conv-a,2,too few fields\r\n");
    let t = std::time::Instant::now();
    let (convs, diags) = read_turns_csv("turns.csv", text.as_bytes());
    let took = t.elapsed();
    assert_eq!(convs.len(), 1);
    assert_eq!(convs[0].turns.len(), n - 1);
    let lines: Vec<Option<u32>> = convs[0].turns.iter().map(|t| t.source.line).collect();
    assert_eq!(lines.first(), Some(&Some(2)));
    assert_eq!(lines.last(), Some(&Some(n as u32)));
    assert_eq!(
        diags[0].to_string(),
        format!(
            "turns.csv:{}: error: row has 4 fields, the header has 28; row skipped",
            n + 1
        )
    );
    // Quadratic counting took over a minute here unoptimized; one pass takes well under a second.
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}

/// Fuzz finding (evalboard-fuzz, turns_csv: 2.2 s for a 1.9 MB file): after one very wide row
/// every row cost a copy of its field bounds (csv's `records()` clones each record), and each
/// id was searched among those kept so far. A bad row is skipped, as before.
#[test]
fn trace_order_reads_wide_rows_and_many_traces_in_one_pass() {
    let mut bytes = b"trace_id,x\r\n".to_vec();
    bytes.extend(",".repeat(70_000).into_bytes());
    bytes.extend(b"\r\n\xff\xfe,1\r\n");
    for i in 0..100_000 {
        bytes.extend(format!("t{},1\r\n", i % 50_000).into_bytes());
    }
    let t = std::time::Instant::now();
    let (order, _) = trace_order_from_csv("summary.csv", &bytes);
    let took = t.elapsed();
    assert_eq!(order.len(), 50_000);
    assert_eq!(order.first().map(String::as_str), Some("t0"));
    assert_eq!(order.last().map(String::as_str), Some("t49999"));
    // The copying took seconds even optimized; one pass is milliseconds.
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}

#[test]
fn run_folder_uses_summary_order_and_keeps_originals() {
    let trace = |id: &str| trace_json(&[FULL_TURN]).replace("\"t-1\"", &format!("\"{id}\""));
    let input = RunInput::new(
        "run",
        vec![
            InputFile::new("traces/aaa.json", trace("aaa")),
            InputFile::new("traces/zzz.json", trace("zzz")),
            InputFile::new("traces/mmm.json", trace("mmm")),
            InputFile::new(
                "traces/broken.json",
                "{\"trace_id\": \"conversation_id\" \"turns\"",
            ),
            InputFile::new(
                "summary.csv",
                "trace_id,conversation_id\r\nzzz,c\r\naaa,c\r\n",
            ),
            InputFile::new("statistics.json", "{\"run_id\": \"r1\", \"x\": NaN}"),
            InputFile::new("notes.txt", "hello"),
        ],
    );
    let run = read_run_folder(&input);
    let ids: Vec<&str> = run
        .conversations
        .iter()
        .map(|c| c.trace_id.as_deref().unwrap())
        .collect();
    assert_eq!(ids, vec!["zzz", "aaa", "mmm"]);
    assert_eq!(run.original.json.len(), 1);
    assert_eq!(run.original.json[0].1["run_id"], "r1");
    assert_eq!(run.original.csv, vec!["summary.csv".to_string()]);
    let statuses: Vec<(&str, FileStatus)> = run
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("notes.txt", FileStatus::Skipped),
            ("statistics.json", FileStatus::Parsed),
            ("summary.csv", FileStatus::Parsed),
            ("traces/aaa.json", FileStatus::Parsed),
            ("traces/broken.json", FileStatus::Skipped),
            ("traces/mmm.json", FileStatus::Parsed),
            ("traces/zzz.json", FileStatus::Parsed),
        ]
    );
    assert_eq!(run.diagnostics.len(), 1);
    assert_eq!(run.diagnostics[0].file, "traces/broken.json");
}

#[test]
fn run_folder_with_only_turns_csv() {
    let input = RunInput::new("run", vec![InputFile::new("turns.csv", TURNS_CSV)]);
    let run = read_run_folder(&input);
    assert_eq!(run.conversations.len(), 2);
    assert_eq!(run.files[0].format.as_deref(), Some(FORMAT_TURNS_CSV));
    assert_eq!(run.files[0].status, FileStatus::PartlyParsed);
    assert_eq!(run.diagnostics.len(), 5);
}

#[test]
fn compat_only_fields_are_checked_alike_when_not_kept() {
    // Wrong types in fields only the compat writer reads: `Doc` does not copy them, and must
    // warn about them exactly as `Full` does, in the same order.
    let turn = FULL_TURN
        .replace(r#""plan_type": "workflow""#, r#""plan_type": 3"#)
        .replace(
            r#""tools_used": ["workflow_table_tool"]"#,
            r#""tools_used": "workflow""#,
        )
        .replace(r#""tool_calls": [{"#, r#""tool_calls": {"x": [{"#)
        .replace(r#""error": null}]"#, r#""error": null}]}"#)
        .replace(
            r#""timestamp_start": "2026-01-01 00:00:00.000002""#,
            r#""timestamp_start": NaN"#,
        )
        .replace(
            r#""timestamp_end": "2026-01-01 00:00:00.000003""#,
            r#""timestamp_end": true"#,
        );
    let plain = FULL_TURN.replace(r#""turn_idx": 0"#, r#""turn_idx": 1"#);
    let text = trace_json(&[&turn, &plain]);
    let read = |detail| match read_trace_text("traces/t-1.json", &text, detail) {
        Ok((conv, diags)) => (
            conv,
            diags.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        ),
        Err(d) => panic!("{d:?}"),
    };
    let (full, full_diags) = read(ReadDetail::Full);
    let (doc, doc_diags) = read(ReadDetail::Doc);
    assert_eq!(
        full_diags,
        vec![
            "traces/t-1.json [turns[0]]: warning: `plan_type` should be a string, got Int(3); ignored",
            "traces/t-1.json [turns[0]]: warning: `tools_used` should be a list; ignored",
            "traces/t-1.json [turns[0]]: warning: `tool_calls` should be a list; ignored",
            "traces/t-1.json [turns[0]]: warning: `timestamp_start` should be a string, got Float(NaN); ignored",
            "traces/t-1.json [turns[0]]: warning: `timestamp_end` should be a string, got Bool(true); ignored",
        ]
    );
    assert_eq!(doc_diags, full_diags);
    // Full keeps the good turn's compat fields; Doc keeps none, and the rest is the same.
    let kept = full.turns[1].fa2.as_ref().expect("full keeps fa2");
    assert_eq!(kept.plan_type, RawValue::Str("workflow".into()));
    assert_eq!(kept.tools_used, vec!["workflow_table_tool".to_string()]);
    assert_eq!(kept.tool_calls.len(), 1);
    assert_eq!(
        kept.timestamp_end,
        RawValue::Str("2026-01-01 00:00:00.000003".into())
    );
    let bad = full.turns[0].fa2.as_ref().expect("full keeps fa2");
    assert_eq!(
        (&bad.plan_type, &bad.timestamp_start),
        (&RawValue::Null, &RawValue::Null)
    );
    assert!(bad.tools_used.is_empty() && bad.tool_calls.is_empty());
    let mut stripped = full.clone();
    stripped.fa2 = None;
    for t in &mut stripped.turns {
        t.fa2 = None;
    }
    assert_eq!(doc, stripped);
}
