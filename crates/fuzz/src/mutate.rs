//! Mutations: byte-level edits (bit and byte flips, inserted / deleted / duplicated ranges,
//! splices of two seeds, truncation), format-aware ones (numbers and strings swapped for
//! hostile tokens, nesting bursts, long digit runs, line edits, BOMs and line endings), and
//! folder-level ones (files dropped, added from other seeds, renamed, emptied, swapped).
//! Edits are stacked a few at a time, as libFuzzer and AFL do.

use crate::input::Folder;
use crate::rng::Rng;

/// Largest single file (and folder total) a mutation may produce: big enough for the real
/// dataset seed (2.2 MB) to grow, small enough that an exec stays cheap.
pub const MAX_FILE: usize = 8 << 20;
const MAX_FOLDER_FILES: usize = 64;

/// Tokens inserted into inputs: JSON, CSV and Python syntax, the numbers Python's `json` writes
/// and reads that strict JSON does not, and bytes that are not text.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b"\\\"",
    b"\\u0000",
    b"\\ud800",
    b"\\udfff",
    b"\\uDBFF\\uDFFF",
    b"NaN",
    b"-NaN",
    b"Infinity",
    b"-Infinity",
    b"inf",
    b"nan",
    b"-",
    b"+",
    b"-0",
    b"0",
    b"1e999",
    b"-1e999",
    b"1e-999",
    b"1e308",
    b"4.9e-324",
    b"1.7976931348623157e308",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"9223372036854775807",
    b"0x1F",
    b"1_000",
    b"1,234.5",
    b"(5)",
    b"5%",
    b"$5",
    b"1.2.3",
    b".",
    b"e",
    b"E+",
    b",",
    b":",
    b";",
    b"\n",
    b"\r",
    b"\r\n",
    b"\t",
    b" ",
    b"\xEF\xBB\xBF",
    b"\xFF",
    b"\xFF\xFE",
    b"\xFE\xFF",
    b"\x00",
    b"\xC0\x80",
    b"\xED\xA0\x80",
    b"\xE2\x80\xAE",
    b"\xE2\x80\xA8",
    b"\xF0\x9F\x98\x80",
    b"\x1b[2J",
    b"null",
    b"true",
    b"false",
    b"None",
    b"True",
    b"False",
    b"\"\"",
    b"{}",
    b"[]",
    b"[{}]",
    b"\"a\":",
    b"\"\":",
    b"{\"\":",
    b"=cmd|' /C calc'!A0",
    b"+1",
    b"@SUM(1)",
    b"<script>",
    b"</script>",
    b"<!--",
    b"]]>",
    b"'",
    b"\"\"\"",
    b"'''",
    b"#",
    b"\\\n",
    b"(",
    b")",
    b"lambda:",
    b"if ",
    b"else ",
    b"def f(",
    b"class C:",
    b"    ",
    b"\t\t",
    b"import os",
    b"eval(",
    b"add(",
    b"subtract(",
    b"multiply(",
    b"divide(",
    b"exp(",
    b"greater(",
    b"table_sum(",
    b"table_average(",
    b"table_max(",
    b"table_min(",
    b"const_100",
    b"const_m1",
    b"#0",
    b"#99",
    b"EOF",
    b"PK\x03\x04",
    b"PK\x01\x02",
    b"PK\x05\x06",
    b"PK\x06\x06",
    b"\x28\xB5\x2F\xFD",
];

/// Patterns repeated by a nesting burst.
const NESTERS: &[&[u8]] = &[
    b"[",
    b"{\"a\":",
    b"{\"turns\":[",
    b"(",
    b"[[",
    b"-",
    b"not ",
    b"\"",
    b"\\",
    b"add(",
    b"((",
    b"lambda:",
    b"if 1:\n ",
    b"~",
    b".a",
    b"()",
    b"[0]",
    b"**-",
    b"+-",
];

/// What a numeric or string value may be replaced with.
const VALUES: &[&[u8]] = &[
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e999",
    b"-1e999",
    b"-0",
    b"0",
    b"-0.0",
    b"1e-400",
    b"null",
    b"true",
    b"false",
    b"\"\"",
    b"[]",
    b"{}",
    b"\"NaN\"",
    b"\"1,234\"",
    b"\"(12.5)\"",
    b"\"50%\"",
    b"\"$-0.5\"",
    b"\"\\u0000\"",
    b"\"\\ud800\"",
    b"99999999999999999999999",
    b"-9223372036854775808",
    b"4294967296",
    b"1.5",
    b"\"=1+1\"",
    b"[1,[2,[3]]]",
    b"{\"a\":NaN}",
    b"\"\xFF\"",
    b"1.0000000000000002",
    b"0.1e1",
    b"2e0",
];

