//! `evalboard` command-line tool: the native edge of the engine.
fn main() {
    println!("evalboard");
}
