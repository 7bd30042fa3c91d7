//! The command line as typed structs: every command and option, parsed once in `main` by clap.
//! The doc comments are the `--help` text; the commands read fields, never option names.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use evalboard_engine::compare::{DEFAULT_RESAMPLES, DEFAULT_SEED};
use evalboard_engine::evalset::{self, validate::DEFAULT_MIN_ITEMS};
use evalboard_engine::numeric_qa::compare::{default_scorer, QA_COMPARE_SCORERS};
use evalboard_engine::numeric_qa::score::{doc::DocTolerances, Profile};
use evalboard_report::html::HtmlOptions;

/// evalboard — score LLM evaluation runs.
///
/// Reads run folders from disk, scores them with the same engine the dashboard runs in the
/// browser, writes outputs and gates CI. Run `evalboard <COMMAND> --help` for a command's options.
#[derive(Debug, Parser)]
#[command(
    name = "evalboard",
    version,
    after_help = "Exit codes: 0 ok, 1 a gate failed, 2 unusable input."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-score every turn of run folders and write or print their statistics.
    ///
    /// Re-scores every turn from the raw traces and writes statistics.json, summary.csv,
    /// turns.csv, errors.csv, validation.csv into --out (one subfolder per run when several runs
    /// are given); without --out prints a summary table; --json prints statistics.json (an array
    /// for several runs). Numeric QA, code-generation and answer-correctness runs are told apart
    /// by their files' content.
    Score(ScoreArgs),
    /// Score run folders like `score` and write one self-contained HTML report.
    ///
    /// Scores the runs like `score` and writes one self-contained HTML file (styles, SVG charts,
    /// data and a small script inline; no external requests) with every chart, breakdown, the
    /// error analysis, the per-item table, the comparison with --baseline (regressions first),
    /// the settings and the input files' SHA-256.
    Report(ReportArgs),
    /// Check a ConvFinQA dataset (JSON) or an answer-correctness eval set (JSONL).
    ///
    /// For a ConvFinQA dataset, executes every turn_program and reports mismatches against
    /// executed_answers (exit 1 on any mismatch or invalid item); for an eval set (JSONL) checks
    /// required fields, unique ids, --min-items and its composition by section, category and
    /// difficulty.
    Validate(ValidateArgs),
    /// Compare runs of one family item by item and gate on regressions.
    ///
    /// Compares two runs of one family item by item: flips, McNemar exact p, a paired bootstrap
    /// 95% CI; exits 1 when regressions exceed --fail-on-regression N. Three or more runs are a
    /// series: each run is compared with the one before it.
    Diff(DiffArgs),
    /// Compare many runs of one family with one baseline: a ranked table with Holm's correction.
    ///
    /// Compares every RUN with BASELINE item by item as `diff` does (the same counts, McNemar
    /// exact p and paired bootstrap CI for each pair), adjusts the p-values by Holm's step-down
    /// method, ranks the runs by headline with a 95% CI, gives the cost per correct item and the
    /// cost–quality frontier (with --prices), and lays runs of several models and tasks out as a
    /// grid. A folder of several logs is several runs; with a BASELINE of several tasks each run
    /// is compared with the baseline run of its task. Missing items are counted apart, never as
    /// correct or wrong. Exits 1 when a run regressed on more than --fail-on-regression N items.
    Compare(CompareArgs),
    /// List the items of a run that a query matches.
    ///
    /// EXPR is evalboard's query language (docs/query.md): field paths (`latency_s > 600`,
    /// `metadata.subject == "law"`, `score.match == 0`, `tokens.output > 4000`), operators == !=
    /// < <= > >= and ~ (regex, linear time), `and`, `or`, `not` and parentheses; `text ~ /rate
    /// limit/i` searches every text of an item (input, output, each message, tool call and
    /// result, the error); `tool == "bash"` matches items that called a tool. Prints the
    /// matching items with where each matched; --json prints {"n_matched": N, "items": [KEY, …]},
    /// each key as `diff --json` writes it. Exit 2 when the query or the run is unusable.
    Query(QueryArgs),
    /// Group a run's failing items by cause, largest first; with --baseline, say which are new.
    ///
    /// Failing items are those the headline scorer (or --scorer) does not mark correct: wrong,
    /// errored or unanswered. Each is in exactly one cohort, keyed by the verdict, the why reason,
    /// the error message with numbers, ids, paths and quoted values masked, and the error class
    /// (docs/query.md). With --baseline B, each cohort is new, grown, shrunk, the same or gone
    /// against B's. --json prints {"n_failed": N, "cohorts": [{"label", "n", "share", "example",
    /// "items": [KEY, …], "query", "vs_baseline"}]}.
    Cohorts(CohortsArgs),
    /// Write runs' results as a Parquet lake (docs/lake.md) that DuckDB, pyarrow, Polars or Spark read.
    ///
    /// Scores every RUN like `score` and writes the `evalboard-lake` v1 tables (runs, samples,
    /// verdicts, aggregates, comparisons, sample_text, messages) as zstd Parquet files,
    /// `OUT/<table>/part-<shard>.parquet`, with the manifest `OUT/evalboard-lake.json`. The same
    /// runs give the same bytes. With --shard-id K the files are named by K and added to an
    /// existing lake (a retried shard replaces its own files); without it an existing lake needs
    /// --force. With --baseline B, a comparisons row for each run against B, as `diff`.
    Export(ExportArgs),
    /// Statistics from rows of counts (the output of a SQL reduce over a lake).
    ///
    /// Reads a CSV or a Parquet file of count rows. A comparison row has n11 (both correct), n10
    /// (the baseline only), n01 (the candidate only) and n00, with optional baseline, candidate
    /// and scorer: prints delta, mcnemar_exact_p and bootstrap_ci as `diff` does on the same
    /// items. An aggregate row has n_correct and n (or n_scored), with optional sum and sum_sq:
    /// prints the accuracy (or mean), its standard error and 95% CI.
    Stats(StatsArgs),
}

