//! Reading a numeric QA run: every file of the folder classified ([`super::sniff`]), read into the
//! canonical model, a ConvFinQA dataset joined, and every file accounted for (parsed / partly
//! parsed / skipped with a reason).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::accounting::{status_of, FileStatus, InputFileReport, LoadError};
use crate::diag::SourceRef;
use crate::diag::{Diagnostic, Severity};
use crate::family::{family_vote, Family};
use crate::input::{InputFile, RunInput};
use crate::numeric_qa::formats::{convfinqa, fa2_results, fa2_traces, qa_jsonl};
use crate::numeric_qa::model::{QaConversation, QaRun, QaTurn, RawValue, ReadDetail, TurnError};
use crate::numeric_qa::sniff::{
    classify_text, is_jsonl_name, not_utf8_reason, without_bom, FileKind,
};

/// What one file of a run folder held, once classified and read. Reading a file depends on no
/// other file, so a native caller may read files on several threads ([`read_file`]) and then
/// [`assemble_qa_run`]; [`load_qa_run`] does both in order on one thread (wasm).
#[derive(Debug)]
pub struct FileRead<'a> {
    /// The file's report; for `turns.csv` it is settled by [`assemble_qa_run`].
    pub report: InputFileReport,
    pub diagnostics: Vec<Diagnostic>,
    content: FileContent<'a>,
}

#[derive(Debug)]
enum FileContent<'a> {
    Nothing,
    Trace(Box<QaConversation>),
    Conversations(Vec<QaConversation>),
    /// A flattened turns.csv: the source only when the folder has no traces or results, so
    /// it is read by [`assemble_qa_run`] only then.
    TurnsCsv {
        file: Cow<'a, InputFile>,
        trace_order: Vec<String>,
        /// What reading the order found: reported only when the turns are not read (reading
        /// them reports the same).
        order_diags: Vec<Diagnostic>,
    },
    Dataset(convfinqa::Dataset),
    OriginalJson(serde_json::Value),
    OriginalCsv {
        /// summary.csv's trace order (the original writer's order).
        trace_order: Option<Vec<String>>,
    },
}

/// Classifies and reads one file. `progress(bytes_done)` is called while big files are read.
pub fn read_file<'a>(f: &'a InputFile, progress: &mut dyn FnMut(u64)) -> FileRead<'a> {
    read_file_detail(f, ReadDetail::Full, progress)
}

/// [`read_file`], keeping what `detail` asks for.
fn read_file_detail<'a>(
    f: &'a InputFile,
    detail: ReadDetail,
    progress: &mut dyn FnMut(u64),
) -> FileRead<'a> {
    let classified = classify_text(f);
    if classified.is_err() {
        if let Some(owned) = read_lines_despite_bad_bytes(f) {
            return owned.read;
        }
    }
    read_classified(f, classified, detail, progress)
}

/// A QA JSONL file with bytes that are not UTF-8 (a file [`classify_text`] refused) is read line
/// by line, as it is when streamed: the lines with bad bytes are diagnostics, the others are
/// read. `None` for any other file.
fn read_lines_despite_bad_bytes(f: &InputFile) -> Option<OwnedRead> {
    if f.bytes.is_empty() || std::str::from_utf8(&f.bytes).is_ok() {
        return None;
    }
    QaJsonlStream::start(&f.path, &f.bytes).map(QaJsonlStream::finish)
}

