//! A numeric QA run read while it is written ([`crate::run::live`]): a canonical QA JSONL file
//! as it grows, each appended complete line through the family's one JSONL reader
//! ([`QaJsonlReader`]); and a financial-agent-2 trace folder as it grows by whole files, each new
//! (or rewritten) `traces/<id>.json` read alone by the family's trace reader
//! ([`read_file_owned`], [`trace_file`]). Each new turn is scored alone by
//! [`score::score_turn`] under the run's settings, as a full read scores it, and its scores are
//! kept ([`KnownTurns`]): the run so far is scored from them, only turns not seen before scored
//! ([`score::score_qa_run_known`]).

use super::formats::fa2_traces;
use super::formats::qa_jsonl::{self, QaJsonlReader};
use super::model::{QaRun, QaTurn, ReadDetail};
use super::read::{assemble_qa_run, read_file_owned, FileRead};
use super::score::known::KnownTurns;
use super::score::{self, ScoreConfig};
use crate::diag::Diagnostic;
use crate::live::{LiveFailure, LiveItem, LiveTally};

/// The reader of one watched QA JSONL file.
pub struct QaLive {
    reader: QaJsonlReader,
    config: ScoreConfig,
    /// Each turn's scores, kept as it was scored (shared with a run so far being scored: a
    /// rebuild holds it for as long as it scores, then lets go).
    known: std::sync::Arc<KnownTurns>,
}

impl QaLive {
    /// A reader of `path` when its first complete line, `first_line`, is a QA JSONL turn.
    pub fn start(path: &str, first_line: &[u8], config: ScoreConfig) -> Option<QaLive> {
        qa_jsonl::looks_like_qa_jsonl(first_line).then(|| QaLive {
            reader: QaJsonlReader::new(&path.replace('\\', "/")),
            known: std::sync::Arc::new(KnownTurns::new(&config.tolerances)),
            config,
        })
    }

    /// Reads complete `lines` (each ending with its line feed) and counts each new turn in
    /// `tally`, in file order; how many turns were new.
    pub fn lines(&mut self, lines: &[u8], tally: &mut LiveTally) -> usize {
        let mut new = 0;
        for line in lines.split_inclusive(|&b| b == b'\n') {
            let before = self.reader.last_turn().0;
            self.reader.feed(line);
            let (after, last) = self.reader.last_turn();
            if after == before {
                continue;
            }
            let Some((conv, turn)) = last else { continue };
            let parts = count_turn(&conv.id, turn, &self.config, tally);
            std::sync::Arc::make_mut(&mut self.known).insert(turn, parts);
            new += 1;
        }
        new
    }

    /// The diagnostics of the lines read so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.reader.diagnostics()
    }

    /// The file so far (its complete lines, `bytes` bytes) as [`super::read::read_file`] reads it, from the
    /// conversations already read: copied, nothing read again.
    pub fn read_so_far(&self, bytes: usize) -> FileRead<'static> {
        super::read::qa_jsonl_so_far(&self.reader, bytes)
    }

    /// The scores of the turns read so far, each kept as it was scored.
    pub fn known(&self) -> &std::sync::Arc<KnownTurns> {
        &self.known
    }
}

/// The run `name` of the files `reads` (each read alone, in any order), as a full read of a
/// folder of them gives it ([`assemble_qa_run`]); `None` when no conversation could be read
/// (a full read's error).
pub fn run_of(name: &str, reads: Vec<FileRead<'_>>) -> Option<QaRun> {
    assemble_qa_run(name, reads, None).ok()
}

/// Scores `turn` of conversation `conv` under `config` and counts it in `tally` (a wrong one
/// among the first failures, with its answer against the expected one); its scores.
fn count_turn(
    conv: &str,
    turn: &QaTurn,
    config: &ScoreConfig,
    tally: &mut LiveTally,
) -> score::TurnParts {
    let parts = score::score_turn(turn, config);
    let correct = score::verdict(config.profile, &parts.0, &parts.1);
    let item = LiveItem {
        reading: Some(if correct { 1.0 } else { 0.0 }),
        errored: turn.error.is_some(),
        latency_ms: turn.latency_ms,
    };
    if correct {
        tally.push(item);
    } else {
        tally.push_wrong(item, || {
            let got = turn.predicted.as_ref().map(|p| p.display());
            LiveFailure::new(
                crate::run_table::ItemKey::text_index(conv, u64::from(turn.turn_idx)),
                got.as_deref().filter(|g| !g.is_empty()),
                Some(turn.expected.display().as_str()),
            )
        });
    }
    parts
}

/// A financial-agent-2 trace file (`traces/<id>.json`: one conversation), read whole and alone
/// by the full read's own file reader ([`read_file_owned`]), its turns scored under `config` in
/// their order: their tally, their scores and the file's read (kept for the run so far,
/// [`run_of`]). `None` when the file is not a trace (as a full read tells). A trace that cannot
/// be read counts no turn and says why in its read's diagnostics.
pub fn trace_file(
    path: &str,
    bytes: &[u8],
    config: &ScoreConfig,
) -> Option<(LiveTally, KnownTurns, FileRead<'static>)> {
    if !fa2_traces::looks_like_trace(bytes) {
        return None;
    }
    let file = crate::input::InputFile::new(path, bytes.to_vec());
    let read = read_file_owned(file, ReadDetail::Full).read;
    if !read.is_trace() {
        return None;
    }
    let mut tally = LiveTally::default();
    let mut known = KnownTurns::new(&config.tolerances);
    if let Some(conv) = read.trace() {
        for turn in &conv.turns {
            let parts = count_turn(&conv.id, turn, config, &mut tally);
            known.insert(turn, parts);
        }
    }
    Some((tally, known, read))
}
