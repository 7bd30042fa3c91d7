//! The comparison section: a candidate run against the baseline, regressions first
//! (flips, McNemar exact p, paired bootstrap CI, answer diffs).

use std::fmt::Write as _;

use evalboard_engine::compare::{
    diff_text, words::EQUAL_AS_NUMBERS, CompareOptions, DiffKind, Flip, PairedComparison,
    PairedItem, Pairing,
};
use evalboard_engine::run::{self, CompareError, CompareSettings, RunComparison};
use evalboard_engine::run_meta::{side_by_side, MetaRow};
use evalboard_engine::text::clip;
use serde::Serialize;
use serde_json::Value;

use super::build::{card, filter_box, int, kv_table, p, pct, table, Cell, Row, TableOpts};
use super::encode::escape_html;
use super::meta::meta_table;
use super::{HtmlOptions, ReportRun};

/// One candidate-vs-baseline comparison, as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub baseline: String,
    pub candidate: String,
    /// Why the runs could not be compared item by item (different families, no per-item data),
    /// and what to keep in mind (different profiles, keys seen twice).
    pub note: Option<String>,
    pub stats: Option<PairedComparison>,
    /// Baseline and candidate metadata side by side.
    pub meta: Vec<MetaRow>,
    /// The comparison as `evalboard diff --json` prints it (the engine's one comparison).
    pub summary: Option<Value>,
    /// How items were paired, when it needs saying (by item with their repeats reduced, or per
    /// repeat).
    pub pairing: Option<String>,
}

/// Compares `candidate` with `baseline` through the engine's one comparison
/// ([`evalboard_engine::run::compare`]), judged as `evalboard diff` judges them.
pub fn compare(
    baseline: &ReportRun,
    candidate: &ReportRun,
    opts: &CompareOptions,
    pairing: Pairing,
) -> Comparison {
    compare_in::<{ run::ALL_FAMILIES }>(baseline, candidate, opts, pairing)
}

/// [`compare`] for runs of the families in `FAMILIES` (a consumer's family set).
pub fn compare_in<const FAMILIES: run::FamilySet>(
    baseline: &ReportRun,
    candidate: &ReportRun,
    opts: &CompareOptions,
    pairing: Pairing,
) -> Comparison {
    let settings = CompareSettings {
        qa_scorer: None,
        opts: opts.clone(),
        pairing,
    };
    comparison(
        baseline,
        candidate,
        Some(run::compare_in::<FAMILIES>(
            *baseline, *candidate, &settings,
        )),
        side_by_side(&[&baseline.meta(), &candidate.meta()]),
    )
}

/// The report's view of the engine's comparison of two runs (`None`: not compared), with their
/// metadata side by side.
pub(crate) fn comparison(
    baseline: &ReportRun,
    candidate: &ReportRun,
    result: Option<Result<RunComparison, CompareError>>,
    meta: Vec<MetaRow>,
) -> Comparison {
    let mut c = Comparison {
        baseline: baseline.name().to_string(),
        candidate: candidate.name().to_string(),
        note: None,
        stats: None,
        meta,
        summary: None,
        pairing: None,
    };
    match result {
        Some(Ok(r)) => {
            c.note = r.notes();
            c.pairing = r.pairing.clone();
            c.summary = Some(r.to_json());
            c.stats = Some(r.stats);
        }
        Some(Err(e)) => c.note = Some(format!("{e}; no item-level comparison.")),
        None => {}
    }
    c
}

fn num4(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{v:.4}"))
}

fn signed4(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{v:+.4}"))
}

/// Escaped markup of a word diff: deletions struck, insertions marked.
fn diff_html(a: &str, b: &str) -> String {
    let mut out = String::new();
    for span in diff_text(a, b) {
        let t = escape_html(&span.text);
        match span.kind {
            // Two spellings of one number (`4.5` / `4.50`): the baseline's, the other's noted.
            DiffKind::Equal => match &span.other {
                Some(o) => {
                    let _ = write!(
                        out,
                        "{t}<small> (= {}, {EQUAL_AS_NUMBERS})</small>",
                        escape_html(o)
                    );
                }
                None => out.push_str(&t),
            },
            DiffKind::Delete => {
                let _ = write!(out, "<del>{t}</del>");
            }
            DiffKind::Insert => {
                let _ = write!(out, "<ins>{t}</ins>");
            }
        }
    }
    out
}

fn flip_order(f: Flip) -> u8 {
    match f {
        Flip::Regressed => 0,
        Flip::Improved => 1,
        Flip::OnlyInBaseline => 2,
        Flip::OnlyInCandidate => 3,
        Flip::UnchangedWrong => 4,
        Flip::UnchangedCorrect => 5,
        Flip::Unscored => 6,
    }
}

/// Renders comparison `i`.
pub(crate) fn section(out: &mut String, i: usize, c: &Comparison, o: &HtmlOptions) {
    section_with_id(out, &format!("cmp{i}"), c, o);
}