fn read_classified<'a>(
    f: &'a InputFile,
    classified: Result<(FileKind, &str), String>,
    detail: ReadDetail,
    progress: &mut dyn FnMut(u64),
) -> FileRead<'a> {
    let (kind, text) = match classified {
        Ok(k) => k,
        Err(reason) => {
            return FileRead {
                report: InputFileReport::new(f, None, FileStatus::Skipped, Some(reason)),
                diagnostics: Vec::new(),
                content: FileContent::Nothing,
            }
        }
    };
    let mut content = FileContent::Nothing;
    let read: Result<Vec<Diagnostic>, Vec<Diagnostic>> = match kind {
        FileKind::Fa2Trace => fa2_traces::read_trace_text(&f.path, text, detail).map(|(c, d)| {
            content = FileContent::Trace(Box::new(c));
            d
        }),
        FileKind::Fa2Results => {
            fa2_results::read_results(&f.path, text.as_bytes()).map(|(c, d)| {
                content = FileContent::Conversations(c);
                d
            })
        }
        FileKind::QaJsonl => qa_jsonl::read_qa_jsonl_text_with_progress(&f.path, text, progress)
            .map(|(c, d)| {
                content = FileContent::Conversations(c);
                d
            }),
        FileKind::Fa2TurnsCsv => {
            let (trace_order, order_diags) =
                fa2_traces::trace_order_from_csv(&f.path, without_bom(&f.bytes));
            return FileRead {
                report: InputFileReport::new(f, Some(kind.label()), FileStatus::Parsed, None),
                diagnostics: Vec::new(),
                content: FileContent::TurnsCsv {
                    file: Cow::Borrowed(f),
                    trace_order,
                    order_diags,
                },
            };
        }
        FileKind::ConvFinQaDataset => convfinqa::read_dataset(&f.path, text.as_bytes()).map(|ds| {
            let d = ds.diagnostics.clone();
            content = FileContent::Dataset(ds);
            d
        }),
        FileKind::OriginalJson => match crate::pyrepr::parse_py_json(text.as_bytes()) {
            Ok(v) => {
                content = FileContent::OriginalJson(v);
                let mut diags = Vec::new();
                crate::json_keys::warn_duplicates(&mut diags, &f.path, text.as_bytes(), 1);
                Ok(diags)
            }
            Err(e) => Err(vec![Diagnostic::error(
                &f.path,
                u32::try_from(e.line()).ok(),
                format!("not valid JSON: {e}"),
            )]),
        },
        FileKind::OriginalCsv => {
            let mut diags = Vec::new();
            let trace_order = (f.file_name() == "summary.csv").then(|| {
                let (order, d) = fa2_traces::trace_order_from_csv(&f.path, without_bom(&f.bytes));
                diags = d;
                order
            });
            content = FileContent::OriginalCsv { trace_order };
            Ok(diags)
        }
    };
    settle(report_of(&f.path, f.bytes.len(), kind), read, content)
}

/// A file's report before its status is known.
fn report_of(path: &str, bytes: usize, kind: FileKind) -> InputFileReport {
    InputFileReport {
        path: path.to_string(),
        bytes: bytes as u64,
        format: Some(kind.label().to_string()),
        status: FileStatus::Parsed,
        reason: None,
    }
}

/// The read of a classified file from its reader's answer: parsed or partly parsed with the
/// reader's diagnostics, or skipped with the first error as the reason.
fn settle<'a>(
    mut report: InputFileReport,
    read: Result<Vec<Diagnostic>, Vec<Diagnostic>>,
    content: FileContent<'a>,
) -> FileRead<'a> {
    match read {
        Ok(d) => {
            (report.status, report.reason) = status_of(&d);
            FileRead {
                report,
                diagnostics: d,
                content,
            }
        }
        Err(d) => {
            let reason = d
                .iter()
                .find(|x| x.severity == Severity::Error)
                .or(d.first())
                .map(|x| x.message.clone())
                .unwrap_or_else(|| "nothing readable".into());
            report.status = FileStatus::Skipped;
            report.reason = Some(reason);
            FileRead {
                report,
                diagnostics: d,
                content: FileContent::Nothing,
            }
        }
    }
}

/// A big canonical JSONL file read as it streams in (the CLI feeds it in blocks, so the file is
/// never in memory whole): the same [`FileRead`] as [`read_file`] gives for the whole file.
pub struct QaJsonlStream {
    path: String,
    bytes: usize,
    reader: qa_jsonl::QaJsonlReader,
}

impl QaJsonlStream {
    /// Starts reading `path` with its first bytes, `head`: the whole file or its first block.
    /// `None` when the file would not be read as QA JSONL ([`super::sniff::classify`]), or when
    /// `head` ends inside a first line that does not show it (a first line longer than the
    /// block); the caller reads it whole with [`read_file`] instead.
    pub fn start(path: &str, head: &[u8]) -> Option<QaJsonlStream> {
        if !is_jsonl_name(path) || head.is_empty() || !qa_jsonl::looks_like_qa_jsonl(head) {
            return None;
        }
        let path = path.replace('\\', "/");
        let mut stream = QaJsonlStream {
            reader: qa_jsonl::QaJsonlReader::new(&path),
            path,
            bytes: 0,
        };
        stream.feed(head);
        Some(stream)
    }

    /// Reads the next block of the file.
    pub fn feed(&mut self, block: &[u8]) {
        self.bytes += block.len();
        self.reader.feed(block);
    }

    /// The file's read, once every block was fed (no bytes to give back: the caller kept its
    /// blocks).
    pub fn finish(self) -> OwnedRead {
        let invalid = self.reader.first_invalid_utf8();
        let (path, bytes) = (self.path, self.bytes);
        OwnedRead {
            read: jsonl_read(&path, bytes, invalid, self.reader.finish()),
            vote: Some(Family::NumericQa),
            bytes_back: None,
        }
    }
}

