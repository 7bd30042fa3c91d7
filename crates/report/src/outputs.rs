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
    match s.config.profile {
        Profile::Doc => {
            let stats = doc::statistics(s);
            RunOutputs {
                statistics: serde_json::to_value(&stats).unwrap_or(serde_json::Value::Null),
                files: vec![
                    ("statistics.json", crate::statistics_json(&stats)),
                    ("summary.csv", csvs::summary_csv(s)),
                    ("turns.csv", csvs::turns_csv(s)),
                    ("errors.csv", csvs::errors_csv(s)),
                    ("validation.csv", csvs::validation_csv(s)),
                ],
                diagnostics: Vec::new(),
            }
        }
        Profile::Fa2 => {
            let opts = fa2::Fa2Options::default();
            let out = fa2::write_outputs(&s.run, &opts);
            RunOutputs {
                statistics: serde_json::from_str(&out.statistics_json)
                    .unwrap_or(serde_json::Value::Null),
                files: vec![
                    ("statistics.json", out.statistics_json),
                    ("summary.csv", out.summary_csv),
                    ("turns.csv", out.turns_csv),
                    ("errors.csv", out.errors_csv),
                    ("validation.csv", out.validation_csv),
                ],
                diagnostics: out.diagnostics,
            }
        }
    }
}
