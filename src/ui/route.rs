//! The view state that lives in the URL hash (run, tab, item filters and sort, open item), so a
//! link reopens the same view. Pure: parse/format are tested natively.

use evalboard_engine::run_table::ItemKey;

/// The dashboard's tabs, in display order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Tab {
    #[default]
    Overview,
    Complexity,
    Breakdowns,
    Errors,
    Items,
    Files,
    Settings,
    Export,
    /// Baseline vs candidate (any two loaded runs of one family).
    Compare,
    /// Every run of one family against the pinned baseline.
    Runs,
}

impl Tab {
    pub const ALL: [Tab; 10] = [
        Tab::Overview,
        Tab::Complexity,
        Tab::Breakdowns,
        Tab::Errors,
        Tab::Items,
        Tab::Files,
        Tab::Settings,
        Tab::Export,
        Tab::Compare,
        Tab::Runs,
    ];

    /// The slug used in the URL hash and in element ids.
    pub fn slug(self) -> &'static str {
        match self {
            Tab::Overview => "overview",
            Tab::Complexity => "complexity",
            Tab::Breakdowns => "breakdowns",
            Tab::Errors => "errors",
            Tab::Items => "items",
            Tab::Files => "files",
            Tab::Settings => "settings",
            Tab::Export => "export",
            Tab::Compare => "compare",
            Tab::Runs => "runs",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::Complexity => "Complexity",
            Tab::Breakdowns => "Breakdowns",
            Tab::Errors => "Errors",
            Tab::Items => "Items",
            Tab::Files => "Load report",
            Tab::Settings => "Settings",
            Tab::Export => "Export",
            Tab::Compare => "Compare",
            Tab::Runs => "All runs",
        }
    }

    pub fn from_slug(s: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.slug() == s)
    }
}

/// Everything the URL hash records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Route {
    /// The current run, by its (unique) display name.
    pub run: Option<String>,
    pub tab: Tab,
    /// Items: the search text (`q=`); the other filters are `choices`.
    pub text: Option<String>,
    /// The open item, by its key: a numeric QA turn (`[conversation id, turn index]`, whose
    /// conversation opens at that turn), a message, an eval-set item, a log sample.
    pub item: Option<ItemKey>,
    /// Compare tab: baseline and candidate run names, flip class and category filters.
    pub base: Option<String>,
    pub cand: Option<String>,
    pub flip: Option<String>,
    pub cat: Option<String>,
    /// Compare tab: the breakdown field the per-slice table is by (`None`: the first offered).
    pub by: Option<String>,
    /// Compare tab: more runs after the candidate (a series, in order; `also=` repeated), and
    /// the consecutive step whose items are listed (0 = baseline → candidate).
    pub also: Vec<String>,
    pub step: u32,
    /// Items (every family's, laid out by the worker): the value chosen for each of its choice
    /// filters, by name (`f.<name>=`; the search is `text`). Old numeric QA links' `verdict=`,
    /// `turn=`, `feature=`, `error=`, `disagree=1`, `sort=` and `desc=1` are read into them.
    pub choices: Vec<(String, String)>,
    /// All runs tab: the pinned baseline, by run name (also kept in the browser).
    pub pin: Option<String>,
}

