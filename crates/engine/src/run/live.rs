//! A run read while it is written (the registry's entry for [`crate::live`]): one appendable
//! JSONL file — a canonical numeric QA results file, an OpenAI Evals record file, a promptfoo
//! `.jsonl` — fed the bytes appended since the last round. Complete lines go to the family's own
//! live reader ([`crate::numeric_qa::live`], [`crate::evallog::live`]); a partial last line is
//! held ([`LineTail`]); only new items are scored, and the numbers so far ([`LiveNumbers`]) are
//! the sums of a [`LiveTally`]. After the last change they equal a full read of the final bytes
//! by [`super::read`] and [`super::score`] (the headline's counts; `crates/engine/tests/it/live.rs`).
//!
//! A folder that grows by whole files — a financial-agent-2 `traces/` folder, one conversation a
//! file — is a [`LiveFiles`]: each new or rewritten file is read alone by its family's reader
//! ([`crate::numeric_qa::live::trace_file`]) and only its items are scored; their sums are merged
//! into the folder's.
//!
//! An Inspect `.eval` that Inspect is writing is a [`LiveArchive`]: each change is read from the
//! archive's end (end records and central directory), then only the members not read before
//! ([`crate::evallog::live_archive`]); a finished log (`header.json`) replaces the running one.
//!
//! Each of them gives the run read so far ([`SoFar`]: what [`super::read`] gives of the same
//! bytes, built from what the reader already parsed) with the numeric QA turns' scores it kept,
//! so that scoring it ([`SoFar::score_in`]) scores only the turns not seen before.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{has, FamilySet, Settings, ALL_FAMILIES};
use crate::diag::Diagnostic;
use crate::evallog::eval_file::ByteSource;
use crate::evallog::live::LogLive;
pub use crate::evallog::live_archive::ArchiveReads;
use crate::evallog::live_archive::EvalLive;
use crate::family::Family;
use crate::live::{LineTail, LiveNumbers, LiveTally};
use crate::numeric_qa::live::QaLive;
use crate::numeric_qa::score::known::KnownTurns;

/// A watched run read so far, with the scores of the numeric QA turns its readers kept as the
/// turns came (none for an eval log: its items are judged by the scores the log records).
pub struct SoFar {
    read: super::ReadRun,
    /// The kept scores, by reader (each holds its own files'); empty for an eval log.
    known: Vec<Arc<KnownTurns>>,
}

impl From<super::ReadRun> for SoFar {
    fn from(read: super::ReadRun) -> SoFar {
        SoFar {
            read,
            known: Vec::new(),
        }
    }
}

impl SoFar {
    /// The run as read.
    pub fn read(&self) -> &super::ReadRun {
        &self.read
    }

    /// Scores the run under `settings`, as [`super::score_in`] does (`None` for another family's
    /// run): a numeric QA turn whose scores were kept under the same tolerances is not scored
    /// again. How many turns were scored, when the run had kept scores (`None`: every item was).
    pub fn score_in<const FAMILIES: FamilySet>(
        self,
        settings: &Settings,
    ) -> Option<(super::ScoredRun, Option<usize>)> {
        match (self.read, self.known) {
            (super::ReadRun::NumericQa(run), known)
                if has(FAMILIES, Family::NumericQa) && !known.is_empty() =>
            {
                let cfg = &settings.numeric_qa;
                let (scored, n) = crate::numeric_qa::score::score_qa_run_known(run, cfg, &known);
                Some((super::ScoredRun::NumericQa(scored), Some(n)))
            }
            (read, _) => Some((super::score_in::<FAMILIES>(read, settings, 1)?, None)),
        }
    }
}

/// A watched file: what it is, its unread tail and its numbers so far.
pub struct LiveRun {
    path: String,
    tail: LineTail,
    /// What the file may be read as, until its first line says what it is.
    pending: Pending,
    reader: Option<Reader>,
    tally: LiveTally,
}

enum Reader {
    Qa(Box<QaLive>),
    Log(Box<LogLive>),
}

/// Why a watched file is not read as it grows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotLive {
    /// Its first line is none of the appendable formats (it is read whole, as any file).
    NotAppendable,
    /// It is no file read on its own as a folder grows (not a trace: it is read whole with the
    /// folder).
    NotAlone,
}

