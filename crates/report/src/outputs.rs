//! The output files of a scored numeric-QA run under its profile — one function, used by the CLI
//! (`--out`, `--json`) and the dashboard (Export), so both always write the same bytes.

use evalboard_engine::numeric_qa::aggregate::{doc, fa2};
use evalboard_engine::numeric_qa::score::{Profile, ScoredQaRun};

use crate::csvs;

/// statistics.json as a value (for `--json` arrays and `--fail-under`) and every file's text.
pub struct RunOutputs {
    pub statistics: serde_json::Value,
    pub files: Vec<(&'static str, String)>,
    /// What writing the files found (the compat profile's CSV cells that start like formulas).
    pub diagnostics: Vec<evalboard_engine::Diagnostic>,
}

impl RunOutputs {
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.as_str())
    }
}

/// The names of the files [`qa_outputs`] writes, in order.
pub const QA_FILES: &[&str] = &[
    "statistics.json",
    "summary.csv",
    "turns.csv",
    "errors.csv",
    "validation.csv",
];

pub fn qa_outputs(s: &ScoredQaRun) -> RunOutputs {
    let plan = qa_output_plan(s);
    RunOutputs {
        statistics: plan.statistics,
        files: plan
            .files
            .into_iter()
            .map(|(n, write)| (n, text_of(write)))
            .collect(),
        diagnostics: plan.diagnostics,
    }
}

/// A file, written to the writer it is given when it is asked for.
pub type WriteFile<'a> = Box<dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + 'a>;

/// A file whose text is made already.
pub fn file_of<'a>(text: String) -> WriteFile<'a> {
    Box::new(move |w| w.write_all(text.as_bytes()))
}

/// A file whose text `make` makes when it is asked for.
pub fn file_made<'a>(make: impl FnOnce() -> String + 'a) -> WriteFile<'a> {
    Box::new(move |w| w.write_all(make().as_bytes()))
}

/// A file's text, written into memory.
pub fn text_of(write: WriteFile) -> String {
    let mut bytes = Vec::new();
    match write(&mut bytes) {
        // Every writer writes Rust strings: the bytes are UTF-8.
        Ok(()) => String::from_utf8(bytes).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// [`qa_outputs`] before any file is made: the statistics, and each file as a function that
/// writes it. The CLI writes each file straight to disk as it is made, so a run's outputs never
/// sit in memory beside its model (a 1M-turn turns.csv is ~45% of the run's JSONL).
pub struct QaOutputPlan<'a> {
    pub statistics: serde_json::Value,
    pub files: Vec<(&'static str, WriteFile<'a>)>,
    pub diagnostics: Vec<evalboard_engine::Diagnostic>,
}

/// The plan of [`qa_outputs`].
pub fn qa_output_plan(s: &ScoredQaRun) -> QaOutputPlan<'_> {
    match s.config.profile {
        Profile::Doc => {
            let stats = doc::statistics(s);
            QaOutputPlan {
                statistics: serde_json::to_value(&stats).unwrap_or(serde_json::Value::Null),
                files: vec![
                    (
                        "statistics.json",
                        file_made(move || crate::statistics_json(&stats)),
                    ),
                    ("summary.csv", Box::new(|w| csvs::write_summary_csv(s, w))),
                    ("turns.csv", Box::new(|w| csvs::write_turns_csv(s, w))),
                    ("errors.csv", file_made(|| csvs::errors_csv(s))),
                    ("validation.csv", file_made(|| csvs::validation_csv(s))),
                ],
                diagnostics: Vec::new(),
            }
        }
        Profile::Fa2 => {
            // The original system's writer makes its files together (and notes cells as it
            // writes them): they are made here, and each function hands its text over.
            let opts = fa2::Fa2Options::default();
            let out = fa2::write_outputs(&s.run, &opts);
            QaOutputPlan {
                statistics: serde_json::from_str(&out.statistics_json)
                    .unwrap_or(serde_json::Value::Null),
                files: vec![
                    ("statistics.json", file_of(out.statistics_json)),
                    ("summary.csv", file_of(out.summary_csv)),
                    ("turns.csv", file_of(out.turns_csv)),
                    ("errors.csv", file_of(out.errors_csv)),
                    ("validation.csv", file_of(out.validation_csv)),
                ],
                diagnostics: out.diagnostics,
            }
        }
    }
}
