//! Pure output writers: scored runs → files (statistics.json, CSVs, SVG charts, HTML report).
//! No I/O: every writer returns the file's text; the CLI and the app decide where it goes.

pub mod charts;
pub mod codegen_charts;
mod codegen_files;
pub mod compare_charts;
pub mod csvs;
mod evalset_files;
pub mod html;
pub mod outputs;
pub mod qa_charts;

pub use codegen_files::{codegen_files, codegen_statistics};
pub use evalset_files::{evalset_files, evalset_statistics};

use evalboard_engine::aggregate::doc::Statistics;

/// statistics.json of the doc profile: pretty-printed, keys in DTO order, trailing newline.
pub fn statistics_json(stats: &Statistics) -> String {
    let mut s =
        serde_json::to_string_pretty(stats).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
