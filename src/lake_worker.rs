//! The lake worker: a Web Worker started by the main worker on the first drop of a results lake
//! (a folder holding `evalboard-lake.json`, `lake_host`). It carries the Parquet reader
//! (`evalboard_lake`, zstd included), so neither the page nor the main worker pays for it.
//!
//! A drop: the manifest is read and checked (schema version), then the `runs` and `aggregates`
//! files whole, each against its size and SHA-256; every other file by its size. Each run the
//! manifest lists is posted as a run of the `Load` (`RunInfo::part_of`). A run's `samples` and
//! `verdicts` are read when its Items are first asked for, and its `sample_text` when an item is
//! first opened: each file's footer, then only the row groups whose `run_id` statistics may hold
//! the run (`evalboard_lake::slices`), through `File.slice`. The screens are
//! [`crate::lake_view`]'s.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::lake::schema::{AGGREGATES, RUNS, SAMPLES, SAMPLE_TEXT, VERDICTS};
use evalboard_engine::lake::{Table, TableSchema};
use evalboard_lake::{slices, FileEntry, Manifest, MANIFEST_FILE};

use crate::js_error::js_err;
use crate::lake_host::{run_message, READY};
use crate::lake_view::{self, RunItems};
use crate::protocol::{Request, Response, RunId, ScreenQuery};
use crate::worker::runtime::{
    decode_or_report, listen, no_run, post, post_load_refused, post_progress,
};

/// Runs one `Load` may list: their ids are the `Load`'s parts (`protocol::part_id`).
const MAX_RUNS: usize = 1024;

/// A dropped lake: its manifest, its files as dropped, and the tables read whole.
struct Lake {
    /// The folder's name as dropped (the `Load`'s name): files are named under it.
    name: String,
    /// What the dropped paths start with before the manifest's relative paths.
    prefix: String,
    manifest: Manifest,
    /// `(dropped path, File or bytes)`.
    sources: Vec<(String, JsValue)>,
    runs: Table,
    aggregates: Option<Table>,
    /// The files that did not open, each naming its file.
    problems: Vec<String>,
}

impl Lake {
    /// How messages name the file `f`: under the dropped folder's name.
    fn shown(&self, f: &FileEntry) -> String {
        format!("{}/{}{}", self.name, self.prefix, f.path)
    }

    fn source(&self, f: &FileEntry) -> Option<&JsValue> {
        let path = format!("{}{}", self.prefix, f.path);
        self.sources
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, s)| s)
    }

    /// The manifest's files of table `schema`.
    fn files_of<'a>(&'a self, schema: &TableSchema) -> impl Iterator<Item = &'a FileEntry> + 'a {
        let table = schema.name;
        self.manifest.files.iter().filter(move |f| f.table == table)
    }

    /// The file `f` as dropped, with its name and size; an error naming it when it was not.
    fn file(&self, f: &FileEntry) -> Result<(String, &JsValue, u64), String> {
        let name = self.shown(f);
        match self.source(f) {
            Some(src) => Ok((name, src, size_of(src).unwrap_or(0))),
            None => Err(format!(
                "{name}: listed in the manifest, but not among the dropped files"
            )),
        }
    }
}

struct Run {
    id: RunId,
    lake: Rc<Lake>,
    /// The run's `run_id` in the lake and its row in `runs`.
    run_id: String,
    row: usize,
    items: Option<RunItems>,
    /// Being loaded into the workspace (its rows read), or loaded: the main worker holds it.
    to_workspace: Move,
}

/// Where a lake run is on its way into the workspace ([`to_workspace`]).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Move {
    #[default]
    Here,
    Moving,
    Moved,
}

#[derive(Default)]
struct State {
    runs: Vec<Run>,
    /// Requests that wait for runs on their way into the workspace: handed back once none is.
    waiting: Vec<Request>,
}

/// Entry point of the lake worker binary.
pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
    let scope = listen(move |scope, e| handle(scope, &state, e));
    let _ = scope.post_message(&JsValue::from_str(READY));
}

fn size_of(src: &JsValue) -> Option<u64> {
    if let Some(b) = src.dyn_ref::<Blob>() {
        let s = b.size();
        return (s.is_finite() && s >= 0.0).then_some(s as u64);
    }
    src.dyn_ref::<ArrayBuffer>()
        .map(|b| u64::from(b.byte_length()))
}

