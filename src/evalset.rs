//! The screens of an eval-set run (the engine's [`evalset_view`]): the overview (scorecard, the
//! switch when the headline scorer gives 0% and the other does not, group tables, the
//! `@v1` vs `@v1-extract` flips, the eval summary "as originally scored", the eval-set check), a
//! page of items filtered by verdict, section, category, difficulty and text, and one item in
//! full (prompt, expected, the whole prediction, what the extracting scorer compared). Pure (no
//! browser types), so it is tested natively; the main worker only stores the run and posts views.

use evalboard_engine::evalset::score::ScoredRun;
use evalboard_engine::evalset::views::{evalset_view, EvalsetItemRow, EvalsetView};
use evalboard_engine::evalset::{AnswerScorer, EvalRun};
use evalboard_engine::run_table::ItemKey;

use crate::format::{self, dec, int, pct, NONE};
use crate::protocol::{
    Block, Choice, ItemsLayout, ScreenFilter, ScreenItem, ScreenQuery, ScreenRow, ScreenView,
};
use crate::screen::{self, card, clip, group, note, table, text};

/// One screen of the run.
pub fn view(run: &EvalRun, s: &ScoredRun, q: &ScreenQuery) -> ScreenView {
    let v = evalset_view(run, s);
    let mut out = screen::empty(&v.name);
    out.n_items = v.items.len() as u64;
    match q {
        ScreenQuery::Overview { .. } => overview(v, &mut out),
        ScreenQuery::Items {
            filter,
            offset,
            limit,
        } => items(&v, filter, *offset, *limit, &mut out),
        ScreenQuery::Item { key } => out.item = item(&v, key),
        // Laid out by the run store from both runs' items (`crate::pair`).
        ScreenQuery::Pair { .. } | ScreenQuery::Hits { .. } => {}
    }
    out
}

fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_else(|| NONE.to_string())
}

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "correct",
        Some(false) => "wrong",
        None => "skipped",
    }
}

