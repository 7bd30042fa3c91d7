//! The single-file offline HTML report: scored runs (+ an optional baseline) → one `.html` with
//! every style, chart (inline SVG), script and datum inside, and nothing to fetch.
//!
//! Pure: the caller passes the generation time and the input files' provenance; this module
//! reads no clock and no file. Security: every input-derived string goes through
//! [`escape_html`]; JSON in `<script>` goes through [`json_for_script`]; the page carries a
//! Content-Security-Policy (`default-src 'none'`, the one inline script and style allowed by
//! their SHA-256 hashes, `connect-src 'none'`), so even a missed escape could not run a script
//! or load anything.

mod assets;
mod build;
pub(crate) mod codegen;
mod cohorts;
mod compare;
mod encode;
pub(crate) mod evallog;
pub(crate) mod evalset;
mod human;
mod many;
mod meta;
pub(crate) mod qa;
mod series;

use std::fmt::Write as _;

use evalboard_engine::compare::many::{compare_many_in, ManyComparison, ManyRun};
use evalboard_engine::compare::CompareOptions;
use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::score::ScoredQaRun;
use evalboard_engine::run::{FamilySet, RunRef, RunVisitor, ALL_FAMILIES};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use compare::{compare, Comparison};
pub use encode::{base64, csp_hash, escape_html, gzip, json_for_script, sha256_hex};
pub use human::HumanMarks;
pub use series::{series, Series};

use crate::RunOutputPlan;
use build::{h, int, kv_table, p, table, Cell, Row, TableOpts};

/// A scored run of any family, as the report takes it: the engine's one run type.
pub use evalboard_engine::run::RunRef as ReportRun;

/// One input file: which run it belongs to, its path, size and SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileProvenance {
    pub run: String,
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

impl FileProvenance {
    pub fn of(run: &str, path: &str, bytes: &[u8]) -> FileProvenance {
        Self::of_chunked(run, path, bytes, usize::MAX, &mut |_| {})
    }

    /// [`FileProvenance::of`], hashing `chunk` bytes at a time and calling `progress` with the
    /// bytes hashed so far after each chunk (a worker posts progress between chunks, so hashing
    /// a big file never goes silent).
    pub fn of_chunked(
        run: &str,
        path: &str,
        bytes: &[u8],
        chunk: usize,
        progress: &mut dyn FnMut(usize),
    ) -> FileProvenance {
        let mut h = ProvenanceHasher::new(run, path);
        let mut done = 0;
        for part in bytes.chunks(chunk.max(1)) {
            h.update(part);
            done += part.len();
            progress(done);
        }
        h.finish()
    }
}

impl FileProvenance {
    /// A provenance whose SHA-256 was computed elsewhere (the browser's `crypto.subtle`).
    pub fn from_digest(run: &str, path: &str, bytes: u64, sha256: &[u8]) -> FileProvenance {
        FileProvenance {
            run: run.to_string(),
            path: path.to_string(),
            bytes,
            sha256: encode::hex(sha256),
        }
    }
}

/// A [`FileProvenance`] computed block by block, for a file that is never in memory whole (the
/// dashboard's worker streams a big JSONL file through its reader and this hasher together).
pub struct ProvenanceHasher {
    run: String,
    path: String,
    bytes: u64,
    sha: sha2::Sha256,
}

impl ProvenanceHasher {
    pub fn new(run: &str, path: &str) -> ProvenanceHasher {
        use sha2::Digest;
        ProvenanceHasher {
            run: run.to_string(),
            path: path.to_string(),
            bytes: 0,
            sha: sha2::Sha256::new(),
        }
    }

    /// The file's next bytes.
    pub fn update(&mut self, block: &[u8]) {
        use sha2::Digest;
        self.sha.update(block);
        self.bytes += block.len() as u64;
    }

    pub fn finish(self) -> FileProvenance {
        use sha2::Digest;
        FileProvenance {
            run: self.run,
            path: self.path,
            bytes: self.bytes,
            sha256: encode::hex(&self.sha.finalize()),
        }
    }
}

/// Where the report came from. The generation time is passed in (the report reads no clock).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// e.g. `2025-01-31T12:00:00Z`; shown as given.
    pub generated_at: String,
    /// What made it: `evalboard report (CLI)`, `evalboard dashboard`.
    pub generator: String,
    pub files: Vec<FileProvenance>,
}