/// Renders a comparison under the anchor `id` (`cmp0`, `ser1`, …).
pub(crate) fn section_with_id(out: &mut String, id: &str, c: &Comparison, o: &HtmlOptions) {
    let _ = writeln!(
        out,
        "<h3 id=\"{}\">{} → {}</h3>",
        escape_html(id),
        escape_html(&c.baseline),
        escape_html(&c.candidate)
    );
    if let Some(n) = &c.note {
        p(out, "eb-note", n);
    }
    if !c.meta.is_empty() {
        out.push_str("<details class=\"eb-meta-details\" open><summary>Run metadata (≠ marks a difference)</summary>");
        meta_table(out, &[&c.baseline, &c.candidate], &c.meta);
        out.push_str("</details>\n");
    }
    if let Some(pairing) = &c.pairing {
        p(out, "eb-muted", &format!("Pairing: {pairing}."));
    }
    let Some(s) = &c.stats else {
        return;
    };
    let f = &s.flips;
    out.push_str("<div class=\"eb-cards\">\n");
    card(
        out,
        "regressed",
        "Regressed (right → wrong)",
        &int(f.regressed),
        Some(f.regressed.to_string()),
        true,
    );
    card(
        out,
        "improved",
        "Improved (wrong → right)",
        &int(f.improved),
        Some(f.improved.to_string()),
        false,
    );
    card(
        out,
        "accuracy_delta",
        "Accuracy change (paired)",
        &s.accuracy_delta
            .map_or("n/a".into(), |d| format!("{:+.1} points", d * 100.0)),
        s.accuracy_delta.map(|x| x.to_string()),
        false,
    );
    card(
        out,
        "mcnemar_p",
        "McNemar exact p",
        &evalboard_engine::compare::p_value_text(s.mcnemar_p),
        Some(s.mcnemar_p.to_string()),
        false,
    );
    out.push_str("</div>\n");
    let ci = match (s.bootstrap.low, s.bootstrap.high) {
        (Some(l), Some(hh)) => format!("[{:+.1}, {:+.1}] points", l * 100.0, hh * 100.0),
        _ => "n/a".into(),
    };
    let mut rows: Vec<(String, String)> = vec![
        ("Paired items (scored in both)".into(), int(s.n_paired)),
        (
            "Baseline accuracy (paired)".into(),
            pct(s.baseline_accuracy),
        ),
        (
            "Candidate accuracy (paired)".into(),
            pct(s.candidate_accuracy),
        ),
        (
            format!(
                "95% paired bootstrap CI of the change ({} resamples, seed {})",
                s.bootstrap.resamples, s.bootstrap.seed
            ),
            ci,
        ),
    ];
    // Paired by item: the mean reduced values and their item-clustered CI.
    if let Some(m) = &s.by_item {
        rows.push((
            "Mean reduced value by item (baseline → candidate)".into(),
            format!(
                "{}: {} → {}, change {} (item-clustered 95% CI [{}, {}]; McNemar {})",
                m.reducer,
                num4(m.baseline_mean),
                num4(m.candidate_mean),
                signed4(m.delta),
                signed4(m.ci_low),
                signed4(m.ci_high),
                if m.binary {
                    "applies: every value is 0 or 1"
                } else {
                    "n/a: values other than 0 and 1"
                }
            ),
        ));
    }
    rows.extend([
        ("Unchanged correct".into(), int(f.unchanged_correct)),
        ("Unchanged wrong".into(), int(f.unchanged_wrong)),
        ("Only in baseline".into(), int(f.only_in_baseline)),
        ("Only in candidate".into(), int(f.only_in_candidate)),
        ("Scored in neither".into(), int(f.unscored)),
    ]);
    kv_table(out, &rows);
    // Changed items, regressions first; unchanged items are only counted.
    let mut changed: Vec<&PairedItem> = s
        .pairs
        .iter()
        .filter(|x| !matches!(x.flip(), Flip::UnchangedCorrect | Flip::UnchangedWrong))
        .collect();
    changed.sort_by_key(|x| flip_order(x.flip()));
    let total = changed.len();
    if total == 0 {
        p(out, "eb-muted", "No item changed its verdict.");
        return;
    }
    let rows: Vec<Row> = changed
        .iter()
        .take(o.max_comparison_rows)
        .map(|x| {
            let flip = x.flip();
            let b = x.baseline_answer.as_deref().unwrap_or("");
            let k = x.candidate_answer.as_deref().unwrap_or("");
            Row {
                class: match flip {
                    Flip::Regressed => Some("eb-regressed"),
                    Flip::Improved => Some("eb-improved"),
                    _ => None,
                },
                verdict: Some(flip.slug()),
                cells: vec![
                    Cell::text(flip.slug()),
                    Cell::text(&x.key.to_string()),
                    Cell::long(x.expected.as_deref().unwrap_or("")),
                    Cell::long(b),
                    Cell::long(k),
                    Cell::html(diff_html(&clip(b), &clip(k)), Some("eb-t")),
                ],
            }
        })
        .collect();
    let id = format!("{id}-table");
    filter_box(
        out,
        &id,
        &[
            (Flip::Regressed.slug(), "Regressed"),
            (Flip::Improved.slug(), "Improved"),
        ],
    );
    if total > rows.len() {
        p(
            out,
            "eb-note",
            &format!(
                "Showing the first {} of {} changed items (regressions first).",
                int(rows.len() as u64),
                int(total as u64)
            ),
        );
    }
    table(
        out,
        &[
            ("Change", false),
            ("Item", false),
            ("Expected", false),
            ("Baseline answer", false),
            ("Candidate answer", false),
            ("Diff", false),
        ],
        &rows,
        TableOpts {
            id: Some(&id),
            class: "eb-compare",
            sortable: true,
            scroll: true,
        },
    );
}
