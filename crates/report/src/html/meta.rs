//! Run metadata in the report: what a run is, the metadata of several runs
//! side by side, and their training loss curves overlaid. Shared by the comparison and series
//! sections and the page's embedded data.

use evalboard_engine::run_meta::{MetaRow, RunMeta};

use super::build::{figure, table, Cell, Head, Row, TableOpts};
use crate::charts::Theme;
use crate::compare_charts::loss_curve_chart;

/// The metadata of `runs` side by side; differing rows are marked in a column of their own
/// ("≠ differs"), not only by colour.
pub(crate) fn meta_table(out: &mut String, names: &[&str], rows: &[MetaRow]) {
    if rows.is_empty() {
        return;
    }
    let mut heads: Vec<Head> = vec![("Field", false)];
    heads.extend(names.iter().map(|n| (*n, false)));
    heads.push(("", false));
    let body: Vec<Row> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![Cell::text(&r.label)];
            cells.extend(
                r.values
                    .iter()
                    .map(|v| Cell::long(v.as_deref().unwrap_or("—"))),
            );
            cells.push(Cell::text(if r.differs { "≠ differs" } else { "same" }));
            Row {
                class: r.differs.then_some("eb-differs"),
                verdict: Some(if r.differs { "differs" } else { "same" }),
                cells,
            }
        })
        .collect();
    table(
        out,
        &heads,
        &body,
        TableOpts {
            class: "eb-meta",
            scroll: true,
            ..Default::default()
        },
    );
}

/// The loss curves of `runs` overlaid, when any of them carries training metrics.
pub(crate) fn loss_figure(out: &mut String, runs: &[(&str, &RunMeta)]) {
    let curves: Vec<(&str, &[(u64, f64)])> = runs
        .iter()
        .map(|(n, m)| (*n, m.loss_curve.as_slice()))
        .collect();
    if let Some(c) = loss_curve_chart(&curves, Theme::Light) {
        figure(out, &c);
    }
}
