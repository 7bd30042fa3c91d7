//! Human review, family-free (like [`crate::run_table`] and [`crate::stats`]): a person's marks
//! on a run's items — correct or wrong, a 0–1 score override, a note — with every change kept
//! (its time, the field, old → new), the JSONL sidecar they are exported to and imported from
//! ([`MarkSet::to_jsonl`], [`MarkSet::from_jsonl`], schema [`SCHEMA`]), the verdicts "with
//! human overrides" beside the original ([`apply`]), and each scorer's agreement with the marks
//! (Cohen's κ, the 2×2 confusion matrix, the items where they differ: [`agreement`]).
//!
//! Marks are keyed by the run's content id ([`crate::run_table::content_id`], the
//! [`crate::run_table::RunFacts::content_id`] of its files) and the typed [`ItemKey`], so they
//! come back for the same bytes and never attach to different bytes. No I/O, no clock: the
//! caller gives every time ([`At`]: ISO-8601 text or milliseconds since the epoch). Every type is
//! plain serde, for a worker to keep and send. Rules: `docs/marks.md`.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::run::{CompareError, FamilySet, RunRef};
use crate::run_table::{ItemKey, Verdict, Verdicts};
use crate::stats::Rate;

/// The sidecar's schema version, its header's `schema`.
pub const SCHEMA: &str = "evalboard-marks/1";

/// A person's verdict on an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mark {
    Correct,
    Wrong,
}

impl Mark {
    /// Its sidecar spelling: `correct`, `wrong`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Correct => "correct",
            Mark::Wrong => "wrong",
        }
    }

    pub fn is_correct(self) -> bool {
        self == Mark::Correct
    }

    fn parse(text: &str) -> Option<Mark> {
        match text {
            "correct" => Some(Mark::Correct),
            "wrong" => Some(Mark::Wrong),
            _ => None,
        }
    }
}

/// When a change was made, as the caller gives it (the engine reads no clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum At {
    /// ISO-8601 text (`2025-01-31T12:00:00Z`), kept as given.
    Iso(String),
    /// Milliseconds since the Unix epoch (a browser's `Date.now()`).
    Ms(i64),
}

impl At {
    fn to_json(&self) -> serde_json::Value {
        match self {
            At::Iso(t) => serde_json::Value::from(t.as_str()),
            At::Ms(ms) => serde_json::Value::from(*ms),
        }
    }
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Iso(t) => f.write_str(t),
            At::Ms(ms) => write!(f, "{ms} ms"),
        }
    }
}

/// What a change changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Field {
    Mark,
    Score,
    Note,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Mark => "mark",
            Field::Score => "score",
            Field::Note => "note",
        }
    }

    fn parse(text: &str) -> Option<Field> {
        match text {
            "mark" => Some(Field::Mark),
            "score" => Some(Field::Score),
            "note" => Some(Field::Note),
            _ => None,
        }
    }
}

/// A field's value in a change (`None` in [`Change`]: unset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FieldValue {
    Mark(Mark),
    Score(f64),
    Note(String),
}

impl FieldValue {
    fn to_json(&self) -> serde_json::Value {
        match self {
            FieldValue::Mark(m) => serde_json::Value::from(m.as_str()),
            FieldValue::Score(s) => serde_json::Value::from(*s),
            FieldValue::Note(n) => serde_json::Value::from(n.as_str()),
        }
    }
}

/// One change of one item's review: when, which field, old → new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub at: At,
    pub field: Field,
    pub old: Option<FieldValue>,
    pub new: Option<FieldValue>,
}

/// One item's review: its key in the run, the mark, the score override (0–1), the note, and
/// every change in the order made. The run's own score and verdict are never stored here: they
/// stay the run's, and [`apply`] puts the mark beside them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemMark {
    pub key: ItemKey,
    pub mark: Option<Mark>,
    pub score: Option<f64>,
    pub note: Option<String>,
    pub history: Vec<Change>,
}

impl ItemMark {
    fn new(key: ItemKey) -> ItemMark {
        ItemMark {
            key,
            mark: None,
            score: None,
            note: None,
            history: Vec::new(),
        }
    }
}

