//! financial-agent-2's `turns.csv` with stray quotes (`engine::csv_rows`): rows a stray quote
//! merged are read line by line again, and every problem names its lines. Before, two stray
//! opening quotes in one column merged four rows into one record with the header's 28 fields:
//! the run had 1 turn, the file was "parsed", and nothing said so.

use evalboard_engine::accounting::FileStatus;
use evalboard_engine::input::{InputFile, RunInput};
use evalboard_engine::numeric_qa::formats::fa2_traces::{read_turns_csv, trace_order_from_csv};
use evalboard_engine::numeric_qa::model::RawValue;
use evalboard_test_support::fixture;

/// The writer's header (28 columns).
fn header() -> String {
    let text = std::fs::read_to_string(fixture("numeric_qa/ok/fa2_simulated/input/turns.csv"))
        .expect("turns.csv");
    text.lines().next().expect("a header").to_string()
}

/// One row as the writer writes it, of trace `t`, turn `i`; `extra` replaces cells by column.
fn row(t: &str, i: usize, extra: &[(&str, &str)]) -> String {
    let question = format!("what was the value in year {i}?");
    let answer = (10 + i).to_string();
    let cells: Vec<String> = header()
        .split(',')
        .map(|c| {
            if let Some((_, v)) = extra.iter().find(|(k, _)| *k == c) {
                return v.to_string();
            }
            match c {
                "trace_id" => t.to_string(),
                "conversation_id" => format!("conv-{t}"),
                "turn_idx" => i.to_string(),
                "question" => question.clone(),
                "expected_answer" | "actual_answer" | "ground_truth_program" => answer.clone(),
                "validator_valid" | "numerical_match" | "financial_match" | "soft_match" => {
                    "True".into()
                }
                "error_occurred" => "False".into(),
                "error_type" | "error_message" => String::new(),
                _ => "1".into(),
            }
        })
        .collect();
    cells.join(",")
}

/// `row` with a stray quote before its question.
fn stray(t: &str, i: usize) -> String {
    row(t, i, &[]).replacen(",what was", ",\"what was", 1)
}

fn file(rows: &[String]) -> String {
    format!("{}\n{}\n", header(), rows.join("\n"))
}

fn shown(diags: &[evalboard_engine::Diagnostic]) -> Vec<String> {
    diags.iter().map(ToString::to_string).collect()
}

#[test]
fn two_stray_quotes_no_longer_merge_four_rows_into_one() {
    let text = file(&[
        stray("t1", 0),
        row("t1", 1, &[]),
        row("t1", 2, &[]),
        stray("t1", 3),
    ]);
    let (convs, diags) = read_turns_csv("turns.csv", text.as_bytes());
    let turns = &convs[0].turns;
    assert_eq!(turns.len(), 4, "{:?}", shown(&diags));
    let lines: Vec<Option<u32>> = turns.iter().map(|t| t.source.line).collect();
    assert_eq!(lines, [Some(2), Some(3), Some(4), Some(5)]);
    assert_eq!(turns[0].question, "what was the value in year 0?");
    assert_eq!(turns[3].expected, RawValue::Str("13".into()));
    assert_eq!(
        shown(&diags)[..3],
        [
            "turns.csv:2: error: lines 2–5 were read as one row: a quote opened in `question` on line 2 closes only on line 5 (a stray quote?); the lines are read one by one (4 of 4 are rows)",
            "turns.csv:2: warning: stray quote at the start of `question`; the line is read without it",
            "turns.csv:5: warning: stray quote at the start of `question`; the line is read without it",
        ]
    );
}

#[test]
fn field_count_per_row_is_checked_and_lines_named() {
    let short = row("t1", 1, &[]).rsplit_once(',').unwrap().0.to_string();
    let long = row("t1", 2, &[]) + ",extra";
    let text = file(&[row("t1", 0, &[]), short, long, row("t1", 3, &[])]);
    let (convs, diags) = read_turns_csv("turns.csv", text.as_bytes());
    assert_eq!(convs[0].turns.len(), 2);
    assert_eq!(
        shown(&diags)[..2],
        [
            "turns.csv:3: error: row has 27 fields, the header has 28; row skipped",
            "turns.csv:4: error: row has 29 fields, the header has 28; row skipped",
        ]
    );
    // A merge whose lines are not all rows: each lost line is named.
    let text = file(&[stray("t1", 0), "half a row".to_string(), row("t1", 2, &[])]);
    let (convs, diags) = read_turns_csv("turns.csv", text.as_bytes());
    assert_eq!(convs[0].turns.len(), 2, "{:?}", shown(&diags));
    assert!(shown(&diags).contains(
        &"turns.csv:3: error: line has 1 fields on its own, the header has 28; line skipped"
            .to_string()
    ));
}

#[test]
fn a_field_with_a_line_break_is_one_row() {
    let multi = row(
        "t1",
        1,
        &[
            ("error_type", "ValidationError"),
            (
                "error_message",
                "\"1 validation error\n  field required, line 2\"",
            ),
        ],
    );
    let text = file(&[row("t1", 0, &[]), multi, row("t1", 2, &[])]);
    let (convs, diags) = read_turns_csv("turns.csv", text.as_bytes());
    let turns = &convs[0].turns;
    assert_eq!(turns.len(), 3);
    assert_eq!(
        turns[1].error.as_ref().map(|e| e.message.as_str()),
        Some("1 validation error\n  field required, line 2")
    );
    assert_eq!(turns[2].source.line, Some(5));
    assert!(
        diags
            .iter()
            .all(|d| d.severity != evalboard_engine::Severity::Error),
        "{:?}",
        shown(&diags)
    );
}

#[test]
fn the_loader_reports_the_file_and_the_order_is_recovered() {
    let text = file(&[
        stray("t1", 0),
        row("t2", 0, &[]),
        row("t3", 0, &[]),
        stray("t4", 0),
    ]);
    let input = RunInput {
        name: "r".into(),
        files: vec![InputFile::new("turns.csv", text.clone().into_bytes())],
    };
    let run = evalboard_engine::numeric_qa::read::load_qa_run(&input, None).unwrap();
    assert_eq!(run.conversations.len(), 4);
    assert_eq!(run.files[0].status, FileStatus::PartlyParsed);
    assert!(
        run.diagnostics
            .iter()
            .any(|d| d.message.starts_with("lines 2–5 were read as one row")),
        "{:?}",
        shown(&run.diagnostics)
    );
    // summary.csv gives the order; its merged rows are recovered, and named.
    let (order, diags) = trace_order_from_csv("summary.csv", text.as_bytes());
    assert_eq!(order, ["t1", "t2", "t3", "t4"]);
    assert_eq!(diags.len(), 3, "{:?}", shown(&diags));
}
