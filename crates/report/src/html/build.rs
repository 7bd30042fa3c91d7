//! Small HTML building blocks shared by the report's sections: tables, cards, headings, number
//! formats, chart figures, filter boxes, capped-table notes and the diagnostics list. Every
//! input-derived string goes through [`escape_html`]; only [`Cell::html`] takes markup, and it is
//! only ever built here from escaped parts.

use std::fmt::Write as _;

use std::borrow::Cow;

use evalboard_engine::text::{clip, MAX_TEXT};

use super::encode::{base64, escape_html, gzip};
use super::HtmlOptions;
use crate::charts::{bar_chart, named, opts, NamedChart, Theme};

/// One table cell.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// Escaped markup of the cell's content.
    html: String,
    /// Sort key (`data-v`), a number as text.
    sort: Option<String>,
    numeric: bool,
    class: Option<&'static str>,
    /// The text was cut ([`clip`]).
    cut: bool,
}

impl Cell {
    /// Plain text (escaped here), cut at [`MAX_TEXT`] characters with its length said.
    pub fn text(s: &str) -> Cell {
        let shown = clip(s);
        Cell {
            html: escape_html(&shown),
            cut: matches!(shown, Cow::Owned(_)),
            ..Default::default()
        }
    }
    /// Long free text (questions, answers): wraps anywhere.
    pub fn long(s: &str) -> Cell {
        Cell {
            class: Some("eb-t"),
            ..Cell::text(s)
        }
    }
    /// A right-aligned number shown as `shown`, sorted by `v` (missing sorts first).
    pub fn num(shown: &str, v: Option<f64>) -> Cell {
        Cell {
            html: escape_html(shown),
            sort: Some(
                v.filter(|x| x.is_finite())
                    .map_or("-1e308".into(), |x| x.to_string()),
            ),
            numeric: true,
            class: None,
            cut: false,
        }
    }
    /// A verdict mark: ✓ / ✗ / – (missing).
    pub fn verdict(v: Option<bool>) -> Cell {
        let (html, class, sort) = match v {
            Some(true) => ("✓ yes", "eb-ok", "1"),
            Some(false) => ("✗ no", "eb-bad", "0"),
            None => ("–", "eb-muted", "-1"),
        };
        Cell {
            html: html.into(),
            sort: Some(sort.into()),
            numeric: false,
            class: Some(class),
            cut: false,
        }
    }
    /// Markup built from already escaped parts (diffs).
    pub(crate) fn html(markup: String, class: Option<&'static str>) -> Cell {
        Cell {
            html: markup,
            class,
            ..Default::default()
        }
    }
}

/// A table row: optional `class` and `data-verdict` (both from fixed vocabularies).
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub class: Option<&'static str>,
    pub verdict: Option<&'static str>,
    pub cells: Vec<Cell>,
}

/// A table header: label and whether the column is numeric.
pub type Head<'a> = (&'a str, bool);

/// Options of [`table`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TableOpts<'a> {
    pub id: Option<&'a str>,
    pub class: &'a str,
    pub sortable: bool,
    pub scroll: bool,
}

