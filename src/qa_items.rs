//! The Items screen of a numeric QA run, laid out by the main worker on the generic items grid
//! (`protocol::ScreenView`, rendered by `ui::screen::items` like every other family's): every
//! turn with the engine's filters and sort ([`views::item_order`]: verdict, turn, feature, error
//! type, disagreement with the original scoring, text; by position or a column), a page at a
//! time, so a 100k-turn run crosses to the page one screenful at a time. The query box and the
//! cohorts' "Show items" narrow it in `query_view`, as for the other families; a row opens the
//! turn's conversation drawer (its key is `[conversation id, turn index]`). Pure (no browser
//! types): tested natively.

use evalboard_engine::numeric_qa::score::ScoredQaRun;
use evalboard_engine::numeric_qa::views::{self, ItemFilter, ItemQuery, ItemRow, SortKey};
use evalboard_engine::run_table::ItemKey;

use crate::format;
use crate::protocol::{Choice, ItemsLayout, ScreenFilter, ScreenRow, ScreenView};
use crate::screen;

/// The grid's columns: (label, CSS class); the default `.eb-grid` column widths are these.
const COLUMNS: [(&str, &str); 14] = [
    ("#", "eb-num eb-muted"),
    ("Conversation", "eb-mono"),
    ("Turn", "eb-num"),
    ("Question", ""),
    ("Expected", "eb-num eb-mono"),
    ("Predicted", "eb-num eb-mono"),
    ("Verdict", "eb-verdict-cell"),
    ("Why", "eb-why"),
    ("Scorers", "eb-mono"),
    ("Orig", ""),
    ("Logic", "eb-num"),
    ("Ops", "eb-num"),
    ("Tokens", "eb-num"),
    ("Error", "eb-mono"),
];

/// The dataset features a turn can be filtered by ([`crate::protocol::QA_FEATURES`]).
pub use crate::protocol::QA_FEATURES as FEATURES;

/// The sort choices: (the value as shown, the engine's key); the first is the default.
pub const SORTS: [(&str, SortKey); 8] = [
    ("position", SortKey::Position),
    ("conversation", SortKey::Conversation),
    ("turn", SortKey::TurnIdx),
    ("verdict", SortKey::Verdict),
    ("logic recall", SortKey::LogicRecall),
    ("operations", SortKey::Ops),
    ("tokens", SortKey::Tokens),
    ("error type", SortKey::Error),
];

/// The value of the `order` choice that reverses the sort.
pub const DESCENDING: &str = "descending";
/// The value of the `original` choice that keeps the turns whose original verdict differs.
pub const DIFFERS: &str = "differs from the re-scoring";

/// The engine's query of a screen filter's choices (`verdict`, `turn`, `feature`, `error`,
/// `original`, `sort`, `order`) and search text; a value the screen does not offer is ignored.
pub fn item_query(f: &ScreenFilter) -> ItemQuery {
    let feature = f.choice("feature").and_then(|v| {
        FEATURES
            .iter()
            .find(|(shown, name)| v == *shown || v == *name)
            .map(|(_, name)| name.to_string())
    });
    ItemQuery {
        filter: ItemFilter {
            verdict: f
                .choice("verdict")
                .filter(|v| matches!(*v, "correct" | "wrong"))
                .map(str::to_string),
            turn_idx: f.choice("turn").and_then(|t| t.parse().ok()),
            feature,
            error_type: f.choice("error").map(str::to_string),
            text: f.text.clone().filter(|t| !t.trim().is_empty()),
            disagreements: f.choice("original") == Some(DIFFERS),
        },
        sort: f
            .choice("sort")
            .and_then(|v| SORTS.iter().find(|(shown, _)| *shown == v))
            .map_or(SortKey::Position, |(_, k)| *k),
        desc: f.choice("order") == Some(DESCENDING),
        offset: 0,
        limit: 0,
    }
}

