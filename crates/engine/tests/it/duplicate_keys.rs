//! One rule for repeated JSON keys in every reader (`engine::json_keys`): the last value is used,
//! and each repeat is a warning naming the file, the line and the object. A case per reader: a
//! real input (fixture or shared data where there is one) with a key repeated, its warning, and
//! the value read being the last one.

use std::fs;

use evalboard_engine::diag::Diagnostic;
use evalboard_engine::input::{InputFile, RunInput};
use evalboard_engine::numeric_qa::formats::{convfinqa, fa2_results, fa2_traces, qa_jsonl};
use evalboard_engine::numeric_qa::model::RawValue;
use evalboard_engine::Severity;
use evalboard_test_support::{fixture, shared_data};

/// `text` with `insert` put before the `nth` (0-based) occurrence of `at`, and the 1-based line
/// where it went.
fn insert_before(text: &str, at: &str, nth: usize, insert: &str) -> (String, u32) {
    let pos = text
        .match_indices(at)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {at:?} #{nth}"))
        .0;
    let line = 1 + text[..pos].matches('\n').count() as u32;
    (format!("{}{insert}{}", &text[..pos], &text[pos..]), line)
}

/// The duplicate-key warnings among `diags`, as printed.
fn repeats(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.message.starts_with("duplicate key"))
        .inspect(|d| assert_eq!(d.severity, Severity::Warning, "{d}"))
        .map(ToString::to_string)
        .collect()
}

fn trace_fixture() -> (String, String) {
    let rel = "traces/1499cdf3-e676-4158-ada8-1039d2c4e711.json";
    let text =
        fs::read_to_string(fixture(&format!("numeric_qa/ok/fa2_simulated/input/{rel}"))).unwrap();
    (rel.to_string(), text)
}

#[test]
fn fa2_trace() {
    let (rel, text) = trace_fixture();
    // turns[1] says "25.14"; a first `actual_answer` before it is overridden.
    let (text, line) = insert_before(
        &text,
        "\"actual_answer\"",
        1,
        "\"actual_answer\": 99.0,\n      ",
    );
    let (conv, diags) = fa2_traces::read_trace(&rel, text.as_bytes()).unwrap();
    assert_eq!(
        repeats(&diags),
        [format!(
            "{rel}:{}: warning: duplicate key \"actual_answer\" in the object at turns[1]; the last value is used",
            line + 1
        )]
    );
    let turn = conv.turns.iter().find(|t| t.turn_idx == 1).unwrap();
    assert_eq!(turn.predicted, Some(RawValue::Str("25.14".into())));

    // Python's bare NaN sends the file down the slow path: the same warning.
    let text = text.replacen("\"actual_answer\": null", "\"actual_answer\": NaN", 1);
    let (_, diags) = fa2_traces::read_trace(&rel, text.as_bytes()).unwrap();
    assert_eq!(repeats(&diags).len(), 1, "{diags:?}");
}

#[test]
fn fa2_run_folder_trace_and_statistics() {
    let (rel, trace) = trace_fixture();
    let (trace, _) = insert_before(&trace, "\"trace_id\"", 0, "\"trace_id\": \"first\",\n  ");
    let stats =
        fs::read_to_string(fixture("numeric_qa/ok/fa2_simulated/input/statistics.json")).unwrap();
    let (stats, stats_line) =
        insert_before(&stats, "\"total_turns\"", 0, "\"total_turns\": 1,\n  ");
    let input = RunInput {
        name: "r".into(),
        files: vec![
            InputFile::new(&rel, trace.into_bytes()),
            InputFile::new("statistics.json", stats.into_bytes()),
        ],
    };
    let run = fa2_traces::read_run_folder(&input);
    assert_eq!(
        repeats(&run.diagnostics),
        [
            format!("statistics.json:{}: warning: duplicate key \"total_turns\" in the top-level object; the last value is used", stats_line + 1),
            format!("{rel}:3: warning: duplicate key \"trace_id\" in the top-level object; the last value is used"),
        ]
    );
    assert_eq!(
        run.conversations[0].trace_id.as_deref(),
        Some("1499cdf3-e676-4158-ada8-1039d2c4e711")
    );
    let (_, kept) = &run.original.json[0];
    assert_eq!(kept["total_turns"], 9);

    // The same files through the loader the CLI and the dashboard use.
    let run = evalboard_engine::numeric_qa::read::load_qa_run(&input, None).unwrap();
    assert_eq!(repeats(&run.diagnostics).len(), 2, "{:?}", run.diagnostics);
}

