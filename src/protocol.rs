//! The message contract between the page (Leptos UI) and the Web Worker that owns the engine.
//!
//! Messages are postcard bytes ([`encode`], [`decode`]) posted as a `Uint8Array` (replies
//! transfer their buffer); a `Load` request carries its files' bytes as transferred ArrayBuffers
//! next to the message (same order as `paths`). The worker keeps every scored run; the page asks
//! for one screenful at a time (an overview, a page of items, one conversation), so a 100k-turn
//! run never crosses to the main thread in bulk.
//!
//! postcard is not self-describing: fields go in declaration order with no names, so the page's
//! decoder is small (no JSON parser, no field-name matching) — see docs/dashboard.md § Size. Every
//! type sent here (and every engine type it embeds) must therefore be plain: structs, `Vec`,
//! `Option`, maps, tuples, strings, numbers and externally tagged enums — no
//! `skip_serializing_if`, `flatten`, `untagged`, internally tagged enums (`tag = ...`),
//! `serde_json::Value` or anything needing `deserialize_any`. The tests below round-trip every
//! variant and fail when a type stops doing so. Page and worker are always built together, so
//! the encoding needs no versioning.

use serde::{Deserialize, Serialize};

use evalboard_engine::accounting::InputFileReport;
use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::views::{ConversationView, ItemPage, ItemQuery, Overview};
use evalboard_engine::run::Settings;
use evalboard_engine::run_table::ItemKey;
use evalboard_engine::Diagnostic;

pub use evalboard_engine::compare::MetricDelta;

pub type RunId = u32;
pub type ReqId = u64;

/// A message's bytes for `postMessage`.
pub fn encode<T: Serialize>(msg: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(msg).map_err(|e| e.to_string())
}

/// A message from its bytes; trailing bytes are an error (they would mean the two ends disagree
/// on a type).
pub fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    match postcard::take_from_bytes(bytes) {
        Ok((msg, [])) => Ok(msg),
        Ok((_, rest)) => Err(format!("{} unread bytes", rest.len())),
        Err(e) => Err(e.to_string()),
    }
}

/// What a watched folder's run is listed by: its folder's name and this mark (its numbers are
/// so far; docs/dashboard.md § Watching a folder).
pub fn so_far(folder: &str) -> String {
    format!("{folder} · so far")
}

/// The id of the `k`-th log (k ≥ 1) of a `Load` (run `run_id`) that held several
/// ([`RunInfo::part_of`]): the page numbers its runs from 1 with the high bit clear, so these
/// never meet one of its own, and a reload after a worker restart gives the same ids again.
pub fn part_id(run_id: RunId, k: usize) -> RunId {
    0x8000_0000 | (run_id.wrapping_mul(1024) & 0x7fff_fc00) | (k as RunId & 0x3ff)
}

/// A run kept in the browser's storage: its key there, the name it was listed by, its files'
/// paths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    pub key: String,
    pub name: String,
    pub paths: Vec<String>,
}