/// The read of the complete lines a watched QA JSONL file's `reader` was fed so far (`bytes`
/// bytes): what [`read_file`] gives for a file of those lines, from the conversations already
/// read (copied, not read again; [`crate::run::live`]).
pub fn qa_jsonl_so_far(reader: &qa_jsonl::QaJsonlReader, bytes: usize) -> FileRead<'static> {
    let invalid = reader.first_invalid_utf8();
    jsonl_read(reader.path(), bytes, invalid, reader.so_far())
}

/// A QA JSONL file's read from its reader's answer; bytes that are not UTF-8 spoil their line,
/// not the file: that line is a diagnostic (it does not parse), and the first such byte is
/// named, first among its line's diagnostics (the cause before the parse error).
fn jsonl_read(
    path: &str,
    bytes: usize,
    invalid: Option<(u64, u32)>,
    read: Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>>,
) -> FileRead<'static> {
    let report = report_of(path, bytes, FileKind::QaJsonl);
    let note = |d: &mut Vec<Diagnostic>| {
        if let Some((at, line)) = invalid {
            let before = d
                .iter()
                .position(|x| x.line.is_some_and(|l| l >= line))
                .unwrap_or(d.len());
            d.insert(
                before,
                Diagnostic::error(
                    path,
                    Some(line),
                    format!("{}; the line is skipped", not_utf8_reason(at, line)),
                ),
            );
        }
    };
    let mut content = FileContent::Nothing;
    let read = match read {
        Ok((c, mut d)) => {
            content = FileContent::Conversations(c);
            note(&mut d);
            Ok(d)
        }
        Err(mut d) => {
            note(&mut d);
            Err(d)
        }
    };
    settle(report, read, content)
}

impl FileRead<'_> {
    /// The read is a financial-agent-2 trace file's (read, or skipped as unreadable).
    pub fn is_trace(&self) -> bool {
        self.report.format.as_deref() == Some(FileKind::Fa2Trace.label())
    }

    /// The conversation of a trace file read.
    pub fn trace(&self) -> Option<&QaConversation> {
        match &self.content {
            FileContent::Trace(c) => Some(c),
            _ => None,
        }
    }

    /// A copy of a trace file's read, for [`assemble_qa_run`] (`None` for another file's).
    pub fn trace_copy(&self) -> Option<FileRead<'static>> {
        let content = match &self.content {
            FileContent::Trace(c) => FileContent::Trace(c.clone()),
            FileContent::Nothing => FileContent::Nothing,
            _ => return None,
        };
        self.is_trace().then(|| FileRead {
            report: self.report.clone(),
            diagnostics: self.diagnostics.clone(),
            content,
        })
    }
}

impl FileContent<'_> {
    /// The content owning everything it holds, or a turns.csv's trace order (and what reading
    /// it found) when the content still needs its file's bytes.
    fn detach(self) -> Result<FileContent<'static>, (Vec<String>, Vec<Diagnostic>)> {
        Ok(match self {
            FileContent::Nothing => FileContent::Nothing,
            FileContent::Trace(c) => FileContent::Trace(c),
            FileContent::Conversations(c) => FileContent::Conversations(c),
            FileContent::TurnsCsv {
                trace_order,
                order_diags,
                ..
            } => return Err((trace_order, order_diags)),
            FileContent::Dataset(d) => FileContent::Dataset(d),
            FileContent::OriginalJson(v) => FileContent::OriginalJson(v),
            FileContent::OriginalCsv { trace_order } => FileContent::OriginalCsv { trace_order },
        })
    }
}

/// [`read_file`] for a caller that streams a folder (the CLI reads each file into a reused
/// buffer, reads it and lets it go, so the folder is never in memory whole): the read, and the
/// file's bytes back when the read no longer needs them (only a turns.csv keeps them, since it
/// is read by [`assemble_qa_run`] once the whole folder is known). The file's [`family_vote`]
/// comes with it, so the caller can tell the folder's family once every file is read.
pub struct OwnedRead {
    pub read: FileRead<'static>,
    pub vote: Option<Family>,
    pub bytes_back: Option<Vec<u8>>,
}

/// See [`OwnedRead`]. `detail`: what the readers keep ([`ReadDetail::Doc`] when only the doc
/// profile will score the run).
pub fn read_file_owned(f: InputFile, detail: ReadDetail) -> OwnedRead {
    let classified = classify_text(&f);
    if classified.is_err() {
        if let Some(owned) = read_lines_despite_bad_bytes(&f) {
            return owned;
        }
    }
    let vote = match &classified {
        Ok((kind, _)) => crate::family::vote_of_text(&f, Ok(*kind)),
        // Unreadable, or of no numeric QA kind: the (rare) full vote.
        Err(_) => family_vote(&f),
    };
    let FileRead {
        report,
        diagnostics,
        content,
    } = read_classified(&f, classified, detail, &mut |_| {});
    let (content, bytes_back) = match content.detach() {
        Ok(content) => (content, Some(f.bytes)),
        Err((trace_order, order_diags)) => (
            FileContent::TurnsCsv {
                file: Cow::Owned(f),
                trace_order,
                order_diags,
            },
            None,
        ),
    };
    OwnedRead {
        read: FileRead {
            report,
            diagnostics,
            content,
        },
        vote,
        bytes_back,
    }
}