#[test]
fn fa2_results_json() {
    let text = r#"[
  {"example_id": "c1", "model": "m",
   "turns": [
     {"turn": 1, "question": "q", "expected": "1", "answer": "first", "answer": "2"}
   ]}
]"#;
    let (convs, diags) = fa2_results::read_results("results.json", text.as_bytes()).unwrap();
    assert_eq!(
        repeats(&diags),
        ["results.json:4: warning: duplicate key \"answer\" in the object at [0].turns[0]; the last value is used"]
    );
    assert_eq!(convs[0].turns[0].predicted, Some(RawValue::Str("2".into())));
}

#[test]
fn qa_jsonl_line_is_read_not_rejected() {
    let text = concat!(
        "{\"conversation_id\": \"c\", \"turn_idx\": 0, \"expected\": \"1\", \"predicted\": 1}\n",
        "{\"conversation_id\": \"c\", \"turn_idx\": 1, \"expected\": \"2\", \"predicted\": 5, \"predicted\": 2}\n",
    );
    let (convs, diags) = qa_jsonl::read_qa_jsonl("run.jsonl", text.as_bytes()).unwrap();
    assert_eq!(convs[0].turns.len(), 2, "the line is read, not skipped");
    assert_eq!(convs[0].turns[1].predicted, Some(RawValue::Int(2)));
    assert_eq!(
        diags.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["run.jsonl:2: warning: duplicate key \"predicted\" in the top-level object; the last value is used"]
    );
}

#[test]
fn convfinqa_dataset() {
    let text = r#"{"train": [
  {"id": "d1",
   "dialogue": {"conv_questions": ["q0"], "conv_answers": ["1"], "conv_answers": ["7"],
                "turn_program": ["7"], "executed_answers": [7]},
   "doc": {"pre_text": "", "post_text": "", "table": {}}}
]}"#;
    let ds = convfinqa::read_dataset("dev.json", text.as_bytes()).unwrap();
    assert_eq!(
        repeats(&ds.diagnostics),
        ["dev.json:3: warning: duplicate key \"conv_answers\" in the object at train[0].dialogue; the last value is used"]
    );
    assert_eq!(ds.conversations[0].answers, [RawValue::Str("7".into())]);
}

#[test]
fn price_table() {
    use evalboard_engine::prices::PriceTable;
    let text = "{\n\"m\": {\"input_per_mtok\": 1, \"output_per_mtok\": 2},\n\"m\": {\"input_per_mtok\": 3, \"output_per_mtok\": 4}\n}";
    let (prices, diags) = PriceTable::from_json("prices.json", text.as_bytes()).unwrap();
    assert_eq!(
        repeats(&diags),
        ["prices.json:3: warning: duplicate key \"m\" in the top-level object; the last value is used"]
    );
    assert_eq!(prices.get("m").map(|p| p.input_per_mtok), Some(3.0));
}

#[test]
fn codegen_trace_jsonl() {
    let rel = "codegen/ok/trace/input/traces.jsonl";
    let text = fs::read_to_string(fixture(rel)).unwrap();
    let (text, line) = insert_before(&text, "\"model\"", 1, "\"model\": \"first\", ");
    let (msgs, diags) =
        evalboard_engine::codegen::read::read_trace("traces.jsonl", text.as_bytes(), "t");
    assert_eq!(
        repeats(&diags),
        [format!("traces.jsonl:{line}: warning: duplicate key \"model\" in the top-level object; the last value is used")]
    );
    assert_eq!(msgs[1].model, "gpt-4");
}

