//! Number formatting shared by the tables: thousands separators, a dash for no value.

/// `v` with `digits` decimals, whole numbers of 10,000 and more with thousands separators, and
/// `–` for no value.
pub fn fmt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(v) if v >= 10_000.0 => {
            let s = format!("{v:.0}");
            let mut out = String::new();
            for (i, c) in s.chars().enumerate() {
                if i > 0 && (s.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        }
        Some(v) => format!("{v:.digits$}"),
        None => "–".into(),
    }
}
