//! The screens of an evaluation-tool log (the engine's [`ScoredLog`]: Inspect AI,
//! lm-evaluation-harness, promptfoo, OpenAI Evals, HELM), answered one at a time: the overview
//! (the headline recomputed beside the recorded number, every score with its 95% interval,
//! breakdowns by the log's own fields, tokens / cost / latency, errors, what the log says about
//! itself), a page of samples, one sample in full. Pure (no browser types), so it is tested
//! natively; the main worker only stores the run and posts views.

use evalboard_engine::evallog::messages::{Message, PartKind, OMITTED};
use evalboard_engine::evallog::model::{MetricKey, Sample};
use evalboard_engine::evallog::score::{
    headline_of, item_key, key_parts, mismatches, sample_of, ItemVerdict, Tally, TOLERANCE,
};
use evalboard_engine::evallog::views::{
    breakdown, breakdown_fields, breakdowns, errors, fields_of, score_summaries, usage, value_text,
    verdict_by_sample,
};
use evalboard_engine::evallog::{HeadlineState, ScoredLog};

use crate::format::{dec, int, pct, usd, NONE};
use crate::protocol::{
    Block, Cell, Choice, ItemsLayout, ScreenFilter, ScreenItem, ScreenQuery, ScreenRow, ScreenView,
    Table, TableRow,
};
use crate::screen::{self, card, clip, clip_at, group, note, table, text};

/// Breakdown tables shown open; the others (up to
/// [`evalboard_engine::evallog::views::MAX_BREAKDOWNS`]) are collapsed under their title.
const OPEN_BREAKDOWNS: usize = 3;
/// The overview's choice of a breakdown field (`f.breakdown=` in the route).
const BREAKDOWN_CHOICE: &str = "breakdown";
/// Most rows of the scorer-disagreement table on the overview (Items filters them all).
const MAX_FLIP_ROWS: usize = 100;

/// Dollars, with 6 decimals below a cent (a sample of a few hundred tokens costs less than
/// $0.0001, which [`usd`]'s 4 decimals would show as $0.0000).
fn usd_fine(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() && v.abs() < 0.01 && v != 0.0 => format!("${v:.6}"),
        _ => usd(x),
    }
}

/// One screen of the log.
pub fn view(s: &ScoredLog, q: &ScreenQuery) -> ScreenView {
    view_with(s, q, None)
}

/// [`view`], a sample's drawer with the conversation the worker read (`messages`, see
/// [`sample_with_messages`]).
pub fn view_with(
    s: &ScoredLog,
    q: &ScreenQuery,
    messages: Option<Result<Vec<Message>, String>>,
) -> ScreenView {
    let mut v = screen::empty(&s.log.name);
    v.n_items = s.log.run.samples.len() as u64;
    match q {
        ScreenQuery::Overview { dark, choices } => overview(s, *dark, choices, &mut v),
        ScreenQuery::Items {
            filter,
            offset,
            limit,
        } => items(s, filter, *offset, *limit, &mut v),
        ScreenQuery::Item { key } => {
            v.item = sample_of(&s.log.run, key).and_then(|i| sample_with_messages(s, i, messages))
        }
        // Laid out by the run store from both runs' items (`crate::pair`).
        ScreenQuery::Pair { .. } | ScreenQuery::Hits { .. } => {}
    }
    v
}

fn score4(x: Option<f64>) -> String {
    dec(x, 4)
}

/// A headline's number: a count as a whole number when it is one, else 4 decimals.
fn number_of(key: &MetricKey, x: Option<f64>) -> String {
    match x {
        Some(v) if key.is_count() && v.fract() == 0.0 && (0.0..1e15).contains(&v) => int(v as u64),
        _ => score4(x),
    }
}

fn or_none(x: Option<&String>) -> String {
    x.cloned().unwrap_or_else(|| NONE.into())
}

