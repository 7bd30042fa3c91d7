//! An Inspect `.eval` read while Inspect writes it ([`crate::run::live::LiveArchive`]). Each
//! change is read from the archive's end: its end records and central directory
//! ([`super::eval_file::read_index`]), then only the members not read before — a member is known
//! by its name, local header offset, CRC-32 and compressed size, so one written again (a re-run
//! sample, a header replaced) is read again. The header comes from `_journal/start.json` while the
//! run goes on and from `header.json` once it finished (the finished log then replaces the
//! running one: every kept sample judged again under its recorded headline); the samples from
//! `samples/*.json` (or, while the archive has none, the journal's `_journal/summaries/<k>.json`).
//! Only new samples are lowered and judged into the [`LiveTally`]; a sample is inflated and parsed
//! once. When the end does not read (a writer caught rewriting it), the whole file is read and its
//! last readable directory used ([`super::archive::last_readable`]); when none reads, the state
//! stays that of the last readable one. After the last change the numbers equal a full read of the
//! archive (`crates/engine/tests/it/live.rs`).

use std::collections::BTreeMap;

use super::archive::{last_readable, Entry, Index, Limits};
use super::eval_file::{member_range, read_index, ByteSource, InMemory};
use super::inspect::{
    self, lower, EvalPlan, RawLog, RawSample, SampleContext, FROM_START, FROM_SUMMARIES,
};
use super::long_text::MAX_TEXT_CHARS;
use super::model::{EvalLogRun, MetricKey, Sample};
use crate::diag::Diagnostic;
use crate::live::{LiveFailure, LiveItem, LiveTally};

/// A member as read: its local header offset, CRC-32 and compressed size.
type MemberId = (u64, u32, u64);

fn id_of(e: &Entry) -> MemberId {
    (e.local_header_offset, e.crc32, e.compressed_size)
}

/// What the last change read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArchiveReads {
    /// Members inflated and parsed.
    pub members: usize,
    /// Bytes asked of the file (end records, directory, members).
    pub bytes: u64,
    /// The end did not read: the whole file was read for its last readable directory.
    pub whole: bool,
}

/// A watched Inspect `.eval`: the members read, their parsed header and samples, the tally.
pub struct EvalLive {
    path: String,
    /// Each member read, as it was when read.
    seen: BTreeMap<String, MemberId>,
    /// The header and the member it came from (`header.json`, else `_journal/start.json`).
    header: Option<(String, RawLog)>,
    context: Option<SampleContext>,
    /// The headline score the samples are judged by, the status, the total declared.
    judge: Option<MetricKey>,
    status: Option<String>,
    declared: Option<u64>,
    /// Sample members parsed, in the order they came; a name's place.
    samples: Vec<(String, RawSample)>,
    places: BTreeMap<String, usize>,
    /// Journal summaries by (id, epoch), the last one winning: the samples while no sample
    /// member is written.
    summaries: BTreeMap<(String, String), (String, RawSample)>,
    tally: LiveTally,
    /// Problems of the members read (a member that does not parse or inflate).
    diags: Vec<Diagnostic>,
    /// The directory's own warnings, as last read.
    index_diags: Vec<Diagnostic>,
    last: ArchiveReads,
    bytes_total: u64,
}

/// A [`ByteSource`] that counts the bytes asked of it.
struct Counting<'a, S> {
    src: &'a mut S,
    bytes: u64,
}

impl<S: ByteSource> ByteSource for Counting<'_, S> {
    fn size(&self) -> u64 {
        self.src.size()
    }
    async fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        self.bytes = self.bytes.saturating_add(len);
        self.src.read(at, len).await
    }
}

impl EvalLive {
    /// A watched `.eval` at `path`, nothing read yet.
    pub fn new(path: &str) -> EvalLive {
        EvalLive {
            path: path.replace('\\', "/"),
            seen: BTreeMap::new(),
            header: None,
            context: None,
            judge: None,
            status: None,
            declared: None,
            samples: Vec::new(),
            places: BTreeMap::new(),
            summaries: BTreeMap::new(),
            tally: LiveTally::default(),
            diags: Vec::new(),
            index_diags: Vec::new(),
            last: ArchiveReads::default(),
            bytes_total: 0,
        }
    }

