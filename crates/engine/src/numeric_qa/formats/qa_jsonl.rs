//! The canonical numeric-QA JSONL format (`evalboard.qa.v1`): one turn per line, so any agent can
//! be scored. Schema and examples: docs/formats.md.
//!
//! Parsed line by line with borrowing serde structs: a bad line becomes a diagnostic with its line
//! number and every other line is still read.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue as JsonRaw;

use super::pyval::BStr;
use super::Src;
use crate::diag::Diagnostic;
use crate::diag::SourceRef;
use crate::json_keys::{self, Checked};
use crate::numeric_qa::model::{
    Features, OriginalTurnScores, Plan, PlanStep, QaConversation, QaTurn, RawValue, Tokens,
    TurnError,
};

/// Cheap content sniff: the first non-empty line is a JSON object with `conversation_id` and
/// `turn_idx`. The whole first line is looked at, however long (a slice of `bytes`, no copy): a
/// first turn with a long question is still a turn. A caller that passes the file's first block
/// gets `false` when that block ends inside a first line lacking the two keys, and reads the
/// file whole instead.
pub fn looks_like_qa_jsonl(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while let Some(b) = rest.strip_prefix(b"\xEF\xBB\xBF") {
        rest = b;
    }
    let Some(first) = rest
        .split(|&c| c == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|l| !l.is_empty())
    else {
        return false;
    };
    let has = |needle: &str| memchr::memmem::find(first, needle.as_bytes()).is_some();
    first.starts_with(b"{") && has("\"conversation_id\"") && has("\"turn_idx\"")
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    conversation_id: BStr<'a>,
    turn_idx: i64,
    #[serde(default, borrow)]
    question: Option<BStr<'a>>,
    #[serde(default)]
    expected: Answer,
    #[serde(default)]
    predicted: Answer,
    #[serde(default, borrow)]
    model: Option<BStr<'a>>,
    #[serde(default, borrow)]
    plan_operations: Option<Vec<BStr<'a>>>,
    #[serde(default, borrow)]
    plan: Option<&'a JsonRaw>,
    #[serde(default)]
    plan_steps: Option<u32>,
    #[serde(default, borrow)]
    ground_truth_program: Option<BStr<'a>>,
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default, borrow)]
    error_type: Option<BStr<'a>>,
    #[serde(default, borrow)]
    error_message: Option<BStr<'a>>,
    #[serde(default)]
    features: Option<Features>,
    #[serde(default, borrow)]
    conversation_type: Option<BStr<'a>>,
    #[serde(default, borrow)]
    conversation_error: Option<BStr<'a>>,
    #[serde(default)]
    numerical_match: Option<bool>,
}

/// An answer field: missing, or present with any JSON value (`null` included, so a line with
/// `"expected": null` is a turn, not a conversation-failure marker). Read in the same pass as the
/// line, as [`RawValue::from_json`] makes it from the `serde_json::Value` (no second parse per
/// answer).
#[derive(Default)]
enum Answer {
    #[default]
    Missing,
    /// `None` for `null`.
    Present(Option<RawValue>),
}

impl<'de> Deserialize<'de> for Answer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        use serde::de::{MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<RawValue>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Some(RawValue::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Some(RawValue::Int(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Some(RawValue::from_u64(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Some(RawValue::Float(v)))
            }
            // A bare NaN / Infinity as Python's json.dump writes it (read through
            // `pyrepr`'s marker strings: see `read_line`) is that float.
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Some(match crate::pyrepr::marker_float(v) {
                    Some(x) => RawValue::Float(x),
                    None => RawValue::Str(v.to_string()),
                }))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Some(match crate::pyrepr::marker_float(&v) {
                    Some(x) => RawValue::Float(x),
                    None => RawValue::Str(v),
                }))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D2: serde::Deserializer<'de>>(
                self,
                d: D2,
            ) -> Result<Self::Value, D2::Error> {
                d.deserialize_any(V)
            }
            // Arrays and objects refuse a repeated key inside them as the line's own fields do
            // (the line is then read again with the last values: see `read_line`).
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let Checked(v) = Checked::deserialize(SeqAccessDeserializer::new(seq))?;
                Ok(Some(RawValue::from_json(&v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let Checked(v) = Checked::deserialize(MapAccessDeserializer::new(map))?;
                Ok(Some(RawValue::from_json(&v)))
            }
        }
        d.deserialize_any(V).map(Answer::Present)
    }
}

