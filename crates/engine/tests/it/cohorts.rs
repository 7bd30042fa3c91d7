//! Failure cohorts (`engine::cohorts`): planted causes of unequal sizes, whose messages vary in
//! numbers, ids, quoted values and paths, among unrelated failures, come out as one cohort each
//! (purity and recall ≥ 0.95 for every cause); the counts add up to the failures; the order is
//! the same however the items come; the baseline's cohorts are new, grown, shrunk or gone.

use std::collections::BTreeSet;

use evalboard_engine::cohorts::{cohorts, Trend};
use evalboard_engine::query::{Doc, Value};
use evalboard_engine::run_table::ItemKey;

/// A small PRNG (xorshift), so the fixture is the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn n(&mut self, below: u64) -> u64 {
        self.next() % below
    }
    fn hex(&mut self, len: usize) -> String {
        (0..len).map(|_| format!("{:x}", self.n(16))).collect()
    }
    fn word(&mut self) -> String {
        const W: [&str; 12] = [
            "revenue",
            "net_income",
            "Total Assets",
            "q3",
            "ebitda",
            "cash flow",
            "EPS 2019",
            "region",
            "segment",
            "delta",
            "margin",
            "Unnamed: 0",
        ];
        W[self.n(12) as usize].to_string()
    }
    fn base62(&mut self, len: usize) -> String {
        const A: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let mut s: String = (0..len).map(|_| A[self.n(62) as usize] as char).collect();
        s.replace_range(0..1, "7"); // a digit in it, as ids have
        s
    }
}

/// The planted causes: a message template each, and how many items it has.
fn cause(i: usize, r: &mut Rng) -> String {
    match i {
        0 => format!(
            "Request to https://api.openai.com/v1/chat/completions timed out after {}s (request id req_{})",
            r.n(900),
            r.base62(12)
        ),
        1 => format!(
            "RateLimitError: Rate limit reached for org-{} on tokens per min. Limit: {}, Used: {}, Requested: {}.",
            r.hex(6),
            r.n(100_000),
            r.n(100_000),
            r.n(5000)
        ),
        2 => format!(
            "KeyError: '{}' not found in /data/user{}/file_{}.csv",
            r.word(),
            r.n(50),
            r.n(999)
        ),
        3 => format!(
            "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/{}-{}-4{}-a{}-{}/out.json'",
            r.hex(8),
            r.hex(4),
            r.hex(3),
            r.hex(3),
            r.hex(12)
        ),
        4 => format!(
            "ValueError: could not convert string to float: \"{}\"",
            ["1,234.5", "N/A", "12%", "(3.2)", "—", ""][r.n(6) as usize]
        ),
        _ => format!(
            "Tool bash exited with code {}: command `{}` failed after {}.{}s, trace {}",
            r.n(255),
            ["ls -la", "python x.py", "cat /etc/hosts"][r.n(3) as usize],
            r.n(60),
            r.n(10),
            r.hex(16)
        ),
    }
}

const SIZES: [usize; 6] = [5, 8, 13, 21, 34, 50];

/// Docs with the planted causes, unrelated failures (wrong answers, one-off errors) and correct
/// items, shuffled; and each planted item's cause.
fn fixture(seed: u64) -> (Vec<Doc>, Vec<(ItemKey, usize)>) {
    let mut r = Rng(seed);
    let mut docs = Vec::new();
    let mut planted = Vec::new();
    let mut id = 0;
    let mut doc = |verdict: &str, error: Option<String>, docs: &mut Vec<Doc>| {
        id += 1;
        let key = ItemKey::text(&format!("item-{id:04}"));
        let mut d = Doc::new(key.clone());
        d.push("verdict", Value::Str(verdict.into()));
        d.push("judge", Value::Str("match@v1".into()));
        if let Some(e) = error {
            d.push_text("error", &e);
        }
        docs.push(d);
        key
    };
    for (c, &n) in SIZES.iter().enumerate() {
        for _ in 0..n {
            let e = cause(c, &mut r);
            let key = doc(
                if c % 2 == 0 { "unscored" } else { "wrong" },
                Some(e),
                &mut docs,
            );
            planted.push((key, c));
        }
    }
    for _ in 0..40 {
        doc("wrong", None, &mut docs);
    }
    for i in 0..10 {
        let one_off = [
            "model refused",
            "empty completion",
            "context length exceeded by a lot",
        ];
        doc(
            "unscored",
            Some(format!("{} ({i})", one_off[i % 3])),
            &mut docs,
        );
    }
    for _ in 0..60 {
        doc("correct", None, &mut docs);
    }
    // Shuffle (Fisher–Yates), then the run's key order, as a run gives its items.
    for i in (1..docs.len()).rev() {
        let j = r.n(i as u64 + 1) as usize;
        docs.swap(i, j);
    }
    docs.sort_by(|a, b| a.key.cmp(&b.key));
    (docs, planted)
}

