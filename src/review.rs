//! Human review in the dashboard's main worker (docs/dashboard.md § Human review,
//! docs/marks.md): the one [`MarkSet`] the worker keeps (in the browser's storage:
//! `worker::marks_store`), changed by `Request::Mark` ([`edit`]) and `Request::ImportMarks`
//! ([`import`]), and laid out as screen blocks on every screen of a run ([`screen()`]): the
//! "Human" column and filter of the Items grid, the drawer's review controls with the scorer's
//! verdict and the item's change history, the Overview's headline "with human overrides" beside
//! the original and each scorer's agreement (Cohen's κ, the 2×2 table). Every rule is the
//! engine's ([`evalboard_engine::marks`]); nothing here names a family. Pure (no browser types),
//! tested natively.
//!
//! Marks are keyed by the run's content id ([`content_id`]: the SHA-256 the worker computed for
//! each of its files): a run whose files have no digest gets no marks, and says so.

use std::cell::{Cell as StdCell, RefCell};

use evalboard_engine::accounting::InputFileReport;
use evalboard_engine::marks::{self, At, Mark, MarkSet, Review};
use evalboard_engine::run::{FamilySet, RunRef};
use evalboard_engine::run_table::ItemKey;
use evalboard_report::html::FileProvenance;

use crate::protocol::{Block, Cell, Choice, ScreenQuery, ScreenView, Table, TableRow};
use crate::screen;

/// The sidecar's name on the Export tab (`Request::Export` of this file gives every mark kept).
pub const FILE: &str = "evalboard-marks.jsonl";

/// The items filter of the "Human" column (`f.human=` in the link), and its values.
pub const FILTER: &str = "human";
pub const DIFFERS: &str = "scorer ≠ human";
const FILTER_VALUES: [&str; 5] = ["marked", "unmarked", "correct", "wrong", DIFFERS];

/// What a `Cell::Open` of the agreement table opens: this, U+001F, a value of [`FILTER`].
pub const OPEN_FILTER: &str = "human";

thread_local! {
    static MARKS: RefCell<MarkSet> = RefCell::new(MarkSet::default());
    static ON: StdCell<bool> = const { StdCell::new(false) };
}

/// Turns human review on in this worker (the main worker: it keeps the marks).
pub fn enable() {
    ON.with(|o| o.set(true));
}

fn enabled() -> bool {
    ON.with(StdCell::get)
}

/// Runs `f` on the marks kept.
pub fn with<R>(f: impl FnOnce(&MarkSet) -> R) -> R {
    MARKS.with(|m| f(&m.borrow()))
}

/// Runs `f` on the marks kept, to change them.
pub fn with_mut<R>(f: impl FnOnce(&mut MarkSet) -> R) -> R {
    MARKS.with(|m| f(&mut m.borrow_mut()))
}

/// A scored run's content id from its files (`files`: the run's accounting) and the digests the
/// worker computed for them (`provenance`, by path); `None` when a file has none (not yet, or
/// never: the run gets no marks).
pub fn content_id(files: &[InputFileReport], provenance: &[FileProvenance]) -> Option<String> {
    marks::run_content_id(files, |path| {
        let p = provenance.iter().find(|p| p.path == path)?;
        Some((p.bytes, marks::sha256_from_hex(&p.sha256)?))
    })
}

/// Applies one change of `Request::Mark` to `set` at `at_ms` (milliseconds since the epoch):
/// `Ok(true)` when it changed something, `Err` (why, in words) when the value is refused.
pub fn edit(
    set: &mut MarkSet,
    (id, name): (&str, &str),
    key: &ItemKey,
    (field, value): (&str, &str),
    at_ms: i64,
) -> Result<bool, String> {
    let at = At::Ms(at_ms);
    let item = set.marks_for(id).and_then(|r| r.get(key));
    let changed = match field {
        "mark" => {
            let mark = match value {
                "correct" => Some(Mark::Correct),
                "wrong" => Some(Mark::Wrong),
                "" => None,
                other => return Err(format!("“{other}” is not a mark (correct or wrong)")),
            };
            if item.and_then(|i| i.mark) == mark {
                return Ok(false);
            }
            set.set_mark(id, key, mark, at)
        }
        "note" => {
            if item.and_then(|i| i.note.as_deref()).unwrap_or("") == value {
                return Ok(false);
            }
            set.set_note(id, key, Some(value.to_string()), at)
        }
        "score" => {
            let t = value.trim();
            let score = if t.is_empty() {
                None
            } else {
                let s = t.parse::<f64>().ok().filter(|s| (0.0..=1.0).contains(s));
                Some(s.ok_or_else(|| {
                    format!("“{}” is not a score from 0 to 1", screen::clip_at(t, 40))
                })?)
            };
            if item.and_then(|i| i.score) == score {
                return Ok(false);
            }
            set.set_override(id, key, score, at)
                .map_err(|e| e.to_string())?
        }
        other => return Err(format!("no review field {other}")),
    };
    if changed && set.marks_for(id).and_then(|r| r.run_name.as_deref()) != Some(name) {
        set.name_run(id, name);
    }
    Ok(changed)
}

