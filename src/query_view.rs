//! Queries and failure cohorts in the dashboard's workers ([docs/query.md], docs/dashboard.md
//! § Queries and cohorts): the engine's one query language ([`evalboard_engine::query`]) over a
//! run's items, and its failure cohorts ([`evalboard_engine::cohorts`]), laid out as screen
//! blocks. No family logic here: the docs come from `RunRef::query_docs_in`, the items table
//! from the family's own items screen (its other filters), which this module narrows to the
//! items the query selects.
//!
//! **The index.** A run's docs are built once, on its first query or cohorts (an [`Index`],
//! kept per run id), and dropped when the run is loaded again, re-scored or removed
//! ([`forget`], [`forget_all`]). An eval log's conversations, read by the worker for a text
//! query, are added to the same docs once ([`Index::messages`]): the next query reads nothing.
//!
//! The query travels as the items filter's choice [`CHOICE`] (`f.query=` in the link).
//!
//! [docs/query.md]: https://example.invalid/evalboard/docs/query.md

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use evalboard_engine::cohorts::{self, Cohorts};
use evalboard_engine::query::{self, Doc, Query};
use evalboard_engine::run::{FamilySet, RunRef};
use evalboard_engine::run_table::ItemKey;

use crate::protocol::{Block, Cell, RunId, ScreenFilter, ScreenQuery, ScreenView, Table, TableRow};
use crate::screen;

/// The items filter's choice that holds the query (`f.query=` in the link).
pub const CHOICE: &str = "query";

/// What `Cell::Open` of a cohort row opens: this, U+001F, the cohort's query.
pub const OPEN_QUERY: &str = "query";

/// Most autocomplete entries sent with a screen.
const MAX_SUGGESTIONS: usize = 400;

/// Characters of context shown on each side of a match in the drawer.
const CONTEXT: usize = 60;

/// Places shown in the drawer for one item.
const MAX_PLACES: usize = 20;

/// A run's items as queries see them, built once.
pub struct Index {
    pub docs: Vec<Doc>,
    /// The run's failure cohorts (its docs are tagged with them: `cohort == "…"`).
    pub cohorts: Cohorts,
    /// Whether the conversations stored apart from the items were read into `docs`.
    pub messages: bool,
    /// The autocomplete list ([`suggestions`]).
    pub suggest: Vec<(String, String)>,
    /// The last query's full table (its query, the other filters, the rows before paging).
    last: Option<(String, ScreenFilter, ScreenView)>,
    /// The fields the docs are tagged with cohorts of other judges under
    /// ([`cohorts::judged_field`]: a comparison judged by one picked).
    judged: Vec<String>,
}

impl Index {
    /// The docs of `run` (of a family in `FAMILIES`), judged by its headline, tagged with its
    /// cohorts. An unusable run gives no docs.
    pub fn build<const FAMILIES: FamilySet>(run: RunRef<'_>) -> Index {
        let mut docs = run.query_docs_in::<FAMILIES>(None).unwrap_or_default();
        let cohorts = cohorts::cohorts(&docs, None);
        cohorts.tag(&mut docs);
        let suggest = suggestions(&docs);
        Index {
            docs,
            cohorts,
            messages: false,
            suggest,
            last: None,
            judged: Vec::new(),
        }
    }

    /// Adds what `add` reads into the docs (an eval log's conversations): once.
    pub fn add_messages(&mut self, add: impl FnOnce(&mut [Doc])) {
        if !self.messages {
            add(&mut self.docs);
            self.messages = true;
            self.suggest = suggestions(&self.docs);
            self.last = None;
        }
    }
}

thread_local! {
    static INDEX: RefCell<HashMap<RunId, Index>> = RefCell::new(HashMap::new());
}

/// Runs `f` on run `id`'s index, built from `run` first when there is none.
pub fn with_index<const FAMILIES: FamilySet, R>(
    id: RunId,
    run: RunRef<'_>,
    f: impl FnOnce(&mut Index) -> R,
) -> R {
    INDEX.with(|ix| {
        let mut ix = ix.borrow_mut();
        let entry = ix
            .entry(id)
            .or_insert_with(|| Index::build::<FAMILIES>(run));
        f(entry)
    })
}

/// The most items a run may have for its index to be built when a screen opens (its overview's
/// cohorts, its items' autocomplete); a bigger run's index is built when a query asks for it.
/// A 100k-turn run's docs take seconds and hundreds of MB in the worker: not on every open.
pub const EAGER_MAX_ITEMS: usize = 50_000;

/// Whether `run`'s index is built when a screen opens ([`EAGER_MAX_ITEMS`]), or is built already.
fn eager(id: RunId, run: RunRef<'_>) -> bool {
    run.counts().1 <= EAGER_MAX_ITEMS || with_built(id, |_| ()).is_some()
}

/// The failure cohorts' block of run `id` for its overview (`open`: with "Show items" buttons);
/// for a run over [`EAGER_MAX_ITEMS`] whose index is not built, a note saying how to get them.
pub fn cohorts_or_note<const FAMILIES: FamilySet>(id: RunId, run: RunRef<'_>, open: bool) -> Block {
    if eager(id, run) {
        return with_index::<FAMILIES, _>(id, run, |ix| cohorts_block(&ix.cohorts, open));
    }
    let how = if open {
        "Run a query on Items (`verdict != correct`) and they are found, or run `evalboard \
         cohorts` on it."
    } else {
        "`evalboard cohorts` lists them."
    };
    crate::screen::note(
        "cohorts-later",
        "note",
        format!(
            "Failure cohorts: this run has {} items, more than the {} whose cohorts are found as it \
             opens. {how}",
            crate::format::int(run.counts().1 as u64),
            crate::format::int(EAGER_MAX_ITEMS as u64)
        ),
    )
}

/// Run `id`'s index, if built (`None`: not built yet).
pub fn with_built<R>(id: RunId, f: impl FnOnce(&mut Index) -> R) -> Option<R> {
    INDEX.with(|ix| ix.borrow_mut().get_mut(&id).map(f))
}

/// Drops run `id`'s index (it was loaded again, re-scored or removed).
pub fn forget(id: RunId) {
    INDEX.with(|ix| ix.borrow_mut().remove(&id));
}

