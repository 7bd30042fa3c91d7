//! Output files of an evaluation-tool log (Inspect, lm-eval) and the statistics `--json` prints
//! for it, shared by the CLI and the app: `statistics.json` (the run, its headline numbers
//! recomputed beside the recorded ones, the mismatches; under a re-scorer, the re-scored numbers
//! and the items whose verdict it flips; tokens by price class, cost under the price table and
//! as recorded, cache-hit ratio, latency) and `items.csv` (one row per sample, its verdict as
//! originally scored and re-scored, its cost).

use evalboard_engine::csv_cell::neutralize;
use evalboard_engine::evallog::model::RecordedValue;
use evalboard_engine::evallog::score::{
    key_parts, mean_and_accuracy, mismatches, not_recomputed, Tally, TOLERANCE,
};
use evalboard_engine::evallog::ScoredLog;
use evalboard_engine::family::Family;
use serde::Serialize;
use serde_json::Value;

/// One headline number: recomputed by evalboard and as the log recorded it.
#[derive(Serialize)]
struct ScoreDto {
    metric: String,
    group: String,
    scorer: String,
    variant: Option<String>,
    name: String,
    recomputed: Option<f64>,
    recorded: Option<f64>,
    n: u64,
    /// Both present and within 1e-9 (true also when nothing was recorded); null when it was not
    /// recomputed.
    agrees: Option<bool>,
    /// `agrees`, `disagrees`, `not recomputed` or `not recorded`.
    state: &'static str,
    /// Why it was not recomputed, or a quirk of the tool's own computation.
    note: Option<String>,
}

/// A file read only in part, or skipped, with the reason.
#[derive(Serialize)]
struct FileEntryDto {
    path: String,
    reason: Option<String>,
}

/// Every input file by what became of it (as numeric QA's statistics list them).
#[derive(Serialize, Default)]
struct InputFilesDto {
    parsed: Vec<String>,
    partly_parsed: Vec<FileEntryDto>,
    /// A file of no log, or a log nothing of which could be read (a truncated `.eval` beside
    /// good ones), with the reason.
    skipped: Vec<FileEntryDto>,
}

fn input_files(files: &[evalboard_engine::accounting::InputFileReport]) -> InputFilesDto {
    use evalboard_engine::accounting::FileStatus;
    let mut out = InputFilesDto::default();
    for f in files {
        let entry = || FileEntryDto {
            path: f.path.clone(),
            reason: f.reason.clone(),
        };
        match f.status {
            FileStatus::Parsed => out.parsed.push(f.path.clone()),
            FileStatus::PartlyParsed => out.partly_parsed.push(entry()),
            FileStatus::Skipped => out.skipped.push(entry()),
        }
    }
    out
}

/// Tokens by price class over the samples that record any (docs/scoring.md § Cost).
#[derive(Serialize)]
struct TokensDto {
    /// Samples that record tokens.
    n_samples: u64,
    uncached_input: u64,
    cache_read: u64,
    cache_write: u64,
    output: u64,
    /// Of the output, reasoning.
    reasoning: u64,
    total: u64,
}

/// The price applied to one model, with the table's note.
#[derive(Serialize)]
struct PriceDto {
    model: String,
    input_per_mtok: f64,
    output_per_mtok: f64,
    cache_read_per_mtok: Option<f64>,
    cache_write_per_mtok: Option<f64>,
    reasoning_per_mtok: Option<f64>,
    source: Option<String>,
    date: Option<String>,
}

#[derive(Serialize)]
struct MismatchDto {
    metric: String,
    recorded: Option<f64>,
    recomputed: Option<f64>,
    file: String,
}