impl Route {
    /// The value chosen for the screen filter `name`.
    pub fn choice(&self, name: &str) -> Option<String> {
        self.choices
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// Chooses `value` for the screen filter `name` (`None`: any), keeping them sorted by name.
    pub fn set_choice(&mut self, name: &str, value: Option<String>) {
        self.choices.retain(|(n, _)| n != name);
        if let Some(v) = value {
            self.choices.push((name.to_string(), v));
            // By name, then value (names hold no NUL).
            crate::ui::order::sort_by_key(&mut self.choices, |(n, v)| format!("{n}\0{v}"));
        }
    }

    /// Formats the hash (without `#`). Defaults are left out so links stay short.
    pub fn to_hash(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let put =
            |parts: &mut Vec<String>, k: &str, v: &str| parts.push(format!("{k}={}", encode(v)));
        if let Some(r) = &self.run {
            put(&mut parts, "run", r);
        }
        if self.tab != Tab::Overview {
            put(&mut parts, "tab", self.tab.slug());
        }
        if let Some(v) = self.text.as_deref().filter(|t| !t.is_empty()) {
            put(&mut parts, "q", v);
        }
        if let Some(key) = &self.item {
            parts.push(format!("item={}", key_text(key)));
        }
        for (k, v) in [
            ("base", &self.base),
            ("cand", &self.cand),
            ("flip", &self.flip),
            ("cat", &self.cat),
            ("by", &self.by),
            ("pin", &self.pin),
        ] {
            if let Some(v) = v {
                put(&mut parts, k, v);
            }
        }
        for (k, v) in &self.choices {
            put(&mut parts, &format!("f.{}", encode(k)), v);
        }
        for v in &self.also {
            put(&mut parts, "also", v);
        }
        if self.step > 0 {
            put(&mut parts, "step", &self.step.to_string());
        }
        parts.join("&")
    }

    /// Parses a hash (with or without `#`). Unknown keys and bad values are ignored: a hand-edited
    /// link still opens something sensible.
    pub fn from_hash(hash: &str) -> Route {
        let mut r = Route::default();
        let h = hash.strip_prefix('#').unwrap_or(hash);
        for part in h.split('&').filter(|p| !p.is_empty()) {
            let (k, raw) = part.split_once('=').unwrap_or((part, ""));
            let v = decode(raw);
            match k {
                "run" if !v.is_empty() => r.run = Some(v),
                "tab" => r.tab = Tab::from_slug(&v).unwrap_or_default(),
                "q" if !v.is_empty() => r.text = Some(v),
                // An old numeric QA link's Items filters, as the worker's choices name them
                // (`qa_items`).
                "verdict" | "turn" | "feature" | "error" | "disagree" | "sort" | "desc" => {
                    if let Some((name, value)) = old_filter(k, &v) {
                        r.set_choice(name, Some(value.to_string()));
                    }
                }
                "item" => r.item = key_of_text(raw),
                "base" if !v.is_empty() => r.base = Some(v),
                "cand" if !v.is_empty() => r.cand = Some(v),
                "flip" if !v.is_empty() => r.flip = Some(v),
                "cat" if !v.is_empty() => r.cat = Some(v),
                "by" if !v.is_empty() => r.by = Some(v),
                "pin" if !v.is_empty() => r.pin = Some(v),
                "also" if !v.is_empty() => r.also.push(v),
                "step" => r.step = v.parse().unwrap_or(0),
                _ => {
                    if let Some(name) = k.strip_prefix("f.").filter(|n| !n.is_empty()) {
                        if !v.is_empty() {
                            r.set_choice(&decode(name), Some(v));
                        }
                    }
                }
            }
        }
        r
    }
}

/// An old link's numeric QA Items filter `key=value` as the choice the worker's Items screen
/// names (`qa_items`: `f.verdict=`, `f.turn=`, `f.feature=`, `f.error=`, `f.original=`,
/// `f.sort=`, `f.order=`); `None` for a value it never wrote.
fn old_filter<'a>(key: &str, value: &'a str) -> Option<(&'static str, &'a str)> {
    Some(match (key, value) {
        ("verdict", "correct" | "wrong") => ("verdict", value),
        ("turn", t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => ("turn", t),
        // The engine's name the old link carries, as the select shows it.
        ("feature", v) => crate::protocol::QA_FEATURES
            .iter()
            .find(|(_, name)| *name == v)
            .map(|(shown, _)| ("feature", *shown))?,
        ("error", v) if !v.is_empty() => ("error", v),
        ("disagree", "1") => ("original", "differs from the re-scoring"),
        ("desc", "1") => ("order", "descending"),
        ("sort", "logic_recall") => ("sort", "logic recall"),
        ("sort", "ops") => ("sort", "operations"),
        ("sort", "error") => ("sort", "error type"),
        ("sort", "conversation" | "turn" | "verdict" | "tokens") => ("sort", value),
        _ => return None,
    })
}

/// Percent-encodes everything but RFC 3986 unreserved characters (UTF-8 bytes).
/// An item key as the URL holds it: its parts, each percent-encoded ([`encode`]), joined by `/`
/// (`item=c1/3`). Read back by [`key_of_text`].
pub fn key_text(key: &ItemKey) -> String {
    let parts: Vec<String> = key.parts().iter().map(|p| encode(p)).collect();
    parts.join("/")
}

/// The key [`key_text`] wrote; `None` for an empty text.
pub fn key_of_text(text: &str) -> Option<ItemKey> {
    let parts: Vec<String> = text.split('/').map(decode).collect();
    (!text.is_empty()).then(|| ItemKey::from_parts(&parts))
}

pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (and `+` as a space); malformed escapes are kept verbatim and invalid
/// UTF-8 is replaced, so any hash decodes to something.
pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                    }
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(hash: &str, expected: Route) {
        let got = Route::from_hash(hash);
        assert_eq!(got, expected, "parse {hash:?}");
        // Round trip: formatting and parsing again gives the same route.
        assert_eq!(
            Route::from_hash(&got.to_hash()),
            got,
            "round trip of {hash:?}"
        );
    }

    #[test]
    fn the_pinned_baseline_is_in_the_link() {
        let r = Route {
            tab: Tab::Runs,
            pin: Some("base/arith.json".into()),
            choices: vec![("show".into(), "Every run wrong".into())],
            ..Route::default()
        };
        assert_eq!(
            r.to_hash(),
            "tab=runs&pin=base%2Farith.json&f.show=Every%20run%20wrong"
        );
        check(&r.to_hash(), r);
    }

    #[test]
    fn compare_route() {
        let r = Route {
            run: Some("o3".into()),
            tab: Tab::Compare,
            base: Some("gpt-4o".into()),
            cand: Some("o3 & co".into()),
            flip: Some("regressed".into()),
            cat: Some("edge_case".into()),
            by: Some("difficulty".into()),
            ..Default::default()
        };
        let h = r.to_hash();
        assert_eq!(
            h,
            "run=o3&tab=compare&base=gpt-4o&cand=o3%20%26%20co&flip=regressed&cat=edge_case&by=difficulty"
        );
        check(&h, r);
        let series = Route {
            tab: Tab::Compare,
            base: Some("stage a".into()),
            cand: Some("stage_b".into()),
            also: vec!["stage_c".into(), "stage,d".into()],
            step: 2,
            ..Default::default()
        };
        let h = series.to_hash();
        assert_eq!(
            h,
            "tab=compare&base=stage%20a&cand=stage_b&also=stage_c&also=stage%2Cd&step=2"
        );
        check(&h, series);
        check(
            "tab=compare&base=&cand=x",
            Route {
                tab: Tab::Compare,
                cand: Some("x".into()),
                ..Default::default()
            },
        );
    }

    #[test]
    fn codegen_item_route() {
        let r = Route {
            run: Some("chat_history".into()),
            tab: Tab::Items,
            text: Some("salary".into()),
            item: Some(ItemKey::text_index("0000-1", 4)),
            choices: vec![
                ("class".into(), "column_error".into()),
                ("model".into(), "gpt-4".into()),
                ("session".into(), "0000-1".into()),
            ],
            ..Default::default()
        };
        let h = r.to_hash();
        assert_eq!(
            h,
            "run=chat_history&tab=items&q=salary&item=0000-1/4&f.class=column_error&f.model=gpt-4&f.session=0000-1"
        );
        check(&h, r);
    }

    #[test]
    fn empty_and_defaults() {
        check("", Route::default());
        check("#", Route::default());
        assert_eq!(Route::default().to_hash(), "");
    }

    #[test]
    fn full_route() {
        let mut r = Route {
            run: Some("gpt-4o run/1 & co".into()),
            tab: Tab::Items,
            text: Some("50% of <b>".into()),
            // Any text in an id: a slash, a percent sign, a dot, an ampersand.
            item: Some(ItemKey::text_index("conv/1 %2F & x.y", 3)),
            ..Default::default()
        };
        for (k, v) in [
            ("verdict", "wrong"),
            ("turn", "2"),
            ("feature", "type-2 question"),
            ("error", "TimeoutError"),
            ("original", "differs from the re-scoring"),
            ("sort", "tokens"),
            ("order", "descending"),
        ] {
            r.set_choice(k, Some(v.into()));
        }
        let h = r.to_hash();
        assert!(h.contains("run=gpt-4o%20run%2F1%20%26%20co"), "{h}");
        assert!(h.contains("item=conv%2F1%20%252F%20%26%20x.y/3"), "{h}");
        check(&format!("#{h}"), r);
    }

    /// A numeric QA link from before its Items were the worker's grid opens the same filters.
    #[test]
    fn old_numeric_qa_item_links_open_the_same_filters() {
        let old = "run=gpt-4o&tab=items&verdict=wrong&turn=2&feature=has_type2_question\
                   &error=TimeoutError&q=net&disagree=1&sort=logic_recall&desc=1";
        let r = Route::from_hash(old);
        assert_eq!(r.text.as_deref(), Some("net"));
        let got: Vec<(&str, &str)> = r
            .choices
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("error", "TimeoutError"),
                ("feature", "type-2 question"),
                ("order", "descending"),
                ("original", "differs from the re-scoring"),
                ("sort", "logic recall"),
                ("turn", "2"),
                ("verdict", "wrong"),
            ]
        );
        assert_eq!(
            Route::from_hash("verdict=maybe&turn=x&sort=zzz&desc=0&disagree=0").choices,
            []
        );
    }

    #[test]
    fn bad_values_are_ignored() {
        check(
            "#tab=nope&verdict=maybe&turn=x&item=&sort=zzz&junk&=3",
            Route::default(),
        );
        check(
            "tab=errors&item=4/0",
            Route {
                tab: Tab::Errors,
                item: Some(ItemKey::text_index("4", 0)),
                ..Route::default()
            },
        );
    }

    #[test]
    fn percent_coding() {
        assert_eq!(decode("a%20b+c"), "a b c");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%C3%A9"), "é");
        assert_eq!(decode("%FF"), "\u{FFFD}");
        assert_eq!(encode("é/ %"), "%C3%A9%2F%20%25");
        // An item key: an id that is a number stays an id; a later number is an index.
        for key in [
            ItemKey::text("7"),
            ItemKey::text_index("a/b", 10),
            ItemKey::from_parts(&["t".into(), "03".into(), "".into()]),
        ] {
            assert_eq!(key_of_text(&key_text(&key)), Some(key));
        }
    }

    #[test]
    fn tabs_round_trip() {
        for t in Tab::ALL {
            assert_eq!(Tab::from_slug(t.slug()), Some(t));
        }
    }
}