impl Answer {
    fn is_missing(&self) -> bool {
        matches!(self, Answer::Missing)
    }

    /// The answer (`None` when missing or `null`).
    fn into_raw(self) -> Option<RawValue> {
        match self {
            Answer::Missing => None,
            Answer::Present(v) => v,
        }
    }
}

/// Line operations on [`Src`]: a line is text when its block is UTF-8, else bytes (a bad line
/// then gets its own diagnostic).
impl<'a> Src<'a> {
    /// The line without its `\n` and a `\r` before it.
    fn trim_line_end(self) -> Src<'a> {
        match self {
            Src::Text(t) => {
                let t = t.strip_suffix('\n').unwrap_or(t);
                Src::Text(t.strip_suffix('\r').unwrap_or(t))
            }
            Src::Bytes(b) => {
                let b = b.strip_suffix(b"\n").unwrap_or(b);
                Src::Bytes(b.strip_suffix(b"\r").unwrap_or(b))
            }
        }
    }
    fn strip_bom(self) -> Src<'a> {
        match self {
            Src::Text(t) => Src::Text(t.strip_prefix('\u{feff}').unwrap_or(t)),
            Src::Bytes(b) => Src::Bytes(b.strip_prefix(b"\xef\xbb\xbf").unwrap_or(b)),
        }
    }
    fn is_blank(self) -> bool {
        self.as_bytes().iter().all(|b| b.is_ascii_whitespace())
    }
}

/// Reads a JSONL file into conversations (grouped by `conversation_id`, in first-seen order).
/// `Err` only when no line could be read at all.
pub fn read_qa_jsonl(
    path: &str,
    bytes: &[u8],
) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
    read_qa_jsonl_with_progress(path, bytes, &mut |_| {})
}

/// [`read_qa_jsonl`] that reports the bytes consumed so far every ~1 MB (for progress bars on
/// big files).
pub fn read_qa_jsonl_with_progress(
    path: &str,
    bytes: &[u8],
    progress: &mut dyn FnMut(u64),
) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
    read_blocks(Src::Bytes(bytes), QaJsonlReader::new(path), progress)
}

/// [`read_qa_jsonl_with_progress`] of a file already known to be UTF-8 text (not validated
/// again: in wasm, validating a 45 MB file takes a third of the time it takes to parse it),
/// whose byte-order mark, if it had one, is already removed (`sniff::text_of`). A U+FEFF left at
/// its start is content, as Python's `utf-8-sig` leaves a second one: the first line is then not
/// JSON, as it is when the file is streamed ([`QaJsonlReader`] removes one mark itself).
pub fn read_qa_jsonl_text_with_progress(
    path: &str,
    text: &str,
    progress: &mut dyn FnMut(u64),
) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let reader = QaJsonlReader {
        strip_bom: false,
        ..QaJsonlReader::new(path)
    };
    read_blocks(Src::Text(text), reader, progress)
}

/// Feeds the whole file in blocks of whole lines (so no line is buffered), reporting progress
/// between blocks.
fn read_blocks(
    src: Src<'_>,
    mut reader: QaJsonlReader,
    progress: &mut dyn FnMut(u64),
) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
    const PROGRESS_EVERY: usize = 1 << 20;
    let bytes = src.as_bytes();
    let mut start = 0usize;
    while start < bytes.len() {
        let rest = bytes.get(start..).unwrap_or_default();
        let len = match rest.get(PROGRESS_EVERY..) {
            None => rest.len(),
            Some(after) => {
                memchr::memchr(b'\n', after).map_or(rest.len(), |i| PROGRESS_EVERY + i + 1)
            }
        };
        let end = start + len;
        // Blocks end after a `\n` (or at the end), which is always a character boundary.
        match src {
            Src::Text(t) => match t.get(start..end) {
                Some(block) => reader.feed_text(block),
                None => reader.feed(bytes.get(start..end).unwrap_or_default()),
            },
            Src::Bytes(b) => reader.feed(b.get(start..end).unwrap_or_default()),
        }
        start = end;
        if start < bytes.len() {
            progress(start as u64);
        }
    }
    reader.finish()
}

