//! Numeric QA tabs the main worker lays out as screen blocks (`protocol::Block`), so the page
//! only renders them: the Breakdowns tab (every `by_*` map of the statistics as a table — feature
//! flags, conversation type, model — with its chart) and the Complexity tab (accuracy, operations
//! and logic recall by turn number, accuracy by operations per turn, with the complexity
//! charts). Pure (tested natively).

use std::collections::BTreeMap;

use evalboard_engine::numeric_qa::aggregate::doc::{Breakdown, Statistics};
use evalboard_engine::numeric_qa::views::Overview;

use crate::format;
use crate::protocol::{chart_tab, Block, ChartDto};
use crate::screen;

/// The Breakdowns tab of a numeric QA run: one section per breakdown, each group with its
/// conversations, turns and rates, and the breakdown's chart among `charts` where there is one.
pub fn breakdowns(s: &Statistics, charts: &[ChartDto]) -> Vec<Block> {
    let groups: [(&str, &str, &str, &BTreeMap<String, Breakdown>); 5] = [
        (
            "by_has_type2_question",
            "Type-2 question",
            "Conversations with a type-2 (reasoning-heavy) question",
            &s.by_has_type2_question,
        ),
        (
            "by_has_non_numeric_values",
            "Non-numeric values",
            "Tables with non-numeric entries",
            &s.by_has_non_numeric_values,
        ),
        (
            "by_has_duplicate_columns",
            "Duplicate columns",
            "Tables with duplicate column names",
            &s.by_has_duplicate_columns,
        ),
        (
            "by_conversation_type",
            "Conversation type",
            "The dataset's conversation type",
            &s.by_conversation_type,
        ),
        ("by_model", "Model", "The model that answered", &s.by_model),
    ];
    groups
        .into_iter()
        .map(|(key, title, hint, map)| {
            let mut inner = vec![screen::text("hint", hint, false)];
            if map.is_empty() {
                inner.push(screen::note("empty", "note", "No data."));
            } else {
                let mut rows = vec![[
                    "Group",
                    "Conversations",
                    "Turns",
                    "Numerical",
                    "Exact",
                    "Soft",
                    "Conversation-level",
                    "Logic recall",
                    "Error rate",
                ]
                .map(String::from)
                .to_vec()];
                rows.extend(map.iter().map(|(g, b)| {
                    vec![
                        g.clone(),
                        format::int(b.conversations),
                        format::int(b.turns),
                        format::pct(b.numerical_accuracy),
                        format::pct(b.exact_match_accuracy),
                        format::pct(b.soft_match_accuracy),
                        format::pct(b.conversation_level_accuracy),
                        format::pct(b.avg_logic_recall),
                        format::pct(b.error_rate),
                    ]
                }));
                inner.push(screen::table(key, "", rows));
            }
            inner.extend(
                charts
                    .iter()
                    .filter(|c| c.key == key)
                    .map(|c| Block::Chart(c.clone())),
            );
            screen::group(key, "section", Some(title.to_string()), inner)
        })
        .collect()
}

/// The Complexity tab of a numeric QA run: its charts (`chart_tab` "complexity"), then accuracy,
/// average operations and logic recall by turn number beside accuracy by operations per turn.
pub fn complexity(s: &Statistics, charts: &[ChartDto]) -> Vec<Block> {
    let mut out: Vec<Block> = charts
        .iter()
        .filter(|c| chart_tab(&c.key) == "complexity")
        .map(|c| Block::Chart(c.clone()))
        .collect();
    let turns: std::collections::BTreeSet<_> = s
        .accuracy_by_turn_number
        .keys()
        .chain(s.avg_operations_by_turn.keys())
        .chain(s.logic_recall_by_turn.keys())
        .copied()
        .collect();
    let mut by_turn = vec![screen::text(
        "hint",
        "Does accuracy fall in later turns, as questions build on earlier answers?",
        false,
    )];
    if turns.is_empty() {
        by_turn.push(screen::note("empty", "note", "No turns."));
    } else {
        let mut rows = vec![["Turn", "Accuracy", "Avg operations", "Logic recall"]
            .map(String::from)
            .to_vec()];
        rows.extend(turns.iter().map(|k| {
            vec![
                k.0.to_string(),
                format::pct(s.accuracy_by_turn_number.get(k).copied()),
                format::dec(s.avg_operations_by_turn.get(k).copied(), 2),
                format::pct(s.logic_recall_by_turn.get(k).copied()),
            ]
        }));
        by_turn.push(screen::table("by-turn", "", rows));
    }
    let mut by_ops = vec![screen::text(
        "hint",
        "Where is the complexity ceiling: how many compute steps before accuracy drops?",
        false,
    )];
    if s.accuracy_by_operations_per_turn.is_empty() {
        by_ops.push(screen::note(
            "empty",
            "note",
            "No plans recorded, so no operation counts.",
        ));
    } else {
        let mut rows = vec![["Operations", "Accuracy"].map(String::from).to_vec()];
        rows.extend(
            s.accuracy_by_operations_per_turn
                .iter()
                .map(|(k, v)| vec![k.0.to_string(), format::pct(Some(*v))]),
        );
        by_ops.push(screen::table("by-ops", "", rows));
    }
    by_ops.push(screen::text(
        "footnote",
        format!(
            "Average operations per turn: {}",
            format::dec(s.avg_operations_per_turn, 2)
        ),
        false,
    ));
    out.push(screen::group(
        "complexity-tables",
        "pair",
        None,
        vec![
            screen::group("by-turn", "section", Some("By turn number".into()), by_turn),
            screen::group(
                "by-ops",
                "section",
                Some("By operations per turn".into()),
                by_ops,
            ),
        ],
    ));
    out
}

