//! Run metadata for comparisons: what each run is (model, checkpoint, dataset, eval set, config,
//! command, status, durations) as text fields, side by side with differences flagged, and the
//! training loss curve (step, loss) a run folder's `metrics.jsonl` carries.
//!
//! Every family fills the same keys where it can (`evalset::meta`, `numeric_qa::meta`); a row of
//! [`side_by_side`] exists when at least one run has the field. Values are display text, already
//! formatted (durations as `1 min 26.3 s`, losses with 4 significant digits), so every view shows
//! the same words.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The fields, in display order: (key, label).
pub const FIELDS: &[(&str, &str)] = &[
    ("model", "Model"),
    ("checkpoint", "Checkpoint"),
    ("dataset", "Dataset"),
    ("eval_set", "Eval set"),
    ("items", "Items"),
    ("config", "Config"),
    ("command", "Command"),
    ("hardware", "Hardware"),
    ("status", "Status"),
    ("started", "Started"),
    ("eval_duration", "Eval duration"),
    ("train_duration", "Training duration"),
    ("training_steps", "Training steps logged"),
    ("final_loss", "Final training loss"),
    ("tokens", "Tokens"),
    ("scorer", "Scorer"),
];

/// One metadata value of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaField {
    /// One of [`FIELDS`]' keys.
    pub key: String,
    pub value: String,
}

/// What a run is, and its training loss curve.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// In [`FIELDS`] order; absent fields are left out.
    pub fields: Vec<MetaField>,
    /// `(step, loss)` in step order; empty when the run carries no training metrics.
    pub loss_curve: Vec<(u64, f64)>,
}

impl RunMeta {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.key == key)
            .map(|f| f.value.as_str())
    }

    /// Sets `key` when `value` is non-blank (trimmed); fields stay in [`FIELDS`] order.
    pub(crate) fn put(&mut self, key: &str, value: Option<String>) {
        let Some(v) = value
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
        else {
            return;
        };
        self.fields.retain(|f| f.key != key);
        self.fields.push(MetaField {
            key: key.to_string(),
            value: v,
        });
        self.fields.sort_by_key(|f| field_rank(&f.key));
    }
}

fn field_rank(key: &str) -> usize {
    FIELDS
        .iter()
        .position(|(k, _)| *k == key)
        .unwrap_or(FIELDS.len())
}

/// The label of a field key (the key itself when unknown).
pub fn label(key: &str) -> &str {
    FIELDS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, l)| l)
}

/// One row of the side-by-side table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaRow {
    pub key: String,
    pub label: String,
    /// One value per run, in the runs' order; `None` where the run does not record it.
    pub values: Vec<Option<String>>,
    /// Not every run has the same value (a missing value differs from a present one).
    pub differs: bool,
}

/// Rows for every field at least one run has, in [`FIELDS`] order.
pub fn side_by_side(runs: &[&RunMeta]) -> Vec<MetaRow> {
    FIELDS
        .iter()
        .filter_map(|(key, label)| {
            let values: Vec<Option<String>> = runs
                .iter()
                .map(|m| m.get(key).map(str::to_string))
                .collect();
            if values.iter().all(Option::is_none) {
                return None;
            }
            let differs = values.windows(2).any(|w| w.first() != w.get(1));
            Some(MetaRow {
                key: (*key).to_string(),
                label: (*label).to_string(),
                values,
                differs,
            })
        })
        .collect()
}

/// A duration for people: `42.0 s`, `1 min 26.3 s`, `2 h 05 min`.
pub fn fmt_duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "n/a".into();
    }
    if secs < 60.0 {
        return format!("{secs:.1} s");
    }
    if secs < 3600.0 {
        let m = (secs / 60.0).floor();
        return format!("{m:.0} min {:.1} s", secs - m * 60.0);
    }
    let total_min = (secs / 60.0).round();
    let h = (total_min / 60.0).floor();
    format!("{h:.0} h {:02.0} min", total_min - h * 60.0)
}