    /// Reads the archive in `src` as it is now: its directory from its end, then only the members
    /// not read before. When the end does not read and the file is at most `whole_max` bytes,
    /// the whole file is read and its last readable directory used. How many items the run
    /// gained; `Err` (the state left as it was) when no directory reads, or the archive has no
    /// header yet.
    pub async fn update<S: ByteSource>(
        &mut self,
        src: &mut S,
        whole_max: u64,
    ) -> Result<usize, String> {
        let mut src = Counting { src, bytes: 0 };
        let size = src.size();
        self.last = ArchiveReads::default();
        let result = match read_index(&mut src).await {
            Ok(index) => self.apply(&index, &mut src).await,
            Err(e) if size <= whole_max => {
                let whole = src.read(0, size).await?;
                self.last.whole = true;
                match last_readable(&whole, Limits::default()) {
                    Ok(index) => self.apply(&index, &mut InMemory(&whole)).await,
                    Err(_) => Err(e),
                }
            }
            Err(e) => Err(e),
        };
        self.last.bytes = src.bytes;
        self.bytes_total = self.bytes_total.saturating_add(src.bytes);
        result
    }

    /// The members of `index` not read before, read from `src`.
    async fn apply<S: ByteSource>(&mut self, index: &Index, src: &mut S) -> Result<usize, String> {
        let plan = EvalPlan::of(index);
        // A sample member gone (another log written in its place): read anew.
        if self.places.keys().any(|n| index.get(n).is_none()) {
            let path = std::mem::take(&mut self.path);
            *self = EvalLive::new(&path);
        }
        let before = self.tally.len();
        let mut again = false;
        // The header: the finished log's when there is one.
        let Some(head) = plan.header.first() else {
            return Err("neither header.json nor _journal/start.json is written yet".into());
        };
        if let Some(entry) = self.changed(index, head) {
            let bytes = self.member(index, entry, src).await;
            let Some(mut log) = self.parse::<RawLog>(head, bytes, "not an Inspect log header")
            else {
                return Err(format!("{head} does not read yet"));
            };
            if head != "header.json" {
                log.status
                    .get_or_insert(serde_json::Value::String("started".into()));
            }
            self.seen.insert(head.clone(), id_of(entry));
            let mut scratch = Vec::new();
            let run = lower(&self.path, log.clone(), Vec::new(), &mut scratch);
            (self.judge, self.status, self.declared) =
                (run.primary, run.status, run.declared_samples);
            self.context = Some(SampleContext::of(&log));
            self.header = Some((head.clone(), log));
            again = true;
        }
        for name in &plan.samples {
            let Some(entry) = self.changed(index, name) else {
                continue;
            };
            let bytes = self.member(index, entry, src).await;
            self.seen.insert(name.clone(), id_of(entry));
            let Some(sample) = self.parse::<RawSample>(name, bytes, "sample does not parse") else {
                continue;
            };
            match self.places.get(name) {
                Some(&at) => {
                    if let Some(slot) = self.samples.get_mut(at) {
                        slot.1 = sample;
                    }
                    again = true;
                }
                None => {
                    self.places.insert(name.clone(), self.samples.len());
                    self.samples.push((name.clone(), sample.clone()));
                    if !again && self.samples.len() > 1 {
                        self.count(name, sample);
                    } else {
                        // The first sample member: the summaries counted until now give way.
                        again = true;
                    }
                }
            }
        }
        // The summaries, while no sample member is written (a full read's rule).
        if self.samples.is_empty() {
            for name in &plan.summaries {
                let Some(entry) = self.changed(index, name) else {
                    continue;
                };
                let bytes = self.member(index, entry, src).await;
                self.seen.insert(name.clone(), id_of(entry));
                let list = self.parse::<Vec<RawSample>>(name, bytes, "summaries do not parse");
                for s in list.into_iter().flatten() {
                    self.summaries.insert(s.id_epoch(), (name.clone(), s));
                }
                again = true;
            }
        }
        if again {
            self.recount();
        }
        self.index_diags = index
            .warnings
            .iter()
            .map(|w| Diagnostic::warning(&self.path, None, w.clone()))
            .collect();
        Ok(self.tally.len().saturating_sub(before))
    }