/// Tokens and seed-harvested strings used by the mutator; built once per target.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    pub tokens: Vec<Vec<u8>>,
    /// Relative paths seen in seed folders, plus hostile ones (for renames).
    pub names: Vec<String>,
}

impl Dictionary {
    /// The built-in tokens plus the quoted strings and CSV header cells of `samples` (JSON keys
    /// and enum-like values are what moves a reader into its deeper branches).
    pub fn harvest<'a>(samples: impl IntoIterator<Item = &'a [u8]>) -> Dictionary {
        let mut tokens: Vec<Vec<u8>> = TOKENS.iter().map(|t| t.to_vec()).collect();
        let mut seen = std::collections::HashSet::new();
        for s in samples {
            let head = s.get(..s.len().min(64 << 10)).unwrap_or(s);
            for q in quoted(head) {
                if tokens.len() >= 2000 {
                    break;
                }
                if seen.insert(q.to_vec()) {
                    tokens.push(q.to_vec());
                }
            }
            // A CSV header's cells.
            let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
            if first_line.contains(&b',') && !first_line.contains(&b'{') {
                for cell in first_line.split(|&b| b == b',') {
                    if (1..=40).contains(&cell.len()) && seen.insert(cell.to_vec()) {
                        tokens.push(cell.to_vec());
                    }
                }
            }
        }
        Dictionary {
            tokens,
            names: Vec::new(),
        }
    }
}

/// `"…"` spans of 1–40 bytes (quotes included), without escapes inside.
fn quoted(b: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let start = i + b[i..].iter().position(|&c| c == b'"')?;
            let len = b.get(start + 1..)?.iter().take(41).position(|&c| c == b'"');
            match len {
                Some(n) if n >= 1 => {
                    let span = b.get(start..start + n + 2)?;
                    i = start + n + 2;
                    if !span.contains(&b'\\') && !span.contains(&b'\n') {
                        return Some(span);
                    }
                }
                _ => i = start + 1,
            }
        }
        None
    })
}

/// Applies 1–8 stacked byte mutations (usually 1–3) to `data`. `splice` gives other seeds'
/// bytes for crossover.
pub fn mutate_bytes(rng: &mut Rng, data: &mut Vec<u8>, dict: &Dictionary, splice: &[&[u8]]) {
    let n = if rng.one_in(4) {
        rng.range(4, 8)
    } else {
        rng.range(1, 3)
    };
    for _ in 0..n {
        mutate_once(rng, data, dict, splice);
    }
    data.truncate(MAX_FILE);
}

fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>, dict: &Dictionary, splice: &[&[u8]]) {
    let len = data.len();
    let pos = rng.below(len + 1);
    match rng.below(22) {
        0 => {
            if let Some(b) = data.get_mut(pos.min(len.saturating_sub(1))) {
                *b ^= 1 << rng.below(8);
            }
        }
        1 => {
            const INTERESTING: &[u8] = b"\x00\xFF\x7F\x80\"\\{}[],:\n\r -.0e";
            if let (Some(b), Some(&v)) = (data.get_mut(pos), rng.pick(INTERESTING)) {
                *b = v;
            }
        }
        2 => {
            let v = rng.next_u64() as u8;
            if let Some(b) = data.get_mut(pos) {
                *b = v;
            }
        }
        3 => {
            let n = rng.small_len(len.max(1)).min(len - pos.min(len));
            data.drain(pos.min(len)..pos.min(len) + n);
        }
        4 => {
            let n = rng.small_len(64);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            insert(data, pos, &bytes);
        }
        5 | 6 => {
            // Duplicate a range somewhere (5) or over another range (6).
            if len == 0 {
                return;
            }
            let from = rng.below(len);
            let n = rng.small_len(len - from);
            let chunk = data.get(from..from + n).unwrap_or_default().to_vec();
            if rng.below(2) == 0 || pos + chunk.len() > len {
                insert(data, pos, &chunk);
            } else if let Some(dst) = data.get_mut(pos..pos + chunk.len()) {
                dst.copy_from_slice(&chunk);
            }
        }
        7 => {
            // Crossover: this seed's head, another's tail.
            if let Some(other) = rng.pick(splice) {
                let at = rng.below(other.len() + 1);
                data.truncate(pos);
                data.extend_from_slice(other.get(at..).unwrap_or_default());
            }
        }
        8 => {
            if let Some(other) = rng.pick(splice) {
                let from = rng.below(other.len() + 1);
                let n = rng.small_len(other.len().saturating_sub(from).max(1));
                let chunk = other
                    .get(from..(from + n).min(other.len()))
                    .unwrap_or_default();
                insert(data, pos, chunk);
            }
        }
        9 => {
            if let Some(t) = rng.pick(&dict.tokens) {
                let t = t.clone();
                insert(data, pos, &t);
            }
        }
        10 => {
            // A token right after a structural byte, where a parser decides what comes next.
            let at = data
                .get(pos..)
                .and_then(|rest| rest.iter().position(|b| b",:[{\n\"(".contains(b)))
                .map_or(pos, |i| pos + i + 1);
            if let Some(t) = rng.pick(&dict.tokens) {
                let t = t.clone();
                insert(data, at, &t);
            }
        }
        11 => replace_number(rng, data, pos),
        12 => replace_string(rng, data, pos, dict),
        13 => data.truncate(pos),
        14 => {
            let pat = rng.pick(NESTERS).copied().unwrap_or(b"[");
            let n = *rng
                .pick(&[64, 201, 300, 1_000, 5_000, 10_000, 100_000])
                .unwrap_or(&64);
            insert(data, pos, &pat.repeat(n));
        }
        15 => {
            let n = *rng
                .pick(&[20, 310, 400, 4_300, 5_000, 100_000])
                .unwrap_or(&20);
            let mut run = vec![b'9'; n];
            match rng.below(4) {
                0 => run.extend_from_slice(b".5"),
                1 => run.extend_from_slice(b"e5"),
                2 => run.insert(0, b'-'),
                _ => {}
            }
            insert(data, pos, &run);
        }
        16..=17 => line_edit(rng, data),
        18 => match rng.below(4) {
            0 => insert(data, 0, b"\xEF\xBB\xBF"),
            1 => insert(data, 0, b"\xFF\xFE"),
            2 => *data = crlf(data),
            _ => data.retain(|&b| b != b'\n'),
        },
        19 => {
            let b = *rng.pick(b"\xFF\x00 \t\n\r\"0,").unwrap_or(&0xFF);
            let n = rng.small_len(70_000);
            insert(data, pos, &vec![b; n]);
        }
        20 => {
            let delta = rng.range(1, 35) as u8;
            if let Some(b) = data.get_mut(pos) {
                *b = if rng.one_in(2) {
                    b.wrapping_add(delta)
                } else {
                    b.wrapping_sub(delta)
                };
            }
        }
        _ => {
            // The same bytes again: a repeated record or a file written twice.
            if len > 0 && len < (1 << 20) {
                let copy = data.clone();
                data.extend_from_slice(&copy);
            }
        }
    }
}

fn insert(data: &mut Vec<u8>, pos: usize, bytes: &[u8]) {
    let pos = pos.min(data.len());
    if data.len() + bytes.len() > MAX_FILE {
        return;
    }
    data.splice(pos..pos, bytes.iter().copied());
}

/// Replaces the number at or after `pos` (a digit run with its sign, point and exponent) with a
/// hostile value.
fn replace_number(rng: &mut Rng, data: &mut Vec<u8>, pos: usize) {
    let Some(start) = data
        .get(pos..)
        .and_then(|r| r.iter().position(u8::is_ascii_digit))
        .map(|i| pos + i)
    else {
        return;
    };
    let mut end = start;
    while data
        .get(end)
        .is_some_and(|b| b.is_ascii_digit() || b".eE+-".contains(b))
    {
        end += 1;
    }
    let start = if start > 0 && data.get(start - 1) == Some(&b'-') {
        start - 1
    } else {
        start
    };
    let value: Vec<u8> = if rng.one_in(6) {
        let n = rng.range(17, 400);
        (0..n).map(|_| b'0' + rng.below(10) as u8).collect()
    } else {
        rng.pick(VALUES).map(|v| v.to_vec()).unwrap_or_default()
    };
    data.splice(start..end, value);
}

