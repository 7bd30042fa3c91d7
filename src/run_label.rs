//! How the run list names a run ([`crate::protocol::RunInfo::label`]) and what it groups runs by
//! ([`crate::protocol::RunInfo::facets`]), worded by the workers from the engine's
//! [`RunRef::facts`] and [`RunRef::headline`]: the page only shows them. Pure (tested natively).

use evalboard_engine::compare::Unit;
use evalboard_engine::run::RunRef;
use evalboard_engine::run_table::MetricValue;

use crate::format;

/// A metric's value in its unit, after its name: `Accuracy 71.2%`, `Mean overall score 0.712`.
pub fn headline_text(m: &MetricValue) -> String {
    let value = match m.unit {
        Unit::Rate => format::pct(m.value),
        Unit::Score => format::dec(m.value, 3),
        Unit::Count => format::tokens(m.value),
        Unit::Usd => format::usd(m.value),
        Unit::Seconds => format!("{} s", format::dec(m.value, 2)),
    };
    format!("{} {value}", m.label)
}

/// The run's label and facets: `model · task` (what the run records of them; empty when it
/// records neither, or when that is the run's name: the run list then shows the run's name
/// alone, and its headline on the line under it in any case); (tool, task, model), `—` for what the run does not record.
pub fn label(run: RunRef<'_>) -> (String, [String; 3]) {
    let facts = run.facts();
    let none = || format::NONE.to_string();
    let facets = [
        run.tool().to_string(),
        facts.task.clone().unwrap_or_else(none),
        facts.model.clone().unwrap_or_else(none),
    ];
    let label = model_task(facts.model.as_deref(), facts.task.as_deref());
    // A run named after its model (the demo's `gpt-4o`) is listed by its name once.
    let label = if label == run.name() {
        String::new()
    } else {
        label
    };
    (label, facets)
}

/// `model · task`, of what is recorded (not blank); empty when neither is.
pub fn model_task(model: Option<&str>, task: Option<&str>) -> String {
    [model, task]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions, Settings};
    use evalboard_engine::{InputFile, RunInput};

    #[test]
    fn a_run_is_labelled_by_model_and_task() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/evallog/runs/inspect_arith"
        );
        let mut files = Vec::new();
        for e in std::fs::read_dir(dir).expect("the fixture").flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            files.push(InputFile::new(
                format!("inspect_arith/{name}"),
                std::fs::read(e.path()).expect("readable"),
            ));
        }
        let input = RunInput::new("inspect_arith".to_string(), files);
        let read =
            run::read_as(Family::EvalLog, &input, None, ReadOptions::default()).expect("readable");
        let scored = run::score(read, &Settings::default(), 1);
        let (label, facets) = label(scored.as_ref());
        let facts = scored.as_ref().facts();
        let model = facts.model.expect("a model");
        let task = facts.task.expect("a task");
        assert_eq!(label, format!("{model} · {task}"));
        assert_eq!(facets, ["Inspect AI".to_string(), task, model]);
    }

    #[test]
    fn a_run_without_metadata_has_no_label() {
        let input = RunInput::new(
            "qa".to_string(),
            vec![InputFile::new(
                "qa/a.jsonl".to_string(),
                r#"{"conversation_id":"c1","turn_idx":0,"question":"q","expected":"42","predicted":42}"#,
            )],
        );
        let read = run::read_as(Family::NumericQa, &input, None, ReadOptions::default())
            .expect("readable");
        let scored = run::score(read, &Settings::default(), 1);
        let (label, facets) = label(scored.as_ref());
        assert_eq!(label, "");
        let headline = headline_text(&scored.as_ref().headline());
        assert!(headline.ends_with('%'), "{headline}");
        assert_eq!(facets[0], "numeric QA");
        assert_eq!(facets[1], format::NONE);
    }
}
