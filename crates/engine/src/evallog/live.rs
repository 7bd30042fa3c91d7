//! An OpenAI Evals record file or a promptfoo `.jsonl` read while it is written
//! ([`crate::run::live`]). Each appended complete line goes through the format's own line reader
//! (`openai_evals::Records`, `promptfoo::live_row`); the sample it adds to is lowered again
//! from its own events alone and judged by the run's headline score (`score::reading_of`), as
//! the full read judges it. A sample is counted once it is done (judged, or errored); a later
//! event that changes its verdict sets it again.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::model::{MetricKey, Sample};
use super::sniff::EvalLogFileKind;
use super::{json, openai_evals, promptfoo, score, LoadedLog};
use crate::diag::Diagnostic;
use crate::live::{LiveFailure, LiveItem, LiveTally};

/// The reader of one watched eval-log JSONL file.
pub struct LogLive {
    path: String,
    format: Format,
    judge: MetricKey,
    diags: Vec<Diagnostic>,
}

enum Format {
    OpenaiEvals {
        records: openai_evals::Records,
        /// A counted sample's index in the tally.
        counted: BTreeMap<String, usize>,
    },
    Promptfoo {
        seen: BTreeSet<(i64, i64)>,
        /// Every line that parsed (line number, value), for the run so far: the rows are
        /// lowered again together, as the whole read lowers them.
        rows: Vec<(u32, Value)>,
        /// Where in the diagnostics those of a line that is no row are (the run so far has
        /// its own, from lowering the rows again).
        row_diags: Vec<usize>,
    },
}

impl LogLive {
    /// A reader of `path` when its first complete line, `first_line`, is an OpenAI Evals record
    /// line or a promptfoo JSONL row.
    pub fn start(path: &str, first_line: &[u8]) -> Option<LogLive> {
        use EvalLogFileKind as K;
        let path = path.replace('\\', "/");
        let probe = crate::input::InputFile::new(path.clone(), first_line.to_vec());
        let (format, judge) = match super::sniff::sniff(&probe)? {
            K::OpenaiEvalsJsonl => (
                Format::OpenaiEvals {
                    records: openai_evals::Records::default(),
                    counted: BTreeMap::new(),
                },
                openai_evals::match_accuracy(),
            ),
            K::PromptfooJsonl => (
                Format::Promptfoo {
                    seen: BTreeSet::new(),
                    rows: Vec::new(),
                    row_diags: Vec::new(),
                },
                promptfoo::pass_rate(),
            ),
            _ => return None,
        };
        Some(LogLive {
            path,
            format,
            judge,
            diags: Vec::new(),
        })
    }

    /// Reads complete `lines` (numbered from `first_line`) and counts each sample done in
    /// `tally`, in file order; how many samples were new.
    pub fn lines(&mut self, first_line: u32, lines: &[u8], tally: &mut LiveTally) -> usize {
        let LogLive {
            path,
            format,
            judge,
            diags,
        } = self;
        let path = path.as_str();
        let mut new = 0;
        json::each_line_from(
            path,
            lines,
            first_line,
            diags,
            |line_no, v, diags| match format {
                Format::OpenaiEvals { records, counted } => {
                    let Some(id) = records.line(path, line_no, v, diags) else {
                        return;
                    };
                    let Some(sample) = records.sample(path, &id) else {
                        return;
                    };
                    let Some(item) = done(&sample, judge) else {
                        return;
                    };
                    match counted.get(&id) {
                        Some(&at) => tally.set(at, item),
                        None => {
                            counted.insert(id, tally.len());
                            count(tally, item, &sample);
                            new += 1;
                        }
                    }
                }
                Format::Promptfoo {
                    seen,
                    rows,
                    row_diags,
                } => {
                    let before = diags.len();
                    let sample = promptfoo::live_row(path, line_no, &v, seen, diags);
                    row_diags.extend(before..diags.len());
                    rows.push((line_no, v));
                    let Some(sample) = sample else { return };
                    if let Some(item) = done(&sample, judge) {
                        count(tally, item, &sample);
                        new += 1;
                    }
                }
            },
        );
        new
    }

    /// The diagnostics of the lines read so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diags
    }

    /// The file so far (its complete lines, `bytes` bytes) as run `name`, as [`super::read_log`]
    /// gives a folder of that one file: lowered again from the lines already parsed (the
    /// record file's events, the promptfoo rows), nothing parsed again. `None` when the whole
    /// read would find no log.
    pub fn read_so_far(&self, name: &str, bytes: u64) -> Option<LoadedLog> {
        let path = self.path.as_str();
        let (result, kind) = match &self.format {
            Format::OpenaiEvals { records, .. } => (
                openai_evals::run_of(path, records, self.diags.clone()),
                EvalLogFileKind::OpenaiEvalsJsonl,
            ),
            Format::Promptfoo {
                rows, row_diags, ..
            } => {
                let lines: Vec<Diagnostic> = self
                    .diags
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| row_diags.binary_search(i).is_err())
                    .map(|(_, d)| d.clone())
                    .collect();
                (
                    promptfoo::jsonl_run(path, rows, lines),
                    EvalLogFileKind::PromptfooJsonl,
                )
            }
        };
        let (run, diagnostics) = result.ok()?;
        let file = (path, bytes, kind.label());
        Some(super::score::one_file_log(name, file, run, diagnostics))
    }
}

/// Counts `item`, `sample`'s, noting it among the first failures when it is wrong.
fn count(tally: &mut LiveTally, item: LiveItem, sample: &Sample) {
    if item.reading.is_some_and(|r| r >= 1.0) {
        return tally.push(item);
    }
    tally.push_wrong(item, || {
        let expected = (!sample.target.is_empty()).then(|| sample.target.join(" | "));
        LiveFailure::new(
            score::item_key(&sample.key),
            sample.output.as_deref(),
            expected.as_deref(),
        )
    });
}

/// `sample` as a counted item once it is done: judged by `judge`, or errored.
fn done(sample: &Sample, judge: &MetricKey) -> Option<LiveItem> {
    if !score::in_slice(sample, judge) {
        return None;
    }
    let reading = score::reading_of(sample, judge);
    let errored = sample.error.is_some();
    (reading.is_some() || errored).then(|| LiveItem {
        reading,
        errored,
        latency_ms: sample.latency.map(|s| s * 1000.0),
    })
}
