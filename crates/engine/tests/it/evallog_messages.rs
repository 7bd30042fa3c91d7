//! A sample's whole conversation (`engine::evallog::messages`) read from the real Inspect logs
//! under `../shared/data/eval-formats/inspect_ai/` and the project's fixture: every sample of a
//! read run is found where [`inspect_messages_at`] says (an `.eval` member, a chunked sample's
//! message chunks, a `.json` log), the chunked copy of a log gives the same conversations as the
//! original, tool calls and tool results keep their ids and arguments, and cut or flipped
//! members are an `Err`, never a panic.

use std::collections::BTreeMap;
use std::fs;

use evalboard_engine::evallog::archive::{Archive, Limits};
use evalboard_engine::evallog::messages::{
    inspect_chunked_sample_messages, inspect_json_sample_messages, inspect_messages_at,
    inspect_sample_messages, Message, MessagesAt, PartKind,
};
use evalboard_engine::evallog::{self, EvalLogRun, SampleKey};
use evalboard_engine::InputFile;
use evalboard_test_support::{fixture, shared_data};

const GENERATED: &str =
    "inspect_ai/generated-0.3.285/2026-11-25T20-36-08-00-00_arith_BQpM8JFfU92qzZe9tDU2Q9.eval";
const GENERATED_JSON: &str =
    "inspect_ai/generated-0.3.285/2026-11-25T20-36-12-00-00_arith_VVWPBMGtpotgvVsouiGCU7.json";
const CHUNKED: &str = "inspect_ai/generated-0.3.285/chunked-parts/arith-chunked.eval";

fn bytes(rel: &str) -> Option<Vec<u8>> {
    Some(fs::read(shared_data(&format!("eval-formats/{rel}"))?).expect("readable"))
}

fn run_of(name: &str, bytes: &[u8]) -> EvalLogRun {
    let read = evallog::read(&[InputFile::new(name, bytes.to_vec())]).expect("a usable log");
    read.runs.into_iter().next().expect("one run")
}

/// Every sample's conversation, by `id@epoch`, read the way the dashboard's worker reads it.
fn conversations(name: &str, log: &[u8]) -> BTreeMap<String, Vec<Message>> {
    let run = run_of(name, log);
    let archive = name
        .ends_with(".eval")
        .then(|| Archive::parse(log, Limits::default()).expect("a zip"));
    let member = |n: &str| -> Vec<u8> {
        let a = archive.as_ref().expect("an archive");
        a.read(a.get(n).unwrap_or_else(|| panic!("no member {n}")))
            .expect("member reads")
    };
    let mut out = BTreeMap::new();
    for s in &run.samples {
        let SampleKey::Inspect { id, epoch } = &s.key else {
            panic!("an Inspect key")
        };
        let at = inspect_messages_at(name, s)
            .unwrap_or_else(|| panic!("{name}: no messages for {}", s.source));
        let messages = match at {
            MessagesAt::Member(m) => inspect_sample_messages(&member(&m)),
            MessagesAt::Chunked { shell, chunks } => {
                let a = archive.as_ref().expect("an archive");
                let parts: Vec<(String, Vec<u8>)> = a
                    .names()
                    .into_iter()
                    .filter(|n| n.starts_with(&chunks))
                    .map(|n| (n.to_string(), member(n)))
                    .collect();
                assert!(!parts.is_empty(), "{name}: no chunk under {chunks}");
                let refs: Vec<(&str, &[u8])> = parts
                    .iter()
                    .map(|(n, b)| (n.as_str(), b.as_slice()))
                    .collect();
                inspect_chunked_sample_messages(&member(&shell), &refs)
            }
            MessagesAt::JsonLog { id, epoch } => inspect_json_sample_messages(log, &id, epoch),
        }
        .unwrap_or_else(|e| panic!("{name} {}: {e}", s.source));
        out.insert(format!("{}@{epoch}", id.label()), messages);
    }
    out
}

fn texts(m: &[Message]) -> Vec<(String, String)> {
    m.iter().map(|m| (m.role.clone(), m.text())).collect()
}

