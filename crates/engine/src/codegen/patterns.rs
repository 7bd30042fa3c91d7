//! The ISE547 system's pattern tables (Python regex sources, kept verbatim because some of them
//! are written into `safety_issues[].pattern`), compiled once per use by [`super::pyre`].

use super::pyre::{Flags, Regex, Text};

/// Compiles a pattern from the tables below. They are constants inside the supported subset
/// (a unit test compiles every one); should one ever fail, it matches nothing.
pub fn re(pattern: &str, flags: Flags) -> Regex {
    Regex::new(pattern, flags).unwrap_or_else(|_| Regex::never())
}

/// `re.search(pattern, text, flags) is not None`.
pub fn search(pattern: &str, flags: Flags, text: &Text) -> bool {
    re(pattern, flags).is_match(text)
}

/// `any(re.search(p, text, flags) for p in patterns)`.
pub fn any(patterns: &[&str], flags: Flags, text: &Text) -> bool {
    patterns.iter().any(|p| search(p, flags, text))
}

pub const IMPORTS: &str = r"^import\s+|^from\s+.*\s+import";
pub const COMMENT: &str = r"#.*";
pub const COMPLEXITY_KEYWORDS: [&str; 8] = [
    "if", "elif", "else", "for", "while", "try", "except", "with",
];

/// `(category, patterns)` in the seed system's dict order; severity is `high` for system/network.
pub const SAFETY: [(&str, &[&str]); 5] = [
    (
        "file_write",
        &[
            r"\.to_csv\(",
            r"\.to_excel\(",
            r#"open\(.*[\'"]w"#,
            r"\.write\(",
        ],
    ),
    ("file_read", &[r#"open\(.*[\'"]r"#, r"pd\.read_"]),
    ("network", &[r"requests\.", r"urllib\.", r"http\."]),
    (
        "system",
        &[r"os\.system", r"subprocess\.", r"exec\(", r"eval\("],
    ),
    (
        "dangerous_imports",
        &[r"import\s+os", r"import\s+subprocess", r"import\s+sys"],
    ),
];

pub const LOOPS: [&str; 5] = [
    r"\bfor\s+\w+\s+in\s+",
    r"\bwhile\s+",
    r"\.apply\(",
    r"\.iterrows\(",
    r"\.itertuples\(",
];

/// Time-complexity indicators, `(notation, patterns)` in dict order.
pub const TIME_OPS: [(&str, &[&str]); 4] = [
    (
        "O(1)",
        &[
            r"\.head\(",
            r"\.tail\(",
            r"\.iloc\[",
            r"\.loc\[",
            r"\.shape",
            r"\.dtypes",
        ],
    ),
    (
        "O(n)",
        &[
            r"\.mean\(",
            r"\.sum\(",
            r"\.count\(",
            r"\.unique\(",
            r"\.value_counts\(",
            r"\.groupby\(",
            r"\.sort_values\(",
            r"\.dropna\(",
            r"\.fillna\(",
        ],
    ),
    ("O(n log n)", &[r"\.sort_values\(", r"\.sort_index\("]),
    ("O(n²)", &[r"\.merge\(", r"\.join\(", r"\.concat\(.*axis=1"]),
];

pub const TIME_ORDER: [&str; 5] = ["O(1)", "O(n)", "O(n log n)", "O(n²)", "O(n³)"];

/// Space-complexity indicators, `(notation, patterns)` in dict order.
pub const SPACE_OPS: [(&str, &[&str]); 3] = [
    (
        "O(1)",
        &[
            r"\.head\(",
            r"\.tail\(",
            r"\.iloc\[",
            r"\.loc\[",
            r"\.shape",
            r"\.dtypes",
        ],
    ),
    (
        "O(n)",
        &[
            r"\.copy\(",
            r"\.drop\(",
            r"\.dropna\(",
            r"\.fillna\(",
            r"\.assign\(",
            r"result\s*=",
            r"df_new\s*=",
            r"df_filtered\s*=",
        ],
    ),
    (
        "O(n²)",
        &[
            r"\.merge\(",
            r"\.join\(",
            r"\.concat\(",
            r"\.pivot\(",
            r"\.pivot_table\(",
        ],
    ),
];

pub const SPACE_ORDER: [&str; 3] = ["O(1)", "O(n)", "O(n²)"];

/// Names never taken for columns when extracting `df['...']`.
pub const PANDAS_METHODS: [&str; 39] = [
    "head",
    "tail",
    "mean",
    "sum",
    "max",
    "min",
    "count",
    "size",
    "shape",
    "dtypes",
    "columns",
    "index",
    "values",
    "copy",
    "drop",
    "fillna",
    "dropna",
    "groupby",
    "sort_values",
    "sort_index",
    "nlargest",
    "nsmallest",
    "query",
    "loc",
    "iloc",
    "apply",
    "agg",
    "merge",
    "join",
    "concat",
    "pivot",
    "pivot_table",
    "describe",
    "info",
    "isnull",
    "notnull",
    "unique",
    "value_counts",
    "sample",
];

pub const COLUMN_ACCESS: [&str; 2] = [r#"df\[['"]([^'"]+)['"]\]"#, r#"df\[\[['"]([^'"]+)['"]"#];
pub const COLUMN_LIST: &str = r"df\[\[([^\]]+)\]\]";
pub const QUOTED: &str = r#"['"]([^'"]+)['"]"#;

/// A natural-language pattern group: question patterns, code patterns, weight.
pub struct NlPattern {
    pub name: &'static str,
    pub question: &'static [&'static str],
    /// doc-v1's whole-word form of `question`: regexes (`\b`-anchored) or plain keywords.
    pub question_doc: DocKeys,
    pub code: &'static [&'static str],
    pub weight: f64,
}

/// How doc-v1 recognises a pattern group in the question.
pub enum DocKeys {
    Regexes(&'static [&'static str]),
    Words(&'static [&'static str]),
}

