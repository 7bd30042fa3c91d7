//! `evalboard` command-line tool: the native edge of the engine. Reads run folders from disk,
//! scores them with the same engine the dashboard runs in wasm, writes outputs, gates CI.
//!
//! Exit codes: 0 success, 1 a gate failed (`--fail-under`, validation mismatches), 2 unusable input.

mod args;
mod diff;
use evalboard_cli::fsio;
mod report;
mod score;
mod validate;

/// mimalloc: a run's model is millions of small allocations, and glibc's malloc spent about a
/// quarter of a trace folder's load in malloc, free and consolidation.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

const USAGE: &str = "\
evalboard — score LLM evaluation runs

USAGE:
  evalboard score <RUN_DIR>... [--dataset FILE] [--profile doc|financial-agent-2]
                  [--prices FILE] [--rel-tol X] [--abs-tol X] [--out DIR] [--json]
                  [--fail-under METRIC=VALUE]...
  evalboard report <RUN_DIR>... [--baseline RUN_DIR] [--profile P] [--dataset FILE]
                   [--prices FILE] [--rel-tol X] [--abs-tol X] [--title T] [--max-rows N]
                   [--generated-at TIME] -o/--out FILE.html
  evalboard validate <FILE> [--json] [--min-items N]
  evalboard diff <BASELINE> <CANDIDATE> [--profile P] [--scorer S] [--dataset FILE] [--json]
                 [--fail-on-regression N]
  evalboard --version | --help

score     re-scores every turn from the raw traces and writes statistics.json, summary.csv,
          turns.csv, errors.csv, validation.csv into --out (one subfolder per run when several
          runs are given); without --out prints a summary table; --json prints statistics.json
          (an array for several runs). --fail-under METRIC=VALUE exits 1 when a statistics.json
          metric (0–1 scale) is below VALUE or null.
report    scores the runs like `score` and writes one self-contained HTML file (styles, SVG
          charts, data and a small script inline; no external requests) with every chart,
          breakdown, the error analysis, the per-item table, the comparison with --baseline
          (regressions first), the settings and the input files' SHA-256.
validate  executes every turn_program of a ConvFinQA dataset and reports mismatches against
          executed_answers (exit 1 on any mismatch or invalid item); for an eval set (JSONL)
          checks required fields, unique ids, --min-items (default 50) and its composition.
diff      compares two runs of one family item by item: flips, McNemar exact p, a paired
          bootstrap 95% CI; exits 1 when regressions exceed --fail-on-regression N.

Exit codes: 0 ok, 1 gate failed, 2 unusable input.";

fn main() -> ExitCode {
    evalboard_cli::memory::small_pages();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let code = match argv.first().map(String::as_str) {
        Some("score") => score::run(&argv[1..]),
        Some("validate") => validate::run(&argv[1..]),
        Some("diff") => diff::run(&argv[1..]),
        Some("report") => report::run(&argv[1..]),
        Some("--version" | "-V") => {
            println!("evalboard {}", env!("CARGO_PKG_VERSION"));
            Ok(0)
        }
        Some("--help" | "-h" | "help") | None => {
            println!("{USAGE}");
            Ok(0)
        }
        Some(other) => Err(anyhow::anyhow!("unknown command {other:?}\n\n{USAGE}")),
    };
    match code {
        Ok(c) => ExitCode::from(c),
        Err(e) => {
            eprintln!("evalboard: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
