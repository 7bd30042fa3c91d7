//! The report's Human review section (`report --marks`): for each run with marks of its content
//! id, the headline with human overrides beside the original, each scorer's agreement with the
//! marks (κ and the confusion matrix) and the marked items with the scorer's verdict beside the
//! human's — the "human" column. Reviews are the engine's ([`marks::review_in`]); every text,
//! notes included, goes through the report's one escaper (the table cells).

use std::fmt::Write as _;

use evalboard_engine::marks::{self, MarkSet, Review};
use evalboard_engine::run::FamilySet;
use evalboard_engine::stats::Rate;
use serde_json::{json, Value};

use super::build::{h, int, kv_table, p, pct, table, Cell, Row, TableOpts};
use super::{escape_html, ReportRun};

/// Human-review marks given with the runs: the sidecar's name, its marks, and each run's content
/// id in the order of [`super::ReportInput::runs`] (`None`: unknown, no mark can match it).
#[derive(Debug, Clone, Default)]
pub struct HumanMarks {
    pub file: String,
    pub marks: MarkSet,
    pub content_ids: Vec<Option<String>>,
}

/// Each run's review (`None`: no mark of its content id, or it cannot be judged alone).
pub(super) fn reviews<const FAMILIES: FamilySet>(
    runs: &[ReportRun],
    human: &HumanMarks,
) -> Vec<Option<Review>> {
    runs.iter()
        .enumerate()
        .map(|(i, r)| {
            let id = human.content_ids.get(i)?.as_deref()?;
            marks::review_in::<FAMILIES>(r, id, &human.marks)
                .ok()
                .flatten()
        })
        .collect()
}

fn rate(r: &Rate) -> String {
    format!("{} ({} of {})", pct(r.value()), int(r.correct), int(r.n))
}

/// The section.
pub(super) fn section(
    out: &mut String,
    runs: &[ReportRun],
    human: &HumanMarks,
    reviews: &[Option<Review>],
) {
    out.push_str("<section id=\"human\">");
    h(out, 2, "human-h", "Human review");
    let ids: Vec<&str> = human
        .content_ids
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let other = human.marks.not_in(&ids);
    let mut said = format!(
        "Marks from {}: a person's verdicts, shown beside the scorers' (never in place of them).",
        human.file
    );
    if !other.is_empty() {
        let items: usize = other.iter().map(|r| r.items.len()).sum();
        let _ = write!(
            said,
            " {items} mark(s) of {} run(s) not applied: their content id is none of these runs' \
             (other bytes).",
            other.len()
        );
    }
    p(out, "eb-muted", &said);
    for (i, r) in runs.iter().enumerate() {
        let _ = writeln!(out, "<h3>{}</h3>", escape_html(r.name()));
        let id = human.content_ids.get(i).cloned().flatten();
        let Some(review) = reviews.get(i).and_then(Option::as_ref) else {
            p(
                out,
                "eb-muted",
                &format!(
                    "No mark for this run's content id ({}): none applied.",
                    id.as_deref().unwrap_or("unknown")
                ),
            );
            continue;
        };
        let a = &review.applied;
        let mut rows = vec![
            ("Content id".to_string(), review.content_id.clone()),
            (format!("Headline ({})", a.judge), rate(&a.original)),
            ("With human overrides".to_string(), rate(&a.with_overrides)),
            (
                "Marks applied".to_string(),
                format!(
                    "{} ({} verdict(s) changed; {} on items this run does not have)",
                    int(a.applied),
                    int(a.changed),
                    int(a.unknown_keys.len() as u64)
                ),
            ),
        ];
        if let Some(m) = a.mean_with_scores {
            rows.push(("Mean with score overrides".into(), format!("{m:.4}")));
        }
        kv_table(out, &rows);
        let agreement: Vec<Row> = review
            .agreement
            .iter()
            .map(|g| {
                let c = &g.confusion;
                let n = |x: u64| Cell::num(&int(x), Some(x as f64));
                Row {
                    cells: vec![
                        Cell::text(&g.label),
                        n(g.n),
                        match g.kappa {
                            Some(k) => Cell::num(&format!("{k:.3}"), Some(k)),
                            None => Cell::text(&format!(
                                "undefined: {}",
                                g.kappa_undefined.as_deref().unwrap_or("")
                            )),
                        },
                        n(c.both_correct),
                        n(c.scorer_only),
                        n(c.human_only),
                        n(c.both_wrong),
                        n(g.disagree.len() as u64),
                    ],
                    ..Default::default()
                }
            })
            .collect();
        table(
            out,
            &[
                ("Scorer", false),
                ("n", true),
                ("Cohen's κ", true),
                ("✓ both", true),
                ("scorer ✓ human ✗", true),
                ("scorer ✗ human ✓", true),
                ("✗ both", true),
                ("scorer ≠ human", true),
            ],
            &agreement,
            TableOpts {
                id: Some(&format!("human-agreement-{i}")),
                class: "",
                sortable: false,
                scroll: true,
            },
        );
        let items: Vec<Row> = review
            .items
            .iter()
            .map(|m| Row {
                cells: vec![
                    Cell::text(&m.key.to_string()),
                    Cell::verdict(m.scorer),
                    Cell::verdict(m.mark.map(marks::Mark::is_correct)),
                    match m.score {
                        Some(s) => Cell::num(&format!("{s}"), Some(s)),
                        None => Cell::text(""),
                    },
                    Cell::long(m.note.as_deref().unwrap_or("")),
                    Cell::num(&int(m.changes as u64), Some(m.changes as f64)),
                ],
                ..Default::default()
            })
            .collect();
        table(
            out,
            &[
                ("Item", false),
                ("Scorer", false),
                ("Human", false),
                ("Score override", true),
                ("Note", false),
                ("Changes", true),
            ],
            &items,
            TableOpts {
                id: Some(&format!("human-items-{i}")),
                class: "",
                sortable: true,
                scroll: true,
            },
        );
    }
    out.push_str("</section>\n");
}

/// The data block's `human`: the file and each run's review (null: none).
pub(super) fn json(human: &HumanMarks, reviews: &[Option<Review>]) -> Value {
    json!({
        "marks_file": human.file,
        "runs": reviews
            .iter()
            .map(|r| r.as_ref().map_or(Value::Null, Review::to_json))
            .collect::<Vec<Value>>(),
    })
}
