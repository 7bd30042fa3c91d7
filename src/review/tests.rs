use super::*;
use crate::protocol::{ScreenFilter, ScreenRow};
use crate::screen::testing::{cell, tables};
use evalboard_engine::family::Family;
use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings, ALL_FAMILIES};
use evalboard_engine::{InputFile, RunInput};

fn fixture() -> (ScoredRun, Vec<FileProvenance>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query");
    let bytes = std::fs::read(root.join("run/query_fixture.json")).unwrap();
    let prov = vec![FileProvenance::of("run", "run/query_fixture.json", &bytes)];
    let input = RunInput::new("run", vec![InputFile::new("run/query_fixture.json", bytes)]);
    let read = run::read_as(Family::EvalLog, &input, None, ReadOptions::default()).unwrap();
    (run::score(read, &Settings::default(), 1), prov)
}

fn plain(scored: &ScoredRun) -> impl Fn(&ScreenQuery) -> Option<ScreenView> + '_ {
    move |q| match scored {
        ScoredRun::EvalLog(l) => Some(crate::evallog::view(l, q)),
        _ => None,
    }
}

fn items(filter: &[(&str, &str)]) -> ScreenQuery {
    ScreenQuery::Items {
        filter: ScreenFilter {
            choices: filter
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            text: None,
        },
        offset: 0,
        limit: 0,
    }
}

#[test]
fn the_content_id_needs_every_digest_and_changes_with_a_byte() {
    let (scored, prov) = fixture();
    let id = content_id(scored.files(), &prov).unwrap();
    assert_eq!(id.len(), 64);
    let mut none = prov.clone();
    none[0].sha256.clear();
    assert_eq!(content_id(scored.files(), &none), None);
    let mut other = prov.clone();
    other[0].sha256 = "0".repeat(64);
    assert_ne!(content_id(scored.files(), &other).unwrap(), id);
}

#[test]
fn edits_keep_history_and_refuse_bad_values() {
    let mut set = MarkSet::default();
    let id = "a".repeat(64);
    let key = ItemKey::from_parts(&["x".to_string()]);
    let ids = (id.as_str(), "run");
    assert_eq!(edit(&mut set, ids, &key, ("mark", "correct"), 1), Ok(true));
    assert_eq!(edit(&mut set, ids, &key, ("mark", "correct"), 2), Ok(false));
    assert_eq!(edit(&mut set, ids, &key, ("mark", "wrong"), 3), Ok(true));
    assert!(edit(&mut set, ids, &key, ("score", "1.5"), 4).is_err());
    assert!(edit(&mut set, ids, &key, ("score", "abc"), 4).is_err());
    assert_eq!(edit(&mut set, ids, &key, ("score", " 0.25 "), 5), Ok(true));
    assert_eq!(
        edit(&mut set, ids, &key, ("note", "<script>\u{7}"), 6),
        Ok(true)
    );
    // Unsetting what was never set records nothing, and makes no item.
    let other = ItemKey::from_parts(&["y".to_string()]);
    assert_eq!(edit(&mut set, ids, &other, ("mark", ""), 7), Ok(false));
    let run = set.marks_for(&id).unwrap();
    assert_eq!(run.items.len(), 1);
    assert_eq!(run.run_name.as_deref(), Some("run"));
    let item = run.get(&key).unwrap();
    assert_eq!(item.history.len(), 4);
    assert_eq!(item.note.as_deref(), Some("<script>\u{7}"));
    assert_eq!(cell_text(item), "✗ wrong · score 0.25 · ✎");
}

#[test]
fn import_keeps_runs_not_loaded_and_names_lines() {
    let mut set = MarkSet::default();
    let id = "b".repeat(64);
    let text = format!(
        "{{\"schema\": \"evalboard-marks/1\"}}\n{{\"run\": \"{id}\", \"run_name\": \"old\", \"key\": [\"x\"], \"mark\": \"correct\"}}\nnot json\n"
    );
    let (error, msg) = import(&mut set, "m.jsonl", &text, &[]);
    assert!(!error);
    assert!(msg.contains("1 marked items of 1 run read"), "{msg}");
    assert!(
        msg.contains("Kept for runs not loaded") && msg.contains("old (bbbbbbbbbbbb…, 1 items)"),
        "{msg}"
    );
    assert!(msg.contains("\nm.jsonl:3: not JSON"), "{msg}");
    assert!(set.marks_for(&id).is_some());
    let (error, msg) = import(&mut set, "bad.jsonl", "hello\n", &[]);
    assert!(error, "{msg}");
}

