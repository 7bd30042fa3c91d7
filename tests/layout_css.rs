//! The stylesheet's contract for log text (issue 31), read from `style/main.css` natively: the
//! elements that show log text wrap long unbroken tokens and isolate their bidi runs, and the
//! Compare tab's run pickers and metrics-table heads clip a long run name with the full name on
//! hover, so a 1 MB token or a long run name never runs off the page.

use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).expect(rel)
}

/// The declarations of every rule whose selector list holds `selector` (top level only).
fn declarations(css: &str, selector: &str) -> String {
    let mut out = String::new();
    for rule in css.split('}') {
        let Some((sel, body)) = rule.split_once('{') else {
            continue;
        };
        let sel = sel.rsplit("*/").next().unwrap_or(sel);
        if sel.split(',').any(|s| s.trim() == selector) {
            out.push_str(body);
            out.push(';');
        }
    }
    out
}

#[test]
fn log_text_wraps_and_is_isolated() {
    let css = read("style/main.css");
    for sel in [
        ".eb-table td",
        ".eb-table th",
        ".eb-card",
        ".eb-text",
        ".eb-callout",
        ".eb-drawer__title",
        ".eb-kv dd",
        ".eb-facts dd",
    ] {
        let d = declarations(&css, sel);
        assert!(d.contains("overflow-wrap: anywhere"), "{sel} wraps: {d}");
        assert!(d.contains("unicode-bidi: isolate"), "{sel} isolates: {d}");
    }
}

#[test]
fn compare_clips_long_run_names_with_the_full_name_on_hover() {
    let css = read("style/main.css");
    for sel in [".eb-compare__pick select", ".eb-clip--name"] {
        assert!(declarations(&css, sel).contains("max-width"), "{sel}");
    }
    assert!(declarations(&css, ".eb-clip").contains("text-overflow: ellipsis"));
    let ui = read("src/ui/compare.rs");
    for side in ["baseline", "candidate"] {
        assert!(
            ui.contains(&format!(
                "<span class=\"eb-clip eb-clip--name\" title=v.{side}.clone()>{{v.{side}.clone()}}</span>"
            )),
            "the metrics table's {side} head is clipped with a title"
        );
    }
    assert!(
        ui.contains("title=move || series.with("),
        "a run picker's title is the chosen run"
    );
}
