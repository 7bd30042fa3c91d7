//! Fuzz: a whole run folder (split into files at 0xFF bytes) loads and scores without panicking.
#![no_main]
use evalboard_engine::{numeric_qa::read, numeric_qa::score, InputFile, RunInput};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let names = ["traces/a.json", "results.json", "run.jsonl", "turns.csv", "dataset.json"];
    let files = data
        .split(|&b| b == 0xFF)
        .zip(names.iter().cycle())
        .map(|(bytes, name)| InputFile::new(*name, bytes.to_vec()))
        .collect();
    if let Ok(run) = read::load_qa_run(&RunInput::new("fuzz", files), None) {
        let scored = score::score_qa_run(run, &score::ScoreConfig::default());
        let _ = evalboard_engine::numeric_qa::aggregate::doc::statistics(&scored);
    }
});