/// The Items grid gets the Human column and filter; the drawer its controls and history; the
/// Overview the headline with overrides and κ equal to the engine's.
#[test]
fn screens_carry_the_review() {
    enable();
    let (scored, prov) = fixture();
    let r = scored.as_ref();
    let id = content_id(scored.files(), &prov).unwrap();
    let v = screen::<ALL_FAMILIES>(r, Some(&id), &items(&[]), plain(&scored)).unwrap();
    assert_eq!(v.layout.columns.last().unwrap().0, "Human");
    assert!(v.layout.filters.iter().any(|f| f.name == FILTER));
    let keys: Vec<ItemKey> = v.rows.iter().map(|r: &ScreenRow| r.key.clone()).collect();
    assert!(v.rows.iter().all(|r| r.cells.last().unwrap().is_empty()));
    // Mark the first 10 items: alternately correct and wrong.
    with_mut(|set| {
        *set = MarkSet::default();
        for (i, k) in keys.iter().take(10).enumerate() {
            let m = if i % 2 == 0 { "correct" } else { "wrong" };
            edit(set, (&id, "run"), k, ("mark", m), i as i64).unwrap();
        }
    });
    let v = screen::<ALL_FAMILIES>(r, Some(&id), &items(&[]), plain(&scored)).unwrap();
    assert_eq!(v.rows[0].cells.last().unwrap(), "✓ correct");
    assert_eq!(v.rows[1].cells.last().unwrap(), "✗ wrong");
    let marked =
        screen::<ALL_FAMILIES>(r, Some(&id), &items(&[(FILTER, "marked")]), plain(&scored))
            .unwrap();
    assert_eq!(marked.n_match, 10);
    let wrong =
        screen::<ALL_FAMILIES>(r, Some(&id), &items(&[(FILTER, "wrong")]), plain(&scored)).unwrap();
    assert_eq!(wrong.n_match, 5);
    // Other bytes: nothing applies.
    let other = "c".repeat(64);
    let none = screen::<ALL_FAMILIES>(
        r,
        Some(&other),
        &items(&[(FILTER, "marked")]),
        plain(&scored),
    )
    .unwrap();
    assert_eq!(none.n_match, 0);
    // scorer ≠ human lists exactly the engine's disagreements.
    let verdicts = r.verdicts_in::<ALL_FAMILIES>(None).unwrap();
    let want = with(|set| marks::agreement(&verdicts, "", set.marks_for(&id).unwrap()));
    let differ =
        screen::<ALL_FAMILIES>(r, Some(&id), &items(&[(FILTER, DIFFERS)]), plain(&scored)).unwrap();
    let got: Vec<ItemKey> = differ.rows.iter().map(|r| r.key.clone()).collect();
    assert_eq!(got, want.disagree);
    // The drawer.
    let item = screen::<ALL_FAMILIES>(
        r,
        Some(&id),
        &ScreenQuery::Item {
            key: keys[1].clone(),
        },
        plain(&scored),
    )
    .unwrap();
    let blocks = &item.item.unwrap().blocks;
    let Some(Block::Group {
        key, blocks: inner, ..
    }) = blocks.last()
    else {
        panic!()
    };
    assert_eq!(key, "review");
    assert!(matches!(&inner[0], Block::Review { mark, .. } if mark == "wrong"));
    let hist = tables(inner);
    assert_eq!(hist[0].key, "review-history");
    assert_eq!(cell(&hist[0].rows[0].cells[3]), "wrong");
    // No digest: said, no controls.
    let item = screen::<ALL_FAMILIES>(
        r,
        None,
        &ScreenQuery::Item {
            key: keys[1].clone(),
        },
        plain(&scored),
    )
    .unwrap();
    let blocks = &item.item.unwrap().blocks;
    assert!(
        matches!(blocks.last(), Some(Block::Group { blocks: b, .. }) if matches!(&b[0], Block::Note { key, .. } if key == "review-no-digest"))
    );
    // The Overview: κ as the engine computes it, and the marks file on the Export list.
    let ov = screen::<ALL_FAMILIES>(
        r,
        Some(&id),
        &ScreenQuery::Overview {
            dark: false,
            choices: vec![],
        },
        plain(&scored),
    )
    .unwrap();
    assert!(ov.exports.iter().any(|(f, _)| f == FILE));
    let t = tables(&ov.blocks)
        .into_iter()
        .find(|t| t.key == "agreement")
        .unwrap();
    let review = with(|set| marks::review_in::<ALL_FAMILIES>(&r, &id, set))
        .unwrap()
        .unwrap();
    assert_eq!(cell(&t.rows[0].cells[2]), kappa_text(&review.agreement[0]));
    // κ by hand: over the items with both a verdict and a mark.
    let (mut n, mut agree, mut s_yes, mut h_yes) = (0.0, 0.0, 0.0, 0.0);
    for (i, k) in keys.iter().take(10).enumerate() {
        let human = i % 2 == 0;
        let Some(Some(scorer)) = verdicts
            .rows
            .iter()
            .find(|v| &v.key == k)
            .map(|v| v.correct)
        else {
            continue;
        };
        n += 1.0;
        agree += f64::from(u8::from(scorer == human));
        s_yes += f64::from(u8::from(scorer));
        h_yes += f64::from(u8::from(human));
    }
    let (po, s, h) = (agree / n, s_yes / n, h_yes / n);
    let pe = s * h + (1.0 - s) * (1.0 - h);
    assert_eq!(
        cell(&t.rows[0].cells[2]),
        format!("{:.3}", (po - pe) / (1.0 - pe))
    );
    assert_eq!(cell(&t.rows[0].cells[1]), format!("{n}"));
    with_mut(|set| *set = MarkSet::default());
}

