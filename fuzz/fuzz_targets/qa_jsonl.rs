//! Fuzz: QA JSONL reader never panics.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = evalboard_engine::numeric_qa::formats::qa_jsonl::read_qa_jsonl("run.jsonl", data);
});
