//! What every fuzz target shares ([`crate::targets`] lists them, [`crate::cli_target`] is one):
//! the [`Verdict`] of one execution, the [`Sig`] of features it builds up to, and the [`Ctx`] a
//! target may use besides its input ([`CliEnv`], for the CLI target).

use std::path::PathBuf;
use std::time::Duration;

use evalboard_engine::diag::Diagnostic;

use crate::rng::Fnv;

/// What one execution found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Ran to the end; the features of what it saw ([`Sig`]).
    Ok(Vec<u64>),
    /// A check failed without a panic (a child `evalboard` crashed, whole ≠ streamed read).
    Crash(String),
    /// A child `evalboard` ran past the time limit.
    Hang(String),
}

/// What a target may use besides its input.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub cli: CliEnv,
}

/// Where the `cli` target runs ([`crate::cli_target`]).
#[derive(Debug, Clone)]
pub struct CliEnv {
    /// The `evalboard` binary; `None`: only the in-process part runs.
    pub evalboard: Option<PathBuf>,
    /// A folder of this worker's own: the run folder and the outputs go there.
    pub scratch: PathBuf,
    /// How long one `evalboard` command may run.
    pub timeout: Duration,
}

/// What an execution saw, as features: each outcome, flag and count (bucketed by powers of
/// two) at its place in the target (the n-th call), and each kind of diagnostic. An input is
/// kept as a seed when it shows a feature no earlier input showed: a cheap stand-in for new
/// coverage (a hash of the whole set would call nearly every input new, as combinations of
/// diagnostics are endless).
#[derive(Debug, Default, Clone)]
pub struct Sig {
    at: u64,
    features: Vec<u64>,
}

impl Sig {
    pub fn tag(&mut self, t: u64) {
        self.at += 1;
        let mut h = Fnv::default();
        h.write_u64(self.at);
        h.write_u64(t);
        self.features.push(h.0);
    }

    pub fn flag(&mut self, b: bool) {
        self.tag(u64::from(b));
    }

    pub fn count(&mut self, n: usize) {
        self.tag(u64::from(usize::BITS - n.leading_zeros()));
    }

    pub fn diags(&mut self, d: &[Diagnostic]) {
        self.count(d.len());
        let mut kinds: Vec<u64> = d.iter().map(diag_kind).collect();
        kinds.sort_unstable();
        kinds.dedup();
        self.features.extend(kinds);
    }

    pub fn result<T, E>(&mut self, r: &Result<T, E>) {
        self.flag(r.is_ok());
    }

    pub fn done(self) -> Verdict {
        Verdict::Ok(self.features)
    }
}

/// A diagnostic's kind: its severity, its first word of letters only and its length as a power
/// of two. Coarse on purpose: messages carry ids and values from the input (`trace <id> has no
/// turns`, `<n> more bad lines not listed`), and any
/// finer reading (more words, letters) made nearly every mutant "new" and filled the corpus with
/// renamed copies of one finding.
fn diag_kind(d: &Diagnostic) -> u64 {
    let mut h = Fnv::default();
    h.write(b"diagnostic");
    h.write_u64(d.severity as u64);
    let first_word = d
        .message
        .split_whitespace()
        .find(|w| w.bytes().all(|c| c.is_ascii_alphabetic()));
    h.write(first_word.unwrap_or_default().as_bytes());
    h.write_u64(u64::from(usize::BITS - d.message.len().leading_zeros()));
    h.0
}
