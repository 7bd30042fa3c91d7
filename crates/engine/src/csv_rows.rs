//! Line-based CSV files, read so that a stray quote cannot merge rows silently.
//!
//! The CSVs the engine reads (financial-agent-2's `turns.csv` and `summary.csv`, a code-generation
//! run's data files) are written one row per line by Python's `csv` module, which quotes a field
//! holding a comma, a quote or a line break. A field may so legitimately span lines (an error
//! message with a line break in it). But a *stray* opening quote (`…,"what was…` never closed)
//! makes a CSV parser read on across line ends to the next quote: two stray quotes in one column
//! merge the rows between them into one record, which can even have the header's number of
//! fields, and the rows in between are gone without a word.
//!
//! **The rule** ([`CsvRows`]). A record that spans several lines is checked against those lines,
//! each read on its own (`line_alone`: as written, or without one stray quote at the start of
//! a field). When two or more of them are whole rows on their own (the header's number of
//! fields), or the record has the wrong number of fields and one of them is a whole row, the
//! record is a merge: an error names its lines and the column where the quote opened, and the
//! lines are read one by one instead: each whole row is recovered (a warning names its stray
//! quote), each other line is an error naming it. Otherwise the record is one row with a field
//! that holds line breaks, as the writer made it. A one-line record with the wrong number of
//! fields is read again without a stray quote when that makes it a whole row (with a warning);
//! any other record with the wrong number of fields is skipped with an error naming its line or
//! lines. Lines are counted incrementally (a file of a million rows is not rescanned per row).
//!
//! Which fields may hold line breaks does not matter to the rule: in `turns.csv` the writer's
//! free-text columns (`question`, the answers, `error_message`) may, and a record with such a
//! field is read as one row; what tells a merge is lines that are whole rows on their own.

use std::collections::VecDeque;

use csv::StringRecord;

use crate::diag::Diagnostic;

/// The rows of a line-based CSV file, each with the header's number of fields and its 1-based
/// line (see the module docs).
pub struct CsvRows<'a> {
    path: &'a str,
    body: &'a [u8],
    reader: csv::Reader<&'a [u8]>,
    header: StringRecord,
    /// Rows recovered from a merged record (or from a header that ran on), not handed out yet.
    pending: VecDeque<(u32, StringRecord)>,
    /// Newlines counted in `body[..counted_to]`, plus 1.
    line: u32,
    counted_to: usize,
    record: StringRecord,
    /// The header spanned several lines (a stray quote in it).
    header_ran_on: bool,
}

impl<'a> CsvRows<'a> {
    /// Reads the header of `body` (a file of `path`, without its byte-order mark). `None`, with an
    /// error diagnostic, when the header cannot be read; an empty file has an empty header.
    pub fn new(path: &'a str, body: &'a [u8], diags: &mut Vec<Diagnostic>) -> Option<Self> {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(body);
        let mut rows = CsvRows {
            path,
            body,
            reader,
            header: StringRecord::new(),
            pending: VecDeque::new(),
            line: 1,
            counted_to: 0,
            record: StringRecord::new(),
            header_ran_on: false,
        };
        let before = rows.reader.position().byte();
        match rows.reader.read_record(&mut rows.record) {
            Ok(false) => return Some(rows),
            Ok(true) => {}
            Err(e) => {
                diags.push(Diagnostic::error(
                    path,
                    Some(1),
                    format!("unreadable header: {e}"),
                ));
                return None;
            }
        }
        let (first, lines) = rows.span(before);
        match lines.as_slice() {
            [] | [_] => rows.header = std::mem::take(&mut rows.record),
            [head, rest @ ..] => {
                // A header is one line: a quote in it that runs on is stray. The header is read
                // from its line alone (names hold no quotes), the lines it swallowed as rows.
                let unquoted: Vec<u8> = head.iter().copied().filter(|&b| b != b'"').collect();
                rows.header = parse_line(&unquoted).unwrap_or_default();
                rows.header_ran_on = true;
                let last = first.saturating_add(u32::try_from(rest.len()).unwrap_or(u32::MAX));
                diags.push(Diagnostic::error(
                    path,
                    Some(first),
                    format!(
                        "a quote in the header runs on to line {last} (a stray quote?): the \
                         header is read from line {first} alone and lines {}–{last} one by one",
                        first + 1
                    ),
                ));
                let rest: Vec<&[u8]> = rest.to_vec();
                rows.recover(first + 1, &rest, diags);
            }
        }
        Some(rows)
    }

    /// The header's fields.
    pub fn header(&self) -> &StringRecord {
        &self.header
    }