/// The marks of one run: its content id, its name when known (for people reading the sidecar;
/// never used to match), its marked items in key order, each key once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMarks {
    pub content_id: String,
    pub run_name: Option<String>,
    pub items: Vec<ItemMark>,
}

impl RunMarks {
    /// The review of the item of `key`, if it has one.
    pub fn get(&self, key: &ItemKey) -> Option<&ItemMark> {
        self.items
            .binary_search_by(|i| i.key.cmp(key))
            .ok()
            .and_then(|i| self.items.get(i))
    }

    fn item_mut(&mut self, key: &ItemKey) -> &mut ItemMark {
        let i = match self.items.binary_search_by(|i| i.key.cmp(key)) {
            Ok(i) => i,
            Err(i) => {
                self.items.insert(i, ItemMark::new(key.clone()));
                i
            }
        };
        &mut self.items[i]
    }
}

/// Why a change was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarkError {
    #[error("a score override is a number from 0 to 1")]
    ScoreOutOfRange,
}

/// Marks of any number of runs, by content id (in id order) and item key: what a dashboard
/// keeps and a sidecar holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MarkSet {
    pub runs: Vec<RunMarks>,
}

impl MarkSet {
    /// The marks of the run of `content_id`; `None` when it has none. Marks of any other id are
    /// never given for it: marks do not attach to different bytes.
    pub fn marks_for(&self, content_id: &str) -> Option<&RunMarks> {
        self.runs
            .binary_search_by(|r| r.content_id.as_str().cmp(content_id))
            .ok()
            .and_then(|i| self.runs.get(i))
    }

