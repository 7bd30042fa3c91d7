//! Foreign per-sample Parquet: the lm-evaluation-harness "details" files that the Open LLM
//! Leaderboard publishes (the Hugging Face Hub's Parquet conversion of lm-eval's
//! `samples_<task>_<date>.jsonl`, laid out `<org>__<model>__<task>/<split>/0000.parquet`).
//! Their columns are the samples rows' keys with types the converter inferred: `doc_id`, the
//! `doc` and `arguments` structs, `target`, `resps` / `filtered_resps` lists, `filter`,
//! `metrics`, the three hashes and one column per metric (docs/lake.md § Foreign details).
//!
//! [`samples_jsonl`] turns such a file back into the JSON lines it was converted from, so the
//! engine's lm-eval reader reads, re-scores, compares and reports it like any lm-eval log:
//! nothing of lm-eval is re-implemented here.

use bytes::Bytes;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::{Map, Number, Value};

use crate::LakeError;

/// Deeper nesting than this is refused, not followed: the reader keeps no unbounded recursion.
const MAX_DEPTH: usize = 64;

/// Whether a Parquet file's columns are an lm-eval samples row's: `doc_id` and one of `doc`,
/// `resps`, `filtered_resps`, `filter` among its top-level fields (the rule the engine's sniff
/// applies to a JSON row).
fn is_details(names: &[&str]) -> bool {
    names.contains(&"doc_id")
        && ["doc", "resps", "filtered_resps", "filter"]
            .iter()
            .any(|k| names.contains(k))
}

/// A Parquet file's bytes (`PAR1` at both ends).
pub fn is_parquet(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1")
}

/// The lm-eval samples rows of a details Parquet file, as JSON lines (one row per line, the
/// columns in the file's order): `Ok(None)` when the file's columns are not a samples row's (a
/// lake table, another tool's Parquet), an error naming `file` when it is one but cannot be read
/// (truncated, corrupt, nested deeper than 64 levels).
pub fn samples_jsonl(bytes: &[u8], file: &str) -> Result<Option<Vec<u8>>, LakeError> {
    let err = |m: String| LakeError::file(file, m);
    let reader =
        SerializedFileReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| err(e.to_string()))?;
    let schema = reader.metadata().file_metadata().schema();
    let names: Vec<&str> = schema.get_fields().iter().map(|f| f.name()).collect();
    if !is_details(&names) {
        return Ok(None);
    }
    let rows = reader.get_row_iter(None).map_err(|e| err(e.to_string()))?;
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let row = row.map_err(|e| err(format!("row {}: {e}", i + 1)))?;
        let mut obj = Map::new();
        for (name, field) in row.get_column_iter() {
            let v =
                json_of(field, 1).map_err(|m| err(format!("row {}, column {name}: {m}", i + 1)))?;
            obj.insert(name.clone(), v);
        }
        serde_json::to_writer(&mut out, &Value::Object(obj)).map_err(|e| err(e.to_string()))?;
        out.push(b'\n');
    }
    Ok(Some(out))
}

/// A Parquet value as JSON: numbers as numbers (a non-finite float as null: no value), strings and Booleans as themselves, structs as
/// objects, lists as arrays, maps as objects keyed by the key's text, binary as lossy UTF-8,
/// dates and times as their text.
fn json_of(f: &Field, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let float = |x: f64| Number::from_f64(x).map_or(Value::Null, Value::Number);
    Ok(match f {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float16(x) => float(f64::from(*x)),
        Field::Float(x) => float(f64::from(*x)),
        Field::Double(x) => float(*x),
        Field::Str(s) => Value::String(s.clone()),
        Field::Bytes(b) => Value::String(String::from_utf8_lossy(b.data()).into_owned()),
        Field::Group(row) => {
            let mut obj = Map::new();
            for (k, v) in row.get_column_iter() {
                obj.insert(k.clone(), json_of(v, depth + 1)?);
            }
            Value::Object(obj)
        }
        Field::ListInternal(list) => Value::Array(
            list.elements()
                .iter()
                .map(|e| json_of(e, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Field::MapInternal(map) => {
            let mut obj = Map::new();
            for (k, v) in map.entries() {
                let key = match json_of(k, depth + 1)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                obj.insert(key, json_of(v, depth + 1)?);
            }
            Value::Object(obj)
        }
        other => Value::String(other.to_string()),
    })
}