/// Page → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Read and score a run folder. `paths[i]` names the i-th source sent beside the message:
    /// a `File` the worker reads, or a transferred `ArrayBuffer`.
    Load {
        run_id: RunId,
        name: String,
        paths: Vec<String>,
        #[serde(default)]
        demo: bool,
        /// A run kept in the browser's storage (`StoredRun::key`): its files come from there,
        /// none are sent.
        #[serde(default)]
        stored: Option<String>,
    },
    /// Re-score every run of every family with new settings (answered with `Rescored`).
    Configure {
        settings: Settings,
    },
    Remove {
        run_id: RunId,
    },
    Overview {
        req: ReqId,
        run_id: RunId,
        dark: bool,
    },
    Items {
        req: ReqId,
        run_id: RunId,
        query: ItemQuery,
    },
    /// The conversation of a turn's key (`[conversation id, turn index]`; its first part).
    Conversation {
        req: ReqId,
        run_id: RunId,
        key: ItemKey,
        /// The Items query the turn was opened from (the link's `query`): the answer says where
        /// it matched.
        query: Option<String>,
    },
    /// One output file of the current settings: statistics.json, summary.csv, turns.csv,
    /// errors.csv or validation.csv.
    Export {
        req: ReqId,
        run_id: RunId,
        file: String,
    },
    /// Baseline vs candidate: deltas, flips, McNemar, bootstrap CI and one page of paired items.
    Compare {
        req: ReqId,
        baseline: RunId,
        candidate: RunId,
        #[serde(default)]
        query: CompareQuery,
    },
    /// A series of runs in order (the first is the baseline; two runs are a plain comparison):
    /// every consecutive pair compared, the chosen `step`'s paired items per `query`, run
    /// metadata side by side, the loss-curve overlay and the metrics chart (drawn for `dark`).
    Series {
        req: ReqId,
        runs: Vec<RunId>,
        step: u32,
        query: CompareQuery,
        dark: bool,
    },
    /// The single-file offline HTML report of a run, compared with `baseline` when given. The
    /// page supplies the generation time (the worker reads no clock for reports). Answered with
    /// `Response::Export` (file `evalboard-report-<run>.html`).
    ///
    /// `many`: the All runs tab's report instead (`run_id` is its pinned baseline): its
    /// `(baselines, runs)` as `Request::Many` sends them, reported as `evalboard report
    /// --baseline B RUN...` (the runs, each against its baseline, with the many-runs section).
    Report {
        req: ReqId,
        run_id: RunId,
        #[serde(default)]
        baseline: Option<RunId>,
        generated_at: String,
        #[serde(default)]
        many: Option<ManyRuns>,
    },
    /// One screen of a run the worker lays out (code generation, evaluation-tool logs):
    /// overview, a page of items, or one item. Answered with `Response::Screen`.
    Screen {
        req: ReqId,
        run_id: RunId,
        query: ScreenQuery,
    },
    /// Many runs of one family against the pinned baseline (`baselines[0]`; with the other
    /// logs of its folder, one baseline per task): the "All runs" tab. `Overview`: the ranked
    /// table, its reading, the interval plot, the frontier and the grid; `Items`: a page of the
    /// runs × items matrix. Computed once per (baselines, runs) and kept by the worker until the
    /// runs or the settings change. Answered with `Response::Screen` (`run_id`: the pinned
    /// baseline).
    Many {
        req: ReqId,
        baselines: Vec<RunId>,
        runs: Vec<RunId>,
        query: ScreenQuery,
    },
    /// A human review change to the item of `key` (docs/marks.md): `field` is `mark` (`value`
    /// `correct`, `wrong`, or empty: unset), `note` (the text; empty: unset) or `score` (a
    /// number from 0 to 1 as typed, parsed by the worker; empty: unset). The worker keeps it
    /// in the browser's storage under the run's content id and answers `Response::Marked`.
    /// (Last, so the other variants keep their numbers.)
    Mark {
        run_id: RunId,
        key: ItemKey,
        field: String,
        value: String,
    },
    /// An `evalboard-marks/1` sidecar (its file name and text; one dropped or picked as a run
    /// comes as a `Load` of one `.jsonl`, which the worker sniffs): its marks are kept beside the ones there (an item in both: the file's), answered with
    /// `Response::Marked` (what was read, the file's diagnostics with their lines, the runs
    /// not loaded).
    ImportMarks {
        file: String,
        text: String,
    },
    /// From the main worker to the code-generation worker (never from the page): every human
    /// review mark the main worker keeps (`evalboard-marks/1` JSONL), sent whenever they change.
    /// The main worker owns the marks and their storage; the code-generation worker lays them
    /// out on its runs' screens from this copy, which it replaces.
    MarksKept {
        text: String,
    },
    /// Watch a folder: its `FileSystemDirectoryHandle` is the one source sent beside the
    /// message (or, with `stored`, the handle kept in the browser's storage under that key).
    /// Answered with `Live` after each change; `Remove { run_id }` stops it. (Last, so the
    /// variant numbers bench/wasm.mjs decodes stay put.)
    Watch {
        run_id: RunId,
        name: String,
        #[serde(default)]
        stored: Option<String>,
    },
    /// The time with no new item after which a watched run is marked stalled, in seconds
    /// (0: the default, 5 minutes); the watch panel's setting, sent at start and on change.
    WatchStall {
        seconds: u32,
    },
    /// "Export this view" (the Items screen): the run's items `filter` shows, with the
    /// optional `columns` kept (`engine::lake::view::COLUMNS` by name; empty: all), each
    /// item's flip against `baseline` when a comparison is open, as `format`: `jsonl` (run
    /// rows, `evalboard_rows` v1, which a drop reads back as a run), `csv` (for a spreadsheet)
    /// or `parquet` (the JSONL's run as a one-run lake zip, written by the lake worker).
    /// Answered with `Export` (text) or `Download` (a zip). (Last, so the other variants keep
    /// their numbers.)
    ExportView {
        req: ReqId,
        run_id: RunId,
        filter: ScreenFilter,
        format: String,
        columns: Vec<String>,
        baseline: Option<RunId>,
    },
    /// "Export the workspace as a lake": every run the main worker holds, as one lake zip
    /// written by the lake worker, answered with `Download`.
    ExportLake {
        req: ReqId,
    },
    /// "Load into the workspace" (a lake run's Overview): the lake worker reads run `run_id`'s
    /// rows (its row groups only) and hands it to the main worker as a `Load` of its run rows
    /// (`evalboard_rows`), which then holds it like a dropped run (answered with `Loaded`). A
    /// Compare, Series, All runs, Report or Export naming a lake run does the same first. (Last,
    /// so the other variants keep their numbers.)
    Workspace {
        run_id: RunId,
    },
    /// "Export this view" of the All runs tab: the runs × items matrix of `runs` against
    /// `baselines` (as `Many` names them) as `filter` shows it (its Show choice, search and
    /// judge), as `format`: `csv`, `jsonl` (with the ranked table's rows in its header) or
    /// `parquet` (one long-form file, `engine::lake::schema::MANY_MARKS`, written by the lake
    /// worker). Answered with `Export` (text) or `Download`. (Last, so the other variants keep
    /// their numbers.)
    ExportMany {
        req: ReqId,
        baselines: Vec<RunId>,
        runs: Vec<RunId>,
        filter: ScreenFilter,
        format: String,
    },
}