/// Limits and labels of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Page title; defaults to the run names.
    pub title: Option<String>,
    /// Rows of a per-item table; beyond it the table is cut with a note and the full data is
    /// embedded as a gzip download.
    pub max_table_rows: usize,
    /// Changed items listed per comparison.
    pub max_comparison_rows: usize,
    /// Diagnostics listed per run.
    pub max_diagnostics: usize,
    pub compare: CompareOptions,
    /// How a comparison pairs items: as judged, or per item with its repeats reduced
    /// (`report --by-item`).
    pub pairing: evalboard_engine::compare::Pairing,
    /// What judges the many-runs section's runs (`compare --scorer`: a score's label, scorer or
    /// `task/metric`, a numeric QA or eval-set scorer; `CompareSettings::qa_scorer`); `None`:
    /// each run's headline.
    pub scorer: Option<String>,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        HtmlOptions {
            title: None,
            max_table_rows: 10_000,
            max_comparison_rows: 2_000,
            max_diagnostics: 500,
            compare: CompareOptions::default(),
            pairing: Default::default(),
            scorer: None,
        }
    }
}

/// Everything the report shows.
#[derive(Debug, Clone)]
pub struct ReportInput<'a> {
    pub runs: Vec<ReportRun<'a>>,
    /// Each run is compared with it (regressions first) when present.
    pub baseline: Option<ReportRun<'a>>,
    /// The baseline's companions in the many-runs section: the other logs of its folder, one
    /// baseline per task, each run compared with the baseline of its task (as `evalboard compare
    /// base/ RUN...` reads a folder of several logs, and the dashboard's All runs tab). Empty for
    /// the CLI's `report`, which reads a folder as one run.
    pub task_baselines: Vec<ReportRun<'a>>,
    pub provenance: Provenance,
    pub options: HtmlOptions,
    /// Human-review marks (`report --marks`): a Human review section when present.
    pub human: Option<HumanMarks>,
}

/// The `<meta http-equiv="Content-Security-Policy">` value for a page whose only inline style
/// and script are `css` and `js`.
pub fn content_security_policy(css: &str, js: &str) -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src data:; connect-src 'none'; \
         font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'",
        csp_hash(css),
        csp_hash(js)
    )
}

/// The report as one HTML document.
pub fn render_report(input: &ReportInput) -> String {
    render_report_in::<ALL_FAMILIES>(input)
}

