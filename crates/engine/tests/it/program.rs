//! Data-driven tests of the program language, the ConvFinQA reader and the validator against the
//! real files in ../shared/data (see `evalboard_test_support::shared_data`), plus property tests.

use evalboard_engine::numeric_qa::finqa_program::{
    equal_program, equal_program_tokens, execute, execute_tokens, operations, parse, tokenize,
    Dialect, ExecOutcome,
};
use evalboard_engine::numeric_qa::formats::convfinqa::{
    dataset_index, looks_like_dataset, read_dataset,
};
use evalboard_engine::numeric_qa::model::RawValue;
use evalboard_engine::numeric_qa::validate::validate_dataset;
use proptest::prelude::*;
use serde_json::Value;

use evalboard_test_support::shared_data;

/// `../shared/data/<rel>` parsed as JSON (see `evalboard_test_support::shared_data`).
fn load_json(rel: &str) -> Option<Value> {
    let path = shared_data(rel)?;
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}: {}", path.display()));
    Some(serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {}", path.display())))
}

/// The golden vectors' `[flag, result]` pair as an outcome.
fn golden_outcome(pair: &Value) -> Option<ExecOutcome> {
    let flag = pair.get(0)?.as_i64()?;
    let res = pair.get(1)?;
    Some(match (flag, res) {
        (1, _) => ExecOutcome::Invalid(String::new()),
        (0, Value::String(s)) if s == "yes" => ExecOutcome::YesNo(true),
        (0, Value::String(s)) if s == "no" => ExecOutcome::YesNo(false),
        // The oracle writes non-finite floats as strings.
        (0, Value::String(s)) if s == "nan" => ExecOutcome::Number(f64::NAN),
        (0, Value::String(s)) if s == "inf" => ExecOutcome::Number(f64::INFINITY),
        (0, Value::String(s)) if s == "-inf" => ExecOutcome::Number(f64::NEG_INFINITY),
        (0, Value::Number(n)) => ExecOutcome::Number(n.as_f64()?),
        _ => return None,
    })
}