#[test]
fn codegen_chat_history() {
    use evalboard_engine::codegen::read::{read_metrics_json, read_metrics_summary};
    let dir = "codegen/ok/chat_history/input/chat_history/00000000-0000-0000-0000-000000000001";
    let metrics = fs::read_to_string(fixture(&format!("{dir}/metrics.json"))).unwrap();
    let (metrics, line) = insert_before(&metrics, "\"model\"", 1, "\"model\": \"first\", ");
    let (orig, diags) = read_metrics_json("metrics.json", metrics.as_bytes());
    let shown = repeats(&diags);
    assert_eq!(shown.len(), 1, "{diags:?}");
    assert!(
        shown[0].starts_with(&format!(
            "metrics.json:{line} [entry 1]: warning: duplicate key \"model\" in the object at [1]"
        )),
        "{shown:?}"
    );
    let orig = orig.unwrap();
    assert_ne!(orig.entries[1].raw["model"], "first");

    let summary = fs::read_to_string(fixture(&format!("{dir}/metrics_summary.json"))).unwrap();
    let (summary, line) = insert_before(
        &summary,
        "\"session_id\"",
        0,
        "\"session_id\": \"first\",\n",
    );
    let (orig, diags) = read_metrics_summary("metrics_summary.json", summary.as_bytes());
    assert_eq!(
        repeats(&diags),
        [format!("metrics_summary.json:{}: warning: duplicate key \"session_id\" in the top-level object; the last value is used", line + 1)]
    );
    assert_ne!(orig.unwrap().raw["session_id"], "first");
}

#[test]
fn evalset_lines_and_documents() {
    use evalboard_engine::evalset::read::{read_eval_items, read_evalset_run};
    let items = concat!(
        "{\"id\": \"a\", \"prompt\": \"p\", \"expected_answer\": \"x\"}\n",
        "{\"id\": \"b\", \"prompt\": \"p\", \"expected_answer\": \"x\", \"expected_answer\": \"y\"}\n",
    );
    let read = read_eval_items("eval.jsonl", items.as_bytes());
    assert_eq!(
        repeats(&read.diagnostics),
        ["eval.jsonl:2: warning: duplicate key \"expected_answer\" in the top-level object; the last value is used"]
    );
    assert_eq!(read.items[1].expected.as_deref(), Some("y"));

    let summary = "{\n  \"run_version\": \"v0\",\n  \"primary_score\": 0.1,\n  \"primary_score\": 0.5,\n  \"run_version\": \"v1\"\n}";
    let run = read_evalset_run(
        &[InputFile::new(
            "eval_summary.json",
            summary.as_bytes().to_vec(),
        )],
        None,
    );
    assert_eq!(
        repeats(&run.diagnostics),
        [
            "eval_summary.json:4: warning: duplicate key \"primary_score\" in the top-level object; the last value is used",
            "eval_summary.json:5: warning: duplicate key \"run_version\" in the top-level object; the last value is used",
        ]
    );
    assert_eq!(run.summaries[0].original["primary_score"], 0.5);
}

/// A zip of stored (method 0) members, as Inspect could write them.
pub(crate) fn stored_zip(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    zip_of(members, false)
}

/// A zip of members stored (method 0) or deflated (method 8, as Inspect writes a `.eval`).
pub(crate) fn zip_of(members: &[(String, Vec<u8>)], deflate: bool) -> Vec<u8> {
    let method = |data: &[u8]| match deflate {
        true => (8, miniz_oxide::deflate::compress_to_vec(data, 6)),
        false => (0, data.to_vec()),
    };
    zip_with(members, &method)
}

/// How a member is compressed: its zip method and bytes.
pub(crate) type Compress<'a> = &'a dyn Fn(&[u8]) -> (u16, Vec<u8>);