/// `evalboard export`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct ExportArgs {
    /// Run folders to export.
    #[arg(value_name = "RUN", required = true)]
    pub runs: Vec<PathBuf>,
    /// The lake folder to write.
    #[arg(long, value_name = "OUT", required = true)]
    pub lake: PathBuf,
    /// Name this export's files by K and merge its entries into the lake's manifest (sharded
    /// export; a retried shard overwrites its own files).
    #[arg(long, value_name = "K")]
    pub shard_id: Option<String>,
    /// Run folder every run is compared with (comparisons table; a folder of logs: the baseline
    /// of each run's task).
    #[arg(long, value_name = "B")]
    pub baseline: Option<PathBuf>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Replace an existing lake (without --shard-id).
    #[arg(long)]
    pub force: bool,
    /// Human-review marks (an `evalboard-marks/1` JSONL sidecar, docs/marks.md): each run's
    /// marks (by its content id) go in `verdicts` and `aggregates` as scorer `human`.
    #[arg(long, value_name = "FILE.jsonl")]
    pub marks: Option<PathBuf>,
    /// Paired-bootstrap resamples of the comparisons.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESAMPLES)]
    pub resamples: u32,
    /// Seed of the paired bootstrap.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

/// `evalboard stats`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct StatsArgs {
    /// The rows of counts: a CSV (with a header) or a Parquet file.
    #[arg(long = "from-counts", value_name = "FILE", required = true)]
    pub from_counts: PathBuf,
    /// Print JSON (an array, one object per row).
    #[arg(long)]
    pub json: bool,
    /// Paired-bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESAMPLES)]
    pub resamples: u32,
    /// Seed of the paired bootstrap.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