/// Reads a run folder (numeric QA family) into a [`QaRun`], joined with `dataset` when given and
/// with any dataset found inside the folder. `Err` only when no conversation could be read.
pub fn load_qa_run(
    input: &RunInput,
    dataset: Option<&convfinqa::Dataset>,
) -> Result<QaRun, LoadError> {
    load_qa_run_with_progress(input, dataset, &mut |_, _| {})
}

/// [`load_qa_run`] that calls `progress(files_done, bytes_done)` after each file.
pub fn load_qa_run_with_progress(
    input: &RunInput,
    dataset: Option<&convfinqa::Dataset>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<QaRun, LoadError> {
    load_qa_run_with_reads(input, Vec::new(), dataset, progress)
}

/// [`load_qa_run_with_progress`] for a run some of whose files were already read as they
/// streamed in ([`QaJsonlStream`]; the dashboard's worker streams a big JSONL file so it is
/// never in memory whole): `streamed` joins the reads of `input`'s files.
pub fn load_qa_run_with_reads(
    input: &RunInput,
    streamed: Vec<FileRead<'static>>,
    dataset: Option<&convfinqa::Dataset>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<QaRun, LoadError> {
    let mut done_files = 0u64;
    let mut done_bytes = 0u64;
    let mut sorted: Vec<&InputFile> = input.files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut reads = Vec::with_capacity(sorted.len() + streamed.len());
    reads.extend(streamed);
    for f in sorted {
        progress(done_files, done_bytes);
        reads.push(read_file(f, &mut |b| progress(done_files, done_bytes + b)));
        done_files += 1;
        done_bytes += f.bytes.len() as u64;
    }
    progress(done_files, done_bytes);
    assemble_qa_run(&input.name, reads, dataset)
}

/// Puts the files of a run folder, read by [`read_file`] in any order, together: trace order,
/// turns.csv as the source only without traces, dataset join, failed conversations.
pub fn assemble_qa_run(
    name: &str,
    mut reads: Vec<FileRead<'_>>,
    dataset: Option<&convfinqa::Dataset>,
) -> Result<QaRun, LoadError> {
    // Callers usually pass them in path order already (the CLI lists a folder sorted), and a
    // stable sort of tens of thousands of reads would allocate a scratch copy of them.
    if !reads.is_sorted_by(|a, b| a.report.path <= b.report.path) {
        reads.sort_by(|a, b| a.report.path.cmp(&b.report.path));
    }
    let n_input_files = reads.len();
    let mut run = QaRun {
        name: name.to_string(),
        ..Default::default()
    };
    let n_traces = reads
        .iter()
        .filter(|r| matches!(r.content, FileContent::Trace(_)))
        .count();
    let mut trace_convs: Vec<QaConversation> = Vec::with_capacity(n_traces);
    let mut other_convs: Vec<QaConversation> = Vec::new();
    let mut turns_csv: Vec<(usize, Cow<InputFile>, Vec<Diagnostic>)> = Vec::new();
    let mut in_folder_datasets: Vec<convfinqa::Dataset> = Vec::new();
    let mut files = Vec::with_capacity(reads.len());
    let mut diags = Vec::new();
    // The original writer's trace order (summary.csv, else turns.csv): trace files are named by
    // random UUIDs, so the compat outputs need this order to match byte for byte.
    let mut trace_order: Vec<String> = Vec::new();
    let mut trace_order_from_turns: Vec<String> = Vec::new();
    for r in reads {
        let path = &r.report.path;
        match r.content {
            FileContent::Nothing => {}
            FileContent::Trace(c) => trace_convs.push(*c),
            FileContent::Conversations(c) => other_convs.extend(c),
            FileContent::TurnsCsv {
                file,
                trace_order,
                order_diags,
            } => {
                trace_order_from_turns = trace_order;
                turns_csv.push((files.len(), file, order_diags));
            }
            FileContent::Dataset(ds) => in_folder_datasets.push(ds),
            FileContent::OriginalJson(v) => run.original.json.push((path.clone(), v)),
            FileContent::OriginalCsv { trace_order: order } => {
                if let Some(order) = order {
                    trace_order = order;
                }
                run.original.csv.push(path.clone());
            }
        }
        files.push(r.report);
        diags.extend(r.diagnostics);
    }

    // turns.csv is the source only when the folder has no traces (it is the same data, flattened).
    let turns_is_source = trace_convs.is_empty() && other_convs.is_empty();
    for (file_idx, f, order_diags) in turns_csv {
        let Some(r) = files.get_mut(file_idx) else {
            continue;
        };
        if turns_is_source {
            let (c, d) = fa2_traces::read_turns_csv(&f.path, without_bom(&f.bytes));
            let (mut status, mut reason) = status_of(&d);
            if c.is_empty() {
                status = FileStatus::Skipped;
                reason = Some(reason.unwrap_or_else(|| "no rows".into()));
            }
            r.status = status;
            r.reason = reason;
            other_convs.extend(c);
            diags.extend(d);
        } else {
            r.format = Some("original-csv".into());
            r.reason = Some("kept as originally scored; the traces are the source".into());
            run.original.csv.push(r.path.clone());
            diags.extend(order_diags);
        }
    }
    if trace_order.is_empty() {
        trace_order = trace_order_from_turns;
    }
    if !trace_order.is_empty() {
        let pos: HashMap<&str, usize> = trace_order
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i))
            .collect();
        trace_convs.sort_by_key(|c| {
            c.trace_id
                .as_deref()
                .and_then(|t| pos.get(t).copied())
                .unwrap_or(usize::MAX)
        });
    }
    let mut convs = trace_convs;
    convs.extend(other_convs);

    if convs.is_empty() {
        let message = if n_input_files == 0 {
            "the folder is empty".to_string()
        } else {
            "no conversations could be read from any file (see the file list for reasons)"
                .to_string()
        };
        return Err(LoadError {
            message,
            files,
            diagnostics: diags,
        });
    }

    let mut datasets: Vec<&convfinqa::Dataset> = in_folder_datasets.iter().collect();
    if let Some(ds) = dataset {
        datasets.insert(0, ds);
    }
    join_datasets(&mut convs, &datasets, &mut diags);
    materialize_failed_conversations(&mut convs, &mut diags);

    run.conversations = convs;
    run.files = files;
    run.diagnostics = diags;
    Ok(run)
}