/// The JSONL reader, fed a file in pieces of any size (a caller streaming a big file never
/// holds it whole; [`read_qa_jsonl`] feeds the whole file). The result is the same for any
/// split of the same bytes.
pub struct QaJsonlReader {
    path: String,
    file: std::sync::Arc<str>,
    /// Lines read so far.
    line_no: u32,
    /// Bytes read so far (complete lines).
    consumed: u64,
    /// The start of a line whose end has not been fed yet.
    partial: Vec<u8>,
    convs: Vec<QaConversation>,
    index: HashMap<String, usize>,
    diags: Vec<Diagnostic>,
    n_ok: usize,
    n_bad: usize,
    repeats: RepeatedKeys,
    first_invalid_utf8: Option<(u64, u32)>,
    /// The first line starts after a byte-order mark (false when the caller removed it).
    strip_bom: bool,
    /// Turns read so far, and the conversation of the last one (a watched file's reader takes
    /// each new turn as it comes: [`QaJsonlReader::last_turn`]).
    turns: u64,
    last_conv: usize,
}

/// The lines with repeated keys: each listed (up to [`RepeatedKeys::LISTED`] lines), then counted.
#[derive(Default)]
struct RepeatedKeys {
    lines: usize,
}

impl RepeatedKeys {
    const LISTED: usize = 1000;

    /// Warns of the repeated keys of `line` (line number `line_no`).
    fn note(&mut self, diags: &mut Vec<Diagnostic>, path: &str, line_no: u32, line: Src<'_>) {
        self.lines += 1;
        if self.lines <= Self::LISTED {
            json_keys::warn_duplicates(diags, path, line.as_bytes(), line_no);
        }
    }

    /// The count of the lines not listed.
    fn finish(&self, diags: &mut Vec<Diagnostic>, path: &str) {
        if self.lines > Self::LISTED {
            diags.push(Diagnostic::warning(
                path,
                None,
                format!(
                    "{} more lines with duplicate keys not listed ({} in total; the last value \
                     of each key is used)",
                    self.lines - Self::LISTED,
                    self.lines
                ),
            ));
        }
    }
}

impl QaJsonlReader {
    pub fn new(path: &str) -> QaJsonlReader {
        QaJsonlReader {
            path: path.to_string(),
            file: path.into(),
            line_no: 0,
            consumed: 0,
            partial: Vec::new(),
            convs: Vec::new(),
            index: HashMap::new(),
            diags: Vec::new(),
            n_ok: 0,
            n_bad: 0,
            repeats: RepeatedKeys::default(),
            first_invalid_utf8: None,
            strip_bom: true,
            turns: 0,
            last_conv: 0,
        }
    }

    /// The number of turns read so far, and the last of them (with its conversation).
    pub fn last_turn(&self) -> (u64, Option<(&QaConversation, &QaTurn)>) {
        let last = self
            .convs
            .get(self.last_conv)
            .and_then(|c| Some((c, c.turns.last()?)));
        (self.turns, last)
    }