/// Replaces the JSON string at or after `pos` with a hostile one.
fn replace_string(rng: &mut Rng, data: &mut Vec<u8>, pos: usize, dict: &Dictionary) {
    let Some(open) = data
        .get(pos..)
        .and_then(|r| r.iter().position(|&b| b == b'"'))
        .map(|i| pos + i)
    else {
        return;
    };
    let Some(close) = data
        .get(open + 1..)
        .and_then(|r| r.iter().position(|&b| b == b'"'))
        .map(|i| open + 1 + i)
    else {
        return;
    };
    let with: Vec<u8> = match rng.below(5) {
        0 => rng.pick(VALUES).map(|v| v.to_vec()).unwrap_or_default(),
        1 => rng.pick(&dict.tokens).cloned().unwrap_or_default(),
        2 => {
            let piece = rng.pick(TOKENS).copied().unwrap_or(b"a");
            let mut s = b"\"".to_vec();
            s.extend(piece.repeat(rng.small_len(20_000)));
            s.push(b'"');
            s
        }
        3 => b"\"\\ud800\\u0000\\\"\xE2\x80\xAE<img src=x onerror=alert(1)>\"".to_vec(),
        _ => {
            let mut s = b"\"".to_vec();
            s.extend(std::iter::repeat_n(b'x', rng.small_len(300_000)));
            s.push(b'"');
            s
        }
    };
    data.splice(open..=close, with);
}

/// Duplicates (up to many times), deletes or swaps lines.
fn line_edit(rng: &mut Rng, data: &mut Vec<u8>) {
    let mut lines: Vec<Vec<u8>> = data.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    let i = rng.below(n);
    match rng.below(4) {
        0 => {
            let times = *rng.pick(&[1, 2, 10, 1000]).unwrap_or(&1);
            if let Some(line) = lines.get(i).cloned() {
                if line.len().saturating_mul(times) < MAX_FILE / 2 {
                    lines.splice(i..i, std::iter::repeat_n(line, times));
                }
            }
        }
        1 if n > 1 => {
            lines.remove(i);
        }
        2 => {
            let j = rng.below(n);
            lines.swap(i, j);
        }
        _ => {
            // A line cut short (a write interrupted mid-record).
            if let Some(line) = lines.get_mut(i) {
                let keep = rng.below(line.len() + 1);
                line.truncate(keep);
            }
        }
    }
    *data = lines.join(&b'\n');
}

