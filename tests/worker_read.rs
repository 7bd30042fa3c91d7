//! Browser tests run inside a dedicated worker (where `FileReaderSync` exists): the worker's
//! reading of a `Load`'s files, [`evalboard_app::edge::read_source`].
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Uint8Array};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::Blob;

use evalboard_app::edge::read_source;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn blob_of(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("a blob")
}

/// Bytes with no repeating period a slice boundary could hide a misplaced copy in.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8 ^ (i >> 16) as u8).collect()
}

#[wasm_bindgen_test]
fn an_array_buffer_is_copied_out_whole() {
    let bytes = pattern(1000);
    let buf = Uint8Array::from(bytes.as_slice()).buffer();
    let mut calls = Vec::new();
    let got = read_source(&buf.into(), &mut |n| calls.push(n)).expect("read");
    assert_eq!(got, bytes);
    assert_eq!(calls, vec![1000]);
}

#[wasm_bindgen_test]
fn a_small_blob_is_read_in_one_go() {
    let bytes = pattern(70_000);
    let mut calls = Vec::new();
    let got = read_source(&blob_of(&bytes).into(), &mut |n| calls.push(n)).expect("read");
    assert_eq!(got, bytes);
    assert_eq!(calls, vec![70_000]);
}

#[wasm_bindgen_test]
fn a_big_blob_is_read_in_slices_in_order_with_progress_after_each() {
    // 16 MB slices: three of them, the last one short.
    let n = 2 * 16 * 1024 * 1024 + 12_345;
    let bytes = pattern(n);
    let mut calls = Vec::new();
    let got = read_source(&blob_of(&bytes).into(), &mut |k| calls.push(k)).expect("read");
    assert_eq!(got.len(), n);
    assert!(got == bytes, "the slices were not put back in order");
    assert_eq!(calls, vec![16 << 20, 32 << 20, n as u64]);
}

#[wasm_bindgen_test]
fn empty_sources_read_as_no_bytes() {
    assert_eq!(
        read_source(&blob_of(&[]).into(), &mut |_| {}),
        Ok(Vec::new())
    );
    let buf = js_sys::ArrayBuffer::new(0);
    assert_eq!(read_source(&buf.into(), &mut |_| {}), Ok(Vec::new()));
}

#[wasm_bindgen_test]
fn anything_else_is_a_reason_not_a_panic() {
    for v in [
        JsValue::NULL,
        JsValue::UNDEFINED,
        JsValue::from_str("bytes"),
        JsValue::from_f64(3.0),
    ] {
        let err = read_source(&v, &mut |_| panic!("no progress for nothing read")).unwrap_err();
        assert!(err.contains("neither bytes nor a file"), "{err}");
    }
}
