//! Browser tests run inside a dedicated worker (where `crypto.subtle` and the worker's global
//! scope are what the readers meet): the worker's reading of a `Load`'s files, an
//! `ArrayBuffer` the page held ([`evalboard_app::worker::browser_files::read_source`]) and the
//! asynchronous readers a drop's `File`s go through (`read_whole`, `BlobSlices`, `start_read`,
//! `read_into_js`).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Uint8Array};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::Blob;

use evalboard_app::worker::browser_files::{
    finish_read, finish_sha256, has_sha256, read_into_js, read_source, read_whole, start_read,
    start_sha256, BlobSlices,
};

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
async fn a_small_blob_is_read_in_one_go() {
    let bytes = pattern(70_000);
    let mut calls = Vec::new();
    let got = read_whole(&blob_of(&bytes).into(), &mut |n| calls.push(n))
        .await
        .expect("read");
    assert_eq!(got, bytes);
    assert_eq!(calls, vec![70_000]);
}

#[wasm_bindgen_test]
async fn a_big_blob_is_read_in_slices_in_order_with_progress_after_each() {
    // 16 MB slices: three of them, the last one short.
    let n = 2 * 16 * 1024 * 1024 + 12_345;
    let bytes = pattern(n);
    let mut calls = Vec::new();
    let got = read_whole(&blob_of(&bytes).into(), &mut |k| calls.push(k))
        .await
        .expect("read");
    assert_eq!(got.len(), n);
    assert!(got == bytes, "the slices were not put back in order");
    assert_eq!(calls, vec![16 << 20, 32 << 20, n as u64]);
}

#[wasm_bindgen_test]
async fn empty_sources_read_as_no_bytes() {
    assert_eq!(
        read_whole(&blob_of(&[]).into(), &mut |_| {}).await,
        Ok(Vec::new())
    );
    let buf = js_sys::ArrayBuffer::new(0);
    assert_eq!(read_source(&buf.into(), &mut |_| {}), Ok(Vec::new()));
}

#[wasm_bindgen_test]
async fn anything_else_is_a_reason_not_a_panic() {
    for v in [
        JsValue::NULL,
        JsValue::UNDEFINED,
        JsValue::from_str("bytes"),
        JsValue::from_f64(3.0),
    ] {
        let err = read_source(&v, &mut |_| panic!("no progress for nothing read")).unwrap_err();
        assert!(err.contains("neither bytes nor a file"), "{err}");
        let err = read_whole(&v, &mut |_| panic!("no progress for nothing read"))
            .await
            .unwrap_err();
        assert!(err.contains("neither bytes nor a file"), "{err}");
    }
}

/// (A big file in slices: `a_big_blob_is_read_in_slices_in_order_with_progress_after_each`.)
#[wasm_bindgen_test]
async fn read_whole_takes_a_small_blob_a_buffer_or_nothing() {
    let small = pattern(5);
    assert_eq!(
        read_whole(&blob_of(&small).into(), &mut |_| {}).await,
        Ok(small.clone())
    );
    let buf = Uint8Array::from(small.as_slice()).buffer();
    assert_eq!(read_whole(&buf.into(), &mut |_| {}).await, Ok(small));
    assert_eq!(
        read_whole(&blob_of(&[]).into(), &mut |_| {}).await,
        Ok(Vec::new())
    );
    let err = read_whole(&JsValue::from_str("x"), &mut |_| {})
        .await
        .unwrap_err();
    assert!(err.contains("neither bytes nor a file"), "{err}");
}

#[wasm_bindgen_test]
async fn slices_of_any_size_give_back_the_file() {
    let bytes = pattern(100_003);
    for slice in [1u64 << 20, 100_003, 4096, 7, 100_002] {
        let mut s = BlobSlices::new(&blob_of(&bytes).into(), slice)
            .expect("a blob")
            .expect("readable");
        assert_eq!(s.size(), 100_003);
        let mut got = Vec::new();
        while let Some(part) = s.next_slice().await.expect("read") {
            assert!(part.len() as u64 <= slice);
            got.extend_from_slice(part);
            assert_eq!(s.position(), got.len() as u64);
        }
        assert!(got == bytes, "slices of {slice}");
        assert_eq!(s.next_slice().await, Ok(None));
    }
    assert!(BlobSlices::new(&js_sys::ArrayBuffer::new(3).into(), 10).is_none());
}

#[wasm_bindgen_test]
async fn reads_started_ahead_finish_with_their_own_bytes() {
    let files: Vec<Vec<u8>> = (0..40).map(|i| pattern(100 + i * 37)).collect();
    let started: Vec<_> = files
        .iter()
        .map(|f| start_read(&blob_of(f).into()).expect("a blob"))
        .collect();
    for (read, want) in started.into_iter().zip(&files) {
        assert_eq!(&finish_read(read).await.expect("read"), want);
    }
    assert!(start_read(&JsValue::NULL).is_none());
}

#[wasm_bindgen_test]
async fn the_browsers_sha256_is_the_files_sha256() {
    assert!(
        has_sha256(),
        "crypto.subtle in the test worker (a secure context)"
    );
    for n in [0usize, 1, 63, 64, 65, 1_000_003] {
        let bytes = pattern(n);
        let digest = start_sha256(&Uint8Array::from(bytes.as_slice())).expect("started");
        let sha = finish_sha256(digest).await.expect("digest");
        assert_eq!(
            evalboard_report::html::FileProvenance::from_digest("r", "f", n as u64, &sha),
            evalboard_report::html::FileProvenance::of("r", "f", &bytes),
            "{n} bytes"
        );
    }
}

#[wasm_bindgen_test]
async fn a_file_read_into_js_memory_is_the_file() {
    let n = 16 * 1024 * 1024 + 5;
    let bytes = pattern(n);
    let mut calls = Vec::new();
    let got = read_into_js(&blob_of(&bytes).into(), &mut |k| calls.push(k))
        .await
        .expect("read");
    assert!(got.to_vec() == bytes);
    assert_eq!(calls, vec![16 << 20, n as u64]);
    let empty = read_into_js(&blob_of(&[]).into(), &mut |_| {})
        .await
        .expect("read");
    assert_eq!(empty.length(), 0);
}