/// Reads an `evalboard-marks/1` sidecar (`file`, `text`) into `set` (an item in both: the
/// file's): what to tell the user, and whether it is an error (nothing read). `loaded`: the
/// loaded runs' content ids, so the runs not loaded are listed (their marks are kept too).
pub fn import(set: &mut MarkSet, file: &str, text: &str, loaded: &[String]) -> (bool, String) {
    let (read, diags) = MarkSet::from_jsonl(file, text.as_bytes());
    let n_items: usize = read.runs.iter().map(|r| r.items.len()).sum();
    let ids: Vec<&str> = loaded.iter().map(String::as_str).collect();
    let others: Vec<String> = read
        .not_in(&ids)
        .iter()
        .map(|r| {
            format!(
                "{} ({}…, {} items)",
                r.run_name.as_deref().unwrap_or("unnamed run"),
                marks::short_id(&r.content_id),
                r.items.len()
            )
        })
        .collect();
    let n_runs = read.runs.len();
    set.merge(read);
    let mut out = format!(
        "{file}: {} marked items of {} read.",
        crate::format::int(n_items as u64),
        crate::format::plural(n_runs as u64, "run", "runs")
    );
    if !others.is_empty() {
        out.push_str(&format!(
            " Kept for runs not loaded (applied when the same bytes are dropped): {}.",
            others.join("; ")
        ));
    }
    for d in diags.iter().take(20) {
        let line = d.line.map(|l| format!(":{l}")).unwrap_or_default();
        out.push_str(&format!("\n{}{line}: {}", d.file, d.message));
    }
    if diags.len() > 20 {
        out.push_str(&format!("\n… and {} more problems", diags.len() - 20));
    }
    (n_items == 0 && !diags.is_empty(), out)
}

/// The marks kept, for the HTML report's Human review section (`report --marks`), with the
/// reported runs' content ids in order; `None` when none is kept (or review is off here).
pub fn report_marks(
    content_ids: Vec<Option<String>>,
) -> Option<evalboard_report::html::HumanMarks> {
    if !enabled() {
        return None;
    }
    let marks = with(|set| (!set.runs.is_empty()).then(|| set.clone()))?;
    Some(evalboard_report::html::HumanMarks {
        file: "the marks kept in this browser".into(),
        marks,
        content_ids,
    })
}

