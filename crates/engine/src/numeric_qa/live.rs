//! A canonical QA JSONL file read while it is written ([`crate::run::live`]): each appended
//! complete line goes through the family's one JSONL reader ([`QaJsonlReader`]), and each new
//! turn is scored alone by [`score::score_turn`] under the run's settings, as a full read scores
//! it.

use super::formats::qa_jsonl::{self, QaJsonlReader};
use super::score::{self, ScoreConfig};
use crate::diag::Diagnostic;
use crate::live::{LiveFailure, LiveItem, LiveTally};

/// The reader of one watched QA JSONL file.
pub struct QaLive {
    reader: QaJsonlReader,
    config: ScoreConfig,
}

impl QaLive {
    /// A reader of `path` when its first complete line, `first_line`, is a QA JSONL turn.
    pub fn start(path: &str, first_line: &[u8], config: ScoreConfig) -> Option<QaLive> {
        qa_jsonl::looks_like_qa_jsonl(first_line).then(|| QaLive {
            reader: QaJsonlReader::new(&path.replace('\\', "/")),
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
            let (answer, fa2, _, _) = score::score_turn(turn, &self.config);
            let correct = score::verdict(self.config.profile, &answer, &fa2);
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
                        crate::run_table::ItemKey::text_index(&conv.id, u64::from(turn.turn_idx)),
                        got.as_deref().filter(|g| !g.is_empty()),
                        Some(turn.expected.display().as_str()),
                    )
                });
            }
            new += 1;
        }
        new
    }

    /// The diagnostics of the lines read so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.reader.diagnostics()
    }
}