/// Fills ground truth the run lacks from dataset records with the same conversation id.
/// Join key: conversation id + turn index.
pub fn join_datasets(
    convs: &mut [QaConversation],
    datasets: &[&convfinqa::Dataset],
    diags: &mut Vec<Diagnostic>,
) {
    if datasets.is_empty() {
        return;
    }
    let mut index: HashMap<&str, &convfinqa::DatasetConversation> = HashMap::new();
    for ds in datasets.iter().rev() {
        for c in &ds.conversations {
            index.insert(c.id.as_str(), c);
        }
    }
    let mut unmatched = Vec::new();
    for conv in convs.iter_mut() {
        let Some(dc) = index.get(conv.id.as_str()) else {
            unmatched.push(conv.id.clone());
            continue;
        };
        let f = &mut conv.features;
        f.num_dialogue_turns = f.num_dialogue_turns.or(dc.features.num_dialogue_turns);
        f.has_type2_question = f.has_type2_question.or(dc.features.has_type2_question);
        f.has_duplicate_columns = f
            .has_duplicate_columns
            .or(dc.features.has_duplicate_columns);
        f.has_non_numeric_values = f
            .has_non_numeric_values
            .or(dc.features.has_non_numeric_values);
        if conv.failure.is_some() && conv.turns.is_empty() {
            let n = dc.questions.len().max(dc.turn_programs.len());
            conv.features.num_dialogue_turns = conv.features.num_dialogue_turns.or(Some(n as u32));
        }
        for t in conv.turns.iter_mut() {
            let i = t.turn_idx as usize;
            if t.ground_truth_program.as_deref().is_none_or(str::is_empty) {
                t.ground_truth_program = dc.turn_programs.get(i).cloned();
            }
            if t.executed_answer.is_none() {
                t.executed_answer = dc.executed_answers.get(i).cloned();
            }
            if t.expected.is_null() {
                if let Some(a) = dc.answers.get(i) {
                    t.expected = a.clone();
                }
            }
            if t.question.is_empty() {
                if let Some(q) = dc.questions.get(i) {
                    t.question = q.clone();
                }
            }
        }
        // Failed conversations get their questions and answers from the dataset.
        if conv.failure.is_some() && conv.turns.is_empty() {
            for i in 0..declared_turns(conv, diags) {
                conv.turns.push(QaTurn {
                    turn_idx: i as u32,
                    question: dc.questions.get(i).cloned().unwrap_or_default(),
                    expected: dc.answers.get(i).cloned().unwrap_or(RawValue::Null),
                    ground_truth_program: dc.turn_programs.get(i).cloned(),
                    executed_answer: dc.executed_answers.get(i).cloned(),
                    ..failed_turn(conv, i)
                });
            }
        }
    }
    if !unmatched.is_empty() && unmatched.len() < convs.len() + 1 {
        let shown: Vec<&str> = unmatched.iter().take(5).map(String::as_str).collect();
        diags.push(Diagnostic::warning(
            "",
            None,
            format!(
                "{} conversation(s) not found in the dataset, so no ground-truth program for them: {}{}",
                unmatched.len(),
                shown.join(", "),
                if unmatched.len() > 5 { ", …" } else { "" }
            ),
        ));
    }
}

