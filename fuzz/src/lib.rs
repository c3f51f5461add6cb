//! What the fuzz targets share: JSON values built from the fuzzer's bytes, the tool servers
//! they drive, and the runtime they run on.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Number, Value};

pub mod echo;

/// A current-thread tokio runtime with timers for one fuzz input; with `paused`, its clock is
/// paused, so a sleeping tool or callback costs no real time. `None` if it cannot be built (the
/// input is then skipped).
pub fn runtime(paused: bool) -> Option<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(paused)
        .build()
        .ok()
}

/// How deep generated JSON nests. Deep nesting is a known, separate defect (serde_json's
/// recursion limit); the targets look for other bugs.
pub const MAX_DEPTH: u32 = 4;

/// A JSON value of at most `depth` levels of arrays and objects, whose object keys are drawn
/// from `keys` most of the time (so a target reaches the fields it cares about).
pub fn json(u: &mut Unstructured<'_>, depth: u32, keys: &[&str]) -> Result<Value> {
    let kinds = if depth == 0 { 6 } else { 8 };
    Ok(match u.choose_index(kinds)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(u.arbitrary::<u64>()?),
        4 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::String(string(u)?),
        6 => {
            let len = u.int_in_range(0..=4)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(json(u, depth - 1, keys)?);
            }
            Value::Array(items)
        }
        _ => Value::Object(object(u, depth - 1, keys)?),
    })
}

/// A JSON object of up to five members, as [`json`].
pub fn object(u: &mut Unstructured<'_>, depth: u32, keys: &[&str]) -> Result<Map<String, Value>> {
    let len = u.int_in_range(0..=5)?;
    let mut map = Map::new();
    for _ in 0..len {
        let key = key(u, keys)?;
        map.insert(key, json(u, depth, keys)?);
    }
    Ok(map)
}

/// One of `keys`, or now and then any string.
pub fn key(u: &mut Unstructured<'_>, keys: &[&str]) -> Result<String> {
    if keys.is_empty() || u.ratio(1, 5)? {
        string(u)
    } else {
        Ok(u.choose(keys)?.to_string())
    }
}

/// A short string: usually ASCII, sometimes anything (escapes, multi-byte characters).
pub fn string(u: &mut Unstructured<'_>) -> Result<String> {
    let s: String = u.arbitrary()?;
    Ok(s.chars().take(24).collect())
}
