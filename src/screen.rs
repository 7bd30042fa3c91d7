//! Building blocks of the screens the workers lay out ([`crate::protocol::ScreenView`]: code
//! generation, evaluation-tool logs): cards, tables, notes, the items page. Pure (no browser
//! types), shared by the workers and tested natively; the page renders whatever they build with
//! one set of components (`ui::screen`).

use crate::protocol::{
    Block, Cell, ItemsLayout, ScreenFilter, ScreenRow, ScreenView, Table, TableRow,
};

/// Rows per items page when the query does not say, and the most in one answer.
pub const ITEMS_PAGE: u32 = 200;
const ITEMS_MAX: u32 = 500;
/// A limit asking for every row (the worker's own use: a query narrows a family's whole list).
pub const ALL_ROWS: u32 = u32::MAX;
/// Longest text of one item sent to the page (the rest is cut with a note): the report's too.
pub use evalboard_engine::text::MAX_TEXT;

/// `s`, cut at [`MAX_TEXT`] characters with a note saying so and its length
/// ([`evalboard_engine::text::clip`], as the report cuts its cells).
pub fn clip(s: &str) -> String {
    clip_at(s, MAX_TEXT)
}

/// `s`, cut at `max` characters with a note saying so and its length.
pub fn clip_at(s: &str, max: usize) -> String {
    evalboard_engine::text::clip_at(s, max).into_owned()
}

/// `view` with every bidi control in its texts shown as a visible escape
/// ([`evalboard_engine::text::neutralize_bidi`], the report's rule), so no log text can reorder
/// the text around it on the page. Every screen a worker posts passes here once
/// (`worker::store::post_view`, the one place screens are posted from, the eval-log
/// conversation read from its file included); block keys, filter values (sent back as they
/// are) and SVG (escaped by the charts, which apply the same rule) are left alone.
pub fn neutralize_bidi(view: &mut ScreenView) {
    fn fix(s: &mut String) {
        if let std::borrow::Cow::Owned(n) = evalboard_engine::text::neutralize_bidi(s) {
            *s = n;
        }
    }
    fn blocks(list: &mut [Block]) {
        for b in list {
            match b {
                Block::Cards { cards, .. } => {
                    for (_, label, value, sub) in cards {
                        [label, value, sub].into_iter().for_each(fix);
                    }
                }
                Block::Note { text, .. } | Block::Text { text, .. } | Block::Heading(text) => {
                    fix(text)
                }
                Block::Chart(c) => {
                    [&mut c.title, &mut c.alt].into_iter().for_each(fix);
                    c.table.iter_mut().flatten().for_each(fix);
                }
                Block::Table(t) => {
                    t.title.iter_mut().chain(t.head.iter_mut()).for_each(fix);
                    t.rows
                        .iter_mut()
                        .filter_map(|r| r.key.as_mut())
                        .for_each(fix);
                    for cell in t.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
                        match cell {
                            Cell::Text(x) | Cell::Open(x, _) => fix(x),
                            Cell::Pairs(p) => p.iter_mut().for_each(|(k, v)| {
                                fix(k);
                                fix(v)
                            }),
                        }
                    }
                }
                Block::Facts(f) => f.iter_mut().for_each(|(k, v)| {
                    fix(k);
                    fix(v)
                }),
                Block::Switch { text, label, .. } => {
                    fix(text);
                    fix(label)
                }
                Block::Choice { label, options, .. } => {
                    fix(label);
                    options.iter_mut().for_each(|(_, shown)| fix(shown));
                }
                Block::Code { label, code } => {
                    fix(label);
                    fix(code)
                }
                Block::Diff(d) => {
                    for span in &mut d.spans {
                        fix(&mut span.text);
                        span.other.iter_mut().for_each(fix);
                    }
                    d.whole.iter_mut().for_each(fix);
                }
                Block::Group {
                    title,
                    blocks: inner,
                    ..
                } => {
                    title.iter_mut().for_each(fix);
                    blocks(inner)
                }
                // The user's own note, edited in place: kept as typed (shown as a field's
                // value, never as markup).
                Block::Review { .. } => {}
            }
        }
    }
    fix(&mut view.name);
    blocks(&mut view.blocks);
    view.exports.iter_mut().for_each(|(_, about)| fix(about));
    let layout = &mut view.layout;
    layout.columns.iter_mut().for_each(|(label, _)| fix(label));
    layout.filters.iter_mut().for_each(|f| fix(&mut f.label));
    [&mut layout.search, &mut layout.footnote]
        .into_iter()
        .for_each(fix);
    view.rows
        .iter_mut()
        .flat_map(|r| r.cells.iter_mut())
        .for_each(fix);
    if let Some(item) = &mut view.item {
        fix(&mut item.title);
        blocks(&mut item.blocks);
    }
}