    /// The diagnostics of the lines read so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diags
    }

    /// The path the reader names in its diagnostics.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Reads the next piece of the file.
    pub fn feed(&mut self, mut piece: &[u8]) {
        if !self.partial.is_empty() {
            match memchr::memchr(b'\n', piece) {
                None => {
                    self.partial.extend_from_slice(piece);
                    return;
                }
                Some(i) => {
                    let mut line = std::mem::take(&mut self.partial);
                    line.extend_from_slice(&piece[..=i]);
                    self.read_lines(&line);
                    piece = &piece[i + 1..];
                }
            }
        }
        match memchr::memrchr(b'\n', piece) {
            None => self.partial.extend_from_slice(piece),
            Some(i) => {
                self.read_lines(&piece[..=i]);
                self.partial.extend_from_slice(&piece[i + 1..]);
            }
        }
    }

    /// [`QaJsonlReader::feed`] of a piece known to be UTF-8 text (not validated again).
    pub fn feed_text(&mut self, piece: &str) {
        if !self.partial.is_empty() {
            return self.feed(piece.as_bytes());
        }
        match memchr::memrchr(b'\n', piece.as_bytes()) {
            None => self.partial.extend_from_slice(piece.as_bytes()),
            Some(i) => {
                let (lines, rest) = piece.split_at(i + 1);
                self.read_text_lines(lines);
                self.partial.extend_from_slice(rest.as_bytes());
            }
        }
    }

    /// Where the file first is not UTF-8 (byte offset, 1-based line), if anywhere in what was
    /// fed so far (a caller checking the whole file's encoding while streaming it).
    pub fn first_invalid_utf8(&self) -> Option<(u64, u32)> {
        self.first_invalid_utf8
    }

    /// Reads whole lines: every line of `block` but the last ends with `\n`.
    fn read_lines(&mut self, block: &[u8]) {
        let lines = match std::str::from_utf8(block) {
            Ok(t) => return self.read_text_lines(t),
            Err(e) => {
                if self.first_invalid_utf8.is_none() {
                    let at = e.valid_up_to();
                    let before = block.get(..at).unwrap_or_default();
                    let line =
                        self.line_no as usize + 1 + memchr::memchr_iter(b'\n', before).count();
                    self.first_invalid_utf8 = Some((
                        self.consumed + at as u64,
                        u32::try_from(line).unwrap_or(u32::MAX),
                    ));
                }
                Lines {
                    src: Src::Bytes(block),
                    at: 0,
                }
            }
        };
        self.read_each(lines);
    }

    /// [`Self::read_lines`] of text.
    fn read_text_lines(&mut self, block: &str) {
        self.read_each(Lines {
            src: Src::Text(block),
            at: 0,
        });
    }

    fn read_each(&mut self, lines: Lines<'_>) {
        for raw_line in lines {
            self.line_no = self.line_no.saturating_add(1);
            self.consumed += raw_line.len() as u64;
            let first = self.line_no == 1;
            self.read_line(raw_line.trim_line_end(), first);
        }
    }

    fn read_line(&mut self, raw_line: Src<'_>, first: bool) {
        let path = self.path.as_str();
        let line_no = self.line_no;
        let raw_line = if first && self.strip_bom {
            raw_line.strip_bom()
        } else {
            raw_line
        };
        if raw_line.is_blank() {
            return;
        }
        // A repeated key: serde's `duplicate field` error (nothing is paid on the other lines),
        // then the line read again with the last values (json_keys). A bare NaN / Infinity
        // (Python's json.dump writes them for non-finite floats): the line read again as
        // Python reads it (`pyrepr`), the answer being that float.
        let merged: String;
        let rewritten: std::borrow::Cow<'_, [u8]>;
        let line: Line = match raw_line.parse() {
            Ok(l) => l,
            Err(e) => {
                let retried = if json_keys::is_duplicate_field(&e) {
                    match json_keys::last_wins_text(raw_line.as_bytes()) {
                        Ok(text) => {
                            merged = text;
                            self.repeats.note(&mut self.diags, path, line_no, raw_line);
                            Src::Text(&merged).parse::<Line>()
                        }
                        // Malformed further on: that is the error to report.
                        Err(syntax) => Err(syntax),
                    }
                } else {
                    rewritten = crate::pyrepr::without_nonfinite_tokens(raw_line.as_bytes());
                    match &rewritten {
                        std::borrow::Cow::Owned(text) => Src::Bytes(text).parse::<Line>(),
                        std::borrow::Cow::Borrowed(_) => Err(e),
                    }
                };
                match retried {
                    Ok(l) => l,
                    Err(e) => {
                        self.n_bad += 1;
                        if self.n_bad <= 1000 {
                            self.diags.push(Diagnostic::error(
                                path,
                                Some(line_no),
                                format!("line skipped: {e}"),
                            ));
                        }
                        return;
                    }
                }
            }
        };
        if line.turn_idx < 0 || line.turn_idx > u32::MAX as i64 {
            self.n_bad += 1;
            self.diags.push(Diagnostic::error(
                path,
                Some(line_no),
                format!("line skipped: turn_idx {} out of range", line.turn_idx),
            ));
            return;
        }
        self.n_ok += 1;
        let file = &self.file;
        let convs = &mut self.convs;
        let conv_idx = match self.index.get(&*line.conversation_id) {
            Some(&k) => k,
            None => {
                let id = line.conversation_id.to_string();
                self.index.insert(id.clone(), convs.len());
                // The dataset's turn count sizes the turn list exactly (no growth slack: the model
                // of a 1M-turn run is memory-bound); capped so a bad count cannot reserve much.
                let expected_turns = line
                    .features
                    .as_ref()
                    .and_then(|f| f.num_dialogue_turns)
                    .map_or(0, |n| n.min(64) as usize);
                convs.push(QaConversation {
                    id,
                    turns: Vec::with_capacity(expected_turns),
                    source: SourceRef {
                        file: file.clone(),
                        line: Some(line_no),
                        record: None,
                    },
                    ..Default::default()
                });
                convs.len() - 1
            }
        };
        let Some(conv) = convs.get_mut(conv_idx) else {
            return;
        };
        if conv.model.is_none() {
            conv.model = line.model.as_deref().map(str::to_string);
        }
        if let Some(f) = line.features {
            conv.features = f;
        }
        if conv.conversation_type.is_none() {
            conv.conversation_type = line.conversation_type.as_deref().map(str::to_string);
        }
        if let Some(err) = line.conversation_error.as_deref() {
            conv.failure = Some(err.to_string());
            if line.question.is_none() && line.expected.is_missing() {
                // A whole-conversation failure marker line, not a turn.
                return;
            }
        }
        let plan = match (&line.plan_operations, line.plan) {
            (Some(ops), _) => Some(Plan {
                steps: ops
                    .iter()
                    .map(|op| PlanStep {
                        tool: "compute".into(),
                        operation: Some(crate::numeric_qa::model::plan_word(op)),
                        detail: None,
                    })
                    .collect(),
            }),
            (None, Some(p)) => {
                // Kept raw, so not seen by the line's own check: a repeat in it is reported
                // here (with its place in the line).
                if !json_keys::duplicate_keys(p.get().as_bytes()).is_empty() {
                    self.repeats.note(&mut self.diags, path, line_no, raw_line);
                }
                serde_json::from_str::<serde_json::Value>(p.get())
                    .ok()
                    .and_then(|v| super::fa2_results::plan_from(Some(&v)))
            }
            (None, None) => None,
        };
        let error = match (&line.error_type, &line.error_message) {
            (None, None) => None,
            (t, m) => Some(TurnError {
                error_type: t.as_deref().unwrap_or("Error").to_string(),
                message: m.as_deref().unwrap_or_default().to_string(),
                context: None,
            }),
        };
        self.turns += 1;
        self.last_conv = conv_idx;
        conv.turns.push(QaTurn {
            turn_idx: line.turn_idx as u32,
            question: line.question.as_deref().unwrap_or_default().to_string(),
            expected: line.expected.into_raw().unwrap_or(RawValue::Null),
            predicted: line.predicted.into_raw(),
            plan_steps: line
                .plan_steps
                .or(plan.as_ref().map(|p| p.steps.len() as u32)),
            plan,
            ground_truth_program: line.ground_truth_program.as_deref().map(str::to_string),
            executed_answer: None,
            tokens: Tokens {
                prompt: line.prompt_tokens,
                completion: line.completion_tokens,
                total: line.total_tokens,
            },
            latency_ms: line.latency_ms,
            error: error.map(Box::new),
            original: OriginalTurnScores {
                numerical_match: line.numerical_match,
                ..Default::default()
            },
            source: SourceRef {
                file: file.clone(),
                line: Some(line_no),
                record: None,
            },
            validator_logs: Vec::new(),
            fa2: None,
        });
    }

    /// The conversations read, and the diagnostics; `Err` when no line could be read at all.
    pub fn finish(mut self) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
        if !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            self.read_lines(&last);
        }
        let convs = std::mem::take(&mut self.convs);
        let diags = std::mem::take(&mut self.diags);
        self.finished(convs, diags)
    }

    /// What [`QaJsonlReader::finish`] would give of the complete lines fed so far (a line not
    /// ended yet is left out), the reader kept as it is: the conversations and diagnostics
    /// copied, nothing read again (a watched file's run so far, [`crate::run::live`]).
    pub fn so_far(&self) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
        self.finished(self.convs.clone(), self.diags.clone())
    }

    /// The end of a read: the bad and repeated lines not listed counted, an empty file an
    /// error, each conversation's turn order checked.
    fn finished(
        &self,
        mut convs: Vec<QaConversation>,
        mut diags: Vec<Diagnostic>,
    ) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
        let (path, n_ok, n_bad) = (self.path.as_str(), self.n_ok, self.n_bad);
        self.repeats.finish(&mut diags, path);
        if n_bad > 1000 {
            diags.push(Diagnostic::error(
                path,
                None,
                format!(
                    "{} more bad lines not listed ({n_bad} in total)",
                    n_bad - 1000
                ),
            ));
        }
        if n_ok == 0 && convs.is_empty() {
            if diags.is_empty() {
                diags.push(Diagnostic::error(path, None, "no turns in file"));
            }
            return Err(diags);
        }
        for conv in &mut convs {
            super::check_turn_order(path, conv, &mut diags);
        }
        Ok((convs, diags))
    }
}

