//! A run read while it is written, family-free: the bytes appended to a file since the last round
//! cut at the last complete line ([`LineTail`]), and the numbers so far kept as mergeable sums
//! ([`LiveTally`] → [`LiveNumbers`]). The registry's [`crate::run::live`] joins them to each
//! family's reader of appended lines.
//!
//! A partial last line (a writer's half-flushed record, a cut inside a UTF-8 character) is held
//! for the next round and never read, so it is never a diagnostic. Each item is pushed once, when
//! its verdict is known: the accuracy is a [`Rate`] and the score a [`Moments`], both updated in
//! item order, so any split of the same bytes gives the same bits; percentiles (nearest rank, [`quantile`]) are taken
//! from the kept values.

use serde::{Deserialize, Serialize};

use crate::stats::{quantile, Moments, Rate};

/// The complete lines of a file that grows: bytes are pushed as they are appended, and what
/// follows the last line feed is held until its line ends.
#[derive(Debug, Clone)]
pub struct LineTail {
    held: Vec<u8>,
    /// The number of the next complete line's first line (1-based).
    next_line: u32,
    /// Bytes given out as complete lines.
    read: u64,
}

impl Default for LineTail {
    fn default() -> Self {
        LineTail {
            held: Vec::new(),
            next_line: 1,
            read: 0,
        }
    }
}

impl LineTail {
    /// Appends `bytes`; the complete lines they end (the held start first), each ending with its
    /// line feed, and the 1-based number of their first line; `None` when no line ended.
    pub fn push(&mut self, bytes: &[u8]) -> Option<(u32, Vec<u8>)> {
        let Some(last) = memchr::memrchr(b'\n', bytes) else {
            self.held.extend_from_slice(bytes);
            return None;
        };
        let (lines, rest) = bytes.split_at(last + 1);
        let mut block = std::mem::take(&mut self.held);
        block.extend_from_slice(lines);
        self.held.extend_from_slice(rest);
        let first = self.next_line;
        let n = memchr::memchr_iter(b'\n', &block).count();
        self.next_line = self
            .next_line
            .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.read += block.len() as u64;
        Some((first, block))
    }

    /// The bytes held: a line not ended yet.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The bytes given out as complete lines.
    pub fn read(&self) -> u64 {
        self.read
    }
}

/// One item once judged, as the live numbers count it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LiveItem {
    /// Its 0–1 reading under the run's judge (`None`: no verdict, e.g. errored).
    pub reading: Option<f64>,
    /// The item recorded an error.
    pub errored: bool,
    /// Its latency when the log records one.
    pub latency_ms: Option<f64>,
}

/// How many failures a watched run shows as they arrive (the first ones, in item order).
pub const FIRST_FAILURES: usize = 5;

/// A wrong item as it arrives: its key and the answer given against the one expected, as text
/// (model output: untrusted, shown as text, cut at [`FAILURE_CHARS`] characters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveFailure {
    /// The item's key, as the run's items have it.
    pub key: crate::run_table::ItemKey,
    /// The answer the scorer read (`None`: no answer).
    pub got: Option<String>,
    /// The answer expected (`None`: the log records none).
    pub expected: Option<String>,
}

/// The most characters of an answer a [`LiveFailure`] keeps.
pub const FAILURE_CHARS: usize = 120;

impl LiveFailure {
    /// A failure of item `key`: `got` against `expected`, each cut at [`FAILURE_CHARS`].
    pub fn new(
        key: crate::run_table::ItemKey,
        got: Option<&str>,
        expected: Option<&str>,
    ) -> LiveFailure {
        let cut = |t: &str| {
            let mut c: String = t.chars().take(FAILURE_CHARS).collect();
            if c.len() < t.len() {
                c.push('…');
            }
            c
        };
        LiveFailure {
            key,
            got: got.map(cut),
            expected: expected.map(cut),
        }
    }
}

/// The numbers of a run so far, from mergeable sums: every judged item counted once.
#[derive(Debug, Clone, Default)]
pub struct LiveTally {
    items: Vec<LiveItem>,
    rate: Rate,
    scores: Moments,
    errored: u64,
    /// The first [`FIRST_FAILURES`] wrong items, in item order.
    failures: Vec<LiveFailure>,
}

impl LiveTally {
    /// Counts a newly judged item.
    pub fn push(&mut self, item: LiveItem) {
        Self::add(&mut self.rate, &mut self.scores, &mut self.errored, &item);
        self.items.push(item);
    }

    fn add(rate: &mut Rate, scores: &mut Moments, errored: &mut u64, item: &LiveItem) {
        if let Some(r) = item.reading {
            rate.push(r == 1.0);
            scores.push(r);
        }
        if item.errored {
            *errored += 1;
        }
    }

    /// Counts a newly judged item that is wrong (its reading below 1), noting it among the
    /// first failures while there are fewer than [`FIRST_FAILURES`]; `failure` is called only then.
    pub fn push_wrong(&mut self, item: LiveItem, failure: impl FnOnce() -> LiveFailure) {
        if self.failures.len() < FIRST_FAILURES {
            self.failures.push(failure());
        }
        self.push(item);
    }

    /// Item `index` (in push order) judged again (a later event of the same sample): the sums
    /// are summed again from the kept items, in order, so they equal a read of the final bytes.
    /// Rare (a verdict an appended record changes); a no-op when the verdict is the same.
    pub fn set(&mut self, index: usize, item: LiveItem) {
        let Some(slot) = self.items.get_mut(index) else {
            return;
        };
        if *slot == item {
            return;
        }
        *slot = item;
        let (mut rate, mut scores, mut errored) = (Rate::default(), Moments::default(), 0);
        for i in &self.items {
            Self::add(&mut rate, &mut scores, &mut errored, i);
        }
        (self.rate, self.scores, self.errored) = (rate, scores, errored);
    }