pub const NL_PATTERNS: [NlPattern; 5] = [
    NlPattern {
        name: "top_n",
        question: &[
            r"top\s+(\d+)",
            r"largest\s+(\d+)",
            r"biggest\s+(\d+)",
            r"highest\s+(\d+)",
        ],
        question_doc: DocKeys::Regexes(&[r"\b(?:top|largest|biggest|highest)\s+\d+"]),
        code: &[
            r"\.nlargest\(",
            r"\.head\(",
            r"\.sort_values\(.*ascending\s*=\s*False",
        ],
        weight: 0.06,
    },
    NlPattern {
        name: "first_n_rows",
        question: &[
            r"first\s+(\d+)\s+rows?",
            r"first\s+(\d+)",
            r"extract.*first\s+(\d+)",
        ],
        question_doc: DocKeys::Regexes(&[r"\bfirst\s+\d+"]),
        code: &[r"\.head\(", r"\.iloc\[.*:\s*\d+", r"\.loc\[.*:\s*\d+"],
        weight: 0.06,
    },
    NlPattern {
        name: "bottom_n",
        question: &[r"bottom\s+(\d+)", r"smallest\s+(\d+)", r"lowest\s+(\d+)"],
        question_doc: DocKeys::Regexes(&[r"\b(?:bottom|smallest|lowest)\s+\d+"]),
        code: &[
            r"\.nsmallest\(",
            r"\.tail\(",
            r"\.sort_values\(.*ascending\s*=\s*True",
        ],
        weight: 0.06,
    },
    NlPattern {
        name: "filtering",
        question: &[
            "where",
            "filter",
            "only",
            "greater than",
            "less than",
            "equal to",
        ],
        question_doc: DocKeys::Words(&[
            "where",
            "filter",
            "only",
            "greater than",
            "less than",
            "equal to",
        ]),
        code: &[r"df\[.*\]", r"\.query\(", r"\.loc\[", r"\.iloc\["],
        weight: 0.06,
    },
    NlPattern {
        name: "visualization",
        question: &[
            "chart",
            "graph",
            "plot",
            "visualize",
            "bar chart",
            "histogram",
            "pie chart",
        ],
        question_doc: DocKeys::Words(&[
            "chart",
            "graph",
            "plot",
            "visualize",
            "bar chart",
            "histogram",
            "pie chart",
        ]),
        code: &[
            r"plt\.",
            "matplotlib",
            "seaborn",
            r"sns\.",
            r"\.plot\(",
            r"fig\s*=",
            r"ax\.",
        ],
        weight: 0.06,
    },
];

/// A statistical operation: question keywords (plain substrings in the seed system), code
/// patterns, weight.
pub struct StatPattern {
    pub name: &'static str,
    pub question: &'static [&'static str],
    pub code: &'static [&'static str],
    pub weight: f64,
}

