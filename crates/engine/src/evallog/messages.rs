//! A sample's whole conversation, read when the sample is opened (FORMATS.md §1.6): the
//! `messages` of one Inspect `EvalSample` (an `.eval` member `samples/<id>_epoch_<n>.json`, a
//! chunked sample's message chunks, or a sample inline in a `.json` log), as plain serde types
//! the dashboard sends through postcard.
//!
//! Each message keeps its role, its content parts in order (text as written; reasoning marked as
//! reasoning; images, audio, video, documents and data as placeholders such as `[image]`; a
//! server-side tool use as one line), its tool calls (arguments as compact JSON), and for a tool
//! result the call it answers, the function and the error. Bounded: at most [`MAX_MESSAGES`]
//! messages (the first and last halves, with an [`OMITTED`] marker between) and
//! [`MAX_PART_CHARS`] characters per text (the rest cut with "… (cut at 200,000 of N characters)";
//! an `.eval` member's texts come already cut at [`super::long_text::MAX_TEXT_CHARS`] as it is
//! inflated, and keep the length they had). Parsing goes
//! through the family's one JSON path ([`super::json::parse`]: bare `NaN`/`Infinity`, repeated
//! keys resolved last-wins); nesting is bounded by serde_json's recursion limit (128), so a
//! deeply nested sample is an `Err`, never a stack overflow.
//!
//! The other tools keep no conversation beyond the prompt and the response(s), which their
//! samples already hold as [`super::Sample::input`] / [`super::Sample::output`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::inspect::{sample_epoch, sample_id};
use super::json::{self, compact, string};
use super::model::{Sample, SampleId};