impl LiveRun {
    /// Starts watching `path` (no bytes read yet) with every family.
    pub fn new(path: &str, settings: &Settings) -> LiveRun {
        LiveRun::new_in::<ALL_FAMILIES>(path, settings)
    }

    /// Starts watching `path` with the families of `FAMILIES`; the settings fix the numeric QA
    /// scorer (an eval log is judged by its headline score, as recorded).
    pub fn new_in<const FAMILIES: FamilySet>(path: &str, settings: &Settings) -> LiveRun {
        LiveRun {
            path: path.replace('\\', "/"),
            tail: LineTail::default(),
            pending: Pending {
                qa: has(FAMILIES, Family::NumericQa).then(|| settings.numeric_qa.clone()),
                log: has(FAMILIES, Family::EvalLog),
            },
            reader: None,
            tally: LiveTally::default(),
        }
    }

    /// Reads `bytes`, appended to the file since the last call: the complete lines they end are
    /// read and their new items scored; a line not ended yet is held (never a diagnostic). How
    /// many items were new; `Err` when the file's first line shows it is none of the appendable
    /// formats.
    pub fn append(&mut self, bytes: &[u8]) -> Result<usize, NotLive> {
        let Some((first, lines)) = self.tail.push(bytes) else {
            return Ok(0);
        };
        if self.reader.is_none() {
            // The first non-blank line says which format; the reader reads every line.
            let Some(head) = lines
                .split_inclusive(|&b| b == b'\n')
                .find(|l| !l.trim_ascii().is_empty())
            else {
                // Blank lines only: nothing to read yet, and nothing lost.
                return Ok(0);
            };
            self.reader = Some(
                self.pending
                    .reader(&self.path, head)
                    .ok_or(NotLive::NotAppendable)?,
            );
        }
        Ok(match &mut self.reader {
            Some(Reader::Qa(r)) => r.lines(&lines, &mut self.tally),
            Some(Reader::Log(r)) => r.lines(first, &lines, &mut self.tally),
            None => 0,
        })
    }

    /// The family the file is read as, once its first line was read.
    pub fn family(&self) -> Option<Family> {
        match self.reader.as_ref()? {
            Reader::Qa(_) => Some(Family::NumericQa),
            Reader::Log(_) => Some(Family::EvalLog),
        }
    }

    /// The watched file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The diagnostics of the complete lines read so far (a held line has none).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match &self.reader {
            Some(Reader::Qa(r)) => r.diagnostics(),
            Some(Reader::Log(r)) => r.diagnostics(),
            None => &[],
        }
    }

    /// The file read so far (its complete lines) as run `name`: what [`super::read`] gives for a
    /// folder of that one file holding those lines, built from what was already parsed (the
    /// conversations, the events, the rows: copied and lowered again, no byte read or parsed
    /// again). `None` before a line says what the file is, or when the full read would find
    /// nothing usable (it fails the same way).
    pub fn read_run(&self, name: &str) -> Option<super::ReadRun> {
        match self.reader.as_ref()? {
            Reader::Qa(_) => {
                let (read, _) = self.qa_so_far()?;
                crate::numeric_qa::live::run_of(name, vec![read]).map(super::ReadRun::NumericQa)
            }
            Reader::Log(r) => r
                .read_so_far(name, self.tail.read())
                .map(|l| super::ReadRun::EvalLog(Box::new(l))),
        }
    }

    /// [`LiveRun::read_run`] with the scores of the turns read so far, for [`SoFar::score_in`].
    pub fn so_far(&self, name: &str) -> Option<SoFar> {
        let read = self.read_run(name)?;
        let known = match self.reader.as_ref()? {
            Reader::Qa(r) => vec![r.known().clone()],
            Reader::Log(_) => Vec::new(),
        };
        Some(SoFar { read, known })
    }

    /// The file so far as a numeric QA file's read, with its turns' kept scores; `None` when it
    /// is not (yet) read as a numeric QA file.
    fn qa_so_far(&self) -> Option<(crate::numeric_qa::read::FileRead<'static>, Arc<KnownTurns>)> {
        match self.reader.as_ref()? {
            Reader::Qa(r) => {
                let bytes = usize::try_from(self.tail.read()).unwrap_or(usize::MAX);
                Some((r.read_so_far(bytes), r.known().clone()))
            }
            Reader::Log(_) => None,
        }
    }

    /// The numbers so far.
    pub fn numbers(&self) -> LiveNumbers {
        LiveNumbers {
            diagnostics: self.diagnostics().len() as u64,
            bytes_read: self.tail.read(),
            bytes_held: self.tail.held() as u64,
            ..self.tally.numbers()
        }
    }
}