/// statistics.json of a log: keys in this order.
#[derive(Serialize)]
struct StatisticsDto {
    run_name: String,
    family: Family,
    tool: String,
    tool_version: Option<String>,
    format_version: Option<i64>,
    files: Vec<String>,
    /// Every input file: parsed, partly parsed or skipped, with the reason.
    input_files: InputFilesDto,
    status: Option<String>,
    task: Option<String>,
    model: Option<String>,
    dataset: Option<String>,
    eval_id: Option<String>,
    created: Option<String>,
    headline_metric: Option<String>,
    headline_score: Option<f64>,
    headline_recorded: Option<f64>,
    /// Why `headline_score` is null although the log records the headline.
    headline_not_recomputed: Option<String>,
    accuracy: Option<f64>,
    /// When the tool's headline counts other samples than `accuracy` does (promptfoo's pass
    /// rate counts errored samples as wrong), both in words; null otherwise.
    accuracy_note: Option<String>,
    n_items: usize,
    n_correct: usize,
    n_unscored: usize,
    n_samples: usize,
    n_errors: usize,
    n_mismatches: usize,
    /// Recorded numbers not recomputed (each with its reason in `scores[].note`).
    n_not_recomputed: usize,
    /// The re-scorer's id (`match@v1`); null as recorded.
    rescored_by: Option<String>,
    rescored_score: Option<f64>,
    rescored_accuracy: Option<f64>,
    /// Under a re-scorer, how many samples it could not judge, in words; null as recorded.
    rescored_note: Option<String>,
    rescored_n_correct: Option<usize>,
    rescored_n_unscored: Option<usize>,
    /// Items whose verdict the re-scorer flips; null as recorded.
    n_disagreements: Option<usize>,
    /// Null when no sample records tokens.
    tokens: Option<TokensDto>,
    /// Dollars under the price table; null when no sample records tokens or one is unpriced.
    total_cost_usd: Option<f64>,
    /// `total_cost_usd` over the correct items (re-scored under a re-scorer).
    cost_per_correct_usd: Option<f64>,
    n_priced: u64,
    n_unpriced: u64,
    unpriced_models: Vec<String>,
    /// The price applied to each model priced.
    prices: Vec<PriceDto>,
    /// The dollars the tool itself recorded, summed over the samples that record them.
    recorded_cost_usd: Option<f64>,
    n_recorded_cost: u64,
    /// Cache reads ÷ (cache reads + uncached input); null when the log records no cache count.
    cache_hit_ratio: Option<f64>,
    /// Seconds, over the samples with a latency.
    latency_mean: Option<f64>,
    latency_p50: Option<f64>,
    latency_p95: Option<f64>,
    latency_max: Option<f64>,
    n_latency: u64,
    scores: Vec<ScoreDto>,
    mismatches: Vec<MismatchDto>,
    /// The flipped items' keys (`/`-joined, as in items.csv); empty as recorded.
    disagreements: Vec<String>,
    /// The items' repeats (epochs) summed up; absent when no item was judged twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    repeats: Option<RepeatsDto>,
}

/// pass@k and pass^k for one `k`.
#[derive(Serialize)]
struct PassDto {
    k: u64,
    n_items: u64,
    pass_at_k: Option<f64>,
    pass_hat_k: Option<f64>,
}

/// The repeats' summary ([`evalboard_engine::repeats::RepeatSummary`]), keys `/`-joined.
#[derive(Serialize)]
struct RepeatsDto {
    n_items: u64,
    n_values: u64,
    min_repeats: u64,
    max_repeats: u64,
    mean: Option<f64>,
    clustered_stderr: Option<f64>,
    naive_stderr: Option<f64>,
    pass: Vec<PassDto>,
    n_flaky: usize,
    flaky: Vec<String>,
}

fn repeats_dto(r: evalboard_engine::repeats::RepeatSummary) -> RepeatsDto {
    RepeatsDto {
        n_items: r.n_items,
        n_values: r.n_values,
        min_repeats: r.min_repeats,
        max_repeats: r.max_repeats,
        mean: r.mean,
        clustered_stderr: r.clustered_stderr,
        naive_stderr: r.naive_stderr,
        pass: r
            .pass
            .into_iter()
            .map(|p| PassDto {
                k: p.k,
                n_items: p.n_items,
                pass_at_k: p.pass_at_k,
                pass_hat_k: p.pass_hat_k,
            })
            .collect(),
        n_flaky: r.flaky.len(),
        flaky: r.flaky.iter().map(|k| k.parts().join("/")).collect(),
    }
}