/// [`render_report`] for runs of the families in `FAMILIES` (a consumer's family set,
/// [`evalboard_engine::run::FamilySet`]: a dashboard worker links only its own families'
/// sections); another family's run gets its header and no section.
pub fn render_report_in<const FAMILIES: FamilySet>(input: &ReportInput) -> String {
    let o = &input.options;
    let names: Vec<&str> = input.runs.iter().map(|r| r.name()).collect();
    let title = o
        .title
        .clone()
        .unwrap_or_else(|| format!("evalboard report — {}", names.join(", ")));
    let comparisons: Vec<Comparison> = match &input.baseline {
        Some(b) => input
            .runs
            .iter()
            .map(|r| compare::compare_in::<FAMILIES>(b, r, &o.compare, o.pairing))
            .collect(),
        None => Vec::new(),
    };
    // Three or more runs of one family (the baseline first): a series of consecutive steps.
    let ordered: Vec<ReportRun> = input
        .baseline
        .iter()
        .chain(input.runs.iter())
        .copied()
        .collect();
    let the_series = series::series_in::<FAMILIES>(&ordered, &o.compare);
    // Three or more runs with a baseline: every run against it, as `evalboard compare`.
    let many = match &input.baseline {
        Some(b) if input.runs.len() >= 2 => {
            many_comparison::<FAMILIES>(b, &input.task_baselines, &input.runs, o)
        }
        _ => None,
    };
    let metas: Vec<(String, evalboard_engine::run_meta::RunMeta)> = ordered
        .iter()
        .map(|r| (r.name().to_string(), r.meta()))
        .collect();
    let loss_runs: Vec<(&str, &evalboard_engine::run_meta::RunMeta)> =
        metas.iter().map(|(n, m)| (n.as_str(), m)).collect();
    let reviews = input
        .human
        .as_ref()
        .map(|hm| human::reviews::<FAMILIES>(&input.runs, hm));

    let mut body = String::with_capacity(1 << 16);
    body.push_str("<div class=\"eb-wrap\">\n<header class=\"eb-head\">");
    let _ = write!(body, "<h1>{}</h1>", escape_html(&title));
    let engine = evalboard_engine::numeric_qa::aggregate::doc::ENGINE_VERSION;
    p(
        &mut body,
        "eb-sub",
        &format!(
            "Generated {} by {} · engine {engine} · {} run(s){}",
            input.provenance.generated_at,
            if input.provenance.generator.is_empty() {
                "evalboard"
            } else {
                &input.provenance.generator
            },
            input.runs.len(),
            match &input.baseline {
                Some(b) => format!(" · baseline {}", b.name()),
                None => String::new(),
            }
        ),
    );
    // Table of contents.
    body.push_str("<nav class=\"eb-toc\" aria-label=\"Contents\">");
    if the_series.is_some() {
        body.push_str("<a href=\"#series\">Series</a>");
    }
    if many.is_some() {
        body.push_str("<a href=\"#many\">Runs against the baseline</a>");
    }
    if !comparisons.is_empty() {
        body.push_str("<a href=\"#comparison\">Comparison</a>");
    }
    if input.human.is_some() {
        body.push_str("<a href=\"#human\">Human review</a>");
    }
    if input.runs.len() > 1 {
        body.push_str("<a href=\"#runs\">Runs</a>");
    }
    for (i, r) in input.runs.iter().enumerate() {
        let _ = write!(body, "<a href=\"#run{i}\">{}</a>", escape_html(r.name()));
    }
    body.push_str(
        "<a href=\"#settings\">Settings</a><a href=\"#provenance\">Provenance</a></nav></header>\n",
    );

    if let Some(m) = &many {
        many::section(&mut body, m);
    }
    if let Some(s) = &the_series {
        series::section(&mut body, s, &loss_runs, o);
    }
    if !comparisons.is_empty() {
        body.push_str(
            "<section id=\"comparison\"><h2 class=\"eb-first\">Comparison with the baseline</h2>\n",
        );
        if the_series.is_none() {
            meta::loss_figure(&mut body, &loss_runs);
        }
        for (i, c) in comparisons.iter().enumerate() {
            compare::section(&mut body, i, c, o);
        }
        body.push_str("</section>\n");
    }
    if let (Some(hm), Some(r)) = (&input.human, &reviews) {
        human::section(&mut body, &input.runs, hm, r);
    }
    if input.runs.len() > 1 {
        runs_table::<FAMILIES>(&mut body, &input.runs);
    }

    let mut data_runs = Vec::new();
    for (i, r) in input.runs.iter().enumerate() {
        let _ = writeln!(
            body,
            "<section class=\"eb-run\" id=\"run{i}\" data-run=\"{}\" data-family=\"{}\">",
            escape_html(r.name()),
            r.family()
        );
        // The first section after the header starts on page one when printed.
        let first = i == 0 && comparisons.is_empty() && input.runs.len() == 1;
        let _ = writeln!(
            body,
            "<h2{}>{} <span class=\"eb-muted\">({})</span></h2>",
            if first { " class=\"eb-first\"" } else { "" },
            escape_html(r.name()),
            r.family()
        );
        let stats =
            family_report::<FAMILIES>(*r).map_or(Value::Null, |f| f.section(&mut body, i, o));
        let cohorts = cohorts::of::<FAMILIES>(r, input.baseline.as_ref(), o.scorer.as_deref())
            .map_or(Value::Null, |c| cohorts::section(&mut body, i, &c));
        data_runs.push(json!({"name": r.name(), "family": r.family(), "statistics": stats, "cohorts": cohorts}));
        body.push_str("</section>\n");
    }

    // Settings.
    body.push_str("<section id=\"settings\">");
    h(&mut body, 2, "settings-h", "Scorer settings");
    for r in input.runs.iter().chain(input.baseline.iter()) {
        let _ = writeln!(body, "<h3>{}</h3>", escape_html(r.name()));
        if let Some(f) = family_report::<FAMILIES>(*r) {
            f.settings(&mut body, r.family());
        }
    }
    body.push_str("</section>\n");

    // Provenance.
    body.push_str("<section id=\"provenance\">");
    h(&mut body, 2, "provenance-h", "Provenance");
    kv_table(
        &mut body,
        &[
            ("Engine version".into(), engine.into()),
            ("Generated at".into(), input.provenance.generated_at.clone()),
            ("Generated by".into(), input.provenance.generator.clone()),
            (
                "Input files".into(),
                int(input.provenance.files.len() as u64),
            ),
            (
                "Input bytes".into(),
                int(input.provenance.files.iter().map(|f| f.bytes).sum()),
            ),
        ],
    );
    let rows: Vec<Row> = input
        .provenance
        .files
        .iter()
        .map(|f| Row {
            cells: vec![
                Cell::text(&f.run),
                Cell::long(&f.path),
                Cell::num(&int(f.bytes), Some(f.bytes as f64)),
                Cell::text(&f.sha256),
            ],
            ..Default::default()
        })
        .collect();
    table(
        &mut body,
        &[
            ("Run", false),
            ("File", false),
            ("Bytes", true),
            ("SHA-256", false),
        ],
        &rows,
        TableOpts {
            id: Some("provenance-files"),
            class: "eb-mono-table",
            sortable: true,
            scroll: true,
        },
    );
    body.push_str("</section>\n");
    let _ = writeln!(
        body,
        "<footer>evalboard {engine} · a self-contained report: no external requests; \
         tables sort and filter with the page's own script and stay complete without it.</footer></div>"
    );

    // The data block: statistics as the CLI writes them, comparisons, provenance.
    let mut data = json!({
        "engine_version": engine,
        "generated_at": input.provenance.generated_at,
        "runs": data_runs,
        "baseline": input.baseline.as_ref().map(|b| b.name()),
        "comparisons": comparisons.iter().map(comparison_json).collect::<Vec<Value>>(),
        "files": input.provenance.files,
        "many": many.as_ref().map(ManyComparison::to_json),
        "series": the_series.as_ref().map(|s| json!({
            "runs": s.runs,
            "metrics": s.metrics,
            "steps": s.steps.iter().map(comparison_json).collect::<Vec<Value>>(),
            "table": s.table.as_ref().map(ManyComparison::to_json),
        })),
    });
    // Only with marks: a report without them keeps its data block as before.
    if let (Some(hm), Some(r), Some(obj)) = (&input.human, &reviews, data.as_object_mut()) {
        obj.insert("human".into(), human::json(hm, r));
    }

    let css = assets::CSS;
    let js = assets::JS;
    let mut page = String::with_capacity(body.len() + css.len() + js.len() + 4096);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        page,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        content_security_policy(css, js)
    );
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n");
    let _ = writeln!(
        page,
        "<meta name=\"generator\" content=\"evalboard {engine}\">\n<title>{}</title>",
        escape_html(&title)
    );
    let _ = writeln!(page, "<style>{css}</style>\n</head>\n<body>");
    page.push_str(&body);
    let _ = writeln!(
        page,
        "<script type=\"application/json\" id=\"eb-data\">{}</script>",
        json_for_script(&data)
    );
    let _ = writeln!(page, "<script>{js}</script>\n</body>\n</html>");
    page
}