/// The filters offered: verdict, each turn index and error type of the run, the features, the
/// original scoring, the sort and its order.
fn filters(s: &ScoredQaRun) -> Vec<Choice> {
    let mut turns = std::collections::BTreeSet::new();
    let mut errors = std::collections::BTreeSet::new();
    for c in &s.run.conversations {
        for t in &c.turns {
            turns.insert(t.turn_idx);
            if let Some(e) = &t.error {
                errors.insert(e.error_type.as_str());
            }
        }
    }
    let choice = |name: &str, label: &str, options: Vec<String>| Choice {
        name: name.into(),
        label: label.into(),
        options,
    };
    let mut out = vec![
        choice("verdict", "Verdict", vec!["correct".into(), "wrong".into()]),
        choice("turn", "Turn", turns.iter().map(u32::to_string).collect()),
        choice(
            "feature",
            "Feature",
            FEATURES
                .iter()
                .map(|(shown, _)| shown.to_string())
                .collect(),
        ),
    ];
    if !errors.is_empty() {
        out.push(choice(
            "error",
            "Error type",
            errors.into_iter().map(str::to_string).collect(),
        ));
    }
    out.push(choice("original", "Original scoring", vec![DIFFERS.into()]));
    out.push(choice(
        "sort",
        "Sort by",
        SORTS.iter().skip(1).map(|(s, _)| s.to_string()).collect(),
    ));
    out.push(choice("order", "Order", vec![DESCENDING.into()]));
    out
}

/// The scorer letters of a row: each scorer's letter where it accepts the answer, `·` where it
/// does not (E exact, N numerical, S soft, U unit-agnostic, ± sign-agnostic, G general, F
/// financial-agent-2).
fn scorers(r: &ItemRow) -> String {
    [
        (r.exact_match, "E"),
        (r.numerical_match, "N"),
        (r.soft_match, "S"),
        (r.unit_agnostic_match, "U"),
        (r.sign_agnostic_match, "±"),
        (r.general_match, "G"),
        (r.financial_match, "F"),
    ]
    .iter()
    .map(|(ok, l)| if *ok { *l } else { "·" })
    .collect::<Vec<_>>()
    .join(" ")
}

/// A turn's row: its key and the cells of [`COLUMNS`] (`pos`: its place in the list, from 0).
fn row(pos: usize, r: ItemRow) -> ScreenRow {
    let orig = match r.original_numerical {
        Some(true) => "✓",
        Some(false) => "✗",
        None => format::NONE,
    };
    ScreenRow {
        key: ItemKey::text_index(&r.conversation_id, r.turn_idx.into()),
        bad: !r.correct,
        cells: vec![
            format::int(pos as u64 + 1),
            r.conversation_id.clone(),
            r.turn_idx.to_string(),
            format::clip(&r.question, 300),
            format::round_decimals(&r.expected, 4),
            format::round_decimals(&format::clip(&r.predicted, 300), 4),
            if r.correct { "correct" } else { "wrong" }.into(),
            r.reason.clone().unwrap_or_default(),
            scorers(&r),
            if r.disagrees {
                format!("{orig} ≠")
            } else {
                orig.to_string()
            },
            format::pct(r.logic_recall),
            r.operations_per_turn
                .map_or_else(|| format::NONE.into(), |o| o.to_string()),
            format::opt_int(r.tokens),
            r.error_type.clone().unwrap_or_default(),
        ],
    }
}