/// The statistics object `--json` prints for a log (and statistics.json).
pub fn evallog_statistics(s: &ScoredLog) -> Value {
    let run = &s.log.run;
    let scores = run
        .headlines
        .iter()
        .map(|h| ScoreDto {
            metric: h.key.label(),
            group: h.key.group.clone(),
            scorer: h.key.scorer.clone(),
            variant: h.key.variant.clone(),
            name: h.key.metric.clone(),
            recomputed: h.recomputed,
            recorded: h.recorded,
            n: h.n,
            agrees: (h.recorded.is_none() || h.recomputed.is_some())
                .then(|| h.recorded.is_none() || h.agrees(TOLERANCE)),
            state: h.state(TOLERANCE).label(),
            note: h.note.clone(),
        })
        .collect();
    let mismatches: Vec<MismatchDto> = mismatches(run)
        .into_iter()
        .map(|m| MismatchDto {
            metric: m.metric,
            recorded: m.recorded,
            recomputed: m.recomputed,
            file: m.file,
        })
        .collect();
    let tally = Tally::of(&s.items);
    let recorded = s
        .verdict_by
        .as_ref()
        .and_then(|k| evalboard_engine::evallog::score::headline_of(run, k))
        .and_then(|h| h.recorded);
    let rescored = s.rescored.as_ref();
    let (rescored_score, rescored_accuracy) =
        rescored.map_or((None, None), |r| mean_and_accuracy(&r.items));
    let rescored_judged = rescored.map(|r| r.items.iter().filter(|i| i.reading.is_some()).count());
    let flipped = s.disagreements();
    let disagreements: Vec<String> = flipped
        .iter()
        .filter_map(|i| run.samples.get(*i))
        .map(|x| key_parts(&x.key).join("/"))
        .collect();
    let (b, u) = (&s.billing, evalboard_engine::evallog::views::usage(run));
    let dto = StatisticsDto {
        run_name: s.log.name.clone(),
        family: Family::EvalLog,
        tool: run.tool.label().to_string(),
        tool_version: run.tool_version.clone(),
        format_version: run.format_version,
        files: run.files.clone(),
        input_files: input_files(&s.log.files),
        status: run.status.clone(),
        task: run.task.clone(),
        model: run.model.clone(),
        dataset: run.dataset.clone(),
        eval_id: run.eval_id.clone(),
        created: run.created.clone(),
        headline_metric: s.verdict_by.as_ref().map(|k| k.label()),
        headline_score: s.recorded_headline_value(),
        headline_recorded: recorded,
        headline_not_recomputed: s.headline_not_recomputed(),
        accuracy: tally.accuracy(),
        accuracy_note: s.accuracy_words(),
        n_items: s.items.len(),
        n_correct: tally.correct,
        n_unscored: s.items.len() - tally.judged,
        n_samples: run.samples.len(),
        n_errors: s.n_errors(),
        n_mismatches: mismatches.len(),
        n_not_recomputed: not_recomputed(run).len(),
        rescored_by: rescored.map(|r| r.id.clone()),
        rescored_score,
        rescored_accuracy,
        rescored_note: s.rescored_words(),
        rescored_n_correct: rescored.map(|r| Tally::of(&r.items).correct),
        rescored_n_unscored: rescored
            .zip(rescored_judged)
            .map(|(r, j)| r.items.len() - j),
        n_disagreements: rescored.map(|_| disagreements.len()),
        tokens: (b.n_with_tokens > 0).then(|| TokensDto {
            n_samples: b.n_with_tokens,
            uncached_input: b.tokens.uncached_input,
            cache_read: b.tokens.cache_read,
            cache_write: b.tokens.cache_write,
            output: b.tokens.output,
            reasoning: b.tokens.reasoning,
            total: b.tokens.total(),
        }),
        total_cost_usd: b.cost,
        cost_per_correct_usd: s.cost_per_correct(),
        n_priced: b.n_priced,
        n_unpriced: b.n_unpriced,
        unpriced_models: b.unpriced_models.clone(),
        prices: b
            .prices
            .iter()
            .map(|(model, p)| PriceDto {
                model: model.clone(),
                input_per_mtok: p.input_per_mtok,
                output_per_mtok: p.output_per_mtok,
                cache_read_per_mtok: p.cache_read_per_mtok,
                cache_write_per_mtok: p.cache_write_per_mtok,
                reasoning_per_mtok: p.reasoning_per_mtok,
                source: p.source.clone(),
                date: p.date.clone(),
            })
            .collect(),
        recorded_cost_usd: u.cost,
        n_recorded_cost: u.n_priced,
        cache_hit_ratio: b.cache_hit_ratio(),
        latency_mean: u.latency_mean,
        latency_p50: u.latency_p50,
        latency_p95: u.latency_p95,
        latency_max: u.latency_max,
        n_latency: u.n_latency,
        scores,
        mismatches,
        disagreements,
        repeats: evalboard_engine::evallog::repeats::summary(s).map(repeats_dto),
    };
    serde_json::to_value(dto).unwrap_or(Value::Null)
}