    /// `name`'s entry when the member is in the archive and not read as it is now.
    fn changed<'i>(&self, index: &'i Index, name: &str) -> Option<&'i Entry> {
        let entry = index.get(name)?;
        (self.seen.get(name) != Some(&id_of(entry))).then_some(entry)
    }

    /// Member `entry` inflated (its texts past [`MAX_TEXT_CHARS`] cut), or why it could not be.
    async fn member<S: ByteSource>(
        &mut self,
        index: &Index,
        entry: &Entry,
        src: &mut S,
    ) -> Result<Vec<u8>, String> {
        self.last.members += 1;
        let (at, len) = member_range(src, entry).await?;
        let data = src
            .read(at, len)
            .await
            .map_err(|_| Index::data_past_end((at, len), src.size()))?;
        Ok(index.decode_json(entry, &data, MAX_TEXT_CHARS)?.0)
    }

    /// A member's bytes parsed as `T` (the whole read's [`inspect::parse_member`]).
    fn parse<T: serde::de::DeserializeOwned>(
        &mut self,
        name: &str,
        bytes: Result<Vec<u8>, String>,
        what: &str,
    ) -> Option<T> {
        inspect::parse_member(&self.path, &mut self.diags, name, bytes, what)
    }

    /// Lowers and judges one new sample into the tally.
    fn count(&mut self, record: &str, raw: RawSample) {
        let Some(context) = &self.context else { return };
        let mut scratch = Vec::new();
        if let Some(sample) = context.lower(&self.path, record, raw, &mut scratch) {
            push(&mut self.tally, &sample, self.judge.as_ref());
        }
    }

    /// The tally again from every kept sample (the header changed, a sample was written again,
    /// the summaries gave way to the samples): rare.
    fn recount(&mut self) {
        self.tally = LiveTally::default();
        let Some(context) = &self.context else { return };
        let raws = if self.samples.is_empty() {
            self.summaries.values().cloned().collect()
        } else {
            self.samples.clone()
        };
        let mut scratch = Vec::new();
        for (record, raw) in raws {
            if let Some(sample) = context.lower(&self.path, &record, raw, &mut scratch) {
                push(&mut self.tally, &sample, self.judge.as_ref());
            }
        }
    }

    /// The log as read so far, as a full read of the same members gives it: its samples lowered
    /// again from the parsed members kept (nothing inflated or parsed again); `None` before a
    /// header is read.
    pub fn run(&self) -> Option<(EvalLogRun, Vec<Diagnostic>)> {
        let (member, header) = self.header.as_ref()?;
        let mut diags: Vec<Diagnostic> = self.diagnostics().cloned().collect();
        if member != "header.json" {
            diags.push(Diagnostic::warning(&self.path, None, FROM_START));
        }
        let raws = if self.samples.is_empty() {
            if !self.summaries.is_empty() {
                diags.push(Diagnostic::warning(&self.path, None, FROM_SUMMARIES));
            }
            self.summaries.values().cloned().collect()
        } else {
            self.samples.clone()
        };
        let mut run = lower(&self.path, header.clone(), raws, &mut diags);
        run.explain_not_recomputed();
        Some((run, diags))
    }

    /// The watched file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The run's numbers so far.
    pub fn tally(&self) -> &LiveTally {
        &self.tally
    }

    /// The status the log records: `started` while it runs, then `success`, `error` or
    /// `cancelled`.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// The items the log says it will hold (its samples × epochs).
    pub fn declared(&self) -> Option<u64> {
        self.declared
    }

    /// The problems of the members read and of the directory.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.index_diags.iter().chain(self.diags.iter())
    }

    /// What the last change read.
    pub fn last_reads(&self) -> ArchiveReads {
        self.last
    }

    /// Members read so far (each as it is now), and bytes asked of the file in all.
    pub fn read_so_far(&self) -> (usize, u64) {
        (self.seen.len(), self.bytes_total)
    }
}

/// Counts `sample`, judged by `judge` (the log's headline score), as a full read judges it.
fn push(tally: &mut LiveTally, sample: &Sample, judge: Option<&MetricKey>) {
    if judge.is_some_and(|k| !super::score::in_slice(sample, k)) {
        return;
    }
    let reading = judge.and_then(|k| super::score::reading_of(sample, k));
    let item = LiveItem {
        reading,
        errored: sample.error.is_some(),
        latency_ms: sample.latency.map(|s| s * 1000.0),
    };
    if reading.is_some_and(|r| r >= 1.0) || (reading.is_none() && !item.errored) {
        return tally.push(item);
    }
    tally.push_wrong(item, || {
        let expected = (!sample.target.is_empty()).then(|| sample.target.join(" | "));
        LiveFailure::new(
            super::score::item_key(&sample.key),
            sample.output.as_deref(),
            expected.as_deref(),
        )
    });
}
