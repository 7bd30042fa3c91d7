//! The `evalboard-lake` v1 schema as data: every table, its key, its columns with their types
//! and meanings. The Parquet writer (`crates/lake`), the docs (docs/lake.md) and the tests read
//! this one list, so a column is declared once.

/// The schema's name, as the manifest's `schema` field holds it.
pub const SCHEMA_NAME: &str = "evalboard-lake";
/// The schema's version: a reader refuses a lake of another.
pub const SCHEMA_VERSION: u32 = 1;

/// A column's type, in the plain types every engine reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    /// A UTF-8 string.
    Str,
    /// A UTF-8 string that may be long (a model's output, a message): Arrow's `large_utf8` when
    /// read through Arrow.
    Text,
    /// A signed 64-bit count.
    Int64,
    /// A 64-bit float.
    Float64,
    /// A Boolean.
    Bool,
    /// A UTC timestamp in microseconds since 1970.
    TimestampMicros,
}

impl ColType {
    /// The type as docs/lake.md names it.
    pub fn name(self) -> &'static str {
        match self {
            ColType::Str => "string",
            ColType::Text => "large string",
            ColType::Int64 => "int64",
            ColType::Float64 => "float64",
            ColType::Bool => "bool",
            ColType::TimestampMicros => "timestamp[µs, UTC]",
        }
    }
}

/// One column: name, type, whether it may be null, and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub ty: ColType,
    pub nullable: bool,
    pub meaning: &'static str,
}

/// One table: its name (its folder in the lake), the columns its rows are sorted and unique by,
/// what a row is, and its columns in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSchema {
    pub name: &'static str,
    pub key: &'static [&'static str],
    pub row: &'static str,
    pub columns: &'static [Column],
}