fn overview(v: EvalsetView, out: &mut ScreenView) {
    if let Some(f) = &v.run_failure {
        out.blocks.push(note(
            "run-failure",
            "error",
            format!("This run failed ({f}): every item counts as wrong."),
        ));
    }
    if let Some(f) = &v.per_item_unavailable {
        out.blocks.push(note(
            "per-item",
            "note",
            format!("Per-item diff unavailable: {f}"),
        ));
    }
    let n_flips = v.extract_flips.len();
    let extract = v.scorer.ends_with("-extract");
    let (other, other_score) = if extract {
        (AnswerScorer::V1, v.v1_score)
    } else {
        (AnswerScorer::V1Extract, v.v1_extract_score)
    };
    let mut cards = vec![
        card(
            "primary_score",
            "Primary score",
            pct(v.primary_score),
            format!(
                "{} · mean answer correctness over the scored items",
                v.scorer
            ),
        ),
        card(
            "n_items",
            "Items",
            int(v.n_items),
            format!("{} scored · {} skipped", int(v.n_scored), int(v.n_skipped)),
        ),
        card(
            "stddev",
            "Std deviation",
            dec(v.stddev, 3),
            format!("min {} · max {}", dec(v.min_score, 2), dec(v.max_score, 2)),
        ),
        card(
            "verdict",
            "Verdict",
            v.verdict.to_ascii_uppercase(),
            v.verdict_reason.clone(),
        ),
    ];
    cards.push(if extract {
        card(
            "v1",
            "Without answer extraction",
            pct(v.v1_score),
            format!("{} · {n_flips} flips", AnswerScorer::V1.id()),
        )
    } else {
        card(
            "v1_extract",
            "With answer extraction",
            pct(v.v1_extract_score),
            format!("{} · {n_flips} flips", AnswerScorer::V1Extract.id()),
        )
    });
    out.blocks.push(Block::Cards {
        primary: "primary_score".into(),
        cards,
    });
    // A headline scorer that gives 0% while the other one does not is said where the 0% stands,
    // with the switch (the whole-output v1 on long outputs of a model that reasons first).
    if v.primary_score == Some(0.0) && other_score.is_some_and(|x| x > 0.0) {
        out.blocks.push(Block::Switch {
            key: "zero-headline".into(),
            text: format!(
                "{} gives this run 0%, {} gives {}.",
                v.scorer,
                other.id(),
                pct(other_score)
            ),
            label: format!("Score with {}", other.id()),
            setting: ("evalset.scorer".into(), other.id().into()),
        });
    }
    let groups: Vec<Block> = v
        .groups
        .iter()
        .filter(|(_, rows)| !rows.is_empty())
        .map(|(dim, rows)| {
            let mut t = vec![[dim.as_str(), "Scored", "Correct", "Score"]
                .map(str::to_string)
                .to_vec()];
            for g in rows {
                t.push(vec![
                    g.name.clone(),
                    int(g.n_scored),
                    int(g.n_correct),
                    pct(Some(g.score)),
                ]);
            }
            table(&format!("by-{dim}"), &format!("By {dim}"), t)
        })
        .collect();
    out.blocks.push(group("groups", "pair", None, groups));
    let flips_title = format!("@v1 vs @v1-extract: {n_flips} items change verdict");
    let flips = if v.extract_flips.is_empty() {
        text(
            "no-flips",
            "Extracting the answer from the prediction changes no verdict.",
            false,
        )
    } else {
        let mut t = vec![[
            "Item",
            "Expected",
            "Prediction",
            "Extracted",
            "@v1",
            "@v1-extract",
        ]
        .map(str::to_string)
        .to_vec()];
        for f in &v.extract_flips {
            t.push(vec![
                f.id.clone(),
                opt(&f.expected),
                format::clip(&opt(&f.predicted), 120),
                opt(&f.extracted),
                verdict(f.v1).into(),
                verdict(f.extract).into(),
            ]);
        }
        table("extract-flips", "", t)
    };
    out.blocks.push(group(
        "extract-flips",
        "section",
        Some(flips_title),
        vec![flips],
    ));
    if let Some(e) = &v.original {
        let mut t = vec![vec!["Entry".to_string(), e.name.clone()]];
        t.push(vec!["Accuracy".into(), pct(e.accuracy)]);
        t.push(vec![
            "Correct / items".into(),
            format!(
                "{} / {}",
                format::opt_int(e.n_correct),
                format::opt_int(e.n_items)
            ),
        ]);
        t.push(vec![
            "Runtime".into(),
            e.runtime_seconds
                .map(|s| format!("{s:.1} s"))
                .unwrap_or_else(|| NONE.into()),
        ]);
        if let Some(err) = &e.error {
            t.push(vec!["Error".into(), err.clone()]);
        }
        for s in &e.sections {
            t.push(vec![
                format!("Section {}", s.name),
                format!(
                    "{} ({} / {})",
                    pct(s.accuracy),
                    format::opt_int(s.n_correct),
                    format::opt_int(s.n_items)
                ),
            ]);
        }
        let mut inner = vec![table("original", "", t)];
        if let Some(a) = &v.original_agreement {
            inner.push(text(
                "agreement",
                format!(
                    "{} of {} items with an original verdict disagree with the re-scoring{}",
                    a.n_disagree,
                    a.n_compared,
                    if a.disagreeing_ids.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", a.disagreeing_ids.join(", "))
                    }
                ),
                false,
            ));
        }
        out.blocks.push(group(
            "original",
            "section",
            Some("As originally scored (eval_summary.json)".into()),
            inner,
        ));
    }
    out.exports = [
        (
            "scorecard.json",
            "The scorecard (n_items … difficulty_scores) and verdict under the headline scorer.",
        ),
        (
            "predictions.jsonl",
            "One row per item: {item_id, expected, predicted, correctness, eval_time_ms}.",
        ),
    ]
    .map(|(f, w)| (f.to_string(), w.to_string()))
    .to_vec();
    for r in &v.validation {
        let mut inner = vec![text(
            "counts",
            format!(
                "{} · {}",
                format::plural(r.errors.len() as u64, "error", "errors"),
                format::plural(r.warnings.len() as u64, "warning", "warnings")
            ),
            false,
        )];
        inner.extend(
            r.errors
                .iter()
                .map(|e| note("finding", "error", format!("error: {e}"))),
        );
        inner.extend(
            r.warnings
                .iter()
                .map(|e| note("finding", "warn", format!("warning: {e}"))),
        );
        inner.push(text(
            "composition",
            r.composition
                .iter()
                .map(|(dim, counts)| {
                    let parts: Vec<String> =
                        counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
                    format!("{dim}: {}", parts.join(", "))
                })
                .collect::<Vec<_>>()
                .join(" · "),
            false,
        ));
        out.blocks.push(group(
            "validation",
            "section",
            Some(format!("Eval set check: {} ({} items)", r.file, r.items)),
            inner,
        ));
    }
}