/// Bytes `[at, at + len)` of a dropped file (`File.slice`) or of bytes the page held.
async fn read_range(src: &JsValue, at: u64, len: u64) -> Result<Vec<u8>, String> {
    let size = size_of(src).ok_or("neither a file nor bytes")?;
    let end = at
        .checked_add(len)
        .filter(|e| *e <= size)
        .ok_or_else(|| format!("bytes {at}..{} are past its end ({size} bytes)", at + len))?;
    if let Some(b) = src.dyn_ref::<Blob>() {
        let part = b
            .slice_with_f64_and_f64(at as f64, end as f64)
            .map_err(js_err)?;
        let buf = JsFuture::from(part.array_buffer()).await.map_err(js_err)?;
        let a = Uint8Array::new(&buf);
        if u64::from(a.length()) != len {
            return Err("the file changed while it was being read".into());
        }
        return Ok(a.to_vec());
    }
    let Some(b) = src.dyn_ref::<ArrayBuffer>() else {
        return Err("neither a file nor bytes".into());
    };
    let (Ok(at), Ok(len)) = (u32::try_from(at), u32::try_from(len)) else {
        return Err("too big for the browser's memory".into());
    };
    Ok(Uint8Array::new_with_byte_offset_and_length(b, at, len).to_vec())
}

/// The table `schema` of the lake read whole (every file of it, each checked against its size,
/// SHA-256 and rows); an error naming the file.
async fn whole_table(lake: &Lake, schema: &'static TableSchema) -> Result<Table, String> {
    let mut all = Table::new(schema);
    for f in lake.files_of(schema) {
        let (name, src, size) = lake.file(f)?;
        let bytes = read_range(src, 0, size)
            .await
            .map_err(|e| format!("{name}: {e}"))?;
        let t =
            evalboard_lake::decode_listed(f, bytes, schema, &name).map_err(|e| e.to_string())?;
        all.rows.extend(t.rows);
    }
    Ok(all)
}

/// Some runs' rows of table `schema`: each file's footer, then the row groups that may hold
/// one of them.
async fn run_rows(
    lake: &Lake,
    schema: &'static TableSchema,
    run_ids: &[&str],
) -> Result<Table, String> {
    let wanted: std::collections::HashSet<&str> = run_ids.iter().copied().collect();
    let mut all = Table::new(schema);
    for f in lake.files_of(schema) {
        let (name, src, len) = lake.file(f)?;
        evalboard_lake::check_size(f, len, &name).map_err(|e| e.to_string())?;
        let e = |m: String| format!("{name}: {m}");
        let tail = read_range(
            src,
            len.saturating_sub(slices::TAIL_LEN),
            slices::TAIL_LEN.min(len),
        )
        .await
        .map_err(e)?;
        let meta_at = slices::metadata_range(&tail, len, &name).map_err(|e| e.to_string())?;
        let meta = read_range(src, meta_at.start, meta_at.end - meta_at.start)
            .await
            .map_err(e)?;
        let plan = slices::plan(&meta, run_ids, len, &name).map_err(|e| e.to_string())?;
        if plan.groups.is_empty() {
            continue;
        }
        let mut parts = Vec::with_capacity(plan.ranges.len() + 1);
        for r in &plan.ranges {
            parts.push((
                r.start,
                read_range(src, r.start, r.end - r.start).await.map_err(e)?,
            ));
        }
        let mut footer = meta;
        footer.extend_from_slice(&tail);
        parts.push((meta_at.start, footer));
        let t = slices::decode_groups(parts, len, &plan.groups, schema, &name)
            .map_err(|e| e.to_string())?;
        all.rows.extend(t.rows.into_iter().filter(|r| {
            matches!(r.first(), Some(evalboard_engine::lake::Cell::Str(id)) if wanted.contains(id.as_str()))
        }));
    }
    Ok(all)
}

/// A dropped file or bytes as the zip reader reads them.
struct Source<'a>(&'a JsValue);

impl evalboard_engine::evallog::eval_file::ByteSource for Source<'_> {
    fn size(&self) -> u64 {
        size_of(self.0).unwrap_or(0)
    }
    async fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        read_range(self.0, at, len).await
    }
}

/// Whether the `Load` is one `.zip` file (a lake zipped: its members are the lake's files).
fn zip_of(sources: &[(String, JsValue)]) -> Option<&JsValue> {
    match sources {
        [(path, src)] if path.to_ascii_lowercase().ends_with(".zip") => Some(src),
        _ => None,
    }
}