/// Every run of `runs` against `baseline` ([`compare_many_in`], `evalboard compare`'s numbers),
/// judged as the report's pair comparisons are; `None` when the runs cannot be compared together
/// (runs of two families: the pair sections say why).
fn many_comparison<'a, const FAMILIES: FamilySet>(
    baseline: &ReportRun<'a>,
    task_baselines: &[ReportRun<'a>],
    runs: &[ReportRun<'a>],
    o: &HtmlOptions,
) -> Option<ManyComparison> {
    let settings = evalboard_engine::run::CompareSettings {
        qa_scorer: o.scorer.clone(),
        opts: o.compare.clone(),
        pairing: o.pairing,
    };
    let one = |r: &ReportRun<'a>| ManyRun {
        path: r.name().to_string(),
        run: Ok(*r),
    };
    let others: Vec<ManyRun> = runs.iter().map(one).collect();
    let baselines: Vec<ManyRun> = std::iter::once(baseline)
        .chain(task_baselines)
        .map(one)
        .collect();
    compare_many_in::<FAMILIES>(&baselines, &others, &settings, 1).ok()
}

/// A comparison's numbers for the data block.
/// The keys and values of `evalboard diff --json` (the engine's one comparison), then the
/// report's own: its note, the flip counts and the bootstrap as computed.
fn comparison_json(c: &Comparison) -> Value {
    let mut v = match &c.summary {
        Some(Value::Object(m)) => m.clone(),
        _ => serde_json::Map::new(),
    };
    v.insert("baseline".into(), json!(c.baseline));
    v.insert("candidate".into(), json!(c.candidate));
    v.insert("note".into(), json!(c.note));
    v.insert("flips".into(), json!(c.stats.as_ref().map(|s| s.flips)));
    v.insert(
        "n_paired".into(),
        json!(c.stats.as_ref().map(|s| s.n_paired)),
    );
    v.insert(
        "mcnemar_p".into(),
        json!(c.stats.as_ref().map(|s| s.mcnemar_p)),
    );
    v.insert(
        "bootstrap".into(),
        json!(c.stats.as_ref().map(|s| &s.bootstrap)),
    );
    Value::Object(v)
}