const COLUMNS: [(&str, &str); 9] = [
    ("#", "eb-num eb-muted"),
    ("Id", "eb-mono"),
    ("Prompt", ""),
    ("Expected", "eb-mono"),
    ("Predicted", ""),
    ("Verdict", ""),
    ("Reason", "eb-muted"),
    ("Section", ""),
    ("Category", ""),
];

/// An item's value of a group field.
fn field<'a>(i: &'a EvalsetItemRow, name: &str) -> Option<&'a str> {
    match name {
        "section" => i.section.as_deref(),
        "category" => i.category.as_deref(),
        "difficulty" => i.difficulty.as_deref(),
        _ => None,
    }
}

const FIELDS: [(&str, &str); 3] = [
    ("section", "Section"),
    ("category", "Category"),
    ("difficulty", "Difficulty"),
];

fn items(v: &EvalsetView, f: &ScreenFilter, offset: u32, limit: u32, out: &mut ScreenView) {
    let mut filters = vec![Choice {
        name: "verdict".into(),
        label: "Verdict".into(),
        options: ["correct", "wrong", "skipped"].map(str::to_string).to_vec(),
    }];
    for (name, label) in FIELDS {
        let options = screen::distinct(v.items.iter().filter_map(|i| field(i, name)));
        if !options.is_empty() {
            filters.push(Choice {
                name: name.into(),
                label: label.into(),
                options,
            });
        }
    }
    out.layout = ItemsLayout {
        kind: "evalset".into(),
        noun: ("item".into(), "items".into()),
        columns: screen::columns(&COLUMNS),
        filters,
        search: "id, prompt or prediction".into(),
        footnote:
            "Click an item (or Enter) for its prompt, the expected answer and the whole prediction."
                .into(),
    };
    let text = screen::search(f);
    let hits: Vec<(usize, (usize, &EvalsetItemRow))> = v
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            f.choice("verdict").is_none_or(|w| w == verdict(i.correct))
                && FIELDS
                    .iter()
                    .all(|(name, _)| f.choice(name).is_none_or(|w| field(i, name) == Some(w)))
                && text.as_deref().is_none_or(|t| {
                    i.id.to_lowercase().contains(t)
                        || i.prompt.to_lowercase().contains(t)
                        || i.predicted
                            .as_deref()
                            .is_some_and(|p| p.to_lowercase().contains(t))
                })
        })
        .enumerate()
        .collect();
    screen::page(out, hits, offset, limit, |(pos, (_, i))| ScreenRow {
        key: ItemKey::text(&i.id),
        bad: i.correct == Some(false),
        cells: vec![
            (pos + 1).to_string(),
            i.id.clone(),
            format::clip(&i.prompt, 300),
            opt(&i.expected),
            format::clip(&opt(&i.predicted), 300),
            verdict(i.correct).into(),
            i.reason.clone().unwrap_or_default(),
            i.section.clone().unwrap_or_default(),
            i.category.clone().unwrap_or_default(),
        ],
    });
}