/// A zip of `members`, each compressed by `compress`.
pub(crate) fn zip_with(members: &[(String, Vec<u8>)], compress: Compress) -> Vec<u8> {
    use evalboard_engine::evallog::archive::crc32;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let (method, comp) = compress(data);
        let offset = out.len() as u32;
        let n = name.len() as u16;
        // CRC-32, compressed and uncompressed sizes.
        let sizes = |h: &mut Vec<u8>| {
            h.extend(crc32(data).to_le_bytes());
            h.extend((comp.len() as u32).to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
        };
        out.extend(0x0403_4B50u32.to_le_bytes());
        for v in [20u16, 0, method, 0, 0x21] {
            out.extend(v.to_le_bytes()); // version needed, flags, method, time, date
        }
        sizes(&mut out);
        out.extend(n.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out.extend(name.as_bytes());
        out.extend(&comp);
        central.extend(0x0201_4B50u32.to_le_bytes());
        for v in [20u16, 20, 0, method, 0, 0x21] {
            central.extend(v.to_le_bytes()); // made by, needed, flags, method, time, date
        }
        sizes(&mut central);
        for v in [n, 0, 0, 0, 0] {
            central.extend(v.to_le_bytes()); // name, extra, comment lengths, disk, internal attrs
        }
        central.extend(0u32.to_le_bytes()); // external attrs
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4B50u32.to_le_bytes());
    for v in [0u16, 0, members.len() as u16, members.len() as u16] {
        out.extend(v.to_le_bytes());
    }
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

#[test]
fn inspect_eval_and_json_logs() {
    use evalboard_engine::evallog::archive::{Archive, Limits};
    use evalboard_engine::evallog::{self, SampleKey};
    // An .eval log: the fixture's members, one sample with a repeated `target`.
    let bytes = fs::read(fixture("evallog/ok/zstd_multiframe/input/arith.eval")).unwrap();
    let archive = Archive::parse(&bytes, Limits::default()).unwrap();
    let mut members: Vec<(String, Vec<u8>)> = archive
        .entries
        .iter()
        .map(|e| (e.name.clone(), archive.read(e).unwrap()))
        .collect();
    let (name, sample) = members
        .iter_mut()
        .find(|(n, _)| n.starts_with("samples/"))
        .unwrap();
    let text = String::from_utf8(sample.clone()).unwrap();
    let (text, line) = insert_before(&text, "\"target\"", 0, "\"target\": \"first\", ");
    *sample = text.into_bytes();
    let name = name.clone();
    let read = evallog::read(&[InputFile::new("log.eval", stored_zip(&members))]).unwrap();
    assert_eq!(
        repeats(&read.diagnostics),
        [format!("log.eval:{line} [{name}]: warning: duplicate key \"target\" in the top-level object; the last value is used")]
    );
    assert!(read.runs[0]
        .samples
        .iter()
        .all(|s| s.target.iter().all(|t| t != "first")));

    // A .json log (with Python's NaN): a repeated key in the header.
    let text = fs::read_to_string(fixture("evallog/ok/json_nan/input/arith.json")).unwrap();
    let (text, line) = insert_before(&text, "\"task\"", 0, "\"task\": \"first\",\n    ");
    let read = evallog::read(&[InputFile::new("arith.json", text.into_bytes())]).unwrap();
    assert_eq!(
        repeats(&read.diagnostics),
        [format!("arith.json:{}: warning: duplicate key \"task\" in the object at eval; the last value is used", line + 1)]
    );
    assert_eq!(read.runs[0].task.as_deref(), Some("arith"));
    assert!(matches!(
        read.runs[0].samples[0].key,
        SampleKey::Inspect { .. }
    ));
}

#[test]
fn lm_eval_results_and_samples() {
    use evalboard_engine::evallog;
    let dir = "eval-formats/lm-evaluation-harness/generated-0.4.13/toy-lookup-v1";
    let results = "results_2026-11-25T20-38-20.566618.json";
    let samples = "samples_arith_gen_2026-11-25T20-38-20.566618.jsonl";
    let (Some(r), Some(s)) = (
        shared_data(&format!("{dir}/{results}")),
        shared_data(&format!("{dir}/{samples}")),
    ) else {
        return;
    };
    let r = fs::read_to_string(r).unwrap();
    let (r, r_line) = insert_before(&r, "\"sample_len\"", 0, "\"sample_len\": 99,\n      ");
    let s = fs::read_to_string(s).unwrap();
    let (s, s_line) = insert_before(&s, "\"target\"", 2, "\"target\": \"first\", ");
    let read = evallog::read(&[
        InputFile::new(results, r.into_bytes()),
        InputFile::new(samples, s.into_bytes()),
    ])
    .unwrap();
    assert_eq!(
        repeats(&read.diagnostics),
        [
            format!("{results}:{}: warning: duplicate key \"sample_len\" in the object at results.arith_gen; the last value is used", r_line + 1),
            format!("{samples}:{s_line}: warning: duplicate key \"target\" in the top-level object; the last value is used"),
        ]
    );
    assert!(read.runs[0]
        .samples
        .iter()
        .all(|s| s.target.iter().all(|t| t != "first")));
}