/// The screen `query` of `run` (content id `id`; `None`: its files have no digest) with its
/// human review: `inner` is the screen without it. Items: the "Human" column and filter;
/// an item: its review section last; the Overview: the review section after its first cards
/// (`overview_blocks`) and the marks file on the Export list.
pub fn screen<const FAMILIES: FamilySet>(
    run: RunRef<'_>,
    id: Option<&str>,
    query: &ScreenQuery,
    inner: impl Fn(&ScreenQuery) -> Option<ScreenView>,
) -> Option<ScreenView> {
    if !enabled() {
        return inner(query);
    }
    match query {
        ScreenQuery::Items {
            filter,
            offset,
            limit,
        } => {
            let wanted = filter
                .choice(FILTER)
                .filter(|v| FILTER_VALUES.contains(v))
                .map(str::to_string);
            let mut v = match &wanted {
                None => inner(query)?,
                Some(h) => {
                    let mut rest = filter.clone();
                    rest.choices.retain(|(n, _)| n != FILTER);
                    let mut all = inner(&ScreenQuery::Items {
                        filter: rest,
                        offset: 0,
                        limit: screen::ALL_ROWS,
                    })?;
                    let differ = if h == DIFFERS {
                        differing::<FAMILIES>(run, id)
                    } else {
                        Vec::new()
                    };
                    let rows: Vec<_> = with(|set| {
                        let marks = id.and_then(|id| set.marks_for(id));
                        all.rows
                            .drain(..)
                            .filter(|r| {
                                let m = marks.and_then(|m| m.get(&r.key));
                                let mark = m.and_then(|m| m.mark);
                                match h.as_str() {
                                    "marked" => m.is_some_and(|m| {
                                        m.mark.is_some() || m.score.is_some() || m.note.is_some()
                                    }),
                                    "unmarked" => mark.is_none(),
                                    "correct" => mark == Some(Mark::Correct),
                                    "wrong" => mark == Some(Mark::Wrong),
                                    _ => differ.binary_search(&r.key).is_ok(),
                                }
                            })
                            .collect()
                    });
                    screen::page(&mut all, rows, *offset, *limit, |r| r);
                    all
                }
            };
            human_column(&mut v, id);
            Some(v)
        }
        ScreenQuery::Item { key } | ScreenQuery::Hits { key, .. } => {
            let mut v = inner(query)?;
            if let Some(item) = v.item.as_mut() {
                item.blocks.push(item_section::<FAMILIES>(run, id, key));
            }
            Some(v)
        }
        ScreenQuery::Overview { .. } => {
            let mut v = inner(query)?;
            let at = v
                .blocks
                .iter()
                .position(|b| matches!(b, Block::Cards { .. }))
                .map_or(v.blocks.len(), |i| i + 1);
            v.blocks
                .insert(at, overview_section::<FAMILIES>(run, id, true));
            v.exports.push((
                FILE.into(),
                "Every human review mark kept in this browser, of every run (the evalboard-marks/1 \
                 sidecar: `evalboard score --marks` applies it)."
                    .into(),
            ));
            Some(v)
        }
        ScreenQuery::Pair { .. } => inner(query),
    }
}

/// `view`'s item with its review section last (a screen made apart from [`screen()`]).
pub fn add_item_section<const FAMILIES: FamilySet>(
    run: RunRef<'_>,
    id: Option<&str>,
    view: &mut ScreenView,
) {
    if !enabled() {
        return;
    }
    if let Some(item) = view.item.as_mut() {
        let key = item.key.clone();
        item.blocks.push(item_section::<FAMILIES>(run, id, &key));
    }
}

/// The review section of item `key` of `run` alone (`None` while review is off): a drawer laid
/// out apart from the screens (a numeric QA turn's conversation).
pub fn item_review<const FAMILIES: FamilySet>(
    run: RunRef<'_>,
    id: Option<&str>,
    key: &ItemKey,
) -> Option<Block> {
    enabled().then(|| item_section::<FAMILIES>(run, id, key))
}

/// An item's blocks without its review section (a Compare pair shows both runs' items: the
/// marks are made in one run's own drawer).
pub fn without_section(mut blocks: Vec<Block>) -> Vec<Block> {
    blocks.retain(|b| !matches!(b, Block::Group { key, .. } if key == "review"));
    blocks
}

/// The items where the run's own judge and the human marks differ, in key order.
fn differing<const FAMILIES: FamilySet>(run: RunRef<'_>, id: Option<&str>) -> Vec<ItemKey> {
    let Some(id) = id else { return Vec::new() };
    let Ok(v) = run.verdicts_in::<FAMILIES>(None) else {
        return Vec::new();
    };
    with(|set| {
        set.marks_for(id)
            .map(|m| marks::agreement(&v, &v.judge, m).disagree)
            .unwrap_or_default()
    })
}

/// The "Human" column (its cells: the mark, the score override, ✎ for a note) and filter.
fn human_column(v: &mut ScreenView, id: Option<&str>) {
    v.layout.columns.push(("Human".into(), "eb-human".into()));
    v.layout.filters.push(Choice {
        name: FILTER.into(),
        label: "Human".into(),
        options: FILTER_VALUES.iter().map(|s| s.to_string()).collect(),
    });
    with(|set| {
        let marks = id.and_then(|id| set.marks_for(id));
        for r in &mut v.rows {
            let m = marks.and_then(|m| m.get(&r.key));
            r.cells.push(m.map(cell_text).unwrap_or_default());
        }
    });
}