fn failed_turn(conv: &QaConversation, i: usize) -> QaTurn {
    let msg = conv.failure.clone().unwrap_or_default();
    QaTurn {
        turn_idx: i as u32,
        predicted: None,
        error: Some(Box::new(TurnError {
            error_type: fa2_results::error_type_of(&msg),
            message: msg,
            context: None,
        })),
        source: SourceRef {
            file: conv.source.file.clone(),
            line: conv.source.line,
            record: conv.source.record,
        },
        ..Default::default()
    }
}

/// The most turns a conversation that failed as a whole is counted as when no dataset says how
/// many it has: a count declared in the input (`num_turns`, `num_dialogue_turns`) sizes nothing
/// beyond this. ConvFinQA dialogues have at most a dozen turns.
pub const MAX_DECLARED_TURNS: usize = 1000;

/// The turn count a conversation declares (`num_turns`, `num_dialogue_turns`), trusted up to
/// [`MAX_DECLARED_TURNS`]; a larger count is a warning and counts as the cap.
fn declared_turns(conv: &QaConversation, diags: &mut Vec<Diagnostic>) -> usize {
    let declared = conv.expected_turns() as usize;
    if declared <= MAX_DECLARED_TURNS {
        return declared;
    }
    let mut d = Diagnostic::warning(
        &*conv.source.file,
        conv.source.line,
        format!(
            "conversation {:?} failed and declares {declared} turns: counted as \
             {MAX_DECLARED_TURNS} wrong turns (no conversation has more)",
            conv.id
        ),
    );
    if let Some(r) = conv.source.record {
        d = d.with_record(format!("record {r}"));
    }
    diags.push(d);
    MAX_DECLARED_TURNS
}

/// A conversation that failed as a whole counts as its declared turns ([`declared_turns`], at
/// least one), wrong (doc profile), each carrying the failure as its error. Turns already filled
/// from a dataset are kept.
fn materialize_failed_conversations(convs: &mut [QaConversation], diags: &mut Vec<Diagnostic>) {
    for conv in convs.iter_mut() {
        if conv.failure.is_some() && conv.turns.is_empty() {
            let n = declared_turns(conv, diags).max(1);
            conv.turns = (0..n).map(|i| failed_turn(conv, i)).collect();
        }
    }
}

/// [`load_qa_run`] reading files on `threads` native threads (the CLI and benches; wasm has one
/// thread and uses [`load_qa_run_with_progress`]). Same result, byte for byte: files are read
/// independently and [`assemble_qa_run`] orders them by path.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_qa_run_parallel(
    input: &RunInput,
    dataset: Option<&convfinqa::Dataset>,
    threads: usize,
    detail: ReadDetail,
) -> Result<QaRun, LoadError> {
    fn read<'a>(f: &'a InputFile, detail: ReadDetail) -> FileRead<'a> {
        read_file_detail(f, detail, &mut |_| {})
    }
    if threads <= 1 || input.files.len() <= 1 {
        let reads = input.files.iter().map(|f| read(f, detail)).collect();
        return assemble_qa_run(&input.name, reads, dataset);
    }
    // Biggest files first, so one large file does not start last and run alone.
    let mut order: Vec<&InputFile> = input.files.iter().collect();
    order.sort_by_key(|f| std::cmp::Reverse(f.bytes.len()));
    match crate::parallel::map_on_threads(&order, threads, |f| read(f, detail)) {
        Some(reads) => assemble_qa_run(&input.name, reads, dataset),
        // A reader panicked on some thread (a bug: readers never panic on input); read again
        // on this thread so the run is still read in full.
        None => assemble_qa_run(
            &input.name,
            order.iter().map(|f| read(f, detail)).collect(),
            dataset,
        ),
    }
}

#[cfg(test)]
mod stream_tests {
    use super::*;

    fn whole(path: &str, bytes: &[u8]) -> Result<QaRun, LoadError> {
        let f = InputFile::new(path, bytes.to_vec());
        assemble_qa_run("r", vec![read_file(&f, &mut |_| {})], None)
    }