/// The scoring settings `score` and `report` share.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// ConvFinQA dataset to attach to numeric QA runs.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Scoring profile: doc or financial-agent-2 (numeric QA), doc-v1 or ise547
    /// (code generation), v1 or v1-extract (eval sets), as-recorded or a re-scorer — exact,
    /// includes, match, answer_pattern, last_number, f1, numeric — (eval logs).
    #[arg(long, value_name = "P", default_value = "doc")]
    pub profile: String,
    /// Price table (JSON: {"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10,
    /// "cache_read_per_mtok": 1.25, "source": "…", "date": "…"}}, USD per 1M tokens by model
    /// name as the run records it) for the cost and cost per correct answer in dollars.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Relative tolerance of a numerical match (numeric QA, and the eval-log re-scorer numeric).
    #[arg(long, value_name = "X", default_value_t = DocTolerances::default().rel)]
    pub rel_tol: f64,
    /// Absolute tolerance of a numerical match (numeric QA, and the eval-log re-scorer numeric).
    #[arg(long, value_name = "X", default_value_t = DocTolerances::default().abs)]
    pub abs_tol: f64,
    /// Eval logs with repeats (epochs): the k of pass@k and pass^k shown [default: every k from
    /// 1 to the most repeats of an item, at most 20].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub pass_k: Option<u64>,
}

/// `evalboard score`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct ScoreArgs {
    /// Run folders to score, or lakes written by `export --lake` (their runs' statistics as
    /// exported, for --json, the summary and --out's statistics.json).
    #[arg(value_name = "RUN_DIR", required = true)]
    pub runs: Vec<PathBuf>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Write the output files here (one subfolder per run when several runs are given). Never
    /// into a run folder being read; existing files are kept unless --force.
    #[arg(short = 'o', long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace output files that exist already (never a run's input files).
    #[arg(long)]
    pub force: bool,
    /// Print statistics.json (an array for several runs).
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when this statistics.json metric (0–1 scale) is below VALUE or null; repeatable.
    #[arg(long, value_name = "METRIC=VALUE", value_parser = parse_gate)]
    pub fail_under: Vec<(String, f64)>,
    /// Human-review marks (an `evalboard-marks/1` JSONL sidecar, docs/marks.md) to apply: each
    /// run's headline is shown with human overrides beside the original, with each scorer's
    /// agreement with the marks (Cohen's κ, confusion matrix). Marks of other bytes (another
    /// content id) are not applied.
    #[arg(long, value_name = "FILE.jsonl")]
    pub marks: Option<PathBuf>,
    /// Exit 2 when an input was read only in part (a file skipped or partly parsed, such as a
    /// broken log beside good ones, which are still scored and written).
    #[arg(long)]
    pub strict: bool,
}

/// `evalboard report`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct ReportArgs {
    /// Run folders to report on.
    #[arg(value_name = "RUN_DIR", required = true)]
    pub runs: Vec<PathBuf>,
    /// Run folder every run is compared with.
    #[arg(long, value_name = "RUN_DIR")]
    pub baseline: Option<PathBuf>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Title of the report.
    #[arg(long, value_name = "T")]
    pub title: Option<String>,
    /// Most rows of the per-item table.
    #[arg(long, value_name = "N", default_value_t = HtmlOptions::default().max_table_rows)]
    pub max_rows: usize,
    /// Generation time written into the report [default: SOURCE_DATE_EPOCH, else now].
    #[arg(long, value_name = "TIME")]
    pub generated_at: Option<String>,
    /// The HTML file to write (never into a run folder being read; an existing file is kept
    /// unless --force).
    #[arg(short = 'o', long, value_name = "FILE.html")]
    pub out: PathBuf,
    /// Replace the HTML file if it exists already.
    #[arg(long)]
    pub force: bool,
    /// Human-review marks (an `evalboard-marks/1` JSONL sidecar, docs/marks.md) to apply: adds a
    /// Human review section: each run's headline with human overrides beside the original, with each scorer's
    /// agreement with the marks (Cohen's κ, confusion matrix). Marks of other bytes (another
    /// content id) are not applied.
    #[arg(long, value_name = "FILE.jsonl")]
    pub marks: Option<PathBuf>,
    /// With --baseline: pair items with their epochs (repeats) reduced, as `diff --by-item`.
    #[arg(long, value_name = "REDUCER", num_args = 0..=1, default_missing_value = "", value_parser = parse_by_item)]
    pub by_item: Option<ByItem>,
}