impl Request {
    /// Whether it is an export asking for Parquet (written by the lake worker).
    pub fn is_parquet(&self) -> bool {
        matches!(
            self,
            Request::ExportView { format, .. } | Request::ExportMany { format, .. } if format == "parquet"
        )
    }

    /// The runs this request needs held as workspace runs (compared, reported, exported,
    /// loaded into the workspace): a lake run among them is loaded into the main worker first
    /// (`lake_host::CONVERTED`).
    pub fn workspace_runs(&self) -> Vec<RunId> {
        match self {
            Request::Export { run_id, .. } | Request::Workspace { run_id } => vec![*run_id],
            Request::ExportView {
                run_id, baseline, ..
            } => std::iter::once(*run_id).chain(*baseline).collect(),
            Request::Report {
                run_id,
                baseline,
                many,
                ..
            } => {
                let mut ids = vec![*run_id];
                ids.extend(*baseline);
                if let Some((b, r, _)) = many {
                    ids.extend(b.iter().chain(r));
                }
                ids
            }
            Request::Compare {
                baseline,
                candidate,
                ..
            } => vec![*baseline, *candidate],
            Request::Series { runs, .. } => runs.clone(),
            Request::Many {
                baselines, runs, ..
            }
            | Request::ExportMany {
                baselines, runs, ..
            } => baselines.iter().chain(runs).copied().collect(),
            _ => Vec::new(),
        }
    }
}

/// The runs of the All runs tab: its baselines (the pinned one first, then the other logs of its
/// folder), the runs compared with them, and the judge picked ("Judged by", `--scorer`).
pub type ManyRuns = (Vec<RunId>, Vec<RunId>, Option<String>);

/// A chart as the report crate draws it, with its text equivalent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartDto {
    pub key: String,
    pub title: String,
    pub svg: String,
    pub alt: String,
    pub table: Vec<Vec<String>>,
}

impl From<evalboard_report::charts::NamedChart> for ChartDto {
    fn from(c: evalboard_report::charts::NamedChart) -> Self {
        ChartDto {
            key: c.key,
            title: c.title,
            svg: c.svg,
            alt: c.alt,
            table: c.table,
        }
    }
}