    /// The runs whose content id is none of `ids`: marks not applied to any run given.
    pub fn not_in<'s>(&'s self, ids: &[&str]) -> Vec<&'s RunMarks> {
        self.runs
            .iter()
            .filter(|r| !ids.contains(&r.content_id.as_str()))
            .collect()
    }

    fn run_mut(&mut self, content_id: &str) -> &mut RunMarks {
        let i = match self
            .runs
            .binary_search_by(|r| r.content_id.as_str().cmp(content_id))
        {
            Ok(i) => i,
            Err(i) => {
                self.runs.insert(
                    i,
                    RunMarks {
                        content_id: content_id.to_string(),
                        run_name: None,
                        items: Vec::new(),
                    },
                );
                i
            }
        };
        &mut self.runs[i]
    }

    /// `other` merged into this set: each of its items replaces the same item here (with its
    /// history: an imported sidecar's line wins, as a later line does in one file); a run's
    /// name is taken when `other` has one.
    pub fn merge(&mut self, other: MarkSet) {
        for run in other.runs {
            let target = self.run_mut(&run.content_id);
            if run.run_name.is_some() {
                target.run_name = run.run_name;
            }
            for item in run.items {
                let slot = target.item_mut(&item.key);
                *slot = item;
            }
        }
    }

    /// Names the run of `content_id` (shown to people; marks match by id only).
    pub fn name_run(&mut self, content_id: &str, name: &str) {
        self.run_mut(content_id).run_name = Some(name.to_string());
    }

    /// Sets (or, with `None`, unsets) the item's mark; the change is kept in its history.
    /// `false`: it was so already (nothing recorded).
    pub fn set_mark(
        &mut self,
        content_id: &str,
        key: &ItemKey,
        mark: Option<Mark>,
        at: At,
    ) -> bool {
        let item = self.run_mut(content_id).item_mut(key);
        if item.mark == mark {
            return false;
        }
        item.history.push(Change {
            at,
            field: Field::Mark,
            old: item.mark.map(FieldValue::Mark),
            new: mark.map(FieldValue::Mark),
        });
        item.mark = mark;
        true
    }

    /// Sets (or unsets: `None` or an empty text) the item's note, kept as text whatever it
    /// holds; the change is kept in its history. `false`: it was so already.
    pub fn set_note(
        &mut self,
        content_id: &str,
        key: &ItemKey,
        note: Option<String>,
        at: At,
    ) -> bool {
        let note = note.filter(|n| !n.is_empty());
        let item = self.run_mut(content_id).item_mut(key);
        if item.note == note {
            return false;
        }
        let old = item.note.take();
        item.history.push(Change {
            at,
            field: Field::Note,
            old: old.map(FieldValue::Note),
            new: note.clone().map(FieldValue::Note),
        });
        item.note = note;
        true
    }

    /// Sets (or unsets) the item's score override, a number from 0 to 1; the change is kept in
    /// its history. `Ok(false)`: it was so already.
    pub fn set_override(
        &mut self,
        content_id: &str,
        key: &ItemKey,
        score: Option<f64>,
        at: At,
    ) -> Result<bool, MarkError> {
        if score.is_some_and(|s| !(0.0..=1.0).contains(&s)) {
            return Err(MarkError::ScoreOutOfRange);
        }
        let item = self.run_mut(content_id).item_mut(key);
        if item.score == score {
            return Ok(false);
        }
        item.history.push(Change {
            at,
            field: Field::Score,
            old: item.score.map(FieldValue::Score),
            new: score.map(FieldValue::Score),
        });
        item.score = score;
        Ok(true)
    }

    /// Unsets the item's mark, score override and note, each a change in its history (the
    /// history stays). `false`: nothing was set.
    pub fn clear(&mut self, content_id: &str, key: &ItemKey, at: At) -> bool {
        let a = self.set_mark(content_id, key, None, at.clone());
        let b = self.set_override(content_id, key, None, at.clone()) == Ok(true);
        let c = self.set_note(content_id, key, None, at);
        a || b || c
    }

    /// The sidecar: a header line `{"schema": "evalboard-marks/1"}`, then one line per marked
    /// item, runs in content-id order and items in key order (deterministic).
    pub fn to_jsonl(&self) -> String {
        let mut out = serde_json::json!({ "schema": SCHEMA }).to_string();
        out.push('\n');
        for run in &self.runs {
            for item in &run.items {
                let history: Vec<serde_json::Value> = item
                    .history
                    .iter()
                    .map(|c| {
                        serde_json::json!({
                            "at": c.at.to_json(),
                            "field": c.field.as_str(),
                            "old": c.old.as_ref().map(FieldValue::to_json),
                            "new": c.new.as_ref().map(FieldValue::to_json),
                        })
                    })
                    .collect();
                let line = serde_json::json!({
                    "run": run.content_id,
                    "run_name": run.run_name,
                    "key": item.key.to_json(),
                    "mark": item.mark.map(Mark::as_str),
                    "score": item.score,
                    "note": item.note,
                    "history": history,
                });
                out.push_str(&line.to_string());
                out.push('\n');
            }
        }
        out
    }

    /// Reads a sidecar ([`MarkSet::to_jsonl`]'s format): what it could read, and a diagnostic
    /// naming `file` and the line for everything it could not (bad JSON, a missing or unknown
    /// schema — then nothing is read —, a bad run id or key, a bad field or change, an item
    /// given twice: the later line is kept). Notes are kept whole, however long; what is kept
    /// is bounded by the input's size. Never panics.
    pub fn from_jsonl(file: &str, bytes: &[u8]) -> (MarkSet, Vec<Diagnostic>) {
        let mut set = MarkSet::default();
        let mut diags = Vec::new();
        // Each item's line, to name the first when an item is given again.
        let mut seen: std::collections::HashMap<(String, ItemKey), u32> = Default::default();
        let mut header = false;
        for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
            let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value: serde_json::Value = match serde_json::from_slice(raw) {
                Ok(v) => v,
                Err(e) => {
                    let msg = format!("not JSON ({e}): line skipped");
                    if !header {
                        diags.push(Diagnostic::error(file, Some(line), msg));
                        diags.push(no_header(file, line));
                        return (MarkSet::default(), diags);
                    }
                    diags.push(Diagnostic::error(file, Some(line), msg));
                    continue;
                }
            };
            crate::json_keys::warn_duplicates(&mut diags, file, raw, line);
            let Some(obj) = value.as_object() else {
                let msg = "not a JSON object: line skipped";
                diags.push(Diagnostic::error(file, Some(line), msg));
                if !header {
                    diags.push(no_header(file, line));
                    return (MarkSet::default(), diags);
                }
                continue;
            };
            if !header {
                match obj.get("schema").and_then(|s| s.as_str()) {
                    Some(SCHEMA) => {
                        header = true;
                        continue;
                    }
                    Some(other) => {
                        diags.push(Diagnostic::error(
                            file,
                            Some(line),
                            format!(
                                "unknown schema {other:?} (this evalboard reads {SCHEMA:?}): no \
                                 mark read"
                            ),
                        ));
                        return (MarkSet::default(), diags);
                    }
                    None => {
                        diags.push(no_header(file, line));
                        return (MarkSet::default(), diags);
                    }
                }
            }
            let Some((run, name, item)) = read_item(obj, file, line, &mut diags) else {
                continue;
            };
            let target = set.run_mut(&run);
            if name.is_some() {
                target.run_name = name;
            }
            if let Some(first) = seen.insert((run.clone(), item.key.clone()), line) {
                diags.push(Diagnostic::warning(
                    file,
                    Some(line),
                    format!(
                        "item {} of run {} was given on line {first} too: this later line is kept",
                        item.key,
                        short_id(&run)
                    ),
                ));
            }
            let slot = target.item_mut(&item.key);
            *slot = item;
        }
        if !header {
            diags.push(Diagnostic::error(
                file,
                None,
                format!("empty: no {SCHEMA:?} header, no mark read"),
            ));
        }
        (set, diags)
    }
}