/// The item of `key` (its id; the first item of an id seen twice, as a comparison pairs it).
fn item(v: &EvalsetView, key: &ItemKey) -> Option<ScreenItem> {
    let i = v
        .items
        .iter()
        .find(|i| key.0.len() == 1 && key.first_text() == Some(&i.id))?;
    let mut facts = vec![
        ("Id".to_string(), i.id.clone()),
        (
            "Verdict".to_string(),
            format!("{} (by {})", verdict(i.correct), v.scorer),
        ),
    ];
    if let Some(r) = &i.reason {
        facts.push(("Reason".into(), r.clone()));
    }
    if let Some(o) = i.original_correct {
        facts.push(("As originally scored".into(), dec(Some(o), 2)));
    }
    for (name, label) in FIELDS {
        if let Some(x) = field(i, name) {
            facts.push((label.into(), x.into()));
        }
    }
    let mut b = vec![
        Block::Facts(facts),
        Block::Heading("Prompt".into()),
        text("prompt", clip(&i.prompt), false),
        Block::Heading("Expected".into()),
        text("expected", opt(&i.expected), true),
        Block::Heading("Prediction".into()),
        text("predicted", clip(&opt(&i.predicted)), false),
    ];
    if let Some(x) = &i.extracted {
        b.push(Block::Heading(
            "Extracted answer (what @v1-extract compared)".into(),
        ));
        b.push(text("extracted", x.clone(), true));
    }
    Some(ScreenItem {
        key: key.clone(),
        title: format!("Item {}", i.id),
        blocks: b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::testing::{card_value, first_page, flat, tables};
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions, Settings};
    use evalboard_engine::{InputFile, RunInput};

    /// The m45 baseline of `tests/fixtures/evalset/ok/m45_vs_m46`, with its eval set.
    fn m45() -> (EvalRun, ScoredRun) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evalset/ok/m45_vs_m46");
        let name = "m45_m44_baseline";
        let mut files = Vec::new();
        for f in ["eval_summary.json", "m45_m44_baseline_predictions.jsonl"] {
            let bytes = std::fs::read(root.join("runs").join(name).join(f)).expect("fixture");
            files.push(InputFile::new(f, bytes));
        }
        let set = std::fs::read(root.join("attached_evalset.jsonl")).expect("eval set");
        files.push(InputFile::new("attached_evalset.jsonl", set));
        let read = run::read_as(
            Family::Evalset,
            &RunInput::new(name, files),
            None,
            ReadOptions::default(),
        )
        .expect("usable");
        match run::score(read, &Settings::default(), 1) {
            run::ScoredRun::Evalset(r, s) => (*r, *s),
            _ => unreachable!("an eval-set run"),
        }
    }

    fn page(
        r: &EvalRun,
        s: &ScoredRun,
        choices: &[(&str, &str)],
        text: Option<&str>,
    ) -> ScreenView {
        view(r, s, &first_page(choices, text))
    }

    #[test]
    fn overview_is_the_scorecard_with_groups_flips_and_the_original() {
        let (r, s) = m45();
        let v = view(
            &r,
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        let e = evalset_view(&r, &s);
        assert_eq!(card_value(&v, "primary_score"), pct(e.primary_score));
        assert_eq!(card_value(&v, "n_items"), int(e.n_items));
        assert_eq!(card_value(&v, "verdict"), e.verdict.to_ascii_uppercase());
        let keys: Vec<&str> = tables(&v.blocks).iter().map(|t| t.key.as_str()).collect();
        assert!(
            keys.contains(&"by-section") && keys.contains(&"original"),
            "{keys:?}"
        );
        assert!(flat(&v.blocks)
            .iter()
            .any(|b| matches!(b, Block::Group { key, .. } if key == "validation")));
        assert_eq!(v.exports.len(), 2);
    }

    #[test]
    fn items_filter_by_verdict_and_their_own_fields_and_open_in_full() {
        let (r, s) = m45();
        let e = evalset_view(&r, &s);
        let all = page(&r, &s, &[], None);
        assert_eq!(all.n_match, e.items.len() as u64);
        let names: Vec<&str> = all.layout.filters.iter().map(|f| f.name.as_str()).collect();
        assert!(
            names.contains(&"verdict") && names.contains(&"section"),
            "{names:?}"
        );
        let wrong = page(&r, &s, &[("verdict", "wrong")], None);
        let right = page(&r, &s, &[("verdict", "correct")], None);
        let skipped = page(&r, &s, &[("verdict", "skipped")], None);
        assert_eq!(wrong.n_match + right.n_match + skipped.n_match, all.n_match);
        assert!(wrong.rows.iter().all(|x| x.bad && x.cells[5] == "wrong"));
        let section = &all.layout.filters[1].options[0];
        let one = page(&r, &s, &[("section", section.as_str())], None);
        assert!(one.n_match > 0);
        assert!(one.rows.iter().all(|x| &x.cells[7] == section));
        let id = e.items[0].id.to_uppercase();
        assert!(page(&r, &s, &[], Some(&id))
            .rows
            .iter()
            .any(|x| x.cells[1] == e.items[0].id));
        // One item in full: the whole prediction, never cut to a table cell.
        let long = e.items.iter().position(|i| {
            i.predicted
                .as_ref()
                .is_some_and(|p| p.chars().count() > 300)
        });
        let at = long.unwrap_or(0);
        let key = ItemKey::text(&e.items[at].id);
        let item = view(&r, &s, &ScreenQuery::Item { key: key.clone() })
            .item
            .expect("item");
        assert_eq!(item.key, key);
        let predicted = flat(&item.blocks).into_iter().find_map(|b| match b {
            Block::Text { key, text, .. } if key == "predicted" => Some(text.clone()),
            _ => None,
        });
        assert_eq!(predicted, Some(clip(&opt(&e.items[at].predicted))));
        let none = ScreenQuery::Item {
            key: ItemKey::text("no such item"),
        };
        assert!(view(&r, &s, &none).item.is_none());
    }
}