/// Most messages returned; a longer conversation keeps its first and last halves.
pub const MAX_MESSAGES: usize = 2_000;
/// Most characters of one text (a content part, tool-call arguments, an error).
pub const MAX_PART_CHARS: usize = 200_000;
/// Role of the marker message that stands for the messages left out of a long conversation.
pub const OMITTED: &str = "omitted";

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user`, `assistant`, `tool` as the log spells it (another role is kept as
    /// written; [`OMITTED`] marks left-out messages).
    pub role: String,
    /// The content, in order.
    pub parts: Vec<Part>,
    /// The tool calls an assistant message makes.
    pub tool_calls: Vec<ToolCall>,
    /// A tool result: the id of the call it answers (a user message may name several, joined by
    /// `, `).
    pub tool_call_id: Option<String>,
    /// A tool result: the function that ran.
    pub function: Option<String>,
    /// An assistant message: the model that wrote it.
    pub model: Option<String>,
    /// A tool result's error (`type: message`).
    pub error: Option<String>,
}

impl Message {
    /// The text parts joined by newlines (Inspect's `ChatMessage.text`).
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter(|p| p.kind == PartKind::Text)
            .map(|p| p.text.as_str())
            .collect();
        texts.join("\n")
    }
}

/// What a content part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartKind {
    /// Text as the model (or the user) wrote it.
    Text,
    /// Reasoning (thinking) the provider returned; `[reasoning redacted]` when redacted.
    Reasoning,
    /// Not text: an image, audio, video, document or data part, as a placeholder (`[image]`).
    Media,
    /// A tool the provider ran itself (`tool_use`: web search, code execution), as one line.
    ToolUse,
}

/// One content part as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub kind: PartKind,
    pub text: String,
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: Option<String>,
    pub function: String,
    /// The arguments as compact JSON.
    pub arguments: String,
    /// Why the model's arguments did not parse, when they did not.
    pub parse_error: Option<String>,
}

/// `s` cut at [`MAX_PART_CHARS`] characters with its length said ([`crate::text::clip_at`]: a
/// text the archive reader already cut keeps the length it had).
fn capped(s: &str) -> String {
    crate::text::clip_at(s, MAX_PART_CHARS).into_owned()
}

/// A JSON value as short text: a string as itself, anything else as compact JSON.
fn text_of(v: &Value) -> String {
    match json::non_finite(v) {
        Some(token) => token.to_string(),
        None => string(v).unwrap_or_else(|| compact(v)),
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(string).filter(|s| !s.is_empty())
}

/// A media placeholder: `[image]`, `[image: https://…]` (a link, never a data URI).
fn media(kind: &str, source: Option<String>, about: Option<String>) -> String {
    let link = source.filter(|s| s.starts_with("http://") || s.starts_with("https://"));
    match (link, about) {
        (Some(l), _) => format!("[{kind}: {}]", crate::diag::shortened(&l, 200).into_owned()),
        (None, Some(a)) => format!("[{kind}: {a}]"),
        (None, None) => format!("[{kind}]"),
    }
}

/// One content item (Inspect `Content`, tagged by `type`).
fn part(c: &Value) -> Part {
    let kind = c.get("type").and_then(Value::as_str).unwrap_or("");
    let p = |kind: PartKind, text: String| Part {
        kind,
        text: capped(&text),
    };
    match kind {
        "text" => p(
            PartKind::Text,
            c.get("text").map(text_of).unwrap_or_default(),
        ),
        "reasoning" => {
            let redacted = c.get("redacted").and_then(Value::as_bool) == Some(true);
            let text = match (str_field(c, "reasoning"), str_field(c, "summary")) {
                _ if redacted => match str_field(c, "summary") {
                    Some(s) => format!("[reasoning redacted] {s}"),
                    None => "[reasoning redacted]".to_string(),
                },
                (Some(r), _) => r,
                (None, Some(s)) => s,
                (None, None) => String::new(),
            };
            p(PartKind::Reasoning, text)
        }
        "image" => p(PartKind::Media, media("image", str_field(c, "image"), None)),
        "audio" | "video" => p(
            PartKind::Media,
            media(kind, str_field(c, kind), str_field(c, "format")),
        ),
        "document" => {
            let about = match (str_field(c, "filename"), str_field(c, "mime_type")) {
                (Some(f), Some(m)) => Some(format!("{f}, {m}")),
                (f, m) => f.or(m),
            };
            p(PartKind::Media, media("document", None, about))
        }
        "data" => p(PartKind::Media, "[data]".to_string()),
        "tool_use" => {
            let name = str_field(c, "name").unwrap_or_else(|| "tool".into());
            let mut line = format!(
                "[{} {name}] {}",
                str_field(c, "tool_type").unwrap_or_else(|| "tool use".into()),
                c.get("arguments").map(text_of).unwrap_or_default()
            );
            if let Some(r) = c.get("result").map(text_of).filter(|r| !r.is_empty()) {
                line.push_str(" → ");
                line.push_str(&r);
            }
            if let Some(e) = str_field(c, "error") {
                line.push_str(" (error: ");
                line.push_str(&e);
                line.push(')');
            }
            p(PartKind::ToolUse, line)
        }
        "" => p(PartKind::Text, text_of(c)),
        other => p(PartKind::Media, format!("[{other}]")),
    }
}

fn tool_call(c: &Value) -> ToolCall {
    ToolCall {
        id: str_field(c, "id"),
        function: str_field(c, "function").unwrap_or_else(|| "?".into()),
        arguments: capped(&c.get("arguments").map(compact).unwrap_or_default()),
        parse_error: str_field(c, "parse_error").map(|e| capped(&e)),
    }
}

/// One `ChatMessage`; anything that is not an object is kept as text of an unknown role.
fn message(m: &Value) -> Message {
    let role = str_field(m, "role").unwrap_or_else(|| "?".into());
    let as_text = |v: &Value| {
        vec![Part {
            kind: PartKind::Text,
            text: capped(&text_of(v)),
        }]
    };
    let parts = match m.get("content") {
        _ if !m.is_object() => as_text(m),
        Some(Value::Array(items)) => items.iter().map(part).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => as_text(other),
    };
    let tool_calls = m
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|cs| cs.iter().map(tool_call).collect())
        .unwrap_or_default();
    let tool_call_id = match m.get("tool_call_id") {
        Some(Value::Array(ids)) => {
            let ids: Vec<String> = ids.iter().filter_map(string).collect();
            (!ids.is_empty()).then(|| ids.join(", "))
        }
        Some(v) => string(v).filter(|s| !s.is_empty()),
        None => None,
    };
    // `error` is a ToolCallError {type, message}; 2024 logs wrote `tool_error` as a string.
    let error = match m.get("error").filter(|e| !e.is_null()) {
        Some(e) if e.is_object() => {
            let msg = str_field(e, "message").unwrap_or_default();
            Some(match str_field(e, "type") {
                Some(t) => format!("{t}: {msg}"),
                None => msg,
            })
        }
        Some(e) => Some(text_of(e)),
        None => str_field(m, "tool_error"),
    };
    Message {
        role,
        parts,
        tool_calls,
        tool_call_id: tool_call_id.map(|s| capped(&s)),
        function: str_field(m, "function").map(|s| capped(&s)),
        model: str_field(m, "model").map(|s| capped(&s)),
        error: error.map(|e| capped(&e)),
    }
}

