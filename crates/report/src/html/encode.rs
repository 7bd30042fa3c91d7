//! Encoders of the HTML report: the one text escaper, JSON inside `<script>`, SHA-256, base64,
//! CSP source hashes and gzip. All pure.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// Escapes text for HTML text and attribute values (`& < > " '`; control characters become
/// spaces, U+FFFE/U+FFFF become U+FFFD, bidi controls visible escapes such as `\u{202e}`:
/// [`evalboard_engine::text::neutralize_bidi`], the dashboard's rule too). The single escaper of the report and of every chart
/// label (it is the charts' own function), so no input-derived text takes another path.
pub fn escape_html(text: &str) -> String {
    crate::charts::escape(text)
}

/// JSON for a `<script type="application/json">` block: `<`, `>`, `&`, U+2028, U+2029 and the
/// bidi controls are written as `\uXXXX` escapes, so no `</script>` or `<!--` can end or change
/// the block and no control hides in the file, while `JSON.parse` reads the same value.
pub fn json_for_script(v: &serde_json::Value) -> String {
    let raw = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(raw.len() + 16);
    for c in raw.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if evalboard_engine::text::is_bidi_control(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of a digest (the engine's, as content ids are written).
pub(crate) fn hex(digest: &[u8]) -> String {
    evalboard_engine::run_table::hex(digest)
}

/// A CSP source expression for an inline block: `'sha256-<base64 of SHA-256 of its text>'`.
pub fn csp_hash(block: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(block.as_bytes())))
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b0 = u32::from(chunk.first().copied().unwrap_or(0));
        let b1 = u32::from(chunk.get(1).copied().unwrap_or(0));
        let b2 = u32::from(chunk.get(2).copied().unwrap_or(0));
        let n = (b0 << 16) | (b1 << 8) | b2;
        let idx = |shift: u32| char::from(T[((n >> shift) & 63) as usize]);
        out.push(idx(18));
        out.push(idx(12));
        out.push(if chunk.len() > 1 { idx(6) } else { '=' });
        out.push(if chunk.len() > 2 { idx(0) } else { '=' });
    }
    out
}

/// CRC-32 (IEEE, reflected, as gzip uses it).
fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, slot) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    let mut crc = !0u32;
    for &b in bytes {
        crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// A gzip member (RFC 1952) of `bytes`: no name, mtime 0 (deterministic), deflate level 6.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(miniz_oxide::deflate::compress_to_vec(bytes, 6));
    out.extend(crc32(bytes).to_le_bytes());
    out.extend((bytes.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_escape(input: &str, expected: &str) {
        assert_eq!(escape_html(input), expected, "escape_html({input:?})");
    }

    #[test]
    fn escapes_markup_quotes_and_controls() {
        check_escape(
            "<script>alert(1)</script>",
            "&lt;script&gt;alert(1)&lt;/script&gt;",
        );
        check_escape(
            "\" onmouseover=\"alert(1)",
            "&quot; onmouseover=&quot;alert(1)",
        );
        check_escape("it's & 5% of 1,000", "it&#39;s &amp; 5% of 1,000");
        check_escape("a\nb\u{0}c", "a b c");
        check_escape("-12.5", "-12.5");
        check_escape("", "");
        check_escape("\u{FFFF}", "\u{FFFD}");
        check_escape(
            "exact\u{202E} the log records 0.3333",
            "exact\\u{202e} the log records 0.3333",
        );
        check_escape("\u{2067}x\u{2069}\u{200F}", "\\u{2067}x\\u{2069}\\u{200f}");
    }

    fn check_json(v: serde_json::Value, expected: &str) {
        let s = json_for_script(&v);
        assert_eq!(s, expected);
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v, "round trip");
    }

    #[test]
    fn json_in_script_cannot_close_the_block() {
        check_json(
            serde_json::json!({"q": "</script><script>alert(1)</script>"}),
            r#"{"q":"\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"}"#,
        );
        check_json(serde_json::json!("a&b<!--"), r#""a\u0026b\u003c!--""#);
        check_json(
            serde_json::json!("x\u{2028}y\u{2029}"),
            r#""x\u2028y\u2029""#,
        );
        check_json(serde_json::json!("a\u{202E}b"), r#""a\u202eb""#);
        check_json(serde_json::json!(null), "null");
        check_json(serde_json::json!([-1.5, 0.25]), "[-1.5,0.25]");
    }

    #[test]
    fn sha256_and_base64_known_answers() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        // echo -n "" | openssl dgst -sha256 -binary | base64
        assert_eq!(
            csp_hash(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
    }

    #[test]
    fn gzip_round_trips() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let data = b"a,b\n1,2\n".repeat(100);
        let gz = gzip(&data);
        assert_eq!(&gz[..3], &[0x1f, 0x8b, 8]);
        let body = &gz[10..gz.len() - 8];
        let back = miniz_oxide::inflate::decompress_to_vec(body).unwrap();
        assert_eq!(back, data);
        assert!(gz.len() < data.len() / 4);
    }
}