/// The page's HTML report carries the marks kept, as `report --marks` does.
#[test]
fn the_report_includes_the_marks() {
    enable();
    let (scored, prov) = fixture();
    let r = scored.as_ref();
    let id = content_id(scored.files(), &prov).unwrap();
    let key = r.verdicts_in::<ALL_FAMILIES>(None).unwrap().rows[0]
        .key
        .clone();
    with_mut(|set| {
        *set = MarkSet::default();
        edit(set, (&id, "run"), &key, ("note", "<script>x</script>"), 1).unwrap();
        edit(set, (&id, "run"), &key, ("mark", "wrong"), 2).unwrap();
    });
    let html = crate::exports::report_in::<ALL_FAMILIES>(
        vec![(r, prov.as_slice())],
        Vec::new(),
        ("2025-01-01T00:00:00Z".into(), None),
        report_marks(vec![Some(id.clone())]),
    );
    assert!(
        html.contains("<section id=\"human\">"),
        "no Human review section"
    );
    assert!(
        html.contains("&lt;script&gt;x&lt;/script&gt;") && !html.contains("<script>x</script>")
    );
    with_mut(|set| *set = MarkSet::default());
    assert!(
        report_marks(vec![Some(id)]).is_none(),
        "no marks, no section"
    );
}

/// The All runs tab's human review: each marked run's headline as judged and with overrides,
/// against the pinned baseline's, in points; none while no run is marked.
#[test]
fn all_runs_show_each_marked_run_against_the_baseline() {
    enable();
    let (scored, prov) = fixture();
    let r = scored.as_ref();
    let id = content_id(scored.files(), &prov).unwrap();
    with_mut(|set| *set = MarkSet::default());
    let runs = [("base", r, Some(id.clone())), ("cand", r, None)];
    assert_eq!(many_section::<ALL_FAMILIES>(&runs), None);
    // The baseline's first wrong item marked correct: its headline with overrides rises by one.
    let own = r.verdicts_in::<ALL_FAMILIES>(None).unwrap();
    let wrong = own.rows.iter().find(|v| v.correct == Some(false)).unwrap();
    with_mut(|set| edit(set, (&id, "base"), &wrong.key, ("mark", "correct"), 1).unwrap());
    let runs = [
        ("base", r, Some(id.clone())),
        ("cand", r, Some(id.clone())),
        ("no digest", r, None),
    ];
    let block = many_section::<ALL_FAMILIES>(&runs).expect("a marked run");
    let t = tables(std::slice::from_ref(&block));
    let t = t.iter().find(|t| t.key == "human-many").unwrap();
    // The unmarked run (no digest) is not listed.
    assert_eq!(t.rows.len(), 2);
    let rate = own.rate();
    let n = rate.n;
    assert_eq!(cell(&t.rows[0].cells[1]), "1");
    assert!(cell(&t.rows[0].cells[2]).ends_with(&format!("({} of {n})", rate.correct)));
    assert!(cell(&t.rows[0].cells[3]).ends_with(&format!("({} of {n})", rate.correct + 1)));
    assert_eq!(cell(&t.rows[0].cells[4]), "baseline");
    // The same bytes as the baseline: no difference either way.
    assert_eq!(cell(&t.rows[1].cells[4]), "+0.0 pp");
    assert_eq!(cell(&t.rows[1].cells[5]), "+0.0 pp");
    with_mut(|set| *set = MarkSet::default());
}