/// Drops every index (the settings changed: every run is re-scored).
pub fn forget_all() {
    INDEX.with(|ix| ix.borrow_mut().clear());
}

/// The query of an items filter (trimmed, not empty) and the filter without it.
pub fn split(filter: &ScreenFilter) -> Option<(String, ScreenFilter)> {
    let q = filter.choice(CHOICE)?.trim().to_string();
    let mut rest = filter.clone();
    rest.choices.retain(|(n, _)| n != CHOICE);
    (!q.is_empty()).then_some((q, rest))
}

/// Whether `src` parses and must read conversations the index has not read yet.
pub fn needs_reading(ix: &Index, src: &str) -> bool {
    !ix.messages && Query::parse(src).is_ok_and(|q| q.needs_messages())
}

/// The autocomplete list: every field name, then `name == "value"` for the values of a field
/// with few ([`query::fields`]), as (text, what it is).
pub fn suggestions(docs: &[Doc]) -> Vec<(String, String)> {
    let fields = query::fields(docs);
    let mut out: Vec<(String, String)> = Vec::new();
    for f in &fields {
        let kind = if f.numeric { "number" } else { "field" };
        out.push((f.name.clone(), format!("{kind}, {} items", f.items)));
    }
    for f in &fields {
        for v in &f.values {
            let lit = if f.numeric || v == "true" || v == "false" || v == "null" {
                v.clone()
            } else {
                format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
            };
            out.push((format!("{} == {lit}", f.name), String::new()));
        }
    }
    out.truncate(MAX_SUGGESTIONS);
    out
}

/// The query box's blocks: the autocomplete list (a `Choice` keyed [`CHOICE`], the query
/// chosen), then `more` (an error, a progress note).
fn query_blocks(ix: &Index, src: &str, more: Vec<Block>) -> Vec<Block> {
    let mut out = vec![Block::Choice {
        key: CHOICE.into(),
        label: "Query".into(),
        options: ix.suggest.clone(),
        chosen: src.to_string(),
    }];
    out.extend(more);
    out
}

/// The items screen for a filter without a query: the family's, with the autocomplete list.
pub fn plain_items(ix: &Index, mut v: ScreenView) -> ScreenView {
    v.blocks = query_blocks(ix, "", Vec::new());
    v
}

/// The items screen of the query `src` and the other filters `rest`: the family's items screen
/// (`plain`, asked for every row of `rest`) narrowed to the items the query selects, paged
/// `offset..offset + limit`; a query that does not parse gives its message and place instead of
/// rows. Kept per query and filters, so the next page is only paged.
pub fn items(
    ix: &mut Index,
    src: &str,
    rest: &ScreenFilter,
    (offset, limit): (u32, u32),
    plain: impl FnOnce(&ScreenQuery) -> Option<ScreenView>,
) -> Option<ScreenView> {
    let q = match Query::parse(src) {
        Ok(q) => q,
        Err(e) => {
            let mut v = plain(&ScreenQuery::Items {
                filter: rest.clone(),
                offset: 0,
                limit: 1,
            })?;
            v.rows.clear();
            v.n_match = 0;
            let caret = format!("{src}\n{}^", " ".repeat(e.at.min(2_000)));
            v.blocks = query_blocks(
                ix,
                src,
                vec![
                    screen::note(
                        "query-error",
                        "error",
                        format!("The query does not parse: {e}"),
                    ),
                    screen::text("query-caret", caret, true),
                ],
            );
            return Some(v);
        }
    };
    let cached = ix
        .last
        .as_ref()
        .is_some_and(|(s, f, _)| s == src && f == rest);
    if !cached {
        let mut all = plain(&ScreenQuery::Items {
            filter: rest.clone(),
            offset: 0,
            limit: screen::ALL_ROWS,
        })?;
        let keys: HashSet<&ItemKey> = ix
            .docs
            .iter()
            .filter(|d| q.matches(d))
            .map(|d| &d.key)
            .collect();
        all.rows.retain(|r| keys.contains(&r.key));
        // Rows numbered in the query's list.
        if all.layout.columns.first().is_some_and(|c| c.0 == "#") {
            for (i, r) in all.rows.iter_mut().enumerate() {
                if let Some(c) = r.cells.first_mut() {
                    *c = (i + 1).to_string();
                }
            }
        }
        all.n_match = all.rows.len() as u64;
        ix.last = Some((src.to_string(), rest.clone(), all));
    }
    let (_, _, all) = ix.last.as_ref()?;
    let mut v = ScreenView {
        rows: Vec::new(),
        ..all.clone()
    };
    screen::page(&mut v, all.rows.clone(), offset, limit, |r| r);
    hits_column(ix, &q, &mut v);
    v.blocks = query_blocks(ix, src, Vec::new());
    Some(v)
}

/// Adds [`crate::protocol::HITS_COLUMN`] to the page of rows `v`, second (after `#`, where it
/// is seen without scrolling sideways), counted for the rows sent only.
fn hits_column(ix: &Index, q: &Query, v: &mut ScreenView) {
    let at: HashMap<&ItemKey, &Doc> = ix.docs.iter().map(|d| (&d.key, d)).collect();
    let col = 1.min(v.layout.columns.len());
    v.layout
        .columns
        .insert(col, (crate::protocol::HITS_COLUMN.into(), "eb-num".into()));
    for r in &mut v.rows {
        let n = at.get(&r.key).map_or(0, |d| q.hits(d).len());
        r.cells.insert(col.min(r.cells.len()), n.to_string());
    }
}

/// The items screen while the conversations are read for query `src`: the family's layout, a
/// progress note (`done` of `total` samples), no rows yet.
pub fn reading(
    ix: &Index,
    src: &str,
    mut layout_of: ScreenView,
    done: usize,
    total: usize,
) -> ScreenView {
    layout_of.rows.clear();
    layout_of.n_match = 0;
    layout_of.blocks = query_blocks(
        ix,
        src,
        vec![screen::note(
            "query-progress",
            "note",
            format!(
                "Reading the conversations for this query: {done} of {total} samples (once: \
                 the next query searches them at once)."
            ),
        )],
    );
    layout_of
}

