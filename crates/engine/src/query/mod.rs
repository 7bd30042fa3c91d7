//! One query language over every item of every family ([docs/query.md]): field paths into
//! normalised fields (`latency_s`, `tokens.*`, `cost_usd`, `model`, `error`), the format's own
//! fields under their own names (`metadata.subject`, `score.match`, `latency_ms`, …), verdicts,
//! slice fields, the item key, the tools called (`tool`) and every text of an item (`text`: the
//! input, the output, each message, each tool call's arguments and result, the error).
//!
//! A run's items become [`Doc`]s ([`crate::run::RunRef::query_docs_in`]: the run table's item
//! rows plus each family's fields, [`crate::family_run::FamilyRun::query_fields`]); a consumer
//! that reads conversations later adds them (an eval log's: `evallog::query::add_messages`). [`Query::parse`] compiles a
//! query once; [`select`] lists the matching items, [`Query::hits`] where one matched. The docs
//! are the index: a second query over them reads nothing again.
//!
//! Comparisons hold when **any** value of the field does (a field may have several: `tool`,
//! `score.match` as its letter and its number); `!=` and `!~` are the negations of `==` and `~`
//! (no value equals); a missing field equals only `null`. Numbers compare as numbers (a text
//! that is a plain number too), other texts as text; `~` matches a regex against a value's text.
//! Cost: the `regex` crate matches in time linear in the text, whatever the pattern; a pattern
//! is at most [`parse::MAX_PATTERN_CHARS`] characters and compiles to at most
//! [`parse::REGEX_SIZE_LIMIT`] bytes, so a query costs at most (number of conditions) × (bytes
//! of the items' fields and texts) steps of a bounded automaton.
//!
//! [docs/query.md]: https://example.invalid/evalboard/docs/query.md

pub mod parse;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::run_table::ItemKey;
pub use parse::{Expr, Literal, Op, QueryError};

/// A field's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Value {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
}

impl Value {
    /// The value as text (what `~` matches and what autocomplete offers).
    pub fn text(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{n:.0}"),
            Value::Num(n) => crate::pyrepr::py_float_repr(*n),
            Value::Str(s) => s.clone(),
        }
    }

    /// The value as a number: a number, a boolean (1/0) or a text that is a plain number.
    fn num(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Str(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
            Value::Null => None,
        }
    }

    fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Num(n) => *n != 0.0 && !n.is_nan(),
            Value::Str(s) => !s.is_empty(),
        }
    }
}

/// One text of an item a text query searches, and where it is (`input`, `output`, `message 3
/// (assistant)`, `tool call 2 bash`, `error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Text {
    pub at: String,
    pub text: String,
}

/// One item as a query sees it: its key, its fields (a name may repeat: each is one value of
/// the field) and its texts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    pub key: ItemKey,
    pub fields: Vec<(String, Value)>,
    pub texts: Vec<Text>,
    /// Whether the item's messages were added; a text query over a log
    /// whose conversations are stored apart reads them first.
    pub messages_read: bool,
}

/// Most values one JSON text gives (a metadata value that is a huge list): the rest are left out.
pub const MAX_JSON_VALUES: usize = 1_000;

impl Doc {
    pub fn new(key: ItemKey) -> Doc {
        Doc {
            key,
            ..Doc::default()
        }
    }

    /// Adds one value of `name`.
    pub fn push(&mut self, name: impl Into<String>, value: Value) {
        self.fields.push((name.into(), value));
    }