pub fn table(out: &mut String, heads: &[Head], rows: &[Row], o: TableOpts) {
    if o.scroll {
        out.push_str("<div class=\"eb-scroll\">");
    }
    out.push_str("<table");
    if let Some(id) = o.id {
        let _ = write!(out, " id=\"{}\"", escape_html(id));
    }
    let mut class = o.class.to_string();
    if o.sortable {
        class.push_str(" eb-sortable");
    }
    if !class.trim().is_empty() {
        let _ = write!(out, " class=\"{}\"", escape_html(class.trim()));
    }
    out.push_str("><thead><tr>");
    for (h, numeric) in heads {
        if *numeric {
            let _ = write!(out, "<th class=\"eb-n\">{}</th>", escape_html(h));
        } else {
            let _ = write!(out, "<th>{}</th>", escape_html(h));
        }
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in rows {
        out.push_str("<tr");
        if let Some(c) = r.class {
            let _ = write!(out, " class=\"{c}\"");
        }
        if let Some(v) = r.verdict {
            let _ = write!(out, " data-verdict=\"{v}\"");
        }
        out.push('>');
        for c in &r.cells {
            out.push_str("<td");
            let class = match (c.numeric, c.class) {
                (true, Some(k)) => Some(format!("eb-n {k}")),
                (true, None) => Some("eb-n".to_string()),
                (false, Some(k)) => Some(k.to_string()),
                (false, None) => None,
            };
            if let Some(k) = class {
                let _ = write!(out, " class=\"{k}\"");
            }
            if let Some(v) = &c.sort {
                let _ = write!(out, " data-v=\"{}\"", escape_html(v));
            }
            let _ = write!(out, ">{}</td>", c.html);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>");
    if o.scroll {
        out.push_str("</div>");
    }
    out.push('\n');
}

/// A two-column key/value table (both plain text).
pub fn kv_table(out: &mut String, rows: &[(String, String)]) {
    out.push_str("<table class=\"eb-kv\"><tbody>\n");
    for (k, v) in rows {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape_html(k),
            escape_html(&clip(v))
        );
    }
    out.push_str("</tbody></table>\n");
}

/// A headline card. `key` is the statistics.json key (or another stable id), `raw` the exact
/// number behind the shown text (for tests and copy/paste).
pub fn card(
    out: &mut String,
    key: &str,
    label: &str,
    shown: &str,
    raw: Option<String>,
    main: bool,
) {
    card_defined(out, key, label, shown, raw, main, "");
}

/// [`card`] with the metric's definition written under its value (none when empty).
pub fn card_defined(
    out: &mut String,
    key: &str,
    label: &str,
    shown: &str,
    raw: Option<String>,
    main: bool,
    definition: &str,
) {
    let _ = write!(
        out,
        "<div class=\"eb-card{}\" data-metric=\"{}\"",
        if main { " eb-main" } else { "" },
        escape_html(key)
    );
    if let Some(r) = raw {
        let _ = write!(out, " data-value=\"{}\"", escape_html(&r));
    }
    let _ = write!(
        out,
        "><div class=\"eb-k\">{}</div><div class=\"eb-v\">{}</div>",
        escape_html(label),
        escape_html(shown)
    );
    if !definition.is_empty() {
        let _ = write!(out, "<div class=\"eb-d\">{}</div>", escape_html(definition));
    }
    out.push_str("</div>\n");
}

/// One card per count in `statistics` (`n/a` when absent), none of them the main one.
pub fn count_cards(out: &mut String, statistics: &serde_json::Value, keys: &[&str]) {
    for k in keys {
        let v = statistics.get(*k).and_then(serde_json::Value::as_u64);
        card(
            out,
            k,
            k,
            &v.map_or("n/a".into(), int),
            v.map(|x| x.to_string()),
            false,
        );
    }
}

pub fn h(out: &mut String, level: u8, id: &str, text: &str) {
    let _ = writeln!(
        out,
        "<h{level} id=\"{}\">{}</h{level}>",
        escape_html(id),
        escape_html(text)
    );
}

pub fn p(out: &mut String, class: &str, text: &str) {
    let _ = writeln!(out, "<p class=\"{class}\">{}</p>", escape_html(text));
}

/// A fraction as a percentage with one decimal, "n/a" when missing or not finite.
pub fn pct(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map_or_else(|| "n/a".into(), |x| format!("{:.1}%", x * 100.0))
}

/// A number with `d` decimals, "n/a" when missing or not finite.
pub fn num(v: Option<f64>, d: usize) -> String {
    v.filter(|x| x.is_finite())
        .map_or_else(|| "n/a".into(), |x| format!("{x:.d$}"))
}

/// An integer with thousands separators (1234567 → "1,234,567").
pub fn int(n: u64) -> String {
    evalboard_engine::run_meta::fmt_int(n)
}

/// A JSON value as short plain text (strings unquoted, null as "n/a").
pub fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "n/a".into(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// Writes one chart as a figure with its data table folded below.
pub(crate) fn figure(out: &mut String, c: &NamedChart) {
    let _ = write!(
        out,
        "<figure class=\"eb-chart\" data-chart=\"{}\">{}",
        escape_html(&c.key),
        c.svg
    );
    let _ = write!(out, "<figcaption>{}</figcaption>", escape_html(&c.alt));
    if let Some((head, rows)) = c.table.split_first() {
        out.push_str("<details><summary>Data</summary>");
        let heads: Vec<Head> = head.iter().map(|s| (s.as_str(), false)).collect();
        let rows: Vec<Row> = rows
            .iter()
            .map(|r| Row {
                cells: r.iter().map(|s| Cell::text(s)).collect(),
                ..Default::default()
            })
            .collect();
        table(out, &heads, &rows, TableOpts::default());
        out.push_str("</details>");
    }
    out.push_str("</figure>\n");
}

/// A light-themed bar chart under `key`, written as a [`figure`].
pub(crate) fn bar_figure(
    out: &mut String,
    key: &str,
    title: &str,
    y_label: &str,
    bars: &[(String, Option<f64>)],
    percent: bool,
) {
    let chart = bar_chart(title, y_label, bars, &opts(Theme::Light, percent));
    figure(out, &named(key, title, chart));
}

/// The diagnostics list (capped).
pub(crate) fn diagnostics(
    out: &mut String,
    diags: &[evalboard_engine::Diagnostic],
    o: &HtmlOptions,
) {
    if diags.is_empty() {
        p(out, "eb-muted", "No diagnostics.");
        return;
    }
    let _ = writeln!(
        out,
        "<details><summary>{} diagnostic(s)</summary><ul class=\"eb-mono\">",
        int(diags.len() as u64)
    );
    for d in diags.iter().take(o.max_diagnostics) {
        let _ = writeln!(out, "<li>{}</li>", escape_html(&d.to_string()));
    }
    out.push_str("</ul></details>\n");
    if diags.len() > o.max_diagnostics {
        p(
            out,
            "eb-note",
            &format!(
                "Showing the first {} of {} diagnostics.",
                int(o.max_diagnostics as u64),
                int(diags.len() as u64)
            ),
        );
    }
}

/// The verdict filter of an items table judged correct / wrong / unscored.
pub(crate) const VERDICTS: [(&str, &str); 3] = [
    ("correct", "Correct"),
    ("wrong", "Wrong"),
    ("unscored", "Unscored"),
];

/// A row's `data-verdict` for [`VERDICTS`].
pub(crate) fn verdict_slug(c: Option<bool>) -> &'static str {
    match c {
        Some(true) => "correct",
        Some(false) => "wrong",
        None => "unscored",
    }
}

/// An items table: sortable, scrolling, class `eb-items`, id `table_id`.
pub(crate) fn sortable_items(out: &mut String, table_id: &str, heads: &[Head], rows: &[Row]) {
    table(
        out,
        heads,
        rows,
        TableOpts {
            id: Some(table_id),
            class: "eb-items",
            sortable: true,
            scroll: true,
        },
    );
}

/// The filter controls above an items table (hidden until the script shows them).
pub(crate) fn filter_box(out: &mut String, table_id: &str, verdicts: &[(&str, &str)]) {
    let _ = write!(
        out,
        "<div class=\"eb-tools\" data-eb-filter=\"{}\" hidden><input type=\"search\" placeholder=\"Filter rows…\" aria-label=\"Filter rows\">",
        escape_html(table_id)
    );
    if !verdicts.is_empty() {
        out.push_str("<select aria-label=\"Verdict\"><option value=\"\">All verdicts</option>");
        for (v, label) in verdicts {
            let _ = write!(out, "<option value=\"{v}\">{}</option>", escape_html(label));
        }
        out.push_str("</select>");
    }
    out.push_str("<output></output></div>\n");
}

/// The most compressed data one items table embeds as a download (beyond it the note says where
/// the full data comes from instead): a report stays a few megabytes and opens fast.
pub(crate) const MAX_EMBEDDED_GZIP: usize = 4 << 20;

/// The note under an items table that shows `rows` of `total` rows, or whose texts were cut at
/// [`MAX_TEXT`] characters: the full data (`csv()`, made only then) as an embedded gzip download
/// when it fits [`MAX_EMBEDDED_GZIP`]. Nothing when the table is whole.
pub(crate) fn capped_note(
    out: &mut String,
    rows: &[Row],
    total: usize,
    file: &str,
    csv: &dyn Fn() -> String,
) {
    let shown = rows.len();
    let cut = rows
        .iter()
        .filter(|r| r.cells.iter().any(|c| c.cut))
        .count();
    if total <= shown && cut == 0 {
        return;
    }
    let mut said = String::new();
    if total > shown {
        let _ = write!(
            said,
            "The table shows the first {} of {} rows. ",
            int(shown as u64),
            int(total as u64)
        );
    }
    if cut > 0 {
        let _ = write!(
            said,
            "Texts longer than {} characters are cut, with their length said ({} row(s)). ",
            int(MAX_TEXT as u64),
            int(cut as u64)
        );
    }
    let gz = gzip(csv().as_bytes());
    if gz.len() > MAX_EMBEDDED_GZIP {
        let _ = writeln!(
            out,
            "<p class=\"eb-note\" data-capped=\"{total}\">{}The full data ({} KB compressed) is too \
             large to embed in this file: <code>evalboard score --out DIR</code> writes {}.</p>",
            escape_html(&said),
            int(gz.len().div_ceil(1024) as u64),
            escape_html(file),
        );
        return;
    }
    let _ = writeln!(
        out,
        "<p class=\"eb-note\" data-capped=\"{total}\">{}\
         The full data is embedded in this file as a compressed CSV ({} KB): \
         <a class=\"eb-dl\" download=\"{}.gz\" href=\"data:application/gzip;base64,{}\">Download {}.gz</a></p>",
        escape_html(&said),
        int(gz.len().div_ceil(1024) as u64),
        escape_html(file),
        base64(&gz),
        escape_html(file),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(pct(Some(0.5)), "50.0%");
        assert_eq!(pct(Some(-0.0125)), "-1.2%");
        assert_eq!(pct(None), "n/a");
        assert_eq!(pct(Some(f64::NAN)), "n/a");
        assert_eq!(num(Some(1234.5678), 2), "1234.57");
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(1000), "1,000");
        assert_eq!(int(1234567), "1,234,567");
    }

    #[test]
    fn cells_escape_their_text() {
        let mut out = String::new();
        table(
            &mut out,
            &[("<b>", false)],
            &[Row {
                cells: vec![Cell::text("<img src=x onerror=alert(1)>")],
                ..Default::default()
            }],
            TableOpts::default(),
        );
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(out.contains("<th>&lt;b&gt;</th>"));
        assert!(!out.contains("<img"));
    }
}