fn same_outcome(got: &ExecOutcome, want: &ExecOutcome) -> bool {
    match (got, want) {
        (ExecOutcome::Invalid(_), ExecOutcome::Invalid(_)) => true,
        (ExecOutcome::Number(a), ExecOutcome::Number(b)) => {
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) || a == b
        }
        _ => got == want,
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn golden_official_eval_vectors() {
    let Some(golden) = load_json("golden/finqa_convfinqa_official_eval.json") else {
        return;
    };
    let table: Vec<Vec<String>> = golden["table_list_of_lists"]
        .as_array()
        .map(|rows| rows.iter().map(strings).collect())
        .unwrap_or_default();
    let mut n = 0;
    for case in golden["eval_program"].as_array().into_iter().flatten() {
        let program = case["program"].as_str().unwrap_or_default();
        assert_eq!(
            tokenize(program),
            strings(&case["tokens"]),
            "tokens of {program:?}"
        );
        for (dialect, key) in [
            (Dialect::ConvFinQa, "convfinqa_eval_program"),
            (Dialect::FinQa, "finqa_eval_program"),
        ] {
            let want = golden_outcome(&case[key]).expect("golden pair");
            let got = execute(program, &table, dialect);
            assert!(
                same_outcome(&got, &want),
                "{program:?} {dialect:?}: got {got:?}, want {want:?}"
            );
            let tokens = strings(&case["tokens"]);
            assert!(same_outcome(
                &execute_tokens(&tokens, &table, dialect),
                &want
            ));
            n += 1;
        }
    }
    for case in golden["equal_program"].as_array().into_iter().flatten() {
        let gold = case["gold"].as_str().unwrap_or_default();
        let pred = case["pred"].as_str().unwrap_or_default();
        for (dialect, key) in [
            (Dialect::ConvFinQa, "convfinqa_equal_program"),
            (Dialect::FinQa, "finqa_equal_program"),
        ] {
            let want = case[key].as_bool().expect("bool");
            assert_eq!(
                equal_program(gold, pred, dialect),
                want,
                "{gold:?} vs {pred:?} {dialect:?}"
            );
            n += 1;
        }
    }
    println!("golden official eval vectors: {n} passed");
    assert!(n >= 36);
}

#[test]
fn convfinqa_dataset_programs_reproduce_executed_answers() {
    let Some(path) = shared_data("convfinqa/convfinqa_dataset.json") else {
        return;
    };
    let bytes = std::fs::read(&path).expect("read dataset");
    assert!(looks_like_dataset(&bytes));
    let ds = read_dataset("convfinqa_dataset.json", &bytes).expect("usable dataset");
    assert_eq!(ds.diagnostics, vec![], "a clean file gives no diagnostics");
    assert_eq!(ds.conversations.len(), 421);
    let (mut checked, mut matched) = (0, 0);
    let mut mismatches = Vec::new();
    for conv in &ds.conversations {
        assert_eq!(conv.split.as_deref(), Some("dev"));
        for (i, (program, expected)) in conv
            .turn_programs
            .iter()
            .zip(&conv.executed_answers)
            .enumerate()
        {
            checked += 1;
            let got = execute(program, &conv.table, Dialect::ConvFinQa);
            if got.matches(expected) {
                matched += 1;
            } else {
                mismatches.push(format!(
                    "{} turn {i}: {program:?} -> {got:?}, want {expected:?}",
                    conv.id
                ));
            }
            // The strict parser accepts every dataset program and agrees on its operations.
            let parsed = parse(program).unwrap_or_else(|e| panic!("parse({program:?}): {e}"));
            assert_eq!(parsed.operations(), operations(program), "{program:?}");
            assert_eq!(
                parsed.to_string(),
                *program,
                "canonical form of {program:?}"
            );
            // A program is equal to itself (ConvFinQA semantics).
            assert!(
                equal_program(program, program, Dialect::ConvFinQa),
                "{program:?}"
            );
        }
    }
    println!("convfinqa dataset: {matched} of {checked} turns reproduce executed_answers");
    assert_eq!(mismatches, Vec::<String>::new());
    assert_eq!((matched, checked), (1490, 1490));
    let index = dataset_index(&ds);
    assert_eq!(index.len(), 421);
    let first = index
        .get("Single_MRO/2007/page_134.pdf-1")
        .expect("first id");
    assert_eq!(
        first.executed_answers.get(4),
        Some(&RawValue::Float(1.42403))
    );
    assert_eq!(first.table.first().map(|h| h.len()), Some(4));
}

#[test]
fn validate_the_convfinqa_dataset() {
    let Some(path) = shared_data("convfinqa/convfinqa_dataset.json") else {
        return;
    };
    let bytes = std::fs::read(&path).expect("read dataset");
    let report = validate_dataset("convfinqa_dataset.json", &bytes);
    let json = serde_json::to_value(&report).expect("json");
    let keys: Vec<&str> = json
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "conversations",
            "turns",
            "programs_checked",
            "program_mismatches",
            "errors",
            "warnings"
        ]
    );
    assert_eq!(json["conversations"], 421);
    assert_eq!(json["turns"], 1490);
    assert_eq!(json["programs_checked"], 1490);
    assert_eq!(report.exit_code(), 0, "{json}");
}

#[test]
fn fa2_model_eval_dataset_reads_and_validates() {
    let Some(path) = shared_data("financial-agent-2/model_eval_dataset.json") else {
        return;
    };
    let bytes = std::fs::read(&path).expect("read");
    assert!(looks_like_dataset(&bytes));
    let ds = read_dataset("model_eval_dataset.json", &bytes).expect("usable");
    assert_eq!(ds.diagnostics, vec![]);
    assert_eq!(ds.conversations.len(), 12);
    assert!(ds.conversations.iter().all(|c| c.split.is_none()));
    let turns: usize = ds.conversations.iter().map(|c| c.n_turns()).sum();
    let report = validate_dataset("model_eval_dataset.json", &bytes);
    println!(
        "model_eval_dataset: {} conversations, {turns} turns, {} mismatches",
        report.conversations,
        report.program_mismatches.len()
    );
    assert_eq!(report.turns, turns);
    assert_eq!(report.exit_code(), 0, "{:?}", report.program_mismatches);
}

#[test]
fn other_files_are_not_datasets() {
    for rel in [
        "financial-agent-2/batch_test_results_gpt_4o_mini_20260112_114004_results.json",
        "financial-agent-2/evaluation_results_o3_eval_results_o3_results.json",
        "finqa/example_predictions.json",
    ] {
        let Some(path) = shared_data(rel) else {
            continue;
        };
        let bytes = std::fs::read(&path).expect("read");
        assert!(!looks_like_dataset(&bytes), "{rel}");
    }
}

