//! Fuzz: answer parsing, every scorer and the FinQA program language never panic.
#![no_main]
use evalboard_engine::model::RawValue;
use evalboard_engine::{number, program, scorers};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let (a, b) = s.split_at(s.len() / 2);
    let (ea, eb) = (RawValue::Str(a.to_string()), RawValue::Str(b.to_string()));
    let _ = number::parse_answer(&ea);
    let _ = scorers::doc::score_answer(&ea, Some(&eb), &Default::default());
    let _ = scorers::fa2::calculate_accuracy(&ea, Some(&eb));
    let _ = program::parse(&s);
    let _ = program::operations(&s);
    let _ = program::execute(&s, &[vec!["x".into(), "1".into()]], program::Dialect::ConvFinQa);
    let _ = program::equal_program(a, b, program::Dialect::ConvFinQa);
});