/// The marker that stands for `n` left-out messages.
fn omitted(n: usize) -> Message {
    Message {
        role: OMITTED.into(),
        parts: vec![Part {
            kind: PartKind::Text,
            text: format!(
                "… {} more messages not shown (a conversation shows at most {} messages: the first and last halves)",
                crate::run_meta::fmt_int(n as u64),
                crate::run_meta::fmt_int(MAX_MESSAGES as u64)
            ),
        }],
        tool_calls: Vec::new(),
        tool_call_id: None,
        function: None,
        model: None,
        error: None,
    }
}

/// The messages of `list` (an iterator of `ChatMessage` values of known length), the first and
/// last halves of [`MAX_MESSAGES`] when longer.
fn bounded<'a>(list: impl ExactSizeIterator<Item = &'a Value>) -> Vec<Message> {
    let n = list.len();
    if n <= MAX_MESSAGES {
        return list.map(message).collect();
    }
    let head = MAX_MESSAGES / 2;
    let tail = MAX_MESSAGES - head;
    let mut out = Vec::with_capacity(MAX_MESSAGES + 1);
    for (i, m) in list.enumerate() {
        if i < head || i >= n - tail {
            out.push(message(m));
        }
        if i + 1 == head {
            out.push(omitted(n - head - tail));
        }
    }
    out
}

/// The fields of an `EvalSample` read here; `events`, `store`, attachments are skipped unbuilt.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawSample {
    messages: Option<Value>,
    /// A chunked sample's shell: half-open ranges into its message chunks.
    message_refs: Option<Value>,
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, String> {
    let at = json::At {
        path: what,
        line: 1,
        member: None,
    };
    // Repeated keys keep their last value (the family's rule); their warnings are the reader's
    // business, not the conversation's.
    json::parse(bytes, at, &mut Vec::new())
        .map_err(|e| format!("{what} does not parse at line {}: {e}", e.line()))
}