    /// Whether the header ran on into later lines (a stray quote in it; reported by [`Self::new`]).
    pub fn header_ran_on(&self) -> bool {
        self.header_ran_on
    }

    /// The next row into `out`, and its 1-based line; `None` at the end (or at a record the CSV
    /// reader cannot read nor move past, reported; one it moves past is skipped, reported). Problems go to `diags` (see the module docs).
    pub fn next_row(&mut self, diags: &mut Vec<Diagnostic>, out: &mut StringRecord) -> Option<u32> {
        let n = self.header.len();
        loop {
            if let Some((line, row)) = self.pending.pop_front() {
                *out = row;
                return Some(line);
            }
            let before = self.reader.position().byte();
            match self.reader.read_record(&mut self.record) {
                Ok(false) => return None,
                Ok(true) => {}
                Err(e) => {
                    let at = e.position().map_or(before, |p| p.byte());
                    let line = self.line_at(usize::try_from(at).unwrap_or(usize::MAX));
                    // A record the reader could not take (bytes that are not UTF-8) costs that
                    // record, not the rest of the file, when the reader has moved past it.
                    let moved = self.reader.position().byte() > before;
                    let what = if moved { "; the row is skipped" } else { "" };
                    diags.push(Diagnostic::error(
                        self.path,
                        Some(line),
                        format!("bad CSV: {e}{what}"),
                    ));
                    if moved {
                        continue;
                    }
                    return None;
                }
            }
            let (first, lines) = self.span(before);
            if lines.len() > 1 {
                let alone: Vec<Option<Alone>> = lines.iter().map(|l| line_alone(l, n)).collect();
                let whole = alone.iter().flatten().count();
                if whole >= 2 || (whole >= 1 && self.record.len() != n) {
                    let last = first + (lines.len() - 1) as u32;
                    let column = match alone.first() {
                        Some(Some(Alone { stray: Some(k), .. })) => {
                            format!(" in `{}`", self.column(*k))
                        }
                        _ => String::new(),
                    };
                    diags.push(Diagnostic::error(
                        self.path,
                        Some(first),
                        format!(
                            "lines {first}–{last} were read as one row: a quote opened{column} \
                             on line {first} closes only on line {last} (a stray quote?); the \
                             lines are read one by one ({whole} of {} are rows)",
                            lines.len()
                        ),
                    ));
                    self.recover_read(first, &lines, alone, diags);
                    continue;
                }
            }
            if self.record.len() == n {
                std::mem::swap(out, &mut self.record);
                return Some(first);
            }
            // One line with the wrong count: a stray quote that closed on the same line?
            if let [line] = lines.as_slice() {
                if let Some(Alone {
                    row,
                    stray: Some(k),
                }) = line_alone(line, n)
                {
                    diags.push(Diagnostic::warning(
                        self.path,
                        Some(first),
                        format!(
                            "stray quote at the start of `{}` (the row read as {} fields); the \
                             line is read without it",
                            self.column(k),
                            self.record.len()
                        ),
                    ));
                    *out = row;
                    return Some(first);
                }
            }
            let which = match lines.len() {
                0 | 1 => "row".to_string(),
                k => format!("row (lines {first}–{})", first + (k - 1) as u32),
            };
            diags.push(Diagnostic::error(
                self.path,
                Some(first),
                format!(
                    "{which} has {} fields, the header has {n}; row skipped",
                    self.record.len()
                ),
            ));
        }
    }

    /// The name of column `k` (its number when the header is shorter).
    fn column(&self, k: usize) -> String {
        self.header
            .get(k)
            .map_or_else(|| format!("column {}", k + 1), str::to_string)
    }

    /// The lines `lines` (the first is line `first`) read one by one into `pending`.
    fn recover(&mut self, first: u32, lines: &[&[u8]], diags: &mut Vec<Diagnostic>) {
        let n = self.header.len();
        let alone: Vec<Option<Alone>> = lines.iter().map(|l| line_alone(l, n)).collect();
        self.recover_read(first, lines, alone, diags);
    }