    /// Adds a text value of `name`, when there is one.
    pub fn push_str(&mut self, name: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.push(name, Value::Str(v.to_string()));
        }
    }

    /// Adds a number of `name`, when there is one (NaN and infinities are left out).
    pub fn push_num(&mut self, name: &str, value: Option<f64>) {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            self.push(name, Value::Num(v));
        }
    }

    /// Adds a text the `text` field searches.
    pub fn push_text(&mut self, at: impl Into<String>, text: &str) {
        if !text.is_empty() {
            self.texts.push(Text {
                at: at.into(),
                text: text.to_string(),
            });
        }
    }

    /// Names the texts stored as `from` `to` instead (a family's own name for the registry's
    /// `question`, `expected`, `answer`: an eval log's `input`, `target`, `output`).
    pub fn rename_text(&mut self, from: &str, to: &str) {
        for t in self.texts.iter_mut().filter(|t| t.at == from) {
            t.at = to.to_string();
        }
    }

    /// Adds the values of a JSON text under `name`: an object's members as `name.member` (to any
    /// depth), a list's elements each as a value of `name`, a string as text, numbers, booleans
    /// and null as themselves. Text that is not JSON is kept as one text value. At most
    /// [`MAX_JSON_VALUES`] values; no recursion (an explicit stack).
    pub fn push_json(&mut self, name: &str, json: &str) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else {
            self.push(name, Value::Str(json.to_string()));
            return;
        };
        let mut stack: Vec<(String, &serde_json::Value)> = vec![(name.to_string(), &v)];
        let mut n = 0;
        while let Some((path, v)) = stack.pop() {
            if n >= MAX_JSON_VALUES {
                break;
            }
            match v {
                serde_json::Value::Object(m) => {
                    for (k, x) in m.iter().rev() {
                        stack.push((format!("{path}.{k}"), x));
                    }
                }
                serde_json::Value::Array(a) => {
                    for x in a.iter().rev() {
                        stack.push((path.clone(), x));
                    }
                }
                serde_json::Value::Null => {
                    n += 1;
                    self.push(path, Value::Null)
                }
                serde_json::Value::Bool(b) => {
                    n += 1;
                    self.push(path, Value::Bool(*b))
                }
                serde_json::Value::Number(x) => {
                    n += 1;
                    if let Some(f) = x.as_f64() {
                        self.push(path, Value::Num(f))
                    }
                }
                serde_json::Value::String(s) => {
                    n += 1;
                    self.push(path, Value::Str(s.clone()))
                }
            }
        }
    }

    /// The values of field `name`.
    fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.fields
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

/// The docs of a run by key, for a family to add its fields to
/// ([`crate::family_run::FamilyRun::query_fields`]).
pub struct Docs<'a> {
    docs: &'a mut [Doc],
    at: HashMap<ItemKey, usize>,
}

impl<'a> Docs<'a> {
    pub fn new(docs: &'a mut [Doc]) -> Docs<'a> {
        let at = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.key.clone(), i))
            .collect();
        Docs { docs, at }
    }

    /// The doc of `key`, if the run has that item.
    pub fn get(&mut self, key: &ItemKey) -> Option<&mut Doc> {
        let i = *self.at.get(key)?;
        self.docs.get_mut(i)
    }
}

/// A query compiled once.
#[derive(Debug, Clone)]
pub struct Query {
    pub expr: Expr,
    pub source: String,
}

/// One place a query matched in an item: the field or text (`at`) and the matched byte range of
/// its text (`start..end`), for the drawer to highlight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    pub at: String,
    pub start: usize,
    pub end: usize,
}

/// The text around a hit: up to a number of characters each side of the match, and whether
/// text was left out before or after them ([`Doc::snippet`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    pub before: String,
    pub hit: String,
    pub after: String,
    pub cut_before: bool,
    pub cut_after: bool,
}

impl Doc {
    /// The text of place `at` (a text of the item, else a field's first value as text).
    pub fn place_text(&self, at: &str) -> Option<String> {
        self.texts
            .iter()
            .find(|t| t.at == at)
            .map(|t| t.text.clone())
            .or_else(|| {
                self.fields
                    .iter()
                    .find(|(k, _)| k == at)
                    .map(|(_, v)| v.text())
            })
    }