/// A loss with four significant digits (`1.022`, `0.8573`, `0.0001235`).
pub fn fmt_loss(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    // Decimals for 4 significant digits, found by exact scaling (no log10: its last bits
    // differ between libms, and this text must be the same natively and in wasm).
    let (mut t, mut digits) = (x.abs(), 3usize);
    while t >= 10.0 && digits > 0 {
        t /= 10.0;
        digits -= 1;
    }
    while t < 1.0 && digits < 12 {
        t *= 10.0;
        digits += 1;
    }
    format!("{x:.digits$}")
}

/// A count with thousands separators: `1,234,567`.
/// A Unix time (seconds since 1970, UTC; lm-eval's `date`) as `YYYY-MM-DD hh:mm:ss UTC`;
/// `None` when not finite or out of the years 1970–9999.
pub fn unix_time_text(secs: f64) -> Option<String> {
    if !secs.is_finite() || !(0.0..253_402_300_800.0).contains(&secs) {
        return None;
    }
    let total = secs.floor() as i64;
    let (days, rem) = (total.div_euclid(86_400), total.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (H. Hinnant's `civil_from_days`).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Some(format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

pub fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", fmt_int(n as u64), if n == 1 { one } else { many })
}

/// The file name of a recorded path (`/` or `\` separated).
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or(path)
}

pub(crate) fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_losses_read_well() {
        assert_eq!(fmt_duration(42.0), "42.0 s");
        assert_eq!(fmt_duration(86.299579), "1 min 26.3 s");
        assert_eq!(fmt_duration(7500.0), "2 h 05 min");
        assert_eq!(fmt_duration(f64::NAN), "n/a");
        assert_eq!(fmt_loss(1.0217112769251284), "1.022");
        assert_eq!(fmt_loss(0.8573377161210286), "0.8573");
        assert_eq!(fmt_loss(12.5), "12.50");
        assert_eq!(fmt_loss(0.0), "0");
        assert_eq!(fmt_int(1234567), "1,234,567");
        assert_eq!(base_name("C:\\a\\b\\eval_v2.jsonl"), "eval_v2.jsonl");
        assert_eq!(base_name("x/y/"), "y");
    }

    #[test]
    fn side_by_side_flags_differences_and_missing_values() {
        let meta = |kv: &[(&str, &str)]| {
            let mut m = RunMeta::default();
            for (k, v) in kv {
                m.put(k, Some(v.to_string()));
            }
            m
        };
        let a = meta(&[("status", "completed"), ("model", "gemma")]);
        let b = meta(&[("model", "gemma"), ("status", "failed")]);
        let c = meta(&[("model", "gemma"), ("status", "completed"), ("config", "x")]);
        let rows = side_by_side(&[&a, &b, &c]);
        let got: Vec<(&str, bool)> = rows.iter().map(|r| (r.key.as_str(), r.differs)).collect();
        assert_eq!(got, [("model", false), ("config", true), ("status", true)]);
        assert_eq!(rows[1].values, [None, None, Some("x".to_string())]);
        assert_eq!(rows[0].label, "Model");
        assert!(side_by_side(&[]).is_empty());
    }
}

#[cfg(test)]
mod unix_time_tests {
    use super::unix_time_text;

    #[test]
    fn unix_times_read_as_utc_dates() {
        assert_eq!(
            unix_time_text(0.0).as_deref(),
            Some("1970-01-01 00:00:00 UTC")
        );
        // An lm-eval `date` (time.time()); Python: datetime.utcfromtimestamp gives 21:42:02.57.
        assert_eq!(
            unix_time_text(1795642922.57).as_deref(),
            Some("2026-11-25 21:42:02 UTC")
        );
        assert_eq!(
            unix_time_text(951_782_400.0).as_deref(),
            Some("2000-02-29 00:00:00 UTC")
        );
        assert_eq!(unix_time_text(-1.0), None);
        assert_eq!(unix_time_text(f64::NAN), None);
    }
}