/// What the page needs to list a run. bench/wasm.mjs decodes a `Loaded` by hand, field by field
/// in this order: a change here changes it there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub run_id: RunId,
    pub name: String,
    pub demo: bool,
    pub family: Family,
    /// Conversations (numeric QA) or sessions (code generation); 0 for an eval set.
    pub n_conversations: usize,
    /// Turns, messages or items.
    pub n_turns: usize,
    /// How big the run is in its family's units, comma-separated (`12 conversations, 38
    /// turns`; [`evalboard_engine::run::RunRef::size`]).
    #[serde(default)]
    pub size: String,
    /// The profile (or scorer) the run was scored under
    /// ([`evalboard_engine::run::RunRef::profile`]).
    #[serde(default)]
    pub profile: String,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
    /// The number the run is listed by, under the current settings
    /// ([`evalboard_engine::run::RunRef::headline_value`]).
    pub headline: Option<f64>,
    /// Milliseconds the worker spent reading + scoring (performance.now(), worker side).
    pub load_ms: f64,
    /// Size of the worker's wasm linear memory after loading (its high-water mark).
    pub wasm_memory_bytes: Option<u64>,
    /// Where `load_ms` went: (stage, ms) for copying, hashing, parsing, scoring.
    #[serde(default)]
    pub stage_ms: Vec<(String, f64)>,
    /// The settings of the run's family that are not the defaults, in words
    /// ([`evalboard_engine::run::Settings::non_default`]), for the header's custom-settings strip.
    #[serde(default)]
    pub custom_settings: Vec<String>,
    /// Set when the `Load` of run `part_of` held several evaluation-tool logs: each is a run of
    /// its own, named `folder/file` (the first keeps the `Load`'s id; the page lists the others
    /// as new runs).
    #[serde(default)]
    pub part_of: Option<RunId>,
    /// The models whose tokens the run records but the price table has no price for
    /// ([`evalboard_engine::run::RunRef::unpriced_models_in`]): Settings offers to price them.
    #[serde(default)]
    pub unpriced_models: Vec<String>,
    /// What the run list shows for the run, from its metadata: model · task (`gpt-4o · gsm8k`),
    /// of what the run records; empty when it records neither (the list shows the run's name
    /// under it, whole on hover, and its headline on the line below).
    #[serde(default)]
    pub label: String,
    /// What the run list groups runs by: the tool that wrote it (an eval log's tool, else the
    /// family), its task, its model (`—` when not recorded).
    #[serde(default)]
    pub facets: [String; 3],
}