#[test]
fn generated_eval_json_and_chunked_logs_give_the_conversations() {
    let (Some(eval), Some(json), Some(chunked)) =
        (bytes(GENERATED), bytes(GENERATED_JSON), bytes(CHUNKED))
    else {
        return;
    };
    let from_eval = conversations("arith.eval", &eval);
    assert_eq!(from_eval.len(), 8);
    // The two-turn solver: the first answer only in the messages, the output is the second.
    let two = texts(&from_eval["2@1"]);
    let pairs: Vec<(&str, &str)> = two.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("user", "What is 3+4? Answer with only the number."),
            ("assistant", "7"),
            ("user", "Are you sure? Answer again with only the number."),
            ("assistant", "seven"),
        ]
    );
    assert_eq!(from_eval["2@1"][1].model.as_deref(), Some("mockllm/model"));
    // The errored sample keeps the message it was given.
    assert_eq!(
        texts(&from_eval["boom@1"]),
        [("user".to_string(), "This sample errors.".to_string())]
    );
    // The chunked copy of the same log: the same conversations, from the message chunks.
    let from_chunks = conversations("arith-chunked.eval", &chunked);
    assert_eq!(from_chunks, from_eval);
    // The `.json` log of the task run again: the same questions, inline samples.
    let from_json = conversations("arith.json", &json);
    assert_eq!(from_json.len(), 8);
    assert_eq!(texts(&from_json["2@2"])[1].1, "4");
    assert_eq!(texts(&from_json["mul@2"])[3].1, "13");
    for (k, m) in &from_json {
        assert_eq!(m.first().map(|m| m.role.as_str()), Some("user"), "{k}");
    }
    // A chunked shell read as a monolith names where its messages are.
    let a = Archive::parse(&chunked, Limits::default()).expect("a zip");
    let shell = a
        .read(a.get("samples/2_epoch_1/sample.json").expect("shell"))
        .expect("reads");
    let e = inspect_sample_messages(&shell).unwrap_err();
    assert!(e.contains("stored in chunks"), "{e}");
}

#[test]
fn tool_calls_and_results_keep_their_ids_and_arguments() {
    let Some(log) = bytes("inspect_ai/log_message_deduplication.eval") else {
        return;
    };
    let all = conversations("dedup.eval", &log);
    let m = all.values().next().expect("one sample");
    assert_eq!(m.len(), 12);
    let calls: Vec<&Message> = m.iter().filter(|m| !m.tool_calls.is_empty()).collect();
    let results: Vec<&Message> = m.iter().filter(|m| m.role == "tool").collect();
    assert_eq!((calls.len(), results.len()), (5, 5));
    let c = &calls[0].tool_calls[0];
    assert_eq!(
        (c.id.as_deref(), c.function.as_str(), c.arguments.as_str()),
        (Some("hardcoded_0"), "bash", r#"{"cmd":"ls"}"#)
    );
    assert_eq!(results[0].tool_call_id.as_deref(), Some("hardcoded_0"));
    assert_eq!(results[0].function.as_deref(), Some("bash"));
    assert!(results[0].text().starts_with("bin\nboot\n"));
    // Each call is answered by the result that names it.
    for (call, result) in calls.iter().zip(&results) {
        assert_eq!(call.tool_calls[0].id, result.tool_call_id);
    }
}

#[test]
fn older_logs_read_their_system_user_and_assistant_messages() {
    for rel in [
        "inspect_ai/log_streaming.eval",
        "inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
        "inspect_ai/mmlu-summary-choices.eval",
        "inspect_ai/log_formats.json",
        "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json",
    ] {
        let Some(log) = bytes(rel) else {
            return;
        };
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let all = conversations(name, &log);
        assert!(!all.is_empty(), "{rel}");
        for (k, m) in &all {
            assert!(
                m.iter().any(|m| m.role == "assistant"),
                "{rel} {k}: {:?}",
                texts(m)
            );
            assert!(
                m.iter()
                    .all(|m| m.parts.iter().all(|p| p.kind == PartKind::Text)),
                "{rel} {k}"
            );
        }
    }
}

#[test]
fn the_project_fixture_reads_and_a_summaries_only_sample_has_no_messages() {
    let path = fixture("evallog/runs/inspect_arith/arith.eval");
    let log = fs::read(&path).expect("fixture");
    let all = conversations("arith.eval", &log);
    assert_eq!(all.len(), 8);
    // A sample read from the summaries (no sample members) has no conversation to read.
    let run = run_of("arith.eval", &log);
    let mut s = run.samples[0].clone();
    s.source = "arith.eval#summaries.json".into();
    assert_eq!(inspect_messages_at("arith.eval", &s), None);
    assert_eq!(inspect_messages_at("other.eval", &run.samples[0]), None);
}

#[test]
fn cut_and_flipped_members_are_errors_never_panics() {
    let Some(log) = bytes(GENERATED) else {
        return;
    };
    let a = Archive::parse(&log, Limits::default()).expect("a zip");
    let member = a
        .read(a.get("samples/2_epoch_1.json").expect("member"))
        .expect("reads");
    let whole = inspect_sample_messages(&member).expect("whole");
    for cut in (0..member.len()).step_by(7) {
        assert!(
            inspect_sample_messages(&member[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut same = 0;
    for i in (0..member.len()).step_by(3) {
        let mut b = member.clone();
        if let Some(x) = b.get_mut(i) {
            *x ^= 0x5a;
        }
        if inspect_sample_messages(&b).is_ok_and(|m| m == whole) {
            same += 1;
        }
    }
    // Flips outside the messages (events, scores) leave them as they were.
    assert!(same > 0);
}
