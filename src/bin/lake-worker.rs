//! The lake Web Worker binary (Trunk builds it as a worker with the `lake` feature; the main
//! worker starts it on the first drop of a results lake). It carries the Parquet reader.

#[cfg(all(target_arch = "wasm32", feature = "lake"))]
fn main() {
    evalboard_app::lake_worker::start();
}

#[cfg(not(all(target_arch = "wasm32", feature = "lake")))]
fn main() {}