/// The lines of a block, each with its `\n` (the last one may have none), as [`Src`]: what
/// `split_inclusive('\n')` gives, found with `memchr` (std's split searches byte by byte; in
/// wasm, where memchr uses SIMD128, this was 10-16 ms of a 100k-line file's parse).
struct Lines<'a> {
    src: Src<'a>,
    at: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Src<'a>;
    fn next(&mut self) -> Option<Src<'a>> {
        let rest = self.src.as_bytes().get(self.at..)?;
        if rest.is_empty() {
            return None;
        }
        let end = self.at + memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        // A line ends after a `\n` or at the end: always a character boundary.
        let line = match self.src {
            Src::Text(t) => Src::Text(t.get(self.at..end)?),
            Src::Bytes(b) => Src::Bytes(b.get(self.at..end)?),
        };
        self.at = end;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_split_inclusive_does() {
        for text in [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "é\n€\n\u{1f600}",
            "x\n\ny",
        ] {
            let want: Vec<&str> = text.split_inclusive('\n').collect();
            let text_lines: Vec<&[u8]> = Lines {
                src: Src::Text(text),
                at: 0,
            }
            .map(|l| l.as_bytes())
            .collect();
            let byte_lines: Vec<&[u8]> = Lines {
                src: Src::Bytes(text.as_bytes()),
                at: 0,
            }
            .map(|l| l.as_bytes())
            .collect();
            let want: Vec<&[u8]> = want.iter().map(|l| l.as_bytes()).collect();
            assert_eq!(text_lines, want, "{text:?}");
            assert_eq!(byte_lines, want, "{text:?}");
        }
    }

    #[test]
    fn bare_nan_and_infinity_are_read_as_python_reads_them() {
        let text = concat!(
            "{\"conversation_id\":\"c\",\"turn_idx\":0,\"question\":\"NaN in text\",\"expected\":\"1\",\"predicted\":NaN}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":1,\"question\":\"q\",\"expected\":\"1\",\"predicted\":-Infinity}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":2,\"question\":\"q\",\"expected\":Infinity,\"predicted\":1}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":3,\"question\":\"q\",\"expected\":\"1\",\"predicted\":NaNx}\n",
        );
        let (convs, diags) = read_qa_jsonl("run.jsonl", text.as_bytes()).expect("read");
        let turns = &convs[0].turns;
        assert_eq!(turns.len(), 3, "{diags:?}");
        assert!(matches!(turns[0].predicted, Some(RawValue::Float(x)) if x.is_nan()));
        assert_eq!(
            turns[0].question, "NaN in text",
            "a token inside a string stays text"
        );
        assert_eq!(turns[1].predicted, Some(RawValue::Float(f64::NEG_INFINITY)));
        assert_eq!(turns[2].expected, RawValue::Float(f64::INFINITY));
        // Not a token Python writes: the line is still an error, and named.
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].line, Some(4));
    }

    #[test]
    fn reports_progress_on_big_files() {
        let line = "{\"conversation_id\":\"c\",\"turn_idx\":0,\"question\":\"q\",\"expected\":1,\"predicted\":1}\n";
        let text = line.repeat(40_000); // ~3 MB
        let mut seen = Vec::new();
        let plain = read_qa_jsonl("a.jsonl", text.as_bytes()).map(|r| r.0.len());
        let with = read_qa_jsonl_with_progress("a.jsonl", text.as_bytes(), &mut |b| seen.push(b))
            .map(|r| r.0.len());
        assert_eq!(plain, with);
        assert!(seen.len() >= 2, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
        assert!(seen.iter().all(|&b| b <= text.len() as u64));
        let mut none = 0;
        let _ = read_qa_jsonl_with_progress("a.jsonl", b"", &mut |_| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn repeated_keys_keep_the_last_value_with_a_warning() {
        let text = concat!(
            "{\"conversation_id\":\"c\",\"turn_idx\":0,\"expected\":1,\"predicted\":1}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":1,\"predicted\":\"first\",\"expected\":2,\"predicted\":\"last\"}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":2,\"expected\":3,\"features\":{\"num_dialogue_turns\":3,\"num_dialogue_turns\":4}}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":3,\"expected\":4,\"plan\":{\"steps\":[{\"tool\":\"compute\",\"operation\":\"add\",\"operation\":\"divide\"}]}}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":4,\"expected\":{\"v\":1,\"v\":2}}\n",
            "{\"conversation_id\":\"c\",\"turn_idx\":5,\"expected\":6,\"expected\":7,\"turn_idx\":x}\n",
        );
        let (convs, diags) = read_qa_jsonl("run.jsonl", text.as_bytes()).unwrap();
        let turns = &convs[0].turns;
        assert_eq!(turns.len(), 5, "no turn is lost but the malformed one");
        assert_eq!(turns[1].predicted, Some(RawValue::Str("last".into())));
        assert_eq!(turns[1].expected, RawValue::Int(2));
        assert_eq!(convs[0].features.num_dialogue_turns, Some(4));
        let plan = turns[3].plan.as_ref().unwrap();
        assert_eq!(plan.steps[0].operation.as_deref(), Some("divide"));
        assert_eq!(turns[4].expected, RawValue::Str("{\"v\":2}".into()));
        let shown: Vec<String> = diags.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "run.jsonl:2: warning: duplicate key \"predicted\" in the top-level object; the last value is used",
                "run.jsonl:3: warning: duplicate key \"num_dialogue_turns\" in the object at features; the last value is used",
                "run.jsonl:4: warning: duplicate key \"operation\" in the object at plan.steps[0]; the last value is used",
                "run.jsonl:5: warning: duplicate key \"v\" in the object at expected; the last value is used",
                "run.jsonl:6: error: line skipped: expected value at line 1 column 74",
            ],
        );
    }

    #[test]
    fn repeated_keys_are_listed_up_to_a_cap() {
        let line = "{\"conversation_id\":\"c\",\"turn_idx\":0,\"expected\":1,\"expected\":2}\n";
        let text = line.repeat(RepeatedKeys::LISTED + 5);
        let (convs, diags) = read_qa_jsonl("run.jsonl", text.as_bytes()).unwrap();
        assert_eq!(convs[0].turns.len(), RepeatedKeys::LISTED + 5);
        assert_eq!(
            diags.len(),
            RepeatedKeys::LISTED + 2,
            "and the turn_idx warning"
        );
        assert!(diags.iter().any(|d| d
            .message
            .starts_with("5 more lines with duplicate keys not listed (1005")));
    }

    #[test]
    fn reads_lines_and_reports_bad_ones() {
        let text = concat!(
            "{\"conversation_id\":\"c1\",\"turn_idx\":0,\"question\":\"q\",\"expected\":\"12.5%\",\"predicted\":0.125,\"plan_operations\":[\"divide\"],\"total_tokens\":10}\n",
            "not json\n",
            "\n",
            "{\"conversation_id\":\"c1\",\"turn_idx\":1,\"expected\":3,\"predicted\":null,\"error_type\":\"ValueError\",\"error_message\":\"x\"}\r\n",
            "{\"conversation_id\":\"c2\",\"turn_idx\":0,\"expected\":\"yes\",\"predicted\":\"Yes\",\"features\":{\"has_type2_question\":true}}\n",
            "{\"conversation_id\":\"c3\",\"turn_idx\":-1}\n",
        );
        let (convs, diags) = read_qa_jsonl("run.jsonl", text.as_bytes()).unwrap();
        assert_eq!(convs.len(), 2);
        assert_eq!(convs[0].turns.len(), 2);
        assert_eq!(convs[0].turns[0].expected, RawValue::Str("12.5%".into()));
        assert_eq!(convs[0].turns[0].predicted, Some(RawValue::Float(0.125)));
        assert_eq!(convs[0].turns[1].predicted, None);
        assert_eq!(convs[0].turns[1].expected, RawValue::Int(3));
        assert_eq!(convs[1].features.has_type2_question, Some(true));
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert_eq!(diags[0].line, Some(2));
        assert_eq!(diags[1].line, Some(6));
    }

    /// Answers are read in the line's own pass, giving what `RawValue::from_json` gives for the
    /// answer's `serde_json::Value` (the reader used to parse each answer a second time).
    #[test]
    fn answers_read_as_serde_json_values_would() {
        let answers = [
            "1",
            "-5",
            "0",
            "-0",
            "18446744073709551615",
            "9223372036854775808",
            "-9223372036854775808",
            "1e3",
            "-2.5E-3",
            "0.1",
            "6.69",
            "1.7976931348623157e308",
            "true",
            "false",
            "\"6.69\"",
            "\"a\\\"b\"",
            "\"\\u0000NaN\"",
            "\"\\u2212 4\"",
            "[1, \"x\", null]",
            "{\"b\": 1, \"a\": [2], \"b\": 3}",
            "[]",
            "{}",
        ];
        for a in answers {
            let text = format!(
                "{{\"conversation_id\":\"c\",\"turn_idx\":0,\"expected\":{a},\"predicted\":{a}}}"
            );
            let (convs, diags) = read_qa_jsonl("a.jsonl", text.as_bytes()).unwrap();
            // The object with a repeated key: a warning for each answer, the last value kept.
            let repeats = if a.contains("\"b\": 3") { 2 } else { 0 };
            assert_eq!(diags.len(), repeats, "{a}: {diags:?}");
            let want = RawValue::from_json(&serde_json::from_str(a).unwrap());
            assert_eq!(convs[0].turns[0].expected, want, "{a}");
            assert_eq!(convs[0].turns[0].predicted, Some(want), "{a}");
        }
        // `null` is an answer that is there: the line is a turn even with a conversation error,
        // while a line without question and expected is the failure marker.
        let text = concat!(
            "{\"conversation_id\":\"c\",\"turn_idx\":0,\"expected\":null,\"predicted\":null,\"conversation_error\":\"timeout\"}\n",
            "{\"conversation_id\":\"d\",\"turn_idx\":0,\"conversation_error\":\"Evaluation timeout (300s)\"}\n",
        );
        let (convs, _) = read_qa_jsonl("a.jsonl", text.as_bytes()).unwrap();
        assert_eq!(convs[0].turns.len(), 1);
        assert_eq!(convs[0].turns[0].expected, RawValue::Null);
        assert_eq!(convs[0].turns[0].predicted, None);
        assert_eq!(convs[1].turns.len(), 0);
        assert_eq!(
            convs[1].failure.as_deref(),
            Some("Evaluation timeout (300s)")
        );
    }

    #[test]
    fn unusable_file_is_err() {
        assert!(read_qa_jsonl("x.jsonl", b"").is_err());
        assert!(read_qa_jsonl("x.jsonl", b"nope\nnope").is_err());
    }

    #[test]
    fn escaped_strings_roundtrip() {
        let t = "{\"conversation_id\":\"c\",\"turn_idx\":0,\"expected\":\"a\\\"b\",\"predicted\":\"<img src=x>\"}";
        let (convs, _) = read_qa_jsonl("x.jsonl", t.as_bytes()).unwrap();
        assert_eq!(convs[0].turns[0].expected, RawValue::Str("a\"b".into()));
        assert_eq!(
            convs[0].turns[0].predicted,
            Some(RawValue::Str("<img src=x>".into()))
        );
    }
}