/// `evalboard validate`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct ValidateArgs {
    /// A ConvFinQA dataset (JSON), an eval set (JSONL), or an evaluation-tool log (Inspect
    /// `.eval`/`.json`; an lm-eval results file, read with the samples files beside it).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    #[arg(long, value_name = "N", help = min_items_help())]
    pub min_items: Option<usize>,
}

/// `evalboard diff`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct DiffArgs {
    /// Baseline run folder.
    #[arg(value_name = "BASELINE")]
    pub baseline: PathBuf,
    /// Candidate run folder, compared with the baseline.
    #[arg(value_name = "CANDIDATE")]
    pub candidate: PathBuf,
    /// More run folders: a series, each run compared with the one before it.
    #[arg(value_name = "MORE")]
    pub more: Vec<PathBuf>,
    /// Profile: which scorer judges the items (help: [`diff_profile_help`]).
    #[arg(long, value_name = "P", help = diff_profile_help())]
    pub profile: Option<String>,
    /// Scorer id judging the items (help: [`scorer_help`]).
    #[arg(long, value_name = "S", help = scorer_help(false), long_help = scorer_help(true))]
    pub scorer: Option<String>,
    /// ConvFinQA dataset (numeric QA) or eval set (JSONL) to attach to the runs.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Price table (JSON, as `score --prices`): both runs' cost in dollars among the metrics.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when more than N items regressed (in any step of a series).
    #[arg(long, value_name = "N")]
    pub fail_on_regression: Option<u64>,
    /// Paired-bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESAMPLES)]
    pub resamples: u32,
    /// Seed of the paired bootstrap.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Pair items, not their repeats: each item's epochs (repeats) reduced to one value first —
    /// by REDUCER (mean, max, median, mode, at_least_K, pass_at_K or pass@K, pass_k_K or
    /// pass^K), by default the headline score's own reducer (else mean) — then a paired mean
    /// difference with an item-clustered 95% CI (McNemar only when every value is 0 or 1).
    /// Eval logs with epochs or repeats only.
    #[arg(long, value_name = "REDUCER", num_args = 0..=1, default_missing_value = "", value_parser = parse_by_item)]
    pub by_item: Option<ByItem>,
}

/// `evalboard query`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct QueryArgs {
    /// Run folder (or log file).
    #[arg(value_name = "RUN")]
    pub run: PathBuf,
    /// The query (quote it for the shell).
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
    /// Profile the run is scored under (as `score --profile`).
    #[arg(long, value_name = "P")]
    pub profile: Option<String>,
    /// Scorer id whose verdict `verdict` reads (help: [`scorer_help`]).
    #[arg(long, value_name = "S", help = scorer_help(false), long_help = scorer_help(true))]
    pub scorer: Option<String>,
    /// ConvFinQA dataset (numeric QA) or eval set (JSONL) to attach to the run.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Price table (JSON, as `score --prices`): what `cost_usd` reads.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Print {"n_matched": N, "items": [KEY, …]}.
    #[arg(long)]
    pub json: bool,
}