/// What a watched file may be read as until its first line is read: the family set's readers
/// and their settings.
#[derive(Debug, Clone)]
struct Pending {
    qa: Option<crate::numeric_qa::score::ScoreConfig>,
    log: bool,
}

impl Pending {
    fn reader(&self, path: &str, head: &[u8]) -> Option<Reader> {
        if let Some(cfg) = &self.qa {
            if let Some(r) = QaLive::start(path, head, cfg.clone()) {
                return Some(Reader::Qa(Box::new(r)));
            }
        }
        if self.log {
            if let Some(r) = LogLive::start(path, head) {
                return Some(Reader::Log(Box::new(r)));
            }
        }
        None
    }
}

/// A folder that grows by whole files, each read on its own when it appears or is rewritten: a
/// financial-agent-2 trace folder (`traces/<id>.json`, one conversation a file). Only the new
/// file's items are scored; the folder's numbers are the sums of the files' tallies merged in the
/// order the files came ([`LiveTally::merge`]). After the last change they equal a full read of
/// the same files (the headline's counts; `crates/engine/tests/it/live.rs`).
pub struct LiveFiles {
    /// The numeric QA scorer's settings, when the family set reads traces.
    qa: Option<crate::numeric_qa::score::ScoreConfig>,
    /// The files read, in the order they came: path, bytes, tally, diagnostics.
    files: Vec<WholeFile>,
    /// Each path's place in `files`.
    index: BTreeMap<String, usize>,
    tally: LiveTally,
    /// The scores of the files' turns, each kept as it was scored.
    known: Arc<KnownTurns>,
}

struct WholeFile {
    tally: LiveTally,
    /// The file's read (its report, diagnostics and conversation), as a full read reads it.
    read: crate::numeric_qa::read::FileRead<'static>,
}

impl LiveFiles {
    /// A folder with no file read yet, read with every family.
    pub fn new(settings: &Settings) -> LiveFiles {
        LiveFiles::new_in::<ALL_FAMILIES>(settings)
    }

    /// A folder with no file read yet, read with the families of `FAMILIES` (the settings fix
    /// the numeric QA scorer).
    pub fn new_in<const FAMILIES: FamilySet>(settings: &Settings) -> LiveFiles {
        LiveFiles {
            qa: has(FAMILIES, Family::NumericQa).then(|| settings.numeric_qa.clone()),
            files: Vec::new(),
            index: BTreeMap::new(),
            tally: LiveTally::default(),
            known: Arc::new(KnownTurns::new(&settings.numeric_qa.tolerances)),
        }
    }

    /// Reads file `path` whole (new, or written again): its items are scored and counted, a
    /// rewritten file's in place of those it had. How many items the folder gained (0 when a
    /// rewrite has no more than before); `Err` when the file is not one read on its own (it is
    /// read whole with the folder, as any file).
    pub fn put(&mut self, path: &str, bytes: &[u8]) -> Result<usize, NotLive> {
        let path = path.replace('\\', "/");
        let cfg = self.qa.as_ref().ok_or(NotLive::NotAlone)?;
        let Some((tally, known, read)) = crate::numeric_qa::live::trace_file(&path, bytes, cfg)
        else {
            // A trace written again as something else: read whole with the folder from now on.
            self.forget(&path);
            return Err(NotLive::NotAlone);
        };
        let kept = Arc::make_mut(&mut self.known);
        kept.forget_file(&path);
        kept.extend(&known);
        let n = tally.len();
        let file = WholeFile { tally, read };
        match self.index.get(&path) {
            None => {
                self.tally.merge(&file.tally);
                self.index.insert(path, self.files.len());
                self.files.push(file);
                Ok(n)
            }
            Some(&at) => {
                // Rare (a trace written again): the folder's sums merged again from the files'
                // kept tallies, in order, so they equal those of the files as they are now.
                let before = self.files.get(at).map_or(0, |f| f.tally.len());
                if let Some(slot) = self.files.get_mut(at) {
                    *slot = file;
                }
                self.merge_again();
                Ok(n.saturating_sub(before))
            }
        }
    }