/// The conversation of one Inspect sample: the JSON of an `.eval` member
/// `samples/<id>_epoch_<n>.json` (an `EvalSample` with `messages`). A chunked sample's shell
/// (`samples/<id>_epoch_<n>/sample.json`) is an `Err` naming where its messages are
/// ([`inspect_chunked_sample_messages`] reads them).
pub fn inspect_sample_messages(sample_json: &[u8]) -> Result<Vec<Message>, String> {
    // A sample is an object (serde would read a list as a struct's fields in order).
    let body = sample_json
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(sample_json);
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err("the sample is not a JSON object".into());
    }
    let raw: RawSample = parse(sample_json, "the sample")?;
    match raw.messages {
        Some(Value::Array(list)) => Ok(bounded(list.iter())),
        Some(Value::Null) | None if raw.message_refs.is_some() => Err(
            "this sample is stored in chunks: its messages are in the members \
             samples/<id>_epoch_<n>/messages/*.json, not in sample.json"
                .into(),
        ),
        Some(Value::Null) | None => Ok(Vec::new()),
        Some(other) => Err(format!(
            "the sample's messages are not a list (found {})",
            kind_of(&other)
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The conversation of a chunked Inspect sample: its shell (`samples/<id>_epoch_<n>/sample.json`,
/// whose `message_refs` are half-open ranges into the sample's message list) and its message
/// chunks (members `…/messages/<start>.json`, each a JSON list whose first message is number
/// `<start>`), given as (member name, bytes) in any order. A chunk that does not parse, or a
/// referenced message no chunk holds, is an `Err` naming it.
pub fn inspect_chunked_sample_messages(
    shell_json: &[u8],
    chunks: &[(&str, &[u8])],
) -> Result<Vec<Message>, String> {
    let raw: RawSample = parse(shell_json, "the sample's sample.json")?;
    let refs = match raw.message_refs {
        Some(Value::Array(r)) => r,
        _ => {
            return Err("the sample's sample.json has no message_refs: not a chunked sample".into())
        }
    };
    // Every chunk's messages by their index in the sample's list.
    let mut pool: BTreeMap<u64, Value> = BTreeMap::new();
    for (name, bytes) in chunks {
        let start = name
            .rsplit('/')
            .next()
            .and_then(|f| f.strip_suffix(".json"))
            .and_then(|f| f.parse::<u64>().ok())
            .ok_or_else(|| format!("{name}: not a message chunk (messages/<start>.json)"))?;
        let list: Vec<Value> = parse(bytes, name)?;
        for (i, m) in list.into_iter().enumerate() {
            pool.insert(start.saturating_add(i as u64), m);
        }
    }
    let mut picked: Vec<&Value> = Vec::new();
    for r in &refs {
        let (Some(a), Some(b)) = (r.get(0).and_then(json::uint), r.get(1).and_then(json::uint))
        else {
            return Err(format!(
                "a message_refs entry is not a [start, end] pair: {}",
                compact(r)
            ));
        };
        if b <= a {
            continue;
        }
        let found: Vec<&Value> = pool.range(a..b).map(|(_, m)| m).collect();
        if (found.len() as u64) < b - a {
            return Err(format!(
                "messages {a}–{} are referenced but {} of them are in no chunk read",
                b - 1,
                b - a - found.len() as u64
            ));
        }
        picked.extend(found);
    }
    Ok(bounded(picked.into_iter()))
}

/// The sample ids and epochs of a `.json` log, with each sample's messages left unparsed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawLog {
    samples: Option<Vec<RawSampleAt>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawSampleAt {
    id: Value,
    epoch: Value,
    messages: Option<Box<RawValue>>,
}

/// The conversation of the sample `(id, epoch)` of an Inspect `.json` log (samples inline; an
/// absent epoch reads as 1, as the log reader reads it).
pub fn inspect_json_sample_messages(
    log_json: &[u8],
    id: &SampleId,
    epoch: u32,
) -> Result<Vec<Message>, String> {
    let log: RawLog = parse(log_json, "the log")?;
    let samples = log
        .samples
        .ok_or("the log holds no samples (written with log_samples off?)")?;
    // The last sample with this key (a re-run sample replaces the earlier one).
    let found = samples
        .into_iter()
        .rev()
        .find(|s| sample_id(&s.id).as_ref() == Some(id) && sample_epoch(&s.epoch) == epoch);
    let Some(sample) = found else {
        return Err(format!(
            "the log holds no sample {} (epoch {epoch})",
            id.label()
        ));
    };
    messages_of(sample.messages)
}

/// A `.json` log sample's `messages`, left unparsed by [`RawLog`]: its conversation (none when
/// absent or null), or why it is not one.
fn messages_of(raw: Option<Box<RawValue>>) -> Result<Vec<Message>, String> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    match parse::<Value>(raw.get().as_bytes(), "the sample's messages")? {
        Value::Array(list) => Ok(bounded(list.iter())),
        Value::Null => Ok(Vec::new()),
        other => Err(format!(
            "the sample's messages are not a list (found {})",
            kind_of(&other)
        )),
    }
}

/// The conversations of every sample of an Inspect `.json` log, parsed once: `(id, epoch)` (an
/// absent epoch reads as 1) with its messages or why they did not read. A sample listed twice
/// keeps its last (as [`inspect_json_sample_messages`] picks it). `Err` when the log does not
/// parse or holds no samples.
#[allow(clippy::type_complexity)]
pub fn inspect_json_log_messages(
    log_json: &[u8],
) -> Result<Vec<((SampleId, u32), Result<Vec<Message>, String>)>, String> {
    let log: RawLog = parse(log_json, "the log")?;
    let samples = log
        .samples
        .ok_or("the log holds no samples (written with log_samples off?)")?;
    let mut out: Vec<((SampleId, u32), Result<Vec<Message>, String>)> = Vec::new();
    for s in samples {
        let Some(id) = sample_id(&s.id) else {
            continue;
        };
        let key = (id, sample_epoch(&s.epoch));
        let messages = messages_of(s.messages);
        out.retain(|(k, _)| *k != key);
        out.push((key, messages));
    }
    Ok(out)
}

/// Where an Inspect sample's conversation is stored in its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessagesAt {
    /// One `.eval` member holds the whole sample: read it, then [`inspect_sample_messages`].
    Member(String),
    /// A chunked sample: its shell member and the prefix of its message chunks
    /// (`samples/<id>_epoch_<n>/messages/`): read them, then
    /// [`inspect_chunked_sample_messages`].
    Chunked { shell: String, chunks: String },
    /// Inline in a `.json` log: [`inspect_json_sample_messages`] with this id and epoch.
    JsonLog { id: SampleId, epoch: u32 },
}

/// Where the conversation of `sample`, read from the log `file` (its path as the run lists it),
/// is stored: `None` for a sample read from the summaries (the log has no sample members, so no
/// messages) or from another tool's log.
pub fn inspect_messages_at(file: &str, sample: &Sample) -> Option<MessagesAt> {
    let super::model::SampleKey::Inspect { id, epoch } = &sample.key else {
        return None;
    };
    let record = sample.source.strip_prefix(file)?.strip_prefix('#')?;
    if record.starts_with("samples[") {
        return Some(MessagesAt::JsonLog {
            id: id.clone(),
            epoch: *epoch,
        });
    }
    MessagesAt::of_member(record)
}

impl MessagesAt {
    /// Where the conversation of the sample stored in `.eval` member `name` is: the member
    /// itself (`samples/<id>_epoch_<n>.json`) or, for a chunked sample's shell
    /// (`samples/<id>_epoch_<n>/sample.json`), its message chunks; `None` for any other member.
    pub fn of_member(name: &str) -> Option<MessagesAt> {
        let rest = name.strip_prefix("samples/")?;
        match rest.strip_suffix("/sample.json") {
            Some(dir) if !dir.contains('/') => Some(MessagesAt::Chunked {
                shell: name.to_string(),
                chunks: format!("samples/{dir}/messages/"),
            }),
            _ if !rest.contains('/') && rest.ends_with(".json") => {
                Some(MessagesAt::Member(name.to_string()))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(json: &str) -> Message {
        let all = inspect_sample_messages(format!(r#"{{"messages": [{json}]}}"#).as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), 1);
        all.into_iter().next().unwrap()
    }

    #[test]
    fn string_and_list_content() {
        let m = one(r#"{"role": "user", "content": "What is 3+4?", "source": "input"}"#);
        assert_eq!(m.role, "user");
        assert_eq!(m.text(), "What is 3+4?");
        let m = one(r#"{"role": "assistant", "model": "openai/o3", "content": [
                {"type": "reasoning", "reasoning": "3 plus 4 is 7", "signature": "x"},
                {"type": "reasoning", "reasoning": "", "redacted": true, "summary": "adding"},
                {"type": "text", "text": "7", "refusal": null},
                {"type": "image", "image": "data:image/png;base64,AAAA", "detail": "auto"},
                {"type": "image", "image": "https://example.com/a.png"},
                {"type": "audio", "audio": "attachment://abc", "format": "mp3"},
                {"type": "document", "document": "x", "filename": "a.pdf", "mime_type": "application/pdf"},
                {"type": "data", "data": {"k": 1}},
                {"type": "tool_use", "tool_type": "web_search", "id": "t1", "name": "search",
                 "arguments": "{\"q\": \"x\"}", "result": "found", "error": null},
                {"type": "hologram"}
            ]}"#);
        assert_eq!(m.model.as_deref(), Some("openai/o3"));
        let parts: Vec<(PartKind, &str)> =
            m.parts.iter().map(|p| (p.kind, p.text.as_str())).collect();
        assert_eq!(
            parts,
            [
                (PartKind::Reasoning, "3 plus 4 is 7"),
                (PartKind::Reasoning, "[reasoning redacted] adding"),
                (PartKind::Text, "7"),
                (PartKind::Media, "[image]"),
                (PartKind::Media, "[image: https://example.com/a.png]"),
                (PartKind::Media, "[audio: mp3]"),
                (PartKind::Media, "[document: a.pdf, application/pdf]"),
                (PartKind::Media, "[data]"),
                (
                    PartKind::ToolUse,
                    "[web_search search] {\"q\": \"x\"} → found"
                ),
                (PartKind::Media, "[hologram]"),
            ]
        );
        assert_eq!(m.text(), "7");
    }

    #[test]
    fn tool_calls_and_results() {
        let m = one(r#"{"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}, "type": "function",
                 "view": {"title": "bash", "format": "markdown", "content": "ls"}},
                {"id": "c2", "function": "python", "arguments": {}, "parse_error": "bad JSON"}
            ]}"#);
        assert_eq!(
            m.tool_calls,
            [
                ToolCall {
                    id: Some("c1".into()),
                    function: "bash".into(),
                    arguments: r#"{"cmd":"ls"}"#.into(),
                    parse_error: None
                },
                ToolCall {
                    id: Some("c2".into()),
                    function: "python".into(),
                    arguments: "{}".into(),
                    parse_error: Some("bad JSON".into())
                }
            ]
        );
        let t = one(
            r#"{"role": "tool", "content": "bin\nboot", "tool_call_id": "c1", "function": "bash",
                "error": {"type": "timeout", "message": "took too long"}}"#,
        );
        assert_eq!(t.tool_call_id.as_deref(), Some("c1"));
        assert_eq!(t.function.as_deref(), Some("bash"));
        assert_eq!(t.error.as_deref(), Some("timeout: took too long"));
        assert_eq!(t.text(), "bin\nboot");
        let old = one(r#"{"role": "tool", "content": "x", "tool_error": "failed"}"#);
        assert_eq!(old.error.as_deref(), Some("failed"));
        let u = one(r#"{"role": "user", "content": "ok", "tool_call_id": ["a", "b"]}"#);
        assert_eq!(u.tool_call_id.as_deref(), Some("a, b"));
    }

    #[test]
    fn odd_shapes_are_text_not_errors() {
        let all = inspect_sample_messages(
            br#"{"messages": ["bare", 3, {"content": NaN}, {"role": 5, "content": {"a": 1}}]}"#,
        )
        .unwrap();
        let texts: Vec<String> = all.iter().map(Message::text).collect();
        assert_eq!(texts[0], "bare");
        assert_eq!(texts[1], "3");
        assert_eq!(all[2].role, "?");
        assert_eq!(texts[2], "NaN");
        assert_eq!(texts[3], r#"{"a":1}"#);
        assert_eq!(all[3].role, "5");
    }

    #[test]
    fn long_texts_and_conversations_are_cut_visibly() {
        let long = "é".repeat(MAX_PART_CHARS + 5);
        let m = one(&format!(r#"{{"role": "user", "content": "{long}"}}"#));
        let note = "… (cut at 200,000 of 200,005 characters)";
        assert!(
            m.text().ends_with(note),
            "{}",
            &m.text()[m.text().len() - 80..]
        );
        assert_eq!(
            m.text().chars().count(),
            MAX_PART_CHARS + note.chars().count()
        );
        let n = MAX_MESSAGES + 7;
        let list: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"role": "user", "content": "m{i}"}}"#))
            .collect();
        let all =
            inspect_sample_messages(format!(r#"{{"messages": [{}]}}"#, list.join(",")).as_bytes())
                .unwrap();
        assert_eq!(all.len(), MAX_MESSAGES + 1);
        assert_eq!(all[0].text(), "m0");
        let half = MAX_MESSAGES / 2;
        assert_eq!(all[half].role, OMITTED);
        assert!(all[half].text().starts_with("… 7 more messages"));
        assert_eq!(all[half - 1].text(), format!("m{}", half - 1));
        assert_eq!(all[half + 1].text(), format!("m{}", half + 7));
        assert_eq!(all[MAX_MESSAGES].text(), format!("m{}", n - 1));
    }

    #[test]
    fn hostile_input_is_an_error_never_a_panic() {
        // Truncated anywhere.
        let text =
            br#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}"#;
        for cut in 0..text.len() {
            let r = inspect_sample_messages(&text[..cut]);
            assert!(r.is_err(), "cut at {cut}");
        }
        // Nested far past serde_json's recursion limit: inside the messages an error; inside a
        // skipped field (serde_json skips it without recursing) the messages are still read.
        let deep = |v: &str| format!("{}{v}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = inspect_sample_messages(format!(r#"{{"messages": {}}}"#, deep("1")).as_bytes())
            .unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
        let e = inspect_sample_messages(
            format!(
                r#"{{"messages": [{{"role": "user", "content": {}}}]}}"#,
                deep("\"x\"")
            )
            .as_bytes(),
        )
        .unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
        let ok = inspect_sample_messages(
            format!(
                r#"{{"events": {}, "messages": [{{"role": "user", "content": "hi"}}]}}"#,
                deep("{}")
            )
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(ok[0].text(), "hi");
        assert!(inspect_sample_messages(b"[]").is_err());
        assert_eq!(
            inspect_sample_messages(br#"{"messages": 3}"#).unwrap_err(),
            "the sample's messages are not a list (found a number)"
        );
        // A record without messages (a log written without them) has none: not a failure.
        assert_eq!(inspect_sample_messages(br#"{"id": 1}"#), Ok(Vec::new()));
        assert_eq!(
            inspect_sample_messages(br#"{"messages": null}"#),
            Ok(Vec::new())
        );
    }

    #[test]
    fn repeated_keys_keep_the_last_value() {
        let all = inspect_sample_messages(
            br#"{"messages": [{"role": "user", "content": "a", "content": "b"}], "messages": [{"role": "user", "content": "c"}]}"#,
        )
        .unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].text(), "c");
    }

    #[test]
    fn chunked_samples_read_their_message_refs() {
        let shell = br#"{"id": 2, "epoch": 1, "message_refs": [[0, 2], [3, 4]]}"#;
        let e = inspect_sample_messages(shell).unwrap_err();
        assert!(e.contains("stored in chunks"), "{e}");
        let c0: &[u8] =
            br#"[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]"#;
        let c2: &[u8] =
            br#"[{"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}]"#;
        let all = inspect_chunked_sample_messages(
            shell,
            &[
                ("samples/2_epoch_1/messages/2.json", c2),
                ("samples/2_epoch_1/messages/0.json", c0),
            ],
        )
        .unwrap();
        let texts: Vec<String> = all.iter().map(Message::text).collect();
        assert_eq!(texts, ["a", "b", "d"]);
        let e =
            inspect_chunked_sample_messages(shell, &[("samples/2_epoch_1/messages/0.json", c0)])
                .unwrap_err();
        assert!(e.contains("messages 3–3"), "{e}");
        // A hostile range is bounded by what the chunks hold.
        let wide = br#"{"message_refs": [[0, 18446744073709551615]]}"#;
        assert!(inspect_chunked_sample_messages(wide, &[("m/0.json", c0)]).is_err());
        assert!(inspect_chunked_sample_messages(shell, &[("m/x.json", c0)]).is_err());
        assert!(inspect_chunked_sample_messages(br#"{"id": 1}"#, &[]).is_err());
    }

    #[test]
    fn json_logs_find_the_sample_by_id_and_epoch() {
        let log = br#"{"eval": {}, "samples": [
            {"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "int one"}]},
            {"id": "1", "epoch": 1, "messages": [{"role": "user", "content": "string one"}]},
            {"id": 1, "epoch": 2, "messages": [{"role": "user", "content": "epoch two"}], "scores": {"m": {"value": NaN}}},
            {"id": "old", "messages": [{"role": "user", "content": "no epoch"}]}
        ]}"#;
        let text = |id: SampleId, epoch| {
            inspect_json_sample_messages(log, &id, epoch).map(|m| m[0].text())
        };
        assert_eq!(text(SampleId::Int(1), 1).unwrap(), "int one");
        assert_eq!(text(SampleId::Str("1".into()), 1).unwrap(), "string one");
        assert_eq!(text(SampleId::Int(1), 2).unwrap(), "epoch two");
        assert_eq!(text(SampleId::Str("old".into()), 1).unwrap(), "no epoch");
        assert!(text(SampleId::Int(9), 1)
            .unwrap_err()
            .contains("no sample 9"));
        assert!(inspect_json_sample_messages(b"{\"samples\": [", &SampleId::Int(1), 1).is_err());
        // A repeated key anywhere takes the Value path of the duplicate-key rule: last wins.
        let repeated = br#"{"samples": [{"id": 1, "id": 2, "messages": [{"role": "user", "content": "two"}]}]}"#;
        let m = inspect_json_sample_messages(repeated, &SampleId::Int(2), 1).unwrap();
        assert_eq!(m[0].text(), "two");
    }
}