fn no_header(file: &str, line: u32) -> Diagnostic {
    Diagnostic::error(
        file,
        Some(line),
        format!(
            "the first line is not the header {{\"schema\": {SCHEMA:?}}}: not an evalboard marks \
             file, no mark read"
        ),
    )
}

/// A scored run's content id: [`crate::run_table::content_id`] of the files the run accounts
/// for ([`crate::run::ScoredRun::files`]: every file read, partly read or skipped — for a
/// folder of several logs, each log's own files), each with its size and SHA-256 from `digest`
/// (by the file's path in the run). `None` when a file has no digest: the run cannot be told
/// apart from other bytes, so no mark is applied to it.
pub fn run_content_id(
    files: &[crate::accounting::InputFileReport],
    digest: impl Fn(&str) -> Option<(u64, [u8; 32])>,
) -> Option<String> {
    let mut hashed: Vec<(&str, u64, [u8; 32])> = Vec::with_capacity(files.len());
    for f in files {
        let (size, sha) = digest(&f.path)?;
        hashed.push((f.path.as_str(), size, sha));
    }
    Some(crate::run_table::content_id(&hashed))
}

/// A SHA-256 digest from its 64 hex digits (either case); `None` for anything else (an empty
/// text: a digest not computed yet).
pub fn sha256_from_hex(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(hex.as_bytes().chunks(2)) {
        let digit = |c: u8| (c as char).to_digit(16);
        *o = (digit(*pair.first()?)? << 4 | digit(*pair.get(1)?)?) as u8;
    }
    Some(out)
}

/// A content id's first 12 characters, for messages.
pub fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// Whether `id` is a content id: 64 lower-case hex digits.
fn is_content_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

const ITEM_FIELDS: [&str; 7] = ["run", "run_name", "key", "mark", "score", "note", "history"];