fn overview(s: &ScoredLog, dark: bool, choices: &[(String, String)], v: &mut ScreenView) {
    let run = &s.log.run;
    let n = run.samples.len() as u64;
    let headline = s.verdict_by.as_ref().and_then(|k| headline_of(run, k));
    // The accuracy as originally scored (the statistics' `accuracy`); a re-scored one beside.
    let tally = Tally::of(&s.items);
    let (n_verdict, n_correct) = (tally.judged as u64, tally.correct as u64);
    // A big log shown from its summaries while its samples are read (`eval_file`).
    if let Some(d) = s
        .log
        .diagnostics
        .iter()
        .find(|d| d.message.contains("while the sample members are read"))
    {
        v.blocks.push(note(
            "from-summaries",
            "note",
            format!(
                "{} Outputs, the output search and re-scoring follow when every sample is read.",
                d.message.replacen("samples shown", "Samples shown", 1)
            ),
        ));
    }
    let bad = mismatches(run);
    for m in &bad {
        v.blocks.push(note(
            "mismatch",
            "warn",
            format!(
                "{}: the log records {} but its samples give {} (in {}). evalboard shows the \
                 recomputed number; the difference is either a quirk of the tool or a log that \
                 does not hold every sample.",
                m.metric,
                score4(m.recorded),
                score4(m.recomputed),
                m.file
            ),
        ));
    }
    if let Some(st) = run.unfinished_status() {
        v.blocks.push(note(
            "status",
            "warn",
            format!(
                "The tool recorded this run's status as \"{st}\": the run did not finish, so it \
                 may not hold every sample."
            ),
        ));
    }
    if let Some(d) = run.declared_samples.filter(|d| *d != n) {
        v.blocks.push(note(
            "declared",
            "warn",
            format!(
                "The log's header declares {} samples; {} were read.",
                int(d),
                int(n)
            ),
        ));
    }
    if n == 0 {
        v.blocks.push(note(
            "no-samples",
            "warn",
            "0 samples read: no number the log records is recomputed, and there is no headline \
             score of evalboard's own; the table below lists each recorded number as not \
             recomputed.",
        ));
    }
    if s.verdict_by.is_none() {
        v.blocks.push(note(
            "no-headline",
            "note",
            "This log names no headline score, so its samples have no verdict; every score is \
             still listed below.",
        ));
    }
    let u = usage(run);
    let by = s.judged_by().unwrap_or_else(|| NONE.into());
    let recorded_by = s
        .verdict_by
        .as_ref()
        .map(MetricKey::label)
        .unwrap_or_else(|| NONE.into());
    let flips = s.disagreements();
    if let Some(r) = &s.rescored {
        v.blocks.push(note(
            "rescored",
            "note",
            format!(
                "Re-scored by {} (Settings): each sample's output against its target. The log's \
                 own scores stay as originally scored, in every sample and in the numbers it \
                 recorded; {} judged by {recorded_by} change verdict.",
                r.id,
                crate::format::plural(flips.len() as u64, "sample", "samples"),
            ),
        ));
    }
    // Errored samples that keep the verdict the tool recorded (OpenAI Evals).
    let (errored_judged, _) = s.errored_items();
    let mut cards = vec![
        card(
            "headline_score",
            "Headline score",
            match headline {
                Some(h) if h.recomputed.is_none() => "not recomputed".into(),
                _ => score4(headline.and_then(|h| h.recomputed)),
            },
            match headline {
                Some(h) if h.recomputed.is_some() => format!(
                    "{recorded_by}, recomputed from the samples · the log records {}",
                    score4(h.recorded)
                ),
                Some(h) => format!(
                    "{recorded_by}: the log records {}; {}",
                    score4(h.recorded),
                    h.not_recomputed_reason().unwrap_or_default()
                ),
                None => "the log names no headline score".into(),
            },
        ),
        card(
            "accuracy",
            "Accuracy",
            pct(tally.accuracy()),
            format!(
                "{} of {} samples with a verdict read 1 on {recorded_by}",
                int(n_correct),
                int(n_verdict)
            ),
        ),
        card(
            "n_samples",
            "Samples",
            int(n),
            format!("{} run of {}", run.tool.label(), or_none(run.task.as_ref())),
        ),
        card(
            "n_errors",
            "Errored samples",
            int(s.n_errors() as u64),
            match errored_judged {
                0 => "the tool recorded an error: no verdict".into(),
                k => format!(
                    "the tool recorded an error; {} the verdict it recorded",
                    crate::format::plural(k as u64, "keeps", "keep")
                ),
            },
        ),
        card(
            "n_mismatches",
            "Recorded ≠ recomputed",
            int(bad.len() as u64),
            format!("headline numbers off by more than {TOLERANCE:e}"),
        ),
    ];
    if let Some(r) = &s.rescored {
        let t = Tally::of(&r.items);
        cards.insert(
            1,
            card(
                "rescored_accuracy",
                "Accuracy, re-scored",
                pct(t.accuracy()),
                s.rescored_words().unwrap_or_else(|| {
                    format!(
                        "{} of {} samples judged correct by {by}",
                        int(t.correct as u64),
                        int(t.judged as u64)
                    )
                }),
            ),
        );
        cards.push(card(
            "n_disagreements",
            "Verdicts that flip",
            int(flips.len() as u64),
            "samples the re-scorer judges otherwise than the log's own score".into(),
        ));
    }
    let b = &s.billing;
    if b.n_with_tokens > 0 {
        let t = &b.tokens;
        cards.push(card(
            "tokens",
            "Tokens",
            int(t.total()),
            format!(
                "{} in ({} cache reads) · {} out over {} samples",
                int(t.input()),
                int(t.cache_read),
                int(t.output),
                int(b.n_with_tokens)
            ),
        ));
        cards.push(card(
            "total_cost_usd",
            "Cost",
            match b.cost {
                Some(c) => usd_fine(Some(c)),
                None => "unpriced".into(),
            },
            if b.n_unpriced > 0 {
                format!(
                    "no price for {} ({} of {} samples): Settings › Prices",
                    b.unpriced_models.join(", "),
                    int(b.n_unpriced),
                    int(b.n_with_tokens)
                )
            } else {
                "tokens by class × the price table".into()
            },
        ));
        cards.push(card(
            "cost_per_correct_usd",
            "Cost per correct",
            usd_fine(s.cost_per_correct()),
            format!("the cost over the samples judged correct by {by}"),
        ));
    }
    if u.n_priced > 0 {
        cards.push(card(
            "recorded_cost",
            "Cost, as recorded",
            usd_fine(u.cost),
            format!(
                "as {} priced it ({} of {} samples)",
                run.tool.label(),
                int(u.n_priced),
                int(n)
            ),
        ));
    }
    if let Some(r) = b.cache_hit_ratio() {
        cards.push(card(
            "cache_hit_ratio",
            "Cache-hit ratio",
            pct(Some(r)),
            "cache reads ÷ (cache reads + uncached input)".into(),
        ));
    }
    if u.n_latency > 0 {
        cards.push(card(
            "latency",
            "Latency",
            format!("{} s", dec(u.latency_p50, 2)),
            format!(
                "median · p95 {} s · max {} s · mean {} s",
                dec(u.latency_p95, 2),
                dec(u.latency_max, 2),
                dec(u.latency_mean, 2)
            ),
        ));
    }
    v.blocks.push(Block::Cards {
        primary: "headline_score".into(),
        cards,
    });
    // The tool's headline and the accuracy count different samples: both, in words.
    if let Some(words) = s.accuracy_words() {
        v.blocks.push(note("denominators", "note", words));
    }

    let mut facts = vec![(
        "Tool".to_string(),
        match &run.tool_version {
            Some(ver) => format!("{} {ver}", run.tool.label()),
            None => run.tool.label().to_string(),
        },
    )];
    for (label, value) in [
        ("Task", &run.task),
        ("Task version", &run.task_version),
        ("Model", &run.model),
        ("Dataset", &run.dataset),
        ("Created", &run.created),
        ("Status", &run.status),
        ("Eval id", &run.eval_id),
        ("Run id", &run.run_id),
    ] {
        if let Some(x) = value {
            facts.push((label.to_string(), x.clone()));
        }
    }
    facts.push(("Items judged by".into(), by.clone()));
    if s.rescored.is_some() {
        facts.push(("As originally scored by".into(), recorded_by.clone()));
    }
    facts.push(("Files".into(), run.files.join(", ")));
    let theme = if dark {
        evalboard_report::charts::Theme::Dark
    } else {
        evalboard_report::charts::Theme::Light
    };
    let charts: Vec<Block> = evalboard_report::evallog_charts::evallog_charts(s, theme)
        .into_iter()
        .map(|c| Block::Chart(crate::protocol::ChartDto::from(c)))
        .collect();
    if !charts.is_empty() {
        v.blocks.push(group("charts", "pair", None, charts));
    }
    v.blocks.push(group(
        "about",
        "section",
        Some("About this run".into()),
        vec![Block::Facts(facts)],
    ));
    // Items judged more than once (epochs, repeats): the engine's summary, as `score` prints it.
    if let Some(r) = evalboard_engine::evallog::repeats::summary(s) {
        v.blocks.push(group(
            "repeats",
            "section",
            Some("Repeats (pass@k, flaky items)".into()),
            vec![Block::Facts(r.rows())],
        ));
    }

    // Every headline number the log recorded, beside the recomputation.
    let mut rows = Vec::new();
    for h in &run.headlines {
        let state = h.state(TOLERANCE);
        rows.push(TableRow {
            key: Some(h.key.label()),
            flag: state == HeadlineState::Disagrees,
            cells: vec![
                Cell::Text(h.key.label()),
                Cell::Text(number_of(&h.key, h.recorded)),
                Cell::Text(number_of(&h.key, h.recomputed)),
                Cell::Text(int(h.n)),
                Cell::Text(
                    match state {
                        HeadlineState::NotRecorded => "not recorded",
                        HeadlineState::Agrees => "yes",
                        HeadlineState::Disagrees => "NO",
                        HeadlineState::NotRecomputed => "not recomputed",
                    }
                    .into(),
                ),
                Cell::Text(h.note.clone().unwrap_or_default()),
            ],
        });
    }
    if !rows.is_empty() {
        v.blocks.push(Block::Table(Table {
            key: "headlines".into(),
            title: Some("The log's numbers, recomputed from its samples".into()),
            head: ["Metric", "Recorded", "Recomputed", "n", "Agrees", "Note"]
                .map(str::to_string)
                .to_vec(),
            numeric: vec![false, true, true, true, false, false],
            rows,
        }));
    }

    let mut t = vec![[
        "Score",
        "Samples",
        "Scored",
        "Mean",
        "Std. error",
        "95% CI",
        "Share = 1",
    ]
    .map(str::to_string)
    .to_vec()];
    for x in score_summaries(run) {
        t.push(vec![
            x.name,
            int(x.n),
            int(x.n_scored),
            score4(x.mean),
            score4(x.stderr),
            match x.ci95 {
                Some((lo, hi)) => format!("{} – {}", dec(Some(lo), 4), dec(Some(hi), 4)),
                None => NONE.into(),
            },
            pct(x.share_one),
        ]);
    }
    if t.len() > 1 {
        v.blocks.push(table(
            "scores",
            "Every score (mean of its 0–1 reading, unscored and errored samples left out)",
            t,
        ));
    }

    if !flips.is_empty() {
        let now = verdict_by_sample(s);
        let mut t = vec![[
            "Item",
            "Target",
            "Output",
            "As originally scored",
            "Re-scored",
        ]
        .map(str::to_string)
        .to_vec()];
        for i in flips.iter().take(MAX_FLIP_ROWS) {
            if let Some(x) = run.samples.get(*i) {
                let was = now.get(i).map(|c| !c);
                t.push(vec![
                    key_parts(&x.key).join(" · "),
                    cell_text(&x.target.join(" | ")),
                    cell_text(x.output.as_deref().unwrap_or("")),
                    verdict_word(was, false).into(),
                    verdict_word(now.get(i).copied(), false).into(),
                ]);
            }
        }
        let title = if flips.len() > MAX_FLIP_ROWS {
            format!(
                "Scorer disagreement: {} samples change verdict (the first {MAX_FLIP_ROWS}; Items lists them all)",
                int(flips.len() as u64)
            )
        } else {
            format!(
                "Scorer disagreement: {} samples change verdict",
                int(flips.len() as u64)
            )
        };
        v.blocks.push(table("disagreements", &title, t));
    }

    // The user's pick of a breakdown field comes first and open; any field the log has (2–50
    // values) can be picked, the first few are shown by default.
    let fields = breakdown_fields(run);
    let picked = choices
        .iter()
        .find(|(k, _)| k == BREAKDOWN_CHOICE)
        .map(|(_, f)| f.clone())
        .filter(|f| fields.contains(f));
    let mut shown = breakdowns(s);
    if let Some(f) = &picked {
        shown.retain(|(g, _)| g != f);
        shown.insert(0, (f.clone(), breakdown(s, f)));
    }
    if fields.len() > 1 {
        let mut options = vec![(String::new(), "every field (the first open)".to_string())];
        options.extend(fields.iter().map(|f| (f.clone(), f.clone())));
        v.blocks.push(Block::Choice {
            key: BREAKDOWN_CHOICE.into(),
            label: "Break the samples down by".into(),
            options,
            chosen: picked.clone().unwrap_or_default(),
        });
    }
    let open = if picked.is_some() { 1 } else { OPEN_BREAKDOWNS };
    for (i, (field, groups)) in shown.into_iter().enumerate() {
        let mut t = vec![[
            field.as_str(),
            "Samples",
            "With a verdict",
            "Correct",
            "Accuracy",
            "Errored",
        ]
        .map(str::to_string)
        .to_vec()];
        for g in groups {
            t.push(vec![
                g.value,
                int(g.n),
                int(g.n_verdict),
                int(g.n_correct),
                pct(g.accuracy),
                int(g.n_errors),
            ]);
        }
        let key = format!("by-{field}");
        let title = format!("By {field}");
        if i < open {
            v.blocks.push(table(&key, &title, t));
        } else {
            v.blocks
                .push(group(&key, "more", Some(title), vec![table(&key, "", t)]));
        }
    }

    if b.n_with_tokens > 0 || u.n_priced > 0 || u.n_latency > 0 {
        let k = &b.tokens;
        let mut t = vec![vec!["Usage".to_string(), "Total".to_string()]];
        for (label, value) in [
            ("Uncached input tokens", k.uncached_input),
            ("Cache reads", k.cache_read),
            ("Cache writes", k.cache_write),
            ("Output tokens", k.output),
            ("of which reasoning", k.reasoning),
            ("All tokens", k.total()),
        ] {
            t.push(vec![label.into(), int(value)]);
        }
        t.push(vec!["Cost (price table)".into(), usd_fine(b.cost)]);
        t.push(vec![
            "Cost per correct".into(),
            usd_fine(s.cost_per_correct()),
        ]);
        t.push(vec!["Priced samples".into(), int(b.n_priced)]);
        t.push(vec!["Unpriced samples".into(), int(b.n_unpriced)]);
        t.push(vec!["Cost, as recorded".into(), usd_fine(u.cost)]);
        t.push(vec!["Cache-hit ratio".into(), pct(b.cache_hit_ratio())]);
        for (label, value) in [
            ("Mean latency (s)", u.latency_mean),
            ("Median latency (s)", u.latency_p50),
            ("95th percentile latency (s)", u.latency_p95),
            ("Slowest latency (s)", u.latency_max),
        ] {
            t.push(vec![label.into(), dec(value, 2)]);
        }
        v.blocks.push(table("usage", "Tokens, cost and latency", t));
        if !b.prices.is_empty() {
            let mut t = vec![[
                "Model",
                "$ in / 1M",
                "$ out / 1M",
                "$ cache read / 1M",
                "$ cache write / 1M",
                "Source",
            ]
            .map(str::to_string)
            .to_vec()];
            let or_input = |x: Option<f64>, input: f64| match x {
                Some(x) => x.to_string(),
                None => format!("{input} (input)"),
            };
            for (model, p) in &b.prices {
                t.push(vec![
                    model.clone(),
                    p.input_per_mtok.to_string(),
                    p.output_per_mtok.to_string(),
                    or_input(p.cache_read_per_mtok, p.input_per_mtok),
                    or_input(p.cache_write_per_mtok, p.input_per_mtok),
                    p.note().unwrap_or_else(|| NONE.into()),
                ]);
            }
            v.blocks.push(table("prices", "Prices applied", t));
        }
    }

    let errs = errors(run);
    if !errs.is_empty() {
        let mut t = vec![["Error", "Samples", "For example"]
            .map(str::to_string)
            .to_vec()];
        for (message, count, example) in errs {
            let key = run
                .samples
                .get(example)
                .map(|x| key_parts(&x.key).join(" · "))
                .unwrap_or_default();
            t.push(vec![message, int(count), key]);
        }
        v.blocks.push(table("errors", "Errors", t));
    }

    if !run.config.is_empty() {
        v.blocks.push(group(
            "config",
            "more",
            Some("Configuration as the log records it".into()),
            vec![Block::Facts(
                run.config
                    .iter()
                    .map(|(k, x)| (k.clone(), clip(x)))
                    .collect(),
            )],
        ));
    }
    v.exports = evalboard_report::evallog_files(s)
        .into_iter()
        .map(|(path, _)| {
            let what = match path.as_str() {
                "statistics.json" => "The run's numbers: the recomputed headline beside the recorded one, accuracy, counts.",
                "items.csv" => "One row per sample: key, verdict, input, target, output, error, every score.",
                _ => "An output file of `evalboard score --out`.",
            };
            (path, what.to_string())
        })
        .collect();
}