/// Worker → page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Response {
    Ready,
    Progress {
        run_id: RunId,
        stage: String,
        done: u64,
        total: u64,
    },
    Loaded {
        info: RunInfo,
    },
    LoadFailed {
        run_id: RunId,
        name: String,
        error: String,
        files: Vec<InputFileReport>,
        diagnostics: Vec<Diagnostic>,
        /// As [`RunInfo::part_of`]: one log of a `Load` holding several.
        #[serde(default)]
        part_of: Option<RunId>,
    },
    /// Sent after `Configure`: every run was re-scored.
    Rescored {
        runs: Vec<RunInfo>,
    },
    Overview {
        req: ReqId,
        run_id: RunId,
        overview: Box<Overview>,
        /// The Overview under its cards (the readings, the re-scoring's disagreements, the
        /// charts, the first wrong turns), and the Breakdowns, Complexity and Errors tabs, as the
        /// worker lays them out (`qa_screens::overview_rest`, `qa_screens::breakdowns`,
        /// `qa_screens::complexity`, `qa_screens::errors`).
        rest: Vec<Block>,
        breakdowns: Vec<Block>,
        complexity: Vec<Block>,
        errors: Vec<Block>,
    },
    Items {
        req: ReqId,
        run_id: RunId,
        page: ItemPage,
    },
    Conversation {
        req: ReqId,
        run_id: RunId,
        view: Option<ConversationView>,
        /// Screen blocks shown after the opened turn: where the request's query matched it (as
        /// every drawer opened from a query is headed), then its human review section (as every
        /// other drawer ends with).
        blocks: Vec<Block>,
    },
    Export {
        req: ReqId,
        run_id: RunId,
        file: String,
        text: String,
    },
    Error {
        req: Option<ReqId>,
        message: String,
    },
    Compare {
        req: ReqId,
        view: Box<CompareView>,
    },
    Series {
        req: ReqId,
        view: Box<SeriesView>,
    },
    Screen {
        req: ReqId,
        run_id: RunId,
        view: Box<ScreenView>,
    },
    /// The worker is reading a `Load`'s files: `problems` are the files it could not read
    /// ("path: reason"), kept by the page beside the run's diagnostics. (Last, so the variant
    /// numbers bench/wasm.mjs decodes stay put.)
    Reading {
        run_id: RunId,
        files_done: u64,
        files_total: u64,
        bytes_done: u64,
        bytes_total: u64,
        problems: Vec<String>,
    },
    /// A worker started on demand (the code-generation worker, the lake worker) stopped (a
    /// crash in it): the runs it held, by id, are gone from it. The page fails the one it was
    /// working on and loads the others again; the next `Load` of that kind starts a new worker.
    /// `worker`: which one, as the user is told ("The lake worker"). (Last, so the variant
    /// numbers bench/wasm.mjs decodes stay put.)
    WorkerStopped {
        runs: Vec<RunId>,
        message: String,
        worker: String,
    },
    /// The runs kept in the browser's storage from earlier visits, oldest first (sent once the
    /// worker starts; the page loads each again with `Load { stored }`). (Last, so the variant
    /// numbers bench/wasm.mjs decodes stay put.)
    Stored {
        runs: Vec<StoredRun>,
    },
    /// The human review marks changed (`Request::Mark`, an import, the marks read from the
    /// browser's storage at start): the page asks its screens again. `message`: what to tell
    /// the user (`true`: an error). (Last, so the variant numbers bench/wasm.mjs decodes stay
    /// put.)
    Marked {
        message: Option<(bool, String)>,
        /// A `Load` that was a marks sidecar dropped or picked (imported, not a run): the page
        /// lists it no more.
        drop: Option<RunId>,
    },
    /// A watched folder's numbers so far (after each change the worker read, and once a second
    /// for the times: docs/dashboard.md § Watching a folder). (Last, so the variant numbers
    /// bench/wasm.mjs decodes stay put.)
    Live {
        run_id: RunId,
        status: LiveStatus,
    },
    /// The watches kept in the browser's storage from earlier visits (sent once the worker
    /// starts; the page watches each again with `Watch { stored }`).
    Watches {
        watches: Vec<StoredRun>,
    },
    /// Several runs of one `Load` loaded at once (a results lake's runs, each with `part_of`):
    /// the page lists them as it lists each `Loaded`, laying the run list out once.
    LoadedMany {
        infos: Vec<RunInfo>,
    },
    /// A file a worker made as a `blob:` URL of its own (a lake zip the lake worker wrote):
    /// the page downloads it as `file`. (Last, so the other variants keep their numbers.)
    Download {
        req: ReqId,
        file: String,
        url: String,
    },
}

/// What a watched folder is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WatchState {
    /// Items arrive (or the first round is being read).
    Running,
    /// No new item for the stall time.
    Stalled,
    /// The watch ended (removed, the permission revoked, the folder gone): the last block
    /// says why.
    Stopped,
    /// Every log that records a status says it finished (Inspect `success`, OpenAI Evals'
    /// final report).
    Finished,
    /// A log reports an error or a cancellation: the last block says which.
    Failed,
}

/// A watched folder's state, as the main worker sends it (`Response::Live`): the page shows it
/// and computes nothing. The numbers themselves stay in the worker (`engine::live::LiveNumbers`
/// of each file); the page gets them worded, as blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveStatus {
    pub name: String,
    pub state: WatchState,
    /// The status laid out by the worker: the state with the pace (items/s, the time since the
    /// last item, how changes are learnt), a line per file (items, accuracy with its CI,
    /// problems), the message; rendered as any screen's blocks, so the page formats no number.
    pub blocks: Vec<Block>,
}

impl LiveStatus {
    /// What the page shows of a watch until the worker's first round.
    pub fn starting(name: &str) -> LiveStatus {
        LiveStatus {
            name: name.to_string(),
            state: WatchState::Running,
            blocks: Vec::new(),
        }
    }
}

/// Most rows of a comparison in one reply (and when the query does not say).
pub const COMPARE_PAGE: usize = 200;