/// An item's review in a few characters: `✓ correct`, `✗ wrong`, `· 0.5`, `✎`.
fn cell_text(m: &marks::ItemMark) -> String {
    let mut parts = Vec::new();
    match m.mark {
        Some(Mark::Correct) => parts.push("✓ correct".to_string()),
        Some(Mark::Wrong) => parts.push("✗ wrong".to_string()),
        None => {}
    }
    if let Some(s) = m.score {
        parts.push(format!("score {}", trim_float(s)));
    }
    if m.note.is_some() {
        parts.push("✎".into());
    }
    parts.join(" · ")
}

fn trim_float(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// What a verdict is called.
fn verdict_word(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "correct",
        Some(false) => "wrong",
        None => "not scored",
    }
}

/// A time kept in a change, as shown.
fn when(at: &At) -> String {
    match at {
        At::Ms(ms) => evalboard_engine::run_meta::unix_time_text(*ms as f64 / 1000.0)
            .unwrap_or_else(|| at.to_string()),
        At::Iso(t) => t.clone(),
    }
}

fn value_text(v: &Option<marks::FieldValue>) -> String {
    match v {
        None => "(unset)".into(),
        Some(marks::FieldValue::Mark(m)) => m.as_str().into(),
        Some(marks::FieldValue::Score(s)) => trim_float(*s),
        Some(marks::FieldValue::Note(n)) => screen::clip_at(n, 200),
    }
}

/// The drawer's review section (`data-section="review"`): the controls (or why there are none),
/// the scorer's verdict beside the mark, the keys, and every change (time, field, old → new).
fn item_section<const FAMILIES: FamilySet>(
    run: RunRef<'_>,
    id: Option<&str>,
    key: &ItemKey,
) -> Block {
    let title = Some("Human review".to_string());
    let Some(id) = id else {
        return screen::group(
            "review",
            "section",
            title,
            vec![screen::note(
                "review-no-digest",
                "note",
                "This run's files have no SHA-256 digest yet, so marks cannot be kept for it \
                 (marks are kept by the run's content id, never by its name). Drop its files \
                 again to mark it.",
            )],
        );
    };
    let scorer = run.verdicts_in::<FAMILIES>(None).ok().map(|v| {
        let at = v.rows.binary_search_by(|r| r.key.cmp(key)).ok();
        (v.judge.clone(), at.and_then(|i| v.rows.get(i)?.correct))
    });
    with(|set| {
        let m = set.marks_for(id).and_then(|r| r.get(key));
        let mut blocks = vec![Block::Review {
            mark: m
                .and_then(|m| m.mark)
                .map(|x| x.as_str().to_string())
                .unwrap_or_default(),
            note: m.and_then(|m| m.note.clone()).unwrap_or_default(),
            score: m.and_then(|m| m.score).map(trim_float).unwrap_or_default(),
        }];
        let mut facts = Vec::new();
        if let Some((judge, v)) = &scorer {
            facts.push((format!("Scorer ({judge})"), verdict_word(*v).to_string()));
        }
        facts.push((
            "Human".into(),
            m.map(cell_text)
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "not marked".into()),
        ));
        facts.push(("Run content id".into(), format!("{}…", marks::short_id(id))));
        blocks.push(Block::Facts(facts));
        blocks.push(screen::text(
            "review-keys",
            "Keys: 1 correct · 0 wrong · n note · j / k next / previous item. The run's own score \
             and its metadata above stay as they are; the mark is kept beside them.",
            false,
        ));
        if let Some(m) = m.filter(|m| !m.history.is_empty()) {
            let mut rows = vec![vec![
                "When".to_string(),
                "Field".into(),
                "Old".into(),
                "New".into(),
            ]];
            for c in m.history.iter().rev() {
                rows.push(vec![
                    when(&c.at),
                    c.field.as_str().into(),
                    value_text(&c.old),
                    value_text(&c.new),
                ]);
            }
            blocks.push(screen::table(
                "review-history",
                "Changes, latest first",
                rows,
            ));
        }
        screen::group("review", "section", title, blocks)
    })
}