/// One item line: (run id, run name, the item); `None` (said) when its run id or key is bad.
fn read_item(
    obj: &serde_json::Map<String, serde_json::Value>,
    file: &str,
    line: u32,
    diags: &mut Vec<Diagnostic>,
) -> Option<(String, Option<String>, ItemMark)> {
    use serde_json::Value;
    let mut err = |msg: String| diags.push(Diagnostic::error(file, Some(line), msg));
    let run = match obj.get("run") {
        Some(Value::String(id)) if is_content_id(id) => id.clone(),
        _ => {
            err("\"run\" is not a content id (64 lower-case hex digits): line skipped".into());
            return None;
        }
    };
    let Some(key) = obj.get("key").and_then(ItemKey::from_json) else {
        err(
            "\"key\" is not an item key (a non-empty array of strings and whole numbers): line \
             skipped"
                .into(),
        );
        return None;
    };
    let mut item = ItemMark::new(key);
    let name = match obj.get("run_name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            err("\"run_name\" is not a text: ignored".into());
            None
        }
    };
    match obj.get("mark") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_str().and_then(Mark::parse) {
            Some(m) => item.mark = Some(m),
            None => err("\"mark\" is not \"correct\", \"wrong\" or null: no mark kept".into()),
        },
    }
    match obj.get("score") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_f64().filter(|s| (0.0..=1.0).contains(s)) {
            Some(s) => item.score = Some(s),
            None => err("\"score\" is not a number from 0 to 1: no score override kept".into()),
        },
    }
    match obj.get("note") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(Value::String(s)) => item.note = Some(s.clone()),
        Some(_) => err("\"note\" is not a text: no note kept".into()),
    }
    match obj.get("history") {
        None | Some(Value::Null) => {}
        Some(Value::Array(changes)) => {
            for (n, c) in changes.iter().enumerate() {
                match read_change(c) {
                    Some(c) => item.history.push(c),
                    None => err(format!(
                        "history change {} is not {{\"at\", \"field\", \"old\", \"new\"}} with \
                         values of its field: change skipped",
                        n + 1
                    )),
                }
            }
        }
        Some(_) => err("\"history\" is not an array: no history kept".into()),
    }
    let unknown: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !ITEM_FIELDS.contains(k))
        .take(5)
        .collect();
    if !unknown.is_empty() {
        diags.push(Diagnostic::warning(
            file,
            Some(line),
            format!("unknown field(s) ignored: {}", unknown.join(", ")),
        ));
    }
    Some((run, name, item))
}

fn read_change(v: &serde_json::Value) -> Option<Change> {
    use serde_json::Value;
    let at = match v.get("at")? {
        Value::String(s) => At::Iso(s.clone()),
        Value::Number(n) => At::Ms(n.as_i64()?),
        _ => return None,
    };
    let field = Field::parse(v.get("field")?.as_str()?)?;
    let value = |x: Option<&Value>| -> Option<Option<FieldValue>> {
        match x {
            None | Some(Value::Null) => Some(None),
            Some(x) => Some(Some(match field {
                Field::Mark => FieldValue::Mark(Mark::parse(x.as_str()?)?),
                Field::Score => FieldValue::Score(x.as_f64()?),
                Field::Note => FieldValue::Note(x.as_str()?.to_string()),
            })),
        }
    };
    Some(Change {
        at,
        field,
        old: value(v.get("old"))?,
        new: value(v.get("new"))?,
    })
}

/// A run's verdicts with its marks applied, beside the original (never replacing it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Applied {
    /// The judge of the verdicts (`name@version`, or an eval log's score).
    pub judge: String,
    /// The verdicts' counts as the judge gave them.
    pub original: Rate,
    /// The counts with each marked item's verdict replaced by its mark.
    pub with_overrides: Rate,
    /// Marked items found in the run (a mark, a score override or a note).
    pub applied: u64,
    /// Verdicts the marks changed (correct → wrong or wrong → correct, or unscored → marked).
    pub changed: u64,
    /// Marked items the run does not have (not applied).
    pub unknown_keys: Vec<ItemKey>,
    /// With a score override on any item: the mean over the scored items of each item's
    /// override, else its mark, else its verdict (1 or 0).
    pub mean_with_scores: Option<f64>,
}

/// `verdicts` with `marks` applied: the verdicts "with human overrides" (each marked item's
/// verdict its mark; an item the run does not have is not added) and the counts of both.
pub fn apply(verdicts: &Verdicts, marks: &RunMarks) -> (Verdicts, Applied) {
    let mut out = verdicts.clone();
    let mut applied = 0u64;
    let mut changed = 0u64;
    let mut unknown_keys = Vec::new();
    let mut any_score = false;
    let (mut sum, mut n) = (0.0f64, 0u64);
    for item in &marks.items {
        match out.rows.binary_search_by(|v| v.key.cmp(&item.key)) {
            Ok(i) => {
                applied += 1;
                if let (Some(m), Some(row)) = (item.mark, out.rows.get_mut(i)) {
                    if row.correct != Some(m.is_correct()) {
                        changed += 1;
                    }
                    row.correct = Some(m.is_correct());
                }
                any_score |= item.score.is_some();
            }
            Err(_) => unknown_keys.push(item.key.clone()),
        }
    }
    for row in &out.rows {
        let score = marks.get(&row.key).and_then(|m| m.score);
        if let Some(x) = score.or(row.correct.map(|c| f64::from(u8::from(c)))) {
            sum += x;
            n += 1;
        }
    }
    let summary = Applied {
        judge: verdicts.judge.clone(),
        original: verdicts.rate(),
        with_overrides: out.rate(),
        applied,
        changed,
        unknown_keys,
        mean_with_scores: (any_score && n > 0).then(|| sum / n as f64),
    };
    (out, summary)
}