    /// The folder's sums merged again from the files' kept tallies, in order, so they equal
    /// those of the files as they are now.
    fn merge_again(&mut self) {
        let mut total = LiveTally::default();
        for f in &self.files {
            total.merge(&f.tally);
        }
        self.tally = total;
    }

    /// File `path` is read on its own no more (rare: a trace written again as another file).
    fn forget(&mut self, path: &str) {
        let Some(at) = self.index.remove(path) else {
            return;
        };
        Arc::make_mut(&mut self.known).forget_file(path);
        if at < self.files.len() {
            self.files.remove(at);
        }
        for i in self.index.values_mut() {
            if *i > at {
                *i -= 1;
            }
        }
        self.merge_again();
    }

    /// The files read on their own as run `name`: what [`super::read`] gives for a folder of
    /// those files alone, built from their reads (the conversations copied, no byte read or
    /// parsed again). `None` when no file is read yet, or the full read would find no
    /// conversation (it fails the same way).
    pub fn read_run(&self, name: &str) -> Option<super::ReadRun> {
        crate::numeric_qa::live::run_of(name, self.reads()?).map(super::ReadRun::NumericQa)
    }

    /// The files' reads, copied.
    fn reads(&self) -> Option<Vec<crate::numeric_qa::read::FileRead<'static>>> {
        self.files.iter().map(|f| f.read.trace_copy()).collect()
    }

    /// [`LiveFiles::read_run`] with the scores of the files' turns, for [`SoFar::score_in`].
    pub fn so_far(&self, name: &str) -> Option<SoFar> {
        Some(SoFar {
            read: self.read_run(name)?,
            known: vec![self.known.clone()],
        })
    }

    /// The files read on their own so far.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// No file read on its own yet.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Whether file `path` is read on its own.
    pub fn has(&self, path: &str) -> bool {
        self.index.contains_key(&path.replace('\\', "/"))
    }

    /// The diagnostics of the files read, in the order the files came.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.iter().flat_map(|f| f.read.diagnostics.iter())
    }

    /// The folder's numbers so far.
    pub fn numbers(&self) -> LiveNumbers {
        LiveNumbers {
            diagnostics: self
                .files
                .iter()
                .map(|f| f.read.diagnostics.len() as u64)
                .sum(),
            bytes_read: self.files.iter().map(|f| f.read.report.bytes).sum(),
            ..self.tally.numbers()
        }
    }
}

/// An Inspect `.eval` read while it is written: on each change its directory from its end, then
/// only the members not read before, their new samples judged and merged into the tally. After
/// the last change its numbers equal a full read of the archive (`crates/engine/tests/it/live.rs`).
pub struct LiveArchive {
    /// `None` when the family set reads no eval log.
    inner: Option<Box<EvalLive>>,
}

impl LiveArchive {
    /// Starts watching `.eval` `path` (nothing read yet) with every family.
    pub fn new(path: &str) -> LiveArchive {
        LiveArchive::new_in::<ALL_FAMILIES>(path)
    }

    /// Starts watching `.eval` `path` with the families of `FAMILIES` (an Inspect log is judged by
    /// its headline score, as recorded).
    pub fn new_in<const FAMILIES: FamilySet>(path: &str) -> LiveArchive {
        LiveArchive {
            inner: has(FAMILIES, Family::EvalLog).then(|| Box::new(EvalLive::new(path))),
        }
    }

    /// Reads the archive in `src` as it is now: its end records and directory, then the members
    /// not read before (a file that does not end in a readable directory and has at most
    /// `whole_max` bytes is read whole, for its last readable directory). How many items the run
    /// gained; `Err` (what was read before kept) when no directory reads yet, or no header is
    /// written yet.
    pub async fn update<S: ByteSource>(
        &mut self,
        src: &mut S,
        whole_max: u64,
    ) -> Result<usize, String> {
        match &mut self.inner {
            Some(live) => live.update(src, whole_max).await,
            None => Err("eval logs are not read here".into()),
        }
    }

    /// [`LiveArchive::update`] of an archive held in memory.
    pub fn update_bytes(&mut self, bytes: &[u8]) -> Result<usize, String> {
        let mut src = crate::evallog::eval_file::InMemory(bytes);
        crate::evallog::eval_file::now(self.update(&mut src, bytes.len() as u64))
    }