/// The run's human review as an Overview section (`data-section="human-review"`): the headline
/// with human overrides beside the original, each scorer's agreement with the marks (κ, the
/// 2×2 table, `open`: a button listing the items where they differ), and the marks kept for
/// other runs.
pub fn overview_section<const FAMILIES: FamilySet>(
    run: RunRef<'_>,
    id: Option<&str>,
    open: bool,
) -> Block {
    let title = Some("Human review".to_string());
    let Some(id) = id else {
        return screen::group(
            "human-review",
            "section",
            title,
            vec![screen::note(
                "review-no-digest",
                "note",
                "This run's files have no SHA-256 digest yet: marks are kept by the run's content \
                 id, so none can be kept or applied until it has one.",
            )],
        );
    };
    let review = with(|set| marks::review_in::<FAMILIES>(&run, id, set));
    let mut blocks = Vec::new();
    match review {
        Ok(Some(r)) if r.applied.applied > 0 => blocks.extend(review_blocks(&r, open)),
        Err(e) => blocks.push(screen::note(
            "review-error",
            "warn",
            format!("Marks cannot be applied to this run: {e}"),
        )),
        _ => blocks.push(screen::text(
            "review-none",
            format!(
                "No item of this run is marked yet. Open an item and mark it Correct or Wrong \
                 (keys 1 and 0; j and k move to the next and previous item), or import a marks \
                 file on the Export tab. Marks are kept in this browser under the run's content \
                 id {}…: they come back for the same bytes, never for others.",
                marks::short_id(id)
            ),
            false,
        )),
    }
    let others: Vec<String> = with(|set| {
        set.not_in(&[id])
            .iter()
            .take(20)
            .map(|r| {
                format!(
                    "{} ({}…): {} items",
                    r.run_name.as_deref().unwrap_or("unnamed run"),
                    marks::short_id(&r.content_id),
                    r.items.len()
                )
            })
            .collect()
    });
    if !others.is_empty() {
        blocks.push(screen::text(
            "review-others",
            format!(
                "Marks kept in this browser for other runs (other bytes, or runs not loaded; \
                 never applied here): {}.",
                others.join("; ")
            ),
            false,
        ));
    }
    screen::group("human-review", "section", title, blocks)
}

fn rate_text(r: &evalboard_engine::stats::Rate) -> String {
    format!(
        "{} ({} of {})",
        crate::format::pct(r.value()),
        crate::format::int(r.correct),
        crate::format::int(r.n)
    )
}

/// κ as shown: three decimals, or why it is undefined.
pub fn kappa_text(a: &marks::Agreement) -> String {
    match (a.kappa, &a.kappa_undefined) {
        (Some(k), _) => format!("{k:.3}"),
        (None, Some(why)) => format!("undefined: {why}"),
        (None, None) => crate::format::NONE.into(),
    }
}

/// A review's cards (the headline beside it with overrides) and agreement table.
fn review_blocks(r: &Review, open: bool) -> Vec<Block> {
    let a = &r.applied;
    let mut cards = vec![
        screen::card(
            "human-original",
            "Headline",
            rate_text(&a.original),
            format!("as the scorer ({}) judged it", a.judge),
        ),
        screen::card(
            "human-overrides",
            "With human overrides",
            rate_text(&a.with_overrides),
            format!(
                "{} marked items, {} verdicts changed by a mark",
                crate::format::int(a.applied),
                crate::format::int(a.changed)
            ),
        ),
    ];
    if let Some(m) = a.mean_with_scores {
        cards.push(screen::card(
            "human-mean",
            "Mean with score overrides",
            format!("{m:.3}"),
            "each item's override, else its mark, else its verdict".into(),
        ));
    }
    let mut blocks = vec![Block::Cards {
        primary: "human-overrides".into(),
        cards,
    }];
    let head: Vec<String> = [
        "Scorer",
        "Items with both",
        "Cohen's κ",
        "Both correct",
        "Scorer ✓ human ✗",
        "Scorer ✗ human ✓",
        "Both wrong",
        "Differ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let numeric = (0..head.len()).map(|i| i > 0).collect();
    let rows = r
        .agreement
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let c = &g.confusion;
            let n_differ = g.disagree.len() as u64;
            let differ = if open && i == 0 && n_differ > 0 {
                // The run's own judge: the Items filter "scorer ≠ human".
                Cell::Open(
                    format!("{} — show them", crate::format::int(n_differ)),
                    format!("{OPEN_FILTER}\u{1f}{DIFFERS}"),
                )
            } else {
                Cell::Text(crate::format::int(n_differ))
            };
            TableRow {
                key: Some(g.judge.clone()),
                flag: false,
                cells: vec![
                    Cell::Text(g.label.clone()),
                    Cell::Text(crate::format::int(g.n)),
                    Cell::Text(kappa_text(g)),
                    Cell::Text(crate::format::int(c.both_correct)),
                    Cell::Text(crate::format::int(c.scorer_only)),
                    Cell::Text(crate::format::int(c.human_only)),
                    Cell::Text(crate::format::int(c.both_wrong)),
                    differ,
                ],
            }
        })
        .collect();
    blocks.push(Block::Table(Table {
        key: "agreement".into(),
        title: Some("Agreement with the human marks".into()),
        head,
        numeric,
        rows,
    }));
    blocks.push(screen::text(
        "agreement-how",
        "Over the items that have both a scorer's verdict and a human mark: κ = (p_o − p_e) / \
         (1 − p_e), p_o the share where they agree, p_e the agreement expected from each side's \
         own share of “correct” (docs/marks.md). The headline's own scorer is first.",
        false,
    ));
    blocks
}