#[test]
fn finqa_example_predictions_run_without_panic() {
    let Some(preds) = load_json("finqa/example_predictions.json") else {
        return;
    };
    let preds = preds.as_array().cloned().unwrap_or_default();
    let (mut valid, mut parsed, mut self_equal) = (0, 0, 0);
    for p in &preds {
        let tokens = strings(&p["predicted"]);
        let outcome = execute_tokens(&tokens, &[], Dialect::FinQa);
        valid += usize::from(outcome.is_valid());
        // Rebuild the program text from the tokens, as `program_tokenization` would split it.
        let n = tokens.len().saturating_sub(1);
        let text = tokens.iter().take(n).fold(String::new(), |mut acc, t| {
            if !acc.is_empty() && !acc.ends_with('(') && t != ")" {
                acc.push_str(", ");
            }
            acc.push_str(t);
            acc
        });
        if let Ok(program) = parse(&text) {
            parsed += 1;
            assert_eq!(program.operations(), operations(&text));
        }
        // Row names like "private investors ( a )" hold parentheses, which the official
        // tokenization cuts apart: only other programs round-trip through text.
        let plain = tokens
            .iter()
            .all(|t| t == ")" || t.ends_with('(') || !t.contains(['(', ')']));
        if plain {
            assert_eq!(tokenize(&text), tokens, "tokens round-trip for {text:?}");
        }
        self_equal += usize::from(equal_program_tokens(&tokens, &tokens, Dialect::FinQa));
    }
    println!(
        "finqa example predictions: {} programs, {valid} execute without a table, {parsed} parse, {self_equal} equal to themselves",
        preds.len()
    );
    assert_eq!(preds.len(), 1050);
    assert!(parsed > 1000);
}

/// Differential test against the official Python evaluator. Set `EVALBOARD_ORACLE_VECTORS` to a
/// JSON file `{"table": [[...]], "eval": [[tokens, conv_pair, finqa_pair], ...],
/// "equal": [[gold_tokens, pred_tokens, conv_bool, finqa_bool], ...]}` produced by running the
/// official functions; without it the test does nothing.
#[test]
fn oracle_vectors_when_provided() {
    let Ok(path) = std::env::var("EVALBOARD_ORACLE_VECTORS") else {
        println!("note: EVALBOARD_ORACLE_VECTORS not set, differential test skipped");
        return;
    };
    let data: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read vectors")).expect("json");
    let table: Vec<Vec<String>> = data["table"]
        .as_array()
        .map(|r| r.iter().map(strings).collect())
        .unwrap_or_default();
    let mut failures = Vec::new();
    let mut n = 0;
    for case in data["eval"].as_array().into_iter().flatten() {
        let tokens = strings(&case[0]);
        for (dialect, i) in [(Dialect::ConvFinQa, 1), (Dialect::FinQa, 2)] {
            let Some(want) = golden_outcome(&case[i]) else {
                // (0, "n/a") from the official code: we report it as invalid.
                let got = execute_tokens(&tokens, &table, dialect);
                if got.is_valid() {
                    failures.push(format!("{tokens:?} {dialect:?}: got {got:?}, want n/a"));
                }
                continue;
            };
            n += 1;
            let got = execute_tokens(&tokens, &table, dialect);
            if !same_outcome(&got, &want) {
                failures.push(format!(
                    "{tokens:?} {dialect:?}: got {got:?}, want {want:?}"
                ));
            }
        }
    }
    let mut n_equal = 0;
    let mut equal_failures = Vec::new();
    for case in data["equal"].as_array().into_iter().flatten() {
        let (gold, pred) = (strings(&case[0]), strings(&case[1]));
        for (dialect, i) in [(Dialect::ConvFinQa, 2), (Dialect::FinQa, 3)] {
            let Some(want) = case[i].as_bool() else {
                continue;
            };
            n_equal += 1;
            let got = equal_program_tokens(&gold, &pred, dialect);
            if got != want {
                equal_failures.push(format!(
                    "{gold:?} vs {pred:?} {dialect:?}: got {got}, want {want}"
                ));
            }
        }
    }
    println!(
        "oracle: {n} eval vectors, {} failures; {n_equal} equal vectors, {} disagreements",
        failures.len(),
        equal_failures.len()
    );
    for f in failures.iter().chain(&equal_failures).take(40) {
        println!("  {f}");
    }
    assert!(failures.is_empty());
    assert!(equal_failures.is_empty());
}