/// Which paired items to list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompareQuery {
    /// A flip class slug (`regressed`, `improved`, `unchanged_correct`, ...); `None` = all.
    pub flip: Option<String>,
    pub category: Option<String>,
    /// Most rows returned (0 = the default page).
    #[serde(default)]
    pub limit: usize,
    /// The breakdown field the slice table is by (`CompareView::slice_fields`); `None` (or a
    /// field not offered) = the first offered.
    #[serde(default)]
    pub by: Option<String>,
    /// Pair items, not their repeats: each item's epochs reduced first (by the headline's own
    /// reducer, else mean), as `diff --by-item` (the Compare toggle).
    #[serde(default)]
    pub by_item: bool,
    /// What judges the items, as `diff --scorer` names it (the "Judged by" choice, `f.judge=`
    /// in the link: one of the baseline's `RunRef::judge_choices`); `None`: the baseline's
    /// headline.
    #[serde(default)]
    pub scorer: Option<String>,
}

/// One paired item with the word-level diff of the two answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareRow {
    /// The paired item's key: what its row shows ([`crate::format::item_key`]) and opens.
    pub key: ItemKey,
    pub flip: evalboard_engine::compare::Flip,
    pub category: Option<String>,
    pub question: Option<String>,
    pub expected: Option<String>,
    pub baseline_answer: Option<String>,
    pub candidate_answer: Option<String>,
    pub diff: evalboard_engine::compare::words::WordDiff,
}

/// Baseline vs candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareView {
    pub baseline: String,
    pub candidate: String,
    pub family: Family,
    /// How items are joined and judged.
    pub judged_by: String,
    pub metrics: Vec<MetricDelta>,
    pub flips: evalboard_engine::compare::FlipCounts,
    pub n_paired: u64,
    pub baseline_accuracy: Option<f64>,
    pub candidate_accuracy: Option<f64>,
    pub accuracy_delta: Option<f64>,
    pub mcnemar_p: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub resamples: u32,
    pub seed: u64,
    pub per_item_unavailable: Option<String>,
    /// The comparison in one sentence, and which way it reads.
    pub reading: Option<evalboard_engine::compare::Reading>,
    /// Why the two runs cannot be compared (different families), when so.
    pub error: Option<String>,
    pub categories: Vec<String>,
    /// The paired items by the value of one breakdown field (a slice): header row first, then
    /// one row per value (items paired in both, baseline and candidate accuracy, the change,
    /// regressed, improved), as shown. Empty when no field has two or more values.
    #[serde(default)]
    pub slices: Vec<Vec<String>>,
    /// The fields the items can be sliced by (2 to 50 values over the paired items), in the
    /// family's order: the first is the default.
    #[serde(default)]
    pub slice_fields: Vec<String>,
    /// The field `slices` is by.
    #[serde(default)]
    pub slice_by: Option<String>,
    /// Rows matching the query, before the limit.
    pub n_rows: usize,
    pub rows: Vec<CompareRow>,
    /// How items were paired, when it needs saying (the runs' items have repeats: per repeat,
    /// or by item, then with the mean difference and its item-clustered CI), as the worker words
    /// it: the page shows it beside the by-item toggle.
    #[serde(default)]
    pub pairing: Option<String>,
    /// The headline cards as the worker words them (Δ accuracy, flips, McNemar, the bootstrap
    /// CI): screen blocks the page renders as they come.
    #[serde(default)]
    pub cards: Vec<Block>,
    /// The metrics as shown, each in its unit with a signed change: (key, label, baseline,
    /// candidate, change).
    #[serde(default)]
    pub metric_rows: Vec<(String, String, String, String, String)>,
}

/// A series of runs (two runs: one comparison). `steps[i]` compares run `i` with run `i + 1`;
/// only `steps[step]` carries rows (the query's page of paired items, regressions first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesView {
    /// Run names in order; the first is the baseline.
    pub runs: Vec<String>,
    pub steps: Vec<CompareView>,
    pub step: u32,
    /// The loss-curve overlay (when any run carries training metrics) and, with three or more
    /// runs, the headline metrics across the series.
    pub charts: Vec<ChartDto>,
    /// Run metadata side by side, one value per run.
    pub meta: Vec<evalboard_engine::run_meta::MetaRow>,
    /// What the page shows of the series above the chosen step, as the worker lays it out: with
    /// three runs or more, each headline rate across the runs and the flips of each consecutive
    /// step (`series-metrics`, `series-steps`); the run metadata side by side, a field that
    /// differs marked (`run-metadata`).
    #[serde(default)]
    pub blocks: Vec<Block>,
}