    /// The text around hit `h`: up to `context` characters each side of the match; `None` when
    /// the item has no such place or the hit's range is not in its text.
    pub fn snippet(&self, h: &Hit, context: usize) -> Option<Snippet> {
        let text = self.place_text(&h.at)?;
        let (before, hit, after) = (
            text.get(..h.start)?,
            text.get(h.start..h.end)?,
            text.get(h.end..)?,
        );
        let rev: Vec<char> = before.chars().rev().take(context).collect();
        Some(Snippet {
            before: rev.into_iter().rev().collect(),
            hit: hit.to_string(),
            after: after.chars().take(context).collect(),
            cut_before: before.chars().count() > context,
            cut_after: after.chars().count() > context,
        })
    }
}

/// Most hits [`Query::hits`] returns for one item.
pub const MAX_HITS: usize = 200;

impl Query {
    pub fn parse(src: &str) -> Result<Query, QueryError> {
        Ok(Query {
            expr: parse::parse(src)?,
            source: src.to_string(),
        })
    }

    /// Whether `doc` matches.
    pub fn matches(&self, doc: &Doc) -> bool {
        eval(&self.expr, doc)
    }

    /// Whether the query names field `name` anywhere.
    pub fn names(&self, name: &str) -> bool {
        let mut stack = vec![&self.expr];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Or(v) | Expr::And(v) => stack.extend(v),
                Expr::Not(x) => stack.push(x),
                Expr::Cmp { path, .. } | Expr::Has(path) => {
                    if path == name {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Whether the query searches texts stored apart (`text`, `tool`, `tool_result`, `tool_error`): a consumer
    /// reads a log's conversations before it runs such a query.
    pub fn needs_messages(&self) -> bool {
        ["text", "tool", "tool_result", "tool_error"]
            .iter()
            .any(|n| self.names(n))
    }

    /// Where the query's positive conditions (those not under a `not`, `!=` or `!~`) match in
    /// `doc`: at most [`MAX_HITS`].
    pub fn hits(&self, doc: &Doc) -> Vec<Hit> {
        let mut out = Vec::new();
        let mut stack = vec![&self.expr];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Or(v) | Expr::And(v) => stack.extend(v.iter().rev()),
                Expr::Not(_) | Expr::Has(_) => {}
                Expr::Cmp { path, op, value } => cmp_hits(doc, path, *op, value, &mut out),
            }
            if out.len() >= MAX_HITS {
                out.truncate(MAX_HITS);
                break;
            }
        }
        out
    }
}

fn eval(e: &Expr, doc: &Doc) -> bool {
    // Depth is bounded by the parser (MAX_DEPTH).
    match e {
        Expr::Or(v) => v.iter().any(|x| eval(x, doc)),
        Expr::And(v) => v.iter().all(|x| eval(x, doc)),
        Expr::Not(x) => !eval(x, doc),
        Expr::Has(path) => {
            doc.values(path).any(Value::truthy) || doc.named_texts(path).any(|t| !t.is_empty())
        }
        Expr::Cmp { path, op, value } => cmp(doc, path, *op, value),
    }
}

impl Doc {
    /// The texts a field name reads: every text for `text`, else the texts stored under the name
    /// (`input`, `output`, `question`, `error`: a text is also a field of its name).
    fn named_texts<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let all = path == "text";
        self.texts
            .iter()
            .filter(move |t| all || t.at == path)
            .map(|t| t.text.as_str())
    }
}

fn cmp(doc: &Doc, path: &str, op: Op, lit: &Literal) -> bool {
    match op {
        Op::Ne => return !cmp(doc, path, Op::Eq, lit),
        Op::NotMatch => return !cmp(doc, path, Op::Match, lit),
        _ => {}
    }
    if let (Op::Eq, Literal::Null) = (op, lit) {
        return doc.values(path).all(|v| *v == Value::Null)
            && doc.named_texts(path).next().is_none();
    }
    doc.values(path).any(|v| holds(v, op, lit))
        || doc.named_texts(path).any(|t| str_holds(t, op, lit))
}