/// The 2×2 table of a scorer's verdicts against the human marks, over the items having both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confusion {
    pub both_correct: u64,
    /// The scorer said correct, the human wrong.
    pub scorer_only: u64,
    /// The scorer said wrong, the human correct.
    pub human_only: u64,
    pub both_wrong: u64,
}

impl Confusion {
    pub fn n(&self) -> u64 {
        self.both_correct + self.scorer_only + self.human_only + self.both_wrong
    }

    fn push(&mut self, scorer: bool, human: bool) {
        match (scorer, human) {
            (true, true) => self.both_correct += 1,
            (true, false) => self.scorer_only += 1,
            (false, true) => self.human_only += 1,
            (false, false) => self.both_wrong += 1,
        }
    }

    /// Cohen's κ = (p_o − p_e) / (1 − p_e), with p_o the share of items both call alike and
    /// p_e the agreement expected by chance from each side's own shares; `Err` (why) when it is
    /// undefined: no item has both, or p_e = 1 (both sides gave every item one same verdict).
    pub fn kappa(&self) -> Result<f64, String> {
        let n = self.n();
        if n == 0 {
            return Err("no item has both a verdict and a mark".into());
        }
        let n = n as f64;
        let p_o = (self.both_correct + self.both_wrong) as f64 / n;
        let scorer_yes = (self.both_correct + self.scorer_only) as f64 / n;
        let human_yes = (self.both_correct + self.human_only) as f64 / n;
        let p_e = scorer_yes * human_yes + (1.0 - scorer_yes) * (1.0 - human_yes);
        if p_e >= 1.0 {
            return Err(
                "expected agreement is 1 (the scorer and the human each gave every item the same \
                 verdict)"
                    .into(),
            );
        }
        Ok((p_o - p_e) / (1.0 - p_e))
    }
}

/// One scorer against the human marks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// The judge (a name `--scorer` takes) and its label in words.
    pub judge: String,
    pub label: String,
    pub confusion: Confusion,
    /// Items having both a verdict and a mark.
    pub n: u64,
    pub kappa: Option<f64>,
    /// Why κ is undefined, when it is.
    pub kappa_undefined: Option<String>,
    /// The items where the scorer and the human differ, in key order: the "scorer ≠ human"
    /// filter's members.
    pub disagree: Vec<ItemKey>,
}

/// `verdicts` (a judge, `label` in words) against the marks: the confusion matrix and κ over the
/// items that have both a scored verdict and a mark.
pub fn agreement(verdicts: &Verdicts, label: &str, marks: &RunMarks) -> Agreement {
    let mut confusion = Confusion::default();
    let mut disagree = Vec::new();
    for item in &marks.items {
        let Some(mark) = item.mark else { continue };
        let Ok(i) = verdicts.rows.binary_search_by(|v| v.key.cmp(&item.key)) else {
            continue;
        };
        let Some(Verdict {
            correct: Some(scorer),
            ..
        }) = verdicts.rows.get(i)
        else {
            continue;
        };
        confusion.push(*scorer, mark.is_correct());
        if *scorer != mark.is_correct() {
            disagree.push(item.key.clone());
        }
    }
    let kappa = confusion.kappa();
    Agreement {
        judge: verdicts.judge.clone(),
        label: label.to_string(),
        n: confusion.n(),
        confusion,
        kappa: kappa.as_ref().ok().copied(),
        kappa_undefined: kappa.err(),
        disagree,
    }
}