fn crlf(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 16);
    for &b in data {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// Names a renamed or added file may get: plausible ones from the seeds, and hostile ones.
const HOSTILE_NAMES: &[&str] = &[
    "results.json",
    "turns.csv",
    "run.jsonl",
    "dataset.json",
    "model_eval_dataset.json",
    "traces/x.json",
    "traces/../escape.json",
    "metrics.json",
    "metrics_summary.json",
    "predictions.jsonl",
    "eval_summary.json",
    "run_manifest.json",
    "training_output/metrics.jsonl",
    "eval_v1.jsonl",
    "x.eval",
    "x.json",
    "results_2025-01-01T00-00-00.json",
    "samples_t_2025-01-01T00-00-00.jsonl",
    "chat_history/s/metrics.json",
    "chat_history/s/trace.jsonl",
    "data.csv",
    "RESULTS.JSON",
    "Turns.CSV",
    "a\\b.jsonl",
    "x\" onmouseover=\"alert(1).jsonl",
    "<svg onload=alert(1)>.json",
    "ü ñ 日本.jsonl",
    "\u{202e}lmsj.txt",
    "  .json",
    ".evalboard-outputs",
    "out/.evalboard-outputs",
    "statistics.json",
    "summary.csv",
    "errors.csv",
    "validation.csv",
    "deep/a/b/c/d/e/f/g/h/i/j/k.jsonl",
];

/// Applies 1–3 folder mutations: most edit one file's bytes, the rest change which files there
/// are and what they are called. `pool` is every seed file (for additions and crossover).
pub fn mutate_folder(rng: &mut Rng, folder: &mut Folder, dict: &Dictionary, pool: &[&[u8]]) {
    let n = rng.range(1, 3);
    for _ in 0..n {
        folder_once(rng, folder, dict, pool);
    }
    folder.truncate(MAX_FOLDER_FILES);
    // Keep the folder's total bounded: a file pushed past it is cut.
    let mut total = 0usize;
    for (_, b) in folder.iter_mut() {
        let room = (2 * MAX_FILE).saturating_sub(total);
        b.truncate(room);
        total += b.len();
    }
}

fn folder_once(rng: &mut Rng, folder: &mut Folder, dict: &Dictionary, pool: &[&[u8]]) {
    let n = folder.len();
    let i = rng.below(n);
    match rng.below(16) {
        0..=8 => {
            if let Some((_, bytes)) = folder.get_mut(i) {
                mutate_bytes(rng, bytes, dict, pool);
            } else if let Some(b) = rng.pick(pool) {
                folder.push((new_name(rng, dict), b.to_vec()));
            }
        }
        9 if n > 1 => {
            folder.remove(i);
        }
        10 => {
            if let Some(b) = rng.pick(pool) {
                folder.push((new_name(rng, dict), b.to_vec()));
            }
        }
        11 => {
            if let Some(f) = folder.get(i).cloned() {
                folder.push((new_name(rng, dict), f.1));
            }
        }
        12 => {
            let name = new_name(rng, dict);
            if let Some(f) = folder.get_mut(i) {
                f.0 = name;
            }
        }
        13 => {
            if let Some(f) = folder.get_mut(i) {
                f.1.clear();
            }
        }
        14 => {
            // Another format's content under this name.
            if let (Some(b), Some(f)) = (rng.pick(pool), folder.get_mut(i)) {
                f.1 = b.to_vec();
            }
        }
        _ => {
            // The same file twice under names that differ only in case or a folder.
            if let Some((p, b)) = folder.get(i).cloned() {
                let twin = if rng.one_in(2) {
                    p.to_uppercase()
                } else {
                    format!("copy/{p}")
                };
                folder.push((twin, b));
            }
        }
    }
}

fn new_name(rng: &mut Rng, dict: &Dictionary) -> String {
    if !dict.names.is_empty() && rng.one_in(2) {
        if let Some(n) = rng.pick(&dict.names) {
            return n.clone();
        }
    }
    match rng.pick(HOSTILE_NAMES) {
        Some(n) if !rng.one_in(8) => (*n).to_string(),
        _ => format!("{}{}.json", "n".repeat(rng.small_len(300)), rng.below(100)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_never_panic_and_respect_the_cap() {
        let dict = Dictionary::harvest([b"{\"key\": \"value\", \"n\": 12.5}".as_slice()]);
        let seeds: Vec<&[u8]> = vec![b"", b"a,b\n1,2\n", b"{\"x\": [1, 2, \"s\"]}"];
        let mut rng = Rng::new(3);
        for round in 0..3000 {
            let mut data = seeds[round % seeds.len()].to_vec();
            mutate_bytes(&mut rng, &mut data, &dict, &seeds);
            assert!(data.len() <= MAX_FILE);
        }
        for _ in 0..300 {
            let mut folder: Folder = vec![("a.json".into(), b"{}".to_vec())];
            mutate_folder(&mut rng, &mut folder, &dict, &seeds);
            assert!(folder.len() <= MAX_FOLDER_FILES);
        }
        let mut empty: Folder = Vec::new();
        mutate_folder(&mut rng, &mut empty, &dict, &[]);
    }

    #[test]
    fn harvest_takes_quoted_strings_and_csv_headers() {
        let d = Dictionary::harvest([
            b"{\"conversation_id\": \"c1\", \"esc\\\"aped\": 1}".as_slice(),
            b"trace_id,turn_idx,answer\n".as_slice(),
        ]);
        let has = |t: &[u8]| d.tokens.iter().any(|x| x == t);
        assert!(has(b"\"conversation_id\""));
        assert!(has(b"\"c1\""));
        assert!(has(b"turn_idx"));
        assert!(!d
            .tokens
            .iter()
            .any(|x| x.contains(&b'\\') && x.starts_with(b"\"esc")));
    }

    #[test]
    fn numbers_and_strings_are_replaced_in_place() {
        let mut rng = Rng::new(11);
        let mut seen_change = false;
        for _ in 0..50 {
            let mut d = b"{\"a\": -12.5e3, \"b\": \"x\"}".to_vec();
            replace_number(&mut rng, &mut d, 0);
            assert!(d.starts_with(b"{\"a\": "));
            assert!(d.ends_with(b", \"b\": \"x\"}"));
            seen_change |= d != b"{\"a\": -12.5e3, \"b\": \"x\"}";
        }
        assert!(seen_change);
    }
}