fn holds_ord(o: std::cmp::Ordering, op: Op) -> bool {
    use std::cmp::Ordering;
    match op {
        Op::Eq => o == Ordering::Equal,
        Op::Lt => o == Ordering::Less,
        Op::Le => o != Ordering::Greater,
        Op::Gt => o == Ordering::Greater,
        Op::Ge => o != Ordering::Less,
        Op::Ne | Op::Match | Op::NotMatch => false,
    }
}

/// A plain number written in `s` (surrounding space allowed), finite.
fn plain_number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// Whether text `t` holds `op lit`: a regex matches it, a text compares as text, a number with
/// the number `t` is, a boolean with `true`/`false` in any case. No copy of `t`.
fn str_holds(t: &str, op: Op, lit: &Literal) -> bool {
    match lit {
        Literal::Regex(re, _) => op == Op::Match && re.is_match(t),
        Literal::Str(s) => holds_ord(t.cmp(s.as_str()), op),
        Literal::Num(n) => plain_number(t)
            .and_then(|x| x.partial_cmp(n))
            .is_some_and(|o| holds_ord(o, op)),
        Literal::Bool(b) => {
            op == Op::Eq
                && t.trim()
                    .eq_ignore_ascii_case(if *b { "true" } else { "false" })
        }
        Literal::Null => false,
    }
}

/// Whether value `v` holds `op lit` (a text by [`str_holds`]).
fn holds(v: &Value, op: Op, lit: &Literal) -> bool {
    let ord = match (v, lit) {
        (Value::Str(s), _) => return str_holds(s, op, lit),
        (_, Literal::Regex(re, _)) => return op == Op::Match && re.is_match(&v.text()),
        (_, Literal::Null) => return op == Op::Eq && *v == Value::Null,
        (Value::Null, _) => None,
        (_, Literal::Num(n)) => v.num().and_then(|x| x.partial_cmp(n)),
        (Value::Bool(x), Literal::Bool(b)) => Some(x.cmp(b)),
        (_, Literal::Bool(b)) => v
            .num()
            .and_then(|x| x.partial_cmp(&f64::from(u8::from(*b)))),
        (_, Literal::Str(s)) => match plain_number(s) {
            Some(n) => v.num().and_then(|x| x.partial_cmp(&n)),
            None => Some(v.text().as_str().cmp(s.as_str())),
        },
    };
    ord.is_some_and(|o| holds_ord(o, op))
}

fn cmp_hits(doc: &Doc, path: &str, op: Op, lit: &Literal, out: &mut Vec<Hit>) {
    if matches!(op, Op::Ne | Op::NotMatch) {
        return;
    }
    let mut texts: Vec<(&str, std::borrow::Cow<'_, str>)> = Vec::new();
    for t in doc.texts.iter().filter(|t| path == "text" || t.at == path) {
        if str_holds(&t.text, op, lit) {
            texts.push((t.at.as_str(), std::borrow::Cow::Borrowed(t.text.as_str())));
        }
    }
    for v in doc.values(path).filter(|v| holds(v, op, lit)) {
        texts.push((path, std::borrow::Cow::Owned(v.text())));
    }
    for (at, t) in texts {
        if let Literal::Regex(re, _) = lit {
            for m in re.find_iter(&t) {
                if out.len() >= MAX_HITS {
                    return;
                }
                out.push(Hit {
                    at: at.to_string(),
                    start: m.start(),
                    end: m.end(),
                });
            }
        } else {
            if out.len() >= MAX_HITS {
                return;
            }
            out.push(Hit {
                at: at.to_string(),
                start: 0,
                end: t.len(),
            });
        }
    }
}

/// The items a query matched: how many, and their keys in the docs' order (the run's key order).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    pub n_matched: usize,
    pub items: Vec<ItemKey>,
}

