//! `evalboard validate <FILE>`: check a ConvFinQA dataset by executing every turn_program.

use anyhow::{bail, Context, Result};
use evalboard_engine::validate::validate_dataset;

use crate::args::Args;

pub fn run(argv: &[String]) -> Result<u8> {
    let a = Args::parse(argv, &["min-items"], &["json"])?;
    let [path] = a.positional.as_slice() else {
        bail!("validate needs exactly one FILE");
    };
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {path}"))?;
    let report = validate_dataset(path, &bytes);
    if a.flag("json") {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report.summary_text());
    }
    Ok(report.exit_code().clamp(0, 2) as u8)
}