/// One marked item of a run as a review lists it (the "human" column beside the scorer's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewedItem {
    pub key: ItemKey,
    /// The verdict of the run's own judge, as it gave it.
    pub scorer: Option<bool>,
    pub mark: Option<Mark>,
    pub score: Option<f64>,
    pub note: Option<String>,
    /// The number of changes in its history.
    pub changes: usize,
}

/// A run's human review: its verdicts with the marks applied beside the original, each judge's
/// agreement with the marks, and the marked items (what the CLI, the report and a worker show).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub content_id: String,
    pub applied: Applied,
    pub agreement: Vec<Agreement>,
    /// The marked items the run has, in key order.
    pub items: Vec<ReviewedItem>,
}

fn rate_json(r: &Rate) -> serde_json::Value {
    serde_json::json!({"value": r.value(), "correct": r.correct, "n": r.n})
}

impl Review {
    /// The review as JSON (`evalboard score --marks --json`'s `human` object, the report's data
    /// block): keys as `diff --json` writes them.
    pub fn to_json(&self) -> serde_json::Value {
        let keys = |k: &[ItemKey]| k.iter().map(ItemKey::to_json).collect::<Vec<_>>();
        let a = &self.applied;
        serde_json::json!({
            "content_id": self.content_id,
            "judge": a.judge,
            "headline": rate_json(&a.original),
            "headline_with_human_overrides": rate_json(&a.with_overrides),
            "mean_with_score_overrides": a.mean_with_scores,
            "marks_applied": a.applied,
            "verdicts_changed": a.changed,
            "marks_not_in_run": keys(&a.unknown_keys),
            "agreement": self.agreement.iter().map(|g| serde_json::json!({
                "judge": g.judge,
                "label": g.label,
                "n": g.n,
                "kappa": g.kappa,
                "kappa_undefined": g.kappa_undefined,
                "confusion": {
                    "both_correct": g.confusion.both_correct,
                    "scorer_correct_human_wrong": g.confusion.scorer_only,
                    "scorer_wrong_human_correct": g.confusion.human_only,
                    "both_wrong": g.confusion.both_wrong,
                },
                "scorer_differs_from_human": keys(&g.disagree),
            })).collect::<Vec<_>>(),
            "items": self.items.iter().map(|i| serde_json::json!({
                "key": i.key.to_json(),
                "scorer": i.scorer,
                "human": i.mark.map(Mark::as_str),
                "score_override": i.score,
                "note": i.note,
                "changes": i.changes,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The review of `run` (content id `content_id`) under `marks`: `Ok(None)` when the marks hold
/// none for that id (marks of other bytes are never applied). The headline with overrides is
/// the run's own judge's verdicts ([`RunRef::verdicts_in`] with no judge); agreement is computed
/// for every judge the run offers ([`RunRef::judge_choices_in`]), or its own judge when it
/// offers none (an eval set, judged by its Settings scorer).
pub fn review_in<const FAMILIES: FamilySet>(
    run: &RunRef,
    content_id: &str,
    marks: &MarkSet,
) -> Result<Option<Review>, CompareError> {
    let Some(marks) = marks.marks_for(content_id) else {
        return Ok(None);
    };
    let own = run.verdicts_in::<FAMILIES>(None)?;
    let (_, applied) = apply(&own, marks);
    let choices = run.judge_choices_in::<FAMILIES>();
    let mut agreements = Vec::with_capacity(choices.len().max(1));
    if choices.is_empty() {
        agreements.push(agreement(&own, &own.judge, marks));
    }
    for c in &choices {
        let v = run.verdicts_in::<FAMILIES>(Some(&c.judge))?;
        let mut a = agreement(&v, &c.label, marks);
        a.judge.clone_from(&c.judge);
        agreements.push(a);
    }
    let items = marks
        .items
        .iter()
        .filter_map(|m| {
            let i = own.rows.binary_search_by(|v| v.key.cmp(&m.key)).ok()?;
            Some(ReviewedItem {
                key: m.key.clone(),
                scorer: own.rows.get(i)?.correct,
                mark: m.mark,
                score: m.score,
                note: m.note.clone(),
                changes: m.history.len(),
            })
        })
        .collect();
    Ok(Some(Review {
        content_id: content_id.to_string(),
        applied,
        agreement: agreements,
        items,
    }))
}

#[cfg(test)]
mod tests;