/// Where query `src` matched item `key` (the index's doc; `extra` adds what the drawer just read,
/// a conversation, to a copy of it when the index has not read it), as a section heading the
/// item's drawer (`data-section="hits"`): one `Text` keyed `hit` per place, `at: …before` the
/// match between [`MARK_START`] and [`MARK_END`] `after…` (the page renders the match in a
/// `mark`, every part as text). Nothing when the query does not parse or does not match.
pub fn hits(ix: &Index, src: &str, key: &ItemKey, extra: Option<&dyn Fn(&mut Doc)>) -> Vec<Block> {
    let Ok(q) = Query::parse(src) else {
        return Vec::new();
    };
    let Some(doc) = ix.docs.iter().find(|d| &d.key == key) else {
        return Vec::new();
    };
    let mut owned;
    let doc = match extra {
        Some(add) if !doc.messages_read => {
            owned = doc.clone();
            add(&mut owned);
            &owned
        }
        _ => doc,
    };
    let all = q.hits(doc);
    if all.is_empty() {
        return Vec::new();
    }
    let mut places: Vec<Block> = Vec::new();
    for h in all.iter().take(MAX_PLACES) {
        places.push(screen::text(
            "hit",
            format!("{}: {}", h.at, snippet(doc, h)),
            false,
        ));
    }
    let more = all.len().saturating_sub(MAX_PLACES);
    if more > 0 {
        places.push(screen::note(
            "hits-more",
            "note",
            format!("and {more} more places"),
        ));
    }
    vec![screen::group(
        "hits",
        "section",
        Some(format!(
            "Where “{}” matched: {}",
            screen::clip_at(src, 120),
            crate::format::plural(all.len() as u64, "place", "places")
        )),
        places,
    )]
}

/// Marks a match's start and end in a snippet (the page renders the text between them in a
/// `mark`, every part as a text node).
pub const MARK_START: char = '\u{2}';
pub const MARK_END: char = '\u{3}';

/// The text around hit `h` of `d`, on one line: up to [`CONTEXT`] characters each side, the
/// match between [`MARK_START`] and [`MARK_END`].
fn snippet(d: &Doc, h: &query::Hit) -> String {
    let clean = |s: &str| s.replace(['\n', '\r', '\t', MARK_START, MARK_END], " ");
    let Some(s) = d.snippet(h, CONTEXT) else {
        let text = d.place_text(&h.at).unwrap_or_default();
        return clean(&screen::clip_at(&text, 2 * CONTEXT));
    };
    let dots = |cut: bool| if cut { "…" } else { "" };
    format!(
        "{}{}{MARK_START}{}{MARK_END}{}{}",
        dots(s.cut_before),
        clean(&s.before),
        clean(&screen::clip_at(&s.hit, 400)),
        clean(&s.after),
        dots(s.cut_after)
    )
}

/// A run's failure cohorts as a section of its overview (`data-section="cohorts"`): each
/// cohort's size, share of the failures, label (and, against a baseline, new / grown / shrunk /
/// same / gone), an example, and (`open`: where the Items tab takes a query) a button that opens
/// the Items tab with its query.
pub fn cohorts_block(c: &Cohorts, open: bool) -> Block {
    let show = |x: &cohorts::Cohort| {
        (x.n > 0 && open).then(|| {
            (
                format!("Show {} items", x.n),
                format!("{OPEN_QUERY}\u{1f}{}", cohorts::query_of(&x.label)),
            )
        })
    };
    cohorts_table(c, &show, open)
}

/// [`cohorts_block`] with each cohort's button from `show` (its text and what it opens, or
/// none), `open` saying in the lead that there are buttons.
fn cohorts_table(
    c: &Cohorts,
    show: &dyn Fn(&cohorts::Cohort) -> Option<(String, String)>,
    open: bool,
) -> Block {
    let with_baseline = c.cohorts.iter().any(|x| x.vs_baseline.is_some());
    let mut head: Vec<String> = vec!["Items".into(), "Share".into()];
    if with_baseline {
        head.push("Against the baseline".into());
    }
    head.extend(["Cause".into(), "Example".into(), String::new()]);
    let mut rows = Vec::new();
    for x in &c.cohorts {
        let mut cells = vec![
            Cell::Text(x.n.to_string()),
            Cell::Text(crate::format::pct(Some(x.share))),
        ];
        if with_baseline {
            cells.push(Cell::Text(match &x.vs_baseline {
                Some(v) => format!("{} (was {})", v.status.word(), v.baseline_n),
                None => String::new(),
            }));
        }
        cells.push(Cell::Text(x.label.clone()));
        cells.push(Cell::Text(match &x.example {
            Some(e) => format!("{}: {}", e.item, screen::clip_at(&e.text, 200)),
            None => String::new(),
        }));
        cells.push(match show(x) {
            Some((text, what)) => Cell::Open(text, what),
            None => Cell::Text(String::new()),
        });
        rows.push(TableRow {
            key: None,
            flag: x
                .vs_baseline
                .as_ref()
                .is_some_and(|v| v.status == cohorts::Trend::New),
            cells,
        });
    }
    let n = c.cohorts.iter().filter(|x| x.n > 0).count();
    let lead = if c.n_failed == 0 {
        "No item fails: no failure cohort.".to_string()
    } else {
        format!(
            "{} of {} items fail{}, in {n} cohort{} by cause (judge, verdict, reason, error \
             message with numbers, ids, quoted values and paths masked, error class); largest \
             first.{}",
            c.n_failed,
            c.n_items,
            if c.judge.is_empty() {
                String::new()
            } else {
                format!(" (judged by {})", c.judge)
            },
            if n == 1 { "" } else { "s" },
            if open {
                " “Show items” lists a cohort's items on the Items tab."
            } else {
                ""
            }
        )
    };
    let mut blocks = vec![Block::Text {
        key: "cohorts-lead".into(),
        text: lead,
        mono: false,
    }];
    if !rows.is_empty() {
        let numeric = head.iter().enumerate().map(|(i, _)| i < 2).collect();
        blocks.push(Block::Table(Table {
            key: "cohorts".into(),
            title: None,
            head,
            numeric,
            rows,
        }));
    }
    screen::group("cohorts", "section", Some("Failure cohorts".into()), blocks)
}