impl Selection {
    /// As `evalboard query --json` prints it: `{"n_matched": N, "items": [KEY, …]}`, each key as
    /// `diff --json` writes it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "n_matched": self.n_matched,
            "items": self.items.iter().map(ItemKey::to_json).collect::<Vec<_>>(),
        })
    }
}

/// The docs `query` matches.
pub fn select(docs: &[Doc], query: &Query) -> Selection {
    let items: Vec<ItemKey> = docs
        .iter()
        .filter(|d| query.matches(d))
        .map(|d| d.key.clone())
        .collect();
    Selection {
        n_matched: items.len(),
        items,
    }
}

/// A field the docs have, with how many items have it and its most common values: what a query
/// box offers to complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldInfo {
    pub name: String,
    /// Items with at least one value of it.
    pub items: usize,
    /// Whether every value is a number (a field to compare with `<`, `>`).
    pub numeric: bool,
    /// Up to [`MAX_SUGGESTED_VALUES`] values, most common first (ties by text), for a field
    /// with few distinct values; empty for a field of many (ids, texts, numbers).
    pub values: Vec<String>,
}

/// Most values [`fields`] suggests for one field.
pub const MAX_SUGGESTED_VALUES: usize = 20;
/// A field with more distinct values than this suggests none.
const MAX_DISTINCT: usize = 50;
/// Longest value suggested.
const MAX_VALUE_CHARS: usize = 80;

/// The fields of `docs` (plus `text` when any item has texts), by name.
pub fn fields(docs: &[Doc]) -> Vec<FieldInfo> {
    struct Acc {
        items: usize,
        numeric: bool,
        counts: BTreeMap<String, usize>,
        too_many: bool,
    }
    let mut by: BTreeMap<&str, Acc> = BTreeMap::new();
    let mut texts = 0;
    let mut named: BTreeMap<&str, usize> = BTreeMap::new();
    for d in docs {
        texts += usize::from(!d.texts.is_empty());
        let mut seen: Vec<&str> = Vec::new();
        for t in &d.texts {
            // A text named like a field (`input`, `error`) is one; `message 3 (user)` is not.
            if t.at
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
                && !seen.contains(&t.at.as_str())
            {
                seen.push(&t.at);
                *named.entry(&t.at).or_default() += 1;
            }
        }
        seen.clear();
        for (k, v) in &d.fields {
            let a = by.entry(k.as_str()).or_insert(Acc {
                items: 0,
                numeric: true,
                counts: BTreeMap::new(),
                too_many: false,
            });
            if !seen.contains(&k.as_str()) {
                seen.push(k);
                a.items += 1;
            }
            a.numeric &= matches!(v, Value::Num(_));
            if !a.too_many {
                let t = v.text();
                if t.chars().count() > MAX_VALUE_CHARS {
                    a.too_many = true;
                } else {
                    *a.counts.entry(t).or_default() += 1;
                    a.too_many = a.counts.len() > MAX_DISTINCT;
                }
            }
        }
    }
    let mut out: Vec<FieldInfo> = by
        .into_iter()
        .map(|(name, a)| {
            let mut values: Vec<(String, usize)> = if a.too_many || a.numeric {
                Vec::new()
            } else {
                a.counts.into_iter().collect()
            };
            values.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
            values.truncate(MAX_SUGGESTED_VALUES);
            FieldInfo {
                name: name.to_string(),
                items: a.items,
                numeric: a.numeric,
                values: values.into_iter().map(|(v, _)| v).collect(),
            }
        })
        .collect();
    for (name, items) in named {
        if !out.iter().any(|f| f.name == name) {
            out.push(FieldInfo {
                name: name.to_string(),
                items,
                numeric: false,
                values: Vec::new(),
            });
        }
    }
    if texts > 0 {
        out.push(FieldInfo {
            name: "text".into(),
            items: texts,
            numeric: false,
            values: Vec::new(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}