/// A recorded score value as one cell.
fn value_text(v: &RecordedValue) -> String {
    match v {
        RecordedValue::Null => String::new(),
        RecordedValue::Bool(b) => b.to_string(),
        RecordedValue::Int(i) => i.to_string(),
        RecordedValue::Float(f) => crate::csvs::num(*f),
        RecordedValue::Str(s) => s.clone(),
        RecordedValue::NonFinite(s) => s.clone(),
        RecordedValue::List(l) => l.iter().map(value_text).collect::<Vec<_>>().join(";"),
    }
}

/// items.csv: one row per sample (key, verdict by the headline score, the re-scored verdict and
/// reading (empty as recorded), input, target, output, error, every score as
/// `name=value (reading)`, source, its cost under the price table (empty: unpriced or no tokens),
/// the cost its tool recorded and the reason of its verdict in the tool's words
/// ([`ScoredLog::reason`])), cells through [`neutralize`].
pub fn items_csv(s: &ScoredLog) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let _ = w.write_record([
        "key",
        "correct",
        "headline_reading",
        "rescored_correct",
        "rescored_reading",
        "input",
        "target",
        "output",
        "error",
        "scores",
        "source",
        "cost_usd",
        "recorded_cost_usd",
        "reason",
    ]);
    let verdict: std::collections::HashMap<usize, &evalboard_engine::evallog::score::ItemVerdict> =
        s.items.iter().map(|i| (i.sample, i)).collect();
    let rescored: std::collections::HashMap<usize, &evalboard_engine::evallog::score::ItemVerdict> =
        s.rescored
            .iter()
            .flat_map(|r| &r.items)
            .map(|i| (i.sample, i))
            .collect();
    for (i, sample) in s.log.run.samples.iter().enumerate() {
        let v = verdict.get(&i);
        let r = rescored.get(&i);
        let scores = sample
            .scores
            .iter()
            .map(|e| {
                let reading = e.reading.map(crate::csvs::num).unwrap_or_default();
                format!("{}={} ({reading})", e.score_name(), value_text(&e.value))
            })
            .collect::<Vec<_>>()
            .join("; ");
        let rec = [
            key_parts(&sample.key).join("/"),
            v.and_then(|v| v.correct)
                .map(|c| c.to_string())
                .unwrap_or_default(),
            v.and_then(|v| v.reading)
                .map(crate::csvs::num)
                .unwrap_or_default(),
            r.and_then(|v| v.correct)
                .map(|c| c.to_string())
                .unwrap_or_default(),
            r.and_then(|v| v.reading)
                .map(crate::csvs::num)
                .unwrap_or_default(),
            sample.input.clone().unwrap_or_default(),
            sample.target.join(" | "),
            sample.output.clone().unwrap_or_default(),
            sample.error.clone().unwrap_or_default(),
            scores,
            sample.source.clone(),
            s.billing
                .samples
                .get(i)
                .and_then(|b| b.cost)
                .map(crate::csvs::num)
                .unwrap_or_default(),
            sample.cost.map(crate::csvs::num).unwrap_or_default(),
            s.reason(i).unwrap_or_default().to_string(),
        ];
        let _ = w.write_record(rec.iter().map(|c| neutralize(c).into_owned()));
    }
    w.into_inner()
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// Files written for a log: statistics.json and items.csv.
pub fn evallog_files(s: &ScoredLog) -> Vec<(String, String)> {
    let mut stats = serde_json::to_string_pretty(&evallog_statistics(s)).unwrap_or_default();
    stats.push('\n');
    vec![
        ("statistics.json".to_string(), stats),
        ("items.csv".to_string(), items_csv(s)),
    ]
}
