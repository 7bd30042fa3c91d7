//! The message contract between the page (Leptos UI) and the Web Worker that owns the engine.
//!
//! Messages are JSON text; a `Load` request carries its files' bytes as transferred ArrayBuffers
//! next to the JSON (same order as `paths`). The worker keeps every scored run; the page asks for
//! one screenful at a time (an overview, a page of items, one conversation), so a 100k-turn run
//! never crosses to the main thread in bulk.

use serde::{Deserialize, Serialize};

use evalboard_engine::model::InputFileReport;
use evalboard_engine::scorers::ScoreConfig;
use evalboard_engine::views::{ConversationView, ItemPage, ItemQuery, Overview};
use evalboard_engine::Diagnostic;

pub type RunId = u32;
pub type ReqId = u64;

/// Page → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Read and score a run folder. `paths[i]` names the i-th transferred buffer.
    Load {
        run_id: RunId,
        name: String,
        paths: Vec<String>,
        #[serde(default)]
        demo: bool,
    },
    /// Re-score every run with new settings.
    Configure {
        config: ScoreConfig,
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
    Conversation {
        req: ReqId,
        run_id: RunId,
        conv: u32,
    },
    /// One output file of the current settings: statistics.json, summary.csv, turns.csv,
    /// errors.csv or validation.csv.
    Export {
        req: ReqId,
        run_id: RunId,
        file: String,
    },
    /// The single-file offline HTML report of a run, compared with `baseline` when given. The
    /// page supplies the generation time (the worker reads no clock for reports). Answered with
    /// `Response::Export` (file `evalboard-report-<run>.html`).
    Report {
        req: ReqId,
        run_id: RunId,
        #[serde(default)]
        baseline: Option<RunId>,
        generated_at: String,
    },
}

/// A chart as the report crate draws it, with its text equivalent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartDto {
    pub key: String,
    pub title: String,
    pub svg: String,
    pub alt: String,
    pub table: Vec<Vec<String>>,
}

/// What the page needs to list a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub run_id: RunId,
    pub name: String,
    pub demo: bool,
    pub family: String,
    pub n_conversations: usize,
    pub n_turns: usize,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
    /// Numerical accuracy under the current settings, for the run list.
    pub numerical_accuracy: Option<f64>,
    /// Milliseconds the worker spent reading + scoring (performance.now(), worker side).
    pub load_ms: f64,
    /// Size of the worker's wasm linear memory after loading (its high-water mark).
    pub wasm_memory_bytes: Option<u64>,
}

/// Worker → page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
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
    },
    /// Sent after `Configure`: every run was re-scored.
    Rescored {
        runs: Vec<RunInfo>,
    },
    Overview {
        req: ReqId,
        run_id: RunId,
        overview: Box<Overview>,
        charts: Vec<ChartDto>,
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
}