/// `evalboard cohorts`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct CohortsArgs {
    /// Run folder (or log file).
    #[arg(value_name = "RUN")]
    pub run: PathBuf,
    /// Baseline run: each cohort is marked new, grown, shrunk, same or gone against its.
    #[arg(long, value_name = "B")]
    pub baseline: Option<PathBuf>,
    /// Profile the runs are scored under (as `score --profile`).
    #[arg(long, value_name = "P")]
    pub profile: Option<String>,
    /// Scorer id whose verdicts say which items fail (help: [`scorer_help`]).
    #[arg(long, value_name = "S", help = scorer_help(false), long_help = scorer_help(true))]
    pub scorer: Option<String>,
    /// ConvFinQA dataset (numeric QA) or eval set (JSONL) to attach to the runs.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Print the cohorts as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `evalboard compare`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct CompareArgs {
    /// Baseline run folder (or a folder of logs: one baseline run per task).
    #[arg(value_name = "BASELINE")]
    pub baseline: PathBuf,
    /// The runs compared with the baseline (none when BASELINE is a lake of several runs: its
    /// baseline runs, as `export --baseline` named them, else its first, against the others).
    #[arg(value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// Profile: which scorer judges the items (help: [`diff_profile_help`]).
    #[arg(long, value_name = "P", help = diff_profile_help())]
    pub profile: Option<String>,
    /// Scorer id judging the items (help: [`scorer_help`]).
    #[arg(long, value_name = "S", help = scorer_help(false), long_help = scorer_help(true))]
    pub scorer: Option<String>,
    /// ConvFinQA dataset (numeric QA) or eval set (JSONL) to attach to the runs.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Price table (JSON, as `score --prices`): each run's cost and cost per correct item in
    /// dollars, and the cost–quality frontier.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when any run regressed on more than N items against its baseline.
    #[arg(long, value_name = "N")]
    pub fail_on_regression: Option<u64>,
    /// Paired-bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESAMPLES)]
    pub resamples: u32,
    /// Seed of the paired bootstrap.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// A series: the runs in the order given (successive checkpoints or prompts), each compared
    /// with the one before it, Holm's correction over the steps.
    #[arg(long)]
    pub series: bool,
}

/// `--by-item [REDUCER]`: the reducer named, or none (the family's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByItem(pub Option<evalboard_engine::repeats::Reduction>);

fn parse_by_item(s: &str) -> Result<ByItem, String> {
    if s.trim().is_empty() {
        return Ok(ByItem(None));
    }
    evalboard_engine::repeats::Reduction::parse(s)
        .map(|r| ByItem(Some(r)))
        .ok_or_else(|| {
            format!(
                "{s:?} is not a reducer: mean, max, median, mode, at_least_K, pass_at_K (pass@K) \
                 or pass_k_K (pass^K)"
            )
        })
}

impl DiffArgs {
    /// Every run folder, in command-line order.
    pub fn runs(&self) -> Vec<&Path> {
        [&self.baseline, &self.candidate]
            .into_iter()
            .chain(&self.more)
            .map(PathBuf::as_path)
            .collect()
    }
}

/// `--fail-under METRIC=VALUE`.
fn parse_gate(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| "expected METRIC=VALUE".to_string())?;
    let v: f64 = v
        .trim()
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("{k}: {v:?} is not a finite number"))?;
    Ok((k.trim().to_string(), v))
}

/// `diff --profile`: the scorers it picks, by their ids in the scorer table.
fn diff_profile_help() -> String {
    format!(
        "Profile: financial-agent-2 judges numeric QA turns by {}; for eval sets {} (the default) or {}; for eval logs as-recorded (the default) or a re-scorer ({})",
        default_scorer(Profile::Fa2),
        evalset::score::V1.version(),
        evalset::score::V1_EXTRACT.version(),
        evalboard_engine::evallog::rescore::RescoreKind::ALL.map(|k| k.name()).join(", "),
    )
}

/// `diff --scorer`: the default from the scorer table, and with `all` every scorer it accepts.
fn scorer_help(all: bool) -> String {
    let short = format!(
        "Scorer id judging numeric QA turns (default: the profile's primary scorer, {} under doc); for eval sets, the scorer when --profile is not given; for eval logs, the score judging samples (default: the log's headline score)",
        default_scorer(Profile::Doc),
    );
    if !all {
        return short;
    }
    let qa: Vec<&str> = QA_COMPARE_SCORERS.iter().map(|s| s.id).collect();
    format!(
        "{short}.\n\nNumeric QA: {} (a doc-v1 scorer also by its bare name). Eval sets: {}, {}. Eval logs: a score's label as `score --json` lists it (match[mean]/accuracy, arith_gen/exact_match[strict-match]/exact_match), its scorer (match) or task/metric.",
        qa.join(", "),
        evalset::score::V1.id,
        evalset::score::V1_EXTRACT.id,
    )
}

/// `--min-items` has no clap default (giving it matters), so its help names the default.
fn min_items_help() -> String {
    format!("Fewest items an eval set must have [default: {DEFAULT_MIN_ITEMS}]; giving it treats FILE as an eval set")
}