/// What an Errors tab link opens on the page (`Cell::Open`'s value): the Items tab with its
/// choice filter `field` (as `qa_items` names them: `verdict`, `error`, `original`) set to
/// `value`, joined by U+001F.
pub fn items_link(field: &str, value: &str) -> String {
    format!("{field}\u{1f}{value}")
}

/// The Overview of a numeric QA run under its cards: what the gaps between the accuracy
/// variants say, how many originally scored turns the re-scoring judges differently (a link to
/// them), the overview's charts, and the first wrong turns (each a link to its drawer; a link to
/// all of them). Links as [`items_link`]: `verdict`, `original`, or `item` with the
/// conversation id and turn index.
pub fn overview_rest(ov: &Overview, charts: &[ChartDto]) -> Vec<Block> {
    use crate::protocol::{Cell, Table, TableRow};
    let link = |label: &str, to: String| {
        Block::Table(Table {
            key: format!("link-{}", to.split('\u{1f}').next().unwrap_or("")),
            title: None,
            head: Vec::new(),
            numeric: Vec::new(),
            rows: vec![TableRow {
                key: None,
                flag: false,
                cells: vec![Cell::Open(label.into(), to)],
            }],
        })
    };
    let mut gaps: Vec<Block> = ov
        .readings
        .iter()
        .map(|r| {
            screen::note(
                &format!("reading-{}", r.key),
                "note",
                format!("{} ({}): {}", r.title, format::pp(r.gap), r.text),
            )
        })
        .collect();
    let orig = ov.originally_scored_turns;
    if orig > 0 {
        gaps.push(screen::text(
            "disagreements",
            if ov.disagreements == 0 {
                format!(
                    "The re-scoring agrees with the original numerical verdict on all {} originally scored turns.",
                    format::int(orig)
                )
            } else {
                format!(
                    "{} of {} originally scored turns get a different numerical verdict when re-scored.",
                    format::int(ov.disagreements),
                    format::int(orig)
                )
            },
            false,
        ));
        if ov.disagreements > 0 {
            gaps.push(link(
                "Show them →",
                items_link("original", crate::qa_items::DIFFERS),
            ));
        }
    }
    let mut out = vec![screen::group(
        "readings",
        "section",
        Some("What the gaps say".into()),
        gaps,
    )];
    out.extend(
        charts
            .iter()
            .filter(|c| chart_tab(&c.key) == "overview")
            .map(|c| Block::Chart(c.clone())),
    );
    let mut wrong = vec![link("All wrong turns →", items_link("verdict", "wrong"))];
    if ov.first_wrong.is_empty() {
        wrong.push(screen::note("no-wrong", "note", "No wrong turns."));
    } else {
        wrong.push(Block::Table(Table {
            key: "first-wrong".into(),
            title: None,
            head: [
                "Conversation",
                "Turn",
                "Question",
                "Expected",
                "Predicted",
                "Why",
                "",
            ]
            .map(String::from)
            .to_vec(),
            numeric: vec![false, true, false, true, true, false, false],
            rows: ov
                .first_wrong
                .iter()
                .map(|w| TableRow {
                    key: None,
                    flag: true,
                    cells: vec![
                        Cell::Text(w.conversation_id.clone()),
                        Cell::Text(w.turn_idx.to_string()),
                        Cell::Text(w.question.clone()),
                        Cell::Text(w.expected.clone()),
                        Cell::Text(w.predicted.clone()),
                        Cell::Text(w.reason.clone().unwrap_or_default()),
                        Cell::Open(
                            "Open →".into(),
                            format!("item\u{1f}{}\u{1f}{}", w.conversation_id, w.turn_idx),
                        ),
                    ],
                })
                .collect(),
        }));
    }
    out.push(screen::group(
        "first-wrong",
        "section",
        Some("First wrong turns".into()),
        wrong,
    ));
    out
}

