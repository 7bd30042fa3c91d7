//! A small argument parser: positional values plus `--flag`, `--key VALUE` and `--key=VALUE`.

use anyhow::{bail, Result};

#[derive(Debug, Default)]
pub struct Args {
    pub positional: Vec<String>,
    pub options: Vec<(String, Option<String>)>,
}

impl Args {
    /// `takes_value` lists the options that need a value; anything else starting with `--` is a flag.
    pub fn parse(argv: &[String], takes_value: &[&str], flags: &[&str]) -> Result<Args> {
        let mut out = Args::default();
        let mut it = argv.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                let (name, inline) = match name.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (name, None),
                };
                if takes_value.contains(&name) {
                    let v = match inline {
                        Some(v) => v,
                        None => match it.next() {
                            Some(v) => v.clone(),
                            None => bail!("--{name} needs a value"),
                        },
                    };
                    out.options.push((name.to_string(), Some(v)));
                } else if flags.contains(&name) {
                    out.options.push((name.to_string(), None));
                } else {
                    bail!("unknown option --{name}");
                }
            } else if a == "-o" {
                match it.next() {
                    Some(v) => out.options.push(("out".into(), Some(v.clone()))),
                    None => bail!("-o needs a value"),
                }
            } else {
                out.positional.push(a.clone());
            }
        }
        Ok(out)
    }
    pub fn flag(&self, name: &str) -> bool {
        self.options.iter().any(|(n, _)| n == name)
    }
    pub fn value(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.options
            .iter()
            .filter(|(n, _)| n == name)
            .filter_map(|(_, v)| v.as_deref())
            .collect()
    }
}
