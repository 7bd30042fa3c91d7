//! Fuzz: turns.csv reader never panics.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = evalboard_engine::numeric_qa::formats::fa2_traces::read_turns_csv("turns.csv", data);
});