/// The members of a zipped lake as dropped files, by their paths in the archive: a stored
/// member is its range of the zip (`File.slice`, read when needed, as a dropped file is); a
/// compressed one is inflated now (its CRC-32 checked; bounded by the zip reader's caps).
async fn zip_sources(zip: &JsValue) -> Result<Vec<(String, JsValue)>, String> {
    use evalboard_engine::evallog::archive::Method;
    use evalboard_engine::evallog::eval_file::{member_range, read_index};
    let mut src = Source(zip);
    let index = read_index(&mut src).await?;
    let mut out = Vec::new();
    for entry in index.entries.iter().filter(|e| !e.name.ends_with('/')) {
        let e = |m: String| format!("{}: {m}", entry.name);
        let (at, len) = member_range(&mut src, entry).await.map_err(e)?;
        let file = match (entry.method, zip.dyn_ref::<Blob>()) {
            (Method::Stored, Some(b)) => b
                .slice_with_f64_and_f64(at as f64, at.saturating_add(len) as f64)
                .map_err(js_err)
                .map_err(e)?
                .into(),
            _ => {
                let data = read_range(zip, at, len).await.map_err(e)?;
                let bytes = index.decode(entry, &data).map_err(e)?;
                Uint8Array::from(bytes.as_slice()).buffer().into()
            }
        };
        out.push((entry.name.clone(), file));
    }
    Ok(out)
}