    fn streamed(path: &str, bytes: &[u8], block: usize) -> Option<Result<QaRun, LoadError>> {
        let head = bytes.len().min(8192);
        let mut s = QaJsonlStream::start(path, &bytes[..head])?;
        for piece in bytes[head..].chunks(block) {
            s.feed(piece);
        }
        let owned = s.finish();
        // The stream votes as the whole file would.
        let whole_vote = family_vote(&InputFile::new(path, bytes.to_vec()));
        assert_eq!(owned.vote, whole_vote, "{path}");
        assert!(owned.bytes_back.is_none());
        Some(assemble_qa_run("r", vec![owned.read], None))
    }

    fn line(conv: usize, turn: usize, extra: &str) -> String {
        format!(
            "{{\"conversation_id\":\"c{conv}\",\"turn_idx\":{turn},\"question\":\"q{turn} {extra}\",\"expected\":\"{turn}%\",\"predicted\":{turn}}}"
        )
    }

    /// Streaming a JSONL file in blocks of any size reads exactly what reading it whole reads:
    /// the same conversations, line numbers, diagnostics and file report.
    #[test]
    fn streamed_jsonl_equals_whole_file_for_any_block_size() {
        let long = "x".repeat(20_000);
        let mut good = String::from("\u{feff}");
        for i in 0..300 {
            good.push_str(&line(i / 4, i % 4, if i == 7 { &long } else { "" }));
            good.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
            if i == 10 {
                good.push_str("not json\n\n   \n");
            }
        }
        good.push_str(&line(999, 0, "last line, no newline"));
        let mut bad_utf8 = good.clone().into_bytes();
        bad_utf8.splice(9000..9000, [0xff, 0xfe]);
        let two_boms = format!("\u{feff}\u{feff}{}\n{}\n", line(0, 0, ""), line(1, 0, ""));
        let mut many_bad = line(0, 0, "");
        many_bad.push('\n');
        for _ in 0..1200 {
            many_bad.push_str("{oops\n");
        }
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("run.jsonl", good.into_bytes()),
            ("sub\\bad.jsonl", bad_utf8),
            ("many.ndjson", many_bad.into_bytes()),
            ("tiny.jsonl", line(1, 0, "").into_bytes()),
            (
                "only_bad.jsonl",
                b"{\"conversation_id\":\"c\",\"turn_idx\":-3}\nnope\n".to_vec(),
            ),
            // Fuzz finding (evalboard-fuzz, qa_jsonl): the whole-file path removed two marks
            // (once as text, once as the first line), the stream one.
            ("two_boms.jsonl", two_boms.clone().into_bytes()),
        ];
        for (path, bytes) in &cases {
            let want = whole(path, bytes);
            for block in [1, 2, 5, 17, 100, 4096, usize::MAX / 2] {
                let got = streamed(path, bytes, block).expect("looks like QA JSONL");
                assert_eq!(got, want, "{path}, blocks of {block}");
            }
        }
        // One mark is the encoding's; a second is content, and the line is not JSON (Python's
        // `utf-8-sig` leaves it, and `json.loads` refuses it).
        let two = whole("two_boms.jsonl", two_boms.as_bytes()).expect("line 2 reads");
        assert_eq!(two.conversations.len(), 1);
        assert_eq!(two.diagnostics.first().and_then(|d| d.line), Some(1));
        let run = whole("run.jsonl", &cases[0].1).expect("readable");
        assert_eq!(run.conversations.len(), 76);
        assert_eq!(run.diagnostics.len(), 1, "{:?}", run.diagnostics);
        // Two bytes that are not UTF-8 cost their line, not the file.
        let bad = whole("sub/bad.jsonl", &cases[1].1).expect("read line by line");
        let turns = |r: &QaRun| r.conversations.iter().map(|c| c.turns.len()).sum::<usize>();
        assert_eq!(turns(&bad), turns(&run) - 1);
        assert!(
            bad.diagnostics.iter().any(|d| d
                .message
                .contains("not UTF-8 text (invalid byte at offset 9000")),
            "{:?}",
            bad.diagnostics
        );
    }

    /// Every reading path takes a file with bad bytes line by line: read whole, on threads.
    #[test]
    fn every_path_reads_a_file_with_bad_bytes_line_by_line() {
        let mut bytes = (0..4)
            .map(|i| line(i, 0, "") + "\n")
            .collect::<String>()
            .into_bytes();
        bytes.extend_from_slice(
            b"{\"conversation_id\":\"c9\",\"turn_idx\":0,\"question\":\"caf\xe9\"}\n",
        );
        let input = RunInput::new(
            "r",
            vec![
                InputFile::new("r/a.jsonl", bytes.clone()),
                InputFile::new("r/b.jsonl", line(7, 0, "") + "\n"),
            ],
        );
        let turns = |r: &QaRun| r.conversations.iter().map(|c| c.turns.len()).sum::<usize>();
        let whole = load_qa_run(&input, None).expect("readable");
        assert_eq!(turns(&whole), 5);
        #[cfg(not(target_arch = "wasm32"))]
        for threads in [1, 2] {
            let run =
                load_qa_run_parallel(&input, None, threads, ReadDetail::Full).expect("readable");
            assert_eq!(run, whole, "{threads} thread(s)");
        }
        let owned = read_file_owned(InputFile::new("r/a.jsonl", bytes), ReadDetail::Full);
        assert_eq!(owned.vote, Some(Family::NumericQa));
        assert_eq!(owned.read.report.status, FileStatus::PartlyParsed);
    }

    /// A folder some of whose files were streamed loads as the same folder read whole: the
    /// streamed reads join the others (the dashboard's worker streams a big JSONL file).
    #[test]
    fn a_folder_with_a_streamed_file_loads_as_the_whole_folder() {
        let mut big = String::new();
        for i in 0..500 {
            big.push_str(&line(i / 5, i % 5, "big"));
            big.push('\n');
        }
        big.push_str("{broken\n");
        let small: String = (0..6)
            .map(|i| line(1000 + i / 3, i % 3, "small") + "\n")
            .collect();
        let whole_input = RunInput::new(
            "r",
            vec![
                InputFile::new("r/b_big.jsonl", big.clone().into_bytes()),
                InputFile::new("r/a_small.jsonl", small.clone().into_bytes()),
                InputFile::new("r/notes.txt", b"hello".to_vec()),
            ],
        );
        let want = load_qa_run(&whole_input, None).expect("readable");
        let mut s = QaJsonlStream::start("r/b_big.jsonl", &big.as_bytes()[..1000]).expect("QA");
        for piece in big.as_bytes()[1000..].chunks(333) {
            s.feed(piece);
        }
        let rest = RunInput::new(
            "r",
            vec![
                InputFile::new("r/a_small.jsonl", small.into_bytes()),
                InputFile::new("r/notes.txt", b"hello".to_vec()),
            ],
        );
        let mut seen = Vec::new();
        let got = load_qa_run_with_reads(&rest, vec![s.finish().read], None, &mut |f, b| {
            seen.push((f, b))
        })
        .expect("readable");
        assert_eq!(got, want);
        assert_eq!(got.conversations.len(), 102);
        assert_eq!(got.files.len(), 3);
        assert!(got.diagnostics.iter().any(|d| d.file == "r/b_big.jsonl"));
        // Progress counts the files read here, not the streamed one.
        assert_eq!(
            seen.last(),
            Some(&(2, rest.files.iter().map(|f| f.bytes.len() as u64).sum()))
        );
    }

    #[test]
    fn jsonl_names_in_any_case() {
        for yes in [
            "a.jsonl",
            "A.JSONL",
            "dir/x.NdJson",
            ".jsonl",
            "été/ü.Jsonl",
        ] {
            assert!(is_jsonl_name(yes), "{yes}");
        }
        for no in [
            "a.json",
            "jsonl",
            "a.jsonl.gz",
            "",
            "ü",
            "aé.jsonlé",
            "x.ndjso",
        ] {
            assert!(!is_jsonl_name(no), "{no}");
        }
    }

    #[test]
    fn stream_starts_only_for_qa_jsonl() {
        assert!(QaJsonlStream::start("a.json", line(0, 0, "").as_bytes()).is_none());
        assert!(QaJsonlStream::start("a.jsonl", b"").is_none());
        assert!(QaJsonlStream::start("a.jsonl", b"{\"id\":1}\n").is_none());
        assert!(QaJsonlStream::start("A.JSONL", line(0, 0, "").as_bytes()).is_some());
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod parallel_tests {
    use super::*;

    #[test]
    fn parallel_load_equals_sequential() {
        let mut files = Vec::new();
        for i in 0..40 {
            let line = format!(
                "{{\"conversation_id\":\"c{}\",\"turn_idx\":{},\"question\":\"q\",\"expected\":\"{i}\",\"predicted\":{i}}}\n",
                i / 3,
                i % 3
            );
            files.push(InputFile::new(format!("part{:02}.jsonl", 39 - i), line));
        }
        files.push(InputFile::new("notes.txt", "hello"));
        files.push(InputFile::new("bad.jsonl", "{not json\n"));
        let input = RunInput::new("r", files);
        let seq = load_qa_run(&input, None).expect("readable");
        for threads in [1, 2, 3, 8] {
            let par =
                load_qa_run_parallel(&input, None, threads, ReadDetail::Full).expect("readable");
            assert_eq!(par, seq, "threads = {threads}");
        }
    }
}
