//! `evalboard` command-line tool: the native edge of the engine. Reads run folders from disk,
//! scores them with the same engine the dashboard runs in wasm, writes outputs, gates CI.
//!
//! Exit codes: 0 success, 1 a gate failed (`--fail-under`, validation mismatches), 2 unusable input.

mod cli;
mod cohorts;
mod compare;
mod diff;
mod export;
mod marks;
mod query;
use evalboard_cli::fsio;
mod report;
mod score;
mod stats;
mod validate;

/// mimalloc: a run's model is millions of small allocations, and glibc's malloc spent about a
/// quarter of a trace folder's load in malloc, free and consolidation.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    evalboard_cli::memory::small_pages();
    let cli = match Cli::try_parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` print to stdout and exit 0; a usage error prints clap's
            // message, which names the argument, to stderr and exits 2 (unusable input).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let code = match cli.command {
        Some(Command::Score(a)) => score::run(a),
        Some(Command::Validate(a)) => validate::run(a),
        Some(Command::Diff(a)) => diff::run(a),
        Some(Command::Compare(a)) => compare::run(a),
        Some(Command::Report(a)) => report::run(a),
        Some(Command::Query(a)) => query::run(a),
        Some(Command::Cohorts(a)) => cohorts::run(a),
        Some(Command::Export(a)) => export::run(a),
        Some(Command::Stats(a)) => stats::run(a),
        None => Cli::command()
            .print_long_help()
            .map(|()| 0)
            .map_err(Into::into),
    };
    match code {
        Ok(c) => ExitCode::from(c),
        Err(e) => {
            evalboard_cli::errln!("evalboard: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
