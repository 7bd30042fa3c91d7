//! Fuzz: ConvFinQA dataset reader and validator never panic.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = evalboard_engine::numeric_qa::formats::convfinqa::read_dataset("dataset.json", data);
    let _ = evalboard_engine::numeric_qa::validate::validate_dataset("dataset.json", data);
});