/// The re-scoring filter's options.
const FLIPPED: &str = "verdict flips";
const KEPT: &str = "verdict kept";

/// The verdict of a sample in words.
fn verdict_word(v: Option<bool>, errored: bool) -> &'static str {
    match v {
        Some(true) => "correct",
        Some(false) => "wrong",
        None if errored => "error",
        None => "no verdict",
    }
}

const COLUMNS: [(&str, &str); 9] = [
    ("#", "eb-num eb-muted"),
    ("Item", "eb-mono"),
    ("Input", ""),
    ("Target", ""),
    ("Output", ""),
    ("Verdict", ""),
    ("Score", "eb-num"),
    ("Reason", "eb-muted"),
    ("Error", ""),
];

/// The first line of `s`, cut to a table cell.
fn cell_text(s: &str) -> String {
    crate::format::clip(s.trim(), 300)
}

fn items(s: &ScoredLog, f: &ScreenFilter, offset: u32, limit: u32, v: &mut ScreenView) {
    let run = &s.log.run;
    let fields = breakdown_fields(run);
    let mut filters = vec![Choice {
        name: "verdict".into(),
        label: "Verdict".into(),
        options: ["correct", "wrong", "no verdict", "error"]
            .map(str::to_string)
            .to_vec(),
    }];
    if s.rescored.is_some() {
        filters.push(Choice {
            name: "flip".into(),
            label: "Re-scoring".into(),
            options: vec![FLIPPED.into(), KEPT.into()],
        });
    }
    // Items judged more than once: its repeats all right, all wrong, or some of each (flaky).
    let repeats = repeat_classes(s);
    if !repeats.is_empty() {
        filters.push(Choice {
            name: REPEATS.into(),
            label: "Repeats".into(),
            options: REPEAT_CLASSES.map(str::to_string).to_vec(),
        });
    }
    for field in &fields {
        let options = breakdown(s, field).into_iter().map(|g| g.value).collect();
        filters.push(Choice {
            name: field.clone(),
            label: field.clone(),
            options,
        });
    }
    v.layout = ItemsLayout {
        kind: "log".into(),
        noun: ("sample".into(), "samples".into()),
        columns: screen::columns(&COLUMNS),
        filters,
        search: "item, input, target, output or reason".into(),
        footnote: "Click a sample (or Enter) for its input, output, every score as recorded with its reason, and its metadata. ↑/↓ move between samples."
            .into(),
    };
    let verdicts = verdict_by_sample(s);
    let reading: std::collections::HashMap<usize, f64> = s
        .judged()
        .iter()
        .filter_map(|x| Some((x.sample, x.reading?)))
        .collect();
    let flipped: std::collections::HashSet<usize> = s.disagreements().into_iter().collect();
    let text = screen::search(f);
    let wanted: Vec<(&str, &str)> = f
        .choices
        .iter()
        .filter(|(k, _)| k != "verdict" && k != "flip" && k != REPEATS && k != BREAKDOWN_CHOICE)
        .map(|(k, x)| (k.as_str(), x.as_str()))
        .collect();
    let hits: Vec<(usize, &Sample)> = run
        .samples
        .iter()
        .enumerate()
        .filter(|(i, x)| {
            let word = verdict_word(verdicts.get(i).copied(), x.error.is_some());
            f.choice("verdict").is_none_or(|w| w == word)
                && f.choice("flip")
                    .is_none_or(|w| (w == FLIPPED) == flipped.contains(i))
                && f.choice(REPEATS)
                    .is_none_or(|w| repeats.get(i).is_some_and(|c| *c == w))
                && (wanted.is_empty() || {
                    let fs = fields_of(x);
                    wanted.iter().all(|(k, want)| {
                        let have = fs.iter().find(|(fk, _)| fk == k).map(|(_, fv)| fv.as_str());
                        have.unwrap_or("(none)") == *want
                    })
                })
                && text.as_deref().is_none_or(|t| {
                    key_parts(&x.key).join(" · ").to_lowercase().contains(t)
                        || [&x.input, &x.output]
                            .iter()
                            .any(|o| o.as_deref().is_some_and(|o| o.to_lowercase().contains(t)))
                        || x.target.iter().any(|o| o.to_lowercase().contains(t))
                        || s.reason(*i).is_some_and(|r| r.to_lowercase().contains(t))
                })
        })
        .collect();
    let hits: Vec<(usize, (usize, &Sample))> = hits.into_iter().enumerate().collect();
    screen::page(v, hits, offset, limit, |(pos, (i, x))| {
        let verdict = verdicts.get(&i).copied();
        ScreenRow {
            key: item_key(&x.key),
            bad: verdict == Some(false) || x.error.is_some(),
            cells: vec![
                (pos + 1).to_string(),
                key_parts(&x.key).join(" · "),
                cell_text(x.input.as_deref().unwrap_or("")),
                cell_text(&x.target.join(" | ")),
                cell_text(x.output.as_deref().unwrap_or("")),
                if flipped.contains(&i) {
                    format!(
                        "{} (was {})",
                        verdict_word(verdict, false),
                        verdict_word(verdict.map(|c| !c), false)
                    )
                } else {
                    verdict_word(verdict, x.error.is_some()).into()
                },
                score4(reading.get(&i).copied()),
                cell_text(s.reason(i).unwrap_or("")),
                cell_text(x.error.as_deref().unwrap_or("")),
            ],
        }
    });
}

/// The items filter on an item's repeats, and its classes.
const REPEATS: &str = "repeats";
const REPEAT_CLASSES: [&str; 3] = ["flaky", "always right", "always wrong"];

