//! Property tests: arbitrary and mutated bytes into the QA readers and the whole pipeline never
//! panic, and every file is accounted for.

use evalboard_engine::accounting::FileStatus;
use evalboard_engine::numeric_qa::formats::{fa2_results, qa_jsonl};
use evalboard_engine::{numeric_qa::read, numeric_qa::score, InputFile, RunInput};
use proptest::prelude::*;

const JSONL: &str = concat!(
    "{\"conversation_id\":\"c1\",\"turn_idx\":0,\"question\":\"q\",\"expected\":\"12.5%\",\"predicted\":0.125,\"plan_operations\":[\"divide\"],\"ground_truth_program\":\"divide(1, 8)\",\"total_tokens\":10}\n",
    "{\"conversation_id\":\"c1\",\"turn_idx\":1,\"expected\":\"(3.2)\",\"predicted\":\"-3.2\",\"error_type\":\"ValueError\",\"error_message\":\"x\"}\n",
    "{\"conversation_id\":\"c2\",\"turn_idx\":0,\"expected\":\"yes\",\"predicted\":\"Yes\",\"features\":{\"has_type2_question\":true}}\n",
);

const RESULTS: &str = r#"[{"example_id":"A","model":"o3","features":{"num_dialogue_turns":2},"turns":[
 {"answer":16.0,"expected":"16","question":"q1","turn":1,"plan":{"steps":[{"tool":"compute","operation":"subtract"}]},"tokens":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}},
 {"answer":null,"expected":"2%","question":"q2","turn":2,"error":"ValueError: bad"}]},
 {"example_id":"B","features":{"num_dialogue_turns":3},"error":"Evaluation timeout (300s)"}]"#;

/// Flips, deletes and inserts bytes at positions chosen by the strategy.
fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(pos, op, byte) in edits {
        if v.is_empty() {
            v.push(byte);
            continue;
        }
        let p = pos % v.len();
        match op % 3 {
            0 => v[p] = byte,
            1 => {
                v.remove(p);
            }
            _ => v.insert(p, byte),
        }
    }
    v
}

fn load_and_score(files: Vec<InputFile>) {
    let n = files.len();
    match read::load_qa_run(&RunInput::new("prop", files), None) {
        Ok(run) => {
            assert_eq!(run.files.len(), n, "every file is accounted for");
            let scored = score::score_qa_run(run, &score::ScoreConfig::default());
            let stats = evalboard_engine::numeric_qa::aggregate::doc::statistics(&scored);
            for v in [
                stats.numerical_accuracy,
                stats.exact_match_accuracy,
                stats.avg_logic_recall,
            ]
            .into_iter()
            .flatten()
            {
                assert!((0.0..=1.0).contains(&v), "rate out of range: {v}");
            }
            let _ = evalboard_engine::numeric_qa::views::items(&scored, &Default::default());
        }
        Err(e) => assert_eq!(e.files.len(), n, "every file is accounted for"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = qa_jsonl::read_qa_jsonl("x.jsonl", &bytes);
        let _ = fa2_results::read_results("r.json", &bytes);
        load_and_score(vec![
            InputFile::new("run.jsonl", bytes.clone()),
            InputFile::new("results.json", bytes.clone()),
            InputFile::new("traces/t.json", bytes.clone()),
            InputFile::new("turns.csv", bytes),
        ]);
    }

    #[test]
    fn mutated_jsonl_never_panics(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..12)) {
        let bytes = mutate(JSONL.as_bytes(), &edits);
        if let Ok((convs, _)) = qa_jsonl::read_qa_jsonl("x.jsonl", &bytes) {
            for c in &convs {
                prop_assert!(c.turns.windows(2).all(|w| w[0].turn_idx <= w[1].turn_idx));
            }
        }
        load_and_score(vec![InputFile::new("run.jsonl", bytes)]);
    }

    #[test]
    fn mutated_results_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..12)) {
        let bytes = mutate(RESULTS.as_bytes(), &edits);
        let _ = fa2_results::read_results("results.json", &bytes);
        load_and_score(vec![InputFile::new("results.json", bytes)]);
    }
}

#[test]
fn bad_files_are_reported_with_reasons() {
    let files = vec![
        InputFile::new("run.jsonl", JSONL.as_bytes().to_vec()),
        InputFile::new("empty.json", Vec::new()),
        InputFile::new("latin1.jsonl", b"{\"conversation_id\":\"\xe9\"}".to_vec()),
        InputFile::new("notes.txt", b"hello".to_vec()),
        InputFile::new("weird.json", b"{\"a\": 1}".to_vec()),
        InputFile::new(
            "broken.jsonl",
            b"{\"conversation_id\":\"c9\",\"turn_idx\":0}\n{oops\n".to_vec(),
        ),
    ];
    let run = read::load_qa_run(&RunInput::new("r", files), None).expect("usable");
    let status = |p: &str| {
        run.files
            .iter()
            .find(|f| f.path == p)
            .map(|f| (f.status, f.reason.clone().unwrap_or_default()))
            .expect("file listed")
    };
    assert_eq!(status("run.jsonl").0, FileStatus::Parsed);
    let (s, r) = status("empty.json");
    assert_eq!(
        (s, r.as_str()),
        (FileStatus::Skipped, "empty file (0 bytes)")
    );
    let (s, r) = status("latin1.jsonl");
    assert_eq!(s, FileStatus::Skipped);
    assert!(r.contains("not UTF-8") && r.contains("line 1"), "{r}");
    assert_eq!(status("notes.txt").0, FileStatus::Skipped);
    assert_eq!(status("weird.json").0, FileStatus::Skipped);
    let (s, r) = status("broken.jsonl");
    assert_eq!(s, FileStatus::PartlyParsed, "{r}");
    let d = run
        .diagnostics
        .iter()
        .find(|d| d.file == "broken.jsonl")
        .expect("diagnostic");
    assert_eq!(d.line, Some(2));
    assert_eq!(run.conversations.len(), 3);
}

#[test]
fn empty_folder_is_unusable_with_a_message() {
    let e = read::load_qa_run(&RunInput::new("r", vec![]), None).unwrap_err();
    assert_eq!(e.message, "the folder is empty");
    let e = read::load_qa_run(
        &RunInput::new("r", vec![InputFile::new("a.json", Vec::new())]),
        None,
    )
    .unwrap_err();
    assert!(e.message.contains("no conversations"), "{}", e.message);
    assert_eq!(e.files.len(), 1);
}

#[test]
fn failed_conversations_count_as_wrong_turns() {
    let run = read::load_qa_run(
        &RunInput::new(
            "r",
            vec![InputFile::new("results.json", RESULTS.as_bytes().to_vec())],
        ),
        None,
    )
    .unwrap();
    let b = run.conversations.iter().find(|c| c.id == "B").unwrap();
    assert_eq!(b.turns.len(), 3);
    assert!(b
        .turns
        .iter()
        .all(|t| t.error.as_ref().is_some_and(|e| e.error_type == "Timeout")));
    let scored = score::score_qa_run(run, &Default::default());
    let stats = evalboard_engine::numeric_qa::aggregate::doc::statistics(&scored);
    assert_eq!(stats.total_turns, 5);
    assert_eq!(stats.failed_conversations, 1);
    assert_eq!(stats.error_types.get("Timeout"), Some(&3));
    assert_eq!(stats.numerical_accuracy, Some(1.0 / 5.0));
    assert_eq!(stats.conversation_level_accuracy, Some(0.0));
    assert_eq!(
        stats.cost_per_correct_answer, None,
        "no fully correct conversation → null"
    );
}