    /// [`Self::recover`] with each line already read alone.
    fn recover_read(
        &mut self,
        first: u32,
        lines: &[&[u8]],
        alone: Vec<Option<Alone>>,
        diags: &mut Vec<Diagnostic>,
    ) {
        let n = self.header.len();
        for (i, (text, read)) in lines.iter().zip(alone).enumerate() {
            let line = first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
            match read {
                Some(Alone { row, stray }) => {
                    if let Some(k) = stray {
                        diags.push(Diagnostic::warning(
                            self.path,
                            Some(line),
                            format!(
                                "stray quote at the start of `{}`; the line is read without it",
                                self.column(k)
                            ),
                        ));
                    }
                    self.pending.push_back((line, row));
                }
                None if text.iter().all(u8::is_ascii_whitespace) => {}
                None => {
                    let fields = parse_line(text).map_or(0, |r| r.len());
                    diags.push(Diagnostic::error(
                        self.path,
                        Some(line),
                        format!(
                            "line has {fields} fields on its own, the header has {n}; line skipped"
                        ),
                    ));
                }
            }
        }
    }

    /// The record just read, from the reader's position `before` it: its first line and its
    /// physical lines (without line ends; blank lines before it are not part of it).
    fn span(&mut self, before: u64) -> (u32, Vec<&'a [u8]>) {
        let body = self.body;
        let mut start = usize::try_from(before)
            .unwrap_or(usize::MAX)
            .min(body.len());
        while matches!(body.get(start), Some(b'\r' | b'\n')) {
            start += 1;
        }
        let end = usize::try_from(self.reader.position().byte())
            .unwrap_or(usize::MAX)
            .clamp(start, body.len());
        let mut content = body.get(start..end).unwrap_or_default();
        while let [rest @ .., b'\r' | b'\n'] = content {
            content = rest;
        }
        let first = self.line_at(start);
        let lines = content
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .collect();
        (first, lines)
    }

    /// The 1-based line of byte `offset` (offsets asked for only grow: counted once).
    fn line_at(&mut self, offset: usize) -> u32 {
        let offset = offset.min(self.body.len());
        if offset < self.counted_to {
            self.line = 1;
            self.counted_to = 0;
        }
        let seen = self.body.get(self.counted_to..offset).unwrap_or_default();
        let newlines = memchr::memchr_iter(b'\n', seen).count();
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        self.counted_to = offset;
        self.line
    }
}

/// How many lines the record between the CSV reader's positions `before` and `after` reading it
/// spans in `body` (line ends before and after it not counted): more than 1 for a quoted field
/// with a line break, or a stray quote.
pub fn lines_spanned(body: &[u8], before: u64, after: u64) -> usize {
    let start = usize::try_from(before)
        .unwrap_or(usize::MAX)
        .min(body.len());
    let end = usize::try_from(after)
        .unwrap_or(usize::MAX)
        .clamp(start, body.len());
    let mut content = body.get(start..end).unwrap_or_default();
    while let [b'\r' | b'\n', rest @ ..] = content {
        content = rest;
    }
    while let [rest @ .., b'\r' | b'\n'] = content {
        content = rest;
    }
    1 + memchr::memchr_iter(b'\n', content).count()
}

/// A line read on its own as a whole row.
struct Alone {
    row: StringRecord,
    /// The field whose stray opening quote was dropped to read the line.
    stray: Option<usize>,
}

/// One line as a CSV record (quotes as the writer uses them).
///
/// Building a CSV reader builds its state machine (tens of microseconds), so one reader per
/// thread is kept and pointed at each line in turn: a file of 200,000 lines with stray quotes
/// took 9 s, one build per line.
fn parse_line(line: &[u8]) -> Option<StringRecord> {
    type LineReader = csv::Reader<std::io::Cursor<Vec<u8>>>;
    fn line_reader() -> LineReader {
        csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(std::io::Cursor::new(Vec::new()))
    }
    fn read(reader: &mut LineReader, line: &[u8]) -> Option<StringRecord> {
        let cursor = reader.get_mut();
        cursor.get_mut().clear();
        cursor.get_mut().extend_from_slice(line);
        reader
            .seek_raw(std::io::SeekFrom::Start(0), csv::Position::new())
            .ok()?;
        let mut record = StringRecord::new();
        reader.read_record(&mut record).ok()?.then_some(record)
    }
    thread_local! {
        static READER: std::cell::RefCell<LineReader> = std::cell::RefCell::new(line_reader());
    }
    READER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut reader) => {
            let row = read(&mut reader, line);
            // A long line's buffer is not kept.
            if reader.get_ref().get_ref().capacity() > 1 << 16 {
                *reader = line_reader();
            }
            row
        }
        Err(_) => read(&mut line_reader(), line),
    })
}