/// Each sample's class among [`REPEAT_CLASSES`] by its item's scored repeats (a sample whose
/// item has no scored repeat has none); empty when no item was judged twice.
fn repeat_classes(s: &ScoredLog) -> std::collections::HashMap<usize, &'static str> {
    use evalboard_engine::evallog::repeats::{item_repeats, repeat_part};
    let items = item_repeats(s);
    if !items.iter().any(|i| i.n() > 1) {
        return Default::default();
    }
    let part = repeat_part(&s.log.run).unwrap_or(usize::MAX);
    let class: std::collections::HashMap<&evalboard_engine::run_table::ItemKey, &'static str> =
        items
            .iter()
            .filter(|i| i.n() > 0)
            .map(|i| {
                let c = match (i.correct(), i.n()) {
                    (0, _) => REPEAT_CLASSES[2],
                    (c, n) if c == n => REPEAT_CLASSES[1],
                    _ => REPEAT_CLASSES[0],
                };
                (&i.key, c)
            })
            .collect();
    s.judged()
        .iter()
        .filter_map(|it| {
            let key = evalboard_engine::run_table::ItemKey::from_parts(&it.key);
            let (item, _) = evalboard_engine::repeats::split_repeat(&key, part);
            Some((it.sample, *class.get(&item)?))
        })
        .collect()
}

/// The names of a key's parts, per tool.
fn key_names(x: &Sample) -> &'static [&'static str] {
    use evalboard_engine::evallog::model::SampleKey as K;
    match x.key {
        K::Inspect { .. } => &["sample id", "epoch"],
        K::LmEval { .. } => &["task", "doc_id", "filter"],
        K::Promptfoo { .. } => &["test", "prompt", "repeat"],
        K::OpenaiEvals { .. } => &["sample_id"],
        K::Helm { .. } => &["instance", "perturbation", "train trial"],
        // evalboard's rows: the key of the family the run was exported from.
        K::Evalboard { .. } => &["item key"],
    }
}

/// Most characters of one text of a message shown in the drawer (the rest cut with a note).
pub const MAX_MESSAGE_TEXT: usize = 20_000;
/// Most characters of a conversation sent to the page; the messages after are counted in a note.
pub const MAX_CONVERSATION_TEXT: usize = 1_000_000;

/// A message's role as a title word.
fn role_title(role: &str) -> String {
    match role {
        "system" => "System".into(),
        "user" => "User".into(),
        "assistant" => "Assistant".into(),
        "tool" => "Tool result".into(),
        other => other.to_string(),
    }
}

/// Tool-call arguments (compact JSON) for reading: an object of one string argument (`code`,
/// `cmd`) as that argument's name and its text as written; otherwise indented JSON; as given when
/// they do not parse.
fn readable_arguments(args: &str) -> (Option<String>, String) {
    use serde_json::Value;
    match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(o)) if o.len() == 1 => match o.iter().next() {
            Some((k, Value::String(text))) => (Some(k.clone()), text.clone()),
            _ => (
                None,
                serde_json::to_string_pretty(&o).unwrap_or_else(|_| args.into()),
            ),
        },
        Ok(v) => (
            None,
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| args.into()),
        ),
        Err(_) => (None, args.to_string()),
    }
}

/// A conversation as blocks, one titled group (`message` layout) per message in order: its text
/// parts, reasoning collapsed under "Reasoning", media placeholders, a server-side tool use, each
/// tool call with its arguments as code, a tool result's error; everything as text. Texts are cut
/// at [`MAX_MESSAGE_TEXT`] characters; past [`MAX_CONVERSATION_TEXT`] characters the remaining
/// messages are counted in a note. The engine's marker for left-out messages is a note.
pub fn conversation_blocks(messages: &[Message]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut budget = MAX_CONVERSATION_TEXT;
    let mut number = 0usize;
    for (i, m) in messages.iter().enumerate() {
        if m.role == OMITTED {
            out.push(note("messages-omitted", "note", m.text()));
            continue;
        }
        if budget == 0 {
            out.push(note(
                "messages-cut",
                "note",
                format!(
                    "{} more messages not shown: the drawer shows the first {} characters of a \
                     conversation.",
                    int((messages.len() - i) as u64),
                    int(MAX_CONVERSATION_TEXT as u64)
                ),
            ));
            break;
        }
        number += 1;
        let mut spend = |t: &str| {
            let shown = clip_at(t, MAX_MESSAGE_TEXT.min(budget.max(1)));
            budget = budget.saturating_sub(shown.chars().count());
            shown
        };
        let mut inner = Vec::new();
        for p in m.parts.iter().filter(|p| !p.text.trim().is_empty()) {
            match p.kind {
                PartKind::Text => inner.push(text("message-text", spend(&p.text), false)),
                PartKind::Reasoning => inner.push(group(
                    "reasoning",
                    "more",
                    Some("Reasoning".into()),
                    vec![text("reasoning", spend(&p.text), false)],
                )),
                PartKind::Media => inner.push(text("message-media", spend(&p.text), true)),
                PartKind::ToolUse => inner.push(text("tool-use", spend(&p.text), true)),
            }
        }
        if let Some(e) = &m.error {
            inner.push(note("tool-error", "error", format!("Error: {}", spend(e))));
        }
        for c in &m.tool_calls {
            let (arg, code) = readable_arguments(&c.arguments);
            let mut title = format!("Tool call · {}", c.function);
            if let Some(a) = &arg {
                title.push_str(&format!(" · {}", crate::format::clip(a, 80)));
            }
            if let Some(id) = &c.id {
                title.push_str(&format!(" · {id}"));
            }
            let mut call = vec![Block::Code {
                label: format!("Arguments of {}", c.function),
                code: spend(&code),
            }];
            if let Some(e) = &c.parse_error {
                call.push(note(
                    "parse-error",
                    "warn",
                    format!("Arguments did not parse: {}", spend(e)),
                ));
            }
            inner.push(group("tool-call", "message", Some(title), call));
        }
        if inner.is_empty() {
            inner.push(text("message-text", "(empty)", false));
        }
        let mut title = format!("{number} · {}", role_title(&m.role));
        for x in [&m.function, &m.model].into_iter().flatten() {
            title.push_str(&format!(" · {}", crate::format::clip(x, 80)));
        }
        if let Some(id) = &m.tool_call_id {
            title.push_str(&format!(" · answers {}", crate::format::clip(id, 80)));
        }
        out.push(group(
            &format!("message-{}", role_key(&m.role)),
            "message",
            Some(title),
            inner,
        ));
    }
    out
}