/// Each headline rate across the runs of a series, from its consecutive comparisons: run 0
/// from the first step's baseline, run `i + 1` from step `i`'s candidate (rates only: the chart
/// and the table read 0–1). The worker charts it and the page tabulates it.
pub fn series_metrics(steps: &[CompareView]) -> Vec<(String, Vec<Option<f64>>)> {
    let Some(first) = steps.first() else {
        return Vec::new();
    };
    first
        .metrics
        .iter()
        .filter(|m| m.unit == evalboard_engine::compare::Unit::Rate)
        .map(|m| {
            let mut values = vec![m.baseline];
            values.extend(steps.iter().map(|s| {
                s.metrics
                    .iter()
                    .find(|x| x.key == m.key)
                    .and_then(|x| x.candidate)
            }));
            (m.label.clone(), values)
        })
        .collect()
}

/// The numeric QA tab a worker chart belongs on, by its key (`complexity`, `breakdowns`,
/// `errors`; unknown keys show on the `overview`): the page places the charts it draws itself,
/// the worker those of the tabs it lays out.
pub fn chart_tab(key: &str) -> &'static str {
    match key {
        "complexity" | "accuracy_by_ops" | "logic_recall_by_turn" => "complexity",
        k if k.starts_with("by_") => "breakdowns",
        "error_types" => "errors",
        k if k.contains("turn") || k.contains("ops") => "complexity",
        _ => "overview",
    }
}

/// Which screen of a run the page wants, for the families whose screens the worker lays out
/// (code generation, eval sets, evaluation-tool logs): the overview, a page of items, or one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ScreenQuery {
    /// Cards, charts (drawn in the theme) and tables.
    /// `choices`: the screen's own choices on the overview, by name, as the route holds them
    /// (`f.<name>=`; an eval log's `breakdown` field).
    Overview {
        dark: bool,
        choices: Vec<(String, String)>,
    },
    /// Items matching `filter`, rows `offset..offset + limit`.
    Items {
        filter: ScreenFilter,
        offset: u32,
        limit: u32,
    },
    /// One item, by its key (the key its row carries, and a comparison's paired item's).
    Item { key: ItemKey },
    /// A comparison's paired item side by side (asked of the candidate, the `Screen`'s run):
    /// both runs' inputs, outputs, scores and conversations, and the diff of the outputs, as
    /// the screen's `item`.
    Pair { baseline: RunId, key: ItemKey },
    /// One item, as `Item`, headed by where the query `query` matched it (the drawer of an item
    /// opened from a query: `src/query_view.rs`). (Last, so the other variants keep their
    /// numbers.)
    Hits { key: ItemKey, query: String },
}

/// The filters of an items table: the chosen value of each of the screen's choice filters (by
/// the name the screen gave it) and the search text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScreenFilter {
    pub choices: Vec<(String, String)>,
    /// Case-insensitive text searched in the row's text cells.
    pub text: Option<String>,
}

