//! Worker warm-up: the synthetic run the worker loads once at start, through the same code as a
//! dropped file, so that the browser has optimised that code before the first real drop.
//!
//! V8 first runs WebAssembly on its baseline compiler and recompiles a function with its
//! optimising compiler in the background once the function has run for a while; calls made
//! before that finishes run the baseline code. In a fresh worker the first run a user dropped
//! paid for it (docs/performance.md). The warm-up run goes through the whole Load path — copy,
//! SHA-256, JSONL reader, scorers, statistics — with the same progress callbacks as a real load:
//! V8 optimises a function using what it saw called there (call targets included), so a warm-up
//! through other callers made the later real loads slower than no warm-up at all.

/// Turns in the warm-up run (4.5 MB of JSONL). With 3 000 the first 100 000-turn drop still
/// read 10–30 % slower than later ones; with 10 000 as fast. It delays the worker's Ready by
/// 0.2–0.4 s on a loaded 2-core machine (docs/performance.md).
pub const WARM_UP_TURNS: usize = 10_000;

/// The warm-up run as canonical JSONL: `turns` turns in conversations of 1–4 turns, with the
/// answer shapes real runs have (plain numbers, percentages, currency, numbers as text, missing
/// answers, sign and scale slips), plans and ground-truth programs. Deterministic.
pub fn warm_up_jsonl(turns: usize) -> Vec<u8> {
    const OPS: [(&str, &str); 4] = [
        (
            r#"["subtract","divide"]"#,
            "subtract(5829, 5735), divide(#0, 5735)",
        ),
        (r#"["add"]"#, "add(4241, 2441)"),
        (
            r#"["divide","multiply"]"#,
            "divide(1.2, 3), multiply(#0, const_100)",
        ),
        (r#"["table_sum"]"#, "table_sum(revenue, none)"),
    ];
    let mut out = Vec::with_capacity(turns * 400);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        // xorshift64*: any fixed sequence does.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let (mut i, mut conv) = (0, 0);
    while i < turns {
        let len = (1 + next() % 4) as usize;
        for t in 0..len.min(turns - i) {
            let r = next();
            let value = (r % 200_000) as f64 / 100.0 - 500.0;
            let (plan, program) = OPS[(r >> 20) as usize % OPS.len()];
            let (expected, predicted) = match (r >> 8) % 8 {
                0 => (format!("{value:.1}%"), format!("{}", value / 100.0)),
                1 => (
                    format!("${:.2}", value.abs() * 10.0),
                    format!("{}", value.abs() * 10.0),
                ),
                2 => (format!("{value}"), format!("\"{value}\"")),
                3 => (format!("{value}"), "null".to_string()),
                4 => (format!("{value}"), format!("{}", -value)),
                5 => (format!("{value}"), format!("{}", value * 1.004)),
                6 => (
                    format!("{}", value.round()),
                    format!("{}", value.round() as i64),
                ),
                _ => (format!("{value}"), format!("{}", value * 3.0 + 1.0)),
            };
            out.extend_from_slice(
                format!(
                    concat!(
                        r#"{{"conversation_id":"warm-up/{conv}","turn_idx":{t},"#,
                        r#""question":"what was the change in {conv}? (#{i})","#,
                        r#""expected":"{expected}","predicted":{predicted},"model":"warm-up","#,
                        r#""plan_operations":{plan},"ground_truth_program":"{program}","#,
                        r#""prompt_tokens":{pt},"completion_tokens":{ct},"#,
                        r#""features":{{"num_dialogue_turns":{len},"has_type2_question":{t2}}}}}"#,
                        "\n"
                    ),
                    conv = conv,
                    t = t,
                    i = i,
                    expected = expected,
                    predicted = predicted,
                    plan = plan,
                    program = program,
                    pt = 900 + r % 600,
                    ct = 100 + r % 200,
                    len = len,
                    t2 = conv % 3 == 0,
                )
                .as_bytes(),
            );
            i += 1;
        }
        conv += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::numeric_qa::score::{score_qa_run, ScoreConfig};
    use evalboard_engine::{numeric_qa::read, InputFile, RunInput};

    #[test]
    fn the_warm_up_run_is_read_whole_and_reaches_every_scorer() {
        let input = RunInput::new(
            "warm-up".to_string(),
            vec![InputFile::new(
                "warm-up/run.jsonl".to_string(),
                warm_up_jsonl(500),
            )],
        );
        let run = read::load_qa_run(&input, None).expect("readable");
        assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
        assert_eq!(run.n_turns(), 500);
        let t = score_qa_run(run, &ScoreConfig::default()).turns;
        let correct = t.iter().filter(|t| t.answer.numerical_match).count();
        assert!(correct > 50 && correct < 450, "{correct}");
        assert!(t.iter().any(|t| t.fa2.financial && !t.fa2.numerical));
        assert!(t.iter().any(|t| t.fa2.soft_match && !t.fa2.financial));
        assert!(t.iter().any(|t| t.logic.recall.is_some()));
    }
}