/// Real programs with one character changed, inserted or removed.
fn mutated_program() -> impl Strategy<Value = String> {
    let seeds = [
        "subtract(60.94, 25.14), divide(#0, 25.14)",
        "table_average(margin, none)",
        "exp(1.05, const_2)",
        "greater(5, 3)",
        "add(1,200, 5%), multiply(#0, const_m1), table_sum(revenue, none)",
        "60.94",
    ];
    let alphabet: Vec<char> = "(),# |%$-.0123456789_aenoxc\u{1c}é".chars().collect();
    (
        prop::sample::select(seeds.to_vec()),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                prop::sample::select(alphabet),
                0u8..3,
            ),
            0..6,
        ),
    )
        .prop_map(|(seed, edits)| {
            let mut chars: Vec<char> = seed.chars().collect();
            for (at, c, kind) in edits {
                let i = at.index(chars.len() + 1);
                match kind {
                    0 => chars.insert(i, c),
                    1 if i < chars.len() => chars[i] = c,
                    _ if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
}

fn table() -> Vec<Vec<String>> {
    vec![
        vec!["".into(), "2019".into(), "2018".into()],
        vec!["revenue".into(), "$ 1,200".into(), "( 900 )".into()],
        vec!["margin".into(), "25%".into(), "20%".into()],
        vec![],
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(src in ".{0,80}") {
        let _ = parse(&src);
        let _ = operations(&src);
        for dialect in [Dialect::ConvFinQa, Dialect::FinQa] {
            let _ = execute(&src, &table(), dialect);
            let _ = equal_program(&src, &src, dialect);
            let _ = equal_program("add(1, 2), divide(#0, 3)", &src, dialect);
        }
    }

    #[test]
    fn mutated_programs_never_panic(src in mutated_program(), other in mutated_program()) {
        let parsed = parse(&src);
        let ops = operations(&src);
        // str.strip() removes U+001C..U+001F but Python's float() rejects them: the parser
        // normalises with strip(), the executor calls float() where the evaluator does, so a
        // program holding these separators next to a number need not round-trip.
        let separators = src.chars().any(|c| ('\u{1c}'..='\u{1f}').contains(&c));
        if let (Ok(p), false) = (&parsed, separators) {
            prop_assert_eq!(p.operations(), ops);
            // A parsed program executes the same after printing it back.
            let printed = p.to_string();
            for dialect in [Dialect::ConvFinQa, Dialect::FinQa] {
                let a = execute(&src, &table(), dialect);
                let b = execute(&printed, &table(), dialect);
                prop_assert!(same_outcome(&a, &b), "{} vs {}: {:?} {:?}", src, printed, a, b);
            }
        }
        for dialect in [Dialect::ConvFinQa, Dialect::FinQa] {
            let _ = execute(&src, &table(), dialect);
            let _ = equal_program(&src, &other, dialect);
            let _ = equal_program(&other, &src, dialect);
        }
    }

    #[test]
    fn arbitrary_token_lists_never_panic(tokens in prop::collection::vec("[a-z_(|)#0-9 ,%]{0,8}", 0..14)) {
        for dialect in [Dialect::ConvFinQa, Dialect::FinQa] {
            let _ = execute_tokens(&tokens, &table(), dialect);
            let _ = equal_program_tokens(&tokens, &tokens, dialect);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_reader(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = looks_like_dataset(&bytes);
        let _ = read_dataset("x.json", &bytes);
        let _ = validate_dataset("x.json", &bytes);
    }

    #[test]
    fn json_shaped_input_never_panics_the_reader(json in json_dataset()) {
        let _ = read_dataset("x.json", json.as_bytes());
        let report = validate_dataset("x.json", json.as_bytes());
        prop_assert!((0..=2).contains(&report.exit_code()));
    }
}

/// Dataset-like JSON with random holes and wrong types.
fn json_dataset() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("1.5".to_string()),
        Just("-3".to_string()),
        Just("\"add(1, 2)\"".to_string()),
        Just("\"x\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("[\"5\", \"greater(2, 1)\"]".to_string()),
        Just("[5, \"yes\"]".to_string()),
        Just("{\"2019\": {\"r\": 1}, \"2018\": 3}".to_string()),
        Just("[[\"\", \"a\"], [\"r\", \"1\"], 4]".to_string()),
    ];
    let keys = prop::sample::select(vec![
        "id",
        "doc",
        "table",
        "dialogue",
        "conv_questions",
        "conv_answers",
        "turn_program",
        "executed_answers",
        "features",
        "num_dialogue_turns",
    ]);
    let object = prop::collection::vec((keys, scalar), 0..8).prop_map(|fields| {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("{{{}}}", body.join(", "))
    });
    let record = (object.clone(), object).prop_map(|(outer, dialogue)| {
        outer.replacen('{', &format!("{{\"dialogue\": {dialogue}, "), 1)
    });
    (
        prop::sample::select(vec!["dev", "train", "examples", "test"]),
        prop::collection::vec(record, 0..4),
    )
        .prop_map(|(split, records)| format!("{{\"{split}\": [{}]}}", records.join(", ")))
}