/// The dropped Parquet files (no lake manifest beside them) as the lm-eval samples JSONL they
/// were converted from (`evalboard_lake::details::samples_jsonl`, the CLI's conversion): each
/// `(path, bytes)`; an error naming a file that is not lm-eval details or does not read. A file
/// that is not Parquet at all is passed on as it is.
async fn details(
    name: &str,
    sources: &[(String, JsValue)],
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    for (path, src) in sources {
        let shown = format!("{name}/{path}");
        let bytes = read_range(src, 0, size_of(src).unwrap_or(0))
            .await
            .map_err(|e| format!("{shown}: {e}"))?;
        // Not Parquet at all: converted already (a kept run's files, loaded again).
        if !evalboard_lake::details::is_parquet(&bytes) {
            out.push((path.clone(), bytes));
            continue;
        }
        match evalboard_lake::details::samples_jsonl(&bytes, &shown) {
            Ok(Some(jsonl)) => out.push((path.clone(), jsonl)),
            Ok(None) => {
                return Err(format!(
                    "{shown}: a Parquet file that is neither a results lake's (no \
                     {MANIFEST_FILE} was dropped with it) nor lm-eval details (no doc_id with \
                     doc, resps, filtered_resps or filter)"
                ))
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(out)
}

/// Hands the `Load` back to the main worker with its converted files
/// ([`crate::lake_host::CONVERTED`]): it loads them as dropped files.
fn hand_back(
    scope: &DedicatedWorkerGlobalScope,
    (run_id, name): (RunId, String),
    files: Vec<(String, Vec<u8>)>,
) {
    let request = Request::Load {
        run_id,
        name: name.clone(),
        paths: files.iter().map(|(p, _)| p.clone()).collect(),
        demo: false,
        stored: None,
    };
    let buffers = files.iter().map(|(_, b)| b.as_slice()).collect::<Vec<_>>();
    if let Err(e) = post_back(scope, &request, &buffers) {
        post_load_refused(scope, run_id, name, e);
    }
}

/// Posts `request` with `files` to the main worker ([`crate::lake_host::CONVERTED`]), which
/// takes it as the page's message.
fn post_back(
    scope: &DedicatedWorkerGlobalScope,
    request: &Request,
    files: &[&[u8]],
) -> Result<(), String> {
    let bytes = Uint8Array::from(crate::protocol::encode(request)?.as_slice());
    let buffers: js_sys::Array = files
        .iter()
        .map(|b| JsValue::from(Uint8Array::from(*b).buffer()))
        .collect();
    let msg = js_sys::Array::of3(
        &JsValue::from_str(crate::lake_host::CONVERTED),
        &bytes,
        &buffers,
    );
    scope
        .post_message_with_transfer(&msg, &buffers)
        .map_err(|e| format!("{e:?}"))
}

/// Reads a dropped lake and lists its runs.
async fn open(
    scope: DedicatedWorkerGlobalScope,
    state: Rc<RefCell<State>>,
    (run_id, name): (RunId, String),
    sources: Vec<(String, JsValue)>,
) {
    let failed = |error: String| post_load_refused(&scope, run_id, name.clone(), error);
    let zipped = zip_of(&sources).is_some();
    let sources = match zip_of(&sources) {
        Some(zip) => match zip_sources(zip).await {
            Ok(s) => s,
            Err(e) => return failed(format!("{name}: {e}")),
        },
        None => sources,
    };
    let Some((mpath, msrc)) = sources
        .iter()
        .filter(|(p, _)| p.rsplit('/').next() == Some(MANIFEST_FILE))
        .min_by_key(|(p, _)| p.len())
    else {
        if !zipped && !sources.is_empty() {
            // Parquet files with no manifest: foreign per-sample Parquet (lm-eval details).
            return match details(&name, &sources).await {
                Ok(back) => hand_back(&scope, (run_id, name.clone()), back),
                Err(e) => failed(e),
            };
        }
        return failed(format!("no {MANIFEST_FILE} among the dropped files"));
    };
    let prefix = mpath[..mpath.len() - MANIFEST_FILE.len()].to_string();
    post_progress(&scope, run_id, "reading the lake's manifest", (0, 3));
    let size = size_of(msrc).unwrap_or(0);
    let manifest = match read_range(msrc, 0, size).await {
        Ok(b) => match Manifest::parse(&b, &format!("{name}/{mpath}")) {
            Ok(m) => m,
            Err(e) => return failed(e.to_string()),
        },
        Err(e) => return failed(format!("{name}/{mpath}: {e}")),
    };
    let mut lake = Lake {
        name: name.clone(),
        prefix,
        manifest,
        sources,
        runs: Table::new(&RUNS),
        aggregates: None,
        problems: Vec::new(),
    };
    post_progress(&scope, run_id, "reading the lake's runs", (1, 3));
    lake.runs = match whole_table(&lake, &RUNS).await {
        Ok(t) => t,
        Err(e) => return failed(e),
    };
    post_progress(&scope, run_id, "reading the lake's aggregates", (2, 3));
    match whole_table(&lake, &AGGREGATES).await {
        Ok(t) => lake.aggregates = Some(t),
        Err(e) => lake.problems.push(e),
    }
    // The files read when a run is opened: checked by their size now (their hash needs every
    // byte).
    for f in &lake.manifest.files {
        if [SAMPLES.name, VERDICTS.name, SAMPLE_TEXT.name].contains(&f.table.as_str()) {
            let problem = lake.file(f).and_then(|(name, _, len)| {
                evalboard_lake::check_size(f, len, &name).map_err(|e| e.to_string())
            });
            lake.problems.extend(problem.err());
        }
    }
    let mut listed = lake_view::listed(&lake.manifest);
    if listed.len() > MAX_RUNS {
        lake.problems.push(format!(
            "{}/{}{MANIFEST_FILE}: {} runs; the dashboard lists the first {MAX_RUNS}",
            lake.name,
            lake.prefix,
            listed.len()
        ));
        listed.truncate(MAX_RUNS);
    }
    let lake = Rc::new(lake);
    let mut infos = Vec::new();
    for (k, (rid, _)) in listed.iter().enumerate() {
        let Some(row) = lake
            .runs
            .rows
            .iter()
            .position(|r| lake_view::rows_of_one(r, rid))
        else {
            continue;
        };
        let id = if k == 0 {
            run_id
        } else {
            crate::protocol::part_id(run_id, k)
        };
        infos.push(lake_view::run_info(
            (id, Some(run_id)),
            &lake.runs,
            &lake.runs.rows[row],
            &lake.problems,
        ));
        state.borrow_mut().runs.push(Run {
            id,
            lake: lake.clone(),
            run_id: rid.clone(),
            row,
            items: None,
            to_workspace: Move::Here,
        });
    }
    if infos.is_empty() {
        return failed(format!(
            "{}/{}{MANIFEST_FILE}: the lake lists no run its runs table holds",
            lake.name, lake.prefix
        ));
    }
    // One message for all: the page lays its run list out once.
    let ids: Vec<RunId> = infos.iter().map(|i| i.run_id).collect();
    let _ = scope.post_message(&JsValue::from_str(&run_message(&ids)));
    post(&scope, &Response::LoadedMany { infos });
}

fn screen(
    scope: &DedicatedWorkerGlobalScope,
    st: &State,
    (req, run_id): (u64, RunId),
    query: &ScreenQuery,
) {
    let Some(r) = st.runs.iter().find(|r| r.id == run_id) else {
        return no_run(scope, req, run_id);
    };
    let lake = &r.lake;
    let row = lake.runs.rows.get(r.row).map(Vec::as_slice).unwrap_or(&[]);
    let view = match (query, &r.items) {
        (ScreenQuery::Overview { choices, .. }, _) => {
            let chosen = choices
                .iter()
                .find(|(k, _)| k == "scorer")
                .map(|(_, v)| v.as_str());
            lake_view::overview(
                (run_id, &lake.runs, row),
                lake.aggregates.as_ref(),
                (&lake.name, &lake.problems, chosen),
            )
        }
        (
            ScreenQuery::Items {
                filter,
                offset,
                limit,
            },
            Some(items),
        ) => {
            let default = lake_view::headline_scorer(&lake.runs, row, lake.aggregates.as_ref());
            lake_view::items_page(items, filter, (*offset, *limit), default.as_deref())
        }
        (ScreenQuery::Item { key } | ScreenQuery::Hits { key, .. }, Some(items)) => {
            lake_view::item(items, key)
        }
        _ => {
            return post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message: "not available for a run read from a lake".into(),
                },
            )
        }
    };
    crate::worker::store::post_view(scope, (req, run_id), view);
}

/// Reads what a screen of a run needs and has not been read (its items; an item's texts), then
/// answers it.
async fn read_then_screen(
    scope: DedicatedWorkerGlobalScope,
    state: Rc<RefCell<State>>,
    (req, run_id): (u64, RunId),
    query: ScreenQuery,
) {
    let wants_texts = matches!(query, ScreenQuery::Item { .. } | ScreenQuery::Hits { .. });
    let found = state
        .borrow()
        .runs
        .iter()
        .find(|r| r.id == run_id)
        .map(|r| {
            (
                r.lake.clone(),
                r.run_id.clone(),
                r.items.is_none(),
                r.items.as_ref().is_none_or(|i| i.texts.is_none()),
            )
        });
    if let Some((lake, rid, no_items, no_texts)) = found {
        if no_items {
            let items = async {
                Ok::<_, String>(RunItems {
                    samples: run_rows(&lake, &SAMPLES, &[&rid]).await?,
                    verdicts: run_rows(&lake, &VERDICTS, &[&rid]).await?,
                    texts: None,
                })
            }
            .await;
            match items {
                Ok(items) => set(&state, run_id, |r| {
                    if r.items.is_none() {
                        r.items = Some(items)
                    }
                }),
                Err(message) => {
                    return post(
                        &scope,
                        &Response::Error {
                            req: Some(req),
                            message,
                        },
                    )
                }
            }
        }
        if wants_texts && no_texts {
            let texts = run_rows(&lake, &SAMPLE_TEXT, &[&rid]).await;
            set(&state, run_id, |r| {
                if let Some(i) = &mut r.items {
                    i.texts = Some(texts)
                }
            });
        }
    }
    screen(&scope, &state.borrow(), (req, run_id), &query);
}

fn set(state: &Rc<RefCell<State>>, run_id: RunId, f: impl FnOnce(&mut Run)) {
    if let Some(r) = state.borrow_mut().runs.iter_mut().find(|r| r.id == run_id) {
        f(r)
    }
}

/// Some runs of `lake` (their rows in `runs` and their ids) as run rows, read as `evalboard
/// score LAKE` reads a lake (`engine::lake::rows::run_rows`): their `samples`, `verdicts` and
/// `sample_text` rows, each file's row groups that may hold them only. Without `sample_text`
/// (a file that does not read) the items have no texts, as the CLI's.
async fn rows_of(
    lake: &Lake,
    rows: &[usize],
    run_ids: &[&str],
) -> Result<Vec<evalboard_engine::lake::rows::RunRows>, String> {
    let samples = run_rows(lake, &SAMPLES, run_ids).await?;
    let verdicts = run_rows(lake, &VERDICTS, run_ids).await?;
    let texts = run_rows(lake, &SAMPLE_TEXT, run_ids).await.ok();
    let mut runs = Table::new(&RUNS);
    runs.rows = rows
        .iter()
        .filter_map(|r| lake.runs.rows.get(*r).cloned())
        .collect();
    Ok(evalboard_engine::lake::rows::run_rows(
        &runs,
        Some(&samples),
        Some(&verdicts),
        texts.as_ref(),
    ))
}

/// The request id a request is answered under.
fn req_id(req: &Request) -> Option<u64> {
    match req {
        Request::Export { req, .. }
        | Request::ExportView { req, .. }
        | Request::Report { req, .. }
        | Request::Compare { req, .. }
        | Request::Series { req, .. }
        | Request::Many { req, .. } => Some(*req),
        _ => None,
    }
}

/// `runs` by the lake each is of (`lake_of`): each lake once, in the order first seen, with its
/// runs in their order.
fn by_lake<T>(runs: &[T], lake_of: impl Fn(&T) -> &Rc<Lake>) -> Vec<(Rc<Lake>, Vec<&T>)> {
    let mut out: Vec<(Rc<Lake>, Vec<&T>)> = Vec::new();
    for r in runs {
        let lake = lake_of(r);
        match out.iter_mut().find(|(l, _)| Rc::ptr_eq(l, lake)) {
            Some((_, mine)) => mine.push(r),
            None => out.push((lake.clone(), vec![r])),
        }
    }
    out
}

/// Loads runs `ids` into the workspace, then hands `req` (which named them) back to the main
/// worker to answer: each run's rows ([`rows_of`]) go to the main worker as a `Load` of
/// `<run_id>.evalboard-rows.jsonl` (the file `evalboard compare LAKE` reads each run as), which
/// it reads as an evaluation log (`evallog::evalboard_rows`) and holds like a dropped run. The
/// requests that waited for them go back too once no run is on its way.
async fn to_workspace(
    scope: DedicatedWorkerGlobalScope,
    state: Rc<RefCell<State>>,
    ids: Vec<RunId>,
    req: Request,
) {
    let runs: Vec<(RunId, Rc<Lake>, String, usize)> = state
        .borrow()
        .runs
        .iter()
        .filter(|r| ids.contains(&r.id))
        .map(|r| (r.id, r.lake.clone(), r.run_id.clone(), r.row))
        .collect();
    let mut failed = None;
    for (lake, mine) in by_lake(&runs, |r| &r.1) {
        let rows: Vec<usize> = mine.iter().map(|r| r.3).collect();
        let rids: Vec<&str> = mine.iter().map(|r| r.2.as_str()).collect();
        match rows_of(&lake, &rows, &rids).await {
            Ok(built) => {
                for rr in built {
                    let Some(id) = mine.iter().find(|r| r.2 == rr.run_id).map(|r| r.0) else {
                        continue;
                    };
                    let file = format!("{}.evalboard-rows.jsonl", rr.run_id);
                    hand_back(&scope, (id, rr.name), vec![(file, rr.bytes)]);
                    set(&state, id, |r| {
                        r.to_workspace = Move::Moved;
                        r.items = None;
                    });
                }
            }
            Err(e) => failed = Some(e),
        }
    }
    for id in &ids {
        set(&state, *id, |r| {
            if r.to_workspace == Move::Moving {
                r.to_workspace = Move::Here
            }
        });
    }
    let sent = match failed {
        Some(e) => Err(format!(
            "{e}: the run could not be loaded into the workspace from its lake"
        )),
        None => post_back(&scope, &req, &[]),
    };
    if let Err(message) = sent {
        post(
            &scope,
            &Response::Error {
                req: req_id(&req),
                message,
            },
        );
    }
    let waiting = {
        let mut st = state.borrow_mut();
        if st.runs.iter().any(|r| r.to_workspace == Move::Moving) {
            Vec::new()
        } else {
            std::mem::take(&mut st.waiting)
        }
    };
    for req in waiting {
        let _ = post_back(&scope, &req, &[]);
    }
}

/// A request that needs its runs in the workspace ([`crate::lake_host::named`]): the ones
/// here are loaded there first ([`to_workspace`]); one waits for those on their way; one
/// whose runs are there already goes back to the main worker.
fn needs_workspace(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, req: Request) {
    let ids = crate::lake_host::named(&req);
    let mut st = state.borrow_mut();
    let of = |m: Move| -> Vec<RunId> {
        st.runs
            .iter()
            .filter(|r| ids.contains(&r.id) && r.to_workspace == m)
            .map(|r| r.id)
            .collect()
    };
    let (here, moving, moved) = (of(Move::Here), of(Move::Moving), of(Move::Moved));
    if !here.is_empty() {
        for r in st.runs.iter_mut().filter(|r| here.contains(&r.id)) {
            r.to_workspace = Move::Moving;
        }
        drop(st);
        wasm_bindgen_futures::spawn_local(to_workspace(scope.clone(), state.clone(), here, req));
    } else if !moving.is_empty() {
        st.waiting.push(req);
    } else if !moved.is_empty() {
        drop(st);
        let _ = post_back(scope, &req, &[]);
    } else if let Some(req) = req_id(&req) {
        drop(st);
        no_run(scope, req, ids.first().copied().unwrap_or_default());
    }
}

/// "Export the workspace as a lake" ([`crate::lake_job::WORKSPACE_FILE`]) with the runs of the
/// dropped lakes that were never loaded into the workspace: each table's rows of theirs as
/// their lakes hold them (read by row group, [`run_rows`]; a comparison only when both of its
/// runs are among them), and their manifest entries. Any other job as it is; a lake that
/// cannot be read is an error naming the file (nothing is written).
async fn with_lake_runs(
    state: &Rc<RefCell<State>>,
    job: crate::lake_job::LakeJob,
) -> Result<crate::lake_job::LakeJob, (crate::protocol::ReqId, String)> {
    use evalboard_engine::lake::schema::{COMPARISONS, TABLES};
    if job.file != crate::lake_job::WORKSPACE_FILE {
        return Ok(job);
    }
    let runs: Vec<(Rc<Lake>, String)> = state
        .borrow()
        .runs
        .iter()
        .filter(|r| r.to_workspace == Move::Here)
        .map(|r| (r.lake.clone(), r.run_id.clone()))
        .collect();
    if runs.is_empty() {
        return Ok(job);
    }
    let candidate = COMPARISONS.index_of("candidate_run_id");
    let mut tables: Vec<(String, Vec<Vec<evalboard_engine::lake::Cell>>)> = TABLES
        .iter()
        .map(|s| (s.name.to_string(), Vec::new()))
        .collect();
    let mut listed = Vec::new();
    for (lake, mine) in by_lake(&runs, |r| &r.0) {
        let ids: Vec<&str> = mine.iter().map(|r| r.1.as_str()).collect();
        for (schema, (_, rows)) in TABLES.iter().zip(tables.iter_mut()) {
            let t = run_rows(&lake, schema, &ids)
                .await
                .map_err(|e| (job.req, format!("The lake could not be written: {e}")))?;
            rows.extend(t.rows.into_iter().filter(|r| {
                schema.name != COMPARISONS.name
                    || matches!(
                        candidate.and_then(|i| r.get(i)),
                        Some(evalboard_engine::lake::Cell::Str(c)) if ids.contains(&c.as_str())
                    )
            }));
        }
        for r in lake.manifest.runs() {
            if ids.contains(&r.run_id.as_str()) {
                listed.push((
                    r.run_id.clone(),
                    r.name.clone(),
                    r.input.clone(),
                    r.input_files.clone(),
                ));
            }
        }
    }
    let theirs = crate::lake_job::LakeJob {
        req: job.req,
        file: job.file.clone(),
        tables,
        runs: listed,
        version: job.version.clone(),
    };
    Ok(job.merge(theirs))
}

/// A lake the main worker built (with [`with_lake_runs`]), written as Parquet (zstd) with its
/// manifest and zipped with stored members; the zip given to the page as a `blob:` URL of this
/// worker's.
fn write_lake(
    scope: &DedicatedWorkerGlobalScope,
    job: Result<crate::lake_job::LakeJob, (crate::protocol::ReqId, String)>,
) {
    let job = match job {
        Ok(j) => j,
        Err((req, message)) => {
            return post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message,
                },
            )
        }
    };
    let req = job.req;
    // "Export this view" of All runs: one long-form file, not a lake.
    if job.file.ends_with(".parquet") {
        let rows = job
            .tables
            .into_iter()
            .next()
            .map(|t| t.1)
            .unwrap_or_default();
        let table = Table {
            schema: &evalboard_engine::lake::schema::MANY_MARKS,
            rows,
        };
        let created_by = format!("evalboard {}", job.version);
        let file = job.file;
        let written =
            evalboard_lake::encode(&table, evalboard_lake::Codec::Zstd, &created_by, &file)
                .map_err(|e| e.to_string())
                .and_then(|bytes| blob_url(&bytes));
        let msg = match written {
            Ok(url) => Response::Download { req, file, url },
            Err(message) => Response::Error {
                req: Some(req),
                message: format!("The Parquet file could not be written: {message}"),
            },
        };
        return post(scope, &msg);
    }
    let tables: Vec<Table> = job
        .tables
        .into_iter()
        .filter_map(|(name, rows)| {
            let schema = evalboard_engine::lake::schema::table(&name)?;
            Some(Table { schema, rows })
        })
        .collect();
    let runs = job
        .runs
        .into_iter()
        .map(
            |(run_id, name, input, input_files)| evalboard_lake::ShardRun {
                run_id,
                name,
                input,
                input_files,
            },
        )
        .collect();
    let folder = job.file.trim_end_matches(".zip").to_string();
    let zipped = evalboard_lake::zipped::lake_files(
        &tables,
        runs,
        ("dashboard", evalboard_lake::Codec::Zstd, &job.version),
    )
    .and_then(|files| evalboard_lake::zipped::zip_stored(&folder, &files))
    .map_err(|e| e.to_string())
    .and_then(|zip| blob_url(&zip));
    let msg = match zipped {
        Ok(url) => Response::Download {
            req,
            file: job.file,
            url,
        },
        Err(message) => Response::Error {
            req: Some(req),
            message: format!("The lake could not be written: {message}"),
        },
    };
    post(scope, &msg);
}