/// One run of the All runs tab for [`many_section`]: its name, the run, its content id.
pub type ManyRun<'a> = (&'a str, RunRef<'a>, Option<String>);

/// The All runs tab's human review (`data-section="human-many"`): for each run with marks, the
/// marked items, its headline as judged and with human overrides, each against the baseline's
/// (`runs[0]`, the pinned one, with its own overrides when it has marks) in points, and κ of the
/// headline's judge with the marks. `None` while review is off or no run has a mark.
pub fn many_section<const FAMILIES: FamilySet>(runs: &[ManyRun<'_>]) -> Option<Block> {
    if !enabled() {
        return None;
    }
    let reviews: Vec<Option<Review>> = with(|set| {
        runs.iter()
            .map(|(_, run, id)| {
                let id = id.as_deref()?;
                marks::review_in::<FAMILIES>(run, id, set)
                    .ok()
                    .flatten()
                    .filter(|r| r.applied.applied > 0)
            })
            .collect()
    });
    if reviews.iter().all(Option::is_none) {
        return None;
    }
    // The baseline's headline as judged, and with its overrides when it has marks.
    let base = runs.first()?;
    let base_own = base.1.verdicts_in::<FAMILIES>(None).ok().map(|v| v.rate());
    let base_with = match reviews.first() {
        Some(Some(r)) => Some(r.applied.with_overrides),
        _ => base_own,
    };
    let points = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:+.1} pp", (a - b) * 100.0),
        _ => crate::format::NONE.into(),
    };
    let head: Vec<String> = [
        "Run",
        "Marked",
        "Headline",
        "With human overrides",
        "Δ vs baseline",
        "Δ vs baseline, with overrides",
        "κ (headline's judge)",
    ]
    .map(String::from)
    .to_vec();
    let numeric = (0..head.len()).map(|i| i > 0).collect();
    let rows = runs
        .iter()
        .zip(&reviews)
        .enumerate()
        .filter_map(|(i, ((name, _, _), r))| {
            let r = r.as_ref()?;
            let a = &r.applied;
            let (delta, delta_with) = if i == 0 {
                ("baseline".to_string(), "baseline".to_string())
            } else {
                (
                    points(a.original.value(), base_own.and_then(|b| b.value())),
                    points(a.with_overrides.value(), base_with.and_then(|b| b.value())),
                )
            };
            Some(TableRow {
                key: None,
                flag: a.changed > 0,
                cells: vec![
                    Cell::Text(name.to_string()),
                    Cell::Text(crate::format::int(a.applied)),
                    Cell::Text(rate_text(&a.original)),
                    Cell::Text(rate_text(&a.with_overrides)),
                    Cell::Text(delta),
                    Cell::Text(delta_with),
                    Cell::Text(r.agreement.first().map(kappa_text).unwrap_or_default()),
                ],
            })
        })
        .collect();
    Some(screen::group(
        "human-many",
        "section",
        Some("Human review against the baseline".into()),
        vec![
            screen::text(
                "human-many-lead",
                "The runs with human review marks kept in this browser: each headline as its \
                 scorer judged it and with the marked items' verdicts replaced by the marks \
                 (never in place of the ranked table's), each against the pinned baseline's \
                 (its own overrides when it is marked), and how well the headline's judge \
                 agrees with the marks (Cohen's κ). A run's own Overview has the details.",
                false,
            ),
            Block::Table(Table {
                key: "human-many".into(),
                title: None,
                head,
                numeric,
                rows,
            }),
        ],
    ))
}

#[cfg(test)]
mod tests;