/// One run of a comparison, for its cohorts: its id, its name as the page knows it (the route's
/// `run=`), the run.
pub type Side<'a> = (RunId, &'a str, RunRef<'a>);

/// What `Cell::Open` of a cohort of another run opens: this, U+001F, the run's name, U+001F, the
/// cohort's query (the page opens that run's Items with the query).
pub const OPEN_QUERY_IN: &str = "query-in";

/// `cand`'s failure cohorts against `base`'s (the engine's `cohorts(docs, Some(baseline))`, as
/// `evalboard cohorts CAND --baseline BASE` gives them), from each run's index; `Err` with the
/// reason in words when a run over [`EAGER_MAX_ITEMS`] has no index yet (building it would
/// hold the worker for seconds on a tab the user may only pass through).
///
/// `picked`: the "Judged by" choice (`diff --scorer`'s name). When it is not the runs' headline
/// judge, the cohorts are those of the picked judge (each run judged by it, as `evalboard
/// cohorts --scorer` gives them; `Err` when a run does not offer it), and each run's index is
/// tagged with them under [`cohorts::judged_field`], so the query a cohort opens selects exactly
/// its items. The cohorts come with that field.
pub fn against<const FAMILIES: FamilySet>(
    cand: Side<'_>,
    base: Side<'_>,
    picked: Option<&str>,
) -> Result<(Cohorts, String), String> {
    for (id, name, run) in [cand, base] {
        if !eager(id, run) {
            return Err(format!(
                "{name} has {} items, more than the {} whose cohorts are found as a comparison \
                 opens: run a query on its Items first (`verdict != correct`), or `evalboard \
                 cohorts RUN --baseline BASELINE`.",
                crate::format::int(run.counts().1 as u64),
                crate::format::int(EAGER_MAX_ITEMS as u64)
            ));
        }
    }
    let b = with_index::<FAMILIES, _>(base.0, base.2, |ix| ix.cohorts.clone());
    let c = with_index::<FAMILIES, _>(cand.0, cand.2, |ix| cohorts::cohorts(&ix.docs, Some(&b)));
    match picked {
        Some(j) if !same_judge(j, &c.judge) => judged::<FAMILIES>(cand, base, j),
        _ => Ok((c, cohorts::FIELD.to_string())),
    }
}

/// Whether judge `picked` (a scorer's name, with or without `@version`: `numerical_match` is
/// any version, `numerical_match@financial-agent-2` that one) is `judge` (`name@version`).
fn same_judge(picked: &str, judge: &str) -> bool {
    judge.is_empty()
        || if picked.contains('@') {
            picked == judge
        } else {
            judge.split('@').next() == Some(picked)
        }
}

/// [`against`] under judge `j`: both runs' docs judged by it, their cohorts, and both indexes
/// tagged with them (once per judge).
fn judged<const FAMILIES: FamilySet>(
    cand: Side<'_>,
    base: Side<'_>,
    j: &str,
) -> Result<(Cohorts, String), String> {
    let docs = |side: Side<'_>| {
        side.2
            .query_docs_in::<FAMILIES>(Some(j))
            .map_err(|e| format!("{}: {e}", side.1))
    };
    let (docs_b, docs_c) = (docs(base)?, docs(cand)?);
    let b = cohorts::cohorts(&docs_b, None);
    let c = cohorts::cohorts(&docs_c, Some(&b));
    let field = cohorts::judged_field(if c.judge.is_empty() { j } else { &c.judge });
    for (side, own) in [(base, &b), (cand, &c)] {
        with_index::<FAMILIES, _>(side.0, side.2, |ix| {
            if !ix.judged.contains(&field) {
                own.tag_as(&mut ix.docs, &field);
                ix.judged.push(field.clone());
                ix.last = None;
            }
        });
    }
    Ok((c, field))
}

/// How many cohorts of `c` stand each way against the baseline: new, grown, shrunk, same, gone.
pub fn trend_counts(c: &Cohorts) -> [usize; 5] {
    use cohorts::Trend;
    let mut n = [0; 5];
    for x in &c.cohorts {
        if let Some(v) = &x.vs_baseline {
            n[match v.status {
                Trend::New => 0,
                Trend::Grown => 1,
                Trend::Shrunk => 2,
                Trend::Same => 3,
                Trend::Gone => 4,
            }] += 1;
        }
    }
    n
}

