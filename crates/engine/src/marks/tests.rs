use super::*;
use crate::run_table::KeyPart;
use crate::stats::SplitMix64;

const RUN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const OTHER: &str = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

fn key(i: u64) -> ItemKey {
    ItemKey::text_index("c", i)
}

fn at(ms: i64) -> At {
    At::Ms(ms)
}

/// Verdicts of items `c/0 …` as given.
fn verdicts(v: &[Option<bool>]) -> Verdicts {
    Verdicts {
        judge: "scorer@v1".into(),
        rows: v
            .iter()
            .enumerate()
            .map(|(i, c)| Verdict {
                key: key(i as u64),
                correct: *c,
            })
            .collect(),
        failed: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The marks of `RUN` as given (`None`: the item is not marked).
fn marks(m: &[Option<bool>]) -> MarkSet {
    let mut set = MarkSet::default();
    for (i, c) in m.iter().enumerate() {
        if let Some(c) = c {
            let mark = if *c { Mark::Correct } else { Mark::Wrong };
            set.set_mark(RUN, &key(i as u64), Some(mark), at(i as i64));
        }
    }
    set
}

/// Cohen's κ written out independently of [`Confusion`], for any number of categories: the
/// observed agreement over the pairs, the expected one from each rater's marginal shares.
fn reference_kappa(pairs: &[(bool, bool)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.is_empty() {
        return None;
    }
    let agree = pairs.iter().filter(|(a, b)| a == b).count() as f64;
    let p_o = agree / n;
    let mut p_e = 0.0;
    for cat in [false, true] {
        let a = pairs.iter().filter(|(x, _)| *x == cat).count() as f64 / n;
        let b = pairs.iter().filter(|(_, y)| *y == cat).count() as f64 / n;
        p_e += a * b;
    }
    if (1.0 - p_e).abs() < 1e-15 {
        return None;
    }
    Some((p_o - p_e) / (1.0 - p_e))
}

fn table(both_correct: u64, scorer_only: u64, human_only: u64, both_wrong: u64) -> Confusion {
    Confusion {
        both_correct,
        scorer_only,
        human_only,
        both_wrong,
    }
}

#[test]
fn kappa_equals_published_examples() {
    // Wikipedia, "Cohen's kappa", worked example: 50 proposals, A and B both yes on 20, A yes
    // B no on 5, A no B yes on 10, both no on 15: p_o = 0.7, p_e = 0.5, κ = 0.4.
    let k = table(20, 5, 10, 15).kappa().unwrap();
    assert!((k - 0.4).abs() < 1e-12, "{k}");
    // Its two tables with the same p_o = 0.6: κ = 0.1304 and 0.2593.
    let k = table(45, 15, 25, 15).kappa().unwrap();
    assert!((k - 0.130_434_782_608_695_6).abs() < 1e-12, "{k}");
    let k = table(25, 35, 5, 35).kappa().unwrap();
    assert!((k - 0.259_259_259_259_259_2).abs() < 1e-12, "{k}");
}

#[test]
fn kappa_equals_the_reference_on_fixtures() {
    let mut rng = SplitMix64::new(29);
    for case in 0..300 {
        let n = (rng.next_u64() % 40) as usize;
        // Skewed shares too, so one-class and near-one-class sides come up.
        let bias = rng.next_u64() % 10;
        let s: Vec<Option<bool>> = (0..n)
            .map(|_| match rng.next_u64() % 12 {
                0 => None,
                r => Some(r % 10 >= bias),
            })
            .collect();
        let h: Vec<Option<bool>> = (0..n)
            .map(|i| match rng.next_u64() % 8 {
                0 => None,
                1..=5 => s[i].or(Some(true)),
                _ => Some(rng.next_u64() & 1 == 0),
            })
            .collect();
        let a = agreement(
            &verdicts(&s),
            "S",
            marks(&h).marks_for(RUN).unwrap_or(&RunMarks {
                content_id: RUN.into(),
                run_name: None,
                items: Vec::new(),
            }),
        );
        let pairs: Vec<(bool, bool)> = s
            .iter()
            .zip(&h)
            .filter_map(|(a, b)| Some(((*a)?, (*b)?)))
            .collect();
        assert_eq!(a.n, pairs.len() as u64, "case {case}");
        match (a.kappa, reference_kappa(&pairs)) {
            (Some(k), Some(r)) => assert!((k - r).abs() < 1e-12, "case {case}: {k} vs {r}"),
            (None, None) => assert!(a.kappa_undefined.is_some()),
            other => panic!("case {case}: {other:?} for {pairs:?}"),
        }
        let disagree: Vec<ItemKey> = (0..n)
            .filter(|&i| matches!((s[i], h[i]), (Some(x), Some(y)) if x != y))
            .map(|i| key(i as u64))
            .collect();
        assert_eq!(a.disagree, disagree, "case {case}");
    }
}

#[test]
fn kappa_edge_cases() {
    // All agree, both classes: κ = 1.
    let a = agreement(
        &verdicts(&[Some(true), Some(false), Some(true)]),
        "S",
        marks(&[Some(true), Some(false), Some(true)])
            .marks_for(RUN)
            .unwrap(),
    );
    assert_eq!((a.n, a.kappa), (3, Some(1.0)));
    assert!(a.disagree.is_empty());
    // All agree on one class only: p_e = 1, κ undefined and said why.
    let a = agreement(
        &verdicts(&[Some(true), Some(true)]),
        "S",
        marks(&[Some(true), Some(true)]).marks_for(RUN).unwrap(),
    );
    assert_eq!(a.kappa, None);
    assert!(a
        .kappa_undefined
        .unwrap()
        .contains("expected agreement is 1"));
    // The scorer one class, the human both: p_o = p_e, κ = 0.
    let a = agreement(
        &verdicts(&[Some(true); 4]),
        "S",
        marks(&[Some(true), Some(true), Some(true), Some(false)])
            .marks_for(RUN)
            .unwrap(),
    );
    assert_eq!(a.kappa, Some(0.0));
    assert_eq!(a.confusion, table(3, 1, 0, 0));
    assert_eq!(a.disagree, vec![key(3)]);
    // No overlap: marks on unscored items and on keys the run lacks.
    let mut set = marks(&[Some(true)]);
    set.set_mark(RUN, &key(9), Some(Mark::Wrong), at(1));
    let a = agreement(&verdicts(&[None]), "S", set.marks_for(RUN).unwrap());
    assert_eq!((a.n, a.kappa), (0, None));
    assert!(a.kappa_undefined.unwrap().contains("no item"));
    // A score override or a note alone is no mark.
    let mut set = MarkSet::default();
    set.set_override(RUN, &key(0), Some(0.5), at(1)).unwrap();
    set.set_note(RUN, &key(1), Some("hm".into()), at(1));
    let a = agreement(
        &verdicts(&[Some(true), Some(false)]),
        "S",
        set.marks_for(RUN).unwrap(),
    );
    assert_eq!(a.n, 0);
}

#[test]
fn history_keeps_every_change_in_order() {
    let mut set = MarkSet::default();
    let k = key(3);
    assert!(set.set_mark(
        RUN,
        &k,
        Some(Mark::Correct),
        At::Iso("2025-01-01T00:00:00Z".into())
    ));
    assert!(
        !set.set_mark(RUN, &k, Some(Mark::Correct), at(2)),
        "no change, nothing kept"
    );
    assert!(set.set_mark(RUN, &k, Some(Mark::Wrong), at(3)));
    assert!(set.set_note(RUN, &k, Some("first".into()), at(4)));
    assert!(set.set_note(RUN, &k, Some("second".into()), at(5)));
    assert_eq!(set.set_override(RUN, &k, Some(0.25), at(6)), Ok(true));
    assert_eq!(
        set.set_override(RUN, &k, Some(1.5), at(7)),
        Err(MarkError::ScoreOutOfRange)
    );
    assert_eq!(
        set.set_override(RUN, &k, Some(f64::NAN), at(7)),
        Err(MarkError::ScoreOutOfRange)
    );
    assert!(set.clear(RUN, &k, at(8)));
    assert!(!set.clear(RUN, &k, at(9)));
    let item = set.marks_for(RUN).unwrap().get(&k).unwrap();
    assert_eq!((item.mark, item.score, &item.note), (None, None, &None));
    let seen: Vec<(String, Field, Option<FieldValue>, Option<FieldValue>)> = item
        .history
        .iter()
        .map(|c| (c.at.to_string(), c.field, c.old.clone(), c.new.clone()))
        .collect();
    use FieldValue as V;
    assert_eq!(
        seen,
        vec![
            (
                "2025-01-01T00:00:00Z".into(),
                Field::Mark,
                None,
                Some(V::Mark(Mark::Correct))
            ),
            (
                "3 ms".into(),
                Field::Mark,
                Some(V::Mark(Mark::Correct)),
                Some(V::Mark(Mark::Wrong))
            ),
            (
                "4 ms".into(),
                Field::Note,
                None,
                Some(V::Note("first".into()))
            ),
            (
                "5 ms".into(),
                Field::Note,
                Some(V::Note("first".into())),
                Some(V::Note("second".into()))
            ),
            ("6 ms".into(), Field::Score, None, Some(V::Score(0.25))),
            ("8 ms".into(), Field::Mark, Some(V::Mark(Mark::Wrong)), None),
            ("8 ms".into(), Field::Score, Some(V::Score(0.25)), None),
            (
                "8 ms".into(),
                Field::Note,
                Some(V::Note("second".into())),
                None
            ),
        ]
    );
}

/// A set with every kind of value: two runs, typed keys, both time forms, hostile notes (one
/// of `big_note` characters).
fn rich_set(big_note: usize) -> (MarkSet, String) {
    let big: String = "é<b>&\u{7}".repeat(big_note / 5);
    let mut set = MarkSet::default();
    set.name_run(OTHER, "other run");
    set.set_mark(
        OTHER,
        &ItemKey::text("x"),
        Some(Mark::Wrong),
        At::Iso("t".into()),
    );
    let k = ItemKey(vec![
        KeyPart::Text("12".into()),
        KeyPart::Index(3),
        KeyPart::Text("03".into()),
    ]);
    set.set_mark(RUN, &k, Some(Mark::Correct), at(1_700_000_000_000));
    set.set_override(RUN, &k, Some(0.1 + 0.2), at(-5)).unwrap();
    set.set_note(
        RUN,
        &k,
        Some("<script>alert(1)</script>\u{0}\u{1b}[31m\r\n\u{2028}".into()),
        at(2),
    );
    set.set_note(RUN, &key(0), Some(big.clone()), at(3));
    (set, big)
}

#[test]
fn sidecar_round_trips_identically() {
    let (set, big) = rich_set(1 << 20); // 1.2 MB of text
    let text = set.to_jsonl();
    // One header and one line per item: no note can break a line.
    assert_eq!(text.lines().count(), 4);
    assert!(text.starts_with("{\"schema\":\"evalboard-marks/1\"}\n"));
    // Runs in id order, items in key order: the same set gives the same bytes.
    assert!(text.find(RUN).unwrap() < text.find(OTHER).unwrap());
    let (back, diags) = MarkSet::from_jsonl("m.jsonl", text.as_bytes());
    assert_eq!(diags, vec![]);
    assert_eq!(back, set);
    assert_eq!(back.to_jsonl(), text);
    // The 1.2 MB note is kept whole, and the script as text.
    let note = back
        .marks_for(RUN)
        .unwrap()
        .get(&key(0))
        .unwrap()
        .note
        .clone();
    assert_eq!(note.as_deref(), Some(big.as_str()));
    let first = &back.marks_for(RUN).unwrap().items[0];
    assert!(first.note.as_deref().unwrap().starts_with("<script>"));
    assert_eq!(first.score, Some(0.1 + 0.2));
}

#[test]
fn sidecar_diagnostics_name_the_line() {
    let line = |k: &str, extra: &str| {
        format!("{{\"run\":\"{RUN}\",\"key\":{k},\"mark\":\"wrong\"{extra}}}")
    };
    let text = [
        "{\"schema\":\"evalboard-marks/1\"}".to_string(),
        line("[\"a\"]", ""),
        "{not json".into(),
        line("[]", ""),
        line("[\"a\",-1]", ""),
        format!("{{\"run\":\"{}\",\"key\":[\"a\"]}}", RUN.to_uppercase()),
        line(
            "[\"b\"]",
            ",\"mark\":\"maybe\",\"score\":2,\"note\":5,\"extra\":1",
        ),
        line(
            "[\"a\"]",
            ",\"history\":[{\"at\":1,\"field\":\"mark\",\"new\":\"nope\"}]",
        ),
        String::new(),
        "[1]".into(),
    ]
    .join("\r\n");
    let (set, diags) = MarkSet::from_jsonl("m.jsonl", text.as_bytes());
    let said: Vec<String> = diags.iter().map(ToString::to_string).collect();
    let has = |line: u32, words: &str| {
        assert!(
            said.iter()
                .any(|d| d.starts_with(&format!("m.jsonl:{line}: ")) && d.contains(words)),
            "no {words:?} on line {line}: {said:#?}"
        )
    };
    has(3, "not JSON");
    has(4, "\"key\" is not an item key");
    has(5, "\"key\" is not an item key");
    has(6, "\"run\" is not a content id");
    has(7, "\"mark\" is not");
    has(7, "\"score\" is not a number from 0 to 1");
    has(7, "\"note\" is not a text");
    has(7, "unknown field(s) ignored: extra");
    // "mark" twice on line 7: the one rule for repeated keys.
    has(7, "mark");
    has(8, "history change 1");
    has(8, "given on line 2 too");
    has(10, "not a JSON object");
    let run = set.marks_for(RUN).unwrap();
    assert_eq!(run.items.len(), 2);
    assert_eq!(run.get(&ItemKey::text("a")).unwrap().history, vec![]);
    let b = run.get(&ItemKey::text("b")).unwrap();
    assert_eq!((b.mark, b.score, &b.note), (None, None, &None));

    // A missing or unknown header: nothing is read.
    for (text, words) in [
        (line("[\"a\"]", ""), "not the header"),
        (
            "{\"schema\":\"evalboard-marks/2\"}\n".to_string() + &line("[\"a\"]", ""),
            "unknown schema",
        ),
        ("\u{feff}{}".to_string(), "not JSON"),
        (String::new(), "empty"),
    ] {
        let (set, diags) = MarkSet::from_jsonl("m.jsonl", text.as_bytes());
        assert_eq!(set, MarkSet::default());
        assert!(
            diags.iter().any(|d| d.message.contains(words)),
            "{words}: {diags:?}"
        );
    }
}

#[test]
fn sidecar_reader_never_panics_on_mutations() {
    // A short note, so that many mutations run quickly.
    let (set, _) = rich_set(10);
    let text = set.to_jsonl().into_bytes();
    let mut rng = SplitMix64::new(7);
    for _ in 0..2000 {
        let mut b = text.clone();
        for _ in 0..1 + rng.next_u64() % 4 {
            let i = (rng.next_u64() as usize) % b.len();
            match rng.next_u64() % 3 {
                0 => b[i] = rng.next_u64() as u8,
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b"[{\"\\,:0n\n"[(rng.next_u64() % 9) as usize]),
            }
        }
        let (read, _) = MarkSet::from_jsonl("m", &b);
        // Whatever was read writes and reads back the same.
        let again = read.to_jsonl();
        assert_eq!(MarkSet::from_jsonl("m", again.as_bytes()).0, read);
    }
}

#[test]
fn apply_puts_marks_beside_the_original() {
    let v = verdicts(&[Some(true), Some(false), None, Some(true)]);
    let mut set = marks(&[Some(false), Some(false), Some(true)]);
    set.set_note(RUN, &key(3), Some("fine".into()), at(1));
    set.set_mark(RUN, &key(7), Some(Mark::Correct), at(1));
    let (with, a) = apply(&v, set.marks_for(RUN).unwrap());
    assert_eq!(a.original, Rate::new(2, 3));
    assert_eq!(a.with_overrides, Rate::new(2, 4));
    assert_eq!((a.applied, a.changed), (4, 2));
    assert_eq!(a.unknown_keys, vec![key(7)]);
    assert_eq!(a.mean_with_scores, None);
    assert_eq!(with.rows.len(), v.rows.len(), "no item added");
    assert_eq!(v.rate(), Rate::new(2, 3), "the original is untouched");
    // A score override counts in the mean with scores (0.5 + 0 + 1 + 1) / 4.
    set.set_override(RUN, &key(0), Some(0.5), at(2)).unwrap();
    let (_, a) = apply(&v, set.marks_for(RUN).unwrap());
    assert_eq!(a.mean_with_scores, Some(0.625));
    // Marks of other bytes are never given for a run.
    assert!(set.marks_for(OTHER).is_none());
    assert_eq!(set.not_in(&[OTHER]).len(), 1);
    assert!(set.not_in(&[RUN]).is_empty());
}

#[test]
fn a_digest_reads_from_its_hex_and_nothing_else_does() {
    let hex = "00ff".repeat(16);
    let d = sha256_from_hex(&hex).unwrap();
    assert_eq!((d[0], d[1], d[31]), (0x00, 0xff, 0xff));
    assert_eq!(sha256_from_hex(&hex.to_uppercase()), Some(d));
    assert_eq!(sha256_from_hex(""), None);
    assert_eq!(sha256_from_hex(&"g".repeat(64)), None);
    assert_eq!(sha256_from_hex(&"é".repeat(32)), None);
}

#[test]
fn a_merge_takes_the_other_sets_items_whole() {
    let id = "a".repeat(64);
    let key = |s: &str| ItemKey::from_parts(&[s.to_string()]);
    let mut mine = MarkSet::default();
    mine.set_mark(&id, &key("x"), Some(Mark::Correct), At::Ms(1));
    mine.set_mark(&id, &key("y"), Some(Mark::Correct), At::Ms(1));
    let mut theirs = MarkSet::default();
    theirs.set_mark(&id, &key("x"), Some(Mark::Wrong), At::Ms(2));
    theirs.name_run(&id, "run");
    mine.merge(theirs);
    let run = mine.marks_for(&id).unwrap();
    assert_eq!(run.get(&key("x")).unwrap().mark, Some(Mark::Wrong));
    assert_eq!(run.get(&key("x")).unwrap().history.len(), 1);
    assert_eq!(run.get(&key("y")).unwrap().mark, Some(Mark::Correct));
    assert_eq!(run.run_name.as_deref(), Some("run"));
}