/// `bytes` as a zip `Blob`'s URL (the page downloads it; it lives as long as this worker).
fn blob_url(bytes: &[u8]) -> Result<String, String> {
    let parts = js_sys::Array::of1(&Uint8Array::from(bytes));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/zip");
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(js_err)?;
    web_sys::Url::create_object_url_with_blob(&blob).map_err(js_err)
}

fn handle(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, e: MessageEvent) {
    let data = e.data();
    if let Some(parts) = data.dyn_ref::<js_sys::Array>() {
        if parts.get(0).as_string().as_deref() == Some(crate::lake_host::WRITE) {
            let bytes = Uint8Array::new(&parts.get(1)).to_vec();
            return match crate::protocol::decode::<crate::lake_job::LakeJob>(&bytes) {
                Ok(job) => {
                    let scope = scope.clone();
                    let state = state.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        write_lake(&scope, with_lake_runs(&state, job).await);
                    });
                }
                Err(e) => post(
                    scope,
                    &Response::Error {
                        req: None,
                        message: format!("the lake to write did not decode: {e}"),
                    },
                ),
            };
        }
    }
    let Some((req, buffers)) = decode_or_report(scope, &data) else {
        return;
    };
    match req {
        Request::Load {
            run_id,
            name,
            paths,
            ..
        } => {
            let sources = paths
                .into_iter()
                .enumerate()
                .map(|(i, p)| (p, buffers.get(i as u32)))
                .collect();
            wasm_bindgen_futures::spawn_local(open(
                scope.clone(),
                state.clone(),
                (run_id, name),
                sources,
            ));
        }
        Request::Remove { run_id } => state.borrow_mut().runs.retain(|r| r.id != run_id),
        Request::Screen { req, run_id, query } => {
            let ready = state.borrow().runs.iter().any(|r| {
                r.id == run_id
                    && (matches!(query, ScreenQuery::Overview { .. })
                        || r.items.as_ref().is_some_and(|i| {
                            i.texts.is_some()
                                || !matches!(
                                    query,
                                    ScreenQuery::Item { .. } | ScreenQuery::Hits { .. }
                                )
                        }))
            });
            if ready {
                screen(scope, &state.borrow(), (req, run_id), &query);
            } else {
                wasm_bindgen_futures::spawn_local(read_then_screen(
                    scope.clone(),
                    state.clone(),
                    (req, run_id),
                    query,
                ));
            }
        }
        Request::Overview { req, run_id, .. }
        | Request::Items { req, run_id, .. }
        | Request::Conversation { req, run_id, .. } => no_run(scope, req, run_id),
        // Compared, reported, exported: loaded into the workspace first.
        req @ (Request::Export { .. }
        | Request::Report { .. }
        | Request::Compare { .. }
        | Request::Series { .. }
        | Request::ExportView { .. }
        | Request::Many { .. }
        | Request::Workspace { .. }) => needs_workspace(scope, state, req),
        // Settings do not re-score a lake run (its numbers are as exported; loaded into the
        // workspace, it is re-scored there); marks are kept by the main worker for the runs it
        // scores.
        _ => {}
    }
}