/// The counts of [`trend_counts`] in words: `2 new, 1 grown, 0 shrunk, 3 same, 1 gone`.
fn trend_words(n: [usize; 5]) -> String {
    ["new", "grown", "shrunk", "same", "gone"]
        .iter()
        .zip(n)
        .map(|(w, k)| format!("{k} {w}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Compare tab's failure cohorts (`data-section="cohorts-vs"`): the candidate's cohorts
/// marked new / grown / shrunk / same / gone against the baseline's, each with its count in
/// both runs; a cohort's "Show items" opens the candidate's Items filtered to exactly its
/// members, a gone one's the baseline's. A run too big for its index to be built yet is said
/// in words ([`against`]).
///
/// `picked`: the comparison's "Judged by" choice (`diff --scorer`), when one is picked: the
/// cohorts are of what that judge fails ([`against`]; `evalboard cohorts --scorer`), and the
/// lead names the judge.
pub fn compare_block<const FAMILIES: FamilySet>(
    cand: Side<'_>,
    base: Side<'_>,
    picked: Option<&str>,
) -> Block {
    let title = Some("Failure cohorts against the baseline".to_string());
    let (c, field) = match against::<FAMILIES>(cand, base, picked) {
        Ok(c) => c,
        Err(why) => {
            return screen::group(
                "cohorts-vs",
                "section",
                title,
                vec![screen::note("cohorts-later", "note", why)],
            )
        }
    };
    let b_failed = c
        .cohorts
        .iter()
        .filter_map(|x| x.vs_baseline.as_ref().map(|v| v.baseline_n))
        .sum::<usize>();
    let show = |x: &cohorts::Cohort| {
        let q = cohorts::query_in(&field, &x.label);
        match &x.vs_baseline {
            Some(v) if x.n == 0 && v.baseline_n > 0 => Some((
                format!("Show {} items in the baseline", v.baseline_n),
                format!("{OPEN_QUERY_IN}\u{1f}{}\u{1f}{q}", base.1),
            )),
            _ if x.n > 0 => Some((
                format!("Show {} items", x.n),
                format!("{OPEN_QUERY_IN}\u{1f}{}\u{1f}{q}", cand.1),
            )),
            _ => None,
        }
    };
    let Block::Group { blocks, .. } = cohorts_table(&c, &show, true) else {
        return screen::note("cohorts-vs", "error", "no cohorts");
    };
    let judged = if c.judge.is_empty() {
        String::new()
    } else {
        format!(" (judged by {})", c.judge)
    };
    let mut inner = vec![screen::text(
        "cohorts-vs-lead",
        format!(
            "{}: {} of {} items fail{judged}; the baseline {}: {} fail. Against the baseline's \
             cohorts: {}. Each row: the items in this run, the cause, how it stands (with the \
             baseline's count), an example; “Show items” lists them (a gone cohort's in the \
             baseline).",
            cand.1,
            c.n_failed,
            c.n_items,
            base.1,
            b_failed,
            trend_words(trend_counts(&c))
        ),
        false,
    )];
    inner.extend(blocks.into_iter().skip(1));
    screen::group("cohorts-vs", "section", title, inner)
}

/// The All runs tab's failure cohorts (`data-section="cohorts-many"`): per run against its
/// baseline, how many cohorts are new, grown, shrunk and gone and the biggest new one, the
/// run's name opening the pair Compare (`Cell::Open` as the ranked table's: the baseline's and
/// the run's names joined by U+001F), where its cohorts are listed in full.
///
/// `picked`: the tab's "Judged by" choice, when one is picked: the cohorts are of what that
/// judge fails, for every run ([`against`]).
pub fn many_block<const FAMILIES: FamilySet>(
    pairs: &[(Side<'_>, Side<'_>)],
    picked: Option<&str>,
) -> Block {
    let head: Vec<String> = [
        "Run",
        "Baseline",
        "Failing",
        "New",
        "Grown",
        "Shrunk",
        "Gone",
        "Biggest new cohort",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for (cand, base) in pairs {
        let name = Cell::Open(cand.1.to_string(), format!("{}\u{1f}{}", base.1, cand.1));
        let cells = match against::<FAMILIES>(*cand, *base, picked) {
            Ok((c, _)) => {
                let n = trend_counts(&c);
                let biggest = c
                    .cohorts
                    .iter()
                    .filter(|x| {
                        x.vs_baseline
                            .as_ref()
                            .is_some_and(|v| v.status == cohorts::Trend::New)
                    })
                    .max_by(|a, b| a.n.cmp(&b.n).then_with(|| b.label.cmp(&a.label)))
                    .map(|x| format!("{} items: {}", x.n, x.label))
                    .unwrap_or_default();
                let mut cells = vec![
                    name,
                    Cell::Text(base.1.to_string()),
                    Cell::Text(format!("{} of {}", c.n_failed, c.n_items)),
                ];
                cells.extend([n[0], n[1], n[2], n[4]].map(|k| Cell::Text(k.to_string())));
                cells.push(Cell::Text(biggest));
                cells
            }
            Err(why) => {
                let mut cells = vec![name, Cell::Text(base.1.to_string())];
                cells.extend((0..5).map(|_| Cell::Text(crate::format::NONE.into())));
                cells.push(Cell::Text(why));
                cells
            }
        };
        rows.push(TableRow {
            key: None,
            flag: false,
            cells,
        });
    }
    let numeric = (0..head.len()).map(|i| (3..=6).contains(&i)).collect();
    screen::group(
        "cohorts-many",
        "section",
        Some("Failure cohorts against the baseline".into()),
        vec![
            screen::text(
                "cohorts-many-lead",
                format!(
                    "Each run's failure cohorts against its baseline's (as `evalboard cohorts \
                     RUN --baseline B`): how many are new, grown, shrunk and gone, and the \
                     biggest new one. A run's name opens its Compare with the baseline, which \
                     lists them all.{}",
                    picked
                        .map(|p| format!(" Judged by {p}, the judge picked above."))
                        .unwrap_or_default()
                ),
                false,
            ),
            Block::Table(Table {
                key: "cohorts-many".into(),
                title: None,
                head,
                numeric,
                rows,
            }),
        ],
    )
}

/// The screen `query` of run `id` (`run`, of a family in `FAMILIES`) with queries and cohorts:
/// `plain` is the family's own screen. Items with a query are narrowed to it ([`items`]); every
/// items screen carries the autocomplete list; an overview gets the run's failure cohorts after
/// its cards ([`cohorts_block`]); `Hits` is the item headed by where the query matched
/// ([`hits`]).
pub fn screen<const FAMILIES: FamilySet>(
    id: RunId,
    run: RunRef<'_>,
    query: &ScreenQuery,
    plain: impl Fn(&ScreenQuery) -> Option<ScreenView>,
) -> Option<ScreenView> {
    match query {
        ScreenQuery::Items {
            filter,
            offset,
            limit,
        } => match split(filter) {
            Some((src, rest)) => with_index::<FAMILIES, _>(id, run, |ix| {
                items(ix, &src, &rest, (*offset, *limit), &plain)
            }),
            None => {
                let mut v = plain(query)?;
                if eager(id, run) {
                    return Some(with_index::<FAMILIES, _>(id, run, |ix| plain_items(ix, v)));
                }
                // A big run: the box with no autocomplete until a query builds the index.
                v.blocks = vec![Block::Choice {
                    key: CHOICE.into(),
                    label: "Query".into(),
                    options: Vec::new(),
                    chosen: String::new(),
                }];
                Some(v)
            }
        },
        ScreenQuery::Overview { .. } => {
            let mut v = plain(query)?;
            let block = cohorts_or_note::<FAMILIES>(id, run, true);
            with_cohorts(&mut v.blocks, block);
            Some(v)
        }
        ScreenQuery::Hits { key, query: src } => {
            let mut v = plain(&ScreenQuery::Item { key: key.clone() })?;
            let found = with_index::<FAMILIES, _>(id, run, |ix| hits(ix, src, key, None));
            head_item(&mut v, found);
            Some(v)
        }
        ScreenQuery::Item { .. } | ScreenQuery::Pair { .. } => plain(query),
    }
}

/// Puts `block` (the cohorts) after the first cards of `blocks`, else last.
pub fn with_cohorts(blocks: &mut Vec<Block>, block: Block) {
    let at = blocks
        .iter()
        .position(|b| matches!(b, Block::Cards { .. }))
        .map_or(blocks.len(), |i| i + 1);
    blocks.insert(at, block);
}

/// Heads the item of `v` with `found` (where the query matched).
pub fn head_item(v: &mut ScreenView, found: Vec<Block>) {
    if let Some(item) = v.item.as_mut() {
        item.blocks.splice(0..0, found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str, verdict: &str, error: Option<&str>) -> Doc {
        let mut d = Doc::new(ItemKey::from_parts(&[id.to_string()]));
        d.push("verdict", query::Value::Str(verdict.into()));
        if let Some(e) = error {
            d.push_text("error", e);
        }
        d
    }

    fn index(docs: Vec<Doc>) -> Index {
        let mut docs = docs;
        let cohorts = cohorts::cohorts(&docs, None);
        cohorts.tag(&mut docs);
        let suggest = suggestions(&docs);
        Index {
            docs,
            cohorts,
            messages: false,
            suggest,
            last: None,
            judged: Vec::new(),
        }
    }

    fn rows_of(docs: &[Doc]) -> ScreenView {
        let mut v = screen::empty("run");
        v.layout.columns = screen::columns(&[("#", ""), ("Item", "")]);
        v.n_items = docs.len() as u64;
        v.rows = docs
            .iter()
            .enumerate()
            .map(|(i, d)| crate::protocol::ScreenRow {
                key: d.key.clone(),
                bad: false,
                cells: vec![(i + 1).to_string(), d.key.to_string()],
            })
            .collect();
        v.n_match = v.rows.len() as u64;
        v
    }

    fn three() -> Vec<Doc> {
        vec![
            doc("a", "correct", None),
            doc("b", "wrong", Some("Request timed out after 600s")),
            doc("c", "wrong", Some("Request timed out after 30s")),
        ]
    }

    /// The worker's path over the fixture log: the 50 queries of
    /// `tests/fixtures/query/queries.json` through [`screen`] (the family's own items screen
    /// narrowed), the conversations added as the worker adds them, list exactly their items.
    #[test]
    fn fifty_fixture_queries_through_the_items_screen() {
        use evalboard_engine::family::Family;
        use evalboard_engine::run::{self, ReadOptions, Settings, ALL_FAMILIES};
        use evalboard_engine::{InputFile, RunInput};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query");
        let bytes = std::fs::read(root.join("run/query_fixture.json")).unwrap();
        let input = RunInput::new("run", vec![InputFile::new("run/query_fixture.json", bytes)]);
        let read = run::read_as(Family::EvalLog, &input, None, ReadOptions::default()).unwrap();
        let scored = run::score(read, &Settings::default(), 1);
        let r = scored.as_ref();
        let id = 90_001;
        forget(id);
        with_index::<ALL_FAMILIES, _>(id, r, |ix| {
            ix.add_messages(|docs| {
                let problems = r.add_conversations_in::<ALL_FAMILIES>(&input, docs);
                assert!(problems.is_empty(), "{problems:?}");
            })
        });
        let plain = |q: &ScreenQuery| match &scored {
            run::ScoredRun::EvalLog(l) => Some(crate::evallog::view(l, q)),
            _ => None,
        };
        let queries: serde_json::Value =
            serde_json::from_slice(&std::fs::read(root.join("queries.json")).unwrap()).unwrap();
        let queries = queries.as_array().unwrap();
        assert_eq!(queries.len(), 50);
        for q in queries {
            let src = q["query"].as_str().unwrap();
            let want: Vec<serde_json::Value> = q["expected"].as_array().unwrap().clone();
            let filter = ScreenFilter {
                choices: vec![(CHOICE.into(), src.into())],
                text: None,
            };
            let v = screen::<ALL_FAMILIES>(
                id,
                r,
                &ScreenQuery::Items {
                    filter,
                    offset: 0,
                    limit: 0,
                },
                plain,
            )
            .unwrap();
            let got: Vec<serde_json::Value> = v.rows.iter().map(|r| r.key.to_json()).collect();
            assert_eq!(got, want, "{src}");
            assert_eq!(v.n_match as usize, want.len(), "{src}");
            assert_eq!(v.n_items, 40);
        }
        forget(id);
    }

    #[test]
    fn a_query_narrows_the_family_items_and_renumbers_them() {
        let all = three();
        let mut ix = index(all.clone());
        let v = items(
            &mut ix,
            "verdict == wrong",
            &ScreenFilter::default(),
            (0, 0),
            |_| Some(rows_of(&all)),
        )
        .unwrap();
        assert_eq!(v.n_items, 3);
        assert_eq!(v.n_match, 2);
        let keys: Vec<String> = v.rows.iter().map(|r| r.key.to_string()).collect();
        assert_eq!(keys, ["b", "c"]);
        assert_eq!(v.rows[0].cells[0], "1");
        // The autocomplete list comes with it.
        let Some(Block::Choice {
            options, chosen, ..
        }) = v.blocks.first()
        else {
            panic!("no choice block");
        };
        assert_eq!(chosen, "verdict == wrong");
        assert!(options.iter().any(|(t, _)| t == "verdict == \"wrong\""));
        assert!(options.iter().any(|(t, _)| t == "error"));
        // A second page is paged from the kept table, not asked again.
        let again = items(
            &mut ix,
            "verdict == wrong",
            &ScreenFilter::default(),
            (1, 5),
            |_| panic!("asked again"),
        )
        .unwrap();
        assert_eq!(again.offset, 1);
        assert_eq!(again.rows.len(), 1);
        // Each row's hit count, second: one place (the error) for `error ~`, two for an
        // `or` of two fields that both match.
        assert_eq!(
            v.layout.columns.get(1).map(|c| c.0.as_str()),
            Some(crate::protocol::HITS_COLUMN)
        );
        assert_eq!(v.rows[0].cells[1], "1");
        let both = items(
            &mut ix,
            "error ~ /timed/ or error ~ /out/",
            &ScreenFilter::default(),
            (0, 0),
            |_| Some(rows_of(&all)),
        )
        .unwrap();
        let counts: Vec<&str> = both.rows.iter().map(|r| r.cells[1].as_str()).collect();
        assert_eq!(counts, ["2", "2"]);
    }

    #[test]
    fn a_bad_query_says_why_and_where() {
        let all = three();
        let mut ix = index(all.clone());
        let v = items(
            &mut ix,
            "verdict == wrong and (",
            &ScreenFilter::default(),
            (0, 0),
            |_| Some(rows_of(&all)),
        )
        .unwrap();
        assert!(v.rows.is_empty());
        let note = v.blocks.iter().find_map(|b| match b {
            Block::Note { key, text, .. } if key == "query-error" => Some(text.clone()),
            _ => None,
        });
        assert!(note.unwrap().contains("(at character"), "{:?}", v.blocks);
    }

    #[test]
    fn each_cohort_opens_exactly_its_items() {
        let all = three();
        let mut ix = index(all.clone());
        let c = ix.cohorts.clone();
        assert_eq!(c.cohorts.len(), 1);
        let Block::Group { blocks, .. } = cohorts_block(&c, true) else {
            panic!()
        };
        let Some(Block::Table(t)) = blocks.get(1) else {
            panic!("no table: {blocks:?}")
        };
        let Some(Cell::Open(_, what)) = t.rows[0].cells.last() else {
            panic!()
        };
        let (_, q) = what.split_once('\u{1f}').unwrap();
        let v = items(&mut ix, q, &ScreenFilter::default(), (0, 0), |_| {
            Some(rows_of(&all))
        })
        .unwrap();
        let keys: Vec<String> = v.rows.iter().map(|r| r.key.to_string()).collect();
        assert_eq!(keys, ["b", "c"]);
    }

    #[test]
    fn the_drawer_shows_where_the_query_matched_as_marked_text() {
        let ix = index(three());
        let key = ItemKey::from_parts(&["b".to_string()]);
        let b = hits(&ix, "error ~ /timed out/", &key, None);
        let Some(Block::Group { blocks, title, .. }) = b.first() else {
            panic!("{b:?}")
        };
        // The heading counts the places.
        assert_eq!(
            title.as_deref(),
            Some("Where “error ~ /timed out/” matched: 1 place")
        );
        let Some(Block::Text { text, .. }) = blocks.first() else {
            panic!()
        };
        assert_eq!(text, "error: Request \u{2}timed out\u{3} after 600s");
        assert!(hits(&ix, "error ~ /nope/", &key, None).is_empty());
        assert!(hits(&ix, "((", &key, None).is_empty());
    }

    /// A demo run (`demo/<name>`), read and scored under the default settings.
    fn demo_run(name: &str) -> evalboard_engine::run::ScoredRun {
        use evalboard_engine::run::{self, ReadOptions, Settings};
        use evalboard_engine::{InputFile, RunInput};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("demo")
            .join(name);
        let files = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| {
                let f = format!("{name}/{}", p.file_name().unwrap().to_string_lossy());
                InputFile::new(&f, std::fs::read(&p).unwrap())
            })
            .collect();
        let read = run::read(&RunInput::new(name, files), None, ReadOptions::default());
        run::score(read.unwrap(), &Settings::default(), 1)
    }

    /// Cohorts under a picked judge are the engine's under that judge (`evalboard cohorts
    /// --scorer`), and each one's query over the run's index selects exactly its items (the
    /// index tagged once, however often asked); a judge a run does not offer is said in words.
    #[test]
    fn cohorts_follow_the_picked_judge_and_open_exactly_their_items() {
        use evalboard_engine::run::ALL_FAMILIES;
        let (b, c) = (demo_run("gpt-4o"), demo_run("o3"));
        let (bid, cid) = (90_201, 90_202);
        forget(bid);
        forget(cid);
        let (cand, base) = ((cid, "o3", c.as_ref()), (bid, "gpt-4o", b.as_ref()));
        let headline = against::<ALL_FAMILIES>(cand, base, None).unwrap().0.judge;
        let choices = b.as_ref().judge_choices_in::<ALL_FAMILIES>();
        let j = choices
            .iter()
            .map(|x| x.judge.as_str())
            .find(|j| !same_judge(j, &headline))
            .expect("the demo offers another judge");
        let docs = |r: &evalboard_engine::run::ScoredRun| {
            r.as_ref().query_docs_in::<ALL_FAMILIES>(Some(j)).unwrap()
        };
        let base_c = cohorts::cohorts(&docs(&b), None);
        let want = cohorts::cohorts(&docs(&c), Some(&base_c));
        let (got, field) = against::<ALL_FAMILIES>(cand, base, Some(j)).unwrap();
        assert_eq!(got, want);
        assert_ne!(got.judge, headline);
        assert_eq!(field, cohorts::judged_field(&want.judge));
        // Asked again: the same, the docs tagged once.
        assert_eq!(
            against::<ALL_FAMILIES>(cand, base, Some(j)).unwrap().0,
            want
        );
        let sorted = |mut v: Vec<ItemKey>| {
            v.sort();
            v
        };
        for (id, run, own) in [(cid, c.as_ref(), &want), (bid, b.as_ref(), &base_c)] {
            with_index::<ALL_FAMILIES, _>(id, run, |ix| {
                assert!(ix.docs.iter().all(|d| d
                    .fields
                    .iter()
                    .filter(|(k, _)| k == &field)
                    .count()
                    <= 1));
                for x in own.cohorts.iter().filter(|x| x.n > 0) {
                    let q = Query::parse(&cohorts::query_in(&field, &x.label)).unwrap();
                    let keys = ix
                        .docs
                        .iter()
                        .filter(|d| q.matches(d))
                        .map(|d| d.key.clone());
                    assert_eq!(
                        sorted(keys.collect()),
                        sorted(x.items.clone()),
                        "{}",
                        x.label
                    );
                }
            });
        }
        // The lead names the picked judge; the Show items cells carry its field's query.
        let Block::Group { blocks, .. } = compare_block::<ALL_FAMILIES>(cand, base, Some(j)) else {
            panic!()
        };
        assert!(format!("{:?}", blocks[0]).contains(&format!("(judged by {})", want.judge)));
        assert!(format!("{blocks:?}").contains(&field));
        // A judge the runs do not offer.
        let why = against::<ALL_FAMILIES>(cand, base, Some("no_such_judge")).unwrap_err();
        assert!(why.contains("gpt-4o"), "{why}");
        forget(bid);
        forget(cid);
    }

    /// Compare's cohorts are the engine's `cohorts(candidate, Some(baseline))` (what `evalboard
    /// cohorts --baseline` prints), each row opening its run's items: a gone cohort the
    /// baseline's.
    #[test]
    fn compare_cohorts_are_the_engines_against_the_baseline() {
        use evalboard_engine::run::ALL_FAMILIES;
        let (b, c) = (demo_run("gpt-4o"), demo_run("o3"));
        let (bid, cid) = (90_101, 90_102);
        forget(bid);
        forget(cid);
        let (got, _) =
            against::<ALL_FAMILIES>((cid, "o3", c.as_ref()), (bid, "gpt-4o", b.as_ref()), None)
                .unwrap();
        let docs = |r: &evalboard_engine::run::ScoredRun| {
            r.as_ref().query_docs_in::<ALL_FAMILIES>(None).unwrap()
        };
        let base = cohorts::cohorts(&docs(&b), None);
        let want = cohorts::cohorts(&docs(&c), Some(&base));
        assert_eq!(got, want);
        assert!(got.cohorts.iter().all(|x| x.vs_baseline.is_some()));
        let Block::Group { blocks, .. } = compare_block::<ALL_FAMILIES>(
            (cid, "o3", c.as_ref()),
            (bid, "gpt-4o", b.as_ref()),
            None,
        ) else {
            panic!()
        };
        // The lead names the judge.
        let lead = |picked| match compare_block::<ALL_FAMILIES>(
            (cid, "o3", c.as_ref()),
            (bid, "gpt-4o", b.as_ref()),
            picked,
        ) {
            Block::Group { blocks, .. } => format!("{:?}", blocks[0]),
            other => panic!("{other:?}"),
        };
        assert!(lead(None).contains(&format!("(judged by {})", want.judge)));
        let same = want.judge.split('@').next().unwrap().to_string();
        assert_eq!(lead(Some(&same)), lead(None));
        assert_eq!(lead(Some(&want.judge)), lead(None));
        // The same scorer of another profile is another judge.
        assert!(same_judge("numerical_match", "numerical_match@doc-v1"));
        assert!(!same_judge(
            "numerical_match@financial-agent-2",
            "numerical_match@doc-v1"
        ));
        let t = blocks
            .iter()
            .find_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .unwrap();
        assert_eq!(t.rows.len(), want.cohorts.len());
        for (row, x) in t.rows.iter().zip(&want.cohorts) {
            let Some(Cell::Open(_, what)) = row.cells.last() else {
                panic!("{row:?}")
            };
            let run = if x.n == 0 { "gpt-4o" } else { "o3" };
            let q = cohorts::query_of(&x.label);
            assert_eq!(what, &format!("{OPEN_QUERY_IN}\u{1f}{run}\u{1f}{q}"));
        }
        forget(bid);
        forget(cid);
    }

    /// A run over [`EAGER_MAX_ITEMS`] whose index is not built gets its cohorts against a
    /// baseline in words (no index built behind the user's back), on Compare and All runs.
    #[test]
    fn a_big_run_without_an_index_says_so_instead_of_building_it() {
        use evalboard_engine::family::Family;
        use evalboard_engine::run::{self, ReadOptions, Settings, ALL_FAMILIES};
        use evalboard_engine::{InputFile, RunInput};
        let lines: Vec<String> = (0..EAGER_MAX_ITEMS + 1)
            .map(|i| {
                format!(
                    "{{\"conversation_id\": \"c{}\", \"turn_idx\": {}, \"question\": \"q\", \
                     \"expected\": 1, \"predicted\": {}}}",
                    i / 4,
                    i % 4,
                    i % 3
                )
            })
            .collect();
        let input = RunInput::new(
            "big",
            vec![InputFile::new(
                "big/turns.jsonl",
                lines.join("\n").into_bytes(),
            )],
        );
        let read = run::read_as(Family::NumericQa, &input, None, ReadOptions::default()).unwrap();
        let big = run::score(read, &Settings::default(), 1);
        let (id, other) = (90_201, 90_202);
        forget(id);
        forget(other);
        let side = (id, "big", big.as_ref());
        let why = against::<ALL_FAMILIES>(side, (other, "base", big.as_ref()), None).unwrap_err();
        assert!(
            why.starts_with("big has 50,001 items, more than the 50,000"),
            "{why}"
        );
        assert!(with_built(id, |_| ()).is_none(), "no index was built");
        let Block::Group { blocks, .. } =
            many_block::<ALL_FAMILIES>(&[(side, (other, "base", big.as_ref()))], None)
        else {
            panic!()
        };
        let Some(Block::Table(t)) = blocks.get(1) else {
            panic!()
        };
        assert!(matches!(t.rows[0].cells.last(), Some(Cell::Text(w)) if w == &why));
    }

    #[test]
    fn the_query_is_split_from_the_other_filters() {
        let f = ScreenFilter {
            choices: vec![
                ("query".into(), " x == 1 ".into()),
                ("verdict".into(), "wrong".into()),
            ],
            text: None,
        };
        let (q, rest) = split(&f).unwrap();
        assert_eq!(q, "x == 1");
        assert_eq!(
            rest.choices,
            vec![("verdict".to_string(), "wrong".to_string())]
        );
        assert!(split(&ScreenFilter::default()).is_none());
    }
}