    /// Counts every item of `other` after this tally's, as if pushed in their order: the sums
    /// merged (`Rate`, `Moments`), its first failures after these (up to [`FIRST_FAILURES`]).
    pub fn merge(&mut self, other: &LiveTally) {
        self.rate.merge(&other.rate);
        self.scores.merge(&other.scores);
        self.errored += other.errored;
        let room = FIRST_FAILURES.saturating_sub(self.failures.len());
        self.failures
            .extend(other.failures.iter().take(room).cloned());
        self.items.extend_from_slice(&other.items);
    }

    /// The items counted so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No item counted yet.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The numbers so far.
    pub fn numbers(&self) -> LiveNumbers {
        let mut latencies: Vec<f64> = self
            .items
            .iter()
            .filter_map(|i| i.latency_ms)
            .filter(|x| x.is_finite())
            .collect();
        latencies.sort_by(f64::total_cmp);
        LiveNumbers {
            items: self.items.len() as u64,
            judged: self.rate.n,
            correct: self.rate.correct,
            errored: self.errored,
            accuracy: self.rate.value(),
            accuracy_ci95: self.rate.wilson(1.96),
            mean_score: self.scores.mean(),
            score_stderr: self.scores.stderr(),
            latency_p50_ms: quantile(&latencies, 0.5),
            latency_p95_ms: quantile(&latencies, 0.95),
            first_failures: self.failures.clone(),
            ..LiveNumbers::default()
        }
    }
}

/// A watched run's numbers so far (plain serde: the worker sends them to the page).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveNumbers {
    /// Items done: judged, or known to have no verdict.
    pub items: u64,
    /// Items with a verdict.
    pub judged: u64,
    pub correct: u64,
    pub errored: u64,
    /// `correct / judged`.
    pub accuracy: Option<f64>,
    /// Wilson 95% interval of the accuracy.
    pub accuracy_ci95: Option<(f64, f64)>,
    /// Mean 0–1 reading (the accuracy when every reading is 0 or 1).
    pub mean_score: Option<f64>,
    pub score_stderr: Option<f64>,
    pub latency_p50_ms: Option<f64>,
    pub latency_p95_ms: Option<f64>,
    /// The total the log declares, when it declares one.
    pub declared_total: Option<u64>,
    /// Diagnostics of the complete lines read so far (a held partial line has none).
    pub diagnostics: u64,
    /// Bytes read as complete lines, and bytes held (a line not ended yet).
    pub bytes_read: u64,
    pub bytes_held: u64,
    /// The first wrong items (at most [`FIRST_FAILURES`]), in item order.
    pub first_failures: Vec<LiveFailure>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_given_once_it_ends() {
        let mut t = LineTail::default();
        assert_eq!(t.push(b"{\"a\":"), None);
        assert_eq!(t.held(), 5);
        let (first, block) = t.push(b"1}\n{\"b\"").unwrap();
        assert_eq!((first, block.as_slice()), (1, &b"{\"a\":1}\n"[..]));
        let (first, block) = t.push(b":2}\n\n{\"c\":3}\n").unwrap();
        assert_eq!(first, 2);
        assert_eq!(block, b"{\"b\":2}\n\n{\"c\":3}\n");
        assert_eq!((t.held(), t.read()), (0, 25));
        assert_eq!(t.push(b"{").map(|b| b.0), None);
        assert_eq!(t.push(b"}\n").map(|b| b.0), Some(5));
    }

    #[test]
    fn a_changed_verdict_sums_again_in_order() {
        let item = |r: f64| LiveItem {
            reading: Some(r),
            ..LiveItem::default()
        };
        let mut a = LiveTally::default();
        a.push(item(0.0));
        a.push(item(1.0));
        a.set(0, item(1.0));
        let mut b = LiveTally::default();
        b.push(item(1.0));
        b.push(item(1.0));
        assert_eq!(a.numbers(), b.numbers());
        assert_eq!(a.numbers().correct, 2);
    }

    #[test]
    fn merged_tallies_count_as_one() {
        let item = |r: f64| LiveItem {
            reading: Some(r),
            latency_ms: Some(r * 10.0),
            ..LiveItem::default()
        };
        let fail =
            |k: u64| LiveFailure::new(crate::run_table::ItemKey::text_index("c", k), None, None);
        let (mut a, mut b, mut one) = (
            LiveTally::default(),
            LiveTally::default(),
            LiveTally::default(),
        );
        for k in 0..8u64 {
            let r = if k % 2 == 0 { 0.0 } else { 1.0 };
            let part = if k < 5 { &mut a } else { &mut b };
            for t in [part, &mut one] {
                if r == 0.0 {
                    t.push_wrong(item(r), || fail(k));
                } else {
                    t.push(item(r));
                }
            }
        }
        a.merge(&b);
        let (m, o) = (a.numbers(), one.numbers());
        assert_eq!(
            (m.items, m.judged, m.correct),
            (o.items, o.judged, o.correct)
        );
        assert_eq!(m.first_failures, o.first_failures);
        assert_eq!(m.latency_p95_ms, o.latency_p95_ms);
        assert_eq!(m.accuracy, o.accuracy);
    }
}