/// A screen of `name` with nothing in it yet.
pub fn empty(name: &str) -> ScreenView {
    ScreenView {
        name: name.to_string(),
        blocks: Vec::new(),
        exports: Vec::new(),
        layout: ItemsLayout::default(),
        n_items: 0,
        n_match: 0,
        offset: 0,
        rows: Vec::new(),
        item: None,
    }
}

/// The "Judged by" choice of a comparison (`Block::Choice` keyed `judge`, kept in the link as
/// `f.judge=`): `default` (what judges the runs when nothing is picked) first, then every judge
/// the baseline offers (`RunRef::judge_choices`), by the name `--scorer` takes; `None` when the
/// baseline offers no choice.
pub fn judge_choice(
    choices: &[evalboard_engine::run_table::JudgeChoice],
    chosen: Option<&str>,
    default: &str,
) -> Option<Block> {
    if choices.is_empty() {
        return None;
    }
    let mut options = vec![(String::new(), default.to_string())];
    options.extend(choices.iter().map(|c| (c.judge.clone(), c.label.clone())));
    // A link naming a judge without its version (`f.judge=exact_match`) shows the one option of
    // that name, as `--scorer exact_match` takes it.
    let chosen = chosen.unwrap_or_default();
    let chosen = if options.iter().any(|(v, _)| v == chosen) {
        chosen.to_string()
    } else {
        let mut named = choices
            .iter()
            .filter(|c| c.judge.split_once('@').is_some_and(|(n, _)| n == chosen));
        match (named.next(), named.next()) {
            (Some(c), None) => c.judge.clone(),
            _ => chosen.to_string(),
        }
    };
    Some(Block::Choice {
        key: JUDGE.into(),
        label: "Judged by".into(),
        options,
        chosen,
    })
}

/// The name of the "Judged by" choice ([`judge_choice`]).
pub const JUDGE: &str = "judge";

/// A headline card: key, label, value as shown, definition.
pub fn card(
    key: &str,
    label: &str,
    value: String,
    sub: String,
) -> (String, String, String, String) {
    (key.into(), label.into(), value, sub)
}

pub fn note(key: &str, tone: &str, text: impl Into<String>) -> Block {
    Block::Note {
        key: key.into(),
        tone: tone.into(),
        text: text.into(),
    }
}

pub fn text(key: &str, text: impl Into<String>, mono: bool) -> Block {
    Block::Text {
        key: key.into(),
        text: text.into(),
        mono,
    }
}

pub fn group(key: &str, layout: &str, title: Option<String>, blocks: Vec<Block>) -> Block {
    Block::Group {
        key: key.into(),
        layout: layout.into(),
        title,
        ok: false,
        blocks,
    }
}

/// Whether a cell reads as a number (so its column is right-aligned): digits with an optional
/// sign, separators, decimals, a percent or a leading currency mark, or nothing shown (`—`).
fn numeric_cell(s: &str) -> bool {
    let t = s
        .trim()
        .trim_start_matches(['$', '−', '-', '+'])
        .trim_end_matches('%');
    !t.is_empty()
        && t.chars().next().is_some_and(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | ' ' | '±' | '−' | '-'))
}

/// A titled table from rows of text whose first row is the header; a column is numeric when
/// every body cell of it reads as a number or shows nothing.
pub fn table(key: &str, title: &str, rows: Vec<Vec<String>>) -> Block {
    let mut rows = rows.into_iter();
    let head = rows.next().unwrap_or_default();
    let body: Vec<Vec<String>> = rows.collect();
    let numeric = (0..head.len())
        .map(|i| {
            i > 0
                && body
                    .iter()
                    .any(|r| r.get(i).is_some_and(|c| numeric_cell(c)))
                && body.iter().all(|r| {
                    r.get(i)
                        .is_none_or(|c| numeric_cell(c) || c == crate::format::NONE)
                })
        })
        .collect();
    Block::Table(Table {
        key: key.into(),
        title: (!title.is_empty()).then(|| title.to_string()),
        head,
        numeric,
        rows: body
            .into_iter()
            .map(|cells| TableRow {
                key: None,
                flag: false,
                cells: cells.into_iter().map(Cell::Text).collect(),
            })
            .collect(),
    })
}

/// An items table's columns (label, CSS class) as the layout carries them.
pub fn columns(cols: &[(&str, &str)]) -> Vec<(String, String)> {
    cols.iter()
        .map(|(l, c)| (l.to_string(), c.to_string()))
        .collect()
}

/// The search text of a filter, lowercased; `None` when there is none.
pub fn search(f: &ScreenFilter) -> Option<String> {
    f.text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
}