/// A role as part of a block key: lowercase letters and dashes only.
fn role_key(role: &str) -> String {
    let k: String = role
        .chars()
        .take(20)
        .map(|c| {
            if c.is_ascii_alphabetic() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if k.is_empty() {
        "other".into()
    } else {
        k
    }
}

/// One sample in full, as the drawer shows it: its key and verdict(s), tokens, cost, latency,
/// error, input, target(s), output, every score as originally scored, metadata and, when the
/// worker read them (`messages`: the sample's conversation, or why it could not be read), the
/// whole conversation ([`conversation_blocks`]). `None` when the log has no sample `index`.
pub fn sample_with_messages(
    s: &ScoredLog,
    index: usize,
    messages: Option<Result<Vec<Message>, String>>,
) -> Option<ScreenItem> {
    let x = s.log.run.samples.get(index)?;
    let of = |items: &[ItemVerdict]| items.iter().find(|v| v.sample == index)?.correct;
    let verdict = of(s.judged());
    let mut parts = key_parts(&x.key);
    if matches!(
        x.key,
        evalboard_engine::evallog::model::SampleKey::Evalboard { .. }
    ) {
        // One fact: the key as `diff --json` prints it.
        let key = evalboard_engine::run_table::ItemKey::from_parts(&parts);
        parts = vec![key.to_json().to_string()];
    }
    let mut facts: Vec<(String, String)> = key_names(x)
        .iter()
        .zip(&parts)
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    facts.push((
        "Verdict".into(),
        format!(
            "{} (by {})",
            verdict_word(verdict, x.error.is_some()),
            s.judged_by().unwrap_or_else(|| NONE.into())
        ),
    ));
    if let Some(r) = s.reason(index) {
        facts.push(("Reason".into(), clip(r)));
    }
    if s.rescored.is_some() {
        let was = of(&s.items);
        facts.push((
            "As originally scored".into(),
            format!(
                "{} (by {})",
                verdict_word(was, x.error.is_some()),
                s.verdict_by
                    .as_ref()
                    .map(MetricKey::label)
                    .unwrap_or_else(|| NONE.into())
            ),
        ));
    }
    let bill = s.billing.samples.get(index).copied().unwrap_or_default();
    if let Some(t) = bill.split {
        let mut words = format!(
            "{} uncached in · {} cache reads · {} cache writes · {} out",
            int(t.uncached_input),
            int(t.cache_read),
            int(t.cache_write),
            int(t.output)
        );
        if t.reasoning > 0 {
            words.push_str(&format!(" ({} reasoning)", int(t.reasoning)));
        }
        if let Some(r) = x.tokens.replayed.filter(|r| *r > 0) {
            words.push_str(&format!(" · {} replayed from the tool's cache", int(r)));
        }
        facts.push(("Tokens".into(), words));
    }
    let model = evalboard_engine::evallog::billing::model_key(&s.log.run, x);
    facts.push((
        "Cost".into(),
        match (bill.cost, bill.split) {
            (Some(c), _) => format!("{} (price table, {model})", usd_fine(Some(c))),
            (None, Some(_)) => format!("unpriced: no price for {model}"),
            (None, None) => "no tokens recorded".into(),
        },
    ));
    if let Some(c) = x.cost {
        facts.push(("Cost, as recorded".into(), usd_fine(Some(c))));
    }
    if let Some(l) = x.latency {
        facts.push(("Latency".into(), format!("{} s", dec(Some(l), 2))));
    }
    facts.push(("Source".into(), x.source.clone()));
    let mut b = vec![Block::Facts(facts)];
    if let Some(e) = &x.error {
        b.push(note("error", "error", format!("Error: {}", clip(e))));
    }
    b.push(Block::Heading("Input".into()));
    b.push(text(
        "input",
        clip(x.input.as_deref().unwrap_or(NONE)),
        false,
    ));
    b.push(Block::Heading(
        if x.target.len() > 1 {
            "Targets"
        } else {
            "Target"
        }
        .into(),
    ));
    b.push(text(
        "target",
        if x.target.is_empty() {
            NONE.to_string()
        } else {
            clip(&x.target.join("\n"))
        },
        false,
    ));
    b.push(Block::Heading("Output".into()));
    b.push(text(
        "output",
        clip(x.output.as_deref().unwrap_or(NONE)),
        false,
    ));
    b.push(Block::Heading("Scores, as originally scored".into()));
    let rows = x
        .scores
        .iter()
        .map(|e| {
            let mut about = Vec::new();
            if let Some(a) = &e.answer {
                about.push(("answer".to_string(), clip(a)));
            }
            if let Some(ex) = &e.explanation {
                about.push(("explanation".to_string(), clip(ex)));
            }
            TableRow {
                key: Some(e.score_name().to_string()),
                flag: false,
                cells: vec![
                    Cell::Text(e.score_name().to_string()),
                    Cell::Text(value_text(&e.value)),
                    Cell::Text(score4(e.reading)),
                    Cell::Pairs(about),
                ],
            }
        })
        .collect();
    b.push(Block::Table(Table {
        key: "sample-scores".into(),
        title: None,
        head: [
            "Score",
            "As recorded",
            "0–1 reading",
            "Answer and explanation",
        ]
        .map(str::to_string)
        .to_vec(),
        numeric: vec![false, true, true, false],
        rows,
    }));
    b.extend(check_blocks(&x.checks));
    if !x.metadata.is_empty() {
        b.push(Block::Heading("Metadata".into()));
        b.push(Block::Facts(
            x.metadata
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        clip(&evalboard_engine::evallog::views::meta_text(v)),
                    )
                })
                .collect(),
        ));
    }
    match messages {
        Some(Ok(m)) => {
            let n = m.iter().filter(|m| m.role != OMITTED).count();
            b.push(Block::Heading(format!(
                "Conversation · {}",
                crate::format::plural(n as u64, "message", "messages")
            )));
            let shown = conversation_blocks(&m);
            if shown.is_empty() {
                b.push(note(
                    "no-messages",
                    "note",
                    "The log holds no messages for this sample (it was written without them).",
                ));
            }
            b.extend(shown);
        }
        Some(Err(e)) => b.push(note(
            "conversation",
            "warn",
            format!("The conversation could not be read: {}", clip(&e)),
        )),
        None => {}
    }
    Some(ScreenItem {
        key: item_key(&x.key),
        title: format!("Sample {}", parts.join(" · ")),
        blocks: b,
    })
}