/// The Items screen of `s` under filter `f`: rows `offset..offset + limit` (0: the default
/// page; [`screen::ALL_ROWS`]: every row, for a query to narrow).
pub fn view(s: &ScoredQaRun, f: &ScreenFilter, offset: u32, limit: u32) -> ScreenView {
    let mut out = screen::empty(&s.run.name);
    out.n_items = s.turns.len() as u64;
    out.layout = ItemsLayout {
        kind: "turns".into(),
        noun: ("turn".into(), "turns".into()),
        columns: screen::columns(&COLUMNS),
        filters: filters(s),
        search: "question, answer or conversation id".into(),
        footnote: "Scorers: E exact · N numerical · S soft (within the tolerance) · U \
                   unit-agnostic · ± sign-agnostic · G general · F financial-agent-2; a letter \
                   accepts the answer, · does not. Orig: the original system's verdict (≠ where \
                   the re-scoring differs). Long numbers are rounded to 4 decimals: open the \
                   turn for the whole answer. ↑/↓ move · Enter opens the conversation."
            .into(),
    };
    let order = views::item_order(s, &item_query(f));
    screen::page(
        &mut out,
        order.into_iter().enumerate().collect(),
        offset,
        limit,
        |(pos, i)| {
            views::item_row(s, i).map_or_else(
                || ScreenRow {
                    key: ItemKey::text_index("", 0),
                    bad: false,
                    cells: Vec::new(),
                },
                |r| row(pos, r),
            )
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ScreenQuery;
    use crate::screen::testing::first_page;

    fn demo() -> ScoredQaRun {
        use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/gpt-4o");
        let mut files = Vec::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let name = format!("gpt-4o/{}", p.file_name().unwrap().to_string_lossy());
                files.push(evalboard_engine::InputFile::new(
                    &name,
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
        let input = evalboard_engine::RunInput::new("gpt-4o", files);
        let read = run::read(&input, None, ReadOptions::default()).unwrap();
        match run::score(read, &Settings::default(), 1) {
            ScoredRun::NumericQa(s) => s,
            _ => panic!("not numeric QA"),
        }
    }

    fn filter(q: &ScreenQuery) -> (&ScreenFilter, u32, u32) {
        match q {
            ScreenQuery::Items {
                filter,
                offset,
                limit,
            } => (filter, *offset, *limit),
            _ => unreachable!(),
        }
    }

    /// The grid lists what the engine's items table lists, filter by filter and in its order.
    #[test]
    fn the_grid_lists_the_engine_items_under_each_filter_and_sort() {
        let s = demo();
        let n = s.turns.len();
        for (choices, text) in [
            (vec![], None),
            (vec![("verdict", "wrong")], None),
            (vec![("verdict", "correct"), ("turn", "1")], None),
            (vec![("feature", "type-2 question")], None),
            (vec![("original", DIFFERS)], None),
            (vec![("sort", "tokens"), ("order", DESCENDING)], None),
            (vec![("sort", "logic recall")], Some("what")),
        ] {
            let q = first_page(&choices, text);
            let (f, offset, limit) = filter(&q);
            let v = view(&s, f, offset, limit);
            let want = views::items(
                &s,
                &ItemQuery {
                    limit: 1000,
                    ..item_query(f)
                },
            );
            assert_eq!(v.n_items as usize, n);
            assert_eq!(v.n_match as usize, want.total, "{choices:?}");
            let keys: Vec<ItemKey> = v.rows.iter().map(|r| r.key.clone()).collect();
            let want_keys: Vec<ItemKey> = want
                .rows
                .iter()
                .take(keys.len())
                .map(|r| ItemKey::text_index(&r.conversation_id, r.turn_idx.into()))
                .collect();
            assert_eq!(keys, want_keys, "{choices:?}");
            assert!(v.rows.iter().all(|r| r.cells.len() == COLUMNS.len()));
        }
        // Wrong turns are marked, and say why.
        let q = first_page(&[("verdict", "wrong")], None);
        let (f, ..) = filter(&q);
        let v = view(&s, f, 0, 0);
        assert!(v.n_match > 0);
        assert!(v.rows.iter().all(|r| r.bad && !r.cells[7].is_empty()));
        assert!(v.layout.filters.iter().any(|c| c.name == "turn"));
    }

    #[test]
    fn old_link_values_and_words_give_one_query() {
        let f = ScreenFilter {
            choices: vec![
                ("feature".into(), "has_type2_question".into()),
                ("sort".into(), "nope".into()),
                ("verdict".into(), "maybe".into()),
            ],
            text: Some("  ".into()),
        };
        let q = item_query(&f);
        assert_eq!(q.filter.feature.as_deref(), Some("has_type2_question"));
        assert_eq!(q.sort, SortKey::Position);
        assert_eq!(q.filter.verdict, None);
        assert_eq!(q.filter.text, None);
    }

    #[test]
    fn scorer_letters() {
        let s = demo();
        let v = view(&s, &ScreenFilter::default(), 0, 1);
        let cell = &v.rows[0].cells[8];
        assert_eq!(cell.split(' ').count(), 7, "{cell}");
    }
}