/// The several-runs summary table.
fn runs_table<const FAMILIES: FamilySet>(out: &mut String, runs: &[ReportRun]) {
    out.push_str("<section id=\"runs\"><h2 id=\"runs-h\" class=\"eb-nobreak\">Runs</h2>\n");
    let rows: Vec<Row> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let items = r.counts().1 as u64;
            let head = r.headline_in::<FAMILIES>();
            let headline = head.as_ref().and_then(|m| m.value);
            let label = head.as_ref().map(|m| m.label.as_str()).unwrap_or_default();
            let link = format!("<a href=\"#run{i}\">{}</a>", escape_html(r.name()));
            Row {
                cells: vec![
                    Cell::html(link, None),
                    Cell::text(r.family().name()),
                    Cell::num(&int(items), Some(items as f64)),
                    Cell::num(&build::pct(headline), headline),
                    Cell::text(label),
                ],
                ..Default::default()
            }
        })
        .collect();
    table(
        out,
        &[
            ("Run", false),
            ("Family", false),
            ("Items", true),
            ("Headline", true),
            ("Metric", false),
        ],
        &rows,
        TableOpts {
            sortable: true,
            ..Default::default()
        },
    );
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests;

// The report's one dispatch on a run's family: each family's section of the HTML report, its
// settings table and its output files come from one implementation of [`FamilyReport`], in the
// family's own report module (`html/qa.rs`, `html/evalset.rs`, `html/codegen.rs`,
// `html/evallog.rs`), picked once by a `RunVisitor`, guarded by the consumer's family set (a
// worker links only its own families' report code).

/// What the report makes of a scored run of one family.
pub(crate) trait FamilyReport<'a> {
    /// The family's section of the HTML report for run `idx`; returns the statistics embedded
    /// in the report's data.
    fn section(&self, out: &mut String, idx: usize, o: &HtmlOptions) -> Value;
    /// The run's scorer settings, as the report's Settings section shows them.
    fn settings(&self, out: &mut String, family: Family);
    /// The run's output files (statistics.json and the family's CSVs), not yet made.
    fn output_plan(&self) -> RunOutputPlan<'a>;
}

/// The report's implementation for `run`; `None` for a run of a family outside `FAMILIES`.
pub(crate) fn family_report<'a, const FAMILIES: FamilySet>(
    run: RunRef<'a>,
) -> Option<Box<dyn FamilyReport<'a> + 'a>> {
    run.visit_in::<FAMILIES, _>(Pick)
}

/// Picks the family's [`FamilyReport`].
struct Pick;

impl<'a> RunVisitor<'a> for Pick {
    type Out = Box<dyn FamilyReport<'a> + 'a>;
    fn numeric_qa(self, run: &'a ScoredQaRun) -> Self::Out {
        Box::new(qa::Report(run))
    }
    fn codegen(self, run: &'a evalboard_engine::codegen::Loaded) -> Self::Out {
        Box::new(codegen::Report(run))
    }
    fn evalset(
        self,
        read: &'a evalboard_engine::evalset::EvalRun,
        scored: &'a evalboard_engine::evalset::ScoredRun,
    ) -> Self::Out {
        Box::new(evalset::Report(read, scored))
    }
    fn eval_log(self, run: &'a evalboard_engine::evallog::ScoredLog) -> Self::Out {
        Box::new(evallog::Report(run))
    }
}
