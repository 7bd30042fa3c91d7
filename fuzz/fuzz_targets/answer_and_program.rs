//! Fuzz: answer parsing, every scorer and the FinQA program language never panic.
#![no_main]
use evalboard_engine::numeric_qa::model::RawValue;
use evalboard_engine::{numeric_qa::answer, numeric_qa::finqa_program, numeric_qa::score};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let (a, b) = s.split_at(s.len() / 2);
    let (ea, eb) = (RawValue::Str(a.to_string()), RawValue::Str(b.to_string()));
    let _ = answer::parse_answer(&ea);
    let _ = score::doc::score_answer(&ea, Some(&eb), &Default::default());
    let _ = score::fa2::calculate_accuracy(&ea, Some(&eb));
    let _ = finqa_program::parse(&s);
    let _ = finqa_program::operations(&s);
    let _ = finqa_program::execute(&s, &[vec!["x".into(), "1".into()]], finqa_program::Dialect::ConvFinQa);
    let _ = finqa_program::equal_program(a, b, finqa_program::Dialect::ConvFinQa);
});