    /// The log read so far as run `name` (a file of `bytes` bytes), as [`super::read`] gives a
    /// folder of this one log: its samples lowered again from the members already parsed,
    /// nothing inflated or parsed again. `None` before its header is read.
    pub fn read_run(&self, name: &str, bytes: u64) -> Option<super::ReadRun> {
        let live = self.inner.as_ref()?;
        let (run, diagnostics) = live.run()?;
        let file = (live.path(), bytes, "inspect-eval");
        let log = crate::evallog::score::one_file_log(name, file, run, diagnostics);
        Some(super::ReadRun::EvalLog(Box::new(log)))
    }

    /// The status the log records (`started` while it runs; `success`, `error`, `cancelled`).
    pub fn status(&self) -> Option<&str> {
        self.inner.as_ref()?.status()
    }

    /// What the last change read: members inflated, bytes asked, whether the file was read whole.
    pub fn last_reads(&self) -> ArchiveReads {
        self.inner
            .as_ref()
            .map(|l| l.last_reads())
            .unwrap_or_default()
    }

    /// Members read so far, and bytes asked of the file in all.
    pub fn read_so_far(&self) -> (usize, u64) {
        self.inner.as_ref().map_or((0, 0), |l| l.read_so_far())
    }

    /// The diagnostics of the members read, and of the directory as last read.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.inner
            .as_ref()
            .map(|l| l.diagnostics().cloned().collect())
            .unwrap_or_default()
    }

    /// The numbers so far, with the total the log declares.
    pub fn numbers(&self) -> LiveNumbers {
        let Some(live) = &self.inner else {
            return LiveNumbers::default();
        };
        LiveNumbers {
            diagnostics: live.diagnostics().count() as u64,
            bytes_read: live.read_so_far().1,
            declared_total: live.declared(),
            ..live.tally().numbers()
        }
    }
}

/// The run so far `name` of a numeric QA folder every file of which a live reader holds: the QA
/// JSONL files of `files` and the traces `traces` read on their own. What [`super::read`] gives
/// of the same bytes, with the turns' kept scores ([`SoFar::score_in`]). `None` when one of
/// `files` is no QA JSONL (yet), or the full read would fail.
pub fn qa_folder_so_far(name: &str, files: &[&LiveRun], traces: &LiveFiles) -> Option<SoFar> {
    let mut reads = traces.reads()?;
    let mut known = vec![traces.known.clone()];
    for f in files {
        let (read, kept) = f.qa_so_far()?;
        reads.push(read);
        known.push(kept);
    }
    let run = crate::numeric_qa::live::run_of(name, reads)?;
    Some(SoFar {
        read: super::ReadRun::NumericQa(run),
        known,
    })
}

/// An eval log read as it grows: an appendable JSONL's reader (OpenAI Evals, promptfoo), or an
/// Inspect `.eval`'s with the file's size.
pub enum LiveLog<'a> {
    Lines(&'a LiveRun),
    Archive(&'a LiveArchive, u64),
}

/// The runs so far of the folder `name` of eval logs `logs` (in the folder's path order), each
/// read as it grows: one run a log, named as [`super::split`] names the parts of the folder (one
/// log: the folder's name) —
/// what [`super::read_parts`] gives of the same bytes. `None` when one is no eval log, or no
/// log is readable yet (the full read would give its files to another log's run).
pub fn log_parts_so_far(name: &str, logs: &[LiveLog<'_>]) -> Option<Vec<SoFar>> {
    // One log is the folder's run, under its name.
    let part_name = |path: &str| match logs.len() {
        1 => name.to_string(),
        _ => crate::evallog::score::part_name(name, path),
    };
    logs.iter()
        .map(|log| {
            let read = match log {
                LiveLog::Lines(r) => {
                    let part = part_name(r.path());
                    match r.reader.as_ref()? {
                        Reader::Log(_) => r.read_run(&part)?,
                        Reader::Qa(_) => return None,
                    }
                }
                LiveLog::Archive(a, bytes) => {
                    let part = part_name(a.inner.as_ref()?.path());
                    a.read_run(&part, *bytes)?
                }
            };
            Some(SoFar::from(read))
        })
        .collect()
}
