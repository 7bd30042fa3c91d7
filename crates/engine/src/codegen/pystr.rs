//! Python `str` semantics the ISE547 metrics depend on: `isspace`, `strip`, `lower`, `len`.

/// Python's `str.isspace()` for one char (also what `\s` and `strip()` use): Unicode White_Space
/// plus the information separators U+001C..U+001F.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `s.strip(chars)`.
pub fn strip_chars<'a>(s: &'a str, chars: &[char]) -> &'a str {
    s.trim_matches(|c| chars.contains(&c))
}

/// Python's `s.lower()` (full Unicode lowercase, final sigma included).
pub fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Python's `len(s)`: code points.
pub fn len(s: &str) -> usize {
    s.chars().count()
}

/// Python's `needle in haystack` for strings.
pub fn contains(haystack: &str, needle: &str) -> bool {
    haystack.contains(needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_uses_python_whitespace() {
        let check = |input: &str, expected: &str| assert_eq!(strip(input), expected, "{input:?}");
        check("  a b \t\r\n", "a b");
        check("\u{1c}\u{1f}x\u{a0}\u{3000}", "x");
        check("\u{200b}x", "\u{200b}x"); // zero-width space is not whitespace in Python
        check("", "");
        check(" \n ", "");
    }

    #[test]
    fn lower_and_len_follow_python() {
        assert_eq!(lower("ÄVERAGE ΣΑΣ"), "äverage σας");
        assert_eq!(lower("İ"), "i\u{307}");
        assert_eq!(len("é€𝄞"), 3);
        assert_eq!(len(""), 0);
        assert_eq!(strip_chars("'\"col\"'", &['\'', '"']), "col");
        assert!(contains("average", "age"));
    }
}
