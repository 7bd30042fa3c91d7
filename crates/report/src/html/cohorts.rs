//! A run's failure cohorts in the report (`engine::cohorts`): the same numbers as
//! `evalboard cohorts RUN [--baseline B] --json`, which the data block carries (each cohort's
//! items left out: its `query` finds them).

use evalboard_engine::cohorts::{cohorts, Cohorts};
use evalboard_engine::run::FamilySet;
use serde_json::Value;

use super::build::{h, p, table, Cell, Head, Row, TableOpts};
use super::ReportRun;

/// Most cohorts listed; the data block has them all.
const MAX_ROWS: usize = 50;

/// The cohorts of `run` judged by `judge` (the run's own when it cannot judge it), against
/// `baseline`'s when given and of the same family.
pub(crate) fn of<const FAMILIES: FamilySet>(
    run: &ReportRun,
    baseline: Option<&ReportRun>,
    judge: Option<&str>,
) -> Option<Cohorts> {
    let docs = |r: &ReportRun| {
        r.query_docs_in::<FAMILIES>(judge)
            .or_else(|_| r.query_docs_in::<FAMILIES>(None))
            .ok()
    };
    let base = baseline
        .filter(|b| b.family() == run.family())
        .and_then(&docs)
        .map(|d| cohorts(&d, None));
    Some(cohorts(&docs(run)?, base.as_ref()))
}

/// The section: the cohorts table with each one's example; returns the data block's value.
pub(crate) fn section(out: &mut String, idx: usize, c: &Cohorts) -> Value {
    h(out, 3, &format!("run{idx}-cohorts"), "Failure cohorts");
    if c.n_failed == 0 {
        p(out, "eb-muted", &format!("No item of {} fails.", c.n_items));
        return c.to_json_with(false);
    }
    p(
        out,
        "eb-muted",
        &format!(
            "{} of {} items fail (judged by {}), grouped by cause: the verdict, the why reason, the \
             error message with numbers, ids, paths and quoted values masked, and the error class.",
            c.n_failed, c.n_items, c.judge
        ),
    );
    let with_baseline = c.cohorts.iter().any(|x| x.vs_baseline.is_some());
    let mut heads: Vec<Head> = vec![("Items", true), ("Share", true)];
    if with_baseline {
        heads.push(("Against the baseline", false));
    }
    heads.extend([("Cohort", false), ("Example", false)]);
    let rows: Vec<Row> = c
        .cohorts
        .iter()
        .take(MAX_ROWS)
        .map(|x| {
            let mut cells = vec![
                Cell::num(&x.n.to_string(), Some(x.n as f64)),
                Cell::num(&format!("{:.1}%", x.share * 100.0), Some(x.share)),
            ];
            if with_baseline {
                cells.push(Cell::text(&match &x.vs_baseline {
                    Some(v) => format!("{} (was {})", v.status.word(), v.baseline_n),
                    None => String::new(),
                }));
            }
            cells.push(Cell::text(&x.label));
            cells.push(Cell::long(&match &x.example {
                Some(e) => format!("{}: {}", e.item, e.text),
                None => String::new(),
            }));
            Row {
                class: None,
                verdict: None,
                cells,
            }
        })
        .collect();
    table(
        out,
        &heads,
        &rows,
        TableOpts {
            id: Some(&format!("run{idx}-cohorts-table")),
            class: "eb-cohorts",
            sortable: false,
            scroll: true,
        },
    );
    if c.cohorts.len() > MAX_ROWS {
        p(
            out,
            "eb-muted",
            &format!(
                "The first {MAX_ROWS} of {} cohorts; the report's data has them all.",
                c.cohorts.len()
            ),
        );
    }
    c.to_json_with(false)
}