pub const STAT_PATTERNS: [StatPattern; 6] = [
    StatPattern {
        name: "mean",
        question: &["average", "mean", "avg"],
        code: &[r"\.mean\(", r"\.average\("],
        weight: 0.1,
    },
    StatPattern {
        name: "sum",
        question: &["sum", "total", "add"],
        code: &[r"\.sum\(", r"\.agg\(.*sum"],
        weight: 0.1,
    },
    StatPattern {
        name: "max",
        question: &["maximum", "max", "highest", "largest"],
        code: &[r"\.max\(", r"\.agg\(.*max", r"\.nlargest\("],
        weight: 0.1,
    },
    StatPattern {
        name: "min",
        question: &["minimum", "min", "lowest", "smallest"],
        code: &[r"\.min\(", r"\.agg\(.*min", r"\.nsmallest\("],
        weight: 0.1,
    },
    StatPattern {
        name: "count",
        question: &["count", "number of", "how many"],
        code: &[r"\.count\(", r"\.size\(", r"len\(", r"\.shape\[0\]"],
        weight: 0.1,
    },
    StatPattern {
        name: "groupby",
        question: &["group by", "by", "per", "for each"],
        code: &[r"\.groupby\(", r"\.pivot_table\("],
        weight: 0.1,
    },
];

pub const FILTER_KEYWORDS: [&str; 11] = [
    "and",
    "or",
    "where",
    "filter",
    "greater than",
    "less than",
    "equal to",
    "not equal",
    "contains",
    "in",
    "between",
];
pub const FILTER_OPS: &str = r"df\[.*\]|\.query\(|\.loc\[.*\]|\.iloc\[.*\]";
pub const GROUPBY_QUESTION: [&str; 2] = [
    r"group\s+by\s+([^,]+(?:,\s*[^,]+)+)",
    r"by\s+([^,]+(?:,\s*[^,]+)+)",
];
pub const GROUPBY_QUESTION_DOC: [&str; 2] = [
    r"\bgroup\s+by\s+([^,]+(?:,\s*[^,]+)+)",
    r"\bby\s+([^,]+(?:,\s*[^,]+)+)",
];
pub const GROUPBY_CODE: &str = r"\.groupby\(\[?([^\]]+)\]?\)";
pub const GROUPBY_ANY: &str = r"\.groupby\(";
pub const SORT_KEYWORDS: [&str; 8] = [
    "sort",
    "order",
    "ascending",
    "descending",
    "top",
    "bottom",
    "largest",
    "smallest",
];
pub const SORT_CODE: &str = r"\.sort_values\(|\.sort_index\(|\.nlargest\(|\.nsmallest\(";
pub const JOIN_KEYWORDS: [&str; 4] = ["join", "merge", "combine", "match"];
pub const JOIN_CODE: &str = r"\.merge\(|\.join\(|\.concat\(";

#[cfg(test)]
mod tests {
    use super::*;

    fn all_patterns() -> Vec<&'static str> {
        let mut v = vec![
            IMPORTS,
            COMMENT,
            COLUMN_LIST,
            QUOTED,
            FILTER_OPS,
            GROUPBY_CODE,
        ];
        v.extend([GROUPBY_ANY, SORT_CODE, JOIN_CODE]);
        v.extend(SAFETY.iter().flat_map(|(_, p)| p.iter().copied()));
        v.extend(LOOPS);
        v.extend(TIME_OPS.iter().flat_map(|(_, p)| p.iter().copied()));
        v.extend(SPACE_OPS.iter().flat_map(|(_, p)| p.iter().copied()));
        v.extend(COLUMN_ACCESS);
        for nl in &NL_PATTERNS {
            v.extend(nl.question.iter().copied());
            v.extend(nl.code.iter().copied());
            if let DocKeys::Regexes(r) = nl.question_doc {
                v.extend(r.iter().copied());
            }
        }
        for st in &STAT_PATTERNS {
            v.extend(st.question.iter().copied());
            v.extend(st.code.iter().copied());
        }
        v.extend(GROUPBY_QUESTION);
        v.extend(GROUPBY_QUESTION_DOC);
        v
    }

    #[test]
    fn every_table_pattern_compiles() {
        for p in all_patterns() {
            assert!(Regex::new(p, Flags::I).is_ok(), "{p}");
        }
        for kw in COMPLEXITY_KEYWORDS {
            assert!(Regex::new(&format!(r"\b{kw}\b"), Flags::NONE).is_ok());
        }
    }

    #[test]
    fn never_matches_nothing() {
        let t = Text::new("anything at all\n");
        assert!(!Regex::never().is_match(&t));
        assert!(!re("(", Flags::NONE).is_match(&t));
    }

    #[test]
    fn pandas_method_set_has_the_seed_names() {
        let mut names: Vec<&str> = PANDAS_METHODS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 39);
    }
}