/// A sample's per-assertion results (promptfoo's `componentResults`) as a table: an assertion
/// set's own results indented under it, a failed one marked; nothing when there are none.
fn check_blocks(c: &evalboard_engine::evallog::model::Checks) -> Vec<Block> {
    if c.list.is_empty() && c.more == 0 {
        return Vec::new();
    }
    let failed = c.list.iter().filter(|x| x.pass == Some(false)).count();
    let mut b = vec![Block::Heading(format!(
        "Assertions · {} of {} failed",
        failed,
        c.list.len()
    ))];
    let rows = c
        .list
        .iter()
        .map(|x| TableRow {
            key: None,
            flag: x.pass == Some(false),
            cells: vec![
                Cell::Text(format!(
                    "{}{}",
                    "↳ ".repeat(x.depth.min(8) as usize),
                    x.kind
                )),
                Cell::Text(clip(x.value.as_deref().unwrap_or(NONE))),
                Cell::Text(
                    match x.pass {
                        Some(true) => "pass",
                        Some(false) => "fail",
                        None => NONE,
                    }
                    .into(),
                ),
                Cell::Text(score4(x.score)),
                Cell::Text(clip(x.reason.as_deref().unwrap_or(NONE))),
            ],
        })
        .collect();
    b.push(Block::Table(Table {
        key: "sample-checks".into(),
        title: None,
        head: ["Type", "Value", "Pass", "Score", "Reason"]
            .map(str::to_string)
            .to_vec(),
        numeric: vec![false, false, false, true, false],
        rows,
    }));
    if c.more > 0 {
        b.push(note(
            "checks-more",
            "note",
            format!(
                "{} more not shown (not an assertion object, or past the first {}).",
                int(c.more),
                evalboard_engine::evallog::checks::MAX_CHECKS
            ),
        ));
    }
    b
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
    use evalboard_engine::run_table::ItemKey;

    /// The drawer of the log's first sample, opened by its key.
    fn first_sample(s: &ScoredLog) -> ScreenItem {
        let key = item_key(&s.log.run.samples[0].key);
        view(s, &ScreenQuery::Item { key }).item.expect("sample 0")
    }
    use evalboard_engine::{InputFile, RunInput};

    /// The files of `tests/fixtures/evallog/<dir>`, read and scored as one log.
    pub(crate) fn log(dir: &str) -> ScoredLog {
        log_under(dir, &Settings::default())
    }

    fn log_under(dir: &str, settings: &Settings) -> ScoredLog {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evallog")
            .join(dir);
        let mut files: Vec<InputFile> = std::fs::read_dir(&root)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                Some(InputFile::new(name, std::fs::read(e.path()).ok()?))
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        assert!(!files.is_empty(), "no files under {}", root.display());
        let read = run::read_as(
            Family::EvalLog,
            &RunInput::new(dir, files),
            None,
            ReadOptions::default(),
        )
        .expect("usable");
        match run::score(read, settings, 1) {
            ScoredRun::EvalLog(l) => *l,
            _ => unreachable!("an eval log"),
        }
    }

    use crate::screen::testing::{card_value as card, cell, first_page, flat, tables};

    fn table<'a>(blocks: &'a [Block], key: &str) -> Option<&'a Table> {
        tables(blocks).into_iter().find(|t| t.key == key)
    }

    fn cells(t: &Table, row: usize) -> Vec<String> {
        t.rows
            .get(row)
            .map(|r| r.cells.iter().map(cell).collect())
            .unwrap_or_default()
    }

    fn items_of(s: &ScoredLog, choices: &[(&str, &str)], text: Option<&str>) -> ScreenView {
        view(s, &first_page(choices, text))
    }

    #[test]
    fn bidi_controls_in_a_log_are_visible_escapes_on_every_screen() {
        // A scorer name ending in U+202E would mirror "… the log records 0.3333" after it.
        let controls = "\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}";
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(
            root.join("tests/fixtures/evallog/ok/json_nan/input/arith.json"),
        )
        .expect("fixture")
        .replace("\"match\"", "\"match\\u202e\"")
        .replace("mockllm/model", &format!("mockllm/model{controls}"));
        let input = RunInput::new(
            "bidi",
            vec![InputFile::new("arith.json", text.into_bytes())],
        );
        let read =
            run::read_as(Family::EvalLog, &input, None, ReadOptions::default()).expect("usable");
        let ScoredRun::EvalLog(s) = run::score(read, &Settings::default(), 1) else {
            unreachable!("an eval log")
        };
        let queries = [
            ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
            first_page(&[], None),
            ScreenQuery::Item {
                key: item_key(&s.log.run.samples[0].key),
            },
        ];
        let holds = |v: &ScreenView| {
            let bytes = postcard::to_allocvec(v).expect("encodes");
            let text = String::from_utf8_lossy(&bytes).into_owned();
            text.chars().any(evalboard_engine::text::is_bidi_control)
        };
        let mut overview = view(&s, &queries[0]);
        assert!(holds(&overview), "the log's controls reach the screen");
        for q in &queries {
            let mut v = view(&s, q);
            crate::screen::neutralize_bidi(&mut v);
            assert!(!holds(&v), "{q:?} keeps a bidi control");
        }
        crate::screen::neutralize_bidi(&mut overview);
        let shown = format!("{:?}", overview.blocks);
        assert!(
            shown.contains("match\\\\u{202e}"),
            "the control is shown as an escape"
        );
    }

    /// Issue 28, class 2: a number that cannot be recomputed is its own state, never a
    /// disagreement, and the headline card never shows the recorded number as recomputed.
    #[test]
    fn not_recomputed_is_said_never_counted_as_a_mismatch() {
        let overview = ScreenQuery::Overview {
            dark: false,
            choices: Vec::new(),
        };
        let s = log("ok/lm_eval_not_recomputed/input");
        let v = view(&s, &overview);
        assert_eq!(card(&v, "n_mismatches"), "0");
        assert_eq!(card(&v, "headline_score"), "0.6000");
        let h = table(&v.blocks, "headlines").expect("headline table");
        assert!(
            h.rows.iter().all(|r| !r.flag),
            "no row flagged as a disagreement"
        );
        let bleu = h
            .rows
            .iter()
            .position(|r| r.key.as_deref() == Some("arith_gen/bleu[strict-match]/bleu"))
            .expect("the bleu row");
        assert_eq!(cells(h, bleu)[4], "not recomputed");
        assert!(cells(h, bleu)[5].contains("aggregation `bleu`"));

        let s = log("ok/lm_eval_results_only/input");
        let v = view(&s, &overview);
        assert_eq!(card(&v, "headline_score"), "not recomputed");
        assert_eq!(card(&v, "n_mismatches"), "0");
        assert!(format!("{:?}", v.blocks).contains("0 samples read"));
    }

    #[test]
    fn inspect_overview_states_the_headline_beside_the_recorded_number() {
        let s = log("runs/inspect_arith");
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        let headline = s.headline_value();
        assert_eq!(card(&v, "headline_score"), score4(headline));
        assert_eq!(card(&v, "n_samples"), s.log.run.samples.len().to_string());
        assert_eq!(card(&v, "n_mismatches"), "0");
        let h = table(&v.blocks, "headlines").expect("headline table");
        assert!(!h.rows.is_empty());
        assert!(
            h.rows.iter().all(|r| !r.flag),
            "every recorded number reproduces"
        );
        let scores = table(&v.blocks, "scores").expect("scores table");
        assert!(!scores.rows.is_empty());
        // The headline scorer's mean is the headline (Inspect's accuracy = mean reading).
        let by = s.verdict_by.clone().expect("a headline score");
        let row = scores
            .rows
            .iter()
            .position(|r| matches!(r.cells.first(), Some(Cell::Text(t)) if by.scorer.ends_with(t.as_str())))
            .expect("the headline scorer's row");
        if by.metric == "accuracy" {
            assert_eq!(cells(scores, row)[3], score4(headline));
        }
        assert!(v.exports.iter().any(|(f, _)| f == "statistics.json"));
        // Charts: each score's mean, and the accuracy by the first breakdown field (epoch).
        let keys: Vec<&str> = flat(&v.blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Chart(c) => Some(c.key.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(keys, ["scores", "by_field"]);
        assert!(v.exports.iter().any(|(f, _)| f == "items.csv"));
    }

    #[test]
    fn a_recorded_number_the_samples_do_not_give_is_a_warning() {
        let s = log("runs/lm_eval_mismatch");
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: true,
                choices: Vec::new(),
            },
        );
        assert_ne!(card(&v, "n_mismatches"), "0");
        assert!(flat(&v.blocks).iter().any(
            |b| matches!(b, Block::Note { key, tone, .. } if key == "mismatch" && tone == "warn")
        ));
        let h = table(&v.blocks, "headlines").expect("headline table");
        assert!(h.rows.iter().any(|r| r.flag));
        // lm-eval's task and filter are breakdowns of their own.
        assert!(
            table(&v.blocks, "by-task").is_some(),
            "{:?}",
            breakdown_fields(&s.log.run)
        );
    }

    /// Issue 28, classes 5 and 9: a finished promptfoo run with provider errors opens with no
    /// warning, and says how its pass rate and the accuracy count the samples; counts show as
    /// whole numbers.
    #[test]
    fn a_finished_run_is_not_warned_about_and_says_both_denominators() {
        let s = log("ok/promptfoo_errors/input");
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        let notes: Vec<(String, String)> = flat(&v.blocks)
            .iter()
            .filter_map(|b| match b {
                Block::Note { key, tone, .. } => Some((key.clone(), tone.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(notes, [("denominators".to_string(), "note".to_string())]);
        let h = table(&v.blocks, "headlines").expect("headline table");
        let row = h
            .rows
            .iter()
            .find(|r| r.key.as_deref() == Some("stats/tokenUsage.numRequests"))
            .expect("every recorded number");
        assert_eq!(row.cells[1], Cell::Text("32".into()));
        let s = log("ok/openai_evals_errors/input");
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        assert_eq!(card(&v, "accuracy"), pct(Some(0.75)));
        assert!(flat(&v.blocks)
            .iter()
            .all(|b| !matches!(b, Block::Note { tone, .. } if tone == "warn")));
    }

    #[test]
    fn the_user_picks_the_breakdown_field() {
        let s = log("runs/promptfoo_baseline");
        let fields = breakdown_fields(&s.log.run);
        assert!(fields.len() > 3, "{fields:?}");
        let by = |choices: Vec<(String, String)>| -> Vec<(String, bool)> {
            let v = view(
                &s,
                &ScreenQuery::Overview {
                    dark: false,
                    choices,
                },
            );
            v.blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Table(t) if t.key.starts_with("by-") => Some((t.key.clone(), true)),
                    Block::Group { key, .. } if key.starts_with("by-") => {
                        Some((key.clone(), false))
                    }
                    _ => None,
                })
                .collect()
        };
        // Unpicked: the first three open, in the log's order; the choice lists every field.
        let default = by(Vec::new());
        assert_eq!(default.iter().filter(|(_, open)| *open).count(), 3);
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        let options = v.blocks.iter().find_map(|b| match b {
            Block::Choice {
                key,
                options,
                chosen,
                ..
            } if key == BREAKDOWN_CHOICE => {
                assert_eq!(chosen, "");
                Some(options.clone())
            }
            _ => None,
        });
        let options = options.expect("a breakdown choice");
        assert_eq!(options.len(), fields.len() + 1);
        // Picked: that field first and open, the others collapsed, every field still there.
        let last = fields.last().unwrap().clone();
        let picked = by(vec![(BREAKDOWN_CHOICE.into(), last.clone())]);
        assert_eq!(picked[0], (format!("by-{last}"), true));
        assert!(picked[1..].iter().all(|(_, open)| !open));
        assert_eq!(
            picked.len(),
            default.len().max(fields.len().min(picked.len()))
        );
        // An unknown field is no pick; the choice never filters the items.
        assert_eq!(by(vec![(BREAKDOWN_CHOICE.into(), "nope".into())]), default);
        let all = items_of(&s, &[(BREAKDOWN_CHOICE, last.as_str())], None);
        assert_eq!(all.n_match, s.log.run.samples.len() as u64);
    }

    #[test]
    fn items_filter_by_verdict_field_and_text() {
        let s = log("runs/inspect_arith");
        let all = items_of(&s, &[], None);
        let n = s.log.run.samples.len() as u64;
        assert_eq!((all.n_items, all.n_match), (n, n));
        assert_eq!(all.layout.columns.len(), all.rows[0].cells.len());
        assert_eq!(all.layout.filters[0].name, "verdict");
        let right = items_of(&s, &[("verdict", "correct")], None);
        let wrong = items_of(&s, &[("verdict", "wrong")], None);
        let none = items_of(&s, &[("verdict", "no verdict")], None);
        let err = items_of(&s, &[("verdict", "error")], None);
        assert_eq!(
            right.n_match + wrong.n_match + none.n_match + err.n_match,
            n
        );
        assert!(right.rows.iter().all(|r| r.cells[5] == "correct" && !r.bad));
        assert!(wrong.rows.iter().all(|r| r.cells[5] == "wrong" && r.bad));
        // Accuracy on the overview = correct / (correct + wrong).
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        let acc = right.n_match as f64 / (right.n_match + wrong.n_match) as f64;
        assert_eq!(card(&v, "accuracy"), pct(Some(acc)));
        // A field filter keeps that value only; text searches key, input, target and output.
        if let Some(epoch) = all.layout.filters.iter().find(|f| f.name == "epoch") {
            let first = &epoch.options[0];
            let one = items_of(&s, &[("epoch", first.as_str())], None);
            assert!(one.n_match > 0 && one.n_match < n);
            assert!(one
                .rows
                .iter()
                .all(|r| r.cells[1].ends_with(&format!(" · {first}"))));
        }
        let target = s.log.run.samples[0]
            .target
            .first()
            .cloned()
            .unwrap_or_default();
        let found = items_of(&s, &[], Some(&target.to_uppercase()));
        assert!(found.n_match >= 1);
        assert!(items_of(&s, &[], Some("no such text anywhere ✗"))
            .rows
            .is_empty());
    }

    /// The overview and a sample under the price table (`tests/fixtures/evallog/prices/`, costs
    /// computed by hand in the engine's `evallog_prices.rs`): cost, cost per correct, the
    /// recorded cost beside, cache-hit ratio, latency; without a price, "unpriced" and the model.
    #[test]
    fn cost_is_shown_under_the_price_table_and_unpriced_without() {
        let bytes = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/evallog/prices/prices.json"),
        )
        .expect("prices");
        let mut settings = Settings::default();
        settings.numeric_qa.prices = evalboard_engine::prices::PriceTable::from_json("p", &bytes)
            .expect("a table")
            .0;
        let s = log_under("prices/inspect", &settings);
        let overview = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        assert_eq!(card(&overview, "total_cost_usd"), "$0.0957");
        assert_eq!(card(&overview, "cost_per_correct_usd"), "$0.0319");
        assert_eq!(card(&overview, "recorded_cost"), "$0.0520");
        assert_eq!(card(&overview, "cache_hit_ratio"), "82.2%");
        assert_eq!(card(&overview, "latency"), "1.50 s");
        let prices = table(&overview.blocks, "prices").expect("prices applied");
        assert_eq!(
            cells(prices, 0),
            [
                "anthropic/claude-sonnet-4",
                "3",
                "15",
                "0.3",
                "3.75",
                "anthropic.com/pricing, 2025-06-01"
            ]
        );
        let facts = |item: &ScreenItem| -> Vec<(String, String)> {
            flat(&item.blocks)
                .into_iter()
                .find_map(|b| match b {
                    Block::Facts(f) => Some(f.clone()),
                    _ => None,
                })
                .unwrap_or_default()
        };
        let fact = |item: &ScreenItem, k: &str| {
            facts(item)
                .into_iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v)
                .unwrap_or_default()
        };
        let first = first_sample(&s);
        assert_eq!(
            fact(&first, "Cost"),
            "$0.0315 (price table, anthropic/claude-sonnet-4)"
        );
        assert_eq!(
            fact(&first, "Tokens"),
            "1,000 uncached in · 20,000 cache reads · 4,000 cache writes · 500 out (200 reasoning)"
        );

        let s = log("prices/inspect");
        let overview = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        assert_eq!(card(&overview, "total_cost_usd"), "unpriced");
        assert_eq!(
            fact(&first_sample(&s), "Cost"),
            "unpriced: no price for anthropic/claude-sonnet-4"
        );
    }

    #[test]
    fn repeats_are_summed_up_and_flaky_items_filtered() {
        let s = log("ok/inspect_epochs5/input");
        let v = view(
            &s,
            &ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        );
        let facts: Vec<(String, String)> = groups(&v.blocks, "section")
            .into_iter()
            .filter(|(k, _, _)| *k == "repeats")
            .flat_map(|(_, _, b)| b.iter())
            .filter_map(|b| match b {
                Block::Facts(f) => Some(f.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let summary = evalboard_engine::evallog::repeats::summary(&s).expect("repeats");
        assert_eq!(facts, summary.rows());
        assert!(facts
            .iter()
            .any(|(k, v)| k == "pass@2 · pass^2" && v.starts_with("0.7278 · 0.4333")));
        // Flaky: items 2, 5 and d, every one of their 5 epochs (an errored or unscored epoch
        // included); the classes cover every sample of a scored item.
        let flaky = items_of(&s, &[("repeats", "flaky")], None);
        assert_eq!(flaky.n_match, 15);
        let ids: std::collections::BTreeSet<String> = flaky
            .rows
            .iter()
            .map(|r| r.cells[1].split(" · ").next().unwrap_or("").to_string())
            .collect();
        assert_eq!(ids, ["2", "5", "d"].map(String::from).into());
        let right = items_of(&s, &[("repeats", "always right")], None);
        let wrong = items_of(&s, &[("repeats", "always wrong")], None);
        assert_eq!((right.n_match, wrong.n_match), (10, 5));
        // A log without repeats offers no such filter.
        let one = log("ok/inspect_epochs1/input");
        let all = items_of(&one, &[], None);
        assert!(all.layout.filters.iter().all(|f| f.name != "repeats"));
    }

    #[test]
    fn a_sample_shows_its_texts_scores_and_metadata() {
        let s = log("runs/inspect_arith");
        let item = first_sample(&s);
        let x = &s.log.run.samples[0];
        let texts: Vec<(&str, &str)> = flat(&item.blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Text { key, text, .. } => Some((key.as_str(), text.as_str())),
                _ => None,
            })
            .collect();
        assert!(texts.contains(&("output", x.output.as_deref().unwrap_or("—"))));
        assert!(texts.iter().any(|(k, _)| *k == "input"));
        let scores = table(&item.blocks, "sample-scores").expect("scores");
        assert_eq!(scores.rows.len(), x.scores.len());
        assert!(item.title.starts_with("Sample "));
        assert!(view(
            &s,
            &ScreenQuery::Item {
                key: ItemKey::text("no such sample")
            }
        )
        .item
        .is_none());
    }

    #[test]
    fn the_items_give_each_samples_reason_and_promptfoo_its_assertions() {
        // promptfoo: the grading reason; texts stay text (a formula or markup is a cell's text).
        let s = log("ok/promptfoo_assertions/input");
        let all = items_of(&s, &[], None);
        let at = all
            .layout
            .columns
            .iter()
            .position(|c| c.0 == "Reason")
            .expect("a Reason column");
        let reasons: Vec<&str> = all.rows.iter().map(|r| r.cells[at].as_str()).collect();
        assert_eq!(
            reasons,
            [
                "All assertions passed",
                "Expected output to contain \"Paris\"",
                "=The answer apologises instead of answering <script>alert(1)</script>",
            ]
        );
        // The reason is searched.
        assert_eq!(items_of(&s, &[], Some("paris")).n_match, 1);
        // The drawer: the reason among the facts, every assertion in a table, nested ones
        // indented, failed ones marked, the entry that is no assertion counted.
        let key = item_key(&s.log.run.samples[1].key);
        let item = view(&s, &ScreenQuery::Item { key }).item.expect("sample 1");
        assert!(flat(&item.blocks).iter().any(|b| matches!(b,
            Block::Facts(f) if f.iter().any(|(k, v)| k == "Reason" && v.contains("Paris")))));
        let t = table(&item.blocks, "sample-checks").expect("assertions");
        assert_eq!(t.head, ["Type", "Value", "Pass", "Score", "Reason"]);
        let rows: Vec<Vec<String>> = (0..t.rows.len()).map(|i| cells(t, i)).collect();
        assert_eq!(rows[0][..3], ["assert-set", "—", "fail"]);
        assert_eq!(rows[1][..3], ["↳ icontains", "paris", "fail"]);
        assert_eq!(rows[2][..3], ["↳ regex", "\\d[\\d,]*", "pass"]);
        assert_eq!(rows[3][1], "threshold 3000");
        assert_eq!(
            rows[4][..3],
            ["javascript", "{\"fn\":\"output.length < 80\"}", "—"]
        );
        assert_eq!(
            t.rows.iter().map(|r| r.flag).collect::<Vec<_>>(),
            [true, true, false, false, false]
        );
        assert!(flat(&item.blocks).iter().any(|b| matches!(b,
            Block::Heading(h) if h == "Assertions · 2 of 5 failed")));
        // Inspect: the headline scorer's explanation.
        let s = log("ok/inspect_epochs2_json/input");
        let all = items_of(&s, &[], None);
        assert_eq!(all.rows[0].cells[at], "The answer is 4.");
        // A log without explanations (lm-eval) has an empty Reason cell and no assertions.
        let s = log("ok/lm_eval_results_only/input");
        let all = items_of(&s, &[], None);
        assert!(all.rows.iter().all(|r| r.cells[at].is_empty()));
    }

    #[test]
    fn promptfoo_items_filter_by_prompt() {
        let s = log("runs/promptfoo_baseline");
        let all = items_of(&s, &[], None);
        assert!(all.n_match > 0);
        let fields: Vec<&str> = all.layout.filters.iter().map(|f| f.name.as_str()).collect();
        assert!(fields.contains(&"verdict"), "{fields:?}");
    }

    #[test]
    fn a_rescored_log_keeps_the_original_verdicts_beside_and_lists_the_flips() {
        use evalboard_engine::evallog::rescore::RescoreKind;
        for kind in [
            RescoreKind::Exact,
            RescoreKind::Includes,
            RescoreKind::Numeric,
        ] {
            let mut settings = Settings::default();
            settings.evallog.scorer = Some(kind);
            let s = log_under("runs/inspect_arith", &settings);
            let flips = s.disagreements();
            let v = view(
                &s,
                &ScreenQuery::Overview {
                    dark: false,
                    choices: Vec::new(),
                },
            );
            assert!(flat(&v.blocks)
                .iter()
                .any(|b| matches!(b, Block::Note { key, .. } if key == "rescored")));
            assert_eq!(card(&v, "n_disagreements"), flips.len().to_string());
            assert!(!card(&v, "accuracy").is_empty());
            assert_eq!(
                table(&v.blocks, "disagreements").is_some(),
                !flips.is_empty()
            );
            let n = s.log.run.samples.len() as u64;
            let flipped = items_of(&s, &[("flip", FLIPPED)], None);
            let kept = items_of(&s, &[("flip", KEPT)], None);
            assert_eq!(flipped.n_match as usize, flips.len(), "{kind:?}");
            assert_eq!(flipped.n_match + kept.n_match, n);
            assert!(flipped.rows.iter().all(|r| r.cells[5].contains("(was ")));
            // The accuracy card is the re-scored accuracy, as the statistics give it.
            let judged: Vec<bool> = s.judged().iter().filter_map(|x| x.correct).collect();
            let acc = judged.iter().filter(|c| **c).count() as f64 / judged.len() as f64;
            assert_eq!(card(&v, "rescored_accuracy"), pct(Some(acc)), "{kind:?}");
            let item = first_sample(&s);
            assert!(flat(&item.blocks).iter().any(|b| matches!(b, Block::Facts(f) if f.iter().any(|(k, _)| k == "As originally scored"))));
        }
    }

    /// The conversation of sample `index` of `tests/fixtures/evallog/runs/inspect_arith`, read
    /// the way the worker reads it: the member the engine names, then its messages.
    fn arith_messages(s: &ScoredLog, index: usize) -> Result<Vec<Message>, String> {
        use evalboard_engine::evallog::archive::{Archive, Limits};
        use evalboard_engine::evallog::messages::{
            inspect_messages_at, inspect_sample_messages, MessagesAt,
        };
        let bytes = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/evallog/runs/inspect_arith/arith.eval"),
        )
        .map_err(|e| e.to_string())?;
        let file = &s.log.run.files[0];
        let sample = &s.log.run.samples[index];
        let Some(MessagesAt::Member(name)) = inspect_messages_at(file, sample) else {
            return Err(format!("no member for {}", sample.source));
        };
        let archive = Archive::parse(&bytes, Limits::default())?;
        let member = archive.read(archive.get(&name).ok_or("no member")?)?;
        inspect_sample_messages(&member)
    }

    fn groups<'a>(blocks: &'a [Block], layout_of: &str) -> Vec<(&'a str, &'a str, &'a [Block])> {
        flat(blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Group {
                    key,
                    layout,
                    title,
                    blocks,
                    ..
                } if layout == layout_of => Some((
                    key.as_str(),
                    title.as_deref().unwrap_or(""),
                    blocks.as_slice(),
                )),
                _ => None,
            })
            .collect()
    }

    fn texts_of(blocks: &[Block]) -> Vec<(&str, &str)> {
        flat(blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Text { key, text, .. } => Some((key.as_str(), text.as_str())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_sample_shows_its_whole_conversation_when_the_worker_read_it() {
        let s = log("runs/inspect_arith");
        // Sample 0 is `2` of epoch 1: two turns, the first answer only in the messages.
        let messages = arith_messages(&s, 0).expect("messages");
        assert_eq!(messages.len(), 4);
        let item = sample_with_messages(&s, 0, Some(Ok(messages.clone()))).expect("sample 0");
        let without = sample_with_messages(&s, 0, None).expect("sample 0");
        // Without messages the drawer is what it was; with them, one section more, last.
        assert_eq!(
            view(
                &s,
                &ScreenQuery::Item {
                    key: item_key(&s.log.run.samples[0].key)
                }
            )
            .item
            .as_ref(),
            Some(&without)
        );
        assert_eq!(item.blocks[..without.blocks.len()], without.blocks[..]);
        let added = &item.blocks[without.blocks.len()..];
        assert_eq!(
            added.first(),
            Some(&Block::Heading("Conversation · 4 messages".into()))
        );
        assert_eq!(added.len(), 5);
        let msgs = groups(added, "message");
        let keys: Vec<(&str, &str)> = msgs.iter().map(|(k, t, _)| (*k, *t)).collect();
        assert_eq!(
            keys,
            [
                ("message-user", "1 · User"),
                ("message-assistant", "2 · Assistant · mockllm/model"),
                ("message-user", "3 · User"),
                ("message-assistant", "4 · Assistant · mockllm/model"),
            ]
        );
        let said: Vec<&str> = msgs
            .iter()
            .flat_map(|(_, _, b)| texts_of(b))
            .map(|(_, t)| t)
            .collect();
        assert_eq!(
            said,
            [
                "What is 3+4? Answer with only the number.",
                "7",
                "Are you sure? Answer again with only the number.",
                "seven"
            ]
        );
        // A conversation that could not be read is a warning, with the reason.
        let failed = sample_with_messages(&s, 0, Some(Err("member is cut".into()))).expect("item");
        assert!(flat(&failed.blocks).iter().any(|b| matches!(b,
            Block::Note { key, tone, text } if key == "conversation" && tone == "warn" && text.ends_with("member is cut"))));
        assert!(sample_with_messages(&s, 99_999, None).is_none());
    }

    fn msg(role: &str, parts: &[(PartKind, &str)]) -> Message {
        Message {
            role: role.into(),
            parts: parts
                .iter()
                .map(|(kind, text)| evalboard_engine::evallog::messages::Part {
                    kind: *kind,
                    text: text.to_string(),
                })
                .collect(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            function: None,
            model: None,
            error: None,
        }
    }

    #[test]
    fn tool_calls_reasoning_and_results_are_laid_out_as_text() {
        use evalboard_engine::evallog::messages::ToolCall;
        let mut call = msg(
            "assistant",
            &[
                (PartKind::Reasoning, "list the files"),
                (PartKind::Text, "Let me look."),
            ],
        );
        call.tool_calls.push(ToolCall {
            id: Some("c1".into()),
            function: "bash".into(),
            arguments: r#"{"cmd":"ls <b>\ncat x"}"#.into(),
            parse_error: None,
        });
        call.tool_calls.push(ToolCall {
            id: None,
            function: "add".into(),
            arguments: r#"{"a":1,"b":[2]}"#.into(),
            parse_error: Some("late".into()),
        });
        let mut result = msg(
            "tool",
            &[
                (PartKind::Text, "<script>x</script>"),
                (PartKind::Text, " "),
            ],
        );
        result.tool_call_id = Some("c1".into());
        result.function = Some("bash".into());
        result.error = Some("timeout: too slow".into());
        let blocks = conversation_blocks(&[
            msg("system", &[(PartKind::Text, "Be brief.")]),
            msg(
                "user",
                &[
                    (PartKind::Media, "[image]"),
                    (PartKind::Text, "What is it?"),
                ],
            ),
            call,
            msg(OMITTED, &[(PartKind::Text, "… 3 more messages not shown")]),
            result,
            msg("assistant", &[]),
        ]);
        let msgs = groups(&blocks, "message");
        let titles: Vec<&str> = msgs.iter().map(|(_, t, _)| *t).collect();
        assert_eq!(
            titles,
            [
                "1 · System",
                "2 · User",
                "3 · Assistant",
                "Tool call · bash · cmd · c1",
                "Tool call · add",
                "4 · Tool result · bash · answers c1",
                "5 · Assistant"
            ]
        );
        // Reasoning collapsed; one string argument as written, others as indented JSON; markup
        // as text; a blank part left out.
        let more = groups(&blocks, "more");
        assert_eq!(more.len(), 1);
        assert_eq!(more[0].1, "Reasoning");
        let codes: Vec<&str> = flat(&blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Code { code, .. } => Some(code.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            codes,
            ["ls <b>\ncat x", "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}"]
        );
        let all = texts_of(&blocks);
        assert_eq!(
            all.iter().filter(|(k, _)| *k == "message-text").count(),
            5,
            "{all:?}"
        );
        assert!(all.contains(&("message-media", "[image]")));
        assert!(all.contains(&("message-text", "<script>x</script>")));
        assert!(all.contains(&("message-text", "(empty)")));
        let notes: Vec<(&str, &str)> = flat(&blocks)
            .into_iter()
            .filter_map(|b| match b {
                Block::Note { key, text, .. } => Some((key.as_str(), text.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            notes,
            [
                ("parse-error", "Arguments did not parse: late"),
                ("messages-omitted", "… 3 more messages not shown"),
                ("tool-error", "Error: timeout: too slow")
            ]
        );
    }

    #[test]
    fn long_conversations_are_cut_with_a_count() {
        let long = "x".repeat(MAX_MESSAGE_TEXT + 10);
        let blocks = conversation_blocks(&[msg("user", &[(PartKind::Text, long.as_str())])]);
        let t = texts_of(&blocks)[0].1;
        assert!(t.ends_with(&format!(
            "… (cut at {} of {} characters)",
            evalboard_engine::run_meta::fmt_int(MAX_MESSAGE_TEXT as u64),
            evalboard_engine::run_meta::fmt_int(MAX_MESSAGE_TEXT as u64 + 10)
        )));
        let n = MAX_CONVERSATION_TEXT / MAX_MESSAGE_TEXT + 5;
        let many: Vec<Message> = (0..n)
            .map(|_| msg("user", &[(PartKind::Text, long.as_str())]))
            .collect();
        let blocks = conversation_blocks(&many);
        let shown: usize = texts_of(&blocks)
            .iter()
            .map(|(_, t)| t.chars().count())
            .sum();
        assert!(shown <= MAX_CONVERSATION_TEXT + 100, "{shown}");
        let cut = flat(&blocks)
            .into_iter()
            .find_map(|b| match b {
                Block::Note { key, text, .. } if key == "messages-cut" => Some(text.clone()),
                _ => None,
            })
            .expect("a note counts the rest");
        assert!(cut.starts_with("5 more messages"), "{cut}");
    }
}
