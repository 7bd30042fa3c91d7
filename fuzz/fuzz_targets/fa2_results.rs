//! Fuzz: results.json reader never panics.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = evalboard_engine::numeric_qa::formats::fa2_results::read_results("results.json", data);
});