impl TableSchema {
    /// The position of the column `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

const fn col(name: &'static str, ty: ColType, meaning: &'static str) -> Column {
    Column {
        name,
        ty,
        nullable: false,
        meaning,
    }
}

const fn opt(name: &'static str, ty: ColType, meaning: &'static str) -> Column {
    Column {
        name,
        ty,
        nullable: true,
        meaning,
    }
}

use ColType::{Bool, Float64, Int64, Str, Text, TimestampMicros};

const RUN_ID: Column = col(
    "run_id",
    Str,
    "the run's id: the first 16 hex digits of its content id (SHA-256 over its files' paths, sizes and SHA-256s), the same whoever exports the same files",
);
const ITEM_KEY: Column = col(
    "item_key",
    Str,
    "the item's key as a JSON array (`[\"conv-1\",3]`), as `diff --json` prints keys",
);
const EPOCH: Column = opt(
    "epoch",
    Int64,
    "the repeat (epoch) of the item; null in v1 exports, where a repeat stays the last part of `item_key` (an eval log's `[id, epoch]`)",
);

/// `runs`: one row per run.
pub const RUNS: TableSchema = TableSchema {
    name: "runs",
    key: &["run_id"],
    row: "one run",
    columns: &[
        RUN_ID,
        col("content_id", Str, "the run's full content id (64 hex digits)"),
        col("name", Str, "the run's name, as `evalboard score` prints it"),
        col("source_format", Str, "the tool that wrote the run (`Inspect AI`, `lm-evaluation-harness`, `numeric QA`, …)"),
        col("family", Str, "the family's serde name (`numeric-qa`, `codegen`, `evalset`, `eval-log`)"),
        col("profile", Str, "the settings profile or scorer the run was scored under"),
        opt("task", Str, "the task an evaluation-tool log names"),
        opt("dataset", Str, "the dataset the run's metadata names"),
        opt("model", Str, "the model the run's metadata names"),
        opt("tool_version", Str, "the version of the tool that wrote the run, when its metadata says"),
        opt("started_at", TimestampMicros, "when the run started, when its metadata says"),
        opt("completed_at", TimestampMicros, "when the run ended, when its metadata says"),
        col("status", Str, "`scored`: read and scored (with diagnostics when `n_diagnostics` > 0)"),
        col("n_groups", Int64, "groups of items (conversations, sessions; 0 where items are not grouped)"),
        col("n_items", Int64, "items (turns, samples × epochs)"),
        col("n_diagnostics", Int64, "diagnostics of reading and scoring the run"),
        col("headline_key", Str, "the key of the number the run is listed by"),
        opt("headline_value", Float64, "the number the run is listed by (`score`'s headline)"),
        opt("cost_usd", Float64, "the run's total cost in USD under the price table"),
        opt("tokens", Int64, "the run's total tokens"),
        col("settings_hash", Str, "16 hex digits of the SHA-256 of the run's settings in one line"),
        col("settings", Str, "the run's settings in one line, as `score` prints them"),
        col("metadata_json", Str, "the run's metadata fields as a JSON object"),
        col("metrics_json", Str, "the run's headline metrics as a JSON array (key, label, unit, value, counts)"),
        opt("statistics_json", Str, "the run's statistics as `evalboard score --json` prints them (compact JSON; `score LAKE --json` prints them again), when the exporter made them"),
        col("input_files_json", Str, "the original input files (paths relative to the run folder, with size and SHA-256) as a JSON array"),
        col("evalboard_version", Str, "the evalboard version that wrote the row"),
        opt("judge", Str, "the scorer the run is judged by when none is named (`compare`, the dashboard): one of its `verdicts` scorers; null when it has none"),
    ],
};

/// `samples`: one row per run × item.
pub const SAMPLES: TableSchema = TableSchema {
    name: "samples",
    key: &["run_id", "item_key"],
    row: "one item (× epoch) of one run",
    columns: &[
        RUN_ID,
        ITEM_KEY,
        EPOCH,
        col("status", Str, "`scored`, `unscored` (present but not judged) or `failed` (its group failed as a whole)"),
        opt("error", Str, "why the item's group failed, when it did"),
        opt("extracted_answer", Str, "the answer as the scorer read it"),
        opt("input_tokens", Int64, "input tokens, cache reads and writes included, when the run records tokens"),
        opt("output_tokens", Int64, "output tokens, reasoning included, when the run records tokens"),
        opt("reasoning_tokens", Int64, "of the output, reasoning tokens, when the run records any"),
        opt("latency_ms", Float64, "latency in milliseconds, when the run records it"),
        opt("cost_usd", Float64, "cost in USD: the tokens under the price table (as the run's cost sums them), else the tool's own; null when neither"),
        opt("source_scores_json", Str, "the writing tool's own scores as a JSON object, when it recorded any"),
        col("metadata_json", Str, "the item's slice fields (category, difficulty, …) as a JSON object"),
    ],
};

/// `verdicts`: one row per run × item × scorer, in long form.
pub const VERDICTS: TableSchema = TableSchema {
    name: "verdicts",
    key: &["run_id", "scorer", "item_key"],
    row: "one item of one run judged by one scorer",
    columns: &[
        RUN_ID,
        ITEM_KEY,
        EPOCH,
        col("scorer", Str, "the versioned scorer name `diff --json` prints (`numerical_match@doc-v1`, an eval log's score); `human` for the human review marks exported with `--marks`"),
        col("scorer_version", Str, "the part of `scorer` after `@` (empty when it has none); `evalboard-marks/1` for `human`"),
        col("settings_hash", Str, "the run's `settings_hash`"),
        opt("value", Float64, "1 for correct, 0 for wrong; null when not scored; for `human`, the score override (0–1) when the item has one"),
        opt("correct", Bool, "the verdict; null when the item is present but not scored"),
        col("label", Str, "`correct`, `wrong` or `unscored`; for `human`, `score` when an override is the item's only mark"),
    ],
};

/// `aggregates`: mergeable sums per run × scorer × slice.
pub const AGGREGATES: TableSchema = TableSchema {
    name: "aggregates",
    key: &["run_id", "scorer", "slice_field", "slice_value"],
    row: "the sums of one run's verdicts under one scorer over one slice (`slice_field` empty: all items)",
    columns: &[
        RUN_ID,
        col("scorer", Str, "as in `verdicts`"),
        col("scorer_version", Str, "as in `verdicts`"),
        col("settings_hash", Str, "as in `verdicts`"),
        col("slice_field", Str, "the item field sliced by (empty: every item)"),
        col("slice_value", Str, "the field's value (empty with an empty field)"),
        col("n", Int64, "verdict rows"),
        col("n_scored", Int64, "rows with a verdict (`value` not null)"),
        col("n_correct", Int64, "rows judged correct"),
        col("sum", Float64, "Σ value over the scored rows"),
        col("sum_sq", Float64, "Σ value² over the scored rows"),
        opt("min", Float64, "the least value (null when none is scored)"),
        opt("max", Float64, "the greatest value (null when none is scored)"),
        col("clusters", Int64, "item clusters (an item with all its epochs is one cluster)"),
        col("cluster_sum_sq", Float64, "Σ over clusters of (the cluster's sum)²"),
        col("cluster_cross", Float64, "Σ over clusters of the cluster's sum × its size"),
        col("cluster_size_sq", Float64, "Σ over clusters of its size²"),
    ],
};

/// `comparisons`: one row per baseline × candidate × scorer.
pub const COMPARISONS: TableSchema = TableSchema {
    name: "comparisons",
    key: &["baseline_run_id", "candidate_run_id", "scorer"],
    row: "one candidate run against its baseline, judged by one scorer (`evalboard diff`)",
    columns: &[
        col("baseline_run_id", Str, "the baseline's `run_id`"),
        col("candidate_run_id", Str, "the candidate's `run_id`"),
        col("baseline", Str, "the baseline's name"),
        col("candidate", Str, "the candidate's name"),
        col("scorer", Str, "the scorer both runs were judged by, as `diff --json` prints it"),
        col("n_paired", Int64, "items scored in both runs"),
        col("n11", Int64, "correct in both"),
        col("n10", Int64, "correct in the baseline only (regressed)"),
        col("n01", Int64, "correct in the candidate only (improved)"),
        col("n00", Int64, "wrong in both"),
        col("n_only_baseline", Int64, "items only the baseline has"),
        col("n_only_candidate", Int64, "items only the candidate has"),
        opt("delta", Float64, "candidate − baseline accuracy over the paired items (`accuracy_delta`)"),
        opt("mcnemar_p", Float64, "McNemar's exact p of the discordant pairs (`mcnemar_exact_p`)"),
        opt("ci_low", Float64, "the bootstrap CI's 2.5th percentile of delta"),
        opt("ci_high", Float64, "the bootstrap CI's 97.5th percentile of delta"),
        col("ci_method", Str, "how the CI was computed (`paired-multinomial-percentile`)"),
        col("resamples", Int64, "the bootstrap's resamples"),
        col("seed", Int64, "the bootstrap's seed (a u64 stored as the int64 of its bits)"),
        opt("not_comparable", Str, "why the runs' items should not be paired (different tasks or datasets); the counts are then empty"),
    ],
};

/// `sample_text`: the heavy texts of each sample, apart so that no query reads them by accident.
pub const SAMPLE_TEXT: TableSchema = TableSchema {
    name: "sample_text",
    key: &["run_id", "item_key"],
    row: "the texts of one item of one run",
    columns: &[
        RUN_ID,
        ITEM_KEY,
        EPOCH,
        opt("input_text", Text, "the question"),
        opt("expected_text", Text, "the expected answer"),
        opt("output_text", Text, "the model's answer as scored"),
        opt(
            "reasoning_text",
            Text,
            "the model's reasoning, when carried (null in v1 exports)",
        ),
    ],
};

/// `messages`: one row per message or tool call.
pub const MESSAGES: TableSchema = TableSchema {
    name: "messages",
    key: &["run_id", "item_key", "seq"],
    row: "one message or tool call of one item's conversation (no rows in v1 exports: the run table carries no conversations yet)",
    columns: &[
        RUN_ID,
        ITEM_KEY,
        EPOCH,
        col("seq", Int64, "the message's position in the conversation, from 0"),
        col("role", Str, "`system`, `user`, `assistant` or `tool`"),
        opt("content", Text, "the message's text"),
        opt("tool_name", Str, "the tool called"),
        opt("tool_call_id", Str, "the call's id"),
        opt("tool_args_json", Str, "the call's arguments as JSON"),
        opt("tool_error", Str, "the tool's error"),
    ],
};

/// `many_marks`: the dashboard's All runs matrix exported as Parquet ("Export this view" of the
/// tab; one file, not a lake table): one row per item shown × run, in long form.
pub const MANY_MARKS: TableSchema = TableSchema {
    name: "many_marks",
    key: &["item_key", "run"],
    row: "one item of the All runs matrix (as its filters show it) in one of its runs",
    columns: &[
        ITEM_KEY,
        col("run", Str, "the run's name as the dashboard lists it"),
        col("baseline", Str, "the pinned baseline's name"),
        col("is_baseline", Bool, "whether this is the baseline's own verdict"),
        col(
            "mark",
            Str,
            "`right`, `wrong`, `regressed` (right in the baseline, wrong here), `improved`, `missing` (not in the run) or `unscored`",
        ),
        opt("correct", Bool, "the run's verdict; null when missing or unscored"),
    ],
};

/// Every table of the schema, in the order the lake writes them.
pub const TABLES: [&TableSchema; 7] = [
    &RUNS,
    &SAMPLES,
    &VERDICTS,
    &AGGREGATES,
    &COMPARISONS,
    &SAMPLE_TEXT,
    &MESSAGES,
];

/// The table named `name`.
pub fn table(name: &str) -> Option<&'static TableSchema> {
    TABLES.iter().copied().find(|t| t.name == name)
}

/// The schema as a Markdown section per table (docs/lake.md's tables are this text).
pub fn markdown() -> String {
    let mut out = String::new();
    for t in TABLES {
        out.push_str(&format!(
            "### `{}`\n\nOne row: {}. Sorted and unique by {}.\n\n| column | type | null | meaning |\n|---|---|---|---|\n",
            t.name,
            t.row,
            t.key
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for c in t.columns {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.name,
                c.ty.name(),
                if c.nullable { "yes" } else { "no" },
                c.meaning.replace('|', "\\|")
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_columns_and_names_are_unique() {
        for t in TABLES {
            for k in t.key {
                assert!(t.index_of(k).is_some(), "{}: key {k}", t.name);
            }
            let mut names: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), t.columns.len(), "{}", t.name);
        }
    }
}