impl ScreenFilter {
    /// The value chosen for the filter `name`.
    pub fn choice(&self, name: &str) -> Option<&str> {
        self.choices
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A piece of a screen. Every text in it is shown as text, never as markup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Block {
    /// Headline cards: (key, label, value as shown, definition); the card keyed `primary` leads.
    Cards {
        primary: String,
        cards: Vec<(String, String, String, String)>,
    },
    /// A callout: `tone` is `note`, `warn` or `error`; `key` names it for tests (`data-note`).
    Note {
        key: String,
        tone: String,
        text: String,
    },
    Chart(ChartDto),
    Table(Table),
    /// Label–value pairs.
    Facts(Vec<(String, String)>),
    Heading(String),
    /// A paragraph (`mono`: in the code font, wrapped); `key` names it (`data-field`).
    Text {
        key: String,
        text: String,
        mono: bool,
    },
    /// A note with a button that changes one setting (`setting`: its name and new value; the
    /// page knows the names it may change: `evalset.scorer`; `watch.resume` with a watch's kept
    /// key asks the browser's permission for its folder again); `key` names it (`data-testid`).
    Switch {
        key: String,
        text: String,
        label: String,
        setting: (String, String),
    },
    /// A choice the user makes on the screen (a select): `options` as (value, label), the
    /// first the default; the page keeps the value in the route as `f.<key>=` and asks the
    /// screen again with it (`ScreenQuery::Overview::choices`).
    Choice {
        key: String,
        label: String,
        options: Vec<(String, String)>,
        chosen: String,
    },
    /// A word diff of two outputs (`compare::words`): deleted words struck, inserted marked,
    /// a number written two ways noted "equal as numbers"; both texts whole when they share
    /// little (`whole` says why).
    Diff(evalboard_engine::compare::words::WordDiff),
    /// Source code with line numbers.
    Code {
        label: String,
        code: String,
    },
    /// Blocks laid out together: `layout` is `pair` (two columns), `small` (a row of small
    /// charts under a title), `box` (a bordered box, `ok` tints it), `message` (one message of
    /// a conversation under its title), `more` (collapsed under its title) or `section` (a
    /// titled section).
    Group {
        key: String,
        layout: String,
        title: Option<String>,
        ok: bool,
        blocks: Vec<Block>,
    },
    /// The drawer's human review controls for its item (docs/marks.md): Correct / Wrong
    /// buttons (`mark`: `correct`, `wrong` or empty), the note and the 0–1 score override as
    /// they are kept (`score` as text, empty: none); the page sends each change as
    /// `Request::Mark`. (Last, so the other variants keep their numbers.)
    Review {
        mark: String,
        note: String,
        score: String,
    },
}

/// A table of a screen; the first cell of a keyed row is its header cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub key: String,
    pub title: Option<String>,
    pub head: Vec<String>,
    /// Which columns hold numbers (right-aligned).
    pub numeric: Vec<bool>,
    pub rows: Vec<TableRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// `data-row`; a keyed row's first cell is its header cell.
    pub key: Option<String>,
    /// Highlighted (a value that differs, a flip).
    pub flag: bool,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    Text(String),
    /// Label–value lines.
    Pairs(Vec<(String, String)>),
    /// A text that opens something when clicked (a button): (text, what it opens). The "All
    /// runs" table's run names open the pair Compare of that run with its baseline.
    Open(String, String),
}

/// A choice filter of an items table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Its name in the query and the URL (`f.<name>=`).
    pub name: String,
    pub label: String,
    /// The values offered (shown as they are).
    pub options: Vec<String>,
}

/// One row of an items table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenRow {
    /// Its key: what to ask for to open it ([`ScreenQuery::Item`]).
    pub key: ItemKey,
    /// Marked wrong (failed, errored).
    pub bad: bool,
    /// One text per column.
    pub cells: Vec<String>,
}

/// The dataset features a numeric QA turn can be filtered by (its Items' `feature` choice):
/// (the filter's value as shown, the engine's name; old links' `feature=` carries the name,
/// which the page's link reader turns into the shown value).
pub const QA_FEATURES: [(&str, &str); 3] = [
    ("type-2 question", "has_type2_question"),
    ("non-numeric values", "has_non_numeric_values"),
    ("duplicate columns", "has_duplicate_columns"),
];

/// The column the items of a query have second (`ItemsLayout::columns[1]`, after `#`): each
/// row's hit count, the places its drawer lists. The grid then has one more column
/// (`eb-grid--hits`).
pub const HITS_COLUMN: &str = "Hits";

/// How the items of a family are called and tabled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemsLayout {
    /// Names the grid (`eb-grid--<kind>`).
    pub kind: String,
    /// One item, several items: `message`/`messages`.
    pub noun: (String, String),
    /// (label, CSS class: `eb-num`, `eb-mono`, `eb-muted`, or empty) per column.
    pub columns: Vec<(String, String)>,
    pub filters: Vec<Choice>,
    pub search: String,
    pub footnote: String,
}

/// One screen of a run; the parts the query did not ask for are empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenView {
    pub name: String,
    /// Overview: its blocks in order.
    pub blocks: Vec<Block>,
    /// Overview: the output files the Export tab offers, with what each holds.
    pub exports: Vec<(String, String)>,
    /// Items: the table's layout, the counts and the page `offset..`.
    pub layout: ItemsLayout,
    pub n_items: u64,
    pub n_match: u64,
    pub offset: u64,
    pub rows: Vec<ScreenRow>,
    /// Item: the one asked for (`None` when the run has no such item).
    pub item: Option<ScreenItem>,
}

/// One item in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenItem {
    pub key: ItemKey,
    pub title: String,
    pub blocks: Vec<Block>,
}
