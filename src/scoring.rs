//! Scoring with progress: the engine's `score_qa_run`, turn by turn, calling back every
//! `every` turns so the worker can post progress while a big run is scored.

use evalboard_engine::model::QaRun;
use evalboard_engine::scorers::{score_turn, ScoreConfig, ScoredQaRun, TurnScore};

/// Same result as `scorers::score_qa_run`; `progress(done, total)` is called every `every` turns
/// and once at the end.
pub fn score_with_progress(
    run: QaRun,
    cfg: &ScoreConfig,
    every: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> ScoredQaRun {
    let total = run.n_turns();
    let every = every.max(1);
    let mut turns = Vec::with_capacity(total);
    for (ci, conv) in run.conversations.iter().enumerate() {
        let failed = conv.failure.is_some();
        for (ti, turn) in conv.turns.iter().enumerate() {
            let (answer, fa2, logic, ops) = score_turn(turn, cfg);
            turns.push(TurnScore {
                conv: ci as u32,
                turn: ti as u32,
                answer,
                fa2,
                logic,
                operations_per_turn: ops,
                from_failed_conversation: failed,
            });
            if turns.len() % every == 0 {
                progress(turns.len() as u64, total as u64);
            }
        }
    }
    progress(turns.len() as u64, total as u64);
    ScoredQaRun {
        run,
        config: cfg.clone(),
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::pipeline;
    use evalboard_engine::scorers::score_qa_run;
    use evalboard_engine::{InputFile, RunInput};

    fn run(text: &str) -> QaRun {
        let input = RunInput::new(
            "r".to_string(),
            vec![InputFile::new(
                "r/a.jsonl".to_string(),
                text.as_bytes().to_vec(),
            )],
        );
        pipeline::load_qa_run_with_progress(&input, None, &mut |_, _| {}).expect("readable")
    }

    fn check(text: &str, every: usize, calls: usize) {
        let cfg = ScoreConfig::default();
        let want = score_qa_run(run(text), &cfg);
        let mut seen = Vec::new();
        let got = score_with_progress(run(text), &cfg, every, &mut |d, t| seen.push((d, t)));
        assert_eq!(got.turns, want.turns);
        assert_eq!(seen.len(), calls, "{seen:?}");
        assert_eq!(seen.last().map(|s| s.0), Some(want.turns.len() as u64));
    }

    #[test]
    fn same_scores_as_the_engine() {
        let lines = [
            r#"{"conversation_id":"a","turn_idx":0,"question":"q","expected":"5%","predicted":0.05}"#,
            r#"{"conversation_id":"a","turn_idx":1,"question":"q","expected":"1,200","predicted":"-1200"}"#,
            r#"{"conversation_id":"b","turn_idx":0,"question":"q","expected":"NaN","predicted":null}"#,
            r#"{"conversation_id":"c","conversation_error":"timeout"}"#,
        ]
        .join("\n");
        check(&lines, 2, 2);
        check(&lines, 1, 4);
        check(&lines, 0, 4);
        check(&lines, 100, 1);
    }
}