/// Whether `line` is one record as Python's `csv` module writes one: a quote only opens a
/// field, closes it (before a comma or the line's end) or is doubled inside it, and every
/// quoted field closes on the line.
fn well_formed(line: &[u8]) -> bool {
    let mut i = 0usize;
    loop {
        // At the start of a field.
        if line.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match (line.get(i), line.get(i + 1)) {
                    (None, _) => return false,
                    (Some(b'"'), Some(b'"')) => i += 2,
                    (Some(b'"'), Some(b',')) => {
                        i += 2;
                        break;
                    }
                    (Some(b'"'), None) => return true,
                    (Some(b'"'), Some(_)) => return false,
                    (Some(_), _) => i += 1,
                }
            }
        } else {
            let rest = line.get(i..).unwrap_or_default();
            match memchr::memchr2(b',', b'"', rest) {
                None => return true,
                Some(j) if rest.get(j) == Some(&b'"') => return false,
                Some(j) => i += j + 1,
            }
        }
    }
}

/// Quotes at the start of a field tried as the stray one, per line at most (each try reads the
/// line again: a hostile line of a million `,"` costs a few readings, not a million).
const STRAY_TRIES: usize = 16;

/// `line` read on its own as a row of `n` fields: as written when it is [`well_formed`], else
/// without the one quote at the start of a field whose removal leaves a well-formed row of `n`
/// fields (the first such among the first [`STRAY_TRIES`]); `None` when neither is.
fn line_alone(line: &[u8], n: usize) -> Option<Alone> {
    if well_formed(line) {
        let row = parse_line(line).filter(|r| r.len() == n)?;
        return Some(Alone { row, stray: None });
    }
    let starts = memchr::memchr_iter(b'"', line)
        .filter(|&i| i == 0 || line.get(i - 1) == Some(&b','))
        .take(STRAY_TRIES);
    for i in starts {
        let mut without = line.get(..i).unwrap_or_default().to_vec();
        without.extend_from_slice(line.get(i + 1..).unwrap_or_default());
        if !well_formed(&without) {
            continue;
        }
        if let Some(row) = parse_line(&without).filter(|r| r.len() == n) {
            // The prefix `a,b,` reads as ["a", "b", ""]: the quote opened its last field.
            let stray = match i {
                0 => 0,
                _ => parse_line(line.get(..i).unwrap_or_default()).map_or(0, |r| r.len() - 1),
            };
            return Some(Alone {
                row,
                stray: Some(stray),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one reader `parse_line` keeps reads each line as a reader built for it alone would:
    /// nothing (an open quote, a field count, a bad byte) carries over from the line before.
    #[test]
    fn parse_line_reuses_its_reader_without_carrying_state() {
        let fresh = |line: &[u8]| {
            csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(line)
                .records()
                .next()
                .and_then(Result::ok)
        };
        let lines: [&[u8]; 9] = [
            b"a,\"open quote,c",
            b"x,y",
            b"\"q\"\"d\",2,3,4",
            b"",
            b"bad,\xff,byte",
            b"t1,\"what\",10",
            b"\"",
            b"ab\"c,\"d\"e",
            b"last",
        ];
        for _ in 0..2 {
            for line in lines {
                assert_eq!(
                    parse_line(line),
                    fresh(line),
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
        }
        let long = vec![b'z'; 1 << 17];
        assert_eq!(parse_line(&long).map(|r| r.len()), Some(1));
        assert_eq!(parse_line(b"1,2"), fresh(b"1,2"));
    }

    /// Every row read and every diagnostic, as text.
    fn read(text: &str) -> (Vec<String>, Vec<String>) {
        let mut diags = Vec::new();
        let mut rows = CsvRows::new("t.csv", text.as_bytes(), &mut diags).unwrap();
        let mut out = Vec::new();
        let mut row = StringRecord::new();
        while let Some(line) = rows.next_row(&mut diags, &mut row) {
            out.push(format!(
                "{line}: {}",
                row.iter().collect::<Vec<_>>().join("|")
            ));
        }
        (out, diags.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn plain_rows_and_legitimate_line_breaks() {
        let text = "a,b,c\n1,2,3\r\n\n4,\"x, y\",\"two\nlines\"\n5,6,7";
        let (rows, diags) = read(text);
        assert_eq!(rows, ["2: 1|2|3", "4: 4|x, y|two\nlines", "6: 5|6|7"]);
        assert!(diags.is_empty(), "{diags:?}");
        // A line break in the middle column, and an empty last field.
        let (rows, diags) = read("a,b,c\n1,\"q\nr\",3\n4,5,\n");
        assert_eq!(rows, ["2: 1|q\nr|3", "4: 4|5|"]);
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn two_stray_quotes_merging_four_rows_are_undone() {
        let text = "a,b,c\n1,\"q1,x\n2,q2,y\n3,q3,z\n4,\"q4,w\n5,q5,v\n";
        let (rows, diags) = read(text);
        assert_eq!(
            rows,
            [
                "2: 1|q1|x",
                "3: 2|q2|y",
                "4: 3|q3|z",
                "5: 4|q4|w",
                "6: 5|q5|v"
            ]
        );
        assert_eq!(
            diags,
            [
                "t.csv:2: error: lines 2–5 were read as one row: a quote opened in `b` on line 2 closes only on line 5 (a stray quote?); the lines are read one by one (4 of 4 are rows)",
                "t.csv:2: warning: stray quote at the start of `b`; the line is read without it",
                "t.csv:5: warning: stray quote at the start of `b`; the line is read without it",
            ]
        );
    }

    #[test]
    fn a_merge_with_the_wrong_count_names_every_line() {
        // One stray quote: the field runs to the end of the file.
        let text = "a,b,c\n1,\"q1,x\n2,q2\n3,q3,z\n";
        let (rows, diags) = read(text);
        assert_eq!(rows, ["2: 1|q1|x", "4: 3|q3|z"]);
        assert_eq!(diags.len(), 3, "{diags:?}");
        assert!(
            diags[0].contains("lines 2–4 were read as one row"),
            "{diags:?}"
        );
        assert_eq!(
            diags[2],
            "t.csv:3: error: line has 2 fields on its own, the header has 3; line skipped"
        );
        // A record with the wrong count whose lines are no rows: skipped, its lines named.
        let (rows, diags) = read("a,b,c\n1,\"x\ny\"\n");
        assert!(rows.is_empty());
        assert_eq!(
            diags,
            ["t.csv:2: error: row (lines 2–3) has 2 fields, the header has 3; row skipped"]
        );
    }

    #[test]
    fn field_count_per_row() {
        let (rows, diags) = read("a,b,c\n1,2\n3,4,5,6\n7,8,9\n");
        assert_eq!(rows, ["4: 7|8|9"]);
        assert_eq!(
            diags,
            [
                "t.csv:2: error: row has 2 fields, the header has 3; row skipped",
                "t.csv:3: error: row has 4 fields, the header has 3; row skipped",
            ]
        );
    }

    #[test]
    fn a_stray_quote_closed_on_its_line_is_dropped() {
        // A stray quote before a quoted field: the two quotes read as an empty quoted field,
        // and the row as 4 fields.
        let (rows, diags) = read("a,b,c\n1,\"\"x, y\",3\n");
        assert_eq!(rows, ["2: 1|x, y|3"]);
        assert_eq!(
            diags,
            ["t.csv:2: warning: stray quote at the start of `b` (the row read as 4 fields); the line is read without it"]
        );
    }

    #[test]
    fn a_stray_quote_in_the_header() {
        let (rows, diags) = read("a,\"b,c\n1,2,3\n4,5,6\n");
        assert_eq!(rows, ["2: 1|2|3", "3: 4|5|6"]);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].starts_with("t.csv:1: error: a quote in the header runs on to line 3"));
    }

    #[test]
    fn hostile_lines_cost_a_bounded_number_of_readings() {
        let line = ",\"".repeat(200_000);
        assert!(line_alone(line.as_bytes(), 3).is_none());
        let text = format!("a,b,c\n{line}\n1,2,3\n");
        let (rows, diags) = read(&text);
        assert_eq!(rows, ["3: 1|2|3"]);
        assert_eq!(diags.len(), 1, "{diags:?}");
    }

    #[test]
    fn lines_alone() {
        let row = |l: &str, n| line_alone(l.as_bytes(), n).map(|a| (a.row.len(), a.stray));
        assert_eq!(row("1,2,3", 3), Some((3, None)));
        assert_eq!(row("\"x\",\"a,b\",3", 3), Some((3, None)));
        assert_eq!(row("1,\"2,3", 3), Some((3, Some(1))));
        assert_eq!(row("\"1,2,3", 3), Some((3, Some(0))));
        assert_eq!(row("\"a,b\",\"2,3", 3), Some((3, Some(1))));
        assert_eq!(row("1,2\"x,3", 3), None);
        assert_eq!(row("1,\"2\"\"x\",3", 3), Some((3, None)));
        assert_eq!(row("", 3), None);
        for (line, ok) in [
            ("", true),
            ("a,b,", true),
            ("\"a\",\"\"", true),
            ("\"a\"\"b\",c", true),
            ("\"a", false),
            ("a\"", false),
            ("\"a\"b,c", false),
        ] {
            assert_eq!(well_formed(line.as_bytes()), ok, "{line}");
        }
    }
}