/// `hits` paged into `v` (`limit` 0: the default page): the count, the offset and the rows.
pub fn page<T>(
    v: &mut ScreenView,
    hits: Vec<T>,
    offset: u32,
    limit: u32,
    row: impl Fn(T) -> ScreenRow,
) {
    v.n_match = hits.len() as u64;
    let limit = match limit {
        0 => ITEMS_PAGE as usize,
        ALL_ROWS => usize::MAX,
        l => l.min(ITEMS_MAX) as usize,
    };
    let offset = (offset as usize).min(hits.len());
    v.offset = offset as u64;
    v.rows = hits.into_iter().skip(offset).take(limit).map(row).collect();
}

/// The distinct values of `xs`, in first-seen order.
pub fn distinct<'a>(xs: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    xs.filter(|x| seen.insert(*x)).map(str::to_string).collect()
}

/// What the screens' tests read back from a view.
#[cfg(test)]
pub(crate) mod testing {
    use crate::protocol::{Block, Cell, ScreenFilter, ScreenQuery, ScreenView, Table};

    /// Every block of `blocks`, groups' blocks included.
    pub fn flat(blocks: &[Block]) -> Vec<&Block> {
        let mut out = Vec::new();
        for b in blocks {
            out.push(b);
            if let Block::Group { blocks, .. } = b {
                out.extend(flat(blocks));
            }
        }
        out
    }

    /// The value shown on the card `key` (empty when there is none).
    pub fn card_value(v: &ScreenView, key: &str) -> String {
        flat(&v.blocks)
            .into_iter()
            .find_map(|b| match b {
                Block::Cards { cards, .. } => {
                    cards.iter().find(|c| c.0 == key).map(|c| c.2.clone())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Every table of `blocks`, in order.
    pub fn tables(blocks: &[Block]) -> Vec<&Table> {
        flat(blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// The query of the first items page under these filter choices and search text.
    pub fn first_page(choices: &[(&str, &str)], text: Option<&str>) -> ScreenQuery {
        ScreenQuery::Items {
            filter: ScreenFilter {
                choices: choices
                    .iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect(),
                text: text.map(str::to_string),
            },
            offset: 0,
            limit: 0,
        }
    }

    /// A cell as text.
    pub fn cell(c: &Cell) -> String {
        match c {
            Cell::Text(t) | Cell::Open(t, _) => t.clone(),
            Cell::Pairs(p) => format!("{p:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_told_from_text() {
        for n in [
            "1",
            "0.250",
            "12.5%",
            "−3",
            "1,234",
            "$0.0021",
            "0.81 ± 0.02",
        ] {
            assert!(numeric_cell(n), "{n}");
        }
        for t in ["", "gpt-4", "column_error", "yes", "2 ops", "—"] {
            assert!(!numeric_cell(t), "{t}");
        }
    }

    #[test]
    fn a_judge_named_without_its_version_shows_its_option() {
        let c = |judge: &str| evalboard_engine::run_table::JudgeChoice {
            judge: judge.into(),
            label: judge.into(),
            task: None,
            headline: evalboard_engine::run_table::MetricValue {
                key: "k".into(),
                label: "k".into(),
                unit: Default::default(),
                value: None,
                counts: None,
                stderr: None,
            },
        };
        let chosen = |choices: &[_], name: &str| match judge_choice(choices, Some(name), "d") {
            Some(Block::Choice { chosen, .. }) => chosen,
            _ => panic!("a choice"),
        };
        let one = [c("exact_match@v1"), c("includes@v1")];
        assert_eq!(chosen(&one, "exact_match"), "exact_match@v1");
        assert_eq!(chosen(&one, "includes@v1"), "includes@v1");
        assert_eq!(chosen(&one, ""), "");
        // Two versions of one name: left as named (no option is shown picked).
        let two = [c("exact_match@v1"), c("exact_match@v2")];
        assert_eq!(chosen(&two, "exact_match"), "exact_match");
    }

    #[test]
    fn clip_cuts_on_a_character_boundary() {
        let long = "é".repeat(MAX_TEXT + 5);
        let c = clip(&long);
        assert!(c.starts_with(&"é".repeat(MAX_TEXT)) && c.ends_with("characters)"));
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn a_table_right_aligns_its_number_columns() {
        let Block::Table(t) = table(
            "t",
            "T",
            vec![
                vec!["Model".into(), "Score".into(), "Note".into()],
                vec!["a".into(), "0.5".into(), "x".into()],
                vec!["b".into(), "—".into(), "1".into()],
            ],
        ) else {
            panic!("a table")
        };
        assert_eq!(t.numeric, [false, true, false]);
        assert_eq!(t.rows.len(), 2);
    }
}
