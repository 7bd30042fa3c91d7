//! An Inspect `.eval` read through a [`ByteSource`]: the archive is never in memory whole. The
//! end records come from the file's last [`TAIL_LEN`] bytes, the central directory from its own
//! range, and each member from its local header and compressed bytes, so a 1 GB log opens by
//! reading a few MB: [`EvalFile::open`] (directory and header), [`EvalFile::summaries_run`] (the
//! sample table from `summaries.json`, no model output), [`EvalFile::full_run`] (every sample
//! member, a member at a time: the run [`read_eval`] gives, which reads an
//! archive in memory through this same code), [`EvalFile::member`] (one member, for a sample's
//! messages when it is opened).
//!
//! The source is async so that the dashboard's worker can read a `File` a slice at a time
//! (`Blob.slice().arrayBuffer()`); an in-memory source is always ready ([`now`]).

use std::collections::BTreeMap;
use std::future::Future;
use std::ops::ControlFlow;

use super::archive::{
    directory_in, Index, Limits, Locate, LOCAL_HEADER_LEN, TAIL_LEN, ZIP64_EOCD_LEN,
};
use super::inspect::{EvalMembers, EvalPlan, FromSummaries};
use super::long_text::{cut_words, MAX_TEXT_CHARS};
use super::model::EvalLogRun;
use crate::diag::Diagnostic;
use crate::input::InputFile;

/// Random access to a file's bytes.
pub trait ByteSource {
    /// The file's size in bytes.
    fn size(&self) -> u64;
    /// Bytes `[at, at + len)`; an error when they lie past the end of the file.
    fn read(&mut self, at: u64, len: u64) -> impl Future<Output = Result<Vec<u8>, String>>;
}

/// A file in memory as a [`ByteSource`].
pub struct InMemory<'a>(pub &'a [u8]);

impl ByteSource for InMemory<'_> {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    async fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        range(self.0, at, len).map(<[u8]>::to_vec)
    }
}

/// `[at, at + len)` of `bytes`, or why it lies past the end.
pub fn range(bytes: &[u8], at: u64, len: u64) -> Result<&[u8], String> {
    let start = usize::try_from(at).ok();
    let end = at.checked_add(len).and_then(|e| usize::try_from(e).ok());
    start
        .zip(end)
        .and_then(|(s, e)| bytes.get(s..e))
        .ok_or_else(|| past_end(at, len, bytes.len() as u64))
}

/// The message for bytes asked past the end of a file.
pub fn past_end(at: u64, len: u64, size: u64) -> String {
    format!(
        "{len} bytes at offset {at} run past the end of the file ({size} bytes): truncated archive"
    )
}

/// The value of a future that is ready at its first poll (one over an [`InMemory`] source), or
/// an error when it is not.
pub fn now<T>(f: impl Future<Output = Result<T, String>>) -> Result<T, String> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => Err("an in-memory read did not complete at once".into()),
    }
}

/// Reads an Inspect `.eval` archive held in memory, through the same code that reads a big one
/// a slice at a time ([`EvalFile`]).
pub fn read_eval(file: &InputFile) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = file.path.as_str();
    let mut src = InMemory(&file.bytes);
    let stalled = |e: String| vec![Diagnostic::error(path, None, e)];
    let opened = now(async { Ok(EvalFile::open(&mut src, path).await) }).map_err(stalled)??;
    now(async {
        Ok(opened
            .full_run(&mut src, &mut |_, _| std::ops::ControlFlow::Continue(()))
            .await)
    })
    .map_err(stalled)?
}

/// The central directory of the zip archive in `src`, read from its end records (its last
/// [`TAIL_LEN`] bytes, and its zip64 end record when it has one) and the directory's own range:
/// never the whole archive. `Err` when there is no usable directory.
pub async fn read_index<S: ByteSource>(src: &mut S) -> Result<Index, String> {
    let size = src.size();
    let base = size.saturating_sub(TAIL_LEN);
    let tail = src.read(base, size - base).await?;
    let outside = |at: u64| format!("zip64 end record at offset {at} lies outside the file");
    let dir = match directory_in(&tail, base, None) {
        Ok(d) => d,
        Err(Locate::Zip64RecordAt(at)) => {
            let record = src
                .read(at, ZIP64_EOCD_LEN)
                .await
                .map_err(|_| outside(at))?;
            directory_in(&tail, base, Some((at, &record))).map_err(|e| match e {
                Locate::Broken(e) => e,
                Locate::Zip64RecordAt(at) => outside(at),
            })?
        }
        Err(Locate::Broken(e)) => return Err(e),
    };
    drop(tail);
    let (start, end) = Index::directory_range(&dir, size)?;
    let cd = src.read(start, end - start).await?;
    Index::read(&cd, &dir, size, Limits::default())
}

/// Where member `entry`'s compressed bytes lie in `src` — `(offset, length)` — from its local
/// header.
pub async fn member_range<S: ByteSource>(
    src: &mut S,
    entry: &super::archive::Entry,
) -> Result<(u64, u64), String> {
    let local = src
        .read(entry.local_header_offset, LOCAL_HEADER_LEN)
        .await
        .map_err(|_| format!("no local header at offset {}", entry.local_header_offset))?;
    Index::data_range(entry, &local)
}