#[test]
fn planted_causes_come_out_whole_and_pure() {
    let (docs, planted) = fixture(0x2929);
    let c = cohorts(&docs, None);
    let failing = docs.len() - 60;
    assert_eq!(c.n_failed, failing);
    assert_eq!(c.cohorts.iter().map(|x| x.n).sum::<usize>(), failing);
    // Every failing item in exactly one cohort.
    let mut seen = BTreeSet::new();
    for x in &c.cohorts {
        assert_eq!(x.items.len(), x.n);
        for k in &x.items {
            assert!(seen.insert(k.clone()), "{k} in two cohorts");
        }
    }
    assert_eq!(seen.len(), failing);
    for (cause, &size) in SIZES.iter().enumerate() {
        let members: BTreeSet<&ItemKey> = planted
            .iter()
            .filter(|(_, c)| *c == cause)
            .map(|(k, _)| k)
            .collect();
        let (best, overlap) = c
            .cohorts
            .iter()
            .map(|x| (x, x.items.iter().filter(|k| members.contains(k)).count()))
            .max_by_key(|(_, o)| *o)
            .unwrap();
        let recall = overlap as f64 / size as f64;
        let purity = overlap as f64 / best.n as f64;
        assert!(
            recall >= 0.95 && purity >= 0.95,
            "cause {cause}: recall {recall}, purity {purity}, cohort {:?}",
            best.label
        );
    }
    // Largest first; ties by label.
    assert!(c.cohorts.windows(2).all(|w| w[0].n >= w[1].n));
    assert_eq!(c.cohorts[0].n, 50);
    assert_eq!(
        c.cohorts[0].label,
        "wrong · error: Tool bash exited with code <n>: command <q> failed after <n>s, trace <id>"
    );
}

#[test]
fn the_order_is_stable_however_the_items_come() {
    let (docs, _) = fixture(7);
    let a = cohorts(&docs, None);
    let mut rev = docs.clone();
    rev.reverse();
    rev.sort_by(|x, y| x.key.cmp(&y.key));
    assert_eq!(a, cohorts(&rev, None));
    // Same causes from another draw of numbers and ids: the same labels in the same order.
    let (other, _) = fixture(8);
    let labels = |d: &[Doc]| -> Vec<String> {
        cohorts(d, None)
            .cohorts
            .into_iter()
            .filter(|c| c.n >= 5)
            .map(|c| c.label)
            .collect()
    };
    assert_eq!(labels(&docs), labels(&other));
}

#[test]
fn cohorts_against_a_baseline_are_new_grown_shrunk_or_gone() {
    let mk = |items: &[(&str, &str, Option<&str>)]| -> Vec<Doc> {
        items
            .iter()
            .map(|(k, v, e)| {
                let mut d = Doc::new(ItemKey::text(k));
                d.push("verdict", Value::Str(v.to_string()));
                if let Some(e) = e {
                    d.push_text("error", e);
                }
                d
            })
            .collect()
    };
    let base = mk(&[
        ("a", "wrong", Some("timeout after 3s")),
        ("b", "wrong", Some("timeout after 9s")),
        ("c", "wrong", Some("HTTP 500")),
        ("d", "wrong", None),
        ("e", "wrong", Some("disk full")),
    ]);
    let run = mk(&[
        ("a", "wrong", Some("timeout after 4s")),
        ("b", "correct", None),
        ("c", "wrong", Some("HTTP 502")),
        ("d", "wrong", None),
        ("f", "wrong", None),
        ("g", "wrong", Some("auth failed for key sk-abc123XYZ")),
    ]);
    let b = cohorts(&base, None);
    let c = cohorts(&run, Some(&b));
    let status: Vec<(String, usize, Trend, usize)> = c
        .cohorts
        .iter()
        .map(|x| {
            let v = x.vs_baseline.clone().unwrap();
            (x.label.clone(), x.n, v.status, v.baseline_n)
        })
        .collect();
    assert_eq!(
        status,
        [
            ("wrong".to_string(), 2, Trend::Grown, 1),
            ("wrong · error: HTTP <n>".to_string(), 1, Trend::Same, 1),
            (
                "wrong · error: auth failed for key <id>".to_string(),
                1,
                Trend::New,
                0
            ),
            (
                "wrong · error: timeout after <n>s".to_string(),
                1,
                Trend::Shrunk,
                2
            ),
            ("wrong · error: disk full".to_string(), 0, Trend::Gone, 1),
        ]
    );
    assert_eq!(c.n_failed, 5);
    // A cohort's query selects exactly its items once the docs are tagged.
    let mut docs = run.clone();
    c.tag(&mut docs);
    for x in c.cohorts.iter().filter(|x| x.n > 0) {
        let q =
            evalboard_engine::query::Query::parse(&evalboard_engine::cohorts::query_of(&x.label))
                .unwrap();
        assert_eq!(
            evalboard_engine::query::select(&docs, &q).items,
            x.items,
            "{}",
            x.label
        );
    }
}
