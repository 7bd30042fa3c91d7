//! The elements of a top-level JSON array, found without parsing them, so that one bad element
//! does not hide the others: the one scanner behind every reader of a file that is a JSON list
//! of records (code generation's `metrics.json`, lm-eval's samples files written as one array).
//! A single pass over the bytes with a depth counter (no recursion, no allocation but the spans):
//! strings and their escapes are skipped, so a bracket or comma inside a string is text.

/// Element spans `(start, end)` and problems `(offset, message)` of a top-level JSON array.
pub type ArraySpans = (Vec<(usize, usize)>, Vec<(usize, String)>);

/// Why a text is not a JSON array at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAnArray {
    /// Nothing but white space.
    Empty,
    /// Its first character is not `[`.
    Other,
}

/// Byte spans of the elements of a top-level JSON array (each without the white space around
/// it), with the problems of its structure: an empty element (`[1,,2]`), a list not closed with
/// `]` (cut off: the element it was in is still given), text after the closing `]`. An element
/// whose brackets do not balance runs on to the end of the array.
pub fn element_spans(bytes: &[u8]) -> Result<ArraySpans, NotAnArray> {
    let mut problems = Vec::new();
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .ok_or(NotAnArray::Empty)?;
    if bytes.get(start) != Some(&b'[') {
        return Err(NotAnArray::Other);
    }
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let mut elem: Option<usize> = None;
    let mut last_non_ws = start;
    let mut in_str = false;
    let mut esc = false;
    let mut closed = None;
    let mut i = start + 1;
    while i < bytes.len() {
        let c = bytes.get(i).copied().unwrap_or(b' ');
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
                last_non_ws = i;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                elem.get_or_insert(i);
            }
            b'{' | b'[' => {
                depth += 1;
                elem.get_or_insert(i);
            }
            b'}' | b']' if depth > 0 => depth -= 1,
            b']' => {
                if let Some(s) = elem.take() {
                    spans.push((s, last_non_ws + 1));
                }
                closed = Some(i);
                break;
            }
            b',' if depth == 0 => match elem.take() {
                Some(s) => spans.push((s, last_non_ws + 1)),
                None => problems.push((i, "empty element in the list".to_string())),
            },
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => {
                elem.get_or_insert(i);
            }
        }
        last_non_ws = i;
        i += 1;
    }
    match closed {
        None => {
            if let Some(s) = elem.take() {
                spans.push((s, bytes.len()));
            }
            problems.push((bytes.len(), "the list is not closed with ]".to_string()));
        }
        Some(end) => {
            let trailing = bytes
                .get(end + 1..)
                .and_then(|rest| rest.iter().position(|b| !b.is_ascii_whitespace()));
            if let Some(off) = trailing {
                problems.push((end + 1 + off, "text after the end of the list".to_string()));
            }
        }
    }
    Ok((spans, problems))
}

/// A serde_json error's message without its trailing " at line L column C" (the caller says
/// where, counted from the file's start rather than the element's).
pub fn error_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_spans_survive_bad_elements() {
        let text = b"[\n {\"a\": \"]\\\"\"},\n nope,\n [1, [2]] ,\n ,\n {\"b\": 1}\n] x";
        let (spans, problems) = element_spans(text).unwrap_or_default();
        let got: Vec<&str> = spans
            .iter()
            .map(|&(s, e)| std::str::from_utf8(text.get(s..e).unwrap_or_default()).unwrap_or(""))
            .collect();
        assert_eq!(
            got,
            vec!["{\"a\": \"]\\\"\"}", "nope", "[1, [2]]", "{\"b\": 1}"]
        );
        let msgs: Vec<&str> = problems.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "empty element in the list",
                "text after the end of the list"
            ]
        );
        assert_eq!(element_spans(b"{}"), Err(NotAnArray::Other));
        assert_eq!(element_spans(b"  "), Err(NotAnArray::Empty));
        let (spans, problems) = element_spans(b"[{\"a\": 1}, {\"b\"").unwrap_or_default();
        assert_eq!(spans.len(), 2);
        assert_eq!(problems.len(), 1);
        assert_eq!(
            element_spans(b"[]").map(|(s, p)| (s.len(), p.len())),
            Ok((0, 0))
        );
    }

    #[test]
    fn deep_nesting_is_counted_not_recursed() {
        let deep = format!("[{}{}, 1]", "[".repeat(200_000), "]".repeat(200_000));
        let (spans, problems) = element_spans(deep.as_bytes()).unwrap_or_default();
        assert_eq!(spans.len(), 2);
        assert!(problems.is_empty());
    }
}