/// The Errors tab of a numeric QA run: turns with an error and wrong answers (cards), the
/// errors by type (most frequent first, each a link to its turns) with the errors chart, and the
/// error rate by dataset feature.
pub fn errors(s: &Statistics, charts: &[ChartDto]) -> Vec<Block> {
    use crate::protocol::{Cell, Table, TableRow};
    let total: u64 = s.error_types.values().sum();
    let wrong = s
        .numerical_accuracy
        .map(|a| ((1.0 - a) * s.total_turns as f64).round() as u64);
    let mut out = vec![
        Block::Cards {
            primary: String::new(),
            cards: vec![
                screen::card(
                    "errors_total",
                    "Turns with an error",
                    format::int(total),
                    format!("error rate {}", format::pct(s.error_rate)),
                ),
                screen::card(
                    "wrong_answers",
                    "Wrong answers",
                    format::opt_int(wrong),
                    String::new(),
                ),
            ],
        },
        Block::Table(Table {
            key: "errors-wrong".into(),
            title: None,
            head: Vec::new(),
            numeric: Vec::new(),
            rows: vec![TableRow {
                key: None,
                flag: false,
                cells: vec![Cell::Open(
                    "Show wrong turns →".into(),
                    items_link("verdict", "wrong"),
                )],
            }],
        }),
    ];
    let mut types: Vec<(&String, &u64)> = s.error_types.iter().collect();
    // Most frequent first, then by name.
    types.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    let mut by_type = Vec::new();
    if types.is_empty() {
        by_type.push(screen::note("empty", "note", "No turn raised an error."));
    } else {
        by_type.push(Block::Table(Table {
            key: "error-types".into(),
            title: None,
            head: ["Error type", "Turns", "Share of errors", ""]
                .map(String::from)
                .to_vec(),
            numeric: vec![false, true, true, false],
            rows: types
                .iter()
                .map(|(t, n)| TableRow {
                    key: Some((*t).clone()),
                    flag: false,
                    cells: vec![
                        Cell::Text((*t).clone()),
                        Cell::Text(format::int(**n)),
                        Cell::Text(format::pct((total > 0).then(|| **n as f64 / total as f64))),
                        Cell::Open("Show items →".into(), items_link("error", t)),
                    ],
                })
                .collect(),
        }));
        by_type.extend(
            charts
                .iter()
                .filter(|c| chart_tab(&c.key) == "errors")
                .map(|c| Block::Chart(c.clone())),
        );
    }
    let mut rows = vec![["Feature", "Value", "Turns", "With error", "Error rate"]
        .map(String::from)
        .to_vec()];
    for (feat, map) in [
        ("has_type2_question", &s.by_has_type2_question),
        ("has_non_numeric_values", &s.by_has_non_numeric_values),
        ("has_duplicate_columns", &s.by_has_duplicate_columns),
    ] {
        rows.extend(map.iter().map(|(v, b)| {
            let n = b.error_rate.map(|r| (r * b.turns as f64).round() as u64);
            vec![
                format::feature_label(feat).to_string(),
                v.clone(),
                format::int(b.turns),
                format::opt_int(n),
                format::pct(b.error_rate),
            ]
        }));
    }
    out.push(screen::group(
        "errors-tables",
        "pair",
        None,
        vec![
            screen::group(
                "error-types",
                "section",
                Some("By error type".into()),
                by_type,
            ),
            screen::group(
                "errors-by-feature",
                "section",
                Some("By dataset feature".into()),
                vec![screen::table("errors-by-feature", "", rows)],
            ),
        ],
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_breakdown_is_a_section_with_its_table_or_a_note() {
        use evalboard_engine::family::Family;
        use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
        use evalboard_engine::{InputFile, RunInput};
        let input = RunInput::new(
            "qa".to_string(),
            vec![InputFile::new(
                "qa/a.jsonl".to_string(),
                r#"{"conversation_id":"c1","turn_idx":0,"question":"q","expected":"42","predicted":42}"#,
            )],
        );
        let read = run::read_as(Family::NumericQa, &input, None, ReadOptions::default())
            .expect("readable");
        let ScoredRun::NumericQa(s) = run::score(read, &Settings::default(), 1) else {
            panic!("a numeric QA run");
        };
        let stats = evalboard_engine::numeric_qa::aggregate::doc::statistics(&s);
        let tables = complexity(&stats, &[]);
        assert!(
            matches!(tables.last(), Some(Block::Group { key, .. }) if key == "complexity-tables")
        );
        let errs = errors(&stats, &[]);
        assert!(
            matches!(&errs[0], Block::Cards { cards, .. } if cards[0].1 == "Turns with an error")
        );
        let tables = screen::testing::tables(&errs);
        assert!(tables.iter().any(|t| t.key == "errors-by-feature"));
        let blocks = breakdowns(&stats, &[]);
        let keys: Vec<&str> = blocks
            .iter()
            .filter_map(|b| match b {
                Block::Group { key, blocks, .. } => {
                    assert!(matches!(
                        blocks.get(1),
                        Some(Block::Table(_)) | Some(Block::Note { .. })
                    ));
                    Some(key.as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            keys,
            [
                "by_has_type2_question",
                "by_has_non_numeric_values",
                "by_has_duplicate_columns",
                "by_conversation_type",
                "by_model"
            ]
        );
    }
}