/// An Inspect `.eval` opened through its central directory.
pub struct EvalFile {
    pub path: String,
    pub index: Index,
    pub plan: EvalPlan,
    /// The header members' bytes (`header.json`, `_journal/start.json`), read at open.
    header: BTreeMap<String, Result<Vec<u8>, String>>,
    /// What was cut in the header members' texts.
    header_cuts: Vec<Diagnostic>,
}

impl EvalFile {
    /// Reads the end records, the central directory and the header members of the `.eval` in
    /// `src` (named `path` in diagnostics). `Err` when there is no usable directory.
    pub async fn open<S: ByteSource>(src: &mut S, path: &str) -> Result<EvalFile, Vec<Diagnostic>> {
        let index = read_index(src)
            .await
            .map_err(|e| vec![Diagnostic::error(path, None, e)])?;
        let plan = EvalPlan::of(&index);
        let mut file = EvalFile {
            path: path.to_string(),
            index,
            plan,
            header: BTreeMap::new(),
            header_cuts: Vec::new(),
        };
        for name in file.plan.header.clone() {
            let mut cuts = Vec::new();
            if let Some(bytes) = file.read_member(src, &name, &mut cuts).await {
                file.header.insert(name, bytes);
            }
            file.header_cuts.extend(cuts);
        }
        Ok(file)
    }

    /// The decompressed JSON of member `name` (`None` when the archive has none), every text
    /// in it past [`MAX_TEXT_CHARS`] characters cut as it is inflated, with a note giving its
    /// length ([`super::long_text`]): what a sample's drawer reads.
    pub async fn member<S: ByteSource>(
        &self,
        src: &mut S,
        name: &str,
    ) -> Option<Result<Vec<u8>, String>> {
        Some(self.member_cut(src, name).await?.map(|(bytes, _)| bytes))
    }

    /// [`EvalFile::member`], and the diagnostic that says which texts were cut, if any.
    pub async fn member_cut<S: ByteSource>(
        &self,
        src: &mut S,
        name: &str,
    ) -> Option<Result<(Vec<u8>, Option<Diagnostic>), String>> {
        let entry = self.index.get(name)?;
        Some(
            async {
                let (at, len) = member_range(src, entry).await?;
                let data = src
                    .read(at, len)
                    .await
                    .map_err(|_| Index::data_past_end((at, len), src.size()))?;
                let (bytes, cuts) = self.index.decode_json(entry, &data, MAX_TEXT_CHARS)?;
                let said = cut_words(&cuts, MAX_TEXT_CHARS)
                    .map(|w| Diagnostic::warning(&self.path, None, w).with_record(name));
                Ok((bytes, said))
            }
            .await,
        )
    }

    /// Member `name` for a reader: its bytes (or why they could not be read), the diagnostic of
    /// its cut texts pushed onto `diags`.
    async fn read_member<S: ByteSource>(
        &self,
        src: &mut S,
        name: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Result<Vec<u8>, String>> {
        Some(self.member_cut(src, name).await?.map(|(bytes, said)| {
            diags.extend(said);
            bytes
        }))
    }

    fn start(&self) -> Result<EvalMembers, Vec<Diagnostic>> {
        let header = |name: &str| self.header.get(name).cloned();
        let mut log = EvalMembers::start(&self.path, &self.index, &header)?;
        log.diagnostics(self.header_cuts.iter().cloned());
        Ok(log)
    }

    /// The run from the header and the summaries alone (scores, inputs, targets; no model
    /// output): `None` when the log has no summaries or no sample members (then
    /// [`EvalFile::full_run`] reads what there is).
    pub async fn summaries_run<S: ByteSource>(
        &self,
        src: &mut S,
    ) -> Option<Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>>> {
        if self.plan.summaries.is_empty() || self.plan.samples.is_empty() {
            return None;
        }
        let mut log = match self.start() {
            Ok(l) => l,
            Err(d) => return Some(Err(d)),
        };
        for name in &self.plan.summaries {
            let mut cuts = Vec::new();
            if let Some(bytes) = self.read_member(src, name, &mut cuts).await {
                log.summaries(name, bytes);
            }
            log.diagnostics(cuts);
        }
        Some(Ok(log.finish(FromSummaries::First)))
    }

    /// The run from every sample member (or the summaries when there is none), `progress`
    /// called with (members read, members to read) after each; reading stops (an `Err`) when it
    /// says [`ControlFlow::Break`].
    pub async fn full_run<S: ByteSource>(
        &self,
        src: &mut S,
        progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    ) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
        let mut log = self.start()?;
        let total = self.plan.samples.len();
        for (k, name) in self.plan.samples.iter().enumerate() {
            let mut cuts = Vec::new();
            if let Some(bytes) = self.read_member(src, name, &mut cuts).await {
                log.sample(name, bytes);
            }
            log.diagnostics(cuts);
            if progress(k + 1, total).is_break() {
                return Err(vec![Diagnostic::error(
                    &self.path,
                    None,
                    format!("reading stopped after {} of {total} samples", k + 1),
                )]);
            }
        }
        log.samples_done(self.plan.chunk_parts);
        if log.n_samples() == 0 {
            for name in &self.plan.summaries {
                let mut cuts = Vec::new();
                if let Some(bytes) = self.read_member(src, name, &mut cuts).await {
                    log.summaries(name, bytes);
                }
                log.diagnostics(cuts);
            }
        }
        Ok(log.finish(FromSummaries::NoSampleMembers))
    }
}
